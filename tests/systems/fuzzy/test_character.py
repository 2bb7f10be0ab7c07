"""Characters: validation (every problem, not the first), spot rules, derived values, examples, schema."""

from __future__ import annotations

import json

import pytest
from fuzzy_helpers import EXAMPLES, ROOT
from pydantic import ValidationError

from storymaster.errors import InputFileError
from storymaster.rules import load_model
from storymaster.systems.fuzzy import SYSTEM
from storymaster.systems.fuzzy.character import (
    Ability,
    Disability,
    FuzzyCharacter,
    GmAdjustments,
    RequiredAbilities,
    advice,
    dice_for,
    find_ability,
    karma,
    sheet,
)
from storymaster.systems.fuzzy.options import FuzzyHouseRules


def load(name: str) -> FuzzyCharacter:
    return load_model(EXAMPLES / f"{name}.yaml", FuzzyCharacter)


@pytest.mark.parametrize("name", ["achmed", "sven", "rincewind", "detritus"])
def test_examples_are_legal(name):
    assert SYSTEM.validate_character(load(name)) == []


def test_example_karma():
    assert (karma(load("achmed")).total, karma(load("achmed")).luck, karma(load("achmed")).unluck) == (19, 5, 1)
    k = karma(load("detritus"))  # Body 7 costs 9
    assert (k.total, k.luck, k.unluck) == (23, 2, 2)


def test_every_problem_is_listed():
    c = FuzzyCharacter(
        name="Bad",
        required=RequiredAbilities(body=0, tenacity=0),
        abilities=(
            Ability(name="Body", rating=2),
            Ability(name="Wizard", rating=2, big_magic=True, powers=("Fireball",)),
            Ability(name="Dud", rating=0),
            Ability(name="Sword", rating=2, powers=("x",)),
        ),
        disabilities=(Disability(name="Clumsy", rating=1, hinders="Juggling"),),
        gm=GmAdjustments(veto="too silly"),
    )
    problems = SYSTEM.validate_character(c)
    wheres = [p.where for p in problems]
    assert "required.body" in wheres and "required.tenacity" in wheres
    assert "abilities[0]" in wheres  # same name as a required Ability
    assert "abilities[1].powers" in wheres  # one power per die
    assert "abilities[2].rating" in wheres
    assert "abilities[3].powers" in wheres
    assert "disabilities[0].hinders" in wheres
    assert "gm.veto" in wheres
    assert all(p.rule for p in problems)


def test_big_magic_one_power_per_die():
    """'Some Spot Rules': a Wizard 3 buys three big things."""
    ok = FuzzyCharacter(
        name="W",
        abilities=(Ability(name="Wizard", rating=3, big_magic=True, powers=("Fireball", "Crystal ball", "Frogs")),),
    )
    assert SYSTEM.validate_character(ok) == []
    god = FuzzyCharacter(
        name="G",
        abilities=(Ability(name="God", rating=2, big_magic=True, powers=("Invisible", "Hear Prayers", "Lightning")),),
    )
    assert [p.where for p in SYSTEM.validate_character(god)] == ["abilities[0].powers"]
    generous = FuzzyHouseRules(big_magic_extra_powers=1)
    assert SYSTEM.validate_character(god, generous) == []


def test_clumsy_subtracts_from_body_only_when_hindered():
    """'subtract your Clumsy dice from your Body dice before rolling, to a minimum of 1'."""
    sven = load("sven")
    assert dice_for(sven, "Body") == (4, 0)
    assert dice_for(sven, "body", hindered=True) == (4, 1)
    assert dice_for(sven, "Sailor", hindered=True) == (3, 0)


def test_find_ability_knows_luck_and_unluck_and_refuses_unknowns():
    c = load("detritus")
    assert find_ability(c, "luck") == ("Luck", 2)
    assert find_ability(c, "UNLUCK") == ("Unluck", 2)
    assert find_ability(c, "watchman") == ("Watchman", 3)
    from storymaster.errors import CheckError

    with pytest.raises(CheckError, match="no ability called"):
        find_ability(c, "Juggling")


def test_advice_is_not_an_error():
    c = FuzzyCharacter(name="Plain")
    assert SYSTEM.validate_character(c) == []
    assert any("two or three" in n for n in advice(c))
    god = FuzzyCharacter(name="G", abilities=(Ability(name="God", rating=8), Ability(name="B", rating=1)))
    assert any("God 8" in n for n in advice(god))


def test_discworld_guide_notes_a_body_outside_the_species_range():
    h = FuzzyHouseRules(discworld_body_guide=True)
    gnome = FuzzyCharacter(
        name="Gnome",
        species="gnome",
        required=RequiredAbilities(body=5),
        abilities=(Ability(name="A", rating=1), Ability(name="B", rating=1)),
    )
    assert any("outside the Discworld guide for gnome (1-3)" in n for n in advice(gnome, h))
    assert not any("Discworld" in n for n in advice(gnome))
    assert sheet(gnome, h)["discworld_body_guide"]["kinds"]


def test_gm_luck_subtraction_below_zero_is_a_problem():
    spare = (Ability(name="A", rating=4), Ability(name="B", rating=4), Ability(name="C", rating=4))
    c = FuzzyCharacter(name="Jinx", abilities=spare, gm=GmAdjustments(luck=-4))
    assert karma(c).luck == 0
    # the cap of 5 discards extra Luck first; the GM's change applies to what is left
    rich = FuzzyCharacter(name="Rich", gm=GmAdjustments(luck=-4))
    assert (karma(rich).luck_from_baseline, karma(rich).luck_discarded, karma(rich).luck) == (5, 9, 1)
    assert [p.where for p in SYSTEM.validate_character(c)] == ["gm.luck"]


def test_sheet_has_derived_values():
    s = sheet(load("achmed"))
    assert s["luck"] == 5 and s["unluck"] == 1
    assert s["karma"]["total"] == 19
    assert s["problems"] == []


def test_unknown_fields_are_refused_with_the_field_named(tmp_path):
    p = tmp_path / "x.yaml"
    p.write_text("name: X\nrequired:\n  bodyy: 3\n")
    with pytest.raises(InputFileError, match=r"required\.bodyy"):
        load_model(p, FuzzyCharacter)


def test_characters_are_frozen():
    c = load("sven")
    with pytest.raises(ValidationError, match="frozen"):
        c.name = "Other"  # type: ignore[misc]


def test_published_schema_is_current():
    published = json.loads((ROOT / "docs" / "schemas" / "fuzzy-character.schema.json").read_text())
    assert published == FuzzyCharacter.model_json_schema()


def test_examples_validate_against_the_published_schema():
    import jsonschema
    import yaml

    schema = json.loads((ROOT / "docs" / "schemas" / "fuzzy-character.schema.json").read_text())
    for path in EXAMPLES.glob("*.yaml"):
        jsonschema.validate(yaml.safe_load(path.read_text()), schema)
