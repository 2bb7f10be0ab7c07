"""The small damage and wound rules, each at the edge the book draws (expected values from the book's text,
worked by hand): criticals, Missile Evasion, spell attack and resistance, critical health, heavy wounds,
revival and ritual times, durations."""

from __future__ import annotations

import pytest

from storymaster.dice import DiceRng
from storymaster.errors import CombatError
from storymaster.systems.philsys import damage as dmg
from storymaster.systems.philsys.character import Character, Cost, hp_max
from storymaster.systems.philsys.options import PhilsysHouseRules


def char(**fields) -> Character:
    return Character.model_validate({"name": "T", **fields})


def test_a_critical_doubles() -> None:
    """Combat walkthrough: a critical 'deals twice as much damage as normal'."""
    assert [dmg.critical_damage(d) for d in (0, 1, 7, 21)] == [0, 2, 14, 42]


def test_missile_evasion_house_rule_is_the_substat() -> None:
    """Derived Substats: Missile Evasion = 10 + INT + AGI*2 (INT 3, AGI 4: 21); the default is AGI + COU (4 + 2)."""
    c = char(stats={"INT": 3, "AGI": 4, "COU": 2})
    evasion = PhilsysHouseRules(missile_defence="missile_evasion")
    assert dmg.missile_defence_modifier(c, "medium", evasion) == 21
    assert dmg.missile_defence_modifier(c, "medium") == 6
    assert dmg.missile_defence_modifier(c, "long", evasion) == 21 + 4  # a small target: +4 at long range


def test_an_unknown_size_or_range_is_a_clear_error() -> None:
    with pytest.raises(CombatError, match="no size modifier"):
        dmg.size_modifier("medium", "point-blank")


def test_spell_attack_is_int_wis_mag_and_rank_less_penalties() -> None:
    """Resolving Magical Attacks: INT + WIS + MAG + the skill's rank; restrictive armour and wounds subtract."""
    c = char(
        stats={"INT": 3, "WIS": 2, "MAG": 4},
        skills=[{"name": "Fire Magic", "category": "magic", "rank": 3}],
    )
    fire = c.skill("Fire Magic")
    assert dmg.spell_attack_modifier(c, fire) == 3 + 2 + 4 + 3
    assert dmg.spell_attack_modifier(c, None) == 3 + 2 + 4
    assert dmg.spell_attack_modifier(c, fire, penalty=3) == 12 - 3
    robed = char(
        stats={"INT": 3, "WIS": 2, "MAG": 4},
        equipment={"armor": {"name": "Plate", "ac": 12, "spell_penalty": 2}},
    )
    assert dmg.spell_attack_modifier(robed, None, penalty=3) == 9 - 2 - 3


def test_magic_resistance_is_ten_plus_twice_courage_plus_intelligence() -> None:
    """Resolving Magical Attacks: 10 + COU*2 + INT. COU 3, INT 1: 17 (COU 2 could not tell 2*COU from 2+COU)."""
    assert dmg.magic_resist_modifier(char(stats={"COU": 3, "INT": 1})) == 17


def test_ability_damage_scales_with_the_skill_rank() -> None:
    c = char(stats={"MAG": 4}, skills=[{"name": "Fire Magic", "category": "magic", "rank": 2}])
    scaled = {"name": "Fire 1", "skill": "Fire Magic", "rank": 1, "effect": {"damage": "10+1d6", "per_rank": 3}}
    ability = c.model_validate({**c.model_dump(), "abilities": [scaled]}).abilities[0]
    assert dmg.ability_damage_expr(c, ability) == "10+1d6+6"
    unknown = ability.model_copy(update={"skill": "Ice Magic"})  # a skill the character lacks: rank 0
    assert dmg.ability_damage_expr(c, unknown) == "10+1d6"
    innate = ability.model_copy(update={"skill": None})  # no required skill (an [Innate] power): no rank scaling
    assert dmg.ability_damage_expr(c, innate) == "10+1d6"


@pytest.mark.parametrize(("hp", "penalty"), [(16, 0), (15, 3), (1, 3), (0, 0), (-4, 0)])
def test_critical_health_from_fifteen_hp_down_to_one(hp: int, penalty: int) -> None:
    """Taking Damage: 'roughly 10-15 HP or less' (ruling: 15 and below, while above 0) gives -3."""
    assert dmg.wound_penalty(hp) == penalty


def test_a_heavy_wound_is_more_than_three_quarters_of_max_hp() -> None:
    c = char(stats={"STA": 1})
    top = hp_max(c)
    assert top % 4 == 0, top  # so that exactly three quarters is a whole number
    assert not dmg.is_heavy_wound(3 * top // 4, c)
    assert dmg.is_heavy_wound(3 * top // 4 + 1, c)


def test_revival_window_and_ritual_time() -> None:
    """Within 48 hours (from the moment of death); a ritual takes (4+1d6) - modifiers hours, at least 2."""
    assert dmg.revival_possible(0) and dmg.revival_possible(48)
    assert not dmg.revival_possible(48.5) and not dmg.revival_possible(-1)
    for seed in range(6):
        hours, rec = dmg.resurrection_hours(20, DiceRng(seed))
        assert hours == 2
        hours, rec = dmg.resurrection_hours(1, DiceRng(seed))
        assert hours == 3 + rec.total


def test_an_effect_is_over_after_its_last_turn() -> None:
    """Turn Sequence: three rounds from turn 2 of round 1 -> gone from turn 2 of round 3, and stays gone."""
    assert dmg.effect_active(1, 2, 3, 3, 1)
    assert not dmg.effect_active(1, 2, 3, 3, 2)
    assert not dmg.effect_active(1, 2, 3, 4, 0)
    assert not dmg.effect_active(1, 2, 3, 1, 1)  # not before it began


def test_an_effect_of_no_rounds_is_never_on() -> None:
    assert not dmg.effect_active(1, 1, 0, 1, 1)
    assert not dmg.effect_active(1, 1, 0, 1, 2)
    assert dmg.effect_active(1, 1, 1, 1, 2)  # a 1-round effect lasts to that turn of the next round


def test_an_effect_without_duration_is_never_active() -> None:
    """A duration of 0 (or a negative one from a bad card) holds on no turn, not even the turn it began."""
    for duration in (0, -1, -3):
        assert not any(dmg.effect_active(1, 2, duration, r, t) for r in (1, 2, 3) for t in (0, 1, 2, 3))
    assert dmg.effect_active(1, 2, 1, 1, 2)  # while a 1-round effect holds on its own turn


def test_damage_notation_with_a_small_or_negative_constant() -> None:
    """The book writes 'STR+1d6' as '13+1d6'; a constant of 0 is left out, a negative one follows the dice as
    dice notation does ('1d6-2'), and a constant of 1 is still written in front ('1+1d6')."""
    assert [dmg.expr(c, "1d6") for c in (13, 1, 0, -2)] == ["13+1d6", "1+1d6", "1d6", "1d6-2"]
    assert dmg.expr(4, "") == "4"


def test_a_tech_pays_its_tp() -> None:
    """Derived Substats: a tech's TP come off the TP pool (MP and HP untouched); short of TP it cannot be used."""
    assert dmg.pay_cost(50, 10, 8, Cost(tp=3)) == (50, 10, 5)
    with pytest.raises(CombatError, match="needs 9 TP"):
        dmg.pay_cost(50, 10, 8, Cost(tp=9))


def test_a_wound_penalty_counts_a_heavy_wound_only_when_there_is_one() -> None:
    """Taking Damage: critical health (15 HP or less, above 0) -3; a heavy wound 'could also confer a penalty
    of -4/-4' (house rule heavy_wound_penalty 4), only on a fighter who took one. 30 HP: 0, or 4 with the
    wound; 10 HP: 3, or 3+4 = 7. A shot takes it too only under critical_health_missile (ruling P-L1)."""
    hr = PhilsysHouseRules(heavy_wound_penalty=4)
    assert [dmg.wound_penalty(30, hr), dmg.wound_penalty(30, hr, True)] == [0, 4]
    assert [dmg.wound_penalty(10, hr), dmg.wound_penalty(10, hr, True)] == [3, 7]
    shots = PhilsysHouseRules(heavy_wound_penalty=4, critical_health_missile=True)
    assert [dmg.missile_wound_penalty(30, shots), dmg.missile_wound_penalty(30, shots, True)] == [0, 4]
    assert [dmg.missile_wound_penalty(10, shots), dmg.missile_wound_penalty(10, shots, True)] == [3, 7]
    assert dmg.missile_wound_penalty(10, hr, True) == 0


def test_what_armour_stops_of_a_blow_or_a_spell() -> None:
    """Equipment: armour stops AC/3 of physical damage (AC 9: 3); of a spell only if it is exotic ('may stop
    magical damage'). The armour may be named by keyword; the spell flag only by keyword."""
    from storymaster.systems.philsys.character import Armor

    plain, exotic = Armor(name="Scale", ac=9), Armor(name="Runed", ac=9, reduces_magic=True)
    assert dmg.armor_stops(armor=plain) == 3 and dmg.armor_stops(armor=plain, magical=True) == 0
    assert dmg.armor_stops(armor=exotic, magical=True) == 3 and dmg.armor_stops(None, magical=True) == 0
    with pytest.raises(TypeError):
        dmg.armor_stops(exotic, True)  # type: ignore[misc]
