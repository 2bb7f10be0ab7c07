"""The system object, the registry, the schema file and the house-rules model."""

from __future__ import annotations

import json

import pytest
from philsys_helpers import ROOT
from pydantic import ValidationError

from storymaster.rules import CombatEngine, RuleSystem, describe_house_rules, get_system
from storymaster.systems.philsys import SYSTEM
from storymaster.systems.philsys.character import Character
from storymaster.systems.philsys.options import PhilsysHouseRules


def test_system_satisfies_the_protocol():
    assert isinstance(SYSTEM, RuleSystem)
    assert isinstance(SYSTEM.combat, CombatEngine)
    assert get_system("philsys") is SYSTEM
    assert SYSTEM.name == "philsys"
    assert set(SYSTEM.check_types) == {"check", "stat", "skill", "opposed", "melee", "missile", "magic"}


def test_schema_file_is_fresh():
    path = ROOT / "docs" / "schemas" / "philsys-character.schema.json"
    assert json.loads(path.read_text(encoding="utf-8")) == Character.model_json_schema(), (
        "regenerate with: storymaster philsys schema > docs/schemas/philsys-character.schema.json"
    )


def test_house_rules_default_to_the_rulings_and_describe_themselves():
    hr = PhilsysHouseRules()
    assert hr.initiative_formula == "agi_cou"
    assert hr.melee_damage == "thrust_slash_chop"
    assert hr.skill_raise_roll == "example"
    assert not hr.bleeding and not hr.near_miss_half_damage
    rows = describe_house_rules(PhilsysHouseRules)
    assert all(r["description"] for r in rows)
    assert len(rows) == len(PhilsysHouseRules.model_fields)


def test_house_rules_are_frozen_and_strict():
    hr = PhilsysHouseRules()
    with pytest.raises(ValidationError):
        hr.bleeding = True  # type: ignore[misc]
    with pytest.raises(ValidationError):
        PhilsysHouseRules(no_such_rule=True)  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        PhilsysHouseRules(critical_health_penalty=7)


def test_examples_validate_against_the_published_schema():
    import jsonschema
    import yaml

    schema = json.loads((ROOT / "docs" / "schemas" / "philsys-character.schema.json").read_text(encoding="utf-8"))
    files = sorted((ROOT / "examples" / "philsys").glob("*.yaml"))
    assert len(files) >= 5
    for path in files:
        jsonschema.validate(yaml.safe_load(path.read_text(encoding="utf-8")), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"name": "x", "equipment": {"weapon": "Vorpal Blade"}}, schema)
