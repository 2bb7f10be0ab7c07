"""Rolls: every worked roll in the book, exact odds against brute force, and resolve/odds agreement."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from storymaster.dice import DiceRng
from storymaster.errors import CheckError
from storymaster.systems.bum import SYSTEM, BumHouseRules, FixedCheck, OpposedCheck, SneakAttackCheck
from storymaster.systems.bum.character import attack_total, melee_defence, skill_bonus
from storymaster.systems.bum.checks import (
    fixed_succeeds,
    opposed_winner,
    p_opposed_final,
    range_penalty,
    tie_goes_to,
)

# -- the book's worked rolls -----------------------------------------------------------------


def test_fixed_difficulty_example_climb(scripted):
    """Part Two: STR 2, DC 6, rolls a 4: total 6 meets the difficulty."""
    out = SYSTEM.resolve(FixedCheck(bonus=2, dc=6), scripted([4]))
    assert out.success and out.details["total"] == 6 and out.margin == 0
    assert SYSTEM.odds(FixedCheck(bonus=2, dc=6)).p_success == Fraction(1, 2)  # 'a 50-50 chance'


def test_opposed_example_wrestle(scripted):
    """Part Two: both STR 2; A rolls 3 (5), B rolls 5 (7): B wins."""
    assert opposed_winner(3, 2, 5, 2) == "b"
    out = SYSTEM.resolve(OpposedCheck(bonus=2, vs=2), scripted([3, 5]))
    assert out.result == "lose" and out.margin == -2


def test_failed_roll_and_recheck_example(scripted):
    """Part Two: sneak DC 5 with DEX 2 rolls a 2 (4): fail; the hide re-check at DC 8 needs a 6."""
    assert not SYSTEM.resolve(FixedCheck(bonus=2, dc=5), scripted([2])).success
    hide = FixedCheck(bonus=2, dc=8)
    assert SYSTEM.odds(hide).p_success == Fraction(1, 6)
    assert SYSTEM.resolve(hide, scripted([6])).success
    assert not SYSTEM.resolve(hide, scripted([5])).success


def test_example_of_play_stealth(card, scripted):
    """Player 2 rolls 4 + DEX 3 + Stealth 2 = 9 against DC 8."""
    p2 = card("player2")
    bonus = p2.stats.DEX + skill_bonus(p2, "Stealth")
    out = SYSTEM.resolve(FixedCheck(bonus=bonus, dc=8, parts=(("DEX", 3), ("Stealth", 2))), scripted([4]))
    assert out.success and out.details["total"] == 9


def test_example_of_play_sneak_shot(card, scripted):
    """DC 10 crossbow sneak shot: 'a 2/3 chance'; rolls 3 + 3 + 2 + 2 = 10, 'just barely'."""
    p2 = card("player2")
    check = SneakAttackCheck(bonus=attack_total(p2, "ranged"), dc=10)
    assert SYSTEM.odds(check).p_success == Fraction(2, 3)
    out = SYSTEM.resolve(check, scripted([3]))
    assert out.success and out.margin == 0


def test_example_of_play_melee_exchanges(card):
    """Player 1 2+7=9 vs thief 5+3=8 hits; thief 6+4=10 vs Player 1 2+6=8 hits; Player 2 4+6=10 vs 4+3=7 hits."""
    p1, p2, thief = card("player1"), card("player2"), card("thief")
    assert opposed_winner(2, attack_total(p1, "primary"), 5, melee_defence(thief)) == "a"
    assert 2 + attack_total(p1, "primary") == 9 and 5 + melee_defence(thief) == 8
    assert 6 + attack_total(thief, "primary") == 10 and 2 + melee_defence(p1) == 8
    assert opposed_winner(6, attack_total(thief, "primary"), 2, melee_defence(p1)) == "a"
    assert 4 + attack_total(p2, "backup") == 10 and 4 + melee_defence(thief) == 7


def test_example_of_play_stitching(card, scripted):
    """Medicine DC 7: 3 + INT 2 + Medicine 2 + suture kit 1 = 8."""
    p1 = card("player1")
    kit = next(i for i in p1.items if i.name == "Suture kit")
    bonus = p1.stats.INT + skill_bonus(p1, "Medicine") + kit.bonus
    assert bonus == 5
    assert SYSTEM.resolve(FixedCheck(bonus=bonus, dc=7), scripted([3])).details["total"] == 8


# -- exact odds against brute force ------------------------------------------------------------


@pytest.mark.parametrize("bonus", range(-2, 9))
@pytest.mark.parametrize("dc", range(1, 14))
def test_fixed_odds_brute_force(bonus, dc):
    brute = Fraction(sum(1 for f in range(1, 7) if f + bonus >= dc), 6)
    odds = SYSTEM.odds(FixedCheck(bonus=bonus, dc=dc))
    assert odds.p_success == brute and odds.probability("failure") == 1 - brute


def _brute_opposed(a: int, b: int) -> tuple[Fraction, Fraction, Fraction]:
    pairs = list(itertools.product(range(1, 7), repeat=2))
    w = sum(1 for x, y in pairs if x + a > y + b)
    t = sum(1 for x, y in pairs if x + a == y + b)
    return Fraction(w, 36), Fraction(t, 36), Fraction(36 - w - t, 36)


@pytest.mark.parametrize("a", range(9))
@pytest.mark.parametrize("b", range(9))
def test_opposed_odds_brute_force_with_rerolled_ties(a, b):
    w, t, lose = _brute_opposed(a, b)
    odds = SYSTEM.odds(OpposedCheck(bonus=a, vs=b))
    assert odds.extra["p_win_first_roll"] == w and odds.extra["p_tie_each_roll"] == t
    # the geometric series of re-rolls: sum over k of t^k * w, whose partial sums climb to w / (1 - t)
    partial = sum((t**k * w for k in range(60)), Fraction(0))
    assert partial <= odds.p_success and odds.p_success - partial <= t**60
    assert odds.p_success == w / (w + lose)


def test_two_rounds_of_rerolls_enumerated_exactly():
    """Enumerate 4 dice (a first roll and one re-roll) and check the closed form's first terms."""
    a, b = 3, 3
    win_in_two = Fraction(0)
    for x1, y1, x2, y2 in itertools.product(range(1, 7), repeat=4):
        if x1 + a > y1 + b or (x1 + a == y1 + b and x2 + a > y2 + b):
            win_in_two += Fraction(1, 6**4)
    w, t, _ = _brute_opposed(a, b)
    assert win_in_two == w + t * w
    assert SYSTEM.odds(OpposedCheck(bonus=a, vs=b)).p_success == Fraction(1, 2)


def test_equal_bonuses_are_even_and_vs_five_three():
    assert SYSTEM.odds(OpposedCheck(bonus=5, vs=3)).p_success == Fraction(13, 16)


@pytest.mark.parametrize(
    "rule,role,me,them,expected",
    [
        ("reroll", "attacker", True, False, None),
        ("defender", "attacker", True, False, "opponent"),
        ("defender", "defender", True, False, "actor"),
        ("attacker", "attacker", False, False, "actor"),
        ("players", "attacker", True, False, "actor"),
        ("players", "defender", False, True, "opponent"),
        ("players", "attacker", True, True, None),
    ],
)
def test_tie_rules(rule, role, me, them, expected):
    assert tie_goes_to(BumHouseRules(opposed_ties=rule), role, me, them) == expected


def test_tie_rule_changes_the_odds_exactly():
    w, t, _ = _brute_opposed(2, 2)
    hr = BumHouseRules(opposed_ties="defender")
    assert SYSTEM.odds(OpposedCheck(bonus=2, vs=2), hr).p_success == w
    assert SYSTEM.odds(OpposedCheck(bonus=2, vs=2, role="defender"), hr).p_success == w + t
    assert p_opposed_final(2, 2, None) == Fraction(1, 2)


def test_tie_rerolled_in_resolve(scripted):
    out = SYSTEM.resolve(OpposedCheck(bonus=2, vs=2), scripted([3, 3, 5, 1]))
    assert out.result == "win" and out.details["rolls_made"] == 2 and len(out.rolls) == 4
    assert "1 tie(s) were rolled again" in out.explanation


def test_tie_to_defender_in_resolve(scripted):
    out = SYSTEM.resolve(OpposedCheck(bonus=2, vs=2), scripted([3, 3]), BumHouseRules(opposed_ties="defender"))
    assert out.result == "lose" and len(out.rolls) == 2


# -- ranged and sneak attacks ------------------------------------------------------------------


@pytest.mark.parametrize(
    "turns,normal,rifle", [(0, 0, 0), (1, 0, 0), (2, -1, 0), (3, -2, -1), (4, -3, -1), (5, -4, -2)]
)
def test_range_penalties(turns, normal, rifle):
    assert range_penalty(turns) == normal
    assert range_penalty(turns, rifle=True) == rifle


def test_thrown_weapons_reach_two_turns():
    assert range_penalty(2, thrown=True) == -1
    assert range_penalty(3, thrown=True) is None
    assert range_penalty(3, thrown=True, hr=BumHouseRules(thrown_max_turns=3)) == -2
    with pytest.raises(CheckError):
        range_penalty(-1)


def test_sneak_melee_needs_no_roll():
    check = SneakAttackCheck(melee=True)
    assert SYSTEM.odds(check).p_success == 1
    out = SYSTEM.resolve(check, DiceRng(1))
    assert out.success and out.rolls == () and out.details["incapacitates"]
    with pytest.raises(CheckError):
        SYSTEM.odds(check, BumHouseRules(sneak_melee_kills=False))


def test_sneak_headshot_minus_four_and_kills(scripted):
    check = SneakAttackCheck(bonus=7, dc=6, headshot=True, range_turns=2)
    assert SYSTEM.odds(check).p_success == Fraction(sum(1 for f in range(1, 7) if f + 7 - 4 - 1 >= 6), 6)
    out = SYSTEM.resolve(check, scripted([6]))
    assert out.success and out.details["incapacitates"]


def test_sneak_thrown_out_of_range():
    check = SneakAttackCheck(bonus=5, dc=6, thrown=True, range_turns=3)
    assert SYSTEM.odds(check).p_success == 0
    assert not SYSTEM.resolve(check, DiceRng(1)).success


# -- validation and properties -----------------------------------------------------------------


def test_check_values_are_validated():
    with pytest.raises(ValueError):
        FixedCheck(bonus=2, dc=0)
    with pytest.raises(ValueError):
        FixedCheck(bonus=5, dc=6, parts=(("DEX", 3),))


def test_fixed_succeeds_meets_or_beats():
    assert fixed_succeeds(4, 2, 6) and not fixed_succeeds(3, 2, 6)


@settings(max_examples=60)
@given(st.integers(-3, 9), st.integers(1, 15), st.integers(0, 10**6))
def test_resolved_fixed_outcome_is_possible(bonus, dc, seed):
    check = FixedCheck(bonus=bonus, dc=dc)
    out = SYSTEM.resolve(check, DiceRng(seed))
    assert SYSTEM.odds(check).probability(out.result) > 0
    assert out.success == (out.rolls[0].total + bonus >= dc)


@settings(max_examples=60)
@given(
    st.integers(-3, 9),
    st.integers(-3, 9),
    st.sampled_from(["reroll", "defender", "attacker", "players"]),
    st.integers(0, 10**6),
)
def test_resolved_opposed_outcome_is_possible(a, b, rule, seed):
    hr = BumHouseRules(opposed_ties=rule)
    check = OpposedCheck(bonus=a, vs=b)
    out = SYSTEM.resolve(check, DiceRng(seed), hr)
    assert SYSTEM.odds(check, hr).probability(out.result) > 0


def test_opposed_frequencies_match_exact_odds():
    check = OpposedCheck(bonus=4, vs=3)
    p = float(SYSTEM.odds(check).p_success)
    rng = DiceRng("freq")
    n = 3000
    wins = sum(SYSTEM.resolve(check, rng).success for _ in range(n))
    sd = (p * (1 - p) / n) ** 0.5
    assert abs(wins / n - p) < 4 * sd


def test_recheck_example_sneak_then_hide(scripted):
    """Part Two: sneak DC 5 (DEX 2) fails on a 2; the hide re-check at DC 8 needs a 6."""
    from storymaster.systems.bum import RecheckCheck

    check = RecheckCheck(bonus=2, dc=5, recheck_dc=8)
    odds = SYSTEM.odds(check)
    assert odds.probability("success") == Fraction(4, 6)
    assert odds.probability("recovered") == Fraction(2, 6) * Fraction(1, 6)
    assert odds.p_success == Fraction(4, 6) + Fraction(2, 36)
    out = SYSTEM.resolve(check, scripted([2, 6]))
    assert out.result == "recovered" and out.success and len(out.rolls) == 2
    assert SYSTEM.resolve(check, scripted([2, 5])).result == "failure"
    assert SYSTEM.resolve(check, scripted([3])).result == "success"


@pytest.mark.parametrize("b1,dc1,b2,dc2", [(2, 5, 2, 8), (0, 7, 3, 4), (4, 6, None, 9)])
def test_recheck_odds_brute_force(b1, dc1, b2, dc2):
    from storymaster.systems.bum import RecheckCheck

    check = RecheckCheck(bonus=b1, dc=dc1, recheck_dc=dc2, recheck_bonus=b2)
    second = b1 if b2 is None else b2
    good = sum(1 for x, y in itertools.product(range(1, 7), repeat=2) if x + b1 >= dc1 or y + second >= dc2)
    assert SYSTEM.odds(check).p_success == Fraction(good, 36)


@settings(max_examples=40)
@given(
    st.integers(-3, 9),
    st.integers(1, 14),
    st.integers(0, 4),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.integers(0, 10**6),
)
def test_resolved_sneak_outcome_is_possible(bonus, dc, turns, head, rifle, thrown, seed):
    check = SneakAttackCheck(bonus=bonus, dc=dc, range_turns=turns, headshot=head, rifle=rifle, thrown=thrown)
    out = SYSTEM.resolve(check, DiceRng(seed))
    assert SYSTEM.odds(check).probability(out.result) > 0


@settings(max_examples=40)
@given(st.integers(-3, 9), st.integers(1, 14), st.integers(1, 14), st.integers(0, 10**6))
def test_resolved_recheck_outcome_is_possible(bonus, dc, dc2, seed):
    from storymaster.systems.bum import RecheckCheck

    check = RecheckCheck(bonus=bonus, dc=dc, recheck_dc=dc2)
    out = SYSTEM.resolve(check, DiceRng(seed))
    assert SYSTEM.odds(check).probability(out.result) > 0
    assert len(out.rolls) == (1 if out.result == "success" else 2)
