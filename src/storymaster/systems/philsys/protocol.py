"""Philsys on the shared protocol: the check catalogue, what a character can roll, and the sheet."""

from __future__ import annotations

from ...rules.catalogue import CheckEntry, CheckKind
from ...rules.sheet import SheetSection, section, value
from .character import (
    Character,
    _pts,
    armor_reduction,
    at_pa,
    base_at_pa,
    hp_max,
    initiative_bonus,
    magic_attack,
    magic_tier,
    mblock,
    missile_evasion,
    movement_yards,
    mp_max,
    skill_points,
    skill_points_spent,
    stat_points_allowed,
    strength_penalty,
    tp_max,
)
from .checks import (
    D20Check,
    MagicAttack,
    MeleeAttack,
    MissileAttack,
    OpposedCheck,
    SkillCheck,
    StatCheck,
    check_odds,
    resolve_check,
)
from .damage import missile_attack_modifier, spell_attack_modifier
from .options import PhilsysHouseRules
from .tables import STAT_NAMES

__all__ = ["CHECK_KINDS", "character_checks", "sheet_sections"]


def _kind(name: str, model: type, title: str, summary: str, **kw: object) -> CheckKind:
    return CheckKind(name, model, resolve_check, check_odds, title=title, summary=summary, **kw)  # type: ignore[arg-type]


CHECK_KINDS: tuple[CheckKind, ...] = (
    _kind(
        "check",
        D20Check,
        "d20 check",
        "modifier + d20 against a TD (Basic Tests of Skill)",
        difficulty="td",
        example={"modifier": 5, "td": 15},
    ),
    _kind(
        "stat",
        StatCheck,
        "Stat check",
        "Stat*3 + d20 against a TD (Basic Tests of Skill)",
        difficulty="td",
        example={"td": 15},
    ),
    _kind(
        "skill",
        SkillCheck,
        "Skill check",
        "the three bases + rank + d20 against a TD (Basic Tests of Skill)",
        difficulty="td",
        example={"td": 15},
    ),
    _kind(
        "opposed",
        OpposedCheck,
        "Opposed roll",
        "modifier + d20 against the opponent's; the defender wins ties",
        opponent="vs",
        example={"vs": 5},
        group="contest",
    ),
    _kind(
        "melee",
        MeleeAttack,
        "Melee attack",
        "modified AT + d20 against modified PA + d20 (Resolving Melee Attacks)",
        opponent="pa",
        example={"pa": 8},
        group="attack",
    ),
    _kind(
        "missile",
        MissileAttack,
        "Missile attack",
        "accuracy + skill + location + d20 against AGI + COU + size/range + d20 (Resolving Ranged Attacks)",
        opponent="defence",
        example={"defence": 5},
        group="attack",
    ),
    _kind(
        "magic",
        MagicAttack,
        "Magical attack",
        "INT + WIS + MAG + skill + d20 must exceed 10 + COU*2 + INT + d20 (Resolving Magical Attacks)",
        opponent="resist",
        example={"resist": 14},
        group="spell",
    ),
)
_KIND = {k.name: k for k in CHECK_KINDS}


def character_checks(c: Character, hr: PhilsysHouseRules) -> list[CheckEntry]:
    """Each stat (a stat check); each skill (a skill check and an opposed roll with its total); the melee
    weapon (or bare hands) with the sheet's AT; the missile weapon aimed at the abdomen; each magical
    attack ability (or the bare MAttack for a character who can cast)."""
    entries = [_KIND["stat"].entry(s, "stat", {"stat": c.stats.get(s)}, label=f"{s} check") for s in STAT_NAMES]
    for s in c.skills:
        try:
            bases = [c.stats.get(b) for b in s.effective_bases()]
        except ValueError:
            continue  # bases the sheet cannot name: validate_character reports it
        entries.append(_KIND["skill"].entry(s.name, "skill", {"bases": bases, "rank": s.rank}, label=f"{s.name} check"))
        total = sum(bases) + s.rank
        entries.append(_KIND["opposed"].entry(s.name, "skill", {"modifier": total}, label=f"{s.name} against someone"))
    at, _ = at_pa(c, hr)
    weapon = c.equipment.weapon.name if c.equipment.weapon else "bare hands"
    entries.append(_KIND["melee"].entry(weapon, "weapon", {"at": at}, label=f"{weapon} attack"))
    w = c.equipment.missile
    if w is not None:
        sk = c.skill(w.skill) if w.skill else None
        attack = missile_attack_modifier(w, sk.rank if sk else 0, "abdomen")
        entries.append(_KIND["missile"].entry(w.name, "weapon", {"attack": attack}, label=f"{w.name} shot"))
    spells = [a for a in c.abilities if a.effect is not None and a.effect.magical and a.effect.kind == "attack"]
    if c.stats.MAG > 0:
        for a in spells:
            sk = c.skill(a.skill) if a.skill else None
            atk = spell_attack_modifier(c, sk)
            entries.append(_KIND["magic"].entry(a.name, "spell", {"attack": atk}, label=f"{a.name} (spell)"))
        if not spells:
            atk = spell_attack_modifier(c, None)
            entries.append(_KIND["magic"].entry("MAttack", "spell", {"attack": atk}, label="Magical attack"))
    return entries


def _of(current: int | None, maximum: int) -> int:
    return maximum if current is None else current


def sheet_sections(c: Character, hr: PhilsysHouseRules) -> list[SheetSection]:
    """Stats, derived substats, HP/MP/TP, points, skills with their totals, equipment and abilities."""
    summary = [value("Level", c.level, key="level"), value("XP", c.xp, key="xp"), value("Size", c.size, key="size")]
    if c.concept:
        summary.insert(0, value("Concept", c.concept, key="concept"))
    stats = section("stats", "Stats", "stats", [value(s, c.stats.get(s), key=s) for s in STAT_NAMES])
    at, pa = at_pa(c, hr)
    derived = section(
        "derived",
        "Derived substats",
        "derived",
        [
            value("Initiative", f"{initiative_bonus(c, hr)}+2d6", key="initiative"),
            value("Base AT/PA", base_at_pa(c), key="base_at_pa"),
            value("AT", at, key="AT"),
            value("PA", pa, key="PA"),
            value("MAttack", magic_attack(c), key="MAttack"),
            value("Missile evasion", missile_evasion(c), key="missile_evasion"),
            value("MBlock", mblock(c), key="MBlock"),
            value("Move (yards)", movement_yards(c), key="move_yards"),
            value("Magic", magic_tier(c), key="magic"),
            value("Strength penalty", strength_penalty(c, hr), key="strength_penalty"),
            value(
                "Armour reduction",
                armor_reduction(c.equipment.armor.ac) if c.equipment.armor else 0,
                key="armor_reduction",
            ),
        ],
    )
    resources = section(
        "resources",
        "HP, MP, TP and points",
        "resources",
        [
            value("HP", _of(c.current.hp, hp_max(c)), key="HP", maximum=hp_max(c)),
            value("MP", _of(c.current.mp, mp_max(c)), key="MP", maximum=mp_max(c)),
            value("TP", _of(c.current.tp, tp_max(c)), key="TP", maximum=tp_max(c)),
            value("Stat points", c.stats.total(), key="stat_points", maximum=stat_points_allowed(c), note="spent"),
            value(
                "Skill points", _pts(skill_points_spent(c)), key="skill_points", maximum=skill_points(c), note="spent"
            ),
        ],
    )
    skills = []
    for s in c.skills:
        try:
            bases = s.effective_bases()
            total: int | None = sum(c.stats.get(b) for b in bases) + s.rank
        except ValueError:
            bases, total = ("?", "?", "?"), None
        skills.append((s.label, s.rank, "/".join(bases), total))
    skill_table = section("skills", "Skills", "stats", columns=("Skill", "Rank", "Bases", "Total"), rows=skills)
    e = c.equipment
    gear = section(
        "equipment",
        "Equipment",
        "list",
        columns=("Slot", "Item", "AT", "PA", "Notes"),
        rows=[
            *(
                [("Weapon", e.weapon.name, e.weapon.at, e.weapon.pa, "damage " + "/".join(map(str, e.weapon.damage)))]
                if e.weapon
                else []
            ),
            *(
                [("Missile", e.missile.name, None, None, f"accuracy {e.missile.accuracy}, damage {e.missile.damage}")]
                if e.missile
                else []
            ),
            *([("Armour", e.armor.name, e.armor.at, e.armor.pa, f"AC {e.armor.ac}")] if e.armor else []),
            *([("Shield", e.shield.name, e.shield.at, e.shield.pa, f"AC {e.shield.ac}")] if e.shield else []),
            *[("Other", o, None, None, "") for o in e.other],
        ],
    )
    abilities = section(
        "abilities",
        "Abilities",
        "list",
        columns=("Ability", "Skill", "Cost", "Description"),
        rows=[
            (
                a.name,
                a.skill or a.source,
                ", ".join(f"{v} {k.upper()}" for k, v in a.cost.model_dump().items() if v) or "free",
                a.description,
            )
            for a in c.abilities
        ],
    )
    out = [section("summary", "Summary", "summary", summary), stats, derived, resources, skill_table, gear, abilities]
    if c.notes:
        out.append(section("notes", "Notes", "summary", [value("Notes", c.notes, key="notes")]))
    return out
