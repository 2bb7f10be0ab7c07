"""Kalyr on the shared protocol: the check catalogue, what a character can roll, the sheet, and the
creation rules that depend on the house rules."""

from __future__ import annotations

from ...errors import CheckError, Problem
from ...rules.catalogue import CheckEntry, CheckKind
from ...rules.sheet import SheetSection, section, value
from .abilities import build_roll, wound_modifier
from .character import (
    Character,
    armour_value,
    damage_bonus,
    damage_reduction,
    shield_value,
    validate,
    weapon_damage,
    weapon_reach,
)
from .checks import GroupCheck, OpenCheck, OpposedCheck, UnopposedCheck, check_odds, resolve_check
from .ladder import level_name
from .options import KalyrHouseRules
from .wounds import TRACKS, severity_name

__all__ = ["CHECK_KINDS", "character_checks", "character_problems", "sheet_sections"]

_FOE = {"ability": "Fair", "name": "opponent"}

CHECK_KINDS: tuple[CheckKind, ...] = (
    CheckKind(
        "unopposed",
        UnopposedCheck,
        resolve_check,
        check_odds,
        title="Unopposed action",
        summary="Against a force of nature: meet or beat the difficulty (Simple Contests)",
        difficulty="difficulty",
        example={"difficulty": "Fair"},
        group="test",
    ),
    CheckKind(
        "open",
        OpenCheck,
        resolve_check,
        check_odds,
        title="Open-ended action",
        summary="No difficulty set in advance: the result says how well it went",
        example={},
        group="test",
    ),
    CheckKind(
        "opposed",
        OpposedCheck,
        resolve_check,
        check_odds,
        title="Opposed action",
        summary="Against another character: the better result wins; a tie leaves it unresolved",
        opponent="opponent",
        example={"opponent": _FOE},
        group="contest",
    ),
    CheckKind(
        "group",
        GroupCheck,
        resolve_check,
        check_odds,
        title="Simple group contest",
        summary="Every participant rolls; the side with the better average wins (Simple Group Contests)",
        opponent="opposition",
        example={"opposition": [_FOE]},
        group="contest",
    ),
)
_KIND = {k.name: k for k in CHECK_KINDS}


def character_problems(c: Character, hr: KalyrHouseRules) -> list[Problem]:
    """The sheet's problems, and those the house rules add: with advancement switched off
    ("strictly optional"), nothing on the sheet can come from it (ruling in docs/rulings/kalyr.md)."""
    problems = validate(c)
    if not hr.advancement:
        rule = "house rules: advancement is off (Character Advancement is 'strictly optional')"
        if c.experience:
            problems.append(Problem("experience", f"{c.experience} experience points, but none are earned", rule))
        if c.levels_gained:
            problems.append(Problem("levels_gained", f"{c.levels_gained} levels bought", rule))
        if c.raised_this_scene:
            problems.append(Problem("raised_this_scene", "abilities raised this scene", rule))
    return problems


def character_checks(c: Character, hr: KalyrHouseRules) -> list[CheckEntry]:
    """Each ability the character can use now (its level with the wound modifier for its track), as an
    unopposed, open-ended, opposed and group action."""
    entries: list[CheckEntry] = []
    for a in c.abilities:
        try:
            roll, _ = build_roll(c, a.name, house_rules=hr)
        except CheckError:
            continue  # Defeated on the ability's track: it cannot be used at all
        actor = roll.model_dump(mode="json", exclude_defaults=True)
        actor["ability"] = level_name(roll.ability)
        actor["name"] = f"{c.name}: {a.name}"
        entries.append(_KIND["unopposed"].entry(a.name, "ability", {"actor": actor}, label=f"{a.name} action"))
        entries.append(_KIND["open"].entry(a.name, "ability", {"actor": actor}, label=f"{a.name}, open-ended"))
        entries.append(_KIND["opposed"].entry(a.name, "ability", {"actor": actor}, label=f"{a.name} against someone"))
        entries.append(_KIND["group"].entry(a.name, "ability", {"side": [actor]}, label=f"{a.name} in a group"))
    return entries


def _now(c: Character, track: str, level: int, hr: KalyrHouseRules) -> str:
    try:
        mod, _ = wound_modifier(c, track, hr)  # type: ignore[arg-type]
    except CheckError:
        return "cannot use (Defeated)"
    return level_name(level + mod)


def _track_penalty(c: Character, track: str, hr: KalyrHouseRules) -> tuple[int | None, bool]:
    """What a check on this track rolls with now (wounds on every track, ruling K5), and whether it can be made:
    the sheet says what a check rolls."""
    try:
        mod, _ = wound_modifier(c, track, hr)  # type: ignore[arg-type]
    except CheckError:
        return None, False
    return mod, True


def sheet_sections(c: Character, hr: KalyrHouseRules) -> list[SheetSection]:
    """Who the character is, abilities (and their level now, after wounds), connections, gear, damage tracks."""
    summary = [
        value("Race", c.race, key="race"),
        value("Scale", c.scale, key="scale"),
        value("Role", c.role.replace("_", " "), key="role"),
    ]
    if c.powers:
        summary.append(value("Powers", ", ".join(c.powers), key="powers"))
    abilities = section(
        "abilities",
        "Abilities",
        "stats",
        columns=("Ability", "Level", "Kind", "Track", "Now"),
        rows=[
            (
                a.name,
                level_name(a.level),
                a.kind + (f" ({a.power})" if a.power else ""),
                a.track,
                _now(c, a.track, a.level, hr),
            )
            for a in c.abilities
        ],
    )
    connections = section(
        "connections",
        "Connections",
        "stats",
        [value(x.organisation, level_name(x.level), key=f"connection_{i}") for i, x in enumerate(c.connections)],
    )
    derived = section(
        "derived",
        "Gear and gifts",
        "derived",
        [
            value("Weapon", c.weapon.name, key="weapon", note=f"reach {weapon_reach(c)}"),
            value("Weapon damage", weapon_damage(c), key="weapon_damage"),
            value("Armour", armour_value(c), key="armour", note=c.armour.name),
            value("Shield (melee)", shield_value(c), key="shield_melee", note=c.shield),
            value("Shield (ranged)", shield_value(c, ranged=True), key="shield_ranged"),
            value("Gift damage bonus", damage_bonus(c), key="gift_damage_bonus"),
            value("Gift damage reduction", damage_reduction(c), key="gift_damage_reduction"),
        ],
    )
    condition = section(
        "damage",
        "Damage tracks",
        "condition",
        columns=("Track", "Status", "Penalty", "Can act"),
        rows=[
            (
                t,
                severity_name(c.damage.track(t).status) if c.damage.track(t).status else "unhurt",
                *_track_penalty(c, t, hr),
            )
            for t in TRACKS
        ],
    )
    resources = section(
        "resources",
        "Fudge points and experience",
        "resources",
        [
            value("Fudge points", c.fudge_points, key="fudge_points"),
            value("Experience", c.experience, key="experience"),
            value("Levels gained", c.levels_gained, key="levels_gained", note="8 give a new Lifepath"),
        ],
    )
    lists = section(
        "story",
        "Keys, gifts and lifepaths",
        "list",
        columns=("Kind", "Name"),
        rows=[("Key", k.name + (f" ({k.kind})" if k.kind else "")) for k in c.keys]
        + [("Gift", g.name) for g in c.gifts]
        + [("Lifepath", f"{p.name} ({p.kind})") for p in c.lifepaths]
        + [("Incompetence", i) for i in c.incompetences],
    )
    out = [section("summary", "Summary", "summary", summary), abilities]
    if c.connections:
        out.append(connections)
    out += [derived, condition, resources, lists]
    if c.notes:
        out.append(section("notes", "Notes", "summary", [value("Notes", c.notes, key="notes")]))
    return out
