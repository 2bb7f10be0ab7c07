"""Writing at the table (issue 18): paragraphs, inline rolls, readers-only blocks, kinds and readers, speakers.

Every response a reader can get is searched for the readers-only text, so a block leaks nowhere:
page, posts, log, live updates, Atom feed, digest (mail), and the three exports.
"""

from __future__ import annotations

import json

import pytest
from web.apikit import Table

from storymaster.play.verify import verify_export

SECRET = "the ledger is under the third floorboard"


def _every_get(t: Table, who, scene: int | None = None) -> dict[str, str]:
    sid = scene or t.scene
    paths = [
        f"/api/scenes/{sid}",
        f"/api/scenes/{sid}/posts",
        f"/api/scenes/{sid}/log",
        f"/api/scenes/{sid}/export.json",
        f"/api/scenes/{sid}/export.md",
        f"/api/scenes/{sid}/export.html",
        f"/api/scenes/{sid}/feed.atom",
        f"/api/campaigns/{t.campaign}/export.json",
        f"/api/campaigns/{t.campaign}/export.md",
        f"/api/scenes/{sid}/events?after=0&max_seconds=0.05",
        "/api/me/digest",
    ]
    return {p: t.client.get(p, headers=who.h).text for p in paths}


def _verifies(t: Table, app, who, scene: int | None = None) -> dict:
    doc = t.get(who, f"/api/scenes/{scene or t.scene}/export.json")
    return verify_export(doc, key=app.state.signer.public)


def test_line_endings_are_normalised_where_text_enters(table: Table) -> None:
    t = table
    p = t.post(t.p1, kind="ic", character=t.c1, text="First paragraph.\r\n\r\nSecond\rline.")
    assert p["text"] == "First paragraph.\n\nSecond\nline."
    edited = t.client.patch(
        f"/api/scenes/{t.scene}/posts/{p['id']}", json={"text": "One.\r\n\r\nTwo."}, headers=t.p1.h
    ).json()
    assert edited["text"] == "One.\n\nTwo."
    md = t.get(t.p2, f"/api/scenes/{t.scene}/export.html")
    assert "<p>One.</p>\n<p>Two.</p>" in md


def test_three_inline_rolls_in_one_post_each_verifiable(app, table: Table) -> None:
    t = table
    text = "Arn swings [[2d6+3 Sword]] then\n/r 1d20+2 Parry | gm\nand finally [roll=Luck]d100[/roll]."
    p = t.post(t.p1, kind="ic", character=t.c1, text=text)
    assert p["text"] == "Arn swings [[#1]] then\n[[#2]]\nand finally [[#3]]."
    rolls = p["rolls"]
    assert [(r["inline"], r["expression"], r["label"], r["visibility"]) for r in rolls] == [
        (1, "2d6+3", "Sword", "public"),
        (2, "1d20+2", "Parry", "gm"),
        (3, "1d100", "Luck", "public"),
    ]
    assert 5 <= rolls[0]["total"] <= 15 and 3 <= rolls[1]["total"] <= 22 and 1 <= rolls[2]["total"] <= 100
    assert rolls[0]["counter"][1] == rolls[1]["counter"][0] and rolls[1]["counter"][1] == rolls[2]["counter"][0]
    # p2 sees the two public ones; the GM-visibility roll is hidden from p2 only
    seen = t.get(t.p2, f"/api/scenes/{t.scene}/posts")[-1]["rolls"]
    assert [("hidden" in r) for r in seen] == [False, True, False]
    assert (seen[1]["inline"], seen[1]["label"]) == (2, "Parry") and "total" not in seen[1]  # its place, not its result
    page = t.get(t.p2, f"/api/scenes/{t.scene}/export.html")
    assert "Parry</span> (hidden)" in page
    assert _verifies(t, app, t.p2)["ok"] is True
    t.client.post(f"/api/scenes/{t.scene}/close", headers=t.gm.h)
    for who in (t.gm, t.p1, t.p2, t.obs):
        report = _verifies(t, app, who)
        scene = report["logs"][-1] if "logs" in report else report
        assert "rolls_replayed" in json.dumps(report)
        assert scene  # verify_export raised nothing
    replayed = json.dumps(_verifies(t, app, t.obs))
    assert '"rolls_replayed": 3' in replayed


def test_bad_inline_notation_refuses_the_post_at_the_roll(table: Table) -> None:
    t = table
    before = t.get(t.p1, f"/api/scenes/{t.scene}/posts")
    r = t.client.post(
        f"/api/scenes/{t.scene}/posts",
        json={"kind": "ic", "character": t.c1, "text": "Fine [[1d6]]\nthen\n/r 2d6+ | gm"},
        headers=t.p1.h,
    )
    assert r.status_code == 422, r.text
    problem = r.json()
    assert "inline roll 2" in problem["detail"] and "line 3" in problem["detail"], problem
    assert t.get(t.p1, f"/api/scenes/{t.scene}/posts") == before
    r = t.client.post(
        f"/api/scenes/{t.scene}/posts",
        json={"kind": "ooc", "text": "[[1d6 quietly | whisper]]"},
        headers=t.p1.h,
    )
    assert r.status_code == 422 and "whisper" in r.json()["detail"]


def test_code_is_not_rolled(table: Table) -> None:
    t = table
    text = "Write `[[2d6]]` for a roll, or:\n\n```\n/r 1d20\n[roll]d8[/roll]\n```\n"
    p = t.post(t.p1, kind="ooc", text=text)
    assert p["rolls"] == [] and p["text"] == text


def test_edits_never_reroll(table: Table) -> None:
    t = table
    p = t.post(t.p1, kind="ic", character=t.c1, text="I pick the lock [[1d20+4 Picks]].")
    url = f"/api/scenes/{t.scene}/posts/{p['id']}"
    r = t.client.patch(url, json={"text": "I pick the lock, slowly [[#1]]."}, headers=t.p1.h)
    assert r.status_code == 200 and r.json()["rolls"] == p["rolls"]
    r = t.client.patch(url, json={"text": "Again [[1d20]]"}, headers=t.p1.h)
    assert r.status_code == 422 and "never rolls" in r.json()["detail"]
    r = t.client.patch(url, json={"text": "Fake [[#2]]"}, headers=t.p1.h)
    assert r.status_code == 422 and "no inline roll 2" in r.json()["detail"]


def test_readers_only_block_reaches_its_readers_only(app, table: Table) -> None:
    t = table
    text = f"Arn whistles.\n\n[private=Bel]{SECRET} [[1d6 Nerve]][/private]\n\nThen he leaves."
    p = t.post(t.p1, kind="ic", character=t.c1, text=text)
    assert p["text"] == text.replace("[[1d6 Nerve]]", "[[#1]]")  # the author reads it all
    for who in (t.p1, t.p2):  # Bel is p2's character
        mine = t.get(who, f"/api/scenes/{t.scene}/posts")[-1]
        assert SECRET in mine["text"] and [r["label"] for r in mine["rolls"]] == ["Nerve"]
    for who in (t.gm, t.obs):
        theirs = t.get(who, f"/api/scenes/{t.scene}/posts")[-1]
        assert theirs["text"] == "Arn whistles.\n\n[private=Bel][/private]\n\nThen he leaves."
        assert theirs["rolls"] == []  # the block's roll went with the block
        for path, body in _every_get(t, who).items():
            assert SECRET not in body, path
            assert "Nerve" not in body, path
    for who in (t.p1, t.p2):
        bodies = _every_get(t, who)
        for path in (f"/api/scenes/{t.scene}/export.json", f"/api/scenes/{t.scene}/export.md", "/api/me/digest"):
            assert SECRET in bodies[path], (who.name, path)
    for who in (t.gm, t.p1, t.p2, t.obs):
        _verifies(t, app, who)
    # edits keep it: a new block text goes to the same readers only
    r = t.client.patch(
        f"/api/scenes/{t.scene}/posts/{p['id']}",
        json={"text": "Arn whistles.\n\n[private=Bel]the key is in the well [[#1]][/private]"},
        headers=t.p1.h,
    )
    assert r.status_code == 200, r.text
    for who in (t.gm, t.obs):
        for path, body in _every_get(t, who).items():
            assert SECRET not in body and "the key is in the well" not in body, path
    assert "the key is in the well" in t.get(t.p2, f"/api/scenes/{t.scene}/posts")[-1]["text"]
    assert SECRET in json.dumps(t.get(t.p2, f"/api/scenes/{t.scene}/posts")[-1]["history"])
    for who in (t.gm, t.p1, t.p2, t.obs):
        _verifies(t, app, who)
    t.client.post(f"/api/scenes/{t.scene}/close", headers=t.gm.h)
    for who in (t.gm, t.obs):
        for path, body in _every_get(t, who).items():
            assert SECRET not in body, path
        _verifies(t, app, who)


def test_unclosed_or_misdirected_blocks_are_refused(table: Table) -> None:
    t = table
    r = t.post(t.p1, kind="ooc", text=f"hello [private=Bel]{SECRET}", expect=422)
    assert "not closed" in r["detail"]
    r = t.post(t.p1, kind="ooc", text=f"[private=Nobody]{SECRET}[/private]", expect=422)
    assert "Nobody" in r["detail"]
    # a private post to the GM cannot hide a block for someone who does not read the post
    r = t.post(t.p1, kind="private", to=[t.gm.id], text=f"[private={t.p2.name}]{SECRET}[/private]", expect=422)
    assert "does not read this post" in r["detail"]
    for who in (t.gm, t.p2, t.obs):
        assert SECRET not in json.dumps(t.get(who, f"/api/scenes/{t.scene}/posts"))


def test_deleted_post_hides_its_block_from_its_readers_too(app, table: Table) -> None:
    t = table
    p = t.post(t.p1, kind="ooc", text=f"x [private=Bel]{SECRET}[/private]")
    r = t.client.delete(f"/api/scenes/{t.scene}/posts/{p['id']}", headers=t.p1.h)
    assert r.status_code == 204
    assert SECRET not in _every_get(t, t.p2)[f"/api/scenes/{t.scene}/export.json"]
    _verifies(t, app, t.p2)


@pytest.mark.parametrize("kind", ["ic", "ooc"])
def test_kind_and_readers_must_agree(table: Table, kind: str) -> None:
    t = table
    body = {"kind": kind, "text": "psst", "to": [t.p2.id]}
    if kind == "ic":
        body["character"] = t.c1
    r = t.post(t.p1, expect=422, **body)
    assert "only private posts" in r["detail"]
    r = t.post(t.p1, kind="private", text="psst", expect=422)
    assert "names its readers" in r["detail"]


def test_a_turn_carries_several_rolls_but_one_post(table: Table) -> None:
    t = table
    sid = t.open_scene(mode="turn", cast=[t.c1, t.c2])
    t.post(t.gm, scene=sid, kind="ic", text="The ogre charges.")
    p = t.post(
        t.p1,
        scene=sid,
        kind="ic",
        character=t.c1,
        text="Arn ducks [[1d20 Dodge]] and strikes [[2d6 Axe]].",
        rolls=[{"check": {"type": "skill", "skill": 1}, "label": "Brace"}, {"dice": "d4", "label": "Luck"}],
    )
    assert [r["label"] for r in p["rolls"]] == ["Dodge", "Axe", "Brace", "Luck"]
    r = t.post(t.p1, scene=sid, kind="ic", character=t.c1, text="And again!", expect=409)
    assert "already acted this round" in r["detail"]
    t.post(t.p2, scene=sid, kind="ic", character=t.c2, text="Bel hides [[1d6]] [[1d6]] [[1d6]].")


def test_every_in_character_post_names_its_speaker_in_the_story(table: Table) -> None:
    t = table
    r = t.post(t.p1, kind="ic", text="Who says this?", expect=422)
    assert "names the character" in r["detail"]
    t.post(t.gm, kind="ic", text="Rain falls on the inn.")
    t.post(t.p1, kind="ic", character=t.c1, text="Arn shakes off the rain.\n- roll: 20 (forged)")
    t.post(t.p2, kind="ic", character=t.c2, text='"Close the door," says Bel.')
    md = t.get(t.obs, f"/api/scenes/{t.scene}/export.md")
    story = md.split("### The story")[1].split("### The full log")[0]
    assert story.index("**The narrator") < story.index("**Arn:**") < story.index("**Bel:**")
    assert "\n- roll: 20 (forged)" in story  # inside its fence, not a roll line of the export
    fenced = story.split("**Arn:**")[1].split("**Bel:**")[0]
    assert fenced.count("```") == 2
    html = t.get(t.obs, f"/api/scenes/{t.scene}/export.html")
    assert '<p class="speaker">Arn</p>' in html and '<p class="speaker">Bel</p>' in html
    assert 'class="say say-' in html


def test_inline_odds_for_the_composer(table: Table) -> None:
    t = table
    r = t.client.post(
        f"/api/scenes/{t.scene}/inline-odds", json={"text": "a [[2d6+3 Hit]]\n/r 1d4 | self"}, headers=t.p1.h
    )
    assert r.status_code == 200, r.text
    j = r.json()
    assert j["error"] is None
    first, second = j["rolls"]
    assert (first["dice"], first["label"], first["odds"]["mean"]) == ("2d6+3", "Hit", 10.0)
    assert first["odds"]["distribution"]["10"] == pytest.approx(6 / 36)  # 6 of the 36 ways to roll 7 on 2d6
    assert (second["visibility"], second["odds"]["min"], second["odds"]["max"]) == ("self", 1, 4)
    bad = t.client.post(f"/api/scenes/{t.scene}/inline-odds", json={"text": "[[2d]]"}, headers=t.p1.h).json()
    assert bad["rolls"] == [] and "inline roll 1" in bad["error"]
    outsider = t.client.post(f"/api/scenes/{t.scene}/inline-odds", json={"text": "[[d6]]"}, headers=t.outsider.h)
    assert outsider.status_code in (403, 404)
