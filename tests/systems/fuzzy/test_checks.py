"""Resolving checks: criticals, the one-die rule, penalties, explanations, contests, Luck and the lottery."""

from __future__ import annotations

import pytest
from fuzzy_helpers import ScriptedRng
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from storymaster.dice import DiceRng, verify
from storymaster.errors import CheckError
from storymaster.systems.fuzzy import SYSTEM
from storymaster.systems.fuzzy.checks import AbilityCheck, ContestCheck, KarmaRoll, Lottery, Side, target_number
from storymaster.systems.fuzzy.options import FuzzyHouseRules


def test_sum_meets_or_beats_the_target():
    out = SYSTEM.resolve(AbilityCheck(dice=3, target=11), ScriptedRng([3, 4, 4]))
    assert (out.result, out.success, out.margin) == ("success", True, 0)
    out = SYSTEM.resolve(AbilityCheck(dice=3, target=11), ScriptedRng([3, 4, 3]))
    assert (out.result, out.success, out.margin) == ("failure", False, -1)


def test_double_six_on_the_coloured_dice_adds_an_exploding_bonus_die():
    out = SYSTEM.resolve(AbilityCheck(dice=3, target=18, ability="Swordsman"), ScriptedRng([6, 6, 1, 6, 6, 2]))
    assert out.result == "critical success"
    assert out.details["bonus"] == [6, 6, 2]
    assert out.details["score"] == 6 + 6 + 1 + 14
    assert "critical success" in out.explanation and "bonus die 6+6+2" in out.explanation
    assert [r.label for r in out.rolls] == [
        "Swordsman: coloured dice",
        "Swordsman: other dice",
        "Swordsman: critical bonus die",
    ]


def test_sixes_on_other_dice_are_not_criticals():
    out = SYSTEM.resolve(AbilityCheck(dice=3, target=4), ScriptedRng([6, 5, 6]))
    assert out.details["critical"] is None


def test_the_bonus_die_stops_at_the_gms_limit():
    h = FuzzyHouseRules(critical_bonus_max_explosions=2)
    out = SYSTEM.resolve(AbilityCheck(dice=2, target=4), ScriptedRng([6, 6, 6, 6, 6]), h)
    assert out.details["bonus"] == [6, 6, 6]
    h0 = FuzzyHouseRules(critical_bonus_max_explosions=0)
    out = SYSTEM.resolve(AbilityCheck(dice=2, target=4), ScriptedRng([6, 6, 6]), h0)
    assert out.details["bonus"] == [6]


def test_critical_failure_still_succeeds_with_a_big_pool():
    out = SYSTEM.resolve(AbilityCheck(dice=5, target=7), ScriptedRng([1, 1, 5, 5, 5]))
    assert out.result == "critical failure (still succeeded)"
    assert out.success is True
    assert "something bad happens even though the roll succeeded" in out.explanation


def test_critical_failure_rolls_unluck_to_see_how_bad():
    out = SYSTEM.resolve(AbilityCheck(dice=2, target=7, unluck_dice=2), ScriptedRng([1, 1, 4, 5]))
    assert out.result == "critical failure"
    assert out.details["unluck"] == 9
    assert out.rolls[-1].label == "Unluck: coloured dice"


def test_one_die_six_confirmed_by_a_second_die_that_is_never_added():
    out = SYSTEM.resolve(AbilityCheck(dice=1, target=11), ScriptedRng([6, 6, 4]))
    assert out.result == "critical success (still failed)"
    assert out.details["check_die"] == 6
    assert out.details["score"] == 10  # 6 + bonus 4; the check die is not added
    assert "never added" in out.explanation


def test_one_die_unconfirmed_is_just_a_roll():
    out = SYSTEM.resolve(AbilityCheck(dice=1, target=6), ScriptedRng([6, 3]))
    assert (out.result, out.details["score"], out.details["check_die"]) == ("success", 6, 3)
    out = SYSTEM.resolve(AbilityCheck(dice=1, target=2), ScriptedRng([1, 1]))
    assert out.result == "critical failure"
    out = SYSTEM.resolve(AbilityCheck(dice=1, target=2), ScriptedRng([4]))
    assert out.details["check_die"] is None and len(out.rolls) == 1


def test_one_die_check_die_can_be_switched_off():
    h = FuzzyHouseRules(one_die_second_die_for_criticals=False)
    out = SYSTEM.resolve(AbilityCheck(dice=1, target=4), ScriptedRng([6]), h)
    assert out.result == "success" and len(out.rolls) == 1


def test_penalties_take_dice_away_but_never_the_last():
    out = SYSTEM.resolve(AbilityCheck(dice=3, target=4, penalty_dice=2), ScriptedRng([5]))
    assert out.details["dice"] == 1
    out = SYSTEM.resolve(AbilityCheck(dice=2, target=4, penalty_dice=9), ScriptedRng([5]))
    assert out.details["dice"] == 1
    assert "never below one die" in out.explanation


def test_penalty_leaving_one_die_uses_the_one_die_critical_rule():
    """Ruling: criticals are read from the dice actually rolled; one die left means the second-die rule."""
    out = SYSTEM.resolve(AbilityCheck(dice=4, target=4, penalty_dice=3), ScriptedRng([1, 1]))
    assert out.result == "critical failure"


def test_target_numbers():
    assert target_number(AbilityCheck(dice=2, target="hard")) == 11
    assert target_number(AbilityCheck(dice=2, target="Really_Hard", fit="barely")) == 16
    assert target_number(AbilityCheck(dice=2, target=7, target_modifier=1, narrower_skill=2)) == 6
    assert target_number(AbilityCheck(dice=2, target="12")) == 12


@pytest.mark.parametrize(
    "bad",
    [
        {"dice": 0, "target": 7},
        {"dice": 2, "target": -3},
        {"dice": 2, "target": "tricky"},
        {"dice": 2, "target": 7, "penalty_dice": -1},
        {"dice": 101, "target": 7},
    ],
)
def test_bad_checks_are_refused(bad):
    with pytest.raises(ValidationError):
        AbilityCheck(**bad)


def test_unknown_check_type_is_a_check_error():
    with pytest.raises(CheckError):
        SYSTEM.resolve(Side(name="x", dice=1), DiceRng(1))


def test_rolls_are_recorded_and_replayable():
    out = SYSTEM.resolve(AbilityCheck(dice=4, target=14), DiceRng("replay", "t"))
    assert out.rolls
    for r in out.rolls:
        verify(r)


# -- contests ---------------------------------------------------------------------------------------


def test_contest_higher_wins():
    c = ContestCheck(first=Side(name="Achmed", dice=2, modifier=2), second=Side(name="Sven", dice=2))
    out = SYSTEM.resolve(c, ScriptedRng([3, 4, 5, 3]))
    assert (out.result, out.margin, out.details["scores"]) == ("Achmed wins", 1, [9, 8])
    assert "Achmed wins by 1" in out.explanation


def test_contest_tie_rulings():
    c = ContestCheck(first=Side(name="A", dice=2), second=Side(name="B", dice=2))
    assert SYSTEM.resolve(c, ScriptedRng([3, 4, 5, 2])).result == "stand-off"
    h = FuzzyHouseRules(contest_ties="defender")
    assert SYSTEM.resolve(c, ScriptedRng([3, 4, 5, 2]), h).result == "B wins"
    h = FuzzyHouseRules(contest_ties="reroll")
    out = SYSTEM.resolve(c, ScriptedRng([3, 4, 5, 2, 6, 5, 2, 2]), h)
    assert out.result == "A wins" and "roll again" in out.explanation


def test_contest_criticals_add_the_bonus_die():
    c = ContestCheck(first=Side(name="A", dice=2), second=Side(name="B", dice=3))
    out = SYSTEM.resolve(c, ScriptedRng([6, 6, 1, 5, 5, 6]))
    assert out.details["scores"] == [13, 16]
    assert out.result == "B wins"


# -- Luck and Unluck -----------------------------------------------------------------------------------


def test_luck_against_a_target_and_open():
    out = SYSTEM.resolve(KarmaRoll(kind="luck", dice=2, target=8), ScriptedRng([4, 4]))
    assert out.success is True and "happens" in out.explanation
    out = SYSTEM.resolve(KarmaRoll(kind="unluck", dice=3), ScriptedRng([1, 2, 3]))
    assert out.success is None and out.result == "6" and "worse" in out.explanation


def test_lottery_highest_gets_it_and_ties_roll_off():
    lot = Lottery(entrants={"Ann": 1, "Bob": 1, "Cy": 1})
    out = SYSTEM.resolve(lot, ScriptedRng([5, 2, 3]))
    assert out.result == "Ann gets it"
    out = SYSTEM.resolve(lot, ScriptedRng([5, 5, 3, 2, 4]))
    assert out.result == "Bob gets it" and "roll again" in out.explanation
    out = SYSTEM.resolve(lot, ScriptedRng([5, 5, 3]), FuzzyHouseRules(lottery_ties="all"))
    assert out.result == "Ann and Bob get it"


def test_lottery_needs_two_entrants():
    with pytest.raises(ValidationError):
        Lottery(entrants={"solo": 2})


# -- properties ------------------------------------------------------------------------------------------


@settings(max_examples=60)
@given(
    dice=st.integers(1, 6),
    target=st.integers(1, 30),
    mod=st.integers(-3, 3),
    pen=st.integers(0, 3),
    seed=st.integers(0, 10**9),
)
def test_every_resolved_outcome_is_possible_in_the_odds(dice, target, mod, pen, seed):
    check = AbilityCheck(dice=dice, target=target, roll_modifier=mod, penalty_dice=pen)
    out = SYSTEM.resolve(check, DiceRng(seed))
    odds = SYSTEM.odds(check)
    assert odds.probability(out.result) > 0
    assert out.success == (out.result in odds.success_outcomes)


@settings(max_examples=40)
@given(a=st.integers(1, 4), b=st.integers(1, 4), seed=st.integers(0, 10**9))
def test_every_contest_result_is_possible(a, b, seed):
    check = ContestCheck(first=Side(name="A", dice=a), second=Side(name="B", dice=b))
    out = SYSTEM.resolve(check, DiceRng(seed))
    assert SYSTEM.odds(check).probability(out.result) > 0


def test_frequencies_agree_with_the_odds():
    check = AbilityCheck(dice=3, target=11)
    rng = DiceRng("frequency", "t")
    n = 3000
    hits = sum(SYSTEM.resolve(check, rng).success for _ in range(n))
    crit = sum(SYSTEM.resolve(check, rng).details["critical"] is not None for _ in range(n))
    # p = 1/2: sd of the count is ~27; 5 sd either way
    assert abs(hits - n / 2) < 140
    # p(any critical) = 1/18: expect ~167, sd ~12.5
    assert abs(crit - n / 18) < 65


def test_rolling_a_disability_explains_that_success_is_bad():
    out = SYSTEM.resolve(AbilityCheck(ability="Crotchety", dice=2, target=7, disability=True), ScriptedRng([4, 4]))
    assert out.success and "bad effects are felt" in out.explanation


def test_cli_rolls_a_disability(cli):
    from fuzzy_helpers import EXAMPLES

    r = cli(
        "fuzzy",
        "roll",
        "--character",
        str(EXAMPLES / "rincewind.yaml"),
        "--ability",
        "Cowardice",
        "--target",
        "average",
        "--seed",
        "1",
    )
    assert r.exit_code == 0 and "This is a Disability" in r.stdout
