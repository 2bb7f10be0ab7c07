"""BLYSS on the shared protocol: the check catalogue, what a character can roll, and the sheet."""

from __future__ import annotations

from ...rules.catalogue import CheckEntry, CheckKind, entry_key
from ...rules.sheet import SheetSection, section, value
from .character import (
    ATTRIBUTES,
    Armour,
    Character,
    cp_breakdown,
    cp_budget,
    cp_left,
    cp_spent,
    current_armour_rating,
    derived_values,
)
from .checks import (
    BlyssContest,
    BlyssTest,
    CombinedContest,
    CombinedTest,
    combined_contest_odds,
    combined_odds,
    contest_odds,
    resolve_combined,
    resolve_combined_contest,
    resolve_contest,
    resolve_test,
    test_odds,
)
from .costs import rank_cost
from .options import BlyssHouseRules
from .scale import ability_name, pool_for_rank, pool_text

__all__ = ["CHECK_KINDS", "character_checks", "sheet_sections"]

_OPPONENT = {"name": "opponent", "ranks": [3]}

CHECK_KINDS: tuple[CheckKind, ...] = (
    CheckKind(
        "test",
        BlyssTest,
        resolve_test,
        test_odds,
        title="Test",
        summary="A Die Pool against a Target Difficulty (Tests)",
        difficulty="td",
        example={"td": 3},
        group="test",
    ),
    CheckKind(
        "contest",
        BlyssContest,
        resolve_contest,
        contest_odds,
        title="Contest",
        summary="Two Die Pools against each other's rank (Contests)",
        opponent="b",
        example={"b": _OPPONENT},
        group="contest",
    ),
    CheckKind(
        "combined",
        CombinedTest,
        resolve_combined,
        combined_odds,
        title="Combined Test",
        summary="Helpers' successes add ranks to one character's Test (Combined Tests)",
        difficulty="td",
        example={"td": 3, "helpers": [{"name": "helper", "ranks": [3]}]},
        group="test",
    ),
    CheckKind(
        "combined-contest",
        CombinedContest,
        resolve_combined_contest,
        combined_contest_odds,
        title="Combined Contest",
        summary="Two teams make Combined Tests, then their assisted characters hold a Contest",
        opponent="b",
        example={"b": _OPPONENT, "a_helpers": [{"name": "helper", "ranks": [3]}]},
        group="contest",
    ),
)
_KIND = {k.name: k for k in CHECK_KINDS}

#: the Derived Attributes a Test or Contest can roll (the rest are counts, not pools)
_ROLLED_DERIVED = ("Melee Attack", "Ranged Attack", "Defence", "Initiative")


def _subjects(c: Character) -> list[tuple[str, str, int]]:
    """(about, name, rank) of every statistic that makes a Die Pool on its own."""
    out = [("attribute", book, c.attributes.of(book)) for book in ATTRIBUTES]
    dv = derived_values(c)
    out += [("derived", name, dv[name]) for name in _ROLLED_DERIVED]
    for t in c.traits:
        if t.negative or t.single_advantage:
            continue  # a negative Trait only deducts; a single advantage has no pool (Traits)
        out.append(("skill" if t.kind == "skill" else t.kind, t.name, t.rank))
    return [x for x in out if x[2] > 0]  # rank 0: no Die Pool of its own (Die Pools)


def character_checks(c: Character, hr: BlyssHouseRules) -> list[CheckEntry]:
    """Every statistic with a Die Pool, as a Test, a Contest, a Combined Test and a Combined Contest.

    The pool is the statistic alone; a GM who combines an Attribute with a Trait gives both
    ranks (``ranks: [4, 3]``) as a parameter.
    """
    entries: list[CheckEntry] = []
    seen: set[str] = set()
    for about, name, rank in _subjects(c):
        pool = {"name": f"{c.name}: {name}" if c.name else name, "ranks": [rank]}
        # a Trait may share a name with an Attribute or Derived Attribute ("Defence"): key it by its kind too
        slug = name if entry_key("test", name) not in seen else f"{about} {name}"
        seen.add(entry_key("test", slug))
        for kind, params, label in (
            ("test", pool, f"{name} test"),
            ("contest", {"a": pool}, f"{name} contest"),
            ("combined", {"assisted": pool}, f"{name} combined test"),
            ("combined-contest", {"a": pool}, f"{name} combined contest"),
        ):
            k = _KIND[kind]
            entries.append(k.entry(name, about, params, label=label, key=entry_key(kind, slug)))
    return entries


def _pool(rank: int) -> str:
    return pool_text(pool_for_rank(rank)) if rank > 0 else "none"


def _rating_text(a: Armour) -> int | str:
    """The rating armour soaks with now; for damaged armour with its rating new beside it."""
    now = current_armour_rating(a)
    return a.armour_rating if now == a.armour_rating else f"{now} (damaged; {a.armour_rating} new)"


def sheet_sections(c: Character, hr: BlyssHouseRules) -> list[SheetSection]:
    """Attributes with their Die Pools, Derived Attributes, CP, Traits, weapons and armour."""
    summary = [value("Concept", c.concept, key="concept")] if c.concept else []
    if c.template:
        summary.append(value("Template", c.template, key="template"))
    attributes = section(
        "attributes",
        "Attributes",
        "stats",
        columns=("Attribute", "Rank", "Ability", "Die Pool", "CP to next rank"),
        rows=[
            (
                book,
                c.attributes.of(book),
                ability_name(c.attributes.of(book)),
                _pool(c.attributes.of(book)),
                rank_cost("attribute", c.attributes.of(book) + 1) - c.attribute_progress.get(book, 0),
            )
            for book in ATTRIBUTES
        ],
    )
    dv = derived_values(c)
    derived = section(
        "derived",
        "Derived Attributes",
        "derived",
        [
            value(name, v, note=_pool(v) if name in _ROLLED_DERIVED else "")
            for name, v in dv.items()
            if name not in ("Dodges", "Flesh Wounds", "Health")
        ],
    )
    budget = cp_budget(c, hr)
    resources = section(
        "resources",
        "Resources",
        "resources",
        [
            value("CP left", cp_left(c, hr), key="cp", maximum=budget, note=f"{cp_spent(c, hr)} spent"),
            value("Dodges", dv["Dodges"], key="dodges", maximum=dv["Dodges"]),
            value("Flesh Wounds", dv["Flesh Wounds"], key="flesh_wounds", maximum=dv["Flesh Wounds"]),
            value("Health", dv["Health"], key="health", maximum=dv["Health"]),
        ],
    )
    traits = section(
        "traits",
        "Traits",
        "list",
        columns=("Trait", "Kind", "Rank", "Die Pool", "Specialisations", "CP to next rank"),
        rows=[
            (
                t.name,
                t.kind + (" (negative)" if t.negative else ""),
                t.rank,
                "" if t.single_advantage else ("-" if t.negative else "") + _pool(t.rank),
                "; ".join(t.specialisations),
                None if t.single_advantage or t.negative else rank_cost(t.kind, t.rank + 1) - t.progress,
            )
            for t in c.traits
        ],
    )
    weapons = section(
        "weapons",
        "Weapons",
        "list",
        columns=("Weapon", "Attack modifier", "Damage", "Ranged", "Skill"),
        rows=[(w.name, w.attack_modifier, w.damage, w.ranged, w.skill or "") for w in c.weapons],
    )
    armour = section(
        "armour",
        "Armour",
        "list",
        columns=("Armour", "Armour rating", "Action modifier", "Cover", "Lives"),
        # damaged armour soaks with its rating now: "3 (damaged; 5 new)"
        rows=[(a.name, _rating_text(a), a.action_modifier, "".join(a.cover), a.lives) for a in c.armour],
    )
    costs = section(
        "cp",
        "Character points spent",
        "list",
        [value(k, v, key=f"cp_{i}") for i, (k, v) in enumerate(cp_breakdown(c, hr).items())],
    )
    out: list[SheetSection] = []
    if summary:
        out.append(section("summary", "Summary", "summary", summary))
    out += [attributes, derived, resources, traits, weapons, armour, costs]
    if c.notes:
        out.append(section("notes", "Notes", "summary", [value("Notes", c.notes, key="notes")]))
    return out
