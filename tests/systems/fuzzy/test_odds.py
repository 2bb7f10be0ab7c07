"""Exact odds against brute-force enumeration over every face (Fraction equality)."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import product

import pytest

from storymaster.errors import OddsError
from storymaster.systems.fuzzy import SYSTEM
from storymaster.systems.fuzzy.checks import AbilityCheck, ContestCheck, KarmaRoll, Lottery, Side
from storymaster.systems.fuzzy.options import FuzzyHouseRules
from storymaster.systems.fuzzy.rolls import bonus_die_distribution, roll_distribution

CAP = 2  # a small GM limit on the bonus die keeps brute force small
HOUSE = FuzzyHouseRules(critical_bonus_max_explosions=CAP)


def brute_bonus(cap: int) -> dict[int, Fraction]:
    """Every sequence of cap+1 d6, read as a bonus chain (stop at the first non-6; the last die always counts)."""
    out: dict[int, Fraction] = {}
    seqs = list(product(range(1, 7), repeat=cap + 1))
    for seq in seqs:
        total = 0
        for f in seq:
            total += f
            if f != 6:
                break
        out[total] = out.get(total, Fraction(0)) + Fraction(1, len(seqs))
    return out


def brute_roll(n: int, cap: int = CAP, one_die_check: bool = True) -> dict[tuple, Fraction]:
    """(critical, total) by enumerating every die: coloured pair first, or the one die and its check die."""
    out: dict[tuple, Fraction] = {}
    bonus = brute_bonus(cap)

    def add(k, p):
        out[k] = out.get(k, Fraction(0)) + p

    if n == 1:
        for face, second in product(range(1, 7), repeat=2):
            p = Fraction(1, 36)
            crit = None
            if one_die_check and face == second and face in (1, 6):
                crit = "success" if face == 6 else "failure"
            if crit == "success":
                for b, pb in bonus.items():
                    add((crit, face + b), p * pb)
            else:
                add((crit, face), p)
        return out
    for faces in product(range(1, 7), repeat=n):
        p = Fraction(1, 6**n)
        c1, c2 = faces[0], faces[1]
        crit = "success" if c1 == c2 == 6 else "failure" if c1 == c2 == 1 else None
        if crit == "success":
            for b, pb in bonus.items():
                add((crit, sum(faces) + b), p * pb)
        else:
            add((crit, sum(faces)), p)
    return out


@pytest.mark.parametrize("cap", [0, 1, 2, 3])
def test_bonus_die_distribution_matches_brute_force(cap):
    assert dict(bonus_die_distribution(cap)) == brute_bonus(cap)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_roll_distribution_matches_brute_force(n):
    assert dict(roll_distribution(n, HOUSE)) == brute_roll(n)


def test_one_die_without_the_second_die_option():
    h = FuzzyHouseRules(critical_bonus_max_explosions=CAP, one_die_second_die_for_criticals=False)
    assert dict(roll_distribution(1, h)) == brute_roll(1, one_die_check=False)
    assert SYSTEM.odds(AbilityCheck(dice=1, target=4), h).extra["p_critical_success"] == 0


def _brute_outcomes(n: int, target: int, mod: int = 0) -> dict[str, Fraction]:
    out: dict[str, Fraction] = {}
    for (crit, total), p in brute_roll(n).items():
        ok = total + mod >= target
        name = {
            ("success", True): "critical success",
            ("success", False): "critical success (still failed)",
            ("failure", True): "critical failure (still succeeded)",
            ("failure", False): "critical failure",
            (None, True): "success",
            (None, False): "failure",
        }[(crit, ok)]
        out[name] = out.get(name, Fraction(0)) + p
    return out


@pytest.mark.parametrize(
    "n,target,mod",
    [
        (1, 4, 0),
        (1, 7, 0),
        (1, 12, 0),
        (2, 7, 0),
        (2, 2, 0),
        (2, 13, 0),
        (3, 11, 0),
        (3, 14, 2),
        (3, 5, -1),
        (4, 14, 0),
        (4, 18, 1),
        (2, 20, 0),
    ],
)
def test_ability_odds_match_brute_force(n, target, mod):
    odds = SYSTEM.odds(AbilityCheck(dice=n, target=target, roll_modifier=mod), HOUSE)
    brute = _brute_outcomes(n, target, mod)
    assert dict(odds.probabilities) == {k: v for k, v in brute.items() if v}
    assert odds.p_success == sum(
        v for k, v in brute.items() if k in ("critical success", "success", "critical failure (still succeeded)")
    )
    assert odds.extra["p_critical_success"] == Fraction(1, 36)
    assert odds.extra["p_critical_failure"] == Fraction(1, 36)


def test_three_dice_against_hard_is_an_even_chance():
    """The book: a 3 'will succeed ... about half the time for hard tasks'."""
    odds = SYSTEM.odds(AbilityCheck(dice=3, target="hard"))
    assert odds.p_success == Fraction(1, 2)


@pytest.mark.parametrize("n,task", [(2, "average"), (3, "hard"), (4, "really hard"), (5, "nigh-impossible")])
def test_about_half_the_time_at_the_matching_difficulty(n, task):
    """'The Basics': each rating succeeds 'about half the time' at the task its dice average."""
    p = SYSTEM.odds(AbilityCheck(dice=n, target=task)).p_success
    assert Fraction(2, 5) < p < Fraction(3, 5)


def test_critical_failure_can_still_succeed_with_many_dice():
    """'If you have such manly dice pools that you can roll two 1s and still beat the difficulty number'."""
    odds = SYSTEM.odds(AbilityCheck(dice=5, target=7), HOUSE)
    # two 1s on the coloured dice and at least 5 on the other three
    p_rest = Fraction(sum(1 for f in product(range(1, 7), repeat=3) if sum(f) >= 5), 216)
    assert odds.probability("critical failure (still succeeded)") == Fraction(1, 36) * p_rest


def test_critical_success_can_still_fail_against_a_huge_target():
    odds = SYSTEM.odds(AbilityCheck(dice=2, target=30), FuzzyHouseRules(critical_bonus_max_explosions=3))
    assert odds.probability("critical success (still failed)") > 0
    assert odds.probability("critical success") == Fraction(1, 36) * Fraction(1, 6**3)


def test_truncated_tail_is_reported_and_exact():
    odds = SYSTEM.odds(AbilityCheck(dice=3, target=11), HOUSE)
    assert odds.truncated == Fraction(1, 36) * Fraction(1, 6) ** (CAP + 1)
    assert "at most 2 times" in odds.note
    default = SYSTEM.odds(AbilityCheck(dice=3, target=11))
    assert default.truncated == Fraction(1, 36) * Fraction(1, 6) ** 11


def test_penalties_reduce_dice_but_never_below_one():
    a = SYSTEM.odds(AbilityCheck(dice=2, target=4, penalty_dice=5), HOUSE)
    b = SYSTEM.odds(AbilityCheck(dice=1, target=4), HOUSE)
    assert dict(a.probabilities) == dict(b.probabilities)


def test_fit_and_narrower_skill_move_the_target():
    base = SYSTEM.odds(AbilityCheck(dice=3, target=12), HOUSE)
    assert dict(SYSTEM.odds(AbilityCheck(dice=3, target=11, fit="not quite"), HOUSE).probabilities) == dict(
        base.probabilities
    )
    assert dict(SYSTEM.odds(AbilityCheck(dice=3, target=10, fit="barely"), HOUSE).probabilities) == dict(
        base.probabilities
    )
    assert dict(SYSTEM.odds(AbilityCheck(dice=3, target=14, narrower_skill=2), HOUSE).probabilities) == dict(
        base.probabilities
    )


# -- contests --------------------------------------------------------------------------------------


@cache
def _brute_totals(n: int, mod: int = 0) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for (_, t), p in brute_roll(n).items():
        out[t + mod] = out.get(t + mod, Fraction(0)) + p
    return out


@pytest.mark.parametrize("a,b,ma,mb", [(1, 1, 0, 0), (2, 1, 0, 0), (2, 3, 1, -1), (3, 3, 0, 2)])
def test_contest_odds_match_brute_force(a, b, ma, mb):
    da, db = _brute_totals(a, ma), _brute_totals(b, mb)
    win = sum(pa * pb for (x, pa), (y, pb) in product(da.items(), db.items()) if x > y)
    tie = sum(pa * pb for (x, pa), (y, pb) in product(da.items(), db.items()) if x == y)
    check = ContestCheck(first=Side(name="A", dice=a, modifier=ma), second=Side(name="B", dice=b, modifier=mb))
    odds = SYSTEM.odds(check, HOUSE)
    assert odds.probabilities["A wins"] == win
    assert odds.probabilities["stand-off"] == tie
    assert odds.extra["p_win"] == win and odds.extra["p_tie"] == tie
    reroll = SYSTEM.odds(check, HOUSE.model_copy(update={"contest_ties": "reroll"}))
    assert reroll.probabilities["A wins"] == win / (1 - tie)
    defender = SYSTEM.odds(check, HOUSE.model_copy(update={"contest_ties": "defender"}))
    assert defender.probabilities["B wins"] == 1 - win


# -- Luck, Unluck and the lottery -------------------------------------------------------------------


def test_open_luck_roll_odds_are_the_total_distribution():
    odds = SYSTEM.odds(KarmaRoll(kind="luck", dice=2), HOUSE)
    assert {int(k): v for k, v in odds.probabilities.items()} == _brute_totals(2)


def test_luck_roll_against_a_target():
    odds = SYSTEM.odds(KarmaRoll(kind="unluck", dice=2, target=9), HOUSE)
    assert odds.p_success == sum(v for k, v in _brute_totals(2).items() if k >= 9)


def _brute_lottery(entrants: dict[str, int]) -> dict[str, Fraction]:
    """Roll-offs by brute force: enumerate one round jointly; a full tie repeats (geometric series)."""
    names = list(entrants)

    @cache
    def solve(group: tuple[str, ...]) -> dict[str, Fraction]:
        if len(group) == 1:
            return {group[0]: Fraction(1)}
        dists = [_brute_totals(entrants[n]) for n in group]
        res = {n: Fraction(0) for n in group}
        stay = Fraction(0)
        for combo in product(*(d.items() for d in dists)):
            p = Fraction(1)
            for _, q in combo:
                p *= q
            top = max(v for v, _ in combo)
            tied = tuple(n for n, (v, _) in zip(group, combo, strict=True) if v == top)
            if tied == group:
                stay += p
            else:
                for n, q in solve(tied).items():
                    res[n] += p * q
        return {n: q / (1 - stay) for n, q in res.items()}

    return {f"{n} gets it": p for n, p in solve(tuple(names)).items()}


@pytest.mark.parametrize(
    "entrants", [{"a": 1, "b": 1}, {"a": 2, "b": 1}, {"a": 1, "b": 1, "c": 1}, {"a": 2, "b": 1, "c": 1}]
)
def test_lottery_odds_match_brute_force(entrants):
    odds = SYSTEM.odds(Lottery(entrants=entrants), HOUSE)
    assert dict(odds.probabilities) == _brute_lottery(entrants)


def test_lottery_ties_all_option():
    odds = SYSTEM.odds(Lottery(entrants={"a": 1, "b": 1}), HOUSE.model_copy(update={"lottery_ties": "all"}))
    d = _brute_totals(1)
    tie = sum(p * p for p in d.values())
    assert odds.probabilities["a and b get it"] == tie
    assert odds.probabilities["a gets it"] == (1 - tie) / 2


def test_lottery_odds_refuse_too_many_entrants():
    with pytest.raises(OddsError):
        SYSTEM.odds(Lottery(entrants={f"p{i}": 2 for i in range(7)}))


def test_odds_for_many_dice_are_fast_and_sum_to_one():
    odds = SYSTEM.odds(AbilityCheck(dice=40, target=140))
    assert sum(odds.probabilities.values()) == 1
    assert 0 < odds.p_success < 1
