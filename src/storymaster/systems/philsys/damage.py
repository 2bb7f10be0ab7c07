"""Damage, armour, wounds, missile locations, spell costs, durations and death (Philsys combat chapters)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...dice import DiceRng, RollRecord, roll
from ...errors import CombatError
from .character import (
    Ability,
    Armor,
    Character,
    Cost,
    MissileWeapon,
    Skill,
    Stats,
    armor_reduction,
    hp_max,
    magic_attack,
)
from .options import PhilsysHouseRules
from .tables import tables

__all__ = [
    "ability_damage_expr",
    "aim_at",
    "apply_armor",
    "armor_stops",
    "bleed",
    "bleed_v",
    "effect_active",
    "expr",
    "half_damage",
    "head_shot_kill_chance",
    "head_shot_kills_on",
    "head_shot_kills_on_v",
    "healed",
    "healed_v",
    "heavy_blow",
    "heavy_blow_v",
    "is_dead",
    "is_dead_v",
    "limb_disabled_on",
    "lmh_damage_expr",
    "location_damage_expr",
    "magic_resist_modifier",
    "missile_damage_expr",
    "missile_defence_modifier",
    "pay_cost",
    "pay_cost_v",
    "reduce_damage",
    "reduce_damage_v",
    "resurrection_hours",
    "revival_possible",
    "shield_overwhelmed",
    "shield_overwhelmed_v",
    "spell_attack_modifier",
    "tsc_damage_expr",
    "unarmed_damage_expr",
    "wake_delay",
    "wound_penalty",
    "wound_penalty_v",
    "zombie",
]


def expr(const: int, dice: str) -> str:
    """Dice notation for 'const + dice' written the book's way ('13+1d6'); a constant of 0 is left out."""
    if not dice:
        return str(const)
    if const == 0:
        return dice
    return f"{const}+{dice}" if const > 0 else f"{dice}{const}"


def tsc_damage_expr(weapon_damage: tuple[int, int, int], attack: str, strength: int) -> str:
    """Equipment and Inventory: T/S/C damage + STR+1d6 / STR*2+2d4 / STR*3+2d6 (Longsword 10/14/17, STR +3:
    13+1d6, 20+2d4, 26+2d6)."""
    row = tables()["thrust_slash_chop"].get(attack)
    if row is None:
        raise CombatError(f"unknown melee attack {attack!r}", hint="thrust, slash or chop")
    return expr(weapon_damage[row["index"]] + row["str_multiplier"] * strength, row["dice"])


def lmh_damage_expr(base: int, rank: int, strength: int, attack: str, two_handed: bool = False) -> str:
    """Resolving Melee Attacks: base + rank + STR*k + kd6 (k = 1, 2, 3 for light/medium/heavy; +1 two-handed)."""
    row = tables()["light_medium_heavy"].get(attack)
    if row is None:
        raise CombatError(f"unknown melee attack {attack!r}", hint="light, medium or heavy")
    k = row["k"] + (1 if two_handed else 0)
    return expr(base + rank + k * strength, f"{k}d6")


def unarmed_damage_expr(strength: int, rank: int, attack: str, base: int = 0) -> str:
    """Equipment and Inventory: punch (STR+rank)*2+1d6; kick (STR+rank)*3+2d6 at -3 to hit; plus gauntlet base."""
    row = tables()["unarmed"].get(attack)
    if row is None:
        raise CombatError(f"unknown unarmed attack {attack!r}", hint="punch or kick")
    return expr(base + row["multiplier"] * (strength + rank), row["dice"])


def attack_penalty(attack: str) -> int:
    """The to-hit penalty of an attack type: thrust 0, slash -3, chop -6; light 0, medium -2, heavy -5; kick -3."""
    t = tables()
    for key in ("thrust_slash_chop", "light_medium_heavy", "unarmed"):
        if attack in t[key]:
            return int(t[key][attack]["at_penalty"])
    raise CombatError(f"unknown attack type {attack!r}")


def apply_armor(damage: int, ac: int) -> int:
    """Armour stops AC/3 (rounded down) points of physical damage: Hide Armor AC 15 turns 15 into 10."""
    return reduce_damage(damage, armor_reduction(ac))


def reduce_damage(damage: int, stopped: int) -> int:
    """The damage a blow does after armour stopped some of it: never below 0 (Equipment: AC/3)."""
    return max(0, damage - stopped)


def reduce_damage_v(damage: np.ndarray, stopped: int) -> np.ndarray:
    """:func:`reduce_damage` for an array of damages (the forecast's twin, tested against it)."""
    return np.maximum(0, damage - stopped)


def armor_stops(armor: Armor | None, *, magical: bool = False) -> int:
    """What the target's armour stops of one blow: AC/3 of physical damage; of a spell's only if the armour is
    exotic (``reduces_magic``: Equipment, 'may stop magical damage')."""
    if armor is None or (magical and not armor.reduces_magic):
        return 0
    return armor_reduction(armor.ac)


def critical_damage(damage: int) -> int:
    """A critical hit 'deals twice as much damage as normal' (doubled before armour). Works on arrays too."""
    return 2 * damage


# --- missiles ---------------------------------------------------------------------------


def location_modifier(location: str) -> int:
    """Target location accuracy: limb -4, abdomen 0, torso -2, head -8."""
    row = tables()["hit_locations"].get(location)
    if row is None:
        raise CombatError(f"unknown target location {location!r}", hint="limb, abdomen, torso or head")
    return int(row["accuracy"])


def size_modifier(size: str, distance: str) -> int:
    """The target's size bonus/penalty to defend, at medium or long range."""
    try:
        return int(tables()["sizes"][size][distance])
    except KeyError:
        msg = f"no size modifier for {size!r} at {distance!r} range"
        raise CombatError(msg, hint="range is medium or long") from None


def aim_at(aim: str, has_limbs: bool) -> str:
    """Where a shot aims: a target without limbs or head (``has_limbs`` off) is shot at the body (abdomen)."""
    return "abdomen" if aim in ("limb", "head") and not has_limbs else aim


def missile_attack_modifier(weapon: MissileWeapon, skill_rank: int, location: str) -> int:
    """Accuracy rate + skill + target location modifier (the d20 is added when rolling)."""
    return weapon.accuracy + skill_rank + location_modifier(location)


def missile_defence_modifier(target: Character, distance: str, hr: PhilsysHouseRules | None = None) -> int:
    """AGI + COU (or the Missile Evasion substat, by house rule) + size/range modifier."""
    hr = hr or PhilsysHouseRules()
    s = target.stats
    base = s.AGI + s.COU if hr.missile_defence == "agi_cou" else 10 + s.INT + 2 * s.AGI
    return base + size_modifier(target.size, distance)


def missile_damage_expr(weapon: MissileWeapon, strength: int) -> str:
    """The weapon's (or the ammunition's) damage; bows and the like add STR."""
    base = weapon.ammunition.damage if weapon.ammunition else weapon.damage
    if weapon.adds_strength and strength:
        return f"{base}{strength:+d}"
    return base


def location_damage_expr(expression: str, location: str) -> str:
    """Resolving Ranged Attacks: a torso hit adds 1d6+1d4, a head hit 10+1d10 (the hit-location table)."""
    extra = tables()["hit_locations"][location].get("extra_damage")
    return f"{expression}+{extra}" if extra else expression


def head_shot_kills_on(d6: int) -> bool:
    """Resolving Ranged Attacks: a head shot kills on a d6 of 1-5 (where that makes sense for the target)."""
    return d6 in tables()["hit_locations"]["head"]["killed_on"]


def head_shot_kills_on_v(d6: np.ndarray) -> np.ndarray:
    """:func:`head_shot_kills_on` for an array of d6 faces."""
    return np.isin(d6, tables()["hit_locations"]["head"]["killed_on"])


def head_shot_kill_chance() -> float:
    """The chance that a head shot's d6 kills (:func:`head_shot_kills_on` over the six faces)."""
    return sum(head_shot_kills_on(face) for face in range(1, 7)) / 6


def limb_disabled_on(d6: int) -> bool:
    """Resolving Ranged Attacks: a limb hit disables the limb on a d6 of 5-6."""
    return d6 in tables()["hit_locations"]["limb"]["disabled_on"]


# --- magic ------------------------------------------------------------------------------


def spell_attack_modifier(c: Character, skill: Skill | None, penalty: int = 0) -> int:
    """Magical attacks: INT + WIS + MAG + skill rank, less armour and wound penalties."""
    armor = c.equipment.armor.spell_penalty if c.equipment.armor else 0
    return magic_attack(c) + (skill.rank if skill else 0) - armor - penalty


def magic_resist_modifier(target: Character) -> int:
    """Resisting magic: 10 + COU*2 + INT (the d20 is added when rolling)."""
    return 10 + 2 * target.stats.COU + target.stats.INT


def ability_damage_expr(c: Character, ability: Ability) -> str:
    """An ability's damage: its dice plus per-rank scaling from its required skill (Fire 1: 10+3*rank+1d6)."""
    if ability.effect is None:
        return "0"
    rank = 0
    if ability.skill:
        sk = c.skill(ability.skill)
        rank = sk.rank if sk else 0
    extra = ability.effect.per_rank * rank
    return f"{ability.effect.damage}+{extra}" if extra else ability.effect.damage


def pay_cost(hp: int, mp: int, tp: int, cost: Cost) -> tuple[int, int, int]:
    """Pay an ability's cost. MP short? The rest comes from HP (Derived Substats). TP short is not allowed."""
    if tp < cost.tp:
        raise CombatError(f"needs {cost.tp} TP, has {tp}", hint="a tech cannot be used without its TP")
    from_mp = min(mp, cost.mp)
    from_hp = cost.mp - from_mp + cost.hp
    return hp - from_hp, mp - from_mp, tp - cost.tp


def pay_cost_v(hp: np.ndarray, mp: np.ndarray, tp: np.ndarray, cost: Cost) -> tuple[np.ndarray, ...]:
    """:func:`pay_cost` on arrays, for fights that can pay the TP (the simulation's twin, tested against it)."""
    from_mp = np.minimum(mp, cost.mp)
    return hp - (cost.mp - from_mp + cost.hp), mp - from_mp, tp - cost.tp


def healed(hp: int, amount: int, top: int) -> int:
    """Healing adds its roll (never a loss) up to the maximum HP."""
    return min(top, hp + max(0, amount))


def healed_v(hp: np.ndarray, amount: np.ndarray, top: int) -> np.ndarray:
    """:func:`healed` on arrays (the simulation's twin, tested against it on every input)."""
    return np.minimum(top, hp + np.maximum(0, amount))


# --- wounds and death -------------------------------------------------------------------


def wound_penalty(hp: int, hr: PhilsysHouseRules | None = None, heavy_wound: bool = False) -> int:
    """Critical health status: at the threshold or below (but above 0), -penalty to AT/PA and spellcasting."""
    hr = hr or PhilsysHouseRules()
    pen = hr.critical_health_penalty if 0 < hp <= hr.critical_health_threshold else 0
    return pen + (hr.heavy_wound_penalty if heavy_wound else 0)


def wound_penalty_v(hp: np.ndarray, heavy_wound: np.ndarray, hr: PhilsysHouseRules) -> np.ndarray:
    """:func:`wound_penalty` on arrays (the simulation's twin, tested against it on every input)."""
    crit = (hp > 0) & (hp <= hr.critical_health_threshold)
    return crit * hr.critical_health_penalty + heavy_wound * hr.heavy_wound_penalty


def missile_wound_penalty(hp: int, hr: PhilsysHouseRules | None = None, heavy_wound: bool = False) -> int:
    """The wound penalty on a missile attack: none by the book, which names AT/PA and spellcasting only
    (ruling P-L1); the whole :func:`wound_penalty` under the house rule ``critical_health_missile`` (an
    addition). The one statement of the rule: checks at the table, the fight's round and its simulation."""
    hr = hr or PhilsysHouseRules()
    return wound_penalty(hp, hr, heavy_wound) if hr.critical_health_missile else 0


def missile_wound_penalty_v(hp: np.ndarray, heavy_wound: np.ndarray, hr: PhilsysHouseRules) -> np.ndarray:
    """:func:`missile_wound_penalty` on arrays (the simulation's twin, tested against it on every input)."""
    if hr.critical_health_missile:
        return wound_penalty_v(hp, heavy_wound, hr)
    return np.zeros(np.shape(hp), dtype=np.int64)


def heavy_blow(damage: int, top: int) -> bool:
    """A heavy wound: 'more than 3/4 or so of a character's total HP from one attack' (``top``: maximum HP)."""
    return 4 * damage > 3 * top


def heavy_blow_v(damage: np.ndarray, top: int) -> np.ndarray:
    """:func:`heavy_blow` on arrays (the simulation's twin, tested against it on every input)."""
    return 4 * damage > 3 * top


def half_damage(amount: Any) -> Any:
    """Magic's optional near miss ('a tie or a miss by 1 deals half damage'): half, rounded down (ruling 8).
    Integer arithmetic, so one function serves ints and numpy arrays."""
    return amount // 2


def shield_overwhelmed(raw: int, shield_ac: int) -> bool:
    """A blow whose damage (before armour) exceeds the shield's AC breaks it (or dents it: ``shield_breaks``)."""
    return raw > shield_ac


def shield_overwhelmed_v(raw: np.ndarray, shield_ac: int) -> np.ndarray:
    """:func:`shield_overwhelmed` on arrays (the simulation's twin, tested against it on every input)."""
    return raw > shield_ac


def is_heavy_wound(damage: int, c: Character) -> bool:
    """'more than 3/4 or so of a character's total HP from one attack'."""
    return heavy_blow(damage, hp_max(c))


def is_unconscious(hp: Any) -> Any:
    """At 0 HP or less a character falls unconscious. A comparison, so one function serves ints and arrays."""
    return hp <= 0


def wake_delay(stamina: int) -> int:
    """Healed to positive HP, an unconscious character waits 10-STA rounds (never fewer than 0)."""
    return max(0, 10 - stamina)


def is_dead(hp: int, hr: PhilsysHouseRules | None = None) -> bool:
    """Death at the ``death_threshold`` (the book leaves it open)."""
    hr = hr or PhilsysHouseRules()
    return hp <= hr.death_threshold


def is_dead_v(hp: np.ndarray, hr: PhilsysHouseRules) -> np.ndarray:
    """:func:`is_dead` on arrays (the forecast's twin, tested against it on every input)."""
    return hp <= hr.death_threshold


def bleed(hp: int, hr: PhilsysHouseRules) -> int:
    """Optional rule: below 0 HP a character loses ``bleeding_rate`` HP each round."""
    if hr.bleeding and hp < 0:
        return hp - hr.bleeding_rate
    return hp


def bleed_v(hp: np.ndarray, hr: PhilsysHouseRules) -> np.ndarray:
    """:func:`bleed` on arrays (the forecast's twin, tested against it on every input)."""
    if not hr.bleeding:
        return hp
    return np.where(hp < 0, hp - hr.bleeding_rate, hp)


def revival_possible(hours_dead: float) -> bool:
    """The deceased must be revived within 48 hours to keep memories and skills."""
    return 0 <= hours_dead <= 48


def resurrection_hours(modifiers: int, rng: DiceRng) -> tuple[int, RollRecord]:
    """A standard ritual takes (4+1d6) - modifiers hours, at least 2."""
    r = roll("1d6", rng, label="resurrection ritual d6")
    return max(2, 4 + r.total - modifiers), r


def zombie(c: Character) -> Character:
    """An animated corpse keeps its stats except INT and WIS (set to -5 here) and loses skills and abilities."""
    stats = c.stats.model_copy(update={"INT": -5, "WIS": -5})
    update = {"name": f"{c.name} (zombie)", "stats": Stats(**stats.model_dump()), "skills": [], "abilities": []}
    return c.model_copy(update=update)


# --- durations --------------------------------------------------------------------------


def effect_active(start_round: int, start_turn: int, duration: int, now_round: int, now_turn: int) -> bool:
    """Turn Sequence: durations run from the turn they began. Cast on turn 2 of round 1 for three rounds,
    a spell still holds on turn 1 of round 3 and has expired when turn 2 of round 3 comes up. So an
    n-round effect ends at its caster's turn of round start+n-1; a 1-round effect lasts until that turn next round."""
    if duration <= 0:
        return False
    start = (start_round, start_turn)
    end = (start_round + max(duration - 1, 1), start_turn)
    return start <= (now_round, now_turn) < end
