"""Characters: required and special Abilities, Disabilities, karma (Luck and Unluck), validation.

Derived values (karma total, Luck, Unluck, dice for a task) are functions of
the frozen :class:`FuzzyCharacter`, never stored in it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ...errors import Problem
from ...rules import Model
from .options import FuzzyHouseRules
from .tables import discworld_body

__all__ = [
    "REQUIRED",
    "Ability",
    "CombatProfile",
    "Disability",
    "Experience",
    "FuzzyCharacter",
    "GmAdjustments",
    "Karma",
    "RequiredAbilities",
    "ability_karma_cost",
    "body_guide",
    "dice_for",
    "disability_karma_cost",
    "find_ability",
    "is_disability",
    "karma",
    "karma_total",
    "sheet",
    "validate",
]

#: the five "Abilities Everybody Has", in the book's order
REQUIRED = ("cleverness", "body", "knowledge", "perception", "tenacity")
#: the largest rating a file may hold (the book mentions 20 for a Jehovah or Galactus)
MAX_RATING = 100

Rating = Field(ge=0, le=MAX_RATING)


class RequiredAbilities(Model):
    """'Abilities Everybody Has': rated 1 to 5, higher allowed (with karma)."""

    cleverness: int = Field(2, ge=0, le=MAX_RATING, description="Puzzles, chess, ENIGMAS.")
    body: int = Field(2, ge=0, le=MAX_RATING, description="Athletic, strong, dexterous, tough; HIT SOMEONE.")
    knowledge: int = Field(2, ge=0, le=MAX_RATING, description="Obscure but useful trivia; USEFUL BACKGROUND INFO.")
    perception: int = Field(2, ge=0, le=MAX_RATING, description="Alertness; noticing a CLUE.")
    tenacity: int = Field(2, ge=0, le=MAX_RATING, description="Willpower; RESIST COERCION, IN GREAT PAIN.")


class Ability(Model):
    """A special Ability ('Abilities Special to Your Character'): a word or phrase and a rating."""

    name: str = Field(min_length=1, max_length=80)
    rating: int = Field(ge=0, le=MAX_RATING)
    description: str = ""
    big_magic: bool = Field(
        False, description="A 'truly huge-ass magic power' (Wizard, God): one named power per die ('Some Spot Rules')."
    )
    powers: tuple[str, ...] = Field((), description="The big things a big magic power can do, one per die.")


class Disability(Model):
    """A Disability ('Disabilities'): rolled by the GM; a success means you feel its bad effects."""

    name: str = Field(min_length=1, max_length=80)
    rating: int = Field(ge=0, le=MAX_RATING)
    description: str = ""
    hinders: str | None = Field(
        None,
        description="The Ability this Disability counts against, like Clumsy against Body for tasks needing "
        "dexterity: its dice come off that Ability's dice ('Fixing Required Abilities').",
    )
    from_misfortune: bool = Field(
        False, description="Gained through the misfortunes of play (worth no experience points)."
    )


class GmAdjustments(Model):
    """'The Veto': the GM may add or subtract Luck and Unluck dice, or veto the character."""

    luck: int = Field(0, ge=-100, le=100)
    unluck: int = Field(0, ge=-100, le=100)
    veto: str | None = Field(None, description="Why the GM vetoed this character (a vetoed character is not legal).")


class Experience(Model):
    """Experience points ('Experience') and what experience changed since the character was made."""

    unspent: int = Field(0, ge=0)
    awarded: int = Field(0, ge=0, description="All points ever gained: awards, and Disabilities or Unluck taken on.")
    karma_dice_changed: int = Field(
        0,
        ge=-10_000,
        le=10_000,
        description="Net change in karma dice (abilities minus disabilities) made after creation, by experience "
        "or misfortune; left out of the baseline comparison.",
    )
    luck_bought: int = Field(0, ge=-100, le=100, description="Luck dice bought (+) or reduced (-) with experience.")
    unluck_changed: int = Field(0, ge=-100, le=100, description="Unluck dice taken on (+) or bought off (-).")


Lethality = Literal[
    "harmless", "terribly ineffective", "not-so-lethal", "normal", "especially damaging", "really deadly"
]


class CombatProfile(Model):
    """How the character fights ('Combat Rules for Those Who Really Need 'Em')."""

    ability: str = Field("body", description="The Ability rolled in fights (Body unless one is more appropriate).")
    defence_ability: str | None = Field(
        None, description="The 'most relevant Ability' for the Defence Total; the fighting Ability when not given."
    )
    weapon: str = "bare hands"
    weapon_lethality: Lethality = Field("not-so-lethal", description="Most people's fists are not-so-lethal.")
    armour: Literal["none", "armour", "super-duper"] = "none"
    encumbrance: Literal["none", "heavy", "really heavy"] = "none"
    hindered: bool = Field(
        False,
        description="Fighting calls on what a hindering Disability spoils (Clumsy when fighting with Body): "
        "its dice come off the fighting dice ('Fixing Required Abilities').",
    )


class FuzzyCharacter(Model):
    """A Loose and Fuzzy character sheet."""

    system: Literal["fuzzy"] = "fuzzy"
    name: str = Field(min_length=1, max_length=120)
    player: str = ""
    concept: str = ""
    species: str | None = Field(None, description="For the Discworld Body guide (human, dwarf, troll, ...).")
    required: RequiredAbilities = RequiredAbilities()
    abilities: tuple[Ability, ...] = ()
    disabilities: tuple[Disability, ...] = ()
    gm: GmAdjustments = GmAdjustments()
    experience: Experience = Experience()
    combat: CombatProfile = CombatProfile()
    notes: str = ""


# -- karma ----------------------------------------------------------------------


def ability_karma_cost(rating: int) -> int:
    """Karma dice a good Ability costs: each die above 5 counts double.

    "Karma Will Bite You in the Ass!": "So an Ability of 7 would 'cost' 9 points."
    """
    return rating + max(0, rating - 5)


def disability_karma_cost(rating: int, house: FuzzyHouseRules) -> int:
    """Karma dice a Disability takes off the total (its plain rating, by ruling; see house rules)."""
    return ability_karma_cost(rating) if house.disabilities_count_double_above_5 else rating


def karma_total(character: FuzzyCharacter, house: FuzzyHouseRules | None = None) -> int:
    """Dice spent on good Abilities (required included) minus Disabilities; Luck and Unluck left out."""
    house = house or FuzzyHouseRules()
    good = sum(ability_karma_cost(getattr(character.required, n)) for n in REQUIRED)
    good += sum(ability_karma_cost(a.rating) for a in character.abilities)
    bad = sum(disability_karma_cost(d.rating, house) for d in character.disabilities)
    return good - bad


class Karma(Model):
    """How Luck and Unluck came about, step by step, for the sheet."""

    total: int
    compared: int
    baseline: int
    below: int
    above: int
    luck_from_baseline: int
    luck_discarded: int
    unluck_from_baseline: int
    luck: int
    unluck: int


def karma(character: FuzzyCharacter, house: FuzzyHouseRules | None = None) -> Karma:
    """Luck and Unluck dice ("Karma Will Bite You in the Ass!", "The Veto", "Experience").

    2 Luck and 1 Unluck to start; 1 Luck per point below the baseline, 1 Unluck
    per point above; never more than 5 Luck (extra discarded); no Unluck cap.
    Then the GM's adjustments and what experience bought (Luck 1..5, Unluck at least 1).
    """
    house = house or FuzzyHouseRules()
    total = karma_total(character, house)
    compared = total if house.recompute_karma_after_experience else total - character.experience.karma_dice_changed
    below = max(0, house.baseline - compared)
    above = max(0, compared - house.baseline)
    raw_luck = house.starting_luck + below
    luck_base = min(house.luck_cap, raw_luck)
    unluck_base = house.starting_unluck + above
    luck = luck_base + character.gm.luck + character.experience.luck_bought
    luck = max(min(luck, house.luck_cap), 0)
    unluck = max(unluck_base + character.gm.unluck + character.experience.unluck_changed, 0)
    return Karma(
        total=total,
        compared=compared,
        baseline=house.baseline,
        below=below,
        above=above,
        luck_from_baseline=luck_base,
        luck_discarded=raw_luck - luck_base,
        unluck_from_baseline=unluck_base,
        luck=luck,
        unluck=unluck,
    )


# -- abilities by name ----------------------------------------------------------------


def _norm(name: str) -> str:
    return " ".join(name.lower().split())


def is_disability(character: FuzzyCharacter, name: str) -> bool:
    """Whether ``name`` is one of the character's Disabilities."""
    return any(_norm(d.name) == _norm(name) for d in character.disabilities)


def find_ability(character: FuzzyCharacter, name: str, house: FuzzyHouseRules | None = None) -> tuple[str, int]:
    """The (display name, rating) of a required or special Ability, Luck/Unluck, or a Disability by name."""
    from ...errors import CheckError

    key = _norm(name)
    for n in REQUIRED:
        if key == n:
            return n.capitalize(), getattr(character.required, n)
    for a in character.abilities:
        if _norm(a.name) == key:
            return a.name, a.rating
    for d in character.disabilities:
        if _norm(d.name) == key:
            return d.name, d.rating
    if key in ("luck", "unluck"):
        k = karma(character, house)
        return key.capitalize(), k.luck if key == "luck" else k.unluck
    known = (
        [n.capitalize() for n in REQUIRED]
        + [a.name for a in character.abilities]
        + [d.name for d in character.disabilities]
    )
    raise CheckError(
        f"{character.name} has no ability called {name!r}", hint=f"known: {', '.join(known)}, Luck, Unluck"
    )


def dice_for(
    character: FuzzyCharacter,
    name: str,
    *,
    hindered: bool = False,
    house: FuzzyHouseRules | None = None,
) -> tuple[int, int]:
    """(dice, penalty dice) for rolling an Ability.

    ``hindered``: the task is one its hindering Disabilities count against.

    "Fixing Required Abilities": subtract your Clumsy dice from your Body dice
    before rolling, to a minimum of 1 (the minimum is applied by the roll).
    """
    shown, rating = find_ability(character, name, house)
    penalty = 0
    if hindered:
        penalty = sum(d.rating for d in character.disabilities if d.hinders and _norm(d.hinders) == _norm(shown))
    return rating, penalty


def body_guide(level: int) -> dict[str, object] | None:
    """The Discworld Body guide's row for a Body level (levels above 6 use the top row)."""
    guide = discworld_body()
    if level < 1:
        return None
    return guide[min(level, max(guide))]


def _guide_range(species: str) -> tuple[int, int] | None:
    key = _norm(species)
    levels = [lvl for lvl, row in discworld_body().items() for kind, _ in row["kinds"] if _norm(kind) == key]
    return (min(levels), max(levels)) if levels else None


# -- validation --------------------------------------------------------------------------


def validate(character: FuzzyCharacter, house: FuzzyHouseRules | None = None) -> list[Problem]:
    """Every way the character breaks the rules (an empty list when legal)."""
    house = house or FuzzyHouseRules()
    problems: list[Problem] = []
    for n in REQUIRED:
        if getattr(character.required, n) < 1:
            problems.append(
                Problem(
                    f"required.{n}",
                    "every character rates the five required Abilities 1 or more",
                    "Abilities Everybody Has",
                )
            )
    names: dict[str, str] = {n: f"required.{n}" for n in REQUIRED}
    names["luck"] = names["unluck"] = "Luck/Unluck"
    for i, a in enumerate(character.abilities):
        where = f"abilities[{i}]"
        key = _norm(a.name)
        if key in names:
            problems.append(
                Problem(where, f"{a.name!r} has the same name as {names[key]}", "Abilities Special to Your Character")
            )
        names.setdefault(key, where)
        if a.rating < 1:
            problems.append(
                Problem(f"{where}.rating", f"{a.name} is rated {a.rating}; an Ability is rated 1 or more", "The Basics")
            )
        if a.big_magic:
            allowed = a.rating + house.big_magic_extra_powers
            if len(a.powers) > allowed:
                problems.append(
                    Problem(
                        f"{where}.powers",
                        f"{a.name} {a.rating} names {len(a.powers)} powers; it buys {allowed}, one per die",
                        "Some Spot Rules",
                    )
                )
            elif len(a.powers) < a.rating:
                problems.append(
                    Problem(
                        f"{where}.powers",
                        f"{a.name} {a.rating} names {len(a.powers)} powers; pick one big thing per die ({a.rating})",
                        "Some Spot Rules",
                    )
                )
            if len({_norm(p) for p in a.powers}) != len(a.powers):
                problems.append(Problem(f"{where}.powers", f"{a.name} names the same power twice", "Some Spot Rules"))
        elif a.powers:
            problems.append(
                Problem(f"{where}.powers", f"{a.name} lists powers but is not marked big_magic", "Some Spot Rules")
            )
    ability_names = set(REQUIRED) | {_norm(a.name) for a in character.abilities}
    for i, d in enumerate(character.disabilities):
        where = f"disabilities[{i}]"
        key = _norm(d.name)
        if key in names:
            problems.append(Problem(where, f"{d.name!r} has the same name as {names[key]}", "Disabilities"))
        names.setdefault(key, where)
        if d.rating < 1:
            problems.append(
                Problem(
                    f"{where}.rating", f"{d.name} is rated {d.rating}; a Disability is rated 1 or more", "Disabilities"
                )
            )
        if d.hinders is not None and _norm(d.hinders) not in ability_names:
            problems.append(
                Problem(
                    f"{where}.hinders",
                    f"{d.name} hinders {d.hinders!r}, which the character does not have",
                    "Fixing Required Abilities",
                )
            )
    cp = character.combat
    for field, value in (("combat.ability", cp.ability), ("combat.defence_ability", cp.defence_ability)):
        if value is not None and _norm(value) not in ability_names:
            problems.append(Problem(field, f"{value!r} is not one of the character's Abilities", "Combat Rules"))
    k = karma(character, house)
    raw_luck = k.luck_from_baseline + character.gm.luck + character.experience.luck_bought
    if raw_luck < 0:
        problems.append(
            Problem(
                "gm.luck",
                f"the GM's adjustment leaves {raw_luck} Luck dice; a character cannot have fewer than 0",
                "The Veto",
            )
        )
    if character.experience.luck_bought and not 1 <= raw_luck <= house.luck_cap:
        problems.append(
            Problem(
                "experience.luck_bought",
                f"experience may only take Luck between 1 and {house.luck_cap} (it gives {raw_luck})",
                "Experience",
            )
        )
    if character.experience.unluck_changed < 0 and k.unluck < 1:
        problems.append(Problem("experience.unluck_changed", "Unluck may be bought off only down to 1", "Experience"))
    if character.gm.veto:
        problems.append(Problem("gm.veto", f"the GM vetoed this character: {character.gm.veto}", "The Veto"))
    if character.experience.unspent > character.experience.awarded:
        problems.append(Problem("experience.unspent", "more unspent experience than was ever awarded", "Experience"))
    return problems


def advice(character: FuzzyCharacter, house: FuzzyHouseRules | None = None) -> list[str]:
    """Things the book suggests but does not require: notes for the sheet, not errors."""
    house = house or FuzzyHouseRules()
    notes = []
    n = len(character.abilities)
    if n < house.minimum_special_abilities:
        notes.append(
            f"only {n} special Abilities; the book suggests picking two or three ('Abilities Special to Your "
            "Character')"
        )
    elif n > 3:
        notes.append(f"{n} special Abilities; more than three may make the character lose focus")
    high = [f"{a.name} {a.rating}" for a in character.abilities if a.rating > 5]
    high += [
        f"{n.capitalize()} {getattr(character.required, n)}" for n in REQUIRED if getattr(character.required, n) > 5
    ]
    if high:
        notes.append(f"ratings above 5 cost double karma for each die above 5: {', '.join(high)}")
    if house.discworld_body_guide and character.species:
        rng = _guide_range(character.species)
        body = character.required.body
        if rng is None:
            notes.append(f"the Discworld Body guide does not list {character.species!r}")
        elif not rng[0] <= body <= rng[1]:
            notes.append(f"Body {body} is outside the Discworld guide for {character.species} ({rng[0]}-{rng[1]})")
    return notes


def sheet(character: FuzzyCharacter, house: FuzzyHouseRules | None = None) -> dict[str, object]:
    """Everything a sheet shows, derived values included, as plain data."""
    house = house or FuzzyHouseRules()
    k = karma(character, house)
    out: dict[str, object] = {
        "name": character.name,
        "player": character.player,
        "concept": character.concept,
        "species": character.species,
        "required": {n.capitalize(): getattr(character.required, n) for n in REQUIRED},
        "abilities": [
            {
                "name": a.name,
                "rating": a.rating,
                "karma": ability_karma_cost(a.rating),
                "powers": list(a.powers),
                "description": a.description,
            }
            for a in character.abilities
        ],
        "disabilities": [
            {
                "name": d.name,
                "rating": d.rating,
                "karma": -disability_karma_cost(d.rating, house),
                "hinders": d.hinders,
                "description": d.description,
            }
            for d in character.disabilities
        ],
        "karma": k.model_dump(),
        "luck": k.luck,
        "unluck": k.unluck,
        "experience": character.experience.model_dump(),
        "combat": character.combat.model_dump(),
        "problems": [{"where": p.where, "message": p.message, "rule": p.rule} for p in validate(character, house)],
        "advice": advice(character, house),
    }
    if house.discworld_body_guide:
        out["discworld_body_guide"] = body_guide(character.required.body)
    return out
