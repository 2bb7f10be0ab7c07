"""BLYSS characters: the sheet model, CP accounting, creation guidelines and derived values.

BLYSS 3.5, Character Creation: Building the Character, Attributes, Derived Attributes, Traits,
Natural Traits, Negative Traits, Specialisation, Template Characters; Rules for Living: Movement.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from pydantic import Field, ValidationInfo, field_validator, model_validator

from ...errors import CheckError, Problem
from ...rules.models import Model
from .checks import Pool
from .costs import cumulative_cost, extra_cost, rank_cost, specialisation_cost
from .options import BlyssHouseRules
from .tables import table

__all__ = [
    "ATTRIBUTES",
    "DERIVED",
    "Armour",
    "Attributes",
    "Character",
    "Trait",
    "Weapon",
    "armour_soak_chance",
    "armour_soaks",
    "armour_soaks_v",
    "character_pool",
    "cp_breakdown",
    "cp_budget",
    "cp_left",
    "cp_spent",
    "current_armour_rating",
    "damaged_armour_rating",
    "damaged_armour_rating_v",
    "derived_values",
    "max_dodges",
    "max_flesh_wounds",
    "max_health",
    "movement_feet",
    "statistic_rank",
    "strength_damage_bonus",
    "template_character",
    "templates",
    "trait_cp",
    "validate_character",
]

#: the nine Attributes, as the book names them, and the field names in files
ATTRIBUTES: dict[str, str] = {
    "Strength": "strength",
    "Stamina": "stamina",
    "Agility": "agility",
    "Dexterity": "dexterity",
    "Intelligence": "intelligence",
    "Wisdom": "wisdom",
    "Wits": "wits",
    "Mental Fortitude": "mental_fortitude",
    "Charisma": "charisma",
}
#: the Derived Attributes (and Movement), which cannot be bought as Traits
DERIVED = ("Melee Attack", "Ranged Attack", "Defence", "Initiative", "Dodges", "Flesh Wounds", "Health", "Movement")
_DERIVED_NAMES = {n.lower() for n in DERIVED} | {"defense"}


class Attributes(Model):
    """Ranks in the nine Attributes (BLYSS 3.5, Attributes)."""

    strength: int = Field(3, ge=0, le=30)
    stamina: int = Field(3, ge=0, le=30)
    agility: int = Field(3, ge=0, le=30)
    dexterity: int = Field(3, ge=0, le=30)
    intelligence: int = Field(3, ge=0, le=30)
    wisdom: int = Field(3, ge=0, le=30)
    wits: int = Field(3, ge=0, le=30)
    mental_fortitude: int = Field(3, ge=0, le=30)
    charisma: int = Field(3, ge=0, le=30)

    def of(self, name: str) -> int:
        return int(getattr(self, ATTRIBUTES[name]))


class Trait(Model):
    """A Skill, Talent or Natural, positive or negative (BLYSS 3.5, Traits).

    ``progress``: CP already put towards the next rank. ``free``: its first 3 ranks cost nothing
    (the native tongue, or a common Trait the SM gives everyone). ``single_advantage``: a Natural
    that is simply had (an extra arm), at a fixed value and never improved.
    """

    name: str = Field(..., min_length=1, max_length=80)
    kind: Literal["skill", "talent", "natural"] = "skill"
    rank: int = Field(0, ge=0, le=30)
    negative: bool = False
    single_advantage: bool = False
    specialisations: tuple[str, ...] = ()
    progress: int = Field(0, ge=0)
    free: bool = False
    acquired_after_creation: bool = False
    notes: str = ""


class Weapon(Model):
    """A weapon (BLYSS 3.5, Weapons): Attack Modifier (ranks), Damage, Special Rules, Range Increment."""

    name: str = Field(..., min_length=1)
    attack_modifier: int = Field(0, ge=-10, le=10)
    damage: str = Field("d6", description="dice notation such as 'd8' or a set number such as '3'")
    ranged: bool = False
    range_increment: int | None = Field(None, ge=1, description="feet; up to this is Short Range")
    skill: str | None = Field(None, description="the Trait that counts as skill with it (e.g. 'Armed Combat')")
    strength_applies: bool | None = Field(
        None, description="Strength's damage bonus applies (default: melee yes, ranged no)"
    )
    knockout_rank: int | None = Field(None, ge=1, le=10, description="knockout chance as a rank (Average = 3, d8)")
    blunt: bool = False
    special: str = ""

    @field_validator("damage")
    @classmethod
    def _damage(cls, v: str) -> str:
        from ...dice import parse

        parse(v)
        return v


class Armour(Model):
    """A piece of armour (BLYSS 3.5, Armour): Action Modifier, Cover, Armour Rating, lives, Special Rules."""

    name: str = Field(..., min_length=1)
    action_modifier: int = Field(0, ge=-10, le=0, description="ranks taken from physical actions; doubled if unskilled")
    cover: tuple[Literal["H", "F", "T", "A", "L"], ...] = ("T",)
    armour_rating: int = Field(..., ge=0, le=20, description="the rank whose die pool soaks blows")
    lives: int = Field(3, ge=0, le=3)
    skill: str | None = None
    special: str = ""


class Character(Model):
    """A BLYSS character sheet. Derived values are computed, never stored."""

    system: Literal["blyss"] = "blyss"
    name: str = Field(..., min_length=1, max_length=120)
    concept: str = ""
    template: str | None = None
    attributes: Attributes = Attributes()
    attribute_progress: dict[str, int] = Field(default_factory=dict)
    traits: tuple[Trait, ...] = ()
    extra_dodges: int = Field(0, ge=0, le=100)
    extra_flesh_wounds: int = Field(0, ge=0, le=100)
    extra_health: int = Field(0, ge=0, le=200)
    cp_lost: int = Field(0, ge=0, description="CP lost to Deterioration (gone from the budget until re-earned)")
    cp_earned: int = Field(0, ge=0, description="CP awarded by Experience since creation")
    weapons: tuple[Weapon, ...] = ()
    armour: tuple[Armour, ...] = ()
    notes: str = ""

    @model_validator(mode="before")
    @classmethod
    def _every_attribute_written(cls, data: Any, info: ValidationInfo) -> Any:
        """A character file names all nine Attributes: a missing one is refused rather than silently made Average
        (3). (Code building a Character may leave some out; they default to 3.)"""
        if isinstance(data, dict) and info.context and info.context.get("document"):
            given = data.get("attributes")
            given = given if isinstance(given, dict) else {}
            missing = [book for book, field in ATTRIBUTES.items() if field not in given]
            if missing:
                raise ValueError(
                    f"attributes: {', '.join(missing)} missing; a character file gives all nine Attributes' ranks "
                    "(the book's Average is 3)"
                )
        return data

    @model_validator(mode="before")
    @classmethod
    def _no_own_budget(cls, data: Any) -> Any:
        """The CP budget is the campaign's (house rule ``starting_cp``, 400 in the book), not the sheet's. An older
        file's ``cp_budget`` below 400 was written by Deterioration and becomes ``cp_lost``; any other is refused."""
        if isinstance(data, dict) and "cp_budget" in data:
            data = dict(data)
            budget = data.pop("cp_budget")
            if not isinstance(budget, int) or isinstance(budget, bool) or not 0 <= budget <= 400:
                raise ValueError(
                    f"cp_budget {budget!r}: a character file cannot set its own CP budget; the campaign's house "
                    "rules do (starting_cp, 400 in the book)"
                )
            data["cp_lost"] = data.get("cp_lost", 0) + 400 - budget
        return data

    def trait(self, name: str) -> Trait | None:
        low = name.strip().lower()
        return next((t for t in self.traits if t.name.lower() == low), None)

    @property
    def created(self) -> bool:
        """Past creation (has earned Experience): the creation guidelines no longer bind."""
        return self.cp_earned > 0


# ------------------------------------------------------------------ CP accounting
def trait_cp(t: Trait, hr: BlyssHouseRules | None = None) -> int:
    """CP a Trait costs (negative: grants) (Tables 1-03 to 1-05; Natural Traits; Negative Traits;
    Specialisation). A negative Trait taken after creation grants nothing."""
    hr = hr or BlyssHouseRules()
    if t.single_advantage:
        base = hr.single_advantage_cost
    else:
        base = cumulative_cost(t.kind, t.rank) + t.progress
        if t.free:
            base = max(0, base - cumulative_cost(t.kind, 3))
    spec = specialisation_cost(len(t.specialisations), hr.specialisation_cost)
    if t.negative:
        return 0 if t.acquired_after_creation else -base
    return base + spec


def cp_breakdown(c: Character, hr: BlyssHouseRules | None = None) -> dict[str, int]:
    """CP spent on each part of the sheet."""
    hr = hr or BlyssHouseRules()
    out: dict[str, int] = {}
    for book in ATTRIBUTES:
        out[book] = cumulative_cost("attribute", c.attributes.of(book)) + c.attribute_progress.get(book, 0)
    for t in c.traits:
        out[f"{t.kind.title()}: {t.name}"] = trait_cp(t, hr)
    out["Extra Dodges"] = extra_cost("dodges", c.extra_dodges)
    out["Extra Flesh Wounds"] = extra_cost("flesh_wounds", c.extra_flesh_wounds)
    out["Extra Health"] = extra_cost("health", c.extra_health)
    return out


def cp_spent(c: Character, hr: BlyssHouseRules | None = None) -> int:
    return sum(cp_breakdown(c, hr).values())


def cp_budget(c: Character, hr: BlyssHouseRules | None = None) -> int:
    """CP the character may have spent: the campaign's starting CP (400 in the book), plus Experience, less what
    Deterioration took (Building the Character; Experience; Deterioration)."""
    hr = hr or BlyssHouseRules()
    return hr.starting_cp + c.cp_earned - c.cp_lost


def cp_left(c: Character, hr: BlyssHouseRules | None = None) -> int:
    return cp_budget(c, hr) - cp_spent(c, hr)


# ------------------------------------------------------------------ derived values
def damaged_armour_rating(rating: int, lives: int, /) -> int:
    """Armour Rating after damage: a third of the original (rounded down) is lost per life lost (Armour Rating;
    ruling 9)."""
    return max(0, rating - (3 - lives) * (rating // 3))


def damaged_armour_rating_v(ratings: np.ndarray, lives: np.ndarray, /) -> np.ndarray:
    """:func:`damaged_armour_rating` on arrays (the forecast's twin, tested against it on every input)."""
    return np.maximum(0, ratings - (3 - lives) * (ratings // 3))


def armour_soaks(best_armour: int, best_attack: int, ties_soak: bool = False, /) -> bool:
    """The Armour Rating contest: the armour soaks the blow when its best die beats the best attack die
    ("beat the value of all the attack dice"); a tie does not soak unless ``ties_soak`` (ruling 9)."""
    return best_armour > best_attack or (ties_soak and best_armour == best_attack)


def armour_soaks_v(best_armour: np.ndarray, best_attack: np.ndarray, ties_soak: bool = False, /) -> np.ndarray:
    """:func:`armour_soaks` on arrays (the simulation's twin, tested against it on every input)."""
    return (best_armour > best_attack) | (ties_soak & (best_armour == best_attack))


def armour_soak_chance(dice: tuple[int, ...], best_attack: int, ties_soak: bool = False, /) -> float:
    """Chance that an armour pool of ``dice`` (their sides) soaks against ``best_attack`` by
    :func:`armour_soaks` (the exact chain's form; tested against enumeration with the scalar rule)."""
    limit = best_attack - 1 if ties_soak else best_attack  # the armour fails when every die is at most this
    below = 1.0
    for sides in dice:
        below *= min(sides, max(0, limit)) / sides
    return 1.0 - below


def current_armour_rating(a: Armour, /) -> int:
    """The rating a (possibly damaged) piece of armour soaks with now."""
    return damaged_armour_rating(a.armour_rating, a.lives)


def strength_damage_bonus(strength: int, /) -> int:
    """+1 damage per Strength rank above Average (4+), -1 per rank below (2 or less) (Attributes: Strength)."""
    return strength - 3


def movement_feet(agility: int, /) -> int:
    """30 ft at Average Agility; +3 ft per rank above, -6 ft per rank below (Rules for Living: Movement)."""
    m = table("wounds")["movement"]
    if agility >= 3:
        return m["base_feet"] + m["per_rank_above"] * (agility - 3)
    return max(0, m["base_feet"] - m["per_rank_below"] * (3 - agility))


def melee_attack(a: Attributes) -> int:
    """(Strength + Agility) / 2, rounded down (Derived Attributes: Melee Attack)."""
    return (a.strength + a.agility) // 2


def ranged_attack(a: Attributes) -> int:
    """(Agility + Dexterity) / 2, rounded down (Derived Attributes: Ranged Attack)."""
    return (a.agility + a.dexterity) // 2


def defence(a: Attributes) -> int:
    """(Agility + Wits) / 2, rounded down (Derived Attributes: Defence)."""
    return (a.agility + a.wits) // 2


def initiative(a: Attributes) -> int:
    """(Agility + Wits) / 2, rounded down (Derived Attributes: Initiative)."""
    return (a.agility + a.wits) // 2


def max_dodges(c: Character) -> int:
    """Agility plus bought extras (Derived Attributes: Dodges)."""
    return c.attributes.agility + c.extra_dodges


def max_flesh_wounds(c: Character) -> int:
    """Stamina plus bought extras (Derived Attributes: Flesh Wounds)."""
    return c.attributes.stamina + c.extra_flesh_wounds


def max_health(c: Character) -> int:
    """Stamina x 6 plus bought extras (Derived Attributes: Health)."""
    return c.attributes.stamina * 6 + c.extra_health


def derived_values(c: Character) -> dict[str, int]:
    a = c.attributes
    return {
        "Melee Attack": melee_attack(a),
        "Ranged Attack": ranged_attack(a),
        "Defence": defence(a),
        "Initiative": initiative(a),
        "Dodges": max_dodges(c),
        "Flesh Wounds": max_flesh_wounds(c),
        "Health": max_health(c),
        "Movement (ft)": movement_feet(a.agility),
        "Strength damage bonus": strength_damage_bonus(a.strength),
    }


_SPEC = re.compile(r"^\s*(?P<name>[^\[\]]+?)\s*(\[(?P<spec>[^\]]*)\])?\s*$")


def statistic_rank(c: Character, name: str) -> tuple[int, bool]:
    """The rank of an Attribute, Derived Attribute or Trait, and whether it is negative.

    A Trait may be written with the specialisations in play: 'Mental Games[Gambling; Card Games]'
    adds one rank per leading level the character has (Specialisation: 'the benefits of ALL levels').
    """
    m = _SPEC.match(name)
    if not m:
        raise CheckError(f"cannot read the statistic {name!r}")
    base, spec = m["name"], m["spec"]
    for book in ATTRIBUTES:
        if base.lower() == book.lower():
            return c.attributes.of(book), False
    dv = {k.lower(): v for k, v in derived_values(c).items()}
    if base.lower() in ("melee attack", "ranged attack", "defence", "defense", "initiative"):
        return dv["defence" if base.lower() == "defense" else base.lower()], False
    t = c.trait(base)
    if t is None:
        known = ", ".join([*ATTRIBUTES, *DERIVED[:4], *(t.name for t in c.traits)])
        raise CheckError(f"{c.name} has no statistic called {base!r}", hint=f"known: {known}")
    bonus = 0
    if spec:
        wanted = [s.strip().lower() for s in spec.split(";") if s.strip()]
        # a prefix match: the bonus counts the wanted specialisations in order, stopping where either list ends
        for have, want in zip((s.lower() for s in t.specialisations), wanted, strict=False):
            if have != want:
                break
            bonus += 1
    return t.rank + bonus, t.negative


def character_pool(
    c: Character, statistics: Sequence[str], *, penalty_ranks: int = 0, die_modifier: int = 0, bonus_ranks: int = 0
) -> Pool:
    """A Pool from named statistics: positive ones add their ranks, negative Traits deduct theirs
    (Die Pools: 'the value of the negative Trait is deducted ... before the Die Pool is established')."""
    if not statistics:
        raise CheckError("name at least one statistic for the pool")
    ranks: list[int] = []
    negative = 0
    for s in statistics:
        r, neg = statistic_rank(c, s)
        if neg:
            negative += r
        else:
            ranks.append(r)
    if not ranks:
        raise CheckError("negative Traits only deduct from a positive statistic; name one too (Die Pools)")
    return Pool(
        name=c.name,
        ranks=tuple(ranks),
        negative_ranks=negative,
        penalty_ranks=penalty_ranks,
        die_modifier=die_modifier,
        bonus_ranks=bonus_ranks,
    )


# ------------------------------------------------------------------ creation guidelines
def validate_character(c: Character, hr: BlyssHouseRules | None = None) -> list[Problem]:
    """Every way the sheet breaks the rules (BLYSS 3.5, Building the Character and Traits)."""
    hr = hr or BlyssHouseRules()
    P: list[Problem] = []
    cap = hr.creation_rank_cap
    creating = not c.created
    costs = table("costs")
    for book in ATTRIBUTES:
        r = c.attributes.of(book)
        if r < 1 and not hr.zero_rank_attributes_allowed:
            P.append(
                Problem(
                    f"attributes.{ATTRIBUTES[book]}",
                    f"{book} is rank {r}; every Attribute needs at least 1 rank without SM permission",
                    "Building the Character",
                )
            )
        if creating and r > cap:
            P.append(
                Problem(
                    f"attributes.{ATTRIBUTES[book]}",
                    f"{book} is rank {r}; the creation cap is rank {cap}",
                    "Building the Character: no Attribute or Trait above Very Good",
                )
            )
    for key, cp in c.attribute_progress.items():
        if key not in ATTRIBUTES:
            P.append(
                Problem(f"attribute_progress.{key}", f"{key!r} is not an Attribute (use: {', '.join(ATTRIBUTES)})")
            )
            continue
        nxt = rank_cost("attribute", c.attributes.of(key) + 1)
        if cp < 0 or cp >= nxt:
            P.append(
                Problem(
                    f"attribute_progress.{key}",
                    f"{cp} CP towards the next rank must be 0 to {nxt - 1}; {nxt} CP buy the rank",
                    "Building the Character: partial CP",
                )
            )
    seen: set[str] = set()
    free_count = 0
    for i, t in enumerate(c.traits):
        where = f"traits[{i}] ({t.name})"
        if t.name.lower() in seen:
            P.append(Problem(where, f"the Trait {t.name!r} appears twice"))
        seen.add(t.name.lower())
        if t.name.strip().lower() in _DERIVED_NAMES:
            P.append(
                Problem(
                    where,
                    f"{t.name} is a Derived Attribute and cannot be raised with CP "
                    "(only extra Dodges, Flesh Wounds and Health can be bought)",
                    "Building the Character",
                )
            )
        if creating and t.rank > cap:
            P.append(
                Problem(
                    where,
                    f"rank {t.rank} is above the creation cap of rank {cap}",
                    "Building the Character: no Attribute or Trait above Very Good",
                )
            )
        if t.single_advantage:
            if t.kind != "natural":
                P.append(Problem(where, "only Naturals can be single-advantage Traits", "Natural Traits"))
            if t.rank or t.progress:
                P.append(
                    Problem(where, "a single-advantage Natural has no ranks and cannot be improved", "Natural Traits")
                )
        elif not t.negative and t.rank == 0 and not t.progress:
            P.append(Problem(where, "a Trait needs at least rank 1 (or CP towards it)", "Traits"))
        if not t.single_advantage:
            nxt = rank_cost(t.kind, t.rank + 1)
            if t.progress >= nxt:
                P.append(
                    Problem(
                        where,
                        f"{t.progress} CP towards the next rank; {nxt} CP buy it, so raise the rank",
                        "Building the Character: partial CP",
                    )
                )
        if t.free:
            common = {n.lower() for n in hr.free_common_traits}
            if t.name.lower() in common:
                pass
            elif not hr.native_tongue_free:
                P.append(Problem(where, "free Traits are off in this game", "Table 1-05 note"))
            else:
                free_count += 1
                if t.kind != "skill":
                    P.append(Problem(where, "the free native tongue is a Skill", "Table 1-05 note: native tongue"))
            if t.negative:
                P.append(Problem(where, "a negative Trait cannot be free"))
        if hr.required_specialisation and not t.specialisations:
            for need in hr.required_specialisation:
                if t.name.lower().startswith(need.lower()):
                    P.append(Problem(where, f"{t.name} must be specialised in this game", "Specialisation"))
        if t.negative and t.specialisations:
            P.append(Problem(where, "negative Traits are not specialised"))
    if free_count > 1:
        P.append(
            Problem(
                "traits",
                f"{free_count} Traits are marked free; only the native tongue is free "
                "(list others in the house rule free_common_traits)",
                "Table 1-05 note",
            )
        )
    if creating:
        for label, value, key in (
            ("Dodges", c.extra_dodges, "dodges"),
            ("Flesh Wounds", c.extra_flesh_wounds, "flesh_wounds"),
            ("Health", c.extra_health, "health"),
        ):
            mx = costs["extras"][key]["max"]
            if value > mx:
                P.append(
                    Problem(
                        f"extra_{key}",
                        f"{value} extra {label}; at most {mx} can be bought at creation",
                        "Derived Attributes",
                    )
                )
    left = cp_left(c, hr)
    if left < 0:
        P.append(
            Problem(
                "cp",
                f"{cp_spent(c, hr)} CP spent of {cp_budget(c, hr)}: {-left} CP over budget",
                "Building the Character: 400 CP",
            )
        )
    return P


# ------------------------------------------------------------------ templates
def templates() -> dict[str, dict]:
    return dict(table("templates"))


def template_character(key: str, name: str = "") -> Character:
    """A starting character from one of the four Archetypal Templates (Template Characters): priority
    Attributes raised, suggested Traits bought; the rest of the 400 CP is the player's."""
    tpl = templates().get(key.lower())
    if tpl is None:
        from ...errors import InputFileError

        raise InputFileError(f"no template called {key!r}", hint=f"choose one of: {', '.join(templates())}")
    attrs = {
        f: (tpl["priority_rank"] if book in tpl["priority_attributes"] else tpl["other_rank"])
        for book, f in ATTRIBUTES.items()
    }
    traits = tuple(Trait(name=t["name"], kind=t["kind"], rank=tpl["trait_rank"]) for t in tpl["suggested_traits"])
    return Character(
        name=name or tpl["title"],
        concept=tpl["role"],
        template=key.lower(),
        attributes=Attributes(**attrs),
        traits=traits,
    )
