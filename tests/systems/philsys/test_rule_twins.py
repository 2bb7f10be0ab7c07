"""The forecast's vectorised rules agree with the named scalar rules on every input of a small domain
(issue 14: "each rule stated once"), and the AC/3 rounding is pinned by armours that are not multiples of 3."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from storymaster.systems.philsys import damage as dmg
from storymaster.systems.philsys.character import Armor, armor_reduction
from storymaster.systems.philsys.checks import melee_result, melee_result_v
from storymaster.systems.philsys.options import PhilsysHouseRules

MARGINS = np.arange(-45, 46)


@pytest.mark.parametrize(
    "hr",
    [
        PhilsysHouseRules(),
        PhilsysHouseRules(unparried_attacks_hit_automatically=True),
        PhilsysHouseRules(critical_margin=1),
        PhilsysHouseRules(critical_margin=20, unparried_attacks_hit_automatically=True),
    ],
)
@pytest.mark.parametrize("parry", [True, False])
def test_melee_result_twin(hr: PhilsysHouseRules, parry: bool) -> None:
    crit, hit, fail = melee_result_v(MARGINS, parry, hr)
    for m, c, h, f in zip(MARGINS.tolist(), crit, hit, fail, strict=True):
        scalar = melee_result(m, parry, hr)
        assert (bool(c), bool(h), bool(f)) == (
            scalar == "critical hit",
            scalar == "hit",
            scalar == "critical failure",
        ), (m, scalar)


def test_reduce_damage_twin() -> None:
    damages = np.arange(-5, 61)
    for stopped in range(12):
        got = dmg.reduce_damage_v(damages, stopped).tolist()
        assert got == [dmg.reduce_damage(d, stopped) for d in damages.tolist()]


def test_head_shot_twin_and_chance() -> None:
    faces = np.arange(1, 7)
    assert dmg.head_shot_kills_on_v(faces).tolist() == [dmg.head_shot_kills_on(f) for f in range(1, 7)]
    # the book: 'on a roll of 1-5 the target dies'
    assert [dmg.head_shot_kills_on(f) for f in range(1, 7)] == [True] * 5 + [False]
    assert dmg.head_shot_kill_chance() == 5 / 6
    # 'on a roll of 5-6 the limb is disabled'
    assert [dmg.limb_disabled_on(f) for f in range(1, 7)] == [False] * 4 + [True, True]


def test_location_damage_from_the_table() -> None:
    # Resolving Ranged Attacks: torso +1d6+1d4, head +10+1d10, limb and abdomen nothing extra
    assert dmg.location_damage_expr("4d8", "torso") == "4d8+1d6+1d4"
    assert dmg.location_damage_expr("4d8", "head") == "4d8+10+1d10"
    assert dmg.location_damage_expr("4d8", "limb") == "4d8"
    assert dmg.location_damage_expr("4d8", "abdomen") == "4d8"


@pytest.mark.parametrize(("ac", "stops"), [(8, 2), (7, 2), (5, 1), (1, 0), (2, 0), (16, 5), (17, 5)])
def test_ac_third_rounds_down_for_armour_not_a_multiple_of_three(ac: int, stops: int) -> None:
    """Ruling 7: AC/3 rounded down. Rounding up or to nearest would give 3 for AC 8 (8/3 = 2.67) and 2 for AC 5;
    only rounding down gives these."""
    assert armor_reduction(ac) == stops
    assert dmg.apply_armor(20, ac) == 20 - stops
    assert dmg.armor_stops(Armor(name="x", ac=ac)) == stops


def test_armour_stops_spells_only_when_exotic() -> None:
    plain, exotic = Armor(name="p", ac=8), Armor(name="e", ac=8, reduces_magic=True)
    assert dmg.armor_stops(plain, magical=True) == 0
    assert dmg.armor_stops(exotic, magical=True) == 2
    assert dmg.armor_stops(None) == 0
    for a, m in itertools.product((plain, exotic), (False,)):
        assert dmg.armor_stops(a, magical=m) == 2
