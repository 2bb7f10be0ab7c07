"""The system object, the character model, its validation and the published schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from pydantic import ValidationError

from storymaster.dice import DiceRng
from storymaster.errors import CheckError
from storymaster.rules import RuleSystem, describe_house_rules, get_system
from storymaster.systems.kalyr import SYSTEM
from storymaster.systems.kalyr.character import (
    Character,
    armour_value,
    damage_bonus,
    damage_reduction,
    shield_value,
    validate,
    weapon_damage,
    weapon_reach,
)
from storymaster.systems.kalyr.ladder import LADDER, level_name, on_ladder, parse_level
from storymaster.systems.kalyr.options import KalyrHouseRules

ROOT = Path(__file__).resolve().parents[3]


def test_system_satisfies_the_protocol_and_is_registered():
    assert isinstance(SYSTEM, RuleSystem)
    assert get_system("kalyr") is SYSTEM
    assert set(SYSTEM.check_types) == {"unopposed", "open", "opposed", "group"}


def test_house_rules_are_frozen_forbid_extras_and_cite_passages():
    hr = KalyrHouseRules()
    with pytest.raises(ValidationError, match="frozen"):
        hr.winner_narrates = False  # type: ignore[misc]
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        KalyrHouseRules(made_up=True)
    rows = describe_house_rules(KalyrHouseRules)
    assert len(rows) >= 15
    assert all(r["description"] for r in rows)


def test_other_house_rules_are_refused():
    from storymaster.errors import HouseRulesError
    from storymaster.rules import HouseRules

    with pytest.raises(HouseRulesError):  # the one error for house rules a system cannot take (issue 13)
        SYSTEM.odds(SYSTEM.check_types["open"](actor={"ability": "Fair"}), HouseRules())


def test_ladder_names_and_parsing():
    assert list(LADDER) == ["Terrible", "Poor", "Mediocre", "Fair", "Good", "Great", "Superb"]
    assert [LADDER[n] for n in LADDER] == list(range(-3, 4))
    assert parse_level("good") == 1 and parse_level("Superb+2") == 5 and parse_level("terrible-1") == -4
    assert parse_level(" +2 ") == 2 and parse_level("-1") == -1 and parse_level("0") == 0 and parse_level(-1) == -1
    # an unsigned number is refused: "3" could mean the third rung (Mediocre) or 3 steps from Fair (Superb)
    with pytest.raises(CheckError, match="ambiguous"):
        parse_level("3")
    assert level_name(parse_level("Superb+1")) == "Superb+1"
    with pytest.raises(CheckError):
        parse_level("Awesome")
    assert on_ladder(3) and not on_ladder(4)


def test_examples_are_legal_and_validate_against_the_schema():
    schema = json.loads((ROOT / "docs/schemas/kalyr-character.schema.json").read_text())
    for path in sorted((ROOT / "examples/kalyr").glob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        jsonschema.validate(data, schema)
        c = Character.model_validate(data)
        assert SYSTEM.validate_character(c) == [], path.name


def test_schema_file_is_fresh():
    on_disk = json.loads((ROOT / "docs/schemas/kalyr-character.schema.json").read_text())
    assert on_disk == Character.model_json_schema(), (
        "regenerate with: storymaster kalyr schema > docs/schemas/kalyr-character.schema.json"
    )


def test_derived_values(example):
    k = example("kylar")
    assert (weapon_damage(k), weapon_reach(k), armour_value(k), damage_bonus(k), damage_reduction(k)) == (
        3,
        "medium",
        2,
        1,
        0,
    )
    shielded = Character(name="S", shield="large", gifts=[{"name": "Thick Skin", "damage_reduction": 1}])
    assert shield_value(shielded) == 2 and shield_value(shielded, ranged=True) == 2 and damage_reduction(shielded) == 1
    custom = Character(
        name="C", weapon={"name": "whip", "damage": 1, "reach": "long"}, armour={"name": "chain", "armour": 3}
    )
    assert (weapon_damage(custom), weapon_reach(custom), armour_value(custom)) == (1, "long", 3)


def test_validation_lists_every_problem():
    c = Character(
        name="Bad",
        abilities=[
            {"name": "Melee", "level": "Superb+1"},
            {"name": "melee", "level": "Fair"},
            {"name": "Mind Blast", "level": "Poor", "kind": "psionic", "power": "Telepathy"},
            {"name": "Mind Read", "level": "Poor", "kind": "psionic"},
            {"name": "Swim", "level": "Terrible"},
        ],
        connections=[{"organisation": "Legion", "level": "Poor"}, {"organisation": "legion", "level": "Fair"}],
        keys=[{"name": "Greed"}, {"name": "greed"}],
        weapon={"name": "laser"},
        armour={"name": "forcefield"},
        role="cannon_fodder",
        fudge_points=1,
        raised_this_scene=("ability:x", "ability:x"),
        damage={
            "physical": {"wounds": [{"severity": "Very Hurt", "box": "Hurt"}, {"severity": "Hurt", "box": "Hurt"}]}
        },
    )
    problems = SYSTEM.validate_character(c)
    wheres = " | ".join(str(p) for p in problems)
    for expected in (
        "off the Trait Ladder",
        "listed twice",
        "not in powers",
        "must name its power",
        "below the Poor default",
        "outside Mediocre..Superb",
        "Key is listed twice",
        "unknown weapon",
        "unknown armour",
        "cannon-fodder",
        "raised twice",
        "marked below its own level",
        "in the Hurt box",
    ):
        assert expected in wheres, expected
    assert len(problems) >= 13


def test_incompetence_allows_a_terrible_listing():
    c = Character(name="Ok", abilities=[{"name": "Swim", "level": "Terrible"}], incompetences=["Swim"])
    assert validate(c) == []


def test_advance_ignores_rng_and_checks_type():
    from storymaster.systems.kalyr.advancement import EndScene

    _c, ev = SYSTEM.advance(Character(name="X"), EndScene(), DiceRng(1))
    assert ev[0].kind == "scene"
    assert SYSTEM.validate_character(KalyrHouseRules())[0].message.startswith("not a Kalyr character")
