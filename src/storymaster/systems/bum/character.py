"""B.U.M. characters: four stats, skills with a governing stat, items, weapons and armour.

Stored values are what a player writes on the card (Appendix B); everything the
card computes (attack totals, defence totals, wounds) is a function here.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from ...errors import CharacterError, Problem
from ...rules import Model
from .equipment import Gear, ReloadKind, find_gear
from .options import BumHouseRules

__all__ = [
    "STATS",
    "ArmourEntry",
    "BumCharacter",
    "Item",
    "Skill",
    "Stat",
    "Stats",
    "WeaponEntry",
    "WeaponProfile",
    "Weapons",
    "Wound",
    "attack_total",
    "current_hp",
    "hit_points",
    "is_stats_only",
    "melee_defence",
    "ranged_defence",
    "skill_bonus",
    "stat_conflicts",
    "validate",
    "weapon_profile",
]

Stat = Literal["STR", "DEX", "INT", "SOC"]
STATS: tuple[Stat, ...] = ("STR", "DEX", "INT", "SOC")
Slot = Literal["primary", "ranged", "backup"]
SLOTS: tuple[Slot, ...] = ("primary", "ranged", "backup")
Readiness = Literal["ready", "cocked", "unready", "empty"]


class Stats(Model):
    """Part Three, Basic Character Creation: Strength, Dexterity, Intelligence, Socialization."""

    STR: int = Field(ge=0, le=99)
    DEX: int = Field(ge=0, le=99)
    INT: int = Field(ge=0, le=99)
    SOC: int = Field(ge=0, le=99)

    def get(self, stat: Stat) -> int:
        return int(getattr(self, stat))

    def total(self) -> int:
        return self.STR + self.DEX + self.INT + self.SOC


class Skill(Model):
    """Part Three, Advanced Character Creation: points that add to rolls its governing stat makes."""

    name: str = Field(min_length=1, max_length=80)
    stat: Stat
    points: int = Field(ge=0, le=99)


class Item(Model):
    """Part Four, Items: a bonus (negative for improvised tools) to rolls it applies to."""

    name: str = Field(min_length=1, max_length=120)
    bonus: int = Field(0, ge=-10, le=10)
    applies_to: str = Field("", max_length=80, description="the skill or kind of roll it helps")
    quantity: int = Field(1, ge=0, le=100_000)


class WeaponEntry(Model):
    """A weapon on the card. ``kind`` (default: ``name``) picks the Appendix A row; the rest overrides it."""

    name: str = Field(min_length=1, max_length=80)
    kind: str | None = Field(None, description="Appendix A kind; defaults to the name")
    attack: int | None = Field(None, ge=-10, le=10, description="attack bonus for a home-made weapon")
    defence: int | None = Field(None, ge=-10, le=10, description="defence bonus for a home-made weapon")
    ranged: bool | None = None
    skill: str | None = Field(None, description="the skill used with it (e.g. 'Axe/Mace')")
    stat: Stat | None = Field(
        None, description="stat for the attack: STR for melee, DEX for ranged unless the GM allows otherwise"
    )
    grip: Literal["one", "two"] | None = Field(None, description="for longswords/katanas: one or two hands")
    wounds: int | None = Field(None, ge=1, le=10)
    reload: ReloadKind | None = None
    rifle: bool = Field(False, description="a rifled firearm: range penalties at half rate")
    modern: bool = Field(False, description="a modern or high-tech gun (Part Seven, Technology)")
    readiness: Readiness = Field("ready", description="for bows, crossbows and firearms at the start of a fight")
    ammo: int | None = Field(
        None,
        ge=0,
        le=10_000,
        description="arrows or bolts carried, weapons to throw, or loaded guns (pistols: one shot each); none = "
        "no count",
    )


class ArmourEntry(Model):
    """Armour or a shield on the card; ``kind`` picks the Appendix A row unless attack/defence are given."""

    name: str = Field(min_length=1, max_length=80)
    kind: str | None = None
    attack: int | None = Field(None, ge=-10, le=10)
    defence: int | None = Field(None, ge=-10, le=10)


class Weapons(Model):
    primary: WeaponEntry | None = None
    ranged: WeaponEntry | None = None
    backup: WeaponEntry | None = None

    def get(self, slot: Slot) -> WeaponEntry | None:
        return getattr(self, slot)


class Wound(Model):
    """A wound taken (a tally mark), with what caused it and how long it takes to heal."""

    cause: str = Field("", max_length=120)
    heal_days: int | None = Field(None, ge=0, le=10_000)


class BumCharacter(Model):
    """A B.U.M. character card (Appendix B)."""

    system: Literal["bum"] = "bum"
    name: str = Field(min_length=1, max_length=120)
    player: str = Field("", max_length=120)
    campaign: str = Field("", max_length=120)
    background: str = Field("", max_length=4000)
    npc: bool = Field(False, description="a GM character: not held to the creation budgets")
    stats: Stats
    skills: tuple[Skill, ...] = ()
    weapons: Weapons = Weapons()
    armour: ArmourEntry | None = None
    shield: ArmourEntry | None = None
    items: tuple[Item, ...] = ()
    wounds: tuple[Wound, ...] = ()
    skill_points_earned: int = Field(0, ge=0, le=10_000, description="skill points awarded since creation (Part Six)")
    banked_skill_points: int = Field(0, ge=0, le=10_000, description="skill points saved, not yet spent")
    raised_stats: tuple[Stat, ...] = Field((), description="stats bought up with skill points this game (Part Six)")
    session_skills_used: tuple[str, ...] = Field((), description="skills used in the last session ('A is for Axe')")

    @field_validator("skills")
    @classmethod
    def _unique_skills(cls, v: tuple[Skill, ...]) -> tuple[Skill, ...]:
        seen: set[str] = set()
        for s in v:
            k = s.name.casefold()
            if k in seen:
                raise ValueError(f"skill {s.name!r} is listed twice")
            seen.add(k)
        return v


# --------------------------------------------------------------------------- derived


class WeaponProfile(Model):
    """A weapon as the rules see it: the Appendix A row with the card's overrides applied."""

    name: str
    attack: int
    defence: int | None
    ranged: bool
    hands: int
    wounds: int = 1
    reload: ReloadKind | None = None
    reach: int = 0
    longspear: bool = False
    melee_usable: bool = False
    rifle: bool = False
    modern: bool = False

    @property
    def parry(self) -> int:
        """Defence the weapon adds in melee ('-' counts as 0)."""
        return self.defence or 0


def _gear_for(entry: WeaponEntry) -> Gear | None:
    return find_gear(entry.kind or entry.name, ("hand", "ranged"))


def weapon_profile(entry: WeaponEntry, *, with_shield: bool = False) -> WeaponProfile:
    """Appendix A row + overrides. A longsword-family weapon is one-handed with a shield (footnote *)."""
    g = _gear_for(entry)
    if g is None and entry.attack is None:
        raise CharacterError(
            [Problem(f"weapon {entry.name!r}", "is not an Appendix A weapon and has no 'attack' bonus", "Appendix A")],
            hint="set 'kind' to a listed weapon, or give 'attack' (and 'defence') for a home-made one",
        )
    attack = g.attack if g else 0
    defence: int | None = g.defence if g else 0
    hands = 2 if g and g.hands == 2 else 1
    if g and g.hands == "either":
        two = entry.grip == "two" or (entry.grip is None and not with_shield)
        hands = 2 if two else 1
        if not two and g.one_handed:
            attack, defence = g.one_handed["attack"], g.one_handed["defence"]
    ranged = entry.ranged if entry.ranged is not None else bool(g and g.ranged)
    return WeaponProfile(
        name=entry.name,
        attack=entry.attack if entry.attack is not None else attack,
        defence=entry.defence if entry.defence is not None else defence,
        ranged=ranged,
        hands=hands,
        wounds=entry.wounds or (g.wounds if g else 1),
        reload=entry.reload or (g.reload if g else None),
        reach=(3 if ranged else (g.reach if g else 0)),
        longspear=bool(g and g.longspear),
        melee_usable=bool(g.melee_usable) if g else not ranged,
        rifle=entry.rifle,
        modern=entry.modern,
    )


def _armour_bonus(entry: ArmourEntry | None, category: Literal["armour", "shield"]) -> tuple[int, int]:
    if entry is None:
        return 0, 0
    g = find_gear(entry.kind or entry.name, category)
    if g is None and entry.defence is None:
        raise CharacterError(
            [
                Problem(
                    f"{category} {entry.name!r}",
                    f"is not Appendix A {category} and has no 'defence' bonus",
                    "Appendix A",
                )
            ],
            hint=f"set 'kind' to a listed {category}, or give 'defence' (and 'attack')",
        )
    attack = entry.attack if entry.attack is not None else (g.attack if g else 0)
    defence = entry.defence if entry.defence is not None else (g.defence or 0 if g else 0)
    return attack, defence


def armour_bonus(c: BumCharacter) -> tuple[int, int]:
    """(attack, defence) of the armour worn (Appendix A, Armor)."""
    return _armour_bonus(c.armour, "armour")


def shield_bonus(c: BumCharacter) -> tuple[int, int]:
    """(attack, defence) of the shield carried (Appendix A, Shields)."""
    return _armour_bonus(c.shield, "shield")


def hit_points(c: BumCharacter) -> int:
    """Part Five, Wounds/Injury: wounds a character can take equal his STR ('Hit Points')."""
    return c.stats.STR


def current_hp(c: BumCharacter) -> int:
    """Hit points left: STR less the wounds marked on the card, never below 0."""
    return max(0, hit_points(c) - len(c.wounds))


def skill_bonus(c: BumCharacter, name: str | None) -> int:
    """Points in the named skill (0 if the character lacks it)."""
    if not name:
        return 0
    for s in c.skills:
        if s.name.casefold() == name.casefold():
            return s.points
    return 0


def find_skill(c: BumCharacter, name: str) -> Skill | None:
    for s in c.skills:
        if s.name.casefold() == name.casefold():
            return s
    return None


def profile(c: BumCharacter, slot: Slot) -> WeaponProfile | None:
    entry = c.weapons.get(slot)
    if entry is None:
        return None
    return weapon_profile(entry, with_shield=c.shield is not None)


def attack_stat(entry: WeaponEntry, prof: WeaponProfile, c: BumCharacter | None = None) -> Stat:
    """The stat an attack with this weapon adds.

    The card's own ``stat`` first (the GM allowing another, e.g. DEX for knives); else the
    governing stat of the weapon's skill, when the card has that skill (Part Three: "The
    governing stat is the one that adds to the total roll for a given skill attempt");
    else STR for melee and DEX for missiles (Part Three, STR and DEX).
    """
    if entry.stat:
        return entry.stat
    skill = find_skill(c, entry.skill) if c is not None and entry.skill else None
    if skill is not None:
        return skill.stat
    return "DEX" if prof.ranged else "STR"


def stat_conflicts(c: BumCharacter) -> list[Problem]:
    """Warnings: a weapon whose card ``stat`` differs from the governing stat of its skill.

    Not an error (the GM may allow it, Part Three), but the card says two things: the
    attack uses the weapon's ``stat``, while the skill's points were bought for another.
    """
    out = []
    for slot in SLOTS:
        entry = c.weapons.get(slot)
        skill = find_skill(c, entry.skill) if entry is not None and entry.skill else None
        if entry is not None and entry.stat and skill is not None and skill.stat != entry.stat:
            out.append(
                Problem(
                    f"weapons.{slot} {entry.name}",
                    f"attacks with {entry.stat}, but its skill {skill.name!r} is governed by {skill.stat}; "
                    f"the attack adds {entry.stat} (the card's choice)",
                    "Part Three: 'The governing stat is the one that adds to the total roll'",
                )
            )
    return out


def attack_parts(c: BumCharacter, slot: Slot) -> list[tuple[str, int]]:
    """The pieces of an attack total: stat, skill, weapon, and armour/shield attack modifiers."""
    entry = c.weapons.get(slot)
    prof = profile(c, slot)
    if entry is None or prof is None:
        raise CharacterError([Problem(f"weapons.{slot}", "no weapon in this slot", "Appendix B")])
    stat = attack_stat(entry, prof, c)
    parts = [(stat, c.stats.get(stat))]
    if entry.skill:
        parts.append((entry.skill, skill_bonus(c, entry.skill)))
    parts.append((entry.name, prof.attack))
    a_att, _ = armour_bonus(c)
    if a_att:
        parts.append((c.armour.name if c.armour else "armour", a_att))
    s_att, _ = shield_bonus(c)
    if s_att and not prof.ranged:
        parts.append((c.shield.name if c.shield else "shield", s_att))
    return parts


def attack_total(c: BumCharacter, slot: Slot) -> int:
    """Part Eight step 7 / Appendix B: stat + skill + weapon attack bonus (plus armour/shield attack modifiers)."""
    return sum(v for _, v in attack_parts(c, slot))


def defence_parts(
    c: BumCharacter,
    *,
    ranged: bool = False,
    weapon: WeaponProfile | None = None,
    slot: Slot = "primary",
    armour: bool = True,
) -> list[tuple[str, int]]:
    """DEX + armour + shield (+ weapon defence in melee only: Part Five, Ranged defending).

    ``armour=False`` leaves armour and shield out (Part Seven, Technology: old armour against modern bullets).
    """
    parts = [("DEX", c.stats.DEX)]
    _, a_def = armour_bonus(c)
    if c.armour is not None and armour:
        parts.append((c.armour.name, a_def))
    _, s_def = shield_bonus(c)
    if c.shield is not None and armour:
        parts.append((c.shield.name, s_def))
    if not ranged:
        w = weapon if weapon is not None else profile(c, slot)
        if w is not None and w.parry:
            parts.append((w.name, w.parry))
    return parts


def melee_defence(c: BumCharacter, weapon: WeaponProfile | None = None) -> int:
    """Part Eight step 7: DEX + armour + shield + the defence bonus of the weapon in hand (the primary)."""
    return sum(v for _, v in defence_parts(c, weapon=weapon))


def ranged_defence(c: BumCharacter) -> int:
    """Part Five, Ranged defending / Appendix B: melee defence without the weapon's defence bonus."""
    return sum(v for _, v in defence_parts(c, ranged=True))


# --------------------------------------------------------------------------- validation


def skill_points_spent(c: BumCharacter) -> int:
    return sum(s.points for s in c.skills)


def skill_point_budget(c: BumCharacter, hr: BumHouseRules) -> int:
    """Starting skill points plus those earned (Part Three, Skills; Part Six)."""
    return hr.skill_points + c.skill_points_earned


def is_stats_only(c: BumCharacter) -> bool:
    """A character of "the most basic form": stats and nothing bought with skill points.

    Part Three, Basic Character Creation: "with your stats chosen you can play the game in
    the most basic form"; Part Eight step 4: "This is the most basic necessity. You can begin
    playing now ... or you can choose to include skills and/or equipment later." Such a card
    is not held to spend its skill points (it has not taken the skills step yet).
    """
    return not c.skills and not c.raised_stats and not c.banked_skill_points


def validate(c: BumCharacter, hr: BumHouseRules | None = None) -> list[Problem]:
    """Every way the card breaks the creation rules (Part Three; Part Eight steps 4-7; Appendix A)."""
    hr = hr or BumHouseRules()
    problems: list[Problem] = []
    raised = {s: c.raised_stats.count(s) for s in STATS}
    for stat in STATS:
        v = c.stats.get(stat)
        base = v - raised[stat]
        if not c.npc and base < hr.stat_min:
            problems.append(
                Problem(f"stats.{stat}", f"{v} is below the minimum of {hr.stat_min}", "Part Three: 'a minimum of 1'")
            )
        if v > hr.stat_max and not c.npc:
            problems.append(
                Problem(
                    f"stats.{stat}",
                    f"{v} is above the maximum of {hr.stat_max}",
                    "Part Three: 'a maximum of 4' (house rule stat_max)",
                )
            )
        if raised[stat] > hr.stat_raises_per_game:
            problems.append(
                Problem(
                    "raised_stats",
                    f"{stat} was raised {raised[stat]} times; at most {hr.stat_raises_per_game} per game",
                    "Part Six",
                )
            )
    if not c.npc:
        base_total = c.stats.total() - len(c.raised_stats)
        if base_total != hr.stat_points:
            problems.append(
                Problem(
                    "stats",
                    f"the stats come to {base_total} points before increases; a character has exactly {hr.stat_points}",
                    "Part Three: 'ten points to distribute'",
                )
            )
        spent = skill_points_spent(c) + hr.stat_cost * len(c.raised_stats) + c.banked_skill_points
        budget = skill_point_budget(c, hr)
        if spent > budget:
            problems.append(
                Problem(
                    "skills",
                    f"skills, stat increases and banked points use {spent} skill points; only {budget} are available",
                    "Part Three: 'starts with 10 skill points'",
                )
            )
        elif spent < budget and not is_stats_only(c):
            problems.append(
                Problem(
                    "skills",
                    f"{budget - spent} skill point(s) are not assigned; assign them to skills, or save them "
                    f"as banked_skill_points: {budget - spent}",
                    "Part Eight step 5",
                )
            )
    if hr.skill_cap_at_stat:
        for i, s in enumerate(c.skills):
            cap = c.stats.get(s.stat)
            if s.points > cap:
                problems.append(
                    Problem(
                        f"skills[{i}] {s.name}",
                        f"{s.points} points is above its governing stat {s.stat} {cap}",
                        "Part Three, Limitations on Skill Values (house rule skill_cap_at_stat)",
                    )
                )
    problems += _equipment_problems(c)
    return problems


def _equipment_problems(c: BumCharacter) -> list[Problem]:
    problems: list[Problem] = []
    for slot in SLOTS:
        entry = c.weapons.get(slot)
        if entry is None:
            continue
        where = f"weapons.{slot} {entry.name}"
        g = _gear_for(entry)
        if g is None and entry.attack is None:
            problems.append(Problem(where, "is not an Appendix A weapon and has no 'attack' bonus", "Appendix A"))
            continue
        prof = weapon_profile(entry, with_shield=c.shield is not None)
        if slot == "ranged" and not prof.ranged:
            problems.append(Problem(where, "is not a ranged weapon", "Appendix B: RANGED slot"))
        if slot == "primary" and prof.hands == 2 and c.shield is not None:
            problems.append(Problem(where, "is used in two hands, which leaves no hand for the shield", "Appendix A"))
        if entry.skill and find_skill(c, entry.skill) is None:
            problems.append(
                Problem(where, f"uses the skill {entry.skill!r}, which the character does not have", "Appendix B")
            )
        if entry.readiness != "ready" and prof.reload is None:
            problems.append(
                Problem(
                    where,
                    f"readiness {entry.readiness!r} only applies to bows, crossbows and firearms",
                    "Appendix A, Reloading",
                ),
            )
        if entry.readiness == "cocked" and prof.reload != "crossbow":
            problems.append(
                Problem(where, "only a crossbow can be kept cocked", "Appendix A, Partially Loaded Weapons")
            )
        if entry.readiness == "empty" and prof.reload != "muzzleloader":
            problems.append(
                Problem(where, "'empty' is for firearms; a bow or crossbow is 'unready'", "Appendix A, Reloading")
            )
    for field, cat in (("armour", "armour"), ("shield", "shield")):
        entry = getattr(c, field)
        if entry is not None and find_gear(entry.kind or entry.name, cat) is None and entry.defence is None:
            problems.append(
                Problem(f"{field} {entry.name}", f"is not Appendix A {cat} and has no 'defence' bonus", "Appendix A")
            )
    return problems


def require_valid(c: BumCharacter, hr: BumHouseRules | None = None) -> BumCharacter:
    problems = validate(c, hr)
    if problems:
        raise CharacterError(
            problems, name=c.name, hint="fix the card, or change the house rules (storymaster house-rules bum)"
        )
    return c
