"""The plugin: protocol, registry, house rules, public surface."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from storymaster.dice import DiceRng
from storymaster.errors import AdvancementError
from storymaster.rules import CombatEngine, RuleSystem, describe_house_rules, get_system
from storymaster.systems import fuzzy
from storymaster.systems.fuzzy import SYSTEM
from storymaster.systems.fuzzy.character import FuzzyCharacter
from storymaster.systems.fuzzy.checks import AbilityCheck
from storymaster.systems.fuzzy.options import FuzzyHouseRules


def test_system_satisfies_the_protocol_and_is_registered():
    assert isinstance(SYSTEM, RuleSystem)
    assert isinstance(SYSTEM.combat, CombatEngine)
    assert get_system("fuzzy") is SYSTEM
    assert SYSTEM.name == "fuzzy" and SYSTEM.character_model is FuzzyCharacter
    assert set(SYSTEM.check_types) == {"ability", "contest", "karma", "lottery"}


def test_public_surface():
    assert fuzzy.__all__ == ["SYSTEM", "FuzzySystem"]


def test_house_rules_default_to_the_book_and_are_frozen():
    h = FuzzyHouseRules()
    assert (h.baseline, h.starting_luck, h.starting_unluck, h.luck_cap, h.tenacity_target) == (22, 2, 1, 5, 7)
    with pytest.raises(ValidationError):
        FuzzyHouseRules(no_such_option=True)
    with pytest.raises(ValidationError):
        h.baseline = 30  # type: ignore[misc]
    with pytest.raises(ValidationError):
        FuzzyHouseRules(baseline=-1)


def test_every_house_rule_is_described():
    rows = describe_house_rules(FuzzyHouseRules)
    assert len(rows) >= 15
    for row in rows:
        assert len(row["description"]) > 30, row["name"]


def test_wrong_house_rules_type_is_refused():
    class Other(FuzzyHouseRules.__base__):  # a different system's house rules
        pass

    from storymaster.errors import HouseRulesError

    with pytest.raises(HouseRulesError):  # the one error for house rules a system cannot take (issue 13)
        SYSTEM.odds(AbilityCheck(dice=2, target=7), Other())


def test_advance_accepts_a_mapping_and_refuses_other_characters():
    c = FuzzyCharacter(name="X")
    new, events = SYSTEM.advance(c, {"action": "award", "points": 2}, DiceRng(1))
    assert new.experience.unspent == 2 and events[0].kind == "award"
    with pytest.raises(AdvancementError):
        SYSTEM.advance(FuzzyHouseRules(), {"action": "award", "points": 2}, DiceRng(1))  # type: ignore[arg-type]
