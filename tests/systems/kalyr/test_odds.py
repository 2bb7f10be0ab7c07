"""Exact odds against brute-force enumeration over every face of every Fudge die."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from storymaster.dice import DiceRng
from storymaster.odds import distribution
from storymaster.systems.kalyr import SYSTEM
from storymaster.systems.kalyr.checks import AbilityRoll, GroupCheck, OpenCheck, OpposedCheck, UnopposedCheck, roll_pmf
from storymaster.systems.kalyr.ladder import level_name

FACES = (-1, 0, 1)


def brute_4df() -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for dice in itertools.product(FACES, repeat=4):
        out[sum(dice)] = out.get(sum(dice), Fraction(0)) + Fraction(1, 81)
    return out


def test_four_fudge_dice_distribution_is_the_books():
    counts = [int(p * 81) for _, p in sorted(brute_4df().items())]
    assert counts == [1, 4, 10, 16, 19, 16, 10, 4, 1]
    assert distribution("4dF").pmf() == brute_4df()


@pytest.mark.parametrize("ability", range(-3, 4))
@pytest.mark.parametrize("difficulty", range(-3, 4))
def test_unopposed_p_success_matches_brute_force(ability, difficulty):
    want = sum(
        (Fraction(1, 81) for d in itertools.product(FACES, repeat=4) if ability + sum(d) >= difficulty), Fraction(0)
    )
    odds = SYSTEM.odds(UnopposedCheck(actor=AbilityRoll(ability=ability), difficulty=difficulty))
    assert odds.p_success == want


def test_good_against_great_is_31_in_81():
    odds = SYSTEM.odds(UnopposedCheck(actor=AbilityRoll(ability="Good"), difficulty="Great"))
    assert odds.p_success == Fraction(31, 81)


@pytest.mark.parametrize("a,b", [(1, 0), (0, 0), (-2, 3), (3, -3)])
def test_opposed_matches_brute_force_over_eight_dice(a, b):
    win = tie = lose = Fraction(0)
    for dice in itertools.product(FACES, repeat=8):
        x, y = a + sum(dice[:4]), b + sum(dice[4:])
        p = Fraction(1, 3**8)
        if x > y:
            win += p
        elif x == y:
            tie += p
        else:
            lose += p
    odds = SYSTEM.odds(OpposedCheck(actor=AbilityRoll(ability=a), opponent=AbilityRoll(ability=b)))
    assert (odds.extra["p_win"], odds.extra["p_tie"], odds.extra["p_lose"]) == (win, tie, lose)
    assert odds.p_success == win


def test_good_vs_fair_exact():
    odds = SYSTEM.odds(OpposedCheck(actor=AbilityRoll(ability="Good"), opponent=AbilityRoll(ability="Fair")))
    assert odds.extra["p_win"] == Fraction(142, 243)
    assert odds.extra["p_tie"] == Fraction(1016, 6561)


@pytest.mark.parametrize("combine", ["best", "worst"])
@pytest.mark.parametrize("a,b", [(0, 1), (1, 1), (-1, 2)])
def test_two_abilities_match_brute_force(combine, a, b):
    r = AbilityRoll(ability=a, second=b, combine=combine)
    if not r.rolls_two():  # best-of needs both Fair or better: only the better is rolled
        want = {max(a, b) + s: p for s, p in brute_4df().items()}
    else:
        want = {}
        for dice in itertools.product(FACES, repeat=8):
            x, y = a + sum(dice[:4]), b + sum(dice[4:])
            v = max(x, y) if combine == "best" else min(x, y)
            want[v] = want.get(v, Fraction(0)) + Fraction(1, 3**8)
    assert roll_pmf(r) == dict(sorted(want.items()))


def test_best_of_two_below_fair_rolls_once():
    r = AbilityRoll(ability="Mediocre", second="Good", combine="best")
    assert not r.rolls_two()
    assert roll_pmf(r) == {1 + s: p for s, p in brute_4df().items()}


def test_group_contest_matches_brute_force_two_against_one():
    check = GroupCheck(side=(AbilityRoll(ability=0), AbilityRoll(ability=1)), opposition=(AbilityRoll(ability=1),))
    # the lone fighter is outnumbered 2:1: -1
    win = tie = Fraction(0)
    for dice in itertools.product(FACES, repeat=12):
        a = (0 + sum(dice[0:4]) + 1 + sum(dice[4:8])) / 2
        b = 1 - 1 + sum(dice[8:12])
        if a > b:
            win += Fraction(1, 3**12)
        elif a == b:
            tie += Fraction(1, 3**12)
    odds = SYSTEM.odds(check)
    assert odds.extra["p_win"] == win and odds.extra["p_tie"] == tie


def test_automatic_plus_two_is_certain():
    odds = SYSTEM.odds(UnopposedCheck(actor=AbilityRoll(ability="Fair", automatic=True), difficulty="Good"))
    assert odds.probabilities == {"Great": Fraction(1)}
    assert odds.p_success == 1


def test_open_check_has_no_success_but_a_full_distribution():
    odds = SYSTEM.odds(OpenCheck(actor=AbilityRoll(ability="Superb")))
    assert odds.p_success == 0
    assert odds.probability("Superb+4") == Fraction(1, 81)
    assert sum(odds.probabilities.values()) == 1


def test_partial_odds():
    odds = SYSTEM.odds(UnopposedCheck(actor=AbilityRoll(ability="Fair"), difficulty="Good", partial="Fair"))
    assert odds.extra["p_partial"] == Fraction(19, 81)
    assert odds.extra["p_fail"] == 1 - odds.p_success  # a partial success is still short of the difficulty


levels = st.integers(-3, 3)
rolls = st.builds(
    AbilityRoll,
    ability=levels,
    modifier=st.integers(-2, 2),
    second=st.one_of(st.none(), levels),
    combine=st.sampled_from(["best", "worst"]),
)
checks = st.one_of(
    st.builds(UnopposedCheck, actor=rolls, difficulty=levels),
    st.builds(OpenCheck, actor=rolls),
    st.builds(OpposedCheck, actor=rolls, opponent=rolls),
    st.builds(
        GroupCheck,
        side=st.lists(rolls, min_size=1, max_size=3).map(tuple),
        opposition=st.lists(rolls, min_size=1, max_size=3).map(tuple),
    ),
)


@settings(max_examples=60)
@given(check=checks, seed=st.integers(0, 10**6))
def test_every_resolved_outcome_has_nonzero_odds(check, seed):
    odds = SYSTEM.odds(check)
    out = SYSTEM.resolve(check, DiceRng(seed))
    assert odds.probability(out.result) > 0
    assert sum(odds.probabilities.values()) == 1
    if out.success is not None:
        assert out.success == (out.result in odds.success_outcomes)


def test_frequencies_agree_with_odds():
    check = OpposedCheck(actor=AbilityRoll(ability="Good"), opponent=AbilityRoll(ability="Fair"))
    rng = DiceRng("freq")
    n = 4000
    wins = sum(SYSTEM.resolve(check, rng).result == "win" for _ in range(n))
    p = float(SYSTEM.odds(check).extra["p_win"])
    sd = (p * (1 - p) / n) ** 0.5
    assert abs(wins / n - p) < 4 * sd


def test_results_beyond_the_ladder_are_named():
    assert level_name(5) == "Superb+2"
    assert level_name(-5) == "Terrible-2"
