"""A Loose and Fuzzy Game System on the shared protocol: the check catalogue, what a character
can roll, and the sheet."""

from __future__ import annotations

from ...rules.catalogue import CheckEntry, CheckKind
from ...rules.sheet import SheetSection, section, value
from .character import (
    REQUIRED,
    FuzzyCharacter,
    ability_karma_cost,
    advice,
    body_guide,
    disability_karma_cost,
    karma,
)
from .checks import (
    AbilityCheck,
    ContestCheck,
    KarmaRoll,
    Lottery,
    ability_odds,
    contest_odds,
    karma_odds,
    lottery_odds,
    resolve_ability,
    resolve_contest,
    resolve_karma,
    resolve_lottery,
)
from .options import FuzzyHouseRules

__all__ = ["CHECK_KINDS", "character_checks", "sheet_sections"]

CHECK_KINDS: tuple[CheckKind, ...] = (
    CheckKind(
        "ability",
        AbilityCheck,
        resolve_ability,
        ability_odds,
        title="Ability roll",
        summary="An Ability's dice against a target the GM sets (Dice-Rolling)",
        difficulty="target",
        example={"target": "average"},
        group="test",
    ),
    CheckKind(
        "contest",
        ContestCheck,
        resolve_contest,
        contest_odds,
        title="Contest",
        summary="Two Abilities pitted against each other: the higher score wins (Dice-Rolling)",
        opponent="second",
        example={"second": {"name": "opponent", "dice": 3}},
        group="contest",
    ),
    CheckKind(
        "karma",
        KarmaRoll,
        resolve_karma,
        karma_odds,
        title="Luck or Unluck roll",
        summary="Luck or Unluck dice against a target (does it happen?) or open (how good or bad?)",
        difficulty="target",
        example={"target": 10},
        group="luck",
    ),
    CheckKind(
        "lottery",
        Lottery,
        resolve_lottery,
        lottery_odds,
        title="The lottery",
        summary="Everybody rolls Luck (or Unluck); it happens to whoever rolls highest",
        opponent="entrants",
        example={"entrants": {"somebody else": 2}},
        group="luck",
    ),
)
_KIND = {k.name: k for k in CHECK_KINDS}


def character_checks(c: FuzzyCharacter, house: FuzzyHouseRules) -> list[CheckEntry]:
    """Each Ability (required and special) and Disability with dice as an Ability roll and a contest;
    Luck and Unluck as karma rolls and lotteries."""
    who = c.name or "character"
    rolls: list[tuple[str, str, int, bool]] = [
        ("ability", n.capitalize(), getattr(c.required, n), False) for n in REQUIRED
    ]
    rolls += [("ability", a.name, a.rating, False) for a in c.abilities]
    rolls += [("disability", d.name, d.rating, True) for d in c.disabilities]
    entries: list[CheckEntry] = []
    for about, name, rating, disability in rolls:
        if rating < 1:
            continue  # no dice to roll
        base = {"ability": name, "dice": rating}
        if disability:
            base["disability"] = True
        entries.append(_KIND["ability"].entry(name, about, base, label=f"{name} roll"))
        side = {"name": f"{who}: {name}" if who != "opponent" else name, "dice": rating}
        entries.append(_KIND["contest"].entry(name, about, {"first": side}, label=f"{name} contest"))
    k = karma(c, house)
    for kind, dice in (("luck", k.luck), ("unluck", k.unluck)):
        if dice < 1:
            continue
        title = kind.capitalize()
        entries.append(_KIND["karma"].entry(title, "karma", {"kind": kind, "dice": dice}, label=f"{title} roll"))
        entries.append(
            _KIND["lottery"].entry(title, "karma", {"kind": kind, "entrants": {who: dice}}, label=f"{title} lottery")
        )
    return entries


def sheet_sections(c: FuzzyCharacter, house: FuzzyHouseRules) -> list[SheetSection]:
    """Who the character is, the five required Abilities, special Abilities and Disabilities with their
    karma, Luck and Unluck, experience, the fighting profile and the GM's advice."""
    summary = [
        value(label, v, key=key)
        for label, key, v in (
            ("Player", "player", c.player),
            ("Concept", "concept", c.concept),
            ("Species", "species", c.species),
        )
        if v
    ]
    required = section(
        "required",
        "Required Abilities",
        "stats",
        [value(n.capitalize(), getattr(c.required, n), key=n, note=f"{getattr(c.required, n)}d6") for n in REQUIRED],
    )
    abilities = section(
        "abilities",
        "Abilities",
        "stats",
        columns=("Ability", "Rating", "Karma", "Powers", "Description"),
        rows=[
            (a.name, a.rating, ability_karma_cost(a.rating), "; ".join(a.powers), a.description) for a in c.abilities
        ],
    )
    disabilities = section(
        "disabilities",
        "Disabilities",
        "stats",
        columns=("Disability", "Rating", "Karma", "Hinders", "Description"),
        rows=[
            (d.name, d.rating, -disability_karma_cost(d.rating, house), d.hinders or "", d.description)
            for d in c.disabilities
        ],
    )
    k = karma(c, house)
    derived_values = [
        value("Karma total", k.total, key="karma_total"),
        value("Campaign baseline", k.baseline, key="baseline"),
    ]
    if k.luck_discarded:
        derived_values.append(value("Luck discarded over the cap", k.luck_discarded, key="luck_discarded"))
    if house.discworld_body_guide:
        guide = body_guide(c.required.body)
        if guide:
            pairs = guide.get("kinds", [])
            kinds = ", ".join(f"{p[1]} {p[0]}" for p in pairs) if isinstance(pairs, list) else ""
            derived_values.append(value("Discworld Body guide", kinds, key="body_guide"))
    derived = section("karma", "Karma", "derived", derived_values)
    resources = section(
        "resources",
        "Luck, Unluck and experience",
        "resources",
        [
            value("Luck", k.luck, key="luck", note=f"{k.luck}d6"),
            value("Unluck", k.unluck, key="unluck", note=f"{k.unluck}d6"),
            value("Experience to spend", c.experience.unspent, key="experience", note=f"{c.experience.awarded} gained"),
        ],
    )
    cp = c.combat
    combat = section(
        "combat",
        "Fighting",
        "derived",
        [
            value("Fights with", cp.ability.capitalize(), key="ability"),
            value("Defends with", (cp.defence_ability or cp.ability).capitalize(), key="defence_ability"),
            value("Weapon", cp.weapon, key="weapon", note=cp.weapon_lethality),
            value("Armour", cp.armour, key="armour"),
            value("Encumbrance", cp.encumbrance, key="encumbrance"),
        ],
    )
    out = [section("summary", "Summary", "summary", summary)] if summary else []
    out += [required, abilities, disabilities, derived, resources, combat]
    tips = advice(c, house)
    if tips:
        out.append(section("advice", "Advice", "list", columns=("Advice",), rows=[(t,) for t in tips]))
    if c.notes:
        out.append(section("notes", "Notes", "summary", [value("Notes", c.notes, key="notes")]))
    return out
