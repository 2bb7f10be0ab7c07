"""Experience: awards, raising Abilities, Disabilities, Luck and Unluck, the GM's veto, karma kept stable."""

from __future__ import annotations

import pytest
from fuzzy_helpers import EXAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st

from storymaster.dice import DiceRng
from storymaster.errors import AdvancementError
from storymaster.rules import load_model
from storymaster.systems.fuzzy import SYSTEM
from storymaster.systems.fuzzy.character import FuzzyCharacter, karma
from storymaster.systems.fuzzy.options import FuzzyHouseRules

RNG = DiceRng("adv")


def char(xp: int = 0) -> FuzzyCharacter:
    c = load_model(EXAMPLES / "achmed.yaml", FuzzyCharacter)
    if xp:
        c, _ = SYSTEM.advance(c, {"action": "award", "points": xp}, RNG)
    return c


def adv(c, **req):
    return SYSTEM.advance(c, req, RNG)


def test_award():
    c, ev = adv(char(), action="award", points=3, reason="saved the caravan")
    assert (c.experience.unspent, c.experience.awarded) == (3, 3)
    assert "saved the caravan" in ev[0].text


def test_raise_costs_three_times_the_new_level():
    c, ev = adv(char(27), action="raise-ability", ability="Swordsman")
    assert c.abilities[0].rating == 5 and c.experience.unspent == 27 - 15
    assert "for 15 points (3 x 5)" in ev[0].text
    c, _ = adv(c, action="raise-ability", ability="perception")
    assert c.required.perception == 4 and c.experience.unspent == 0


def test_raise_required_ability():
    c, _ = adv(char(12), action="raise-ability", ability="Perception")
    assert c.required.perception == 4 and c.experience.unspent == 0


def test_not_enough_points():
    with pytest.raises(AdvancementError, match="costs 15 experience points"):
        adv(char(14), action="raise-ability", ability="Swordsman")


def test_raising_does_not_change_luck_or_unluck():
    """Ruling: only the dice a character was built with are compared with the baseline."""
    before = karma(char())
    c, _ = adv(char(100), action="raise-ability", ability="Swordsman")
    c, _ = adv(c, action="raise-ability", ability="Swordsman")
    c, _ = adv(c, action="new-ability", name="Poet", rating=2)
    after = karma(c)
    assert (after.luck, after.unluck) == (before.luck, before.unluck)
    # Swordsman 4 -> 6 is 4 -> 7 karma dice (the sixth die counts double), plus Poet 2
    assert c.experience.karma_dice_changed == 3 + 2
    recompute = karma(c, FuzzyHouseRules(recompute_karma_after_experience=True))
    assert recompute.compared == recompute.total == after.total


def test_new_ability_costs_each_level_on_the_way_up():
    c, _ev = adv(char(18), action="new-ability", name="Poet", rating=3)
    assert c.abilities[-1].name == "Poet" and c.abilities[-1].rating == 3
    assert c.experience.unspent == 0


def test_big_magic_needs_a_new_power_per_die():
    c = load_model(EXAMPLES / "rincewind.yaml", FuzzyCharacter)
    c, _ = SYSTEM.advance(c, {"action": "award", "points": 6}, RNG)
    with pytest.raises(AdvancementError, match="name the new power"):
        adv(c, action="raise-ability", ability="Wizard")
    c2, _ = adv(c, action="raise-ability", ability="Wizard", power="Fireball")
    assert c2.abilities[0].powers == ("Read the Octavo", "Fireball")
    assert SYSTEM.validate_character(c2) == []


def test_lower_disability_costs_three_times_the_old_level():
    c = load_model(EXAMPLES / "rincewind.yaml", FuzzyCharacter)
    c, _ = SYSTEM.advance(c, {"action": "award", "points": 9}, RNG)
    c, _ = adv(c, action="lower-disability", disability="cowardice")
    assert c.disabilities[0].rating == 2 and c.experience.unspent == 0


def test_lowering_a_disability_of_one_sheds_it():
    c, ev = adv(char(3), action="lower-disability", disability="Hot-Headed")
    assert c.disabilities == () and "sheds" in ev[0].text


def test_new_voluntary_disability_gives_what_the_ability_would_cost():
    c, _ = adv(char(), action="new-disability", name="Deeply in Debt", rating=3)
    assert c.experience.unspent == 18
    assert karma(c).luck == karma(char()).luck  # no Luck for it: the change came after creation


def test_misfortune_disability_gives_nothing():
    """'So if someone cuts off your leg in game ... you'd not get any points.'"""
    c, ev = adv(char(), action="new-disability", name="One Leg", rating=2, voluntary=False)
    assert c.experience.unspent == 0 and c.disabilities[-1].from_misfortune
    assert "no points" in ev[0].text


def test_raise_disability_voluntarily():
    c, _ = adv(char(), action="raise-disability", disability="Hot-Headed")
    assert c.disabilities[0].rating == 2 and c.experience.unspent == 6
    c, _ = adv(c, action="raise-disability", disability="Hot-Headed", voluntary=False)
    assert c.disabilities[0].rating == 3 and c.experience.unspent == 6


def test_unluck_moves_like_a_bad_ability_down_to_one():
    c, _ev = adv(char(), action="raise-unluck")
    assert karma(c).unluck == 2 and c.experience.unspent == 6
    c, _ = adv(c, action="buy-off-unluck")
    assert karma(c).unluck == 1 and c.experience.unspent == 0
    with pytest.raises(AdvancementError, match="down to 1"):
        adv(c, action="buy-off-unluck")


def test_luck_moves_like_a_good_ability_between_one_and_five():
    c = load_model(EXAMPLES / "detritus.yaml", FuzzyCharacter)  # Luck 2
    c, _ = SYSTEM.advance(c, {"action": "award", "points": 40}, RNG)
    c, _ = adv(c, action="buy-luck")
    assert karma(c).luck == 3 and c.experience.unspent == 31
    c, _ = adv(c, action="buy-luck")
    c, _ = adv(c, action="buy-luck")
    assert karma(c).luck == 5 and c.experience.unspent == 31 - 12 - 15
    with pytest.raises(AdvancementError, match="the most allowed"):
        adv(c, action="buy-luck")
    at_five = c
    for _ in range(4):
        c, _ = adv(c, action="reduce-luck")
    assert karma(c).luck == 1
    assert c.experience.unspent == 4  # by the book, reducing Luck earns nothing (ruling 12)
    with pytest.raises(AdvancementError, match="below 1"):
        adv(c, action="reduce-luck")
    assert SYSTEM.validate_character(c) == []
    # the house rule luck_reduction_refund gives 3 x the old level back: 15 + 12 + 9 + 6
    refund = FuzzyHouseRules(luck_reduction_refund=True)
    c = at_five
    for _ in range(4):
        c, _ = SYSTEM.advance(c, {"action": "reduce-luck"}, RNG, refund)
    assert karma(c, refund).luck == 1 and c.experience.unspent == 4 + 15 + 12 + 9 + 6


def test_gm_veto():
    with pytest.raises(AdvancementError, match="vetoed"):
        adv(char(20), action="raise-ability", ability="Swordsman", gm_approved=False)
    house = FuzzyHouseRules(gm_approval_required=True)
    with pytest.raises(AdvancementError, match="approval"):
        SYSTEM.advance(char(20), {"action": "raise-ability", "ability": "Swordsman"}, RNG, house)
    c, _ = SYSTEM.advance(
        char(20), {"action": "raise-ability", "ability": "Swordsman", "gm_approved": True}, RNG, house
    )
    assert c.abilities[0].rating == 5


def test_unknown_names_are_refused():
    with pytest.raises(AdvancementError, match="no Ability"):
        adv(char(20), action="raise-ability", ability="Juggling")
    with pytest.raises(AdvancementError, match="no Disability"):
        adv(char(20), action="lower-disability", disability="Juggling")
    with pytest.raises(AdvancementError, match="already has"):
        adv(char(20), action="new-ability", name="Body")


ACTIONS = st.sampled_from(
    [
        {"action": "award", "points": 5},
        {"action": "raise-ability", "ability": "Swordsman"},
        {"action": "raise-ability", "ability": "Body"},
        {"action": "lower-disability", "disability": "Hot-Headed"},
        {"action": "raise-disability", "disability": "Hot-Headed"},
        {"action": "buy-luck"},
        {"action": "reduce-luck"},
        {"action": "raise-unluck"},
        {"action": "buy-off-unluck"},
    ]
)


@settings(max_examples=40)
@given(st.lists(ACTIONS, max_size=12))
def test_any_sequence_of_purchases_keeps_the_character_legal(actions):
    c = char(10)
    for a in actions:
        try:
            c, _ = SYSTEM.advance(c, a, RNG)
        except AdvancementError:
            continue
        assert SYSTEM.validate_character(c) == []
        assert c.experience.unspent >= 0
        k = karma(c)
        assert 1 <= k.luck <= 5 and k.unluck >= 1
