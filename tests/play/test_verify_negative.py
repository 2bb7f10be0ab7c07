"""Negative tests for the offline verifier (play/verify.py): exports it must refuse.

Each case builds a genuine export through the table's own functions (open a
scene, post rolls, close it), checks that the untouched export verifies, then
makes one change a dishonest server or a careless copy could make and checks
that the verifier names it. The changes are made on the exported JSON only,
so the tests hold whatever the verifier's internals look like; where a case
needs a chain that is internally consistent (every link re-hashed, so only the
missing piece is wrong), it is re-sealed with the table's own ``seal``.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime

import pytest

from storymaster.errors import VerificationError
from storymaster.play import campaign as cc
from storymaster.play import scene as sc
from storymaster.play.chain import canonical_json, sha256_hex
from storymaster.play.log import Draft, seal
from storymaster.play.verify import EXPORT_FORMAT, verify_export
from storymaster.play.views import Reader, entry_view

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
SEED = "the negative tests' seed"
GM = Reader(1, "gm")


def _campaign(tally):
    c = cc.fold_campaign(
        1,
        seal(cc.create_campaign(1, "gm", name="C", system=tally, house_rules={}), head_seq=0, head_hash=None, at="t0"),
    )
    return cc.fold_campaign(
        1,
        seal(
            cc.add_member(c, 1, user=2, name="u2", role="player"), head_seq=c.head_seq, head_hash=c.head_hash, at="t1"
        ),
        c,
    )


def _scene_log(tally, *, opened_body=None):
    """A scene opened, two posts with rolls, closed with its seed revealed: the sealed entries.

    ``opened_body`` rewrites the opening entry's body, and the whole log is then sealed
    again entry by entry, so the chain stays consistent (every later entry links to the
    rewritten one) and only the rewritten piece is wrong.
    """
    c = _campaign(tally)
    drafts, _ = sc.open_scene(c, 1, scene_id=7, title="S", seed=SEED)
    entries = seal(drafts, head_seq=0, head_hash=None, at="t2")
    s = sc.fold_scene(7, entries)
    for text, dice in (("first", "d20"), ("second", "3d6")):
        new = seal(
            sc.write_post(c, s, 2, kind="ooc", text=text, now=NOW, seed=SEED, system=tally, rolls=[{"dice": dice}]),
            head_seq=s.head_seq,
            head_hash=s.head_hash,
            at=NOW.isoformat(),
        )
        s = sc.fold_scene(7, new, s)
        entries += new
    entries += seal([Draft("scene.closed", 1, {"seed": SEED})], head_seq=s.head_seq, head_hash=s.head_hash, at="t9")
    if opened_body is None:
        return entries
    resealed: list = []
    for e in entries:
        body = opened_body(dict(e.body)) if e.kind == "scene.opened" else e.body
        [again] = seal(
            [Draft(e.kind, e.actor, body, audience=e.audience, rolls=e.rolls)],
            head_seq=resealed[-1].seq if resealed else 0,
            head_hash=resealed[-1].hash if resealed else None,
            at=e.at,
        )
        resealed.append(again)
    return resealed


def _export(entries, reader=GM, seed=SEED):
    return {"format": EXPORT_FORMAT, "scenes": [{"id": 7, "log": [entry_view(e, reader, seed) for e in entries]}]}


def _kinds(doc):
    return [e["kind"] for e in doc["scenes"][0]["log"]]


@pytest.fixture
def good(tally):
    doc = _export(_scene_log(tally))
    report = verify_export(doc)  # the untouched export is accepted: every refusal below is the change's doing
    assert report["ok"] and report["logs"][0]["rolls_replayed"] == 2 and report["logs"][0]["seed_revealed"]
    return doc


# --- a body that disagrees with its digest ---------------------------------------------------------


@pytest.mark.parametrize("index", [0, 1, 2])
def test_a_changed_body_is_named_by_its_entry(good, index) -> None:
    doc = copy.deepcopy(good)
    entry = doc["scenes"][0]["log"][index]
    entry["body"]["text" if "text" in entry["body"] else "title"] = "rewritten afterwards"
    with pytest.raises(VerificationError, match=rf"scene 7, entry {entry['seq']}\b.*hash does not match"):
        verify_export(doc)


def test_a_body_digest_that_disagrees_with_the_shown_body_is_refused(good) -> None:
    """An entry exported with its body *and* a digest of another body: the body shown is the one checked."""
    doc = copy.deepcopy(good)
    entry = doc["scenes"][0]["log"][1]
    honest = sha256_hex(canonical_json(entry["body"]))
    entry["body"] = {**entry["body"], "text": "not what was posted"}
    entry["body_sha256"] = honest  # the digest still names the original body
    with pytest.raises(VerificationError, match="entry 2"):
        verify_export(doc)


def test_a_withheld_body_replaced_by_a_wrong_digest_is_refused(good) -> None:
    """A private body shown only as its digest: a digest of anything else breaks the entry's hash."""
    doc = copy.deepcopy(good)
    entry = doc["scenes"][0]["log"][2]
    del entry["body"]
    entry["body_sha256"] = sha256_hex(canonical_json({"text": "something else"}))
    with pytest.raises(VerificationError, match=r"entry 3.*hash does not match"):
        verify_export(doc)


def test_the_right_digest_in_place_of_a_body_is_accepted(good) -> None:
    """The converse, so the refusal above is about the digest's value and not about the body being absent."""
    doc = copy.deepcopy(good)
    entry = doc["scenes"][0]["log"][2]
    entry["body_sha256"] = sha256_hex(canonical_json(entry.pop("body")))
    assert verify_export(doc)["ok"]


def test_a_changed_roll_is_refused(good) -> None:
    doc = copy.deepcopy(good)
    roll = doc["scenes"][0]["log"][1]["rolls"][0]
    roll["total"] = roll.get("total", 0) + 1 if isinstance(roll.get("total"), int) else 999
    with pytest.raises(VerificationError, match="entry 2"):
        verify_export(doc)


def test_a_changed_revealed_seed_is_refused(good) -> None:
    doc = copy.deepcopy(good)
    doc["scenes"][0]["log"][-1]["body"]["seed"] = "another seed"
    with pytest.raises(VerificationError, match=r"entry 4\b"):
        verify_export(doc)


# --- a missing seed commitment -----------------------------------------------------------------------


def _without_commitment(body):
    return {k: v for k, v in body.items() if "seed" not in k and "commit" not in k}


def test_a_seed_revealed_without_a_commitment_is_refused(tally) -> None:
    """The opening entry published no commitment (the chain is otherwise whole and consistent).

    Without a commitment the revealed seed proves nothing: the server could have chosen it
    after seeing the posts. The verifier must refuse rather than replay from it.
    """
    entries = _scene_log(tally, opened_body=_without_commitment)
    assert entries[0].kind == "scene.opened" and not any("seed" in k for k in entries[0].body)
    with pytest.raises(VerificationError, match=r"entry 4.*(commit|hash published)"):
        verify_export(_export(entries))


def test_a_commitment_removed_from_an_export_is_refused(good) -> None:
    """The same without re-sealing: deleting the commitment from the export breaks the opening entry."""
    doc = copy.deepcopy(good)
    opened = doc["scenes"][0]["log"][0]
    assert opened["kind"] == "scene.opened"
    opened["body"] = _without_commitment(opened["body"])
    with pytest.raises(VerificationError, match=r"entry 1\b"):
        verify_export(doc)


def test_a_log_without_its_opening_entry_is_refused(good) -> None:
    doc = copy.deepcopy(good)
    del doc["scenes"][0]["log"][0]
    assert _kinds(doc)[0] != "scene.opened"
    with pytest.raises(VerificationError):
        verify_export(doc)


def test_a_commitment_to_another_seed_is_refused(tally) -> None:
    """A commitment present but to a different seed than the one revealed."""

    def other(body):
        return {**body, **{k: sha256_hex("a different seed") for k in body if k == "seed_sha256"}}

    entries = _scene_log(tally, opened_body=other)
    assert entries[0].body.get("seed_sha256") == sha256_hex("a different seed")
    with pytest.raises(VerificationError, match="entry 4"):
        verify_export(_export(entries))


# --- what the report says about a genuine export ------------------------------------------------------


def test_the_report_counts_what_the_export_holds(tally, good) -> None:
    """The verifier's report, checked against how the export was built: every entry unsalted (sealed with no
    salt), none redacted, unsigned (no key given), two rolls shown and replayed from the revealed seed."""
    log = good["scenes"][0]["log"]
    r = verify_export(good)["logs"][0]
    assert r["entries"] == len(log)
    assert (r["redacted_entries"], r["unsalted_entries"], r["signed"]) == (0, len(log), False)
    assert (r["rolls_shown"], r["rolls_hidden"], r["rolls_replayed"], r["seed_revealed"]) == (2, 0, 2, True)


def test_before_the_reveal_nothing_is_replayed(tally) -> None:
    """An open scene (no closing entry, no seed): its rolls cannot be replayed yet, and the report says so."""
    entries = _scene_log(tally)[:-1]
    r = verify_export(_export(entries, seed=None))["logs"][0]
    assert (r["entries"], r["rolls_replayed"], r["seed_revealed"]) == (len(entries), 0, False)
