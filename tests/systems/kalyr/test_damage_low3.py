"""Kalyr damage: edges left by mutation testing (session 5, branch mut-low3). Expected values by hand from the
book's Example of Damage (Kalyr RPG ch. 3) and Detailed Contests."""

from __future__ import annotations

from storymaster.systems.kalyr.damage import WoundReport, detailed_contest_damage, take_damage, take_wound
from storymaster.systems.kalyr.ladder import parse_level as L
from storymaster.systems.kalyr.wounds import HURT


def test_detailed_damage_with_no_approach_given(example):
    """Example of Damage: both Great, the bandit aggressive (+2) hits Kylar for 3 (mace +3, Kylar's armour -2, +2):
    with no approach that is 3 - 2 = 1 at a margin of 0. Kylar two below (Fair against Great): 2 + 1 = 3 points,
    halved rounding up (Detailed Contests) = 2; the bandit, the winner, takes nothing. (Any approach of -1 would
    make it 2 - halved to 1.)"""
    kylar, bandit = example("kylar"), example("bandit")
    assert detailed_contest_damage(kylar, L("Fair"), bandit, L("Great")) == (2, 0)
    # the same with every parameter named (only the approaches and the ruling are keyword-only)
    assert detailed_contest_damage(a=kylar, a_result=L("Fair"), b=bandit, b_result=L("Great")) == (2, 0)


def test_wounds_take_their_leading_arguments_by_keyword(example):
    # 2 damage points are a Hurt ('1 is a Scratch, 2 Hurt'); a severity of 2 is a Hurt
    kylar = example("kylar")
    _, report = take_wound(character=kylar, track="physical", severity=HURT)
    assert report.severity == HURT
    _, report = take_damage(character=kylar, track="physical", points=2)
    assert report.severity == HURT


def test_a_negative_severity_is_no_damage():
    # a report of a wound below Scratch (severity under 1) says no damage was taken
    assert WoundReport("physical", -1, None, 0, False).text("Ann") == "Ann takes no physical damage"


def test_more_edges_of_damage(example):
    """Damage: approaches run from cautious -2 to aggressive +2, so -3 is refused; a Fudge point count below 0
    is refused; with no approach, Kylar one better (Superb against Great) hits the bandit for 3 + 1 = 4 (the
    Example's 5 less the bandit's +2), halved (Detailed Contests) to 2."""
    import pytest

    from storymaster.errors import CheckError
    from storymaster.systems.kalyr.damage import approach_total, contest_damage, simple_contest_damage

    with pytest.raises(CheckError):
        approach_total(-3, 0)
    kylar, bandit = example("kylar"), example("bandit")
    with pytest.raises(CheckError):
        take_wound(kylar, "physical", HURT, fudge_reduce=-1)
    assert detailed_contest_damage(kylar, L("Superb"), bandit, L("Great")) == (0, 2)
    # every parameter named: margin 2, weapon 3, armour 2 -> 2 + 3 - 2 = 3
    assert contest_damage(margin=2, weapon=3, armour=2) == 3
    # the Example of Damage, both Great, the bandit aggressive: 3 to Kylar, 5 to the bandit
    assert simple_contest_damage(a=kylar, a_result=L("Great"), b=bandit, b_result=L("Great"), b_approach=2) == (3, 5)


def test_healing_method_read_by_value_and_no_wound_below_zero(example):
    """Getting rid of damage: medical healing takes days (the method's name built at run time, as a command line's
    argument is: an equal string that is another object); a negative severity is no wound: severity 0 taken."""
    from storymaster.systems.kalyr.damage import heal

    kylar = example("kylar")
    assert heal(kylar, "physical", L("Good"), method="".join(["med", "ical"]))[3] == "days"
    assert take_wound(kylar, "physical", -2)[1].severity == 0


def test_a_tie_hurts_nobody_whatever_the_numbers(example):
    """Detailed Contests: a tie 'is a stand-off ... nobody is hurt', also for results past the ladder (equal ints that
    are other objects)."""
    kylar, bandit = example("kylar"), example("bandit")
    assert detailed_contest_damage(kylar, int("300"), bandit, int("300")) == (0, 0)


def test_heal_by_keyword_and_social_damage_refused_by_value(example):
    """Getting rid of damage: social damage is not healed by skill (the track's name built at run time, an equal
    string that is another object, is refused too); heal's leading parameters can be named."""
    import pytest

    from storymaster.errors import CheckError
    from storymaster.systems.kalyr.damage import heal

    kylar = example("kylar")
    with pytest.raises(CheckError):
        heal(kylar, "".join(["soc", "ial"]), L("Good"))
    assert heal(character=kylar, track="physical", result=L("Good"))[3] == "days"
