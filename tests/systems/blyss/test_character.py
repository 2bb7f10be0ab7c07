"""Characters: CP accounting, creation guidelines, derived values, templates, schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from storymaster.rules import RuleSystem, get_system, load_model
from storymaster.systems.blyss import SYSTEM
from storymaster.systems.blyss.character import (
    Attributes,
    Character,
    Trait,
    character_pool,
    cp_budget,
    cp_left,
    cp_spent,
    derived_values,
    movement_feet,
    statistic_rank,
    strength_damage_bonus,
    template_character,
    templates,
    trait_cp,
    validate_character,
)
from storymaster.systems.blyss.options import BlyssHouseRules

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "blyss"


def test_protocol_and_registry() -> None:
    assert isinstance(SYSTEM, RuleSystem)
    assert get_system("blyss") is SYSTEM
    assert SYSTEM.name == "blyss" and SYSTEM.version == "3.5"


def test_derived_formulas() -> None:
    a = Attributes(strength=5, stamina=4, agility=4, dexterity=3, wits=6)
    c = Character(name="x", attributes=a, extra_dodges=2, extra_flesh_wounds=1, extra_health=5)
    d = derived_values(c)
    assert d["Melee Attack"] == 4  # (5 + 4) / 2 rounded down
    assert d["Ranged Attack"] == 3  # (4 + 3) / 2
    assert d["Defence"] == 5 and d["Initiative"] == 5  # (4 + 6) / 2
    assert d["Dodges"] == 6  # Agility + 2 bought
    assert d["Flesh Wounds"] == 5  # Stamina + 1
    assert d["Health"] == 29  # Stamina * 6 + 5
    assert d["Movement (ft)"] == 33
    assert d["Strength damage bonus"] == 2


def test_strength_and_movement_scales() -> None:
    assert [strength_damage_bonus(r) for r in (1, 2, 3, 4, 6)] == [-2, -1, 0, 1, 3]
    assert [movement_feet(r) for r in (1, 2, 3, 4, 7)] == [18, 24, 30, 33, 42]


def test_cp_spent_average_human() -> None:
    c = Character(name="Average")
    assert cp_spent(c) == 9 * 24  # nine Average Attributes at 24 CP each
    assert cp_left(c) == 400 - 216


def test_trait_costs() -> None:
    hr = BlyssHouseRules()
    assert trait_cp(Trait(name="Sneak", rank=5), hr) == 32
    assert trait_cp(Trait(name="Sneak", rank=6), hr) == 48  # not the printed 49
    assert trait_cp(Trait(name="Luck", kind="talent", rank=4), hr) == 30
    assert trait_cp(Trait(name="Keen Sight", kind="natural", rank=3), hr) == 24
    assert trait_cp(Trait(name="Clumsy", kind="talent", rank=2, negative=True), hr) == -12
    assert trait_cp(Trait(name="Clumsy", kind="talent", rank=2, negative=True, acquired_after_creation=True), hr) == 0
    assert trait_cp(Trait(name="Extra Arm", kind="natural", single_advantage=True), hr) == 24
    assert trait_cp(Trait(name="One Eye", kind="natural", single_advantage=True, negative=True), hr) == -24
    assert (
        trait_cp(
            Trait(name="Extra Arm", kind="natural", single_advantage=True), BlyssHouseRules(single_advantage_cost=40)
        )
        == 40
    )
    assert trait_cp(Trait(name="Mental Games", rank=3, specialisations=("Gambling", "Card Games")), hr) == 14
    assert trait_cp(Trait(name="Kaloman", rank=3, free=True), hr) == 0  # the native tongue
    assert trait_cp(Trait(name="Kaloman", rank=4, free=True), hr) == 8  # pays for rank 4 only
    assert trait_cp(Trait(name="Sneak", rank=3, progress=5), hr) == 17


def test_specialisation_ranks() -> None:
    c = Character(
        name="Gambler", traits=(Trait(name="Mental Games", rank=3, specialisations=("Gambling", "Card Games")),)
    )
    assert statistic_rank(c, "Mental Games") == (3, False)
    assert statistic_rank(c, "Mental Games[Gambling]") == (4, False)
    assert statistic_rank(c, "Mental Games[Gambling; Card Games]") == (5, False)
    assert statistic_rank(c, "Mental Games[Gambling; Card Games; Poker]") == (5, False)  # Poker not paid for
    assert statistic_rank(c, "Mental Games[Dice]") == (3, False)


def test_character_pool_with_negative_trait() -> None:
    c = Character(
        name="Inept",
        attributes=Attributes(dexterity=4),
        traits=(Trait(name="Clumsy", kind="talent", rank=2, negative=True),),
    )
    pool = character_pool(c, ["Dexterity", "Clumsy"])
    assert pool.ranks == (4,) and pool.negative_ranks == 2
    assert pool.effective_ranks() == (2,)


def test_every_violation_is_reported() -> None:
    c = load_model(EXAMPLES / "illegal.yaml", Character)
    problems = validate_character(c)
    wheres = {p.where for p in problems}
    assert {"attributes.strength", "attributes.wits", "extra_dodges", "cp"} <= wheres
    assert any("Derived Attribute" in p.message for p in problems)
    assert any("single-advantage" in p.message for p in problems)
    assert len(problems) == 6


def test_creation_cap_reading() -> None:
    c = Character(name="x", attributes=Attributes(strength=6))
    assert validate_character(c) == []
    assert any("cap" in p.message for p in validate_character(c, BlyssHouseRules(creation_rank_cap=5)))


def test_zero_attribute_with_permission() -> None:
    c = Character(name="x", attributes=Attributes(charisma=0))
    assert len(validate_character(c)) == 1
    assert validate_character(c, BlyssHouseRules(zero_rank_attributes_allowed=True)) == []


def test_partial_cp_and_free_traits_validation() -> None:
    c = Character(
        name="x",
        attribute_progress={"Strength": 16},
        traits=(
            Trait(name="A", rank=2, free=True),
            Trait(name="B", rank=2, free=True),
            Trait(name="C", rank=1, progress=4),
        ),
    )
    msgs = [p.message for p in validate_character(c)]
    assert any("16 CP towards" in m for m in msgs)
    assert any("marked free" in m for m in msgs)
    assert any("4 CP towards" in m for m in msgs)
    ok = Character(name="x", traits=(Trait(name="A", rank=2, free=True), Trait(name="Riding", rank=3, free=True)))
    assert validate_character(ok, BlyssHouseRules(free_common_traits=("Riding",))) == []


def test_required_specialisation() -> None:
    c = Character(name="x", traits=(Trait(name="Knowledge", rank=2),))
    assert validate_character(c) == []
    assert validate_character(c, BlyssHouseRules(required_specialisation=("Knowledge",)))


def test_after_creation_the_guidelines_no_longer_bind() -> None:
    c = Character(name="Veteran", attributes=Attributes(strength=7), cp_earned=200, extra_dodges=8)
    assert validate_character(c) == []


@pytest.mark.parametrize("key", ["craftsman", "expert", "rogue", "warrior"])
def test_templates_are_legal_starting_points(key: str) -> None:
    c = template_character(key, "Tester")
    assert validate_character(c) == []
    tpl = templates()[key]
    for attr in tpl["priority_attributes"]:
        assert c.attributes.of(attr) > 3
    assert {t.name for t in c.traits} == {t["name"] for t in tpl["suggested_traits"]}
    assert 0 < cp_left(c) < 100


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.stem)
def test_examples_load_and_validate_against_schema(path: Path) -> None:
    c = load_model(path, Character)
    schema = json.loads((ROOT / "docs" / "schemas" / "blyss-character.schema.json").read_text())
    jsonschema.validate(yaml.safe_load(path.read_text()), schema)
    legal = path.stem != "illegal"
    assert (validate_character(c) == []) == legal


def test_schema_file_is_fresh() -> None:
    published = json.loads((ROOT / "docs" / "schemas" / "blyss-character.schema.json").read_text())
    assert published == Character.model_json_schema()


def test_negative_traits_need_a_positive_statistic() -> None:
    from storymaster.errors import CheckError

    c = Character(
        name="x",
        traits=(
            Trait(name="Clumsy", kind="talent", rank=2, negative=True),
            Trait(name="Slow", kind="natural", rank=1, negative=True),
        ),
    )
    with pytest.raises(CheckError, match="positive statistic"):
        character_pool(c, ["Clumsy", "Slow"])
    with pytest.raises(CheckError, match="no statistic"):
        character_pool(c, ["Flying"])
    pool = character_pool(c, ["Agility", "Clumsy", "Slow"])
    assert pool.negative_ranks == 3 and pool.effective_ranks() == (0,)


def _file(tmp_path, **changes):
    data = yaml.safe_load((EXAMPLES / "rogue.yaml").read_text())
    data.update(changes)
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(data))
    return path, data


def test_the_cp_budget_is_the_campaigns_not_the_files(tmp_path) -> None:
    """Building the Character: 400 CP. A file cannot raise it; the campaign's house rules (starting_cp) can."""
    from storymaster.errors import InputFileError

    path, _ = _file(tmp_path, cp_budget=1000)
    with pytest.raises(InputFileError, match="cannot set its own CP budget"):
        load_model(path, Character)
    c = load_model(_file(tmp_path)[0], Character)
    spent = cp_spent(c)
    assert cp_budget(c) == 400 and cp_left(c) == 400 - spent
    rich = BlyssHouseRules(starting_cp=500)
    assert cp_budget(c, rich) == 500 and cp_left(c, rich) == 500 - spent
    # an older file's budget below 400 was Deterioration's doing: it becomes CP lost
    old = load_model(_file(tmp_path, cp_budget=390)[0], Character)
    assert old.cp_lost == 10 and cp_budget(old) == 390


def test_a_file_must_name_every_attribute(tmp_path) -> None:
    from storymaster.errors import InputFileError

    path, data = _file(tmp_path)
    del data["attributes"]["wits"]
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(InputFileError, match="Wits missing"):
        load_model(path, Character)
    # code may still leave Attributes at the book's Average
    assert Character(name="x").attributes.wits == 3


def test_damaged_armour_rating_twin_and_thirds() -> None:
    """Ruling 9: a third of the original (rounded down) per life lost. AR 5: 5, 4, 3, 2 at 3..0 lives (a third
    rounded up or to nearest, 2, would give 3, 1, 0 instead); the array form agrees on every input."""
    import numpy as np

    from storymaster.systems.blyss.character import damaged_armour_rating, damaged_armour_rating_v

    assert [damaged_armour_rating(5, lives) for lives in (3, 2, 1, 0)] == [5, 4, 3, 2]
    assert [damaged_armour_rating(9, lives) for lives in (3, 2, 1, 0)] == [9, 6, 3, 0]
    ratings, lives = np.meshgrid(np.arange(0, 21), np.arange(0, 4))
    got = damaged_armour_rating_v(ratings, lives)
    assert all(
        int(got[i, j]) == damaged_armour_rating(int(ratings[i, j]), int(lives[i, j]))
        for i in range(lives.shape[0])
        for j in range(ratings.shape[1])
    )
