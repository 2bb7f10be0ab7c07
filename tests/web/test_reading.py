"""The reader's side (issue 18 items 7 and 8): live updates carry only what changed, keep every secret from
every role (text, markup and rolls), the Atom feed links each post and carries the rolls the reader may see,
skipped turns reach the story, and the story pages walk back through a long scene."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from web.apikit import Table

from storymaster.play.reading import PAGE_SIZE, story_page, unread
from storymaster.play.views import Reader

ATOM = {"a": "http://www.w3.org/2005/Atom"}


def _events(text: str) -> list[tuple[str, dict]]:
    out = []
    for block in text.split("\n\n"):
        name = data = None
        for line in block.splitlines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data = json.loads(line[6:])
        if name and data is not None:
            out.append((name, data))
    return out


def _stream(t: Table, who, after: int, html: bool = True) -> tuple[str, list[tuple[str, dict]]]:
    url = f"/api/scenes/{t.scene}/events?after={after}&max_seconds=0.2{'&html=true' if html else ''}"
    text = t.client.get(url, headers=who.h).text
    return text, _events(text)


def _head(t: Table) -> int:
    return t.get(t.gm, f"/api/scenes/{t.scene}")["head"]["seq"]


def test_a_delta_carries_the_new_post_only_and_costs_the_same_bytes_at_any_length(table: Table) -> None:
    t = table
    t.post(t.p1, kind="ooc", text="the first")
    cursor = _head(t)
    t.post(t.p2, kind="ooc", text="one new post")
    small, events = _stream(t, t.p1, cursor)
    assert [d["text"] for n, d in events if n == "post"] == ["one new post"]
    assert 'id="post-' in next(d for n, d in events if n == "post")["html"]
    for i in range(120):
        t.post(t.p1, kind="ooc", text=f"filler {i}")
    cursor = _head(t)
    t.post(t.p2, kind="ooc", text="one new post")
    large, events = _stream(t, t.p1, cursor)
    assert [d["text"] for n, d in events if n == "post"] == ["one new post"]
    # the same delta after 120 more posts: the same bytes but for a few digits (ids, counts, times)
    assert abs(len(large) - len(small)) < 60, (len(small), len(large))


def test_deltas_keep_private_posts_and_hidden_rolls_from_every_role(table: Table) -> None:
    t = table
    cursor = _head(t)
    t.post(t.p2, kind="private", to=[t.gm.id], text="Bel pockets the ring.")
    t.post(t.p1, kind="ic", character=t.c1, text="Arn listens.", rolls=[{"dice": "1d6+100", "visibility": "blind"}])
    t.post(t.p1, kind="ooc", text="self roll", rolls=[{"dice": "1d4+200", "visibility": "self"}])
    seen = {}
    for role, who in (("gm", t.gm), ("p1", t.p1), ("p2", t.p2), ("obs", t.obs)):
        text, events = _stream(t, who, cursor)
        seen[role] = text
        assert events[-1][0] == "scene"
    assert "Bel pockets the ring." in seen["gm"] and "Bel pockets the ring." in seen["p2"]
    assert "Bel pockets the ring." not in seen["p1"] and "Bel pockets the ring." not in seen["obs"]
    # the blind roll's total (101..106) shows to the GM only; the self roll (201..204) to its roller only
    blind = [f'"total": {n}' for n in range(101, 107)]
    own = [f'"total": {n}' for n in range(201, 205)]
    assert any(b in seen["gm"] for b in blind)
    for role in ("p1", "p2", "obs"):
        assert not any(b in seen[role] for b in blind), role
        assert "hidden from you" in seen[role]
    assert any(o in seen["p1"] for o in own)
    for role in ("gm", "p2", "obs"):
        assert not any(o in seen[role] for o in own), role
    r = t.client.get(f"/api/scenes/{t.scene}/events?after=0&max_seconds=0.1&html=true", headers=t.outsider.h)
    assert r.status_code == 403


def test_the_feed_links_each_post_and_shows_the_rolls_the_reader_may_see(table: Table) -> None:
    t = table
    post = t.post(
        t.p1,
        kind="ic",
        character=t.c1,
        text="Arn swings.",
        rolls=[
            {"dice": "1d6+300", "label": "sword", "visibility": "public"},
            {"dice": "1d6+400", "label": "luck", "visibility": "gm"},
        ],
    )
    public, secret = (r["total"] for r in post["rolls"])

    def entry(who) -> str:
        feed = ET.fromstring(t.get(who, f"/api/scenes/{t.scene}/feed.atom"))
        e = feed.find("a:entry", ATOM)
        link = e.find("a:link[@rel='alternate']", ATOM).get("href")
        assert link.endswith(f"/scenes/{t.scene}?before={post['id'] + 1}#post-{post['id']}")
        return e.find("a:content", ATOM).text

    for who in (t.p1, t.gm):
        text = entry(who)
        assert f"sword 1d6+300: {public}" in text and f"luck 1d6+400: {secret}" in text
    for who in (t.p2, t.obs):
        text = entry(who)
        assert f"sword 1d6+300: {public}" in text
        assert f"1d6+400: {secret}" not in text and "luck: hidden from you" in text


def test_skipped_turns_and_the_gm_acting_reach_the_story(table: Table) -> None:
    t = table
    sid = t.open_scene(mode="turn", cast=[t.c1, t.c2], turn_seconds=3600)
    t.post(t.gm, scene=sid, kind="ic", text="Round one begins.")
    t.post(t.p1, scene=sid, kind="ic", character=t.c1, text="Arn acts.")
    t.post(t.gm, scene=sid, kind="ic", text="The GM moves on.", force=True)  # Bel is skipped
    t.post(t.gm, scene=sid, kind="ic", character=t.c2, text="Bel, played by the GM.")
    text = t.client.get(f"/api/scenes/{sid}/events?after=0&max_seconds=0.2&html=true", headers=t.p2.h).text
    events = _events(text)
    skipped = [d for n, d in events if n == "event"]
    assert len(skipped) == 1 and skipped[0]["characters"] == [t.c2] and skipped[0]["reason"] == "the GM moved on"
    assert "Skipped: <strong>Bel</strong>" in skipped[0]["html"]
    acted = next(d for n, d in events if n == "post" and d["text"] == "Bel, played by the GM.")
    assert "the GM acts for Bel" in acted["html"]
    names = [d.get("text") or d["kind"] for n, d in events if n in ("post", "event")]
    assert names == ["Round one begins.", "Arn acts.", "turn.skipped", "The GM moves on.", "Bel, played by the GM."]


def test_story_pages_walk_back_without_gaps_or_secrets(table: Table) -> None:
    t = table
    ids = []
    for i in range(2 * PAGE_SIZE + 7):
        if i % 10 == 3:
            t.post(t.p2, kind="private", to=[t.gm.id], text=f"secret {i}")
        else:
            ids.append(t.post(t.p1, kind="ooc", text=f"post {i}")["id"])
    store = t.client.app.state.store
    with store.reading_scene(t.scene) as (c, s):
        reader = Reader.of(c, t.obs.id)
        seen: list[int] = []
        page = story_page(s, reader)
        assert page.newest and len(page.posts) == PAGE_SIZE
        while True:
            seen[:0] = [p["id"] for p in page.posts]
            assert all(p["text"].startswith("post") for p in page.posts)
            if page.earlier is None:
                break
            page = story_page(s, reader, before=page.earlier)
            assert not page.newest
        assert seen == ids
        forward = story_page(s, reader, after=ids[9])
        assert [p["id"] for p in forward.posts] == ids[10 : 10 + PAGE_SIZE] and forward.earlier == ids[10]
        # unread: from the reader's mark on, what they may read and did not write
        assert unread(s, Reader.of(c, t.p1.id), ids[-3]) == 0  # p1 wrote those
        assert unread(s, reader, ids[-3]) == 2
        assert unread(s, Reader.of(c, t.gm.id), 0) == len(s.posts)


def test_the_dashboard_counts_owed_and_unread_posts_for_each_role(table: Table) -> None:
    t = table
    sid = t.open_scene(mode="turn", cast=[t.c1, t.c2], turn_seconds=7200, title="The Ford")

    def line(who) -> dict:
        return next(ln for ln in t.get(who, "/api/me/scenes") if ln["id"] == sid)

    assert line(t.gm)["posts_owed"] == 1 and line(t.gm)["gm_owes"]  # the GM's narration opens round 1
    assert line(t.p1)["posts_owed"] == 0
    t.post(t.gm, scene=sid, kind="ic", text="The river is high.")
    t.post(t.p2, scene=sid, kind="private", to=[t.gm.id], text="Bel eyes the current.")
    p1 = line(t.p1)
    assert p1["posts_owed"] == 1 and p1["owed"] == [{"id": t.c1, "name": "Arn"}]
    assert p1["unread"] == 1  # the GM's post; not Bel's private one
    assert p1["deadline"].startswith("2026-03-01T14:00:00") and not p1["late"] and not p1["closed"]
    assert line(t.p2)["unread"] == 1  # the GM's post; not their own
    assert line(t.gm)["unread"] == 1 and line(t.gm)["posts_owed"] == 0  # Bel's private post; waiting on both
    assert line(t.obs)["unread"] == 1 and line(t.obs)["posts_owed"] == 0
    t.post(t.p1, scene=sid, kind="ic", character=t.c1, text="Arn wades in.")
    t.post(t.p2, scene=sid, kind="ic", character=t.c2, text="Bel follows.")
    assert line(t.gm)["posts_owed"] == 1 and line(t.gm)["unread"] == 3  # everyone posted: the GM answers
    # reading the scene (a page with its live stream) clears the count; new posts count again
    t.client.get(f"/api/scenes/{sid}/events?after=0&max_seconds=0.1&html=true", headers=t.p1.h)
    assert line(t.p1)["unread"] == 0
    t.post(t.gm, scene=sid, kind="ic", text="Round two.")
    assert line(t.p1)["unread"] == 1
    # a closed scene is listed as closed, owes nothing and has no deadline
    assert t.client.post(f"/api/scenes/{sid}/close", headers=t.gm.h).status_code == 200
    closed = line(t.p1)
    assert closed["closed"] and closed["posts_owed"] == 0 and closed["deadline"] is None
    assert t.client.get("/api/me/scenes", headers=t.outsider.h).json() == []


def test_the_digest_carries_what_the_reader_chose(table: Table) -> None:
    t = table
    sid = t.open_scene(mode="turn", cast=[t.c1, t.c2], turn_seconds=7200)
    t.post(t.gm, scene=sid, kind="ic", text="The ferry waits.")
    full = t.get(t.p1, "/api/me/digest")["text"]
    assert "The ferry waits." in full and "Your turn in" in full
    r = t.client.patch("/api/me/settings", json={"digest": "turns", "time_zone": "Asia/Tokyo"}, headers=t.p1.h)
    assert r.status_code == 200 and r.json()["digest"] == "turns"
    turns = t.get(t.p1, "/api/me/digest")["text"]
    assert "The ferry waits." not in turns and "Your turn in" in turns
    assert "(Asia/Tokyo)" in turns and "23:00 JST" in turns  # 12:00 UTC + 2 h deadline, in Tokyo (UTC+9)
    r = t.client.patch("/api/me/settings", json={"time_zone": "Nowhere/Atlantis"}, headers=t.p1.h)
    assert r.status_code == 422 and "no time zone" in r.text
