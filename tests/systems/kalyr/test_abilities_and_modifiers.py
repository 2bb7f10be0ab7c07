"""Choosing the ability and the modifiers (Kalyr RPG ch. 3: Deciding What Ability to Use; Modifiers)."""

from __future__ import annotations

import pytest

from storymaster.errors import CheckError
from storymaster.systems.kalyr.abilities import (
    ability_level,
    build_roll,
    equipment_modifier,
    race_modifier,
    rank_modifier,
    situation_modifier,
)
from storymaster.systems.kalyr.character import Character
from storymaster.systems.kalyr.ladder import parse_level

L = parse_level


def test_no_ability_is_poor_or_terrible_under_an_incompetence(example):
    karela = example("karela")
    assert ability_level(karela, "Climbing")[0] == L("Poor")
    assert ability_level(karela, "Swimming")[0] == L("Terrible")
    assert ability_level(karela, "Climbing", incompetent=True)[0] == L("Terrible")


def test_similar_ability_penalty(example):
    karela = example("karela")
    assert ability_level(karela, "Sword", similar="Melee Combat (Knife)", similar_penalty=-1)[0] == L("Mediocre")
    assert ability_level(karela, "Sword", similar="Melee Combat (Knife)", similar_penalty=-2)[0] == L("Poor")
    with pytest.raises(CheckError):
        ability_level(karela, "Sword", similar="Melee Combat (Knife)", similar_penalty=1)
    with pytest.raises(CheckError):
        ability_level(karela, "Sword", similar="Axe")


def test_equipment_and_situation():
    assert [equipment_modifier(q) for q in ("fine", "normal", "poor")] == [1, 0, -1]
    assert situation_modifier(2) == 2
    with pytest.raises(CheckError):
        situation_modifier(3)


def test_race_and_intolerance():
    human = Character(name="H", race="human")
    kandar = Character(name="K", race="kandar")
    bigot = Character(name="B", race="kandar", intolerance="very_intolerant")
    assert race_modifier(human, Character(name="H2", race="Human")) == 0
    assert race_modifier(human, kandar) == -1
    assert race_modifier(human, bigot) == -2


def test_social_rank_by_connections():
    low = Character(name="Low", connections=[{"organisation": "Legion", "level": "Mediocre"}])
    high = Character(
        name="High",
        connections=[{"organisation": "Legion", "level": "Great"}, {"organisation": "Temple", "level": "Fair"}],
    )
    assert rank_modifier(low, high) == -3
    assert rank_modifier(high, low) == 1
    assert rank_modifier(low, high, "Temple") == -2  # no Temple connection counts as Poor, against Fair
    nobody = Character(name="Nobody")
    assert rank_modifier(nobody, low) == -1  # no connection counts as Poor (ruling K8)


def test_rank_with_one_organisation_only():
    a = Character(name="A", connections=[{"organisation": "Temple", "level": "Good"}])
    b = Character(
        name="B",
        connections=[{"organisation": "Temple", "level": "Fair"}, {"organisation": "Legion", "level": "Superb"}],
    )
    assert rank_modifier(a, b) == -2  # Good against their highest, Superb
    assert rank_modifier(a, b, "Temple") == 1


def test_build_roll_persuasion_stacks_race_and_rank():
    envoy = Character(
        name="Envoy", race="human", abilities=[{"name": "Diplomacy", "level": "Great", "track": "social"}]
    )
    lord = Character(
        name="Lord",
        race="kandar",
        intolerance="very_intolerant",
        connections=[{"organisation": "Court", "level": "Fair"}],
    )
    r, notes = build_roll(envoy, "Diplomacy", persuade=lord, situation=1)
    assert r.effective == L("Great") - 2 - 2 + 1
    assert any("race" in n for n in notes) and any("rank" in n for n in notes)


def test_build_roll_refuses_when_defeated_on_that_track():
    c = Character(
        name="X",
        abilities=[{"name": "Melee", "level": "Good"}],
        damage={"physical": {"wounds": [{"severity": "Defeated", "box": "Defeated"}]}},
    )
    with pytest.raises(CheckError):
        build_roll(c, "Melee")
