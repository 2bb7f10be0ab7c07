"""``verify`` accepts only what the log proves (issue 16): the attacks on the verifier, without a server."""

from __future__ import annotations

import contextlib
import copy
import json
import secrets

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from storymaster.errors import VerificationError
from storymaster.play import campaign as cc
from storymaster.play import scene as sc
from storymaster.play.log import Draft, seal
from storymaster.play.rolling import roll_requests
from storymaster.play.verify import EXPORT_FORMAT, MAX_DEPTH, verify_export, verify_log, verify_text
from storymaster.play.views import Reader, entry_view

SEED = "the scene's secret seed, for the tests"
GM = Reader(1, "gm")


def salt() -> str:
    return secrets.token_hex(16)


def _table(tally, scene_id: int = 1):
    c = cc.fold_campaign(
        1,
        seal(cc.create_campaign(1, "gm", name="C", system=tally, house_rules={}), head_seq=0, head_hash=None, at="t0"),
    )
    c = cc.fold_campaign(
        1,
        seal(cc.add_member(c, 1, user=2, name="p", role="player"), head_seq=c.head_seq, head_hash=c.head_hash, at="t1"),
        c,
    )
    opened = seal(
        sc.open_scene(c, 1, scene_id=scene_id, title="S", seed=SEED)[0], head_seq=0, head_hash=None, at="t2", salt=salt
    )
    return c, sc.fold_scene(scene_id, opened), list(opened)


def _append(s, log, drafts, at="t3"):
    new = seal(drafts, head_seq=s.head_seq, head_hash=s.head_hash, at=at, salt=salt)
    return sc.fold_scene(s.id, new, s), log + new


def _views(log, seed=SEED):
    return [entry_view(e, GM, seed) for e in log]


def test_a_post_appended_after_the_close_with_a_genuine_roll_is_refused(tally) -> None:
    c, s, log = _table(tally)
    s, log = _append(
        s, log, sc.write_post(c, s, 2, kind="ooc", text="a", now=None, seed=SEED, system=tally, rolls=[{"dice": "d20"}])
    )
    s, log = _append(s, log, sc.close_scene(c, s, 1, seed=SEED)[0])
    assert verify_log(_views(log), name="scene 1", scene_id=1)["rolls_replayed"] == 1
    # the forger knows the seed now: a genuine roll on the right stretch, linked after the close
    items, _ = roll_requests(
        [{"dice": "d20"}], by=2, seed=SEED, scene_id=1, counter=s.next_counter, system=tally, house_rules={}
    )
    late = seal(
        [Draft("post.created", 2, {"kind": "ooc", "text": "I rolled a 20 earlier"}, rolls=tuple(items))],
        head_seq=s.head_seq,
        head_hash=s.head_hash,
        at="t9",
        salt=salt,
    )
    with pytest.raises(VerificationError, match=f"scene 1, entry {late[0].seq}: comes after the scene closed"):
        verify_log(_views(log + late), name="scene 1", scene_id=1)


def test_a_die_from_another_stream_with_the_same_prefix_is_refused(tally) -> None:
    c, s, log = _table(tally, scene_id=1)
    # scene 12's stream starts with scene 1's name; the forger picks a good die from it
    items, _ = roll_requests([{"dice": "d20"}], by=2, seed=SEED, scene_id=12, counter=0, system=tally, house_rules={})
    assert items[0]["records"][0]["stream"] == "scene:12"
    s, log = _append(s, log, [Draft("post.created", 2, {"kind": "ooc", "text": "lucky"}, rolls=tuple(items))])
    s, log = _append(s, log, sc.close_scene(c, s, 1, seed=SEED)[0])
    with pytest.raises(VerificationError, match="scene 1, entry 2: a roll is on stream 'scene:12', not exactly"):
        verify_log(_views(log), name="scene 1", scene_id=1)


def test_a_roll_outside_its_stretch_is_refused_even_before_the_reveal(tally) -> None:
    _c, s, log = _table(tally)
    items, _ = roll_requests([{"dice": "d20"}], by=2, seed=SEED, scene_id=1, counter=5, system=tally, house_rules={})
    items[0]["counter"] = [0, 1]  # claims the start of the stream, drew from further on
    s, log = _append(s, log, [Draft("post.created", 2, {"kind": "ooc", "text": "x"}, rolls=tuple(items))])
    with pytest.raises(VerificationError, match="entry 2: a roll's record lies outside the stretch"):
        verify_log(_views(log, None), name="scene 1", scene_id=1)


def test_an_unsalted_entry_in_a_salted_log_is_refused(tally) -> None:
    _c, s, log = _table(tally)
    unsalted = seal(
        [Draft("post.created", 2, {"kind": "ooc", "text": "x"})], head_seq=s.head_seq, head_hash=s.head_hash, at="t3"
    )
    with pytest.raises(VerificationError, match="entry 2: is unsalted in a log that salts"):
        verify_log(_views(log + unsalted), name="scene 1", scene_id=1)


def test_a_version_1_log_still_verifies_the_old_way(tally) -> None:
    """Logs written before salting keep verifying, and the report says they are unsalted and unsigned."""
    c = cc.fold_campaign(
        1,
        seal(cc.create_campaign(1, "gm", name="C", system=tally, house_rules={}), head_seq=0, head_hash=None, at="t0"),
    )
    old = seal(sc.open_scene(c, 1, scene_id=1, title="S", seed=SEED)[0], head_seq=0, head_hash=None, at="t2")
    s = sc.fold_scene(1, old)
    new = seal(
        [Draft("post.created", 1, {"kind": "ooc", "text": "after the upgrade"})],
        head_seq=s.head_seq,
        head_hash=s.head_hash,
        at="t3",
        salt=salt,
    )
    doc = {"format": EXPORT_FORMAT, "scenes": [{"id": 1, "log": _views(old + new, None)}]}
    with pytest.raises(VerificationError, match="salted logs come only in signed"):
        verify_export(doc)  # a v1 export never holds salted entries
    report = verify_export({"format": EXPORT_FORMAT, "scenes": [{"id": 1, "log": _views(old, None)}]})
    assert report["version"] == 1 and not report["signed"] and "warning" in report
    assert report["logs"][0]["unsalted_entries"] == 1


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    "text",
    [
        _nested(100_000),
        json.dumps({"format": EXPORT_FORMAT, "version": 1, "scenes": [{"id": 1, "log": json.loads(_nested(500))}]}),
        json.dumps({"format": EXPORT_FORMAT, "version": 2, "scenes": "no"}),
        json.dumps({"format": EXPORT_FORMAT, "version": 1, "scenes": [{"id": 1, "log": [{"seq": 1}]}]}),
        json.dumps({"format": EXPORT_FORMAT, "version": 1, "scenes": [{"id": 1, "log": [[1]]}]}),
        json.dumps({"format": EXPORT_FORMAT, "version": 1, "campaign": [], "scenes": []}),
        json.dumps({"format": EXPORT_FORMAT, "version": {"a": 1}}),
        json.dumps({"format": EXPORT_FORMAT, "version": 2, "key": {"public": "x"}, "scenes": [7]}),
        '{"format": "storymaster-table-export", "version": NaN}',
        "[1, 2",
    ],
)
def test_odd_shapes_are_a_clear_verification_error(text: str) -> None:
    with pytest.raises(VerificationError):
        verify_text(text)


def test_the_cli_exits_2_on_a_deeply_nested_export(cli, tmp_path) -> None:
    path = tmp_path / "deep.json"
    path.write_text(_nested(200_000))
    result = cli("verify", str(path))
    assert result.exit_code == 2, result.output
    path.write_text(
        json.dumps({"format": EXPORT_FORMAT, "scenes": [{"id": 1, "log": json.loads(_nested(MAX_DEPTH + 5))}]})
    )
    assert cli("verify", str(path)).exit_code == 2


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=30,
)
entry_keys = st.sampled_from(
    [
        "seq",
        "kind",
        "at",
        "actor",
        "audience",
        "body",
        "rolls",
        "prev",
        "hash",
        "salt",
        "commit",
        "redacted",
        "body_sha256",
        "sig",
    ]
)


@given(
    st.lists(st.dictionaries(entry_keys, json_values, max_size=8), max_size=4),
    st.sampled_from([1, 2]),
    json_values,
)
def test_any_shape_is_verified_or_refused_never_a_crash(log, version, junk) -> None:
    doc = {"format": EXPORT_FORMAT, "version": version, "key": {"public": junk}, "scenes": [{"id": 1, "log": log}]}
    with contextlib.suppress(VerificationError):
        verify_export(doc)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=40)  # the fixture is read-only
@given(st.integers(min_value=0, max_value=40), st.sampled_from(["text", "rolls", "seq", "prev", "salt"]))
def test_a_real_log_with_any_one_part_changed_is_refused(tally, n, part) -> None:
    c, s, log = _table(tally)
    for i in range(3):
        s, log = _append(
            s,
            log,
            sc.write_post(
                c, s, 2, kind="ooc", text=f"post {i}", now=None, seed=SEED, system=tally, rolls=[{"dice": "d6"}]
            ),
        )
    s, log = _append(s, log, sc.close_scene(c, s, 1, seed=SEED)[0])
    views = _views(log)
    verify_log(views, name="scene 1", scene_id=1)
    bad = copy.deepcopy(views)
    target = bad[1 + n % 3]
    if part == "text":
        target["body"]["text"] += "!"
    elif part == "rolls":
        target["rolls"][0]["total"] += 1
    elif part == "seq":
        target["seq"] += 1
    elif part == "prev":
        target["prev"] = "f" * 64
    else:
        target["salt"] = "0" * 32
    with pytest.raises(VerificationError, match=f"entry {target['seq'] if part != 'seq' else 2 + n % 3}"):
        verify_log(bad, name="scene 1", scene_id=1)
