"""Each vectorised twin the simulation uses (systems/kalyr/twins.py) against its scalar rule, on every
input of a small domain (issue 14)."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from storymaster.systems.kalyr import twins
from storymaster.systems.kalyr.checks import group_margins, outnumbering_penalties
from storymaster.systems.kalyr.damage import halve_for_detailed
from storymaster.systems.kalyr.detailed import Standing, all_out_offence, beaten, blow, reach_after, reach_before
from storymaster.systems.kalyr.fight_state import Fighting, fudge_to_spend, is_critical
from storymaster.systems.kalyr.options import KalyrHouseRules
from storymaster.systems.kalyr.simple import contest_result, group_winner
from storymaster.systems.kalyr.wounds import BOXES, DEFEATED, DESTROYED, open_box_in, severity_for_damage

# every way a track's boxes can be marked: 0..3 Scratches, 0..1 of each other level
TRACKS = list(product(*(range(BOXES[b] + 1) for b in range(1, DESTROYED + 1))))


def _arr(xs) -> np.ndarray:
    return np.array(xs, dtype=np.int64)


def test_every_track_is_covered():
    assert len(TRACKS) == 4 * 2**4


def test_status_and_out_twins():
    used = _arr(TRACKS)
    assert twins.status_v(used).tolist() == [Fighting(u, 0).status for u in TRACKS]
    for w in (0, 1):
        got = twins.is_out_v(used, np.full(len(used), w)).tolist()
        assert got == [Fighting(u, 0, bool(w)).out for u in TRACKS]


def test_open_box_and_mark_twins():
    rows = [(u, sev) for u in TRACKS for sev in range(1, DESTROYED + 1)]
    used, sev = _arr([u for u, _ in rows]), _arr([s for _, s in rows])
    with np.errstate(all="raise"):  # the simulation's round must not divide by zero or overflow anywhere
        box = twins.open_box_in_v(used, sev)
    assert box.tolist() == [open_box_in(u, s) or 0 for u, s in rows]
    marked = twins.mark_box_v(used, box).tolist()
    for (u, _), b, m in zip(rows, box.tolist(), marked, strict=True):
        assert m == [x + (i == b) for i, x in enumerate(u, 1)]


@pytest.mark.parametrize("limit", [None, DEFEATED, DESTROYED])
def test_fudge_to_spend_twin(limit):
    rows = [(u, f, sev) for u in TRACKS for f in range(4) for sev in range(DESTROYED + 1)]
    got = twins.fudge_to_spend_v(
        _arr([r[0] for r in rows]), _arr([r[1] for r in rows]), _arr([r[2] for r in rows]), limit
    )
    assert got.tolist() == [fudge_to_spend(u, f, sev, limit) for u, f, sev in rows]


def test_damage_twins():
    pts = np.arange(-20, 21)
    assert twins.severity_for_damage_v(pts).tolist() == [severity_for_damage(p) for p in pts.tolist()]
    assert twins.halve_for_detailed_v(pts).tolist() == [halve_for_detailed(p) for p in pts.tolist()]


@pytest.mark.parametrize("rule", ["dice_plus_4", "margin_3"])
def test_is_critical_twin(rule):
    hr = KalyrHouseRules(critical_rule=rule)
    rows = list(product(range(-4, 5), range(-10, 11)))
    got = twins.is_critical_v(hr, _arr([d for d, _ in rows]), _arr([m for _, m in rows]))
    assert got.tolist() == [is_critical(hr, d, m) for d, m in rows]


@pytest.mark.parametrize("aoo", list(product([False, True], repeat=2)))
def test_all_out_offence_twin(aoo):
    winners = [None, 0, 1]
    w, bonus = twins.all_out_offence_v(aoo, _arr([twins.NONE if x is None else x for x in winners]))
    want = [all_out_offence(aoo, x) for x in winners]
    assert w.tolist() == [twins.NONE if x is None else x for x, _ in want]
    assert bonus.tolist() == [list(b) for _, b in want]


def _standing(need, aod) -> Standing:
    return Standing(
        parts=((), ()),
        need=need,
        aim=(None, None),
        aoo=(False, False),
        aod=aod,
        rank=(1, 1),
        reach_live=False,
        close_vs_long=False,
        shorter=0,
        dice=None,  # type: ignore[arg-type]
        scope_levels=(None, None),
    )


@pytest.mark.parametrize("rule", ["dice_plus_4", "margin_3"])
def test_blow_twin(rule):
    """Every winner, result pair, dice pair and reach standing, for three minimums to hit and each all-out defence."""
    hr = KalyrHouseRules(critical_rule=rule)
    rows = [
        (w, r0, r1, d0, d1, c0, c1)
        for w in (0, 1)
        for r0, r1 in product(range(-3, 4), repeat=2)
        for d0, d1 in product((-4, 0, 3, 4), repeat=2)
        for c0, c1 in product((False, True), repeat=2)
    ]
    cols = [np.array(c) for c in zip(*rows, strict=True)]
    for need, aod in product([(None, None), (-1, 2), (1, 0)], product((False, True), repeat=2)):
        sd = _standing(need, aod)
        got = twins.blow_v(sd, hr, cols[0], (cols[1], cols[2]), (cols[3], cols[4]), (cols[5], cols[6]))
        want = [twins.KINDS.index(blow(sd, hr, w, [r0, r1], (d0, d1), [c0, c1])) for w, r0, r1, d0, d1, c0, c1 in rows]
        assert got.tolist() == want


@pytest.mark.parametrize(("k", "m"), [(1, 1), (1, 2), (2, 1), (2, 2), (1, 3), (3, 2)])
def test_group_winner_and_margins_twins(k, m):
    rows = list(product(range(-2, 3), repeat=k + m))
    own, other = _arr([r[:k] for r in rows]), _arr([r[k:] for r in rows])
    assert twins.group_winner_v(own, other).tolist() == [
        twins.NONE if (x := group_winner(list(r[:k]), list(r[k:]))) is None else x for r in rows
    ]
    assert twins.group_margins_v(own, other).tolist() == [group_margins(r[:k], r[k:]) for r in rows]


@pytest.mark.parametrize(("n", "foes"), [(1, 1), (1, 2), (1, 3), (2, 3), (2, 5), (3, 7)])
@pytest.mark.parametrize("cap", [None, 1])
def test_outnumbering_penalties_twin(n, foes, cap):
    rows = list(product(range(-2, 3), repeat=n))
    got = twins.outnumbering_penalties_v(_arr(rows), foes, cap)
    assert got.tolist() == [outnumbering_penalties(list(r), foes, cap) for r in rows]


def _reach_standing(rank: tuple[int, int], live: bool) -> Standing:
    return Standing(
        parts=((), ()),
        need=(None, None),
        aim=(None, None),
        aoo=(False, False),
        aod=(False, False),
        rank=rank,
        reach_live=live,
        close_vs_long=sorted(rank) == [0, 2],
        shorter=0 if rank[0] < rank[1] else 1,
        dice=None,  # type: ignore[arg-type]
        scope_levels=(None, None),
    )


def _n(x):
    return twins.NONE if x is None else int(x)


REACH_STANDINGS = [_reach_standing(r, live) for r in [(0, 2), (2, 0), (1, 2), (1, 1)] for live in (False, True)]


@pytest.mark.parametrize("sd", REACH_STANDINGS)
def test_reach_before_twin(sd):
    rows = list(product([None, 0, 1], [False, True], [False, True]))
    cols = [_arr([_n(r) for r, _, _ in rows]), _arr([i for _, i, _ in rows]), _arr([f for _, _, f in rows])]
    got = [x.tolist() for x in twins.reach_before_v(sd, *cols)]
    want = [reach_before(sd, r, i, f) for r, i, f in rows]
    assert got == [[_n(w[k]) if k < 3 else bool(w[k]) for w in want] for k in range(4)]


@pytest.mark.parametrize("sd", REACH_STANDINGS)
@pytest.mark.parametrize("detailed_reach", [False, True])
def test_reach_after_twin(sd, detailed_reach):
    rows = list(product([None, 0, 1], [False, True], [False, True], [None, 0, 1]))
    cols = [_arr([_n(r[0]) for r in rows]), _arr([r[1] for r in rows]), _arr([r[2] for r in rows])]
    inside, reach = twins.reach_after_v(sd, detailed_reach, *cols, _arr([_n(r[3]) for r in rows]))
    want = [reach_after(sd, detailed_reach, *r) for r in rows]
    assert inside.tolist() == [w[0] for w in want] and reach.tolist() == [_n(w[1]) for w in want]


@pytest.mark.parametrize("withdraw", list(product([None, 1, 2, 3], repeat=2)))
def test_beaten_twin(withdraw):
    rows = list(product(range(DESTROYED + 1), repeat=2))
    lost, by_withdrawal = twins.beaten_v(_arr([a for a, _ in rows]), _arr([b for _, b in rows]), withdraw)
    want = [beaten(r, withdraw) for r in rows]
    assert lost.tolist() == [_n(w[0]) for w in want] and by_withdrawal.tolist() == [w[1] for w in want]


@pytest.mark.parametrize("on_tie", ["reroll", "draw"])
def test_contest_result_twin(on_tie):
    rows = list(product([None, 0, 1], [False, True], [False, True]))
    over, winner = twins.contest_result_v(
        _arr([_n(o) for o, _, _ in rows]), on_tie, _arr([a for _, a, _ in rows]), _arr([b for _, _, b in rows])
    )
    want = [contest_result(o, on_tie, (a, b)) for o, a, b in rows]
    assert over.tolist() == [w[0] for w in want] and winner.tolist() == [_n(w[1]) for w in want]
