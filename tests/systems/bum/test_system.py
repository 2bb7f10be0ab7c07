"""The plugin: protocol, registry, house rules, schema file, and wrong-type errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from storymaster.dice import DiceRng
from storymaster.errors import AdvancementError, CheckError
from storymaster.rules import Check, RuleSystem, describe_house_rules, get_system
from storymaster.systems.bum import SYSTEM, BumCharacter, BumHouseRules

ROOT = Path(__file__).resolve().parents[3]


def test_is_a_rule_system_and_registered():
    assert isinstance(SYSTEM, RuleSystem)
    assert get_system("bum") is SYSTEM
    assert set(SYSTEM.check_types) == {"fixed", "opposed", "recheck", "sneak"}


def test_schema_file_is_current():
    published = json.loads((ROOT / "docs" / "schemas" / "bum-character.schema.json").read_text(encoding="utf-8"))
    assert published == BumCharacter.model_json_schema(), (
        "regenerate: storymaster bum schema > docs/schemas/bum-character.schema.json"
    )


def test_example_files_match_the_schema():
    import jsonschema
    import yaml

    schema = BumCharacter.model_json_schema()
    for path in sorted((ROOT / "examples" / "bum").glob("*.yaml")):
        if path.name.startswith("house-rules"):
            continue
        jsonschema.validate(yaml.safe_load(path.read_text(encoding="utf-8")), schema)


def test_every_house_rule_is_described_and_defaults_to_the_book():
    rows = describe_house_rules(BumHouseRules)
    assert all(r["description"] for r in rows)
    hr = BumHouseRules()
    assert (hr.stat_points, hr.stat_min, hr.stat_max, hr.skill_points, hr.stat_cost) == (10, 1, 4, 10, 4)
    assert hr.opposed_ties == "reroll" and not hr.longspear_first_strike and not hr.a_is_for_axe
    with pytest.raises(ValueError):
        BumHouseRules(colour="red")
    with pytest.raises(ValueError):
        BumHouseRules(stat_min=5, stat_max=4)


def test_wrong_types_are_refused(card):
    class Other(Check):
        pass

    with pytest.raises(CheckError):
        SYSTEM.odds(Other())
    with pytest.raises(CheckError):
        SYSTEM.resolve(Other(), DiceRng(1))
    with pytest.raises(AdvancementError):
        SYSTEM.advance(card("thief"), Other(), DiceRng(1))
    assert SYSTEM.validate_character(Other())[0].message.startswith("not a B.U.M.")


def test_values_are_frozen(card):
    v = card("victor-mordox")
    with pytest.raises(ValueError):
        v.name = "x"  # type: ignore[misc]


def test_public_surface():
    import storymaster.systems.bum as bum

    assert sorted(bum.__all__) == sorted(
        [
            "SYSTEM",
            "AdvanceRequest",
            "AwardPoints",
            "BumCharacter",
            "BumCombat",
            "BumHouseRules",
            "BumSystem",
            "BuySkill",
            "BuyStat",
            "FightState",
            "FixedCheck",
            "OpposedCheck",
            "RecheckCheck",
            "SneakAttackCheck",
        ]
    )
    for name in bum.__all__:
        assert hasattr(bum, name)


def test_example_house_rules_file():
    from storymaster.rules import load_model

    hr = load_model(ROOT / "examples" / "bum" / "house-rules-gritty.yaml", BumHouseRules)
    assert hr.skill_points == 5 and hr.opposed_ties == "defender" and hr.a_is_for_axe
