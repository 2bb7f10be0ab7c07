"""The Kalyr character, modelled from what chapter 3 uses (the creation chapter is missing).

What was inferred, and why, is listed in docs/systems/kalyr.md ("The character, inferred").
Derived values (wound penalties, weapon damage, armour, gift bonuses) are functions, not fields.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ...errors import Problem
from ...rules.models import Model
from .data_files import table
from .ladder import MEDIOCRE, POOR, SUPERB, Level, level_name, on_ladder
from .wounds import BOXES, TRACKS, Track, TrackName, severity_name

__all__ = [
    "Ability",
    "Armour",
    "Character",
    "Connection",
    "DamageTracks",
    "Gift",
    "Key",
    "Lifepath",
    "Weapon",
    "armour_value",
    "damage_bonus",
    "damage_reduction",
    "find_ability",
    "highest_connection",
    "shield_value",
    "validate",
    "weapon_damage",
    "weapon_reach",
]

Reach = Literal["close", "medium", "long"]
ShieldSize = Literal["none", "small", "medium", "large"]
Role = Literal["pc", "major_villain", "henchman", "cannon_fodder"]


class Ability(Model):
    """An ability on the Trait Ladder. ``track`` says which damage track's wounds hamper it."""

    name: str = Field(min_length=1)
    level: Level
    kind: Literal["mundane", "psionic"] = "mundane"
    track: TrackName = Field("physical", description="physical, mental or social: the kind of contest it is used in")
    power: str | None = Field(None, description="psionic abilities: the power they belong to")


class Connection(Model):
    """A connection with an organisation, rated on the ladder (social rank: Modifiers)."""

    organisation: str = Field(min_length=1)
    level: Level


class Key(Model):
    """A Key (Fear, Goal, Physical Disability ...): bringing it into play earns Fudge points."""

    name: str = Field(min_length=1)
    kind: str = ""


class Gift(Model):
    """A gift; those that change damage carry a bonus (inflicted) or reduction (received)."""

    name: str = Field(min_length=1)
    damage_bonus: int | None = None
    damage_reduction: int | None = None


class Lifepath(Model):
    """A profession, background, or an Experience earned by advancement."""

    name: str = Field(min_length=1)
    kind: Literal["profession", "background", "experience"] = "profession"


class Weapon(Model):
    """A weapon: damage bonus and reach come from data/equipment.yaml unless given."""

    name: str = "unarmed"
    damage: int | None = None
    reach: Reach | None = None


class Armour(Model):
    name: str = "none"
    armour: int | None = Field(None, ge=0)


class DamageTracks(Model):
    physical: Track = Track()
    mental: Track = Track()
    social: Track = Track()

    def track(self, name: TrackName) -> Track:
        return getattr(self, name)

    def with_track(self, name: TrackName, track: Track) -> DamageTracks:
        return self.model_copy(update={name: track})


class Character(Model):
    """A Kalyr character sheet."""

    name: str = Field(min_length=1)
    race: str = "human"
    scale: int = Field(
        0,
        ge=-5,
        le=5,
        description="size class: 0 for human and kandar; bigger is higher (Specific rules for Detailed Combats)",
    )
    intolerance: Literal["none", "intolerant", "very_intolerant"] = Field(
        "none", description="how the character regards other races (persuasion modifiers)"
    )
    role: Role = Field(
        "pc", description="pc, or an NPC's weight: major_villain, henchman, cannon_fodder (Fudge point allowance)"
    )
    abilities: tuple[Ability, ...] = ()
    powers: tuple[str, ...] = Field((), description="psionic powers held; psionic abilities belong to one")
    connections: tuple[Connection, ...] = ()
    keys: tuple[Key, ...] = ()
    gifts: tuple[Gift, ...] = ()
    lifepaths: tuple[Lifepath, ...] = ()
    incompetences: tuple[str, ...] = Field((), description="abilities or areas defaulting to Terrible instead of Poor")
    weapon: Weapon = Weapon()
    armour: Armour = Armour()
    shield: ShieldSize = "none"
    damage: DamageTracks = DamageTracks()
    fudge_points: int = Field(1, ge=0)
    experience: int = Field(0, ge=0, description="experience points: one per Fudge point spent")
    levels_gained: int = Field(0, ge=0, description="levels bought since the last Lifepath (8 give a new one)")
    raised_this_scene: tuple[str, ...] = Field((), description="abilities/connections raised at the end of this scene")
    keys_due: int = Field(0, ge=0, description="new Keys owed for being Destroyed")
    notes: str = ""


# ---- derived values --------------------------------------------------------------------------


def find_ability(character: Character, name: str) -> Ability | None:
    """The character's ability of that name (case-insensitive), if listed."""
    key = name.strip().lower()
    return next((a for a in character.abilities if a.name.lower() == key), None)


def weapon_damage(character: Character) -> int:
    """The weapon's damage bonus (Example of Damage: Narvork +3, mace +3)."""
    w = character.weapon
    if w.damage is not None:
        return w.damage
    row = table("equipment")["weapons"].get(w.name.lower())
    return int(row["damage"]) if row else 0


def weapon_reach(character: Character) -> str:
    w = character.weapon
    if w.reach is not None:
        return w.reach
    row = table("equipment")["weapons"].get(w.name.lower())
    return str(row["reach"]) if row else "medium"


def armour_value(character: Character) -> int:
    a = character.armour
    if a.armour is not None:
        return a.armour
    row = table("equipment")["armour"].get(a.name.lower())
    return int(row["armour"]) if row else 0


def shield_value(character: Character, *, ranged: bool = False) -> int:
    """Shield value: small +1 melee only, medium +1 both, large +2 (Specific rules for Detailed Combats)."""
    row = table("equipment")["shields"][character.shield]
    return int(row["ranged" if ranged else "melee"])


def _gift_row(g: Gift) -> dict:
    return table("gifts")["gifts"].get(g.name, {})


def damage_bonus(character: Character) -> int:
    """Damage the character's gifts add to what they inflict (Extra Damage +1)."""
    return sum(
        g.damage_bonus if g.damage_bonus is not None else int(_gift_row(g).get("damage_bonus", 0))
        for g in character.gifts
    )


def damage_reduction(character: Character) -> int:
    """Damage the character's gifts take off what they receive."""
    return sum(
        g.damage_reduction if g.damage_reduction is not None else int(_gift_row(g).get("damage_reduction", 0))
        for g in character.gifts
    )


def highest_connection(character: Character, organisation: str | None = None) -> int | None:
    """The character's highest connection level (optionally with one organisation only)."""
    levels = [
        c.level for c in character.connections if organisation is None or c.organisation.lower() == organisation.lower()
    ]
    return max(levels, default=None)


# ---- validation ------------------------------------------------------------------------------


def validate(character: Character) -> list[Problem]:
    """Every problem with the sheet (inferred rules: see docs/systems/kalyr.md)."""
    problems: list[Problem] = []
    seen: set[str] = set()
    powers = {p.lower() for p in character.powers}
    for i, a in enumerate(character.abilities):
        where = f"abilities[{i}] {a.name}"
        if a.name.lower() in seen:
            problems.append(Problem(where, "listed twice", "one entry per ability"))
        seen.add(a.name.lower())
        if not on_ladder(a.level):
            problems.append(
                Problem(
                    where, f"level {level_name(a.level)} is off the Trait Ladder", "Ability Checks: Terrible to Superb"
                )
            )
        if a.kind == "psionic":
            if a.power is None:
                problems.append(
                    Problem(
                        where,
                        "a psionic ability must name its power",
                        "Character Advancement: 'must already have the appropriate power'",
                    )
                )
            elif a.power.lower() not in powers:
                problems.append(
                    Problem(
                        where,
                        f"needs the power {a.power!r}, which is not in powers",
                        "Character Advancement: psionic abilities",
                    )
                )
        elif a.level < POOR and a.name.lower() not in {n.lower() for n in character.incompetences}:
            problems.append(
                Problem(
                    where,
                    f"a mundane ability at {level_name(a.level)} is below the Poor default",
                    "Deciding What Ability to Use (ruling K1)",
                )
            )
    orgs: set[str] = set()
    for i, c in enumerate(character.connections):
        where = f"connections[{i}] {c.organisation}"
        if c.organisation.lower() in orgs:
            problems.append(Problem(where, "listed twice", "one connection per organisation"))
        orgs.add(c.organisation.lower())
        if not (MEDIOCRE <= c.level <= SUPERB):
            problems.append(
                Problem(
                    where,
                    f"level {level_name(c.level)} is outside Mediocre..Superb",
                    "Character Advancement: connections start at Mediocre (ruling K1)",
                )
            )
    names = [k.name.lower() for k in character.keys]
    if len(names) != len(set(names)):
        problems.append(Problem("keys", "a Key is listed twice", ""))
    w = character.weapon
    if w.damage is None and w.name.lower() not in table("equipment")["weapons"]:
        problems.append(
            Problem("weapon", f"unknown weapon {w.name!r}: give its damage bonus", "Damage: weapon damage bonuses")
        )
    a = character.armour
    if a.armour is None and a.name.lower() not in table("equipment")["armour"]:
        problems.append(
            Problem("armour", f"unknown armour {a.name!r}: give its armour bonus", "Damage: armour bonuses")
        )
    for tname in TRACKS:
        track = character.damage.track(tname)
        for box, allowed in BOXES.items():
            if track.used(box) > allowed:
                problems.append(
                    Problem(
                        f"damage.{tname}",
                        f"{track.used(box)} wounds in the {severity_name(box)} box, which has {allowed}",
                        "Damage: the track's boxes",
                    )
                )
        for j, wound in enumerate(track.wounds):
            if wound.box < wound.severity:
                problems.append(
                    Problem(
                        f"damage.{tname}.wounds[{j}]",
                        "a wound is marked below its own level",
                        "Damage: overflow goes to the next highest open box",
                    )
                )
    if character.role == "cannon_fodder" and character.fudge_points:
        problems.append(
            Problem("fudge_points", "cannon-fodder NPCs get no Fudge points", "Fudge Points: NPC allowances")
        )
    if len(set(character.raised_this_scene)) != len(character.raised_this_scene):
        problems.append(
            Problem("raised_this_scene", "an ability was raised twice in one scene", "Character Advancement")
        )
    return problems
