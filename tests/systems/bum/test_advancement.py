"""Part Six: skill points per session, stats at 4 points once per game within the body's limits, 'A is for Axe'."""

from __future__ import annotations

import pytest

from storymaster.dice import DiceRng
from storymaster.errors import AdvancementError
from storymaster.systems.bum import SYSTEM, AwardPoints, BumHouseRules, BuySkill, BuyStat
from storymaster.systems.bum.character import current_hp, validate
from storymaster.systems.bum.wounds import heal, incapacitated, take_wounds


def adv(c, req, hr=None):
    new, events = SYSTEM.advance(c, req, DiceRng(1), hr)
    assert validate(new, hr) == [], validate(new, hr)
    return new, events


def test_award_then_spend_on_a_skill(card):
    v = card("victor-mordox")
    v2, ev = adv(v, AwardPoints(points=2))
    assert v2.banked_skill_points == 2 and "2 skill point" in ev[0].text
    v3, _ = adv(v2, BuySkill(skill="Survival", points=1))
    assert next(s.points for s in v3.skills if s.name == "Survival") == 2 and v3.banked_skill_points == 1
    assert v.banked_skill_points == 0  # the old value is unchanged


def test_new_skill_needs_its_stat(card):
    v2, _ = adv(card("victor-mordox"), AwardPoints(points=1))
    with pytest.raises(AdvancementError):
        SYSTEM.advance(v2, BuySkill(skill="Reading"), DiceRng(1))
    v3, _ = adv(v2, BuySkill(skill="Reading", stat="INT"))
    assert v3.skills[-1].name == "Reading"


def test_skill_cap_applies_to_advancement(card):
    v2, _ = adv(card("victor-mordox"), AwardPoints(points=2))
    with pytest.raises(AdvancementError, match="above its governing"):
        SYSTEM.advance(v2, BuySkill(skill="Tracking", points=1), DiceRng(1))  # INT 2 caps Tracking at 2


def test_not_enough_points(card):
    with pytest.raises(AdvancementError):
        SYSTEM.advance(card("victor-mordox"), BuySkill(skill="Survival"), DiceRng(1))
    v2, _ = adv(card("victor-mordox"), AwardPoints(points=3))
    with pytest.raises(AdvancementError, match="costs 4"):
        SYSTEM.advance(v2, BuyStat(stat="INT"), DiceRng(1))


def test_stat_costs_four_once_per_game_within_limits(card):
    v = card("victor-mordox")
    v2, _ = adv(v, AwardPoints(points=8))
    v3, _ev = adv(v2, BuyStat(stat="STR"))
    assert v3.stats.STR == 4 and v3.banked_skill_points == 4 and current_hp(v3) == 4
    with pytest.raises(AdvancementError, match="already raised"):
        SYSTEM.advance(v3, BuyStat(stat="STR"), DiceRng(1))
    v4, _ = adv(v3, BuyStat(stat="INT"))
    assert v4.stats.INT == 3 and v4.banked_skill_points == 0


def test_body_limit(card):
    v2, _ = adv(card("victor-mordox"), AwardPoints(points=8))
    v3, _ = adv(v2, BuyStat(stat="DEX"))
    v4 = v3.model_copy(update={"raised_stats": ()})  # even in a new game, DEX 4 is the limit
    with pytest.raises(AdvancementError, match="body's limit"):
        SYSTEM.advance(v4, BuyStat(stat="DEX"), DiceRng(1))


def test_a_is_for_axe_option(card):
    hr = BumHouseRules(a_is_for_axe=True)
    v2, _ = adv(card("victor-mordox"), AwardPoints(points=2, used_skills=("Axe/Mace", "Survival")), hr)
    v3, _ = adv(v2, BuySkill(skill="Survival"), hr)
    with pytest.raises(AdvancementError, match="A is for Axe"):
        SYSTEM.advance(v3, BuySkill(skill="Reading", stat="INT"), DiceRng(1), hr)
    v4, _ = adv(v3, BuySkill(skill="Reading", stat="INT", teacher=True), hr)
    assert v4.skills[-1].name == "Reading"
    # without the option, any skill will do
    adv(v3, BuySkill(skill="Reading", stat="INT"))


def test_wounds_and_healing_least_severe_first(card):
    """Part Five: a punch heals by the next day, a sword cut takes a week or more."""
    p = card("player1")
    p = take_wounds(p, 1, "punch", heal_days=1)
    p = take_wounds(p, 1, "sword", heal_days=7)
    assert current_hp(p) == 1
    p1 = heal(p, 1)
    assert [w.cause for w in p1.wounds] == ["sword"] and current_hp(p1) == 2
    assert heal(p1, 6).wounds == ()
    assert incapacitated(take_wounds(card("thief"), 2))


def test_incapacitated_only_at_zero_hit_points(card):
    """Part Five: HP = STR, the number of wounds a character can take before he is incapacitated. The thief has
    STR 2: unhurt and with one wound he still fights; at two he is out (and stays at 0 HP with a third)."""
    thief = card("thief")
    assert [incapacitated(take_wounds(thief, n)) for n in (0, 1, 2, 3)] == [False, False, True, True]


def test_taking_no_wounds_changes_nothing_and_a_negative_count_is_refused(card):
    thief = card("thief")
    assert take_wounds(thief, 0).wounds == thief.wounds
    with pytest.raises(ValueError, match="cannot be negative"):
        take_wounds(thief, -1)


def test_healing_goes_least_severe_first_and_days_count(card):
    """Part Five: wounds heal independently, least severe first; a wound whose time has passed is gone, one the
    GM has not timed stays. One wound is the default; 0 days heal nothing; negative days are refused."""
    thief = card("player1")
    assert len(take_wounds(thief).wounds) == 1
    p = take_wounds(thief, 1, "sword", heal_days=7)
    p = take_wounds(p, 1, "curse")  # no healing time set
    p = take_wounds(p, 1, "punch", heal_days=2)
    assert [w.cause for w in heal(p, 0).wounds] == ["punch", "sword", "curse"]
    assert [(w.cause, w.heal_days) for w in heal(p, 3).wounds] == [("sword", 4), ("curse", None)]
    with pytest.raises(ValueError, match="cannot be negative"):
        heal(p, -1)
