"""Trust at the table (issue 16): each attack a hostile member would try, reproduced, and shown to fail.

Every test here runs on SQLite and on PostgreSQL (the ``table`` fixture).
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

import pytest
from web.apikit import Table, make_user

from storymaster.errors import VerificationError
from storymaster.play.anchor import check_signature, export_message
from storymaster.play.chain import GENESIS, canonical_json
from storymaster.play.rebuild import scene_from_log
from storymaster.play.verify import verify_export

USUAL_DICE = (4, 6, 8, 10, 12, 20, 100)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _candidate_rolls(by: int, label: str, visibility: str, stream: str):
    """Every roll of one usual die a reader could guess: every face, first in the stream, one or two draws."""
    for sides in USUAL_DICE:
        for face in range(1, sides + 1):
            for draws in (1, 2):
                record = {
                    "expression": f"1d{sides}",
                    "total": face,
                    "dice": [{"sides": sides, "face": face, "kept": True, "exploded": False, "term": 0}],
                    "stream": stream,
                    "counter": 0,
                    "draws": draws,
                    "rng_version": 1,
                    "label": label,
                }
                yield (
                    sides,
                    face,
                    {
                        "type": "dice",
                        "expression": f"1d{sides}",
                        "total": face,
                        "records": [record],
                        "visibility": visibility,
                        "by": by,
                        "label": label,
                        "counter": [0, draws],
                    },
                )


def _brute_force(digest: str, by: int, label: str, visibility: str, stream: str) -> list[tuple[int, int]]:
    return [
        (sides, face)
        for sides, face, roll in _candidate_rolls(by, label, visibility, stream)
        if _sha(canonical_json(roll)) == digest
    ]


def test_a_hidden_roll_cannot_be_read_back_from_its_digest(table: Table) -> None:
    t = table
    t.post(t.p1, kind="ooc", text="I sneak.", rolls=[{"dice": "d20", "visibility": "blind", "label": "Stealth"}])
    [post] = [p for p in t.get(t.p2, f"/api/scenes/{t.scene}/posts") if p["text"] == "I sneak."]
    [hidden] = post["rolls"]
    assert hidden["hidden"] is True and "salt" not in hidden
    stream = f"scene:{t.scene}"

    # the attack is competent: against the roll as the table stored it before salting, it finds the die
    [real] = next(p for p in t.get(t.gm, f"/api/scenes/{t.scene}/posts") if p["text"] == "I sneak.")["rolls"]
    unsalted = {k: v for k, v in real.items() if k != "salt"}
    unsalted["records"] = [{k: v for k, v in rec.items() if k != "detail"} for rec in real["records"]]
    found = _brute_force(_sha(canonical_json(unsalted)), t.p1.id, "Stealth", "blind", stream)
    assert found == [(20, real["total"])]

    # against the digest the table shows now, every face of every usual die finds nothing
    assert _brute_force(hidden["sha256"], t.p1.id, "Stealth", "blind", stream) == []
    assert len(real["salt"]) >= 32 and int(real["salt"], 16) >= 0  # 128 bits, hex


def test_each_roll_and_entry_has_its_own_salt(table: Table) -> None:
    t = table
    t.post(t.p1, kind="ooc", text="two", rolls=[{"dice": "d6", "visibility": "gm"}, {"dice": "d6", "visibility": "gm"}])
    doc = t.get(t.gm, f"/api/scenes/{t.scene}/export.json")
    salts = [e["salt"] for e in doc["scenes"][0]["log"]] + [
        r["salt"] for e in doc["scenes"][0]["log"] for r in e["rolls"]
    ]
    assert len(salts) == len(set(salts)) >= 4
    assert all(len(s) == 32 and set(s) <= set("0123456789abcdef") for s in salts)


WORDS = ["yes", "no", "ok", "maybe", "I attack", "I open the door", "sorry", "lol", "brb", "I lie"]


def test_a_deleted_post_cannot_be_read_back_from_its_digest(table: Table) -> None:
    t = table
    pid = t.post(t.p1, kind="ooc", text="I lie")["id"]
    assert t.client.delete(f"/api/scenes/{t.scene}/posts/{pid}", headers=t.p1.h).status_code == 204
    doc = t.get(t.p2, f"/api/scenes/{t.scene}/export.json")
    [entry] = [e for e in doc["scenes"][0]["log"] if e["seq"] == pid]
    assert "body" not in entry and "salt" not in entry
    guesses = [{"kind": k, "text": w} for k in ("ic", "ooc", "private") for w in WORDS]
    # the attack is competent: an unsalted digest of the real body is among the guesses
    assert _sha(canonical_json({"kind": "ooc", "text": "I lie"})) in {_sha(canonical_json(g)) for g in guesses}
    assert entry["body_sha256"] not in {_sha(canonical_json(g)) for g in guesses}
    assert verify_export(doc)["ok"]
    # the GM reads the body and its salt, and the commitment checks against them
    gm_doc = t.get(t.gm, f"/api/scenes/{t.scene}/export.json")
    [gm_entry] = [e for e in gm_doc["scenes"][0]["log"] if e["seq"] == pid]
    assert gm_entry["body"]["text"] == "I lie"
    assert _sha(gm_entry["salt"] + canonical_json(gm_entry["body"])) == entry["body_sha256"]


# --- verify accepts only what the log proves ------------------------------------------------


def _played_scene(t: Table) -> dict[str, Any]:
    """A closed scene with dice, a check, an edit and a deletion; the GM's export of it."""
    t.post(t.p1, kind="ic", character=t.c1, text="Arn draws.", rolls=[{"dice": "2d6+1", "label": "hit"}])
    t.post(t.p2, kind="ic", character=t.c2, text="Bel waits.", rolls=[{"dice": "d20", "visibility": "blind"}])
    pid = t.post(t.p1, kind="ooc", text="typo")["id"]
    t.client.patch(f"/api/scenes/{t.scene}/posts/{pid}", json={"text": "typo fixed"}, headers=t.p1.h)
    gone = t.post(t.p2, kind="ooc", text="never mind")["id"]
    t.client.delete(f"/api/scenes/{t.scene}/posts/{gone}", headers=t.p2.h)
    assert t.client.post(f"/api/scenes/{t.scene}/close", headers=t.gm.h).status_code == 200
    return t.get(t.gm, f"/api/scenes/{t.scene}/export.json")


def _key(t: Table) -> str:
    return t.get(None, "/.well-known/storymaster-key")["public"]


def test_a_genuine_export_verifies_with_the_servers_key_on_cli_and_web(table: Table, cli, tmp_path) -> None:
    t = table
    doc = _played_scene(t)
    key = _key(t)
    report = verify_export(doc, key=key)
    assert report["signed"] and report["version"] == 2 and report["logs"][0]["rolls_replayed"] == 2
    for who in (t.p1, t.p2, t.obs):  # every reader's export verifies too
        verify_export(t.get(who, f"/api/scenes/{t.scene}/export.json"), key=key)
    campaign = t.get(t.p1, f"/api/campaigns/{t.campaign}/export.json")
    assert len(verify_export(campaign, key=key)["logs"]) == 2
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(doc))
    out = cli("verify", str(path), "--key", key)
    assert out.exit_code == 0 and "verified" in out.stdout and "signed by key" in out.stdout
    r = t.client.post("/verify", data={"export": json.dumps(doc)})
    assert r.status_code == 200 and "Verified" in r.text


def _edit(doc: dict[str, Any], change) -> dict[str, Any]:
    forged = copy.deepcopy(doc)
    change(forged["scenes"][0])
    return forged


def _post(scene: dict[str, Any], text: str) -> dict[str, Any]:
    return next(p for p in scene["posts"] if p.get("text") == text)


FORGERIES = {
    "post text": (lambda s: _post(s, "Arn draws.").update(text="Arn draws and wins."), "post .*its text"),
    "roll total": (lambda s: _post(s, "Arn draws.")["rolls"][0].update(total=13), "post .*its rolls"),
    "roll detail": (
        lambda s: _post(s, "Arn draws.")["rolls"][0]["records"][0].update(detail="2d6+1: [6, 6] + 1 = 13"),
        "post .*its rolls",
    ),
    "narrative": (lambda s: s["narrative"].append("And then Arn won."), "its narrative"),
    "title": (lambda s: s.update(title="A Different Night"), "its title"),
    "a post left out": (lambda s: s["posts"].pop(0), "leaves out post"),
    "a post invented": (lambda s: s["posts"].append({**s["posts"][0], "id": 999}), "post 999"),
    "the seed": (lambda s: s.update(seed="0" * 64), "its seed"),
}


@pytest.mark.parametrize("what", sorted(FORGERIES))
def test_an_export_edited_outside_its_log_fails_verify(table: Table, what: str) -> None:
    doc = _played_scene(table)
    change, reason = FORGERIES[what]
    forged = _edit(doc, change)
    with pytest.raises(VerificationError, match=reason):
        verify_export(forged)
    r = table.client.post("/verify", data={"export": json.dumps(forged)})
    assert r.status_code == 422 and "Not verified" in r.text


def _rehash(log: list[dict[str, Any]], start: int) -> None:
    """Recompute every hash from entry ``start`` on, as a forger would (the signatures cannot be)."""
    from storymaster.play.verify import _core

    prev = log[start - 2]["hash"] if start > 1 else GENESIS
    for e in log[start - 1 :]:
        e["prev"] = prev
        if not e.get("redacted"):
            e["hash"] = _sha(prev + canonical_json(_core(e, e.get("commit", 1))))
        prev = e["hash"]


def test_a_rewritten_chain_fails_at_its_first_changed_entry(table: Table) -> None:
    doc = _played_scene(table)
    forged = copy.deepcopy(doc)
    log = forged["scenes"][0]["log"]
    target = next(e for e in log if e["kind"] == "post.created" and e["body"]["text"] == "Arn draws.")
    target["body"]["text"] = "Arn draws and wins."
    _rehash(log, target["seq"])
    _post(forged["scenes"][0], "Arn draws.")["text"] = "Arn draws and wins."
    forged["scenes"][0]["narrative"] = [
        "Arn draws and wins." if x == "Arn draws." else x for x in forged["scenes"][0]["narrative"]
    ]
    with pytest.raises(
        VerificationError, match=f"scene {table.scene}, entry {target['seq']}: is not the entry the server signed"
    ):
        verify_export(forged)


def test_an_export_re_signed_with_another_key_fails_against_the_servers_key(table: Table) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from storymaster.web.signing import Signer

    doc = _played_scene(table)
    mine = Signer(Ed25519PrivateKey.generate().private_bytes_raw())
    forged = copy.deepcopy(doc)
    log = forged["scenes"][0]["log"]
    target = next(e for e in log if e["kind"] == "post.created" and e["body"]["text"] == "Arn draws.")
    target["body"]["text"] = "Arn draws and wins."
    _rehash(log, target["seq"])
    for e in log:
        e["sig"] = mine.sign_place(f"s:{table.scene}", e["seq"], e["hash"])
    forged["scenes"][0].update(scene_from_log(log))
    mine.sign_export(forged)
    assert verify_export(forged)["key"] == mine.key_id  # consistent in itself: the key is what gives it away
    with pytest.raises(VerificationError, match="not by this server's key"):
        verify_export(forged, key=_key(table))
    r = table.client.post("/verify", data={"export": json.dumps(forged)})
    assert r.status_code == 422 and "not by this server" in r.text


def test_an_export_whose_reader_or_time_changed_fails(table: Table) -> None:
    doc = _played_scene(table)
    for change in ({"reader": {"user": table.p1.id, "role": "gm"}}, {"exported_at": "2020-01-01T00:00:00+00:00"}):
        with pytest.raises(VerificationError, match="signature does not match"):
            verify_export({**copy.deepcopy(doc), **change})
    assert check_signature(doc["key"]["public"], export_message(doc), doc["signature"])


def test_a_downgraded_export_fails(table: Table) -> None:
    doc = _played_scene(table)
    old = {k: v for k, v in copy.deepcopy(doc).items() if k not in ("key", "signature")}
    old["version"] = 1
    with pytest.raises(VerificationError, match="salted logs come only in signed"):
        verify_export(old)
    with pytest.raises(VerificationError, match="version 1 export is not signed"):
        verify_export(old, key=_key(table))


def test_the_head_is_anchored_and_signed_on_the_scene_page_feed_and_api(table: Table) -> None:
    t = table
    t.post(t.p1, kind="ooc", text="hello")
    view = t.get(t.p1, f"/api/scenes/{t.scene}")
    anchor = view["anchor"]
    assert anchor["seq"] == view["head"]["seq"] and anchor["hash"] == view["head"]["hash"]
    from storymaster.play.anchor import anchor_message

    key = _key(t)
    assert check_signature(key, anchor_message(f"s:{t.scene}", anchor["seq"], anchor["hash"]), anchor["signature"])
    feed = t.get(t.p1, f"/api/scenes/{t.scene}/feed.atom")
    assert anchor["hash"] in feed and anchor["signature"] in feed


# --- invitations are secrets the GM controls ------------------------------------------------


def _invite(t: Table, **body: Any) -> dict[str, Any]:
    r = t.client.post(f"/api/campaigns/{t.campaign}/invites", json=body, headers=t.gm.h)
    assert r.status_code == 201, r.text
    return r.json()


def _join(t: Table, who, token: str, expect: int = 200) -> dict[str, Any]:
    r = t.client.post(f"/api/campaigns/{t.campaign}/join", json={"token": token}, headers=who.h)
    assert r.status_code == expect, r.text
    return r.json()


def _role(t: Table, who) -> str | None:
    members = t.get(t.gm, f"/api/campaigns/{t.campaign}/members")
    return next((m["role"] for m in members if m["user"] == who.id), None)


def test_the_old_derived_link_no_longer_opens_the_campaign(table: Table) -> None:
    """The attack: an observer reads the campaign log's first hash in an export and computes the link."""
    t = table
    first = t.get(t.obs, f"/api/campaigns/{t.campaign}/export.json")["campaign"]["log"][0]["hash"]
    derived = hashlib.sha256(f"storymaster-invite:{t.campaign}:{first}".encode()).hexdigest()[:32]
    _join(t, t.outsider, derived, expect=404)
    assert _role(t, t.outsider) is None


def test_an_invitation_is_random_stored_hashed_and_per_role(app, table: Table) -> None:
    from sqlalchemy import select

    from storymaster.store import tables

    t = table
    a, b = _invite(t, role="observer"), _invite(t, role="player")
    assert a["token"] != b["token"] and len(a["token"]) >= 40
    with app.state.store.engine.connect() as conn:
        stored = [r.token_sha256 for r in conn.execute(select(tables.invites))]
    assert a["token"] not in stored and _sha(a["token"]) in stored
    listed = t.get(t.gm, f"/api/campaigns/{t.campaign}/invites")
    assert [i["role"] for i in listed] == ["observer", "player"] and all("token" not in i for i in listed)
    assert _join(t, t.outsider, a["token"])["role"] == "observer"
    # the log records the joiner as the actor, not the GM
    log = t.get(t.gm, f"/api/campaigns/{t.campaign}/export.json")["campaign"]["log"]
    joined = [e for e in log if e["kind"] == "member.added" and e["body"]["user"] == t.outsider.id]
    assert joined[-1]["actor"] == t.outsider.id and joined[-1]["body"]["via"] == "invitation"


def test_leaving_and_rejoining_never_raises_a_role(table: Table) -> None:
    t = table
    player_link = _invite(t, role="player")["token"]
    r = t.client.delete(f"/api/campaigns/{t.campaign}/members/{t.obs.id}", headers=t.obs.h)  # the observer leaves
    assert r.status_code == 204
    assert _join(t, t.obs, player_link)["role"] == "observer"
    # a member following a link stays as they are
    assert _join(t, t.p1, player_link)["role"] == "player"
    assert _join(t, t.obs, player_link)["role"] == "observer"


def test_removing_a_member_revokes_every_open_link(table: Table) -> None:
    t = table
    link = _invite(t, role="player")["token"]
    assert t.client.delete(f"/api/campaigns/{t.campaign}/members/{t.p2.id}", headers=t.gm.h).status_code == 204
    _join(t, t.p2, link, expect=404)  # the removed member walks back in? no
    _join(t, t.outsider, link, expect=404)
    [row] = t.get(t.gm, f"/api/campaigns/{t.campaign}/invites")
    assert not row["open"] and "a member was removed" in row["revoked_why"]
    fresh = _invite(t, role="player")["token"]  # the GM makes a new one
    assert _join(t, t.outsider, fresh)["role"] == "player"


def test_expiry_use_count_and_revocation(table: Table, clock) -> None:
    t = table
    once = _invite(t, role="player", max_uses=1)["token"]
    _join(t, t.outsider, once)
    late = make_user(t.client)
    _join(t, late, once, expect=404)
    hour = _invite(t, role="observer", expires_in_hours=1)["token"]
    clock.advance(hours=2)
    _join(t, late, hour, expect=404)
    revoked = _invite(t, role="player")
    r = t.client.delete(f"/api/campaigns/{t.campaign}/invites/{revoked['id']}", headers=t.gm.h)
    assert r.status_code == 204
    _join(t, late, revoked["token"], expect=404)
    assert _role(t, late) is None
    # only the GM makes, lists or revokes links
    for who in (t.p1, t.obs, t.outsider):
        assert t.client.post(f"/api/campaigns/{t.campaign}/invites", json={}, headers=who.h).status_code == 403
        assert t.client.get(f"/api/campaigns/{t.campaign}/invites", headers=who.h).status_code == 403
        assert t.client.delete(f"/api/campaigns/{t.campaign}/invites/1", headers=who.h).status_code == 403
    assert t.client.post(f"/api/campaigns/{t.campaign}/invites", json={"role": "gm"}, headers=t.gm.h).status_code == 422


# --- malformed input is a 4xx, never a 500 ----------------------------------------------------

CONTROL = ["\x00", "\x01", "\x07", "\x0b", "\x1b", "\x1f", "\x7f"]


def test_control_characters_in_stored_text_are_refused_on_both_databases(table: Table) -> None:
    t = table
    for ch in CONTROL:
        attempts = [
            (t.client.post, f"/api/scenes/{t.scene}/posts", {"kind": "ooc", "text": f"hi{ch}there"}, t.p1),
            (t.client.post, "/api/users", {"name": "bad", "password": f"pass{ch}word long"}, None),
            (t.client.post, "/api/campaigns", {"name": f"C{ch}", "system": "tally"}, t.gm),
            (t.client.post, f"/api/campaigns/{t.campaign}/notes", {"text": f"n{ch}"}, t.gm),
            (t.client.post, f"/api/campaigns/{t.campaign}/characters", {"sheet": {"name": f"A{ch}b"}}, t.p1),
            (t.client.put, f"/api/campaigns/{t.campaign}/house-rules", {"house_rules": {f"k{ch}": 1}}, t.gm),
            (t.client.put, "/api/me/email", {"email": f"a{ch}@b.example"}, t.p1),
            (t.client.post, "/api/session", {"name": f"x{ch}", "password": "whatever"}, None),
        ]
        for send, path, body, who in attempts:
            r = send(path, json=body, headers=who.h if who else {})
            assert r.status_code == 422, (repr(ch), path, r.status_code, r.text)
            assert "control character" in r.json()["detail"], r.text
    # tab, line feed and carriage return are text
    t.post(t.p1, kind="ooc", text="line one\r\nline\ttwo")


def test_the_feed_stays_valid_xml_even_with_old_control_characters(app, table: Table) -> None:
    import xml.etree.ElementTree as ET

    from storymaster.play.log import Draft

    t = table
    t.post(t.p1, kind="ooc", text="tabs\tand\nlines & <tags>")
    # a post written before control characters were refused
    app.state.store.scene_append(
        t.scene, lambda c, s, seed: [Draft("post.created", t.p1.id, {"kind": "ooc", "text": "old\x0bbell\x07"})], "t"
    ) if app.state.store.engine.dialect.name == "sqlite" else None
    feed = t.get(t.p1, f"/api/scenes/{t.scene}/feed.atom")
    root = ET.fromstring(feed.encode())
    assert root.tag.endswith("feed")


def test_deep_or_odd_bodies_are_422(table: Table) -> None:
    t = table
    deep: Any = "x"
    for _ in range(40):
        deep = {"a": deep}
    r = t.client.post(f"/api/campaigns/{t.campaign}/characters", json={"sheet": deep}, headers=t.p1.h)
    assert r.status_code == 422 and "nested" in r.text
    very = "[" * 100_000 + "]" * 100_000
    r = t.client.post(
        f"/api/scenes/{t.scene}/posts",
        content=very,
        headers={**t.p1.h, "content-type": "application/json"},
    )
    assert 400 <= r.status_code < 500, r.text
    for body in ([], "text", 7, {"kind": ["ic"]}, {"rolls": {"dice": "d6"}}, {"rolls": [[]]}):
        r = t.client.post(f"/api/scenes/{t.scene}/posts", json=body, headers=t.p1.h)
        assert r.status_code == 422, (body, r.text)


@pytest.mark.parametrize(
    "text",
    [
        "[" * 30_000 + "]" * 30_000,  # form-encoded, still inside the body limit
        json.dumps({"format": "storymaster-table-export", "version": 2, "scenes": [[[[[]]]]]}),
        json.dumps({"format": "storymaster-table-export", "version": 1, "scenes": [{"id": 1, "log": "x"}]}),
        json.dumps({"format": "storymaster-table-export", "version": 2, "key": {"public": 5}, "scenes": []}),
        '{"format": "storymaster-table-export", "version": 1e999}',
    ],
)
def test_the_verify_page_answers_odd_exports_with_a_4xx(client, text: str) -> None:
    r = client.post("/verify", data={"export": text})
    assert r.status_code == 422 and "Not verified" in r.text


def test_a_value_the_database_refuses_is_422(app, client) -> None:
    from sqlalchemy.exc import DataError

    @app.get("/test-data-error")
    def boom() -> None:
        raise DataError("INSERT ...", {}, Exception("value out of range"))

    r = client.get("/test-data-error")
    assert r.status_code == 422 and r.headers["content-type"] == "application/problem+json"


# --- posting is idempotent -------------------------------------------------------------------


def test_a_retried_post_with_its_idempotency_key_returns_the_stored_post(table: Table) -> None:
    t = table
    body = {"kind": "ooc", "text": "I roll once", "rolls": [{"dice": "d20"}]}
    key = {"Idempotency-Key": "a1b2c3-retry-me"}
    first = t.client.post(f"/api/scenes/{t.scene}/posts", json=body, headers={**t.p1.h, **key})
    assert first.status_code == 201
    again = t.client.post(f"/api/scenes/{t.scene}/posts", json=body, headers={**t.p1.h, **key})
    assert again.status_code == 201 and again.json() == first.json()  # the same post, the same dice
    posts = [p for p in t.get(t.p1, f"/api/scenes/{t.scene}/posts") if p.get("text") == "I roll once"]
    assert len(posts) == 1
    # the same key for a different post is refused; another user's same key is theirs alone
    other = t.client.post(
        f"/api/scenes/{t.scene}/posts", json={**body, "text": "something else"}, headers={**t.p1.h, **key}
    )
    assert other.status_code == 409
    mine = t.client.post(f"/api/scenes/{t.scene}/posts", json=body, headers={**t.p2.h, **key})
    assert mine.status_code == 201 and mine.json()["id"] != first.json()["id"]
    # without a key, a second send is a second post
    for _ in range(2):
        t.post(t.p1, kind="ooc", text="twice")
    assert sum(p.get("text") == "twice" for p in t.get(t.p1, f"/api/scenes/{t.scene}/posts")) == 2
    bad = t.client.post(f"/api/scenes/{t.scene}/posts", json=body, headers={**t.p1.h, "Idempotency-Key": "x" * 101})
    assert bad.status_code == 422
