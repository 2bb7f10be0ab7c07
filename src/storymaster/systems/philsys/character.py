"""Philsys characters: stats, skills, abilities, equipment; creation rules and derived substats.

Derived values (HP, MP, TP, AT/PA, ...) are functions of the sheet, never stored.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Literal

from pydantic import ConfigDict, Field, ValidationInfo, field_validator, model_validator

from ...dice import parse
from ...errors import Problem, StorymasterError
from ...rules.models import Model
from .options import PhilsysHouseRules
from .tables import STAT_NAMES, equipment, tables

__all__ = [
    "Ability",
    "Ammunition",
    "Armor",
    "Character",
    "Cost",
    "MissileWeapon",
    "Shield",
    "Skill",
    "Stats",
    "Weapon",
    "base_at_pa",
    "hp_max",
    "initiative_bonus",
    "magic_attack",
    "magic_tier",
    "mblock",
    "missile_evasion",
    "mp_max",
    "skill_points",
    "skill_points_spent",
    "tp_max",
    "validate",
]

StatName = Literal["COU", "WIS", "INT", "CHA", "AGI", "DEX", "STR", "STA", "MAG"]


class Stats(Model):
    """The nine stats (Characters: Stats). -5..+10, Magical Aptitude 0..6."""

    COU: int = 0
    WIS: int = 0
    INT: int = 0
    CHA: int = 0
    AGI: int = 0
    DEX: int = 0
    STR: int = 0
    STA: int = 0
    MAG: int = 0

    def get(self, name: str) -> int:
        return int(getattr(self, name))

    def total(self) -> int:
        return sum(self.get(s) for s in STAT_NAMES)


class Skill(Model):
    """A skill: name, kind (normal, [k], [s]), three base attributes, rank.

    ``category`` marks weapon and magic skills, whose bases have defaults
    (Determining Base Attributes). ``at_ranks`` is how many of a weapon skill's
    ranks go to AT; the rest go to PA (Derived Substats).
    """

    name: str = Field(min_length=1)
    kind: Literal["normal", "knowledge", "support"] = "normal"
    category: Literal["melee", "missile", "unarmed", "magic", "other"] = "other"
    bases: tuple[StatName, StatName, StatName] | None = None
    rank: int = Field(0, ge=0)
    cost_per_rank: float | None = Field(
        None, gt=0, description="Points per rank; default 1 (normal) or 1/2 ([k], [s]). Special [s] skills cost more."
    )
    requires: dict[StatName, int] = Field(default_factory=dict, description="Minimum stats to learn it ([s] skills).")
    at_ranks: int | None = Field(None, ge=0, description="Weapon skills: ranks put into AT (the rest go to PA).")
    light: bool = Field(False, description="A light-weapon skill using <Cou/Dex/Agi>.")

    def effective_bases(self) -> tuple[str, str, str]:
        """The declared bases or the book's default for the skill's kind and category."""
        if self.bases is not None:
            return self.bases
        t = tables()["default_bases"]
        if self.kind == "knowledge":
            return tuple(t["knowledge"])  # type: ignore[return-value]
        if self.category == "magic":
            return tuple(t["magic"])  # type: ignore[return-value]
        if self.category in ("melee", "unarmed"):
            return tuple(t["melee_light" if self.light else self.category])  # type: ignore[return-value]
        raise ValueError(f"skill {self.name!r} needs its three base attributes")

    def cost(self) -> Fraction:
        """Points per rank (Types of Skills)."""
        if self.cost_per_rank is not None:
            return Fraction(self.cost_per_rank).limit_denominator(100)
        return Fraction(1) if self.kind == "normal" else Fraction(1, 2)

    @property
    def half_cost(self) -> bool:
        return self.cost() == Fraction(1, 2)

    @property
    def label(self) -> str:
        return {"knowledge": "[k]", "support": "[s]"}.get(self.kind, "") + self.name


class Cost(Model):
    """An ability's cost per use (Abilities): MP makes it a spell, TP a tech; some cost HP."""

    mp: int = Field(0, ge=0)
    tp: int = Field(0, ge=0)
    hp: int = Field(0, ge=0)


def _dice_notation(value: str) -> str:
    """A damage written as dice notation ('4d8', '20+2d6'); refused at load, so the message names the field."""
    try:
        parse(value)
    except StorymasterError as exc:
        first = str(exc).splitlines()[0]
        raise ValueError(f"{value!r} is not a damage in dice notation ({first})") from None
    return value


class Effect(Model):
    """What an ability does, for the fight engine. ``damage`` is dice notation; rank scaling is optional."""

    kind: Literal["attack", "heal", "other"] = "attack"
    damage: str = "0"
    _damage_is_dice = field_validator("damage")(_dice_notation)
    per_rank: int = Field(0, ge=0, description="Added per rank of the required skill (e.g. Fire 1: 10+3*rank+1d6).")
    magical: bool = True


class Ability(Model):
    """An ability: required skill ranks (or [Innate]/[Item-granted]), name, cost, description."""

    name: str = Field(min_length=1)
    skill: str | None = None
    rank: int = Field(0, ge=0)
    source: Literal["skill", "innate", "item"] = "skill"
    cost: Cost = Cost()
    description: str = ""
    effect: Effect | None = None

    @property
    def is_spell(self) -> bool:
        return self.cost.mp > 0

    @property
    def is_tech(self) -> bool:
        return self.cost.tp > 0

    @property
    def requirement_text(self) -> str:
        if self.source == "innate":
            return "[Innate]"
        if self.source == "item":
            return "[Item-granted]"
        return f"[{self.skill}={self.rank}]"


class Weapon(Model):
    """A melee weapon: T/S/C damage, AT/PA modifier, weight, strength requirement."""

    name: str
    damage: tuple[int, int, int] = Field(description="Thrust/Slash/Chop damage (or light/medium/heavy base damages).")
    at: int = 0
    pa: int = 0
    weight: float = 0
    strength: int | None = None
    skill: str = ""
    light: bool = False
    two_handed: bool = False


class Ammunition(Model):
    name: str
    damage: str
    _damage_is_dice = field_validator("damage")(_dice_notation)


class MissileWeapon(Model):
    """A missile weapon: accuracy and damage (bows: the arrow's damage, plus STR)."""

    name: str
    accuracy: int
    damage: str = "0"
    _damage_is_dice = field_validator("damage")(_dice_notation)
    adds_strength: bool = False
    strength: int | None = None
    weight: float = 0
    skill: str = ""
    ammunition: Ammunition | None = None


class Armor(Model):
    """Armour: AC (reduces physical damage by AC/3), AT/PA modifier, weight, strength requirement."""

    name: str
    ac: int = Field(ge=0)
    at: int = 0
    pa: int = 0
    weight: float = 0
    strength: int | None = None
    spell_penalty: int = Field(0, ge=0, description="Penalty to spellcasting rolls for restricting armour.")
    reduces_magic: bool = Field(False, description="Exotic armour whose AC/3 also applies to magical damage.")


class Shield(Model):
    """A shield: its own AC (durability), a PA bonus (AT/PA modifier), weight, strength requirement."""

    name: str
    ac: int = Field(0, ge=0)
    at: int = 0
    pa: int = 0
    weight: float = 0
    strength: int | None = None


def _catalogue_schema(schema: dict[str, Any]) -> None:
    """Let the JSON Schema accept a catalogue name where a piece of gear is expected."""
    for field, section in (("weapon", "weapons"), ("missile", "missile_weapons"), ("armor", "armor")):
        prop = schema.get("properties", {}).get(field)
        if prop is not None and "anyOf" in prop:
            prop["anyOf"].append({"type": "string", "enum": sorted(equipment()[section])})


class Equipment(Model):
    """What the character carries. A piece of gear may be named instead of described when it is one
    the article names (``data/equipment.yaml``: Longsword, Mythril Pistol, Hide Armor, Robes)."""

    model_config = ConfigDict(json_schema_extra=_catalogue_schema)

    weapon: Weapon | None = None
    missile: MissileWeapon | None = None
    armor: Armor | None = None
    shield: Shield | None = None

    @field_validator("weapon", "missile", "armor", mode="before")
    @classmethod
    def _from_catalogue(cls, value: object, info: ValidationInfo) -> object:
        if not isinstance(value, str):
            return value
        section = {"weapon": "weapons", "missile": "missile_weapons", "armor": "armor"}[info.field_name or ""]
        known = equipment()[section]
        if value not in known:
            raise ValueError(
                f"no {info.field_name} called {value!r} in the catalogue ({', '.join(known)}); describe it in full"
            )
        return {"name": value, **known[value]}

    unarmed_base_damage: int = Field(0, ge=0, description="Gauntlets, heavy boots, knuckles: base damage unarmed.")
    other: list[str] = Field(default_factory=list)


class Current(Model):
    hp: int | None = None
    mp: int | None = None
    tp: int | None = None


class Character(Model):
    """A Philsys character sheet."""

    name: str = Field(min_length=1)
    level: int = Field(1, ge=1, le=20)
    xp: int = Field(0, ge=0)
    concept: str = ""
    size: Literal["small", "medium", "large", "very_large", "gigantic"] = "small"
    head_shot_kills: bool = Field(True, description="A head shot can kill outright (sensible for humans).")
    has_limbs: bool = True
    stats: Stats = Stats()
    skills: list[Skill] = Field(default_factory=list)
    abilities: list[Ability] = Field(default_factory=list)
    equipment: Equipment = Equipment()
    hp_gained: int = Field(0, ge=0, description="Max HP gained from level-ups.")
    mp_gained: int = Field(0, ge=0, description="Max MP gained from level-ups.")
    tp_gained: int = Field(0, ge=0, description="Max TP gained from level-ups.")
    stat_raises: int = Field(0, ge=0, description="Stat points gained from level-ups.")
    current: Current = Current()
    notes: str = ""

    @model_validator(mode="after")
    def _unique_skills(self) -> Character:
        names = [s.name.lower() for s in self.skills]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"skills listed twice: {sorted(dup)}")
        return self

    def skill(self, name: str) -> Skill | None:
        for s in self.skills:
            if s.name.lower() == name.lower():
                return s
        return None


# --- derived substats (Derived Substats) ------------------------------------------------


def hp_max(c: Character) -> int:
    """Derived Substats: HP = 55 + STA*5 (plus level-up gains)."""
    return 55 + 5 * c.stats.STA + c.hp_gained


def mp_max(c: Character) -> int:
    """Derived Substats: MP = MAG*10 + INT*5 + WIS*5 (plus level-up gains); never below 0."""
    return max(0, 10 * c.stats.MAG + 5 * c.stats.INT + 5 * c.stats.WIS + c.mp_gained)


def tp_max(c: Character) -> int:
    """Derived Substats: TP = 10 + 3*(STA + COU) (plus level-up gains); never below 0."""
    return max(0, 10 + 3 * (c.stats.STA + c.stats.COU) + c.tp_gained)


#: the Derived Substats' initiative (AGI + COU/2), shown on the sheet beside the formula in force
SUBSTATS_INITIATIVE = PhilsysHouseRules(initiative_formula="agi_cou_half")


def initiative_bonus(c: Character, hr: PhilsysHouseRules | None = None) -> int:
    """The '#' of '#+2d6'. Three formulas in the book; see ``initiative_formula``. Halves round down."""
    hr = hr or PhilsysHouseRules()
    s = c.stats
    if hr.initiative_formula == "agi_cou_half":
        return s.AGI + s.COU // 2
    if hr.initiative_formula == "agi_int_half":
        return s.AGI + s.INT // 2
    return s.AGI + s.COU


def uses_dexterity(c: Character) -> bool:
    """Light weapons may use DEX instead of STR (Derived Substats: Base AT/PA)."""
    w = c.equipment.weapon
    if w is None or not w.light:
        return False
    sk = c.skill(w.skill) if w.skill else None
    return bool(sk and sk.light) or c.stats.DEX > c.stats.STR


def base_at_pa(c: Character) -> int:
    """Derived Substats: Base AT/PA = AGI + INT + STR + COU (DEX for STR with a light weapon)."""
    s = c.stats
    power = s.DEX if uses_dexterity(c) else s.STR
    return s.AGI + s.INT + power + s.COU


def magic_attack(c: Character) -> int:
    """Derived Substats: MAttack = INT + WIS + MAG."""
    return c.stats.INT + c.stats.WIS + c.stats.MAG


def missile_evasion(c: Character) -> int:
    """Derived Substats: Missile Evasion = 10 + INT + AGI*2."""
    return 10 + c.stats.INT + 2 * c.stats.AGI


def mblock(c: Character) -> int:
    """Derived Substats: MBlock = 10 + INT + COU*2 (the magic resistance modifier)."""
    return 10 + c.stats.INT + 2 * c.stats.COU


def movement_yards(c: Character, double: bool = False) -> int:
    """Actions in Combat: a hexboard move is AGI+3 yards (never below 0); a double move twice that."""
    yards = max(0, c.stats.AGI + 3)
    return 2 * yards if double else yards


def skill_points(c: Character) -> int:
    """Skills: 20 + 2*(INT + WIS) points to spend."""
    return tables()["skill_points_base"] + 2 * (c.stats.INT + c.stats.WIS)


def skill_points_spent(c: Character) -> Fraction:
    """Each skill costs rank * cost per rank (Types of Skills)."""
    return sum((s.rank * s.cost() for s in c.skills), Fraction(0))


def stat_points_allowed(c: Character) -> int:
    """Stats: 21 points (negatives add points), plus stat raises from level-ups."""
    return tables()["stat_points"] + c.stat_raises


def skill_total(c: Character, skill: Skill) -> int:
    """Basic Tests of Skill: the sum of the three bases plus the rank."""
    return sum(c.stats.get(b) for b in skill.effective_bases()) + skill.rank


def base_sum(c: Character, skill: Skill) -> int:
    return sum(c.stats.get(b) for b in skill.effective_bases())


def validate(c: Character, hr: PhilsysHouseRules | None = None) -> list[Problem]:
    """Every way the sheet breaks the creation rules."""
    hr = hr or PhilsysHouseRules()
    probs: list[Problem] = []
    t = tables()
    for name in STAT_NAMES:
        lo, hi = t["stats"][name]["min"], t["stats"][name]["max"]
        v = c.stats.get(name)
        if not lo <= v <= hi:
            probs.append(Problem(f"stats.{name}", f"{v:+d} is outside {lo:+d}..{hi:+d}", "Characters: Stats"))
    allowed = stat_points_allowed(c)
    if c.stats.total() > allowed:
        probs.append(
            Problem(
                "stats",
                f"stats add up to {c.stats.total()}, more than the {allowed} points allowed",
                "Stats: 21 points",
            )
        )
    if c.level == 1 and c.stat_raises:
        probs.append(Problem("stat_raises", "a first-level character has no stat raises", "Character Advancement"))
    for i, s in enumerate(c.skills):
        where = f"skills[{i}] {s.label}"
        try:
            bases = s.effective_bases()
        except ValueError as exc:
            probs.append(Problem(where, str(exc), "Determining Base Attributes"))
            continue
        if s.kind == "knowledge" and tuple(bases) != ("WIS", "WIS", "WIS"):
            probs.append(Problem(where, "[k] skills are always <Wis/Wis/Wis>", "Types of Skills: Knowledge Skills"))
        if s.kind == "normal" and len(set(bases)) == 1:
            msg = "a normal skill may not have the same base three times"
            probs.append(Problem(where, msg, "Determining Base Attributes"))
        if s.kind == "normal" and s.cost() != 1:
            probs.append(Problem(where, "normal skills cost 1 point per rank", "Types of Skills: Normal Skills"))
        if s.kind == "knowledge" and s.cost() != Fraction(1, 2):
            probs.append(Problem(where, "[k] skills cost 1/2 point per rank", "Types of Skills: Knowledge Skills"))
        if s.category == "magic" and tuple(bases) != ("INT", "WIS", "MAG"):
            probs.append(Problem(where, "magic schools are <Int/Wis/Mag>", "Determining Base Attributes"))
        if s.category in ("melee", "unarmed") and tuple(bases) not in (("COU", "STR", "AGI"), ("COU", "DEX", "AGI")):
            probs.append(
                Problem(
                    where,
                    "melee weapon skills are <Cou/Str/Agi> (light weapons <Cou/Dex/Agi>)",
                    "Determining Base Attributes",
                )
            )
        if s.category in ("magic", "melee", "missile", "unarmed") and s.kind != "normal":
            probs.append(Problem(where, "weapon and magic skills are always normal skills", "Types of Skills"))
        for stat, need in s.requires.items():
            if c.stats.get(stat) < need:
                probs.append(
                    Problem(
                        where,
                        f"needs {stat} {need:+d} or better (has {c.stats.get(stat):+d})",
                        "Types of Skills: Support Skills",
                    )
                )
        if s.at_ranks is not None and s.at_ranks > s.rank:
            msg = f"puts {s.at_ranks} ranks into AT but has only {s.rank}"
            probs.append(Problem(where, msg, "Derived Substats: AT/PA"))
        if c.level == 1 and s.rank > t["first_level_rank_cap"]:
            msg = f"rank {s.rank} is above the first-level cap of 4"
            probs.append(Problem(where, msg, "Skills: 'no skill may be higher than the 4th rank'"))
    if c.level == 1:
        spent, budget = skill_points_spent(c), skill_points(c)
        if spent > budget:
            msg = f"{_pts(spent)} skill points spent, only {budget} available (20 + 2*(INT+WIS))"
            probs.append(Problem("skills", msg, "Skills"))
    if c.stats.MAG == 0 and any(a.is_spell for a in c.abilities):
        probs.append(Problem("abilities", "a character with MAG 0 cannot cast magic", "Stats: Magical Aptitude"))
    for i, a in enumerate(c.abilities):
        where = f"abilities[{i}] {a.name}"
        if a.source == "skill":
            if not a.skill:
                probs.append(Problem(where, "names no required skill (use source: innate or item)", "Abilities"))
                continue
            sk = c.skill(a.skill)
            have = sk.rank if sk else 0
            if have < a.rank:
                msg = f"needs {a.skill} rank {a.rank}, has {have}"
                probs.append(Problem(where, msg, "Abilities: required skill ranks"))
    probs += strength_problems(c, hr)
    return probs


def _pts(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{float(x):g}"


def strength_shortfalls(c: Character) -> list[tuple[str, int]]:
    """Each piece of gear whose strength requirement the character misses, with the shortfall."""
    out = []
    e = c.equipment
    for item in (e.weapon, e.missile, e.armor, e.shield):
        if item is not None and item.strength is not None and item.strength > c.stats.STR:
            out.append((item.name, item.strength - c.stats.STR))
    return out


def strength_problems(c: Character, hr: PhilsysHouseRules) -> list[Problem]:
    if hr.strength_requirement == "penalty":
        return []
    return [
        Problem(
            f"equipment {name}",
            f"needs {short} more STR (house rule strength_requirement: penalty allows it at -{2 * short}/-{2 * short})",
            "Equipment and Inventory: strength requirement",
        )
        for name, short in strength_shortfalls(c)
    ]


def strength_penalty(c: Character, hr: PhilsysHouseRules | None = None) -> int:
    """Advanced rule: AT/PA penalty of twice the shortfall, summed over the gear in use."""
    hr = hr or PhilsysHouseRules()
    if hr.strength_requirement != "penalty":
        return 0
    return sum(2 * short for _, short in strength_shortfalls(c))


def weapon_skill(c: Character) -> Skill | None:
    """The skill of the equipped melee weapon (or Unarmed skill when bare-handed)."""
    w = c.equipment.weapon
    if w is not None:
        return c.skill(w.skill) if w.skill else None
    for s in c.skills:
        if s.category == "unarmed":
            return s
    return None


def rank_split(skill: Skill | None) -> tuple[int, int]:
    """Weapon ranks divided between AT and PA; unset splits evenly, the odd rank to AT."""
    if skill is None:
        return 0, 0
    at = skill.at_ranks if skill.at_ranks is not None else (skill.rank + 1) // 2
    at = min(at, skill.rank)
    return at, skill.rank - at


def at_pa(c: Character, hr: PhilsysHouseRules | None = None) -> tuple[int, int]:
    """Modified AT/PA: base + weapon ranks split + weapon/armour/shield modifiers - strength penalty."""
    base = base_at_pa(c)
    at_r, pa_r = rank_split(weapon_skill(c))
    at, pa = base + at_r, base + pa_r
    e = c.equipment
    for item in (e.weapon, e.armor, e.shield):
        if item is not None:
            at += item.at
            pa += item.pa
    pen = strength_penalty(c, hr)
    return at - pen, pa - pen


def armor_reduction(ac: int) -> int:
    """Equipment: armour stops AC/3 points of physical damage (rounded down: 15 -> 5, 6 -> 2)."""
    return ac // 3


def magic_tier(c: Character) -> str:
    """Stats: Magical Aptitude: 0 cannot cast; 3+ is a mage; 4+ reads the astral plane by concentrating."""
    m = c.stats.MAG
    if m == 0:
        return "cannot cast magic"
    if m >= 4:
        return "mage; reads the astral plane at will"
    if m >= 3:
        return "mage"
    return "can cast"


def sheet(c: Character, hr: PhilsysHouseRules | None = None) -> dict[str, object]:
    """The derived values a sheet shows."""
    hr = hr or PhilsysHouseRules()
    at, pa = at_pa(c, hr)
    return {
        "HP": hp_max(c),
        "MP": mp_max(c),
        "TP": tp_max(c),
        "initiative": f"{initiative_bonus(c, hr)}+2d6",
        "initiative_substats": f"{initiative_bonus(c, SUBSTATS_INITIATIVE)}+2d6",
        "base_at_pa": base_at_pa(c),
        "AT": at,
        "PA": pa,
        "MAttack": magic_attack(c),
        "missile_evasion": missile_evasion(c),
        "MBlock": mblock(c),
        "move_yards": movement_yards(c),
        "magic": magic_tier(c),
        "strength_penalty": strength_penalty(c, hr),
        "armor_reduction": armor_reduction(c.equipment.armor.ac) if c.equipment.armor else 0,
        "stat_points": f"{c.stats.total()}/{stat_points_allowed(c)}",
        "skill_points": f"{_pts(skill_points_spent(c))}/{skill_points(c)}",
        "skills": {
            s.label: {"rank": s.rank, "bases": "/".join(_safe_bases(s)), "total": _safe_total(c, s)} for s in c.skills
        },
    }


def _safe_bases(s: Skill) -> tuple[str, ...]:
    try:
        return s.effective_bases()
    except ValueError:
        return ("?", "?", "?")


def _safe_total(c: Character, s: Skill) -> int | None:
    try:
        return skill_total(c, s)
    except ValueError:
        return None
