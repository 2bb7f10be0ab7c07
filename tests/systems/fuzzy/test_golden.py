"""The book's own numbers, pinned: difficulty table, karma arithmetic, wound thresholds, Tenacity 7, costs."""

from __future__ import annotations

import pytest

from storymaster.systems.fuzzy.advancement import buy_cost, lower_disability_cost, new_disability_award, raise_cost
from storymaster.systems.fuzzy.character import (
    Ability,
    Disability,
    FuzzyCharacter,
    GmAdjustments,
    RequiredAbilities,
    ability_karma_cost,
    karma,
)
from storymaster.systems.fuzzy.combat import Wound, harm_level, opponents_penalty, wound_penalty
from storymaster.systems.fuzzy.options import FuzzyHouseRules
from storymaster.systems.fuzzy.tables import (
    combat_table,
    difficulties,
    difficulty_dice,
    discworld_body,
    fit_modifiers,
    wound_levels,
)


def test_difficulty_table_is_the_books():
    """'Dice-Rolling': easy 4, average 7, hard 11, really hard 14, nigh-impossible 18."""
    assert difficulties() == {"easy": 4, "average": 7, "hard": 11, "really hard": 14, "nigh-impossible": 18}


@pytest.mark.parametrize("name", ["easy", "average", "hard", "really hard", "nigh-impossible"])
def test_each_difficulty_is_the_average_of_its_dice_rounded_up(name):
    """'1 die is 3.5, so an easy task's difficulty is 4' ... '5 dice is 17.5, so ... 18'."""
    n = difficulty_dice()[name]
    average = 3.5 * n
    assert difficulties()[name] == -int(-average // 1)


def test_task_fit_modifiers():
    """'+1 ... doesn't quite fit', '+2 ... only barely relates'."""
    assert fit_modifiers() == {"fits": 0, "not quite": 1, "barely": 2}


def test_combat_modifier_tables():
    assert combat_table("encumbrance") == {"none": 0, "heavy": -1, "really heavy": -2}
    assert combat_table("appropriateness") == {"equal": 0, "slightly more": 1, "a lot more": 2}
    assert combat_table("opponents") == {"one": 0, "multiple": 1, "huge crowd": 2}
    assert combat_table("weapon") == {
        "harmless": None,
        "terribly ineffective": 2,
        "not-so-lethal": 1,
        "normal": 0,
        "especially damaging": -1,
        "really deadly": -2,
    }
    assert combat_table("armour") == {"none": 0, "armour": 1, "super-duper": 2}
    assert combat_table("stance") == {
        "normal": 0,
        "defensive": 1,
        "all-out defence": 2,
        "offensive": -1,
        "all-out attack": -2,
    }
    assert combat_table("intent") == {"lethal": 0, "non-lethal": 2, "non-lethal with an unsuitable weapon": 4}


# -- karma ------------------------------------------------------------------------------------------


def test_an_ability_of_7_costs_9():
    """'So an Ability of 7 would "cost" 9 points.'"""
    assert ability_karma_cost(7) == 9


@pytest.mark.parametrize("rating,cost", [(1, 1), (2, 2), (5, 5), (6, 7), (7, 9), (8, 11), (20, 35)])
def test_dice_above_five_count_double(rating, cost):
    assert ability_karma_cost(rating) == cost


def _char(required=(2, 2, 2, 2, 2), abilities=(), disabilities=(), gm=GmAdjustments()):
    return FuzzyCharacter(
        name="T",
        required=RequiredAbilities(
            **dict(zip(("cleverness", "body", "knowledge", "perception", "tenacity"), required, strict=True))
        ),
        abilities=tuple(Ability(name=n, rating=r) for n, r in abilities),
        disabilities=tuple(Disability(name=n, rating=r) for n, r in disabilities),
        gm=gm,
    )


def test_baseline_22_is_two_in_each_required_plus_twelve():
    """'Twenty-two gives you two dice in all the standard Attributes, plus twelve more to play with.'"""
    c = _char(abilities=[("A", 4), ("B", 4), ("C", 4)])
    k = karma(c)
    assert (k.total, k.baseline, k.luck, k.unluck) == (22, 22, 2, 1)


def test_points_below_the_baseline_add_luck():
    c = _char(abilities=[("A", 4), ("B", 4), ("C", 2)])  # 20: two below
    k = karma(c)
    assert (k.total, k.below, k.luck, k.unluck) == (20, 2, 4, 1)


def test_luck_never_exceeds_five_and_the_rest_is_discarded():
    c = _char(abilities=[("A", 2)])  # 12: ten below
    k = karma(c)
    assert (k.luck, k.luck_discarded, k.unluck) == (5, 7, 1)


def test_points_above_the_baseline_add_unluck_without_a_cap():
    c = _char(abilities=[("God", 20)])  # 10 + 35 = 45: 23 above
    k = karma(c)
    assert (k.total, k.above, k.luck, k.unluck) == (45, 23, 2, 24)


def test_an_ability_of_7_in_the_karma_total():
    c = _char(abilities=[("Troll", 7), ("B", 3)])  # 10 + 9 + 3 = 22
    assert karma(c).total == 22
    assert karma(c).unluck == 1


def test_disabilities_subtract_from_the_total():
    c = _char(abilities=[("A", 4), ("B", 4), ("C", 4), ("D", 3)], disabilities=[("Debt", 3)])
    k = karma(c)
    assert (k.total, k.luck, k.unluck) == (22, 2, 1)


def test_disability_of_7_subtracts_7_by_default_and_9_with_the_option():
    c = _char(abilities=[("A", 10)], disabilities=[("Curse", 7)])  # 10 + 15 - 7 = 18
    assert karma(c).total == 18
    assert karma(c, FuzzyHouseRules(disabilities_count_double_above_5=True)).total == 16


def test_gm_adjustments_apply_after_the_baseline_and_respect_the_luck_cap():
    c = _char(abilities=[("A", 4), ("B", 4), ("C", 4)], gm=GmAdjustments(luck=5, unluck=2))
    k = karma(c)
    assert (k.luck, k.unluck) == (5, 3)


def test_other_baselines():
    c = _char(abilities=[("A", 4), ("B", 4), ("C", 4)])
    assert karma(c, FuzzyHouseRules(baseline=25)).luck == 5
    assert karma(c, FuzzyHouseRules(baseline=20)).unluck == 3


# -- wounds -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "points,defence,level",
    [
        (0, 3, "superficial"),
        (2, 3, "superficial"),
        (3, 3, "moderate"),
        (5, 3, "moderate"),
        (6, 3, "serious"),
        (8, 3, "serious"),
        (9, 3, "mortal"),
        (11, 3, "mortal"),
        (12, 3, "killed"),
        (40, 3, "killed"),
        (1, 1, "moderate"),
        (2, 1, "serious"),
        (3, 1, "mortal"),
        (4, 1, "killed"),
    ],
)
def test_wound_thresholds_at_1x_2x_3x_4x_the_defence_total(points, defence, level):
    assert harm_level(points, defence) == level


def test_wound_levels_table():
    rows = {r["name"]: r for r in wound_levels()}
    assert [r["multiple"] for r in wound_levels()] == [0, 1, 2, 3, 4]
    assert [rows[n]["dice_penalty"] for n in ("moderate", "serious", "mortal")] == [1, 2, 3]
    assert [rows[n]["tenacity_test"] for n in ("superficial", "moderate", "serious", "mortal", "killed")] == [
        False,
        True,
        True,
        True,
        False,
    ]
    assert rows["mortal"]["on_failed_test"] == "unconscious"
    assert rows["moderate"]["on_failed_test"] == rows["serious"]["on_failed_test"] == "incapacitated"


def test_tenacity_test_is_against_7():
    """'They need to make a Tenacity test of 7'."""
    assert FuzzyHouseRules().tenacity_target == 7


def test_wound_penalties_use_the_worst_only():
    ws = (
        Wound(level="moderate", by="x", round=1),
        Wound(level="serious", by="x", round=2),
        Wound(level="moderate", by="x", round=3),
    )
    assert wound_penalty(ws) == 2
    assert wound_penalty(ws[:1] * 5) == 1
    assert wound_penalty(()) == 0


def test_opponent_die_penalties():
    h = FuzzyHouseRules()
    assert [opponents_penalty(n, h) for n in (1, 2, 4, 5, 9)] == [0, 1, 1, 2, 2]
    assert opponents_penalty(1, h, "huge crowd") == 2


# -- experience ---------------------------------------------------------------------------------------


def test_experience_costs():
    """'Raising a good Ability by one costs 3 times its new level'; 'Lowering a Disability by one costs 3 times its
    old level'.
    """
    assert [raise_cost(n) for n in (1, 2, 3, 4, 5, 6)] == [3, 6, 9, 12, 15, 18]
    assert [lower_disability_cost(n) for n in (1, 2, 3)] == [3, 6, 9]
    assert buy_cost(3) == 3 + 6 + 9
    assert buy_cost(4, start=2) == 9 + 12
    assert [new_disability_award(n) for n in (1, 2, 3)] == [3, 9, 18]


def test_luck_and_unluck_start_at_two_and_one():
    h = FuzzyHouseRules()
    assert (h.starting_luck, h.starting_unluck, h.luck_cap, h.baseline) == (2, 1, 5, 22)


def test_discworld_body_guide():
    g = discworld_body()
    assert sorted(g) == [1, 2, 3, 4, 5, 6]
    assert ["troll", "average"] in g[4]["kinds"]
    assert "Death" in g[5]["examples"] and "Detritus" in g[5]["examples"]
    assert ["dragon", "noble"] in g[6]["kinds"]
    assert g[2]["examples"] == ["Rincewind"]
