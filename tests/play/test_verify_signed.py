"""The verifier on signed (version 2) exports, without a server (issue 14's negative tests, issue 16's checks).

Each export is written by the table's own functions and exporter (:mod:`play.signed_kit`), checked to
verify untouched, then changed in one way; the expected verdict comes from what the change is. Where a
change must reach a check behind the chain (the chain would refuse it first), the chain is re-hashed
here from the commitment's published definition (:mod:`storymaster.play.chain`'s docstring, written
out below with hashlib, not with the verifier's code) and, where the signatures must hold too, re-signed
with the server's own key: a server that wrote a wrong export, the worst case the verifier faces.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json

import pytest
from play.signed_kit import FORGER_KEY, GM, OBS, P1, P2, SEED_1, SEED_2, build

from storymaster.errors import VerificationError
from storymaster.play.verify import MAX_DEPTH, MAX_ENTRIES, verify_export, verify_log
from storymaster.play.views import Reader
from storymaster.rules import registry
from storymaster.web.signing import Signer

FORMAT = "storymaster-table-export"  # docs/web.md: the export's format name


@pytest.fixture(scope="module")
def world():
    from play.kit import TALLY

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(registry, "entry_points", lambda group: [TALLY] if group == registry.SYSTEMS_GROUP else [])
        registry._load.cache_clear()
        w = build(registry.get_system("tally"))
        docs = {
            "gm": w.export(Reader(GM, "gm")),
            "p1": w.export(Reader(P1, "player")),
            "p2": w.export(Reader(P2, "player")),
            "obs": w.export(Reader(OBS, "observer")),
        }
    registry._load.cache_clear()
    return w, docs


@pytest.fixture
def gm(world):
    return copy.deepcopy(world[1]["gm"])


@pytest.fixture
def signer(world):
    return world[0].signer


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _canon(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _hash_of(prev: str, e: dict) -> str:
    """An entry's hash as chain.py's docstring defines it (version 2 salts the body; rolls carry their salt)."""
    v = e.get("commit", 1)
    body = e["body_sha256"] if "body" not in e else _sha((e.get("salt", "") if v >= 2 else "") + _canon(e["body"]))
    rolls = []
    for r in e.get("rolls") or []:
        rc = {
            "visibility": r["visibility"],
            "by": r["by"],
            "sha256": r["sha256"] if r.get("hidden") else _sha(_canon(r)),
        }
        if v >= 2:
            rc["label"] = r.get("label", "")
        rolls.append(rc)
    core = {
        "seq": e["seq"],
        "kind": e["kind"],
        "at": e["at"],
        "actor": e.get("actor"),
        "audience": e.get("audience"),
        "body_sha256": body,
        "rolls": rolls,
    }
    if v >= 2:
        core["commit"] = v
    return _sha(prev + _canon(core))


def rehash(log: list, start: int = 1) -> None:
    """Link and hash every entry from seq ``start`` on again, as a forger (or a wrong server) would."""
    prev = log[start - 2]["hash"] if start > 1 else "0" * 64
    for e in log[start - 1 :]:
        e["prev"] = prev
        if not e.get("redacted"):
            e["hash"] = _hash_of(prev, e)
        prev = e["hash"]


def resign(doc: dict, signer: Signer) -> dict:
    """Sign every entry's place and the whole export again with ``signer`` (the server's key: a wrong server)."""
    logs = [(f"c:{doc['campaign']['id']}", doc["campaign"]["log"])] if doc.get("campaign") else []
    logs += [(f"s:{s['id']}", s["log"]) for s in doc["scenes"]]
    for name, log in logs:
        for e in log:
            e["sig"] = signer.sign(
                _canon({"anchor": "storymaster-anchor/1", "log": name, "seq": e["seq"], "hash": e["hash"]}).encode()
            )
    doc.pop("signature", None)
    return signer.sign_export(doc)


def _scene(doc, sid=1):
    return next(s for s in doc["scenes"] if s["id"] == sid)


def _entry(log, kind, **body):
    return next(e for e in log if e.get("kind") == kind and all(e.get("body", {}).get(k) == v for k, v in body.items()))


def _refused(doc, match, **kw):
    with pytest.raises(VerificationError, match=match):
        verify_export(doc, **kw)


# --- genuine exports: what the report says -------------------------------------------------------------


def _key_id(public: str) -> str:
    return hashlib.sha256(base64.b64decode(public)).hexdigest()[:16]


def test_every_readers_genuine_export_verifies_and_the_report_says_what_it_holds(world) -> None:
    """The counts below are from how the world was built (signed_kit.build), not from a run of the verifier."""
    w, docs = world
    key = w.signer.public
    expected = {  # reader: [(log, entries, redacted, shown, hidden, replayed, seed revealed)]
        # a "self" roll is its roller's alone, the GM's too: P1's d10 in the open scene is hidden from the GM
        "gm": [
            ("campaign 1", 7, 0, 0, 0, 0, False),
            ("scene 1", 10, 0, 5, 0, 5, True),
            ("scene 2", 7, 0, 5, 1, 0, False),
        ],
        # P1 reads neither GM note; P2's blind and "gm" rolls in the open scene are hidden from P1
        "p1": [
            ("campaign 1", 7, 1, 0, 0, 0, False),
            ("scene 1", 10, 0, 5, 0, 5, True),
            ("scene 2", 7, 1, 3, 2, 0, False),
        ],
        # P2 reads neither P1's private post nor the GM's notes; their own blind roll and P1's self roll are hidden
        "p2": [
            ("campaign 1", 7, 1, 0, 0, 0, False),
            ("scene 1", 10, 1, 4, 0, 4, True),
            ("scene 2", 7, 1, 3, 2, 0, False),
        ],
        "obs": [
            ("campaign 1", 7, 1, 0, 0, 0, False),
            ("scene 1", 10, 1, 4, 0, 4, True),
            ("scene 2", 7, 1, 2, 3, 0, False),
        ],
    }
    for who, logs in expected.items():
        doc = copy.deepcopy(docs[who])
        report = verify_export(doc, key=key)
        assert (report["ok"], report["version"], report["signed"]) == (True, 2, True)
        assert report["key"] == _key_id(key) == _key_id(doc["key"]["public"])
        got = [
            (
                r["log"],
                r["entries"],
                r["redacted_entries"],
                r["rolls_shown"],
                r["rolls_hidden"],
                r["rolls_replayed"],
                r["seed_revealed"],
            )
            for r in report["logs"]
        ]
        assert got == logs, who
        for r, log in zip(report["logs"], [doc["campaign"]["log"], *(s["log"] for s in doc["scenes"])], strict=True):
            assert r["head"] == log[-1]["hash"] and r["signed"] is True
            assert r["commit"] == 2 and r["unsalted_entries"] == 0  # every entry was sealed with a salt
        assert report["logs"][1]["commitment"] == _sha(SEED_1) and report["logs"][2]["commitment"] == _sha(SEED_2)
        assert report["logs"][0]["commitment"] is None  # a campaign log publishes no dice commitment


def test_the_export_is_checked_against_the_key_it_names_when_no_key_is_given(gm, signer) -> None:
    assert verify_export(gm)["key"] == _key_id(signer.public)


def test_a_signed_export_without_a_campaign_verifies(world) -> None:
    w, _ = world
    doc = w.export(Reader(GM, "gm"), campaign=False)
    assert doc["campaign"] is None
    report = verify_export(doc, key=w.signer.public)
    assert [r["log"] for r in report["logs"]] == ["scene 1", "scene 2"]


def test_a_campaign_export_without_its_characters_part_verifies(gm, signer) -> None:
    """Older exports carried no characters: the part is optional, the others are not."""
    del gm["campaign"]["characters"]
    assert verify_export(resign(gm, signer))["ok"]


# --- the document around the logs --------------------------------------------------------------------------


@pytest.mark.parametrize("doc", [[], "x", None, {"format": "another-format", "version": 2}, {"version": 2}])
def test_what_is_not_an_export_is_refused(doc) -> None:
    _refused(doc, "not a Storymaster table export")


@pytest.mark.parametrize(
    ("version", "shown"), [(3, "3"), (0, "0"), (-2, "-2"), (True, "True"), (1.0, "1.0"), (2.0, "2.0"), ("2", "'2'")]
)
def test_an_unknown_version_is_refused(gm, version, shown) -> None:
    # true and 1.0 compare equal to 1 in Python (2.0 to 2): only the whole numbers 1 and 2 are versions
    gm["version"] = version
    _refused(gm, f"unknown export version {shown}")


def test_a_version_1_export_cannot_be_checked_against_a_key(gm, signer) -> None:
    old = {"format": FORMAT, "version": 1, "scenes": []}
    _refused(old, "version 1 export is not signed", key=signer.public)
    del gm["version"]  # no version: version 1, which never holds salted logs
    _refused(gm, "salted logs come only in signed")


def test_a_part_no_export_has_is_refused(gm) -> None:
    gm["zeta"] = 1
    gm["alpha"] = 2
    _refused(gm, "parts no export has: alpha, zeta$")


@pytest.mark.parametrize("key", [None, "not an object", {"alg": "ed25519"}, {"public": 7}])
def test_an_export_without_a_public_key_is_refused(gm, key) -> None:
    if key is None:
        del gm["key"]
    else:
        gm["key"] = key
    _refused(gm, "carries no public key")


def test_an_export_signed_by_another_key_is_refused_against_the_servers_key(gm, signer) -> None:
    forger = Signer(FORGER_KEY)
    forged = resign(gm, forger)
    assert verify_export(copy.deepcopy(forged))["key"] == _key_id(forger.public)  # consistent in itself
    _refused(
        forged,
        f"signed by key {_key_id(forger.public)}, not by this server's key {_key_id(signer.public)}",
        key=signer.public,
    )


@pytest.mark.parametrize(
    "change",
    [
        {"reader": {"user": P1, "role": "gm"}},
        {"exported_at": "2020-01-01T00:00:00+00:00"},
        {"signature": "A" * 88},
        {"signature": None},
    ],
)
def test_a_change_outside_the_logs_breaks_the_exports_signature(gm, change) -> None:
    gm.update(change)
    _refused(gm, "the export's signature does not match it")


def test_an_export_signature_by_another_key_is_refused(gm) -> None:
    gm["signature"] = Signer(FORGER_KEY).sign(b"anything")
    _refused(gm, "signature does not match")


def test_an_export_with_no_logs_is_refused(world) -> None:
    w, _ = world
    doc = w.export(Reader(GM, "gm"), campaign=False, scenes=())
    _refused(doc, "holds no logs")


@pytest.mark.parametrize("scenes", [None, "scene 1", {"id": 1}])
def test_scenes_that_are_not_a_list_are_refused(gm, scenes) -> None:
    gm["scenes"] = scenes
    _refused(gm, "scenes are not a list")


def test_an_export_nested_past_the_limit_is_refused_and_at_the_limit_is_read() -> None:
    """Depth counts the document itself as 1: MAX_DEPTH levels are read, one more is refused before reading."""

    def nested(levels):  # the document plus levels - 1 lists inside it
        value: list = []
        for _ in range(levels - 2):
            value = [value]
        return {"format": FORMAT, "version": 2, "scenes": value}

    _refused(nested(MAX_DEPTH + 1), f"nested more than {MAX_DEPTH} levels deep")
    with pytest.raises(VerificationError) as at_limit:
        verify_export(nested(MAX_DEPTH))
    assert "nested" not in str(at_limit.value)  # refused later, for what it is: no public key
    deep_dict: dict = {}
    for _ in range(MAX_DEPTH):
        deep_dict = {"a": deep_dict}
    _refused({"format": FORMAT, "version": 2, "key": deep_dict}, "nested more than")


# --- the campaign part ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("change", ["extra", "missing name", "missing log", "not an object"])
def test_a_campaign_not_shaped_like_an_export_is_refused(gm, change) -> None:
    if change == "extra":
        gm["campaign"]["secret"] = 1
    elif change == "missing name":
        del gm["campaign"]["name"]
    elif change == "missing log":
        del gm["campaign"]["log"]
    else:
        gm["campaign"] = ["campaign"]
    _refused(gm, "the export's campaign is not the shape an export has")


@pytest.mark.parametrize("cid", ["1", 1.0, True, None])
def test_a_campaign_id_that_is_not_a_whole_number_is_refused(gm, cid) -> None:
    gm["campaign"]["id"] = cid
    _refused(gm, f"campaign {cid}: its id is not a whole number")


@pytest.mark.parametrize("part", ["name", "system", "house_rules"])
def test_a_campaign_part_edited_outside_the_log_is_refused(gm, part) -> None:
    gm["campaign"][part] = {"bonus": 3} if part == "house_rules" else "edited"
    _refused(gm, f"campaign 1: its {part} is not what the log says")


def test_the_campaign_signatures_are_for_the_campaigns_log(gm, signer) -> None:
    """The campaign log's entries are signed as c:<id>: the same id as a scene's is another log."""
    for e in gm["campaign"]["log"]:
        e["sig"] = signer.sign_place("s:1", e["seq"], e["hash"])
    _refused(gm, "campaign 1, entry 1: is not the entry the server signed")


def test_characters_edited_outside_the_log_are_refused(gm) -> None:
    [ch] = gm["campaign"]["characters"].values()
    ch["condition"] = "dead"
    _refused(gm, r"campaign 1: its characters \(their condition\) is not what the log says")


def test_the_exports_system_must_be_the_campaign_logs(gm) -> None:
    gm["system"] = "blyss"
    _refused(gm, "the export: its system is not what the log says")


def test_a_malformed_campaign_body_is_named(gm, signer) -> None:
    log = gm["campaign"]["log"]
    del log[0]["body"]["name"]  # the campaign.created entry, re-hashed and re-signed by a wrong server
    rehash(log)
    _refused(resign(gm, signer), r"campaign 1: a body in its log is malformed \(KeyError")


@pytest.mark.parametrize("rules, error", [(5, "TypeError"), (["abc"], "ValueError")])
def test_house_rules_that_are_no_mapping_are_named(gm, signer, rules, error) -> None:
    """House rules that cannot be read as a mapping (a number; a list of three-letter text), chained and signed."""
    log = gm["campaign"]["log"]
    log[0]["body"]["house_rules"] = rules
    rehash(log)
    _refused(resign(gm, signer), rf"campaign 1: a body in its log is malformed \({error}")


def test_a_post_whose_text_is_no_text_is_named(gm, signer) -> None:
    log = _scene(gm)["log"]
    post = _entry(log, "post.created", text="Bo waits.")
    post["body"]["text"] = 5
    rehash(log, post["seq"])
    _refused(resign(gm, signer), r"scene 1: a body in its log is malformed \(TypeError")


def test_a_malformed_character_body_is_named(gm, signer) -> None:
    log = gm["campaign"]["log"]
    created = next(e for e in log if e["kind"] == "character.created")
    del created["body"]["name"]
    rehash(log, created["seq"])
    _refused(resign(gm, signer), r"campaign 1: a character in its log is malformed \(KeyError")


def test_a_scene_log_the_story_cannot_be_rebuilt_from_is_named(gm, signer) -> None:
    """An edit of a post the log does not show, chained and signed by a wrong server: the story cannot be rebuilt."""
    log = _scene(gm)["log"]
    edit = _entry(log, "post.edited")
    edit["body"]["post"] = 99
    rehash(log, edit["seq"])
    _refused(resign(gm, signer), f"scene 1: entry {edit['seq']} changes post 99, which the log does not show")


def test_a_malformed_scene_body_is_named(gm, signer) -> None:
    log = _scene(gm)["log"]
    del log[0]["body"]["title"]  # the opening entry keeps its stream and commitment, loses its title
    rehash(log)
    _refused(resign(gm, signer), r"scene 1: a body in its log is malformed \(KeyError")


# --- the scenes' parts ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("change", ["extra", "missing", "not an object"])
def test_a_scene_not_shaped_like_an_export_is_refused(gm, change) -> None:
    if change == "extra":
        _scene(gm)["secret"] = 1
    elif change == "missing":
        del _scene(gm)["narrative"]
    else:
        gm["scenes"][0] = [1]
    _refused(gm, "a scene of the export is not the shape an export has")


@pytest.mark.parametrize("sid", ["1", True, None])
def test_a_scene_id_that_is_not_a_whole_number_is_refused(gm, sid) -> None:
    gm["scenes"][0]["id"] = sid
    _refused(gm, f"scene {sid}: its id is not a whole number")


@pytest.mark.parametrize(
    "part, value",
    [
        ("title", "A Different Night"),
        ("mode", "turn"),
        ("stream", "scene:2"),
        ("seed_sha256", "0" * 64),
        ("seed", "0" * 64),
        ("opened_at", "2020-01-01T00:00:00+00:00"),
        ("closed_at", None),
        ("narrative", ["And then Arn won."]),
    ],
)
def test_a_scene_part_edited_outside_the_log_is_refused(gm, part, value) -> None:
    _scene(gm)[part] = value
    _refused(gm, f"scene 1: its {part} is not what the log says")


def test_a_scene_exported_under_another_id_is_refused(gm) -> None:
    """Scene 1's log under id 2: the signatures are for s:1 (and the stream is scene 1's)."""
    gm["scenes"] = [_scene(gm)]
    _scene(gm)["id"] = 2
    _refused(gm, "scene 2, entry 1: is not the entry the server signed")


def test_a_scene_whose_stream_is_another_scenes_is_refused_even_when_signed(gm, signer) -> None:
    """The server's own log under another id, every signature made for it: the stream still gives it away."""
    gm["scenes"] = [_scene(gm)]
    _scene(gm)["id"] = 2
    _refused(resign(gm, signer), "scene 2, entry 1: the scene's stream is 'scene:1', not 'scene:2'")


def _post(scene, text):
    return next(p for p in scene["posts"] if p.get("text") == text)


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda s: _post(s, "Arn draws.").update(text="Arn wins."), r"post 2 \(entry 2\): its text is not"),
        (lambda s: _post(s, "Arn draws.")["rolls"][0].update(total=13), r"post 2 \(entry 2\): its rolls is not"),
        (lambda s: _post(s, "Arn draws.").update(mood="smug"), r"post 2 \(entry 2\): its mood is not"),
        (lambda s: _post(s, "Arn draws.").pop("character"), r"post 2 \(entry 2\): its character is not"),
        (lambda s: _post(s, "typo fixed").update(edited=False), r"post 4 \(entry 4\): its edited is not"),
        (lambda s: s["posts"].pop(1), r"leaves out post\(s\) \[3\] that the log shows"),
        (lambda s: s["posts"].append({**s["posts"][0], "id": 999}), "shows a post 999 that is not in the log"),
        (lambda s: s["posts"].append("a post"), "shows a post None that is not in the log"),
        (lambda s: s.update(posts={"2": {}}), "scene 1: its posts are not a list"),
    ],
)
def test_posts_that_are_not_what_the_log_says_are_refused(gm, change, match) -> None:
    change(_scene(gm))
    _refused(gm, match)


# --- one log: the chain, the signatures, the commitments -------------------------------------------------------


@pytest.fixture
def closed(gm):
    """The GM's view of the closed scene's log (every body and roll shown, the seed revealed)."""
    return _scene(gm, 1)["log"]


@pytest.fixture
def key(signer):
    return signer.public


def _check(log, *, sid=1, key=None, log_id=None, name=None):
    return verify_log(log, name=name or f"scene {sid}", scene_id=sid, key=key, log_id=log_id)


def test_a_log_checks_out_with_the_servers_signatures_under_its_own_name(closed, key) -> None:
    r = _check(closed, key=key, log_id="s:1")
    assert (r["entries"], r["signed"], r["rolls_replayed"]) == (10, True, 5)
    # without log_id the log's name is what was signed: scene 1's entries are signed as s:1
    assert _check(copy.deepcopy(closed), key=key, name="s:1")["signed"]
    with pytest.raises(VerificationError, match="scene 1, entry 1: is not the entry the server signed"):
        _check(closed, key=key)
    assert _check(closed)["signed"] is False  # no key, no signature checked


@pytest.mark.parametrize("sig", ["missing", "another place", "another key", "garbage"])
def test_an_entry_without_the_servers_signature_of_its_place_is_refused(closed, key, signer, sig) -> None:
    e = closed[4]
    if sig == "missing":
        del e["sig"]
    elif sig == "another place":
        e["sig"] = closed[3]["sig"]
    elif sig == "another key":
        e["sig"] = Signer(FORGER_KEY).sign_place("s:1", e["seq"], e["hash"])
    else:
        e["sig"] = "not base64!"
    with pytest.raises(VerificationError, match="scene 1, entry 5: is not the entry the server signed") as exc:
        _check(closed, key=key, log_id="s:1")
    assert "rewritten" in (exc.value.hint or "")


def test_a_rewritten_chain_fails_at_its_first_changed_entry(gm, key) -> None:
    """A forger re-hashes from the changed entry on (the signatures cannot follow): the first changed entry."""
    log = _scene(gm)["log"]
    _entry(log, "post.created", text="Arn draws.")["body"]["text"] = "Arn wins."
    rehash(log, 2)
    _refused(gm, "scene 1, entry 2: is not the entry the server signed", key=key)


def test_a_chain_rewritten_and_re_signed_by_the_server_passes_the_chain(gm, signer) -> None:
    """The counter-check of the test above: re-hashed *and* re-signed, the chain itself holds; what is refused
    is the story that no longer matches it."""
    log = _scene(gm)["log"]
    _entry(log, "post.created", text="Arn draws.")["body"]["text"] = "Arn wins."
    rehash(log, 2)
    _refused(resign(gm, signer), r"scene 1, post 2 \(entry 2\): its text is not what the log says")


@pytest.mark.parametrize("what", ["removed", "inserted", "swapped"])
def test_a_removed_inserted_or_reordered_entry_is_refused(closed, what) -> None:
    if what == "removed":
        del closed[3]
        match = r"scene 1, entry 5: is out of order \(expected entry 4\)"
    elif what == "inserted":
        closed.insert(3, copy.deepcopy(closed[2]))
        match = r"scene 1, entry 3: is out of order \(expected entry 4\)"
    else:
        closed[3], closed[4] = closed[4], closed[3]
        match = r"scene 1, entry 5: is out of order \(expected entry 4\)"
    with pytest.raises(VerificationError, match=match):
        _check(closed)


def test_an_entry_renumbered_to_fit_is_refused_by_its_links(closed) -> None:
    del closed[3]
    for e in closed[3:]:
        e["seq"] -= 1
    with pytest.raises(VerificationError, match=r"scene 1, entry 4: does not link to the entry before it") as exc:
        _check(closed)
    assert exc.value.hint == "an entry was removed, inserted or changed"


def test_a_truncated_chain_is_its_own_consistent_prefix(closed) -> None:
    """Cutting the log's end leaves a true prefix (the head moves back), and the report says which head."""
    r = _check(closed[:5])
    assert (r["entries"], r["head"], r["seed_revealed"], r["rolls_replayed"]) == (5, closed[4]["hash"], False, 0)


def test_an_entry_after_the_closing_entry_is_refused(gm, signer) -> None:
    """A genuine post re-linked after the close and re-signed by the server: the closed log ends there."""
    log = _scene(gm)["log"]
    late = copy.deepcopy(log[1])
    late["seq"] = 11
    log.append(late)
    rehash(log, 11)
    with pytest.raises(VerificationError, match=r"scene 1, entry 11: comes after the scene closed \(entry 10\)"):
        _check(log)


@pytest.mark.parametrize("field", ["prev", "hash"])
@pytest.mark.parametrize("value", ["F" * 64, "f" * 63, 7, None])
def test_links_that_are_not_sha256_are_refused(closed, field, value) -> None:
    closed[2][field] = value
    with pytest.raises(VerificationError, match="scene 1, entry 3: is malformed: its prev or hash is not a SHA-256"):
        _check(closed)


def test_a_wrong_hash_is_refused_with_why(closed) -> None:
    closed[2]["hash"] = "a" * 64
    with pytest.raises(VerificationError, match="scene 1, entry 3: its hash does not match its content") as exc:
        _check(closed)
    assert exc.value.hint == "the entry was changed after it was written"


@pytest.mark.parametrize(
    "seq, match",
    [
        ("5", r"is out of order \(expected entry 2\)"),
        (5.0, r"is out of order \(expected entry 2\)"),
        (None, r"is out of order \(expected entry 2\)"),
        (True, r"is out of order \(expected entry 2\)"),
        (2.0, "its hash does not match"),  # equal to 2, but not what was hashed
    ],
)
def test_an_entry_whose_seq_is_not_a_whole_number_is_named_by_its_place(closed, seq, match) -> None:
    closed[1]["seq"] = seq
    with pytest.raises(VerificationError, match="scene 1, entry 2: " + match):
        _check(closed)


def test_an_entry_that_is_not_an_object_is_refused(closed) -> None:
    closed[2] = ["seq", 3]
    with pytest.raises(VerificationError, match="scene 1, entry 3: is malformed: is not an object"):
        _check(closed)


@pytest.mark.parametrize("entries", [None, {"1": {}}, "log"])
def test_a_log_that_is_not_a_list_is_refused(entries) -> None:
    with pytest.raises(VerificationError, match="scene 1: its log is not a list of entries"):
        _check(entries)


def test_a_log_longer_than_the_limit_is_refused_before_it_is_read() -> None:
    with pytest.raises(VerificationError, match=f"scene 1: its log has more than {MAX_ENTRIES} entries"):
        _check([None] * (MAX_ENTRIES + 1))
    with pytest.raises(VerificationError, match="scene 1, entry 1: is malformed: is not an object"):
        _check([None] * MAX_ENTRIES)  # at the limit: read, and refused for its first entry


def test_an_entry_with_parts_no_entry_has_is_refused(closed) -> None:
    closed[2]["zz"] = 1
    closed[2]["aa"] = 2
    with pytest.raises(VerificationError, match=r"scene 1, entry 3: is malformed: has unknown parts \(aa, zz\)"):
        _check(closed)


@pytest.mark.parametrize("commit", [0, 3, "2", None, True, 1.0, 2.0])
def test_an_unknown_commitment_version_is_refused(closed, commit) -> None:
    closed[2]["commit"] = commit
    with pytest.raises(VerificationError, match="scene 1, entry 3: is malformed: has an unknown commitment version"):
        _check(closed)


def test_an_entry_downgraded_to_version_1_in_a_salted_log_is_refused(closed) -> None:
    e = closed[2]
    del e["commit"]
    with pytest.raises(VerificationError, match="scene 1, entry 3: is unsalted in a log that salts") as exc:
        _check(closed)
    assert exc.value.hint == "it was forged or downgraded"


def test_a_salted_entry_without_its_salt_is_refused(closed) -> None:
    del closed[2]["salt"]
    with pytest.raises(VerificationError, match="scene 1, entry 3: is malformed: its body has no salt"):
        _check(closed)


def test_a_salted_roll_without_its_salt_is_refused(closed) -> None:
    del closed[1]["rolls"][0]["salt"]
    with pytest.raises(VerificationError, match="scene 1, entry 2: is malformed: a roll has no salt"):
        _check(closed)


# --- redacted entries ------------------------------------------------------------------------------------------


@pytest.fixture
def p2_closed(world):
    """P2's view of the closed scene: P1's private post (entry 8) is only its links."""
    return copy.deepcopy(_scene(world[1]["p2"], 1)["log"])


def test_a_redacted_entry_shows_only_its_links(p2_closed) -> None:
    assert p2_closed[7]["redacted"] is True and set(p2_closed[7]) == {"seq", "prev", "hash", "redacted", "sig"}
    assert _check(p2_closed)["redacted_entries"] == 1
    p2_closed[7]["kind"] = "post.created"
    with pytest.raises(VerificationError, match="scene 1, entry 8: is malformed: a redacted entry shows more"):
        _check(p2_closed)


def test_a_redacted_entrys_hash_is_what_the_next_entry_links_to(p2_closed) -> None:
    p2_closed[7]["hash"] = "b" * 64
    with pytest.raises(VerificationError, match="scene 1, entry 9: does not link to the entry before it"):
        _check(p2_closed)


def test_the_first_entry_of_a_log_is_never_redacted(closed) -> None:
    closed[0] = {"seq": 1, "prev": "0" * 64, "hash": closed[0]["hash"], "redacted": True}
    with pytest.raises(VerificationError, match="scene 1, entry 1: the first entry of a log is never private"):
        _check(closed)


def test_a_redacted_entry_is_still_signed_at_its_place(p2_closed, key) -> None:
    p2_closed[7]["sig"] = p2_closed[6]["sig"]
    with pytest.raises(VerificationError, match="scene 1, entry 8: is not the entry the server signed"):
        _check(p2_closed, key=key, log_id="s:1")


# --- versions of the commitment ---------------------------------------------------------------------------------


def test_a_log_begun_unsalted_may_go_on_salted_and_the_report_counts_both(closed) -> None:
    """A log begun before salting (its first entry version 1) whose later entries are salted (the upgrade)."""
    first = closed[0]
    del first["salt"], first["commit"]
    rehash(closed)
    r = _check(closed)
    assert (r["commit"], r["entries"], r["unsalted_entries"]) == (1, 10, 1)


def test_a_version_1_entry_is_hashed_without_its_salt(closed) -> None:
    """Version 1 commits to the body alone: a salt shown beside a version 1 body is no part of its hash."""
    first = closed[0]
    del first["commit"]
    salt_shown = first["salt"]
    del first["salt"]
    rehash(closed)
    first["salt"] = salt_shown
    assert _check(closed)["commit"] == 1


# --- the shapes inside an entry (checked before its hash) ---------------------------------------------------------


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda e: e.update(body="Arn draws."), "its body is not an object"),
        (lambda e: e.update(salt="NOT HEX" * 5), "its body has no salt"),
        (lambda e: e.update(salt="ab" * 8), "its body has no salt"),  # 64 bits: too short to be one
        (lambda e: e.pop("body"), "has neither a body nor its digest"),
        (lambda e: (e.pop("body"), e.update(body_sha256="z" * 64)), "has neither a body nor its digest"),
        (lambda e: e.update(rolls={"0": {}}), "its rolls are not a list"),
        (lambda e: e.update(kind=5), "has no kind or time"),
        (lambda e: e.pop("kind"), "has no kind or time"),
        (lambda e: e.update(at=None), "has no kind or time"),
        (lambda e: e.update(actor="2"), "its actor is not a user id"),
        (lambda e: e.update(actor=True), "its actor is not a user id"),
        (lambda e: e["rolls"].append("2d6"), "a roll is not an object"),
        (lambda e: e["rolls"][0].update(visibility="secret"), "a roll has no known visibility"),
        (lambda e: e["rolls"][0].pop("visibility"), "a roll has no known visibility"),
        (lambda e: e["rolls"][0].update(by="2"), "a roll's roller is not a user id"),
        (lambda e: e["rolls"][0].update(by=False), "a roll's roller is not a user id"),
        (lambda e: e["rolls"][0].update(label=5), "a roll's label is not text"),
        (lambda e: e["rolls"][0].update(salt="xy"), "a roll has no salt"),
    ],
)
def test_an_entry_not_shaped_like_one_is_refused_with_what_is_wrong(closed, change, match) -> None:
    change(closed[1])  # entry 2: Arn's post and its 2d6+1
    with pytest.raises(VerificationError, match="scene 1, entry 2: is malformed: " + match):
        _check(closed)


@pytest.mark.parametrize(
    "change",
    [
        lambda e: e["rolls"][0].update(by=None),  # a roll by the table itself
        lambda e: e.update(actor=None),  # an entry by the table itself
        lambda e: e["rolls"][0].pop("label"),  # an unlabelled roll: the label is ""
        lambda e: e.update(rolls=None),  # no rolls
    ],
)
def test_what_an_entry_may_leave_out_is_accepted_when_it_was_hashed_so(closed, change) -> None:
    """The counter-checks: each of these shapes is an entry's, so only its hash decides (re-hashed here)."""
    e = closed[5]  # entry 6: the deleted post, with its d4
    change(e)
    rehash(closed, 6)
    if e.get("rolls") is None:
        # its d4's dice are now drawn with no roll showing them
        with pytest.raises(VerificationError, match=r"dice \d+\.\.\d+ of the stream were drawn but no roll shows"):
            _check(closed)
    else:
        assert _check(closed)["rolls_shown"] == 5


def test_a_hidden_rolls_digest_must_be_a_sha256(world) -> None:
    log = copy.deepcopy(_scene(world[1]["p1"], 2)["log"])
    e = next(e for e in log if any(r.get("hidden") for r in e.get("rolls", [])))
    r = next(r for r in e["rolls"] if r.get("hidden"))
    r["sha256"] = r["sha256"].upper()
    with pytest.raises(VerificationError, match=f"scene 2, entry {e['seq']}: is malformed: a hidden roll's digest"):
        _check(log, sid=2)


def test_an_entry_with_a_non_json_value_is_refused_not_a_crash(closed) -> None:
    closed[1]["body"]["text"] = float("nan")  # no JSON holds NaN: the commitment cannot be computed
    with pytest.raises(VerificationError, match=r"scene 1, entry 2: is malformed \(ValueError"):
        _check(closed)


# --- the dice: stretches of the stream, the replay, re-rolls ---------------------------------------------------------
# In the closed scene (see signed_kit): entry 2 rolls 2d6+1 on dice [0, 2), entry 3 a d20 on [2, 3), entry 6 a d4 on
# [3, 4), entry 8 a d8 on [4, 5), entry 9 the check's d6 on [5, 6).


def _roll_of(log, seq):
    return log[seq - 1]["rolls"][0]


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda r: r.update(counter=[0, 2, 4]), r"a roll's counter is not \[start, end\]"),
        (lambda r: r.update(counter=[0]), r"a roll's counter is not \[start, end\]"),
        (lambda r: r.update(counter="0-2"), r"a roll's counter is not \[start, end\]"),
        (lambda r: r.update(counter=[0, "2"]), r"a roll's counter is not \[start, end\]"),
        (lambda r: r.update(counter=[True, 2]), r"a roll's counter is not \[start, end\]"),
        (lambda r: r.update(counter=[2, 0]), "a roll's stretch of the stream runs backwards"),
        (lambda r: r.update(counter=[-1, 2]), "a roll's stretch of the stream runs backwards"),
        (lambda r: r.update(records={"0": {}}), "a roll's records are not a list"),
        (lambda r: r["records"].append(7), "a roll's record is not an object"),
        (lambda r: r["records"][0].update(counter="0"), "a record's counter or draws is not a whole number"),
        (lambda r: r["records"][0].update(draws=None), "a record's counter or draws is not a whole number"),
        (lambda r: r["records"][0].update(draws=-1), "a record's counter or draws is not a whole number"),
        (lambda r: r["records"][0].update(draws=False), "a record's counter or draws is not a whole number"),
    ],
)
def test_a_roll_not_shaped_like_one_is_refused(closed, change, match) -> None:
    change(_roll_of(closed, 2))
    rehash(closed, 2)
    with pytest.raises(VerificationError, match="scene 1, entry 2: is malformed: " + match):
        _check(closed)


@pytest.mark.parametrize(
    "claimed, record",
    [
        ([1, 3], (0, 2)),  # the record starts before the claimed stretch
        ([0, 1], (0, 2)),  # it runs past its end
        ([0, 2], (1, 2)),  # shifted by one
        ([0, 2], (0, 3)),  # one draw too many
    ],
)
def test_a_record_outside_the_stretch_its_roll_claims_is_refused(closed, claimed, record) -> None:
    r = _roll_of(closed, 2)
    r["counter"] = claimed
    r["records"][0]["counter"], r["records"][0]["draws"] = record
    rehash(closed, 2)
    with pytest.raises(VerificationError, match="scene 1, entry 2: a roll's record lies outside the stretch"):
        _check(closed)


def test_a_record_at_the_edges_of_its_stretch_is_inside(closed) -> None:
    """A record filling exactly [start, end) is inside: a roll whose claimed stretch is one wider at the end is not
    refused for the stretch but for the die left undrawn between it and the next roll (a re-roll's trace)."""
    _roll_of(closed, 2)["counter"] = [0, 3]
    rehash(closed, 2)
    with pytest.raises(
        VerificationError, match=r"scene 1, entry 3: its roll reuses dice .* by scene 1, entry 2 \(a re-roll\)"
    ):
        _check(closed)


@pytest.mark.parametrize("other", ["scene:2", "scene:0", None])
def test_a_record_on_another_stream_is_refused(closed, other) -> None:
    _roll_of(closed, 3)["records"][0]["stream"] = other
    rehash(closed, 3)
    with pytest.raises(
        VerificationError, match=f"scene 1, entry 3: a roll is on stream {other!r}, not exactly the scene's 'scene:1'"
    ) as exc:
        _check(closed)
    assert exc.value.hint == "every die of a scene comes from the scene's own stream"


def test_a_roll_before_any_stream_is_refused(closed) -> None:
    body = closed[0]["body"]
    del body["stream"], body["seed_sha256"]  # the opening entry published no stream (re-hashed: a wrong server)
    rehash(closed)
    with pytest.raises(VerificationError, match=r"scene 1, entry 2: a roll comes before the scene opened"):
        _check(closed)


def test_a_changed_die_is_refused_once_the_seed_is_revealed(closed) -> None:
    rec = _roll_of(closed, 3)["records"][0]
    face = rec["dice"][0]["face"]
    rec["dice"][0]["face"] = rec["total"] = face % 20 + 1  # another face of the d20, the total to match
    _roll_of(closed, 3)["total"] = rec["total"]
    rehash(closed, 3)
    with pytest.raises(VerificationError, match="scene 1, entry 3: the roll '1d20' does not replay") as exc:
        _check(closed)
    assert "changed after it was rolled" in (exc.value.hint or "")
    truncated = closed[:9]  # before the reveal (the closing entry cut off) the same change cannot be seen
    r = _check(truncated)
    assert (r["seed_revealed"], r["rolls_replayed"], r["rolls_shown"]) == (False, 0, 5)


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda rec: rec.update(expression="1d"), r"a roll's record is malformed \("),
        (lambda rec: rec.pop("dice"), "not a roll record"),
        (lambda rec: rec.update(rng_version=99), "the record uses dice derivation v99"),
    ],
)
def test_a_record_that_cannot_be_replayed_is_refused_with_why(closed, change, match) -> None:
    change(_roll_of(closed, 6)["records"][0])
    rehash(closed, 6)
    with pytest.raises(VerificationError, match="scene 1, entry 6: " + match):
        _check(closed)


def test_the_same_dice_shown_twice_are_a_re_roll(closed) -> None:
    """Entry 6 shows entry 2's genuine 2d6+1 (its dice replay): the stretch is used twice."""
    closed[5]["rolls"] = [copy.deepcopy(_roll_of(closed, 2))]
    rehash(closed, 6)
    with pytest.raises(
        VerificationError,
        match=r"scene 1, entry 6: its roll reuses dice from the stream already used by scene 1, entry 2 \(a re-roll\)",
    ):
        _check(closed)


def test_dice_drawn_but_shown_by_no_roll_are_refused(closed) -> None:
    """Entry 6's d4 taken out (the entry re-hashed): die 3 was drawn and no roll shows it."""
    closed[5]["rolls"] = []
    rehash(closed, 6)
    with pytest.raises(
        VerificationError, match=r"scene 1, entry 8: dice 3\.\.4 of the stream were drawn but no roll shows them"
    ):
        _check(closed)


def test_a_stream_not_started_at_its_beginning_is_refused(closed) -> None:
    closed[1]["rolls"] = []
    rehash(closed, 2)
    with pytest.raises(VerificationError, match="scene 1, entry 3: the first roll does not start at the beginning"):
        _check(closed)


def test_gaps_are_accepted_where_a_roll_is_hidden_or_an_entry_redacted(world) -> None:
    """A hidden roll's or a redacted entry's dice are drawn but not shown: a gap there is no forgery. The counter-
    check: the same gap in the GM's view (where nothing is redacted) is refused."""
    p2 = copy.deepcopy(_scene(world[1]["p2"], 1)["log"])  # entry 8 (the d8 on [4, 5)) redacted, nothing hidden
    assert _check(p2)["redacted_entries"] == 1
    p2[1]["rolls"] = []  # and the first roll taken out too: the stream no longer starts at 0
    rehash(p2, 2)
    assert _check(p2)["rolls_shown"] == 3
    gm2 = copy.deepcopy(_scene(world[1]["gm"], 2)["log"])  # P1's self roll hidden from the GM, nothing redacted
    r = _check(gm2, sid=2)
    assert (r["rolls_hidden"], r["redacted_entries"]) == (1, 0)
    gm2[1]["rolls"] = []  # the first roll (P1's d6 on [0, 1)) taken out
    rehash(gm2, 2)
    assert _check(gm2, sid=2)["rolls_shown"] == 4


# --- the seed and its commitment ----------------------------------------------------------------------------------


def test_a_seed_revealed_without_a_published_commitment_says_so(closed) -> None:
    del closed[0]["body"]["seed_sha256"]  # the stream published, the commitment not (re-hashed: a wrong server)
    rehash(closed)
    with pytest.raises(
        VerificationError,
        match=r"scene 1, entry 10: the revealed seed does not match the hash published when the scene opened "
        r"\(it published none\)",
    ):
        _check(closed)


@pytest.mark.parametrize("seed", ["another seed", 5, None])
def test_a_revealed_seed_that_is_not_the_committed_one_is_refused(closed, seed) -> None:
    closed[9]["body"]["seed"] = seed
    rehash(closed, 10)
    with pytest.raises(VerificationError, match="scene 1, entry 10: the revealed seed does not match") as exc:
        _check(closed)
    assert "published none" not in str(exc.value)


def test_a_scene_checked_as_another_scene_is_refused_for_its_stream(closed) -> None:
    with pytest.raises(VerificationError, match="scene 3, entry 1: the scene's stream is 'scene:1', not 'scene:3'"):
        _check(closed, sid=3)
    assert _check(closed, sid=None, name="scene 3")["rolls_replayed"] == 5  # no scene named: no stream to hold to


# --- version 1 exports ---------------------------------------------------------------------------------------------


@pytest.fixture
def v1(tally):
    """A version 1 export (unsalted, unsigned): a campaign log with a GM note, and a closed scene, as player P1."""
    from storymaster.play import campaign as cc
    from storymaster.play import scene as sc
    from storymaster.play.log import seal
    from storymaster.play.views import entry_view

    first = seal(
        cc.create_campaign(GM, "gm", name="Old", system=tally, house_rules={}), head_seq=0, head_hash=None, at="t0"
    )
    c = cc.fold_campaign(1, first)
    log = list(first)
    for drafts in (
        lambda c: cc.add_member(c, GM, user=P1, name="Ann", role="player"),
        lambda c: cc.write_note(c, GM, text="n"),
    ):
        new = seal(drafts(c), head_seq=c.head_seq, head_hash=c.head_hash, at="t1")
        c, log = cc.fold_campaign(1, new, c), log + new
    opened = seal(sc.open_scene(c, GM, scene_id=5, title="S", seed=SEED_1)[0], head_seq=0, head_hash=None, at="t2")
    s, slog = sc.fold_scene(5, opened), list(opened)
    for drafts in (
        lambda s: sc.write_post(
            c, s, P1, kind="ooc", text="x", now=None, seed=SEED_1, system=tally, rolls=[{"dice": "d6"}]
        ),
        lambda s: sc.close_scene(c, s, GM, seed=SEED_1)[0],
    ):
        new = seal(drafts(s), head_seq=s.head_seq, head_hash=s.head_hash, at="t3")
        s, slog = sc.fold_scene(5, new, s), slog + new
    reader = Reader(P1, "player")
    return {
        "format": FORMAT,
        "version": 1,
        "campaign": {"id": 1, "log": [entry_view(e, reader, None) for e in log]},
        "scenes": [{"id": 5, "log": [entry_view(e, reader, SEED_1) for e in slog]}],
    }


def test_a_version_1_export_checks_its_chains_only_and_says_so(v1) -> None:
    report = verify_export(v1)
    assert (report["ok"], report["version"], report["signed"], report["key"]) == (True, 1, False, None)
    assert "only each log's chain was checked" in report["warning"]
    camp, scene = report["logs"]
    assert (camp["log"], camp["entries"], camp["redacted_entries"], camp["unsalted_entries"]) == ("campaign 1", 4, 1, 3)
    assert (scene["log"], scene["entries"], scene["rolls_replayed"], scene["commit"]) == ("scene 5", 3, 1, 1)


def test_a_version_1_scene_is_held_to_its_own_stream(v1) -> None:
    v1["scenes"][0]["id"] = 6
    with pytest.raises(VerificationError, match="scene 6, entry 1: the scene's stream is 'scene:5', not 'scene:6'"):
        verify_export(v1)
    v1["scenes"][0]["id"] = "5"  # not a whole number: no stream to hold it to, and named as it is
    assert verify_export(v1)["logs"][1]["log"] == "scene 5"


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda d: d.update(campaign=["log"]), "the export's campaign is not an object"),
        (lambda d: d.update(scenes={"5": {}}), "the export's scenes are not a list"),
        (lambda d: d["scenes"].append("scene"), "a scene of the export is not an object"),
        (lambda d: d.update(campaign=None, scenes=[]), "the export holds no logs"),
        (lambda d: d["campaign"]["log"][0].update(kind=None), r"campaign 1, entry 1: is malformed: has no kind"),
    ],
)
def test_a_version_1_export_not_shaped_like_one_is_refused(v1, change, match) -> None:
    change(v1)
    with pytest.raises(VerificationError, match=match):
        verify_export(v1)


def test_a_version_1_export_without_a_campaign_or_scenes_part(v1) -> None:
    del v1["campaign"]
    assert [r["log"] for r in verify_export(copy.deepcopy(v1))["logs"]] == ["scene 5"]
    v1["campaign"] = {"id": 1, "log": []}  # an empty log is a chain of nothing
    del v1["scenes"]
    # nothing in it is salted: an unsalted log, version 1 (the report's version is always one the verifier knows)
    assert [(r["entries"], r["commit"], r["head"]) for r in verify_export(v1)["logs"]] == [(0, 1, "0" * 64)]


# --- the export's text ------------------------------------------------------------------------------------------------


def test_text_that_is_not_json_is_refused_with_where(gm, key) -> None:
    from storymaster.play.verify import verify_text

    with pytest.raises(VerificationError, match=r"^x\.json:2:3: not valid JSON: "):
        verify_text("{\n  ,}", source="x.json")
    with pytest.raises(VerificationError, match=r"^the export: not valid JSON \(ValueError\)"):
        verify_text("9" * 5000)  # more digits than Python reads as a number
    with pytest.raises(VerificationError, match=r"^the export: not valid JSON \(RecursionError\)"):
        verify_text("[" * 200_000 + "]" * 200_000)
    assert verify_text(json.dumps(gm), key=key)["signed"]
    with pytest.raises(VerificationError, match="not by this server's key"):
        verify_text(json.dumps(gm), key=Signer(FORGER_KEY).public)


# --- bugs these tests found (fixed in play/verify.py) -----------------------------------------------------------------


@pytest.mark.parametrize(
    "change, match",
    [
        # post 3 left out and post 2 shown twice: as many posts as the log's, each one a post of the log
        (lambda posts: posts.__setitem__(1, copy.deepcopy(posts[0])), r"leaves out post\(s\) \[3\] that the log shows"),
        (lambda posts: posts.append(copy.deepcopy(posts[0])), r"shows post\(s\) \[2\] more than once"),
        (lambda posts: posts.reverse(), "shows its posts out of the log's order"),
    ],
)
def test_posts_shown_twice_or_out_of_order_are_refused_even_when_the_server_signed_them(
    gm, signer, change, match
) -> None:
    """The server signs whatever it exports, so the signature cannot vouch for the posts: the log does. Before
    the fix, post 2 shown twice in place of post 3 verified (only the number of posts was compared)."""
    change(_scene(gm)["posts"])
    _refused(resign(gm, signer), "scene 1: " + match)


def test_a_downgraded_campaign_export_without_scenes_is_refused(gm) -> None:
    """A signed campaign export with its key and signatures taken out and called version 1: its campaign log is
    salted, which no version 1 export holds. Before the fix this was checked only for an export with scenes."""
    old = {k: v for k, v in gm.items() if k not in ("key", "signature", "version")}
    old["scenes"] = []
    _refused(old, "campaign 1: salted logs come only in signed")
    old["scenes"] = [_scene(gm, 2)]
    _refused(old, "campaign 1: salted logs come only in signed")


def test_a_roll_that_draws_no_dice_is_a_genuine_roll(tally) -> None:
    """A constant ("3") draws nothing: its stretch of the stream is empty ([1, 1]), between two dice that touch it."""
    from play.signed_kit import salt

    from storymaster.play import campaign as cc
    from storymaster.play import scene as sc
    from storymaster.play.log import seal
    from storymaster.play.views import entry_view

    c = cc.fold_campaign(
        1,
        seal(cc.create_campaign(GM, "gm", name="C", system=tally, house_rules={}), head_seq=0, head_hash=None, at="t0"),
    )
    opened = seal(
        sc.open_scene(c, GM, scene_id=1, title="S", seed=SEED_1)[0], head_seq=0, head_hash=None, at="t1", salt=salt
    )
    s, log = sc.fold_scene(1, opened), list(opened)
    for dice in ("d6", "3", "d6"):
        new = seal(
            sc.write_post(c, s, GM, kind="ooc", text=dice, now=None, seed=SEED_1, system=tally, rolls=[{"dice": dice}]),
            head_seq=s.head_seq,
            head_hash=s.head_hash,
            at="t2",
            salt=salt,
        )
        s, log = sc.fold_scene(1, new, s), log + new
    new = seal(sc.close_scene(c, s, GM, seed=SEED_1)[0], head_seq=s.head_seq, head_hash=s.head_hash, at="t3", salt=salt)
    views = [entry_view(e, Reader(GM, "gm"), SEED_1) for e in log + new]
    assert views[2]["rolls"][0]["counter"] == [1, 1]  # what the table wrote: no die drawn
    r = _check(views)
    assert (r["rolls_shown"], r["rolls_replayed"]) == (3, 3)


@pytest.mark.parametrize("prev", ["0" * 64, "f" * 64])
def test_a_link_to_anything_but_the_entry_before_is_refused(closed, prev) -> None:
    """Below or above the right hash (the genesis hash, the highest one): a link either is the hash before or not."""
    closed[2]["prev"] = prev
    with pytest.raises(VerificationError, match="scene 1, entry 3: does not link to the entry before it"):
        _check(closed)


def test_a_roll_claiming_dice_before_its_record_overlaps_the_roll_before(closed) -> None:
    """Entry 3's d20 (drawn at 2) claims [1, 3): its record is inside that, but die 1 is entry 2's."""
    _roll_of(closed, 3)["counter"] = [1, 3]
    rehash(closed, 3)
    with pytest.raises(VerificationError, match=r"scene 1, entry 3: its roll reuses dice .* by scene 1, entry 2"):
        _check(closed)


def test_the_entry_points_take_their_arguments_by_name(gm, key) -> None:
    """Every parameter by its name, the first ones too (the signatures' keyword-only markers leave them named)."""
    from storymaster.play.verify import verify_text

    assert verify_text(text=json.dumps(gm), key=key, source="x.json")["signed"]
    assert verify_export(doc=gm, key=key)["signed"]
    log = _scene(gm)["log"]
    assert verify_log(entries=log, name="scene 1", scene_id=1, key=key, log_id="s:1")["signed"]


@pytest.mark.parametrize("kind", ["post.created", "scene.updated"])
@pytest.mark.parametrize(
    "quoted",
    [{"seed_sha256": _sha("another seed"), "stream": "scene:1"}, {"stream": "scene:9"}, {"seed_sha256": "0" * 64}],
)
def test_only_the_opening_entry_publishes_the_commitment(closed, kind, quoted) -> None:
    """An entry whose body happens to carry a commitment's or a stream's key (chained as written) is no opening:
    the scene's commitment and stream stay the ones its opening entry published, and the revealed seed matches."""
    closed[3]["body"].update(quoted)  # entry 4, "typo" (as a post, or as the scene's settings changed)
    closed[3]["kind"] = kind
    rehash(closed, 4)
    r = _check(closed)
    assert (r["commitment"], r["seed_revealed"], r["rolls_replayed"]) == (_sha(SEED_1), True, 5)


@pytest.mark.parametrize("kind", ["post.created", "scene.updated"])
def test_only_the_closing_entry_reveals_the_seed(closed, kind) -> None:
    """An entry whose body carries a "seed" key (chained as written) is not the scene's close."""
    closed[3]["body"]["seed"] = SEED_1  # entry 4, "typo"
    closed[3]["kind"] = kind
    rehash(closed, 4)
    r = _check(closed)
    assert (r["entries"], r["seed_revealed"], r["rolls_replayed"]) == (10, True, 5)


def test_a_scene_log_under_a_lower_id_is_refused_for_its_stream(world, signer) -> None:
    """Scene 2's log exported as scene 1, every signature made for s:1: its stream, scene:2, is not scene 1's."""
    doc = copy.deepcopy(world[1]["gm"])
    doc["scenes"] = [_scene(doc, 2)]
    doc["scenes"][0]["id"] = 1
    _refused(resign(doc, signer), "scene 1, entry 1: the scene's stream is 'scene:2', not 'scene:1'")


def test_a_hidden_roll_before_a_shown_one_in_the_same_entry(tally) -> None:
    """P1 posts a blind d6 and then a public d6 in one post of an open scene; P2 reads the second, not the first."""
    from play.signed_kit import salt

    from storymaster.play import campaign as cc
    from storymaster.play import scene as sc
    from storymaster.play.log import seal
    from storymaster.play.views import entry_view

    c = cc.fold_campaign(
        1,
        seal(cc.create_campaign(GM, "gm", name="C", system=tally, house_rules={}), head_seq=0, head_hash=None, at="t0"),
    )
    for user in (P1, P2):
        new = seal(
            cc.add_member(c, GM, user=user, name=f"u{user}", role="player"),
            head_seq=c.head_seq,
            head_hash=c.head_hash,
            at="t0",
        )
        c = cc.fold_campaign(1, new, c)
    opened = seal(
        sc.open_scene(c, GM, scene_id=1, title="S", seed=SEED_1)[0], head_seq=0, head_hash=None, at="t1", salt=salt
    )
    s = sc.fold_scene(1, opened)
    rolls = [{"dice": "d6", "visibility": "blind"}, {"dice": "d6"}]
    post = seal(
        sc.write_post(c, s, P1, kind="ooc", text="two", now=None, seed=SEED_1, system=tally, rolls=rolls),
        head_seq=s.head_seq,
        head_hash=s.head_hash,
        at="t2",
        salt=salt,
    )
    views = [entry_view(e, Reader(P2, "player"), None) for e in opened + post]
    assert [bool(r.get("hidden")) for r in views[1]["rolls"]] == [True, False]
    r = _check(views)
    assert (r["rolls_shown"], r["rolls_hidden"]) == (1, 1)


def test_an_entry_showing_its_body_and_its_right_digest_is_accepted(closed, key) -> None:
    """Every part an entry may have at once (its body, and the digest it is committed to, which agrees)."""
    e = closed[1]
    e["body_sha256"] = _sha(e["salt"] + _canon(e["body"]))
    assert len(set(e)) == 13  # seq, kind, at, actor, audience, body, body_sha256, rolls, prev, hash, salt, commit, sig
    assert _check(closed, key=key, log_id="s:1")["entries"] == 10


def test_a_long_stream_read_from_json_verifies(tally) -> None:
    """Past die 256 (where Python stops sharing small numbers), rolls read back from JSON text still touch."""
    from play.signed_kit import salt

    from storymaster.play import campaign as cc
    from storymaster.play import scene as sc
    from storymaster.play.log import seal
    from storymaster.play.views import entry_view

    c = cc.fold_campaign(
        1,
        seal(cc.create_campaign(GM, "gm", name="C", system=tally, house_rules={}), head_seq=0, head_hash=None, at="t0"),
    )
    opened = seal(
        sc.open_scene(c, GM, scene_id=1, title="S", seed=SEED_1)[0], head_seq=0, head_hash=None, at="t1", salt=salt
    )
    s, log = sc.fold_scene(1, opened), list(opened)
    for dice in ("300d6", "d6", "d6"):
        new = seal(
            sc.write_post(c, s, GM, kind="ooc", text=dice, now=None, seed=SEED_1, system=tally, rolls=[{"dice": dice}]),
            head_seq=s.head_seq,
            head_hash=s.head_hash,
            at="t2",
            salt=salt,
        )
        s, log = sc.fold_scene(1, new, s), log + new
    new = seal(sc.close_scene(c, s, GM, seed=SEED_1)[0], head_seq=s.head_seq, head_hash=s.head_hash, at="t3", salt=salt)
    views = json.loads(json.dumps([entry_view(e, Reader(GM, "gm"), SEED_1) for e in log + new]))
    assert [v["rolls"][0]["counter"] for v in views[1:4]] == [[0, 300], [300, 301], [301, 302]]
    assert _check(views)["rolls_replayed"] == 3
