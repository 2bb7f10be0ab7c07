"""B.U.M. on the shared protocol: the check catalogue, what a card can roll, and the card as a sheet.

The sheet's sections are the boxes of the Appendix B card (stats, skills, weapons, armour
and shield, attack and defence totals, wounds, items); a front end lays them out as the
book's card or as a page.
"""

from __future__ import annotations

from ...rules.catalogue import CheckEntry, CheckKind
from ...rules.sheet import SheetSection, section, value
from .character import (
    SLOTS,
    STATS,
    BumCharacter,
    armour_bonus,
    attack_total,
    current_hp,
    hit_points,
    melee_defence,
    profile,
    ranged_defence,
    shield_bonus,
    skill_point_budget,
    skill_points_spent,
    stat_conflicts,
)
from .checks import (
    FixedCheck,
    OpposedCheck,
    RecheckCheck,
    SneakAttackCheck,
    odds_fixed,
    odds_opposed,
    odds_recheck,
    odds_sneak,
    resolve_fixed,
    resolve_opposed,
    resolve_recheck,
    resolve_sneak,
)
from .levels import skill_label, stat_label
from .options import BumHouseRules

__all__ = ["CHECK_KINDS", "character_checks", "sheet_sections"]


def _fixed(check: FixedCheck, rng, hr):
    return resolve_fixed(check, rng)


def _recheck(check: RecheckCheck, rng, hr):
    return resolve_recheck(check, rng)


CHECK_KINDS: tuple[CheckKind, ...] = (
    CheckKind(
        "fixed",
        FixedCheck,
        _fixed,
        lambda check, hr: odds_fixed(check),
        title="Fixed difficulty roll",
        summary="d6 + bonus must meet or beat the DC (Part Two, Fixed Difficulty Rolls)",
        difficulty="dc",
        example={"dc": 6},
        group="test",
    ),
    CheckKind(
        "opposed",
        OpposedCheck,
        resolve_opposed,
        odds_opposed,
        title="Opposed roll",
        summary="Both roll d6 + bonus; the higher total wins; ties roll again (Part Two, Opposed Rolls)",
        opponent="vs",
        example={"vs": 3},
        group="contest",
    ),
    CheckKind(
        "recheck",
        RecheckCheck,
        _recheck,
        lambda check, hr: odds_recheck(check),
        title="Roll with a re-check",
        summary="A failed roll gets a second, harder roll to recover (Part Two, Failed Rolls and Re-checks)",
        difficulty="dc",
        example={"dc": 6, "recheck_dc": 8},
        group="test",
    ),
    CheckKind(
        "sneak",
        SneakAttackCheck,
        resolve_sneak,
        odds_sneak,
        title="Sneak attack",
        summary="A ranged sneak shot against the GM's DC; a melee one needs no roll (Part Five, Sneak Attacks)",
        difficulty="dc",
        example={"dc": 6},
        group="attack",
    ),
)
_KIND = {k.name: k for k in CHECK_KINDS}


def _text(parts: list[tuple[str, int]]) -> str:
    return " ".join(f"{v:+d} {k}" for k, v in parts)


def character_checks(c: BumCharacter, hr: BumHouseRules) -> list[CheckEntry]:
    """Each stat and each skill (stat + skill points) as a fixed, opposed and re-checked roll; each
    weapon's attack total as an opposed attack (and a sneak shot for a ranged weapon); the melee and
    ranged defence totals as the defender's side of an opposed roll."""
    rolls: list[tuple[str, str, list[tuple[str, int]]]] = [("stat", s, [(s, c.stats.get(s))]) for s in STATS]
    for sk in c.skills:
        rolls.append(("skill", sk.name, [(sk.stat, c.stats.get(sk.stat)), (sk.name, sk.points)]))
    entries: list[CheckEntry] = []
    for about, name, parts in rolls:
        bonus = sum(v for _, v in parts)
        base = {"bonus": bonus, "label": f"{name} ({_text(parts)})"}
        entries.append(_KIND["fixed"].entry(name, about, base, label=f"{name} roll"))
        entries.append(_KIND["opposed"].entry(name, about, base, label=f"{name} against someone"))
        entries.append(_KIND["recheck"].entry(name, about, base, label=f"{name} roll with a re-check"))
    for slot in SLOTS:
        entry = c.weapons.get(slot)
        prof = profile(c, slot)
        if entry is None or prof is None:
            continue
        total = attack_total(c, slot)
        subject = f"{entry.name} ({slot})"
        attack = {"bonus": total, "role": "attacker", "label": f"{entry.name} attack ({total:+d})"}
        entries.append(_KIND["opposed"].entry(subject, "weapon", attack, label=f"{entry.name} attack"))
        if prof.ranged:
            sneak = {"bonus": total, "rifle": prof.rifle, "label": f"{entry.name} sneak shot ({total:+d})"}
            entries.append(_KIND["sneak"].entry(subject, "weapon", sneak, label=f"{entry.name} sneak shot"))
    for what, total in (("Melee defence", melee_defence(c)), ("Ranged defence", ranged_defence(c))):
        d = {"bonus": total, "role": "defender", "label": f"{what} ({total:+d})"}
        entries.append(_KIND["opposed"].entry(what, "defence", d, label=what))
    return entries


def _signed(v: int | None) -> str:
    return "" if v is None else f"{v:+d}"


def sheet_sections(c: BumCharacter, hr: BumHouseRules) -> list[SheetSection]:
    """The card's boxes (Appendix B), with the totals computed (Part Eight step 7)."""
    summary = [
        value(label, v, key=key)
        for label, key, v in (("Player", "player", c.player), ("Campaign", "campaign", c.campaign))
        if v
    ]
    if c.npc:
        summary.append(value("GM character", True, key="npc"))
    stats = section(
        "stats",
        "Stats",
        "stats",
        [value(s, c.stats.get(s), key=s, note=stat_label(s, c.stats.get(s))) for s in STATS],
    )
    skills = section(
        "skills",
        "Skills/Spells",
        "stats",
        columns=("Skill", "Stat", "Bonus", "Level"),
        rows=[(s.name, s.stat, s.points, skill_label(s.points)) for s in c.skills],
    )
    weapon_rows = []
    attack_totals = []
    for slot in SLOTS:
        entry = c.weapons.get(slot)
        p = profile(c, slot)
        weapon_rows.append(
            (
                slot.upper(),
                entry.name if entry else "",
                _signed(p.attack) if p else "",
                _signed(p.defence) if p and p.defence else "",
            )
        )
        attack_totals.append(value(slot.capitalize(), attack_total(c, slot) if entry else None, key=slot))
    a_att, a_def = armour_bonus(c)
    s_att, s_def = shield_bonus(c)
    weapon_rows.append(
        (
            "ARMOR",
            c.armour.name if c.armour else "",
            _signed(a_att) if a_att else "",
            _signed(a_def) if c.armour else "",
        )
    )
    weapon_rows.append(
        (
            "SHIELD",
            c.shield.name if c.shield else "",
            _signed(s_att) if s_att else "",
            _signed(s_def) if c.shield else "",
        )
    )
    weapons = section(
        "weapons",
        "Weapons",
        "list",
        columns=("Slot", "Weapon", "Attack", "Defense"),
        rows=weapon_rows,
        # a weapon rolled with another stat than its skill's: a warning the GM may allow, not a problem
        note="; ".join(f"warning: {w}" for w in stat_conflicts(c)),
    )
    derived = section(
        "attack_totals",
        "Attack totals",
        "derived",
        attack_totals,
    )
    defence = section(
        "defence_totals",
        "Defense totals",
        "derived",
        [value("Melee", melee_defence(c), key="melee"), value("Ranged", ranged_defence(c), key="ranged")],
    )
    budget = skill_point_budget(c, hr)
    resources = section(
        "resources",
        "Resources",
        "resources",
        [
            value(
                "Skill points left",
                budget - skill_points_spent(c),
                key="skill_points",
                maximum=budget,
                note=f"{skill_points_spent(c)} spent",
            ),
            value("Banked skill points", c.banked_skill_points, key="banked_skill_points"),
        ],
    )
    condition = section(
        "wounds",
        "Wounds",
        "condition",
        [
            value("Hit points", current_hp(c), key="hp", maximum=hit_points(c), note="|" * len(c.wounds)),
            value("Wounds taken", len(c.wounds), key="taken"),
            *[value(f"Wound {i + 1}", w.cause or "wound", key=f"wound_{i + 1}") for i, w in enumerate(c.wounds)],
        ],
    )
    items = section(
        "items",
        "Items",
        "list",
        columns=("Item", "Bonus", "Applies to", "Quantity"),
        rows=[(i.name, _signed(i.bonus) if i.bonus else "", i.applies_to, i.quantity) for i in c.items],
    )
    out = [section("summary", "Card", "summary", summary)] if summary else []
    out += [stats, skills, weapons, derived, defence, condition, resources, items]
    if c.background:
        out.append(section("background", "Background", "summary", [value("Background", c.background)]))
    return out
