"""Creation rules: stats, skill points, skill kinds and bases, abilities, gear; every problem reported."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from philsys_helpers import example

from storymaster.systems.philsys import SYSTEM
from storymaster.systems.philsys.character import (
    Ability,
    Armor,
    Character,
    Skill,
    Stats,
    Weapon,
    at_pa,
    base_at_pa,
    movement_yards,
    skill_points,
    skill_points_spent,
    strength_penalty,
)
from storymaster.systems.philsys.options import PhilsysHouseRules
from storymaster.systems.philsys.tables import STAT_NAMES


@pytest.mark.parametrize("name", ["aya", "guard", "chandler", "knight", "hakaril"])
def test_examples_are_legal(name):
    assert SYSTEM.validate_character(example(name)) == []


def _wheres(c, hr=None):
    return [p.where for p in SYSTEM.validate_character(c, hr)]


def test_stat_ranges():
    c = Character(name="x", stats=Stats(STR=11, CHA=-6, MAG=7))
    where = _wheres(c)
    assert {"stats.STR", "stats.CHA", "stats.MAG"} <= set(where)
    assert "stats.MAG" in _wheres(Character(name="x", stats=Stats(MAG=-1)))


def test_21_points_and_negative_stats_add_points():
    ok = Character(name="x", stats=Stats(STR=-1, COU=10, AGI=10, MAG=2))  # 21 with the -1
    assert _wheres(ok) == []
    over = Character(name="x", stats=Stats(COU=10, AGI=10, MAG=2))
    assert _wheres(over) == ["stats"]


def test_every_problem_is_reported_not_just_the_first():
    c = Character(
        name="x",
        stats=Stats(STR=12, INT=0),
        skills=[
            Skill(name="Trick", bases=("DEX", "DEX", "DEX"), rank=5),
            Skill(name="Lore", kind="knowledge", bases=("WIS", "INT", "WIS"), rank=2),
            Skill(name="Observation", kind="support", bases=("INT", "INT", "WIS"), rank=1, requires={"INT": 3}),
        ],
        abilities=[Ability(name="Spark", skill="Fire Magic", rank=1, cost={"mp": 3})],
    )
    problems = SYSTEM.validate_character(c)
    text = " | ".join(map(str, problems))
    assert len(problems) >= 6, text
    assert "same base three times" in text
    assert "above the first-level cap" in text
    assert "<Wis/Wis/Wis>" in text
    assert "needs INT +3" in text
    assert "MAG 0 cannot cast" in text
    assert "needs Fire Magic rank 1" in text


def test_skill_points_budget_and_costs():
    c = Character(name="x", stats=Stats(INT=2, WIS=1))
    assert skill_points(c) == 26
    skills = [
        Skill(name="A", bases=("DEX", "DEX", "INT"), rank=4),  # 4
        Skill(name="B", kind="knowledge", rank=3),  # 1.5
        Skill(name="C", kind="support", bases=("INT", "INT", "WIS"), rank=2),  # 1
        Skill(
            name="Improved Critical Striking", kind="support", bases=("COU", "AGI", "STR"), rank=2, cost_per_rank=3
        ),  # 6
    ]
    c = c.model_copy(update={"skills": skills})
    assert skill_points_spent(c) == 12.5
    assert _wheres(c) == []
    many = [Skill(name=f"S{i}", bases=("DEX", "DEX", "INT"), rank=4) for i in range(7)]
    assert "skills" in _wheres(c.model_copy(update={"skills": many}))


def test_rank_cap_only_at_first_level():
    sk = [Skill(name="A", bases=("DEX", "DEX", "INT"), rank=6)]
    assert _wheres(Character(name="x", skills=sk)) == ["skills[0] A"]
    assert _wheres(Character(name="x", level=3, skills=sk)) == []


def test_default_bases_of_weapon_and_magic_skills():
    assert Skill(name="Swords", category="melee").effective_bases() == ("COU", "STR", "AGI")
    assert Skill(name="Daggers", category="melee", light=True).effective_bases() == ("COU", "DEX", "AGI")
    assert Skill(name="Fire Magic", category="magic").effective_bases() == ("INT", "WIS", "MAG")
    assert Skill(name="Geology", kind="knowledge").effective_bases() == ("WIS", "WIS", "WIS")
    bad = Character(name="x", skills=[Skill(name="Ice", category="magic", bases=("INT", "INT", "MAG"), rank=1)])
    assert "magic schools" in str(SYSTEM.validate_character(bad)[0])
    missing = Character(name="x", skills=[Skill(name="Cooking", rank=1)])
    assert "three base attributes" in str(SYSTEM.validate_character(missing)[0])


def test_normal_skills_cost_one_and_weapon_skills_are_normal():
    c = Character(
        name="x",
        skills=[
            Skill(name="Swords", category="melee", kind="support", rank=1),
            Skill(name="Odd", bases=("DEX", "INT", "AGI"), cost_per_rank=0.5, rank=1),
        ],
    )
    text = " ".join(map(str, SYSTEM.validate_character(c)))
    assert "always normal skills" in text and "cost 1 point per rank" in text


def test_innate_and_item_abilities_need_no_skill():
    c = Character(
        name="x",
        stats=Stats(MAG=1),
        abilities=[
            Ability(name="Fire Resistance", source="innate"),
            Ability(name="Ring Flash", source="item", cost={"mp": 2}),
        ],
    )
    assert _wheres(c) == []
    assert [a.requirement_text for a in c.abilities] == ["[Innate]", "[Item-granted]"]
    assert c.abilities[1].is_spell and not c.abilities[1].is_tech


def test_light_weapons_may_use_dexterity():
    c = Character(
        name="x",
        stats=Stats(AGI=2, INT=1, STR=0, DEX=4, COU=1),
        equipment={"weapon": Weapon(name="Dagger", damage=(6, 4, 2), light=True)},
    )
    assert base_at_pa(c) == 2 + 1 + 4 + 1
    heavy = Character(name="x", stats=c.stats, equipment={"weapon": Weapon(name="Axe", damage=(4, 10, 14))})
    assert base_at_pa(heavy) == 2 + 1 + 0 + 1


def test_strength_requirement_forbid_or_penalty():
    c = Character(
        name="x",
        stats=Stats(STR=1),
        equipment={
            "weapon": Weapon(name="Maul", damage=(5, 10, 20), strength=3),
            "armor": Armor(name="Plate", ac=30, pa=-3, strength=2),
        },
    )
    problems = SYSTEM.validate_character(c)
    assert len(problems) == 2 and all("strength requirement" in p.rule for p in problems)
    hr = PhilsysHouseRules(strength_requirement="penalty")
    assert SYSTEM.validate_character(c, hr) == []
    assert strength_penalty(c, hr) == 2 * 2 + 2 * 1
    base = base_at_pa(c)
    assert at_pa(c, hr) == (base - 6, base - 3 - 6)


def test_movement_on_a_hexboard():
    c = Character(name="x", stats=Stats(AGI=2))
    assert movement_yards(c) == 5 and movement_yards(c, double=True) == 10
    assert movement_yards(Character(name="y", stats=Stats(AGI=-5))) == 0


def test_duplicate_skills_are_refused_at_load():
    with pytest.raises(Exception):
        Character(
            name="x",
            skills=[Skill(name="A", bases=("DEX", "DEX", "INT")), Skill(name="a", bases=("DEX", "DEX", "INT"))],
        )


def test_characters_are_frozen():
    c = example("aya")
    with pytest.raises(Exception):
        c.name = "other"  # type: ignore[misc]


@given(st.lists(st.integers(-5, 10), min_size=8, max_size=8), st.integers(0, 6))
def test_stat_budget_property(values, mag):
    stats = Stats(**dict(zip(STAT_NAMES[:8], values, strict=True)), MAG=mag)
    c = Character(name="p", stats=stats)
    problems = SYSTEM.validate_character(c)
    assert (sum(values) + mag > 21) == any(p.where == "stats" for p in problems)
    assert not any(p.where.startswith("stats.") for p in problems)


def test_magic_tiers():
    from storymaster.systems.philsys.character import magic_tier

    assert [magic_tier(Character(name="x", stats=Stats(MAG=m))) for m in (0, 2, 3, 4)] == [
        "cannot cast magic",
        "can cast",
        "mage",
        "mage; reads the astral plane at will",
    ]
