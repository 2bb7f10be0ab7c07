"""The hash chain and the offline verifier, without a server."""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from storymaster.errors import CharacterError, VerificationError
from storymaster.play import campaign as cc
from storymaster.play import scene as sc
from storymaster.play.chain import GENESIS, canonical_json
from storymaster.play.errors import Conflict, Forbidden
from storymaster.play.log import Draft, seal
from storymaster.play.verify import EXPORT_FORMAT, verify_export, verify_log
from storymaster.play.views import Reader, entry_view

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
SEED = "a fixed seed for the tests"


def test_entry_hash_is_sha256_of_prev_and_canonical_core() -> None:
    [e] = seal([Draft("x", 1, {"b": 2, "a": "é"})], head_seq=0, head_hash=None, at="t")
    core = e.core()
    assert e.prev == GENESIS
    assert (
        e.hash
        == hashlib.sha256(
            (GENESIS + json.dumps(core, sort_keys=True, separators=(",", ":"), ensure_ascii=False)).encode()
        ).hexdigest()
    )
    assert canonical_json({"b": 1, "a": [1, 2]}) == '{"a":[1,2],"b":1}'


@given(
    st.lists(
        st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=10), max_size=4), min_size=1, max_size=8
    )
)
def test_any_chain_verifies_and_any_change_is_named(bodies) -> None:
    entries = seal([Draft("note", 1, b) for b in bodies], head_seq=0, head_hash=None, at="2026-01-01T00:00:00+00:00")
    log = [e.to_json() for e in entries]
    assert verify_log(log, name="log")["entries"] == len(bodies)
    bad = copy.deepcopy(log)
    bad[-1]["body"]["__changed__"] = 1
    with pytest.raises(VerificationError, match=f"entry {len(bodies)}"):
        verify_log(bad, name="log")
    if len(log) > 2:  # an entry taken out of the middle (cutting the tail shows as a different head hash)
        with pytest.raises(VerificationError, match="entry 3"):
            verify_log([log[0], *log[2:]], name="log")


def _campaign_and_scene(tally):
    c = cc.fold_campaign(
        1,
        seal(cc.create_campaign(1, "gm", name="C", system=tally, house_rules={}), head_seq=0, head_hash=None, at="t0"),
    )
    for user, role in ((2, "player"), (3, "player")):
        c = cc.fold_campaign(
            1,
            seal(
                cc.add_member(c, 1, user=user, name=f"u{user}", role=role),
                head_seq=c.head_seq,
                head_hash=c.head_hash,
                at="t1",
            ),
            c,
        )
    scene_drafts, _ = sc.open_scene(c, 1, scene_id=7, title="S", seed=SEED)
    s = sc.fold_scene(7, seal(scene_drafts, head_seq=0, head_hash=None, at="t2"))
    return c, s


def _write(c, s, actor, **kw):
    drafts = sc.write_post(c, s, actor, now=NOW, seed=SEED, system=kw.pop("system"), **kw)
    entries = seal(drafts, head_seq=s.head_seq, head_hash=s.head_hash, at=NOW.isoformat())
    return sc.fold_scene(s.id, entries, s), entries


def _export(entries, reader, seed):
    return {"format": EXPORT_FORMAT, "scenes": [{"id": 7, "log": [entry_view(e, reader, seed) for e in entries]}]}


def test_rolls_chain_on_one_stream_and_replay_after_the_reveal(tally) -> None:
    c, s = _campaign_and_scene(tally)
    log = []
    from storymaster.play.log import seal as _seal

    opened = _seal(sc.open_scene(c, 1, scene_id=7, title="S", seed=SEED)[0], head_seq=0, head_hash=None, at="t2")
    log += opened
    for actor, rolls in (
        (2, [{"dice": "4d6kh3"}, {"check": {"type": "skill", "skill": 1}}]),
        (3, [{"dice": "d20", "visibility": "blind"}]),
    ):
        s, new = _write(c, s, actor, kind="ooc", text="roll", rolls=rolls, system=tally)
        log += new
    counters = [r["counter"] for e in log for r in e.rolls]
    assert counters[0][0] == 0 and all(a[1] == b[0] for a, b in itertools.pairwise(counters))
    # before the reveal, player 2 sees the blind roll as a digest only; the chain still verifies
    report = verify_export(_export(log, Reader(2, "player"), None))
    assert report["logs"][0]["rolls_hidden"] == 1 and not report["logs"][0]["seed_revealed"]
    closed = seal(sc.close_scene(c, s, 1, seed=SEED)[0], head_seq=s.head_seq, head_hash=s.head_hash, at="t9")
    log += closed
    report = verify_export(_export(log, Reader(2, "player"), SEED))
    assert report["logs"][0]["rolls_replayed"] == 3
    # a forged seed, a re-roll, or a changed die is caught
    doc = _export(log, Reader(1, "gm"), SEED)
    forged = copy.deepcopy(doc)
    forged["scenes"][0]["log"][-1]["body"]["seed"] = "another seed"
    with pytest.raises(VerificationError):
        verify_export(forged)
    with pytest.raises(Conflict, match="does not match the scene's commitment"):
        sc.close_scene(c, s, 1, seed="another seed")


def test_a_hidden_reroll_is_caught(tally) -> None:
    """A server that rolls twice and shows only the better roll leaves two rolls on one stretch of the stream."""
    c, s = _campaign_and_scene(tally)
    opened = seal(sc.open_scene(c, 1, scene_id=7, title="S", seed=SEED)[0], head_seq=0, head_hash=None, at="t2")
    s1, first = _write(c, s, 2, kind="ooc", text="a", rolls=[{"dice": "d20"}], system=tally)
    s.next_counter = 0  # the cheat: roll again from the same place
    drafts = sc.write_post(c, s1, 2, kind="ooc", text="b", now=NOW, seed=SEED, system=tally, rolls=[{"dice": "d20"}])
    from storymaster.play.rolling import roll_requests

    items, _ = roll_requests([{"dice": "d20"}], by=2, seed=SEED, scene_id=7, counter=0, system=tally, house_rules={})
    cheat = seal(
        [Draft(drafts[0].kind, 2, drafts[0].body, rolls=tuple(items))],
        head_seq=s1.head_seq,
        head_hash=s1.head_hash,
        at="t4",
    )
    closed = seal([Draft("scene.closed", 1, {"seed": SEED})], head_seq=cheat[-1].seq, head_hash=cheat[-1].hash, at="t5")
    log = opened + first + cheat + closed
    with pytest.raises(VerificationError, match="re-roll"):
        verify_export(_export(log, Reader(1, "gm"), SEED))


def test_turn_rules_in_the_fold(tally) -> None:
    c, _ = _campaign_and_scene(tally)
    for owner, name in ((2, "Arn"), (3, "Bel")):
        c = cc.fold_campaign(
            1,
            seal(
                cc.create_character(c, owner, system=tally, sheet={"name": name}),
                head_seq=c.head_seq,
                head_hash=c.head_hash,
                at="t",
            ),
            c,
        )
    arn, bel = sorted(c.characters)
    scene_drafts, _ = sc.open_scene(
        c, 1, scene_id=8, title="Fight", seed=SEED, mode="turn", cast=[arn, bel], turn_seconds=60
    )
    s = sc.fold_scene(8, seal(scene_drafts, head_seq=0, head_hash=None, at=NOW.isoformat()))
    assert s.owed() == []  # nobody owes before the GM opens the round
    s, _ = _write(c, s, 1, kind="ic", text="Go!", system=tally)
    assert s.round == 1 and s.owed() == [arn, bel]
    s, _ = _write(c, s, 2, kind="ic", character=arn, text="Arn goes.", system=tally)
    assert s.owed() == [bel]
    with pytest.raises(Conflict, match="already acted"):
        _write(c, s, 2, kind="ic", character=arn, text="Arn again.", system=tally)


def test_character_rules_come_from_the_system(tally) -> None:
    c, _ = _campaign_and_scene(tally)
    with pytest.raises(CharacterError, match="at most 3") as info:
        cc.create_character(c, 2, system=tally, sheet={"name": "Cheat", "skill": 9})
    assert info.value.code == "character-invalid" and "at most 3" in str(info.value)
    with pytest.raises(Forbidden, match="only for themselves"):
        cc.create_character(c, 2, system=tally, sheet={"name": "X"}, owner=3)
