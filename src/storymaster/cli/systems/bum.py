"""`storymaster bum ...`: B.U.M. characters, rolls with their exact odds, fights, hazards and advancement."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import BaseModel, ValidationError
from rich.table import Table

from ...errors import AdvancementError, CheckError, CombatError, InputFileError
from ...forecast import side_label
from ...systems.bum import SYSTEM, BumCharacter, BumHouseRules
from ...systems.bum import hazards as hz
from ...systems.bum.advancement import AwardPoints, BuySkill, BuyStat
from ...systems.bum.character import (
    STATS,
    attack_parts,
    current_hp,
    defence_parts,
    find_skill,
    hit_points,
    require_valid,
    skill_bonus,
)
from ...systems.bum.checks import FixedCheck, OpposedCheck, RecheckCheck, SneakAttackCheck, range_penalty
from ...systems.bum.equipment import all_gear, find_gear
from ...systems.bum.fighters import FightState
from ...systems.bum.levels import skill_label, stat_label
from ...systems.bum.wounds import heal, take_wounds
from ..changes import change_commands
from ..characters import load_character
from ..checks import CheckCommands, add_check_commands
from ..common import HouseRulesOpt, JsonOpt, SeedOpt, emit_events, load_house_rules, make_rng
from ..forecast import (
    MethodOpt,
    PlotOpt,
    SamplesOpt,
    StateOpt,
    check_method,
    emit_forecast,
    forecast_progress,
    split_sides,
)
from ..output import console, print_json
from ..prompts import ask, ask_int, say
from ..shared import finish_new, system_app
from ..vocab import AllowIllegalOpt, TeamVsOpt
from ..vocab import OutOpt as OutOpt

app = system_app(
    SYSTEM,
    help="B.U.M. (Basic - Universal - Modular): d6 + stat + skill + items against a difficulty or another roll.",
)
hazard_app = typer.Typer(
    help="Damage from sources other than weapons (Part Seven).", no_args_is_help=True, rich_markup_mode=None
)
app.add_typer(hazard_app, name="hazard")

FileArg = Annotated[Path, typer.Argument(help="A character file (YAML or JSON).")]


def _build(model: type[BaseModel], error: type[Exception] = CheckError, **values: Any) -> Any:
    """Make a check or request from command-line values; out-of-range values become one clear error."""
    try:
        return model(**values)
    except ValidationError as exc:
        msgs = "; ".join(f"{'.'.join(str(x) for x in e['loc']) or 'value'}: {e['msg']}" for e in exc.errors())
        raise error(f"{model.__name__}: {msgs}") from None


def _hr(path: Path | None) -> BumHouseRules:
    hr = load_house_rules(path, SYSTEM)
    assert isinstance(hr, BumHouseRules)
    return hr


def _load(path: Path, hr: BumHouseRules | None = None, allow_illegal: bool = False) -> BumCharacter:
    """A character file, refused like 'sheet' refuses it unless --allow-illegal."""
    return load_character(SYSTEM, path, hr, allow_illegal=allow_illegal)


def _document(c: BumCharacter) -> dict[str, Any]:
    data = c.model_dump(mode="json", exclude_defaults=True)
    data.pop("system", None)
    return {"system": "bum", **data}


# --------------------------------------------------------------------------- sheet / schema / new


@app.command("gear")
def gear_cmd(as_json: JsonOpt = False) -> None:
    """Appendix A: weapons, shields and armour with attack and defence bonuses."""
    rows = all_gear()
    if as_json:
        print_json({"gear": [g.model_dump(mode="json") for g in rows]})
        return
    t = Table()
    for h in ("kind", "names", "attack", "defence", "notes"):
        t.add_column(h)
    for g in rows:
        notes = []
        if g.hands == 2:
            notes.append("two-handed")
        if g.hands == "either":
            notes.append("one or two hands (one hand: +2/+0)")
        if g.reload:
            notes.append(f"reload: {g.reload}")
        if g.wounds > 1:
            notes.append(f"{g.wounds} wounds")
        if g.longspear:
            notes.append("first strike (option)")
        t.add_row(
            g.category,
            ", ".join(g.names),
            f"{g.attack:+d}",
            "-" if g.defence is None else f"{g.defence:+d}",
            "; ".join(notes),
        )
    console.print(t)


@app.command("new")
def new_cmd(
    out: OutOpt = None,
    house_rules: HouseRulesOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Build a character step by step (Part Eight checklist): running totals; a wrong answer is asked again."""
    hr = _hr(house_rules)
    name = ask("Name", check=lambda v: None if v else "a character needs a name")
    player = ask("Player", default="")
    campaign = ask("Campaign", default="")
    stats: dict[str, int] = {}
    left = hr.stat_points
    for i, stat in enumerate(STATS):
        others = len(STATS) - i - 1
        hi = min(hr.stat_max, left - others * hr.stat_min)
        lo = max(hr.stat_min, left - others * hr.stat_max)
        if lo > hi:
            raise InputFileError("the stat points cannot be shared out under these house rules")
        if others == 0:
            stats[stat] = left
            say(f"{stat} takes the last {left} point(s).")
        else:
            stats[stat] = ask_int(f"{stat} ({left} stat points left, {lo}-{hi})", lo=lo, hi=hi)
        say(f"  {stat} {stats[stat]}: {stat_label(stat, stats[stat])}")
        left -= stats[stat]
    say(f"Stats: {stats}; hit points (STR) = {stats['STR']}")
    skills: list[dict[str, Any]] = []
    sp = hr.skill_points
    while sp > 0:
        sname = ask(f"Skill name ({sp} skill points left; blank to finish)", default="", show_default=False).strip()
        if not sname:
            break
        if any(s["name"].casefold() == sname.casefold() for s in skills):
            say("  that skill is already on the card")
            continue
        stat = ask("  governing stat (STR, DEX, INT, SOC)").strip().upper()
        if stat not in STATS:
            say("  the stats are STR, DEX, INT and SOC")
            continue
        cap = min(sp, stats[stat]) if hr.skill_cap_at_stat else sp
        skills.append({"name": sname, "stat": stat, "points": ask_int(f"  points in {sname} (1-{cap})", lo=1, hi=cap)})
        sp -= skills[-1]["points"]
        say(f"  {sname} {skills[-1]['points']}: {skill_label(skills[-1]['points'])}; {sp} skill point(s) left")
    weapons: dict[str, Any] = {}
    for slot, cats in (("primary", ("hand",)), ("ranged", ("ranged",)), ("backup", ("hand", "ranged"))):
        while True:
            wname = ask(f"{slot.capitalize()} weapon (blank for none)", default="", show_default=False).strip()
            if not wname:
                break
            g = find_gear(wname, cats)  # type: ignore[arg-type]
            if g is None:
                say(f"  not in Appendix A as a {'/'.join(cats)} weapon (see 'storymaster bum gear')")
                continue
            entry: dict[str, Any] = {"name": wname}
            wskill = ask("  skill used with it (blank for none)", default="", show_default=False).strip()
            if wskill:
                if not any(s["name"].casefold() == wskill.casefold() for s in skills):
                    say("  (no such skill on the card: left out)")
                else:
                    entry["skill"] = wskill
            weapons[slot] = entry
            stat_used = "DEX" if g.ranged else "STR"
            skill_pts = next(
                (s["points"] for s in skills if s["name"].casefold() == entry.get("skill", "").casefold()), 0
            )
            say(
                f"  {slot} attack total: {stat_used} {stats[stat_used]} + skill {skill_pts} + weapon {g.attack:+d}"
                f" = {stats[stat_used] + skill_pts + g.attack}"
            )
            break
    gear: dict[str, Any] = {}
    for field, cat in (("armour", "armour"), ("shield", "shield")):
        while True:
            gname = ask(f"{field.capitalize()} (blank for none)", default="", show_default=False).strip()
            if not gname:
                break
            if find_gear(gname, cat) is None:  # type: ignore[arg-type]
                say(f"  not Appendix A {cat} (see 'storymaster bum gear')")
                continue
            gear[field] = {"name": gname}
            break
    data: dict[str, Any] = {
        "name": name,
        "player": player,
        "campaign": campaign,
        "stats": stats,
        "skills": skills,
        "weapons": weapons,
        **gear,
    }
    if sp:
        data["banked_skill_points"] = sp
    from ...rules import validate_data

    c = validate_data(data, BumCharacter, source="new character")
    require_valid(c, hr)
    finish_new(SYSTEM, c, hr, out, as_json, document=_document(c))


# --------------------------------------------------------------------------- odds and rolls


def _show_outcome(outcome: Any) -> None:
    """The result, the dice, and the explanation in full (wrapped to the terminal, never cropped)."""
    margin = f" (margin {outcome.margin:+d})" if outcome.margin is not None else ""
    console.print(f"[bold]{outcome.check}: {outcome.result}[/bold]{margin}", soft_wrap=False)
    for r in outcome.rolls:
        console.print(f"  {r.label + ': ' if r.label else ''}{r.detail}", markup=False)
    console.print(outcome.explanation, soft_wrap=False, markup=False)
    if outcome.rolls:
        console.print(f"seed {outcome.rolls[0].seed}", style="dim", markup=False)


BonusOpt = Annotated[int | None, typer.Option("--bonus", help="Everything added to the d6 (stat + skill + items).")]
DcOpt = Annotated[
    int | None,
    typer.Option("--difficulty", "--dc", help="Fixed difficulty (DC): the total must meet or beat it (standard 6)."),
]
VsOpt = Annotated[int | None, typer.Option("--vs", help="Opposed roll: the opponent's bonus (higher total wins).")]
StatOpt = Annotated[str | None, typer.Option("--stat", help="With -c: the stat rolled (STR, DEX, INT, SOC).")]
SkillOpt = Annotated[str | None, typer.Option("--skill", help="With -c: the skill that applies.")]
ItemOpt = Annotated[list[str] | None, typer.Option("--item", help="With -c: an item whose bonus applies (repeatable).")]
ModOpt = Annotated[int, typer.Option("--mod", help="A further modifier the GM applies.")]
RoleOpt = Annotated[str, typer.Option("--role", help="For the tie rule: attacker or defender.")]
RecheckOpt = Annotated[
    int | None,
    typer.Option("--recheck-dc", help="After a failure the GM allows a re-check at this difficulty (Part Two)."),
]


def _check_from_options(
    character: BumCharacter | None,
    bonus: BonusOpt = None,
    difficulty: DcOpt = None,
    vs: VsOpt = None,
    stat: StatOpt = None,
    skill: SkillOpt = None,
    item: ItemOpt = None,
    mod: ModOpt = 0,
    role: RoleOpt = "attacker",
    recheck_dc: RecheckOpt = None,
) -> FixedCheck | OpposedCheck | RecheckCheck:
    """A roll from the book's options: a bonus (or -c FILE --stat S [--skill K] [--item I]) against a DC or --vs."""
    dc, label = difficulty, ""
    if role not in ("attacker", "defender"):
        raise CheckError(f"--role {role!r}: give attacker or defender")
    if (dc is None) == (vs is None):
        raise CheckError(
            "give either --dc N (a fixed difficulty) or --vs N (an opposed roll)", hint="e.g. --bonus 5 --dc 8"
        )
    if role != "attacker" and vs is None:
        raise CheckError("--role decides ties in an opposed roll; it goes with --vs")
    if character is None and (stat or skill or item):
        raise CheckError("--stat, --skill and --item read a character: give -c/--character FILE")
    parts: list[tuple[str, int]] = []
    if character is not None:
        c = character
        if stat is None:
            raise CheckError("with --character, say which stat the roll uses (--stat STR|DEX|INT|SOC)")
        st = stat.upper()
        if st not in STATS:
            raise CheckError(f"{stat!r} is not a stat", hint="STR, DEX, INT or SOC")
        parts.append((st, c.stats.get(st)))  # type: ignore[arg-type]
        if skill:
            if find_skill(c, skill) is None:
                raise CheckError(
                    f"{c.name} has no skill {skill!r}", hint="roll the bare stat, or pick a skill on the card"
                )
            parts.append((skill, skill_bonus(c, skill)))
        for it in item or []:
            found = [i for i in c.items if i.name.casefold() == it.casefold()]
            if not found:
                raise CheckError(f"{c.name} carries no item {it!r}")
            parts.append((found[0].name, found[0].bonus))
        if bonus is not None:
            parts.append(("bonus", bonus))
    elif bonus is None:
        raise CheckError("give --bonus N, or --character FILE --stat S [--skill NAME]")
    else:
        parts.append(("bonus", bonus))
    if mod:
        parts.append(("modifier", mod))
    total = sum(v for _, v in parts)
    for what, value in (("difficulty", dc), ("re-check difficulty", recheck_dc)):
        if value is not None and value < 1:
            raise CheckError(f"a {what} of {value} makes no sense", hint="the GM picks a DC from 1 up; 6 is standard")
    if recheck_dc is not None:
        if dc is None:
            raise CheckError("--recheck-dc goes with a fixed difficulty (--dc)")
        return _build(RecheckCheck, bonus=total, dc=dc, recheck_dc=recheck_dc, parts=tuple(parts), label=label)
    if dc is not None:
        return _build(FixedCheck, bonus=total, dc=dc, parts=tuple(parts), label=label)
    return _build(
        OpposedCheck, bonus=total, vs=vs, parts=tuple(parts), vs_parts=(("opponent", vs),), role=role, label=label
    )


def _show_roll(check: Any, outcome: Any, hr: BumHouseRules, as_json: bool) -> None:
    """A roll with its chance of success first (the Golden Rule: know the odds)."""
    odds = SYSTEM.odds(check, hr)
    if as_json:
        print_json({**outcome.to_json(), "p_success": float(odds.p_success), "p_success_exact": str(odds.p_success)})
        return
    console.print(f"chance of success: {float(odds.p_success):.2%} (exactly {odds.p_success})")
    _show_outcome(outcome)


# `check`, the book's `roll`, and `odds`: the shared commands (cli/checks.py), with the book's options
add_check_commands(
    app,
    SYSTEM,
    CheckCommands(
        build=_check_from_options,
        verb="roll",
        stream="bum-roll",
        show=_show_roll,
        check_help="Roll a check (fixed difficulty or opposed) and explain the result; the odds are shown first.",
        odds_help="Exact chance of success before the roll (Golden Rule). Ties re-rolled are already counted.",
    ),
)


@app.command("sneak")
def sneak_cmd(
    bonus: Annotated[int, typer.Option("--bonus", help="The ranged attack total (stat + skill + weapon).")] = 0,
    dc: Annotated[int, typer.Option("--dc", help="The GM's difficulty (range and armour; no DEX or shield).")] = 6,
    range_turns: Annotated[
        int, typer.Option("--range", help="Turns of distance (penalty -1 per turn past the first).")
    ] = 1,
    headshot: Annotated[
        bool, typer.Option("--headshot", help="Aim for the head: -4, and a hit kills or incapacitates.")
    ] = False,
    melee: Annotated[bool, typer.Option("--melee", help="A melee sneak attack: no roll needed.")] = False,
    rifle: Annotated[bool, typer.Option("--rifle", help="A rifle: range penalties at half rate.")] = False,
    thrown: Annotated[bool, typer.Option("--thrown", help="A thrown weapon: no farther than 2 turns.")] = False,
    seed: SeedOpt = None,
    house_rules: HouseRulesOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A sneak attack (Part Five): the odds, then the roll."""
    hr = _hr(house_rules)
    check = _build(
        SneakAttackCheck,
        melee=melee,
        bonus=bonus,
        dc=dc,
        range_turns=range_turns,
        headshot=headshot,
        rifle=rifle,
        thrown=thrown,
    )
    odds = SYSTEM.odds(check, hr)
    outcome = SYSTEM.resolve(check, make_rng(seed, "bum-sneak"), hr)
    if as_json:
        print_json({**outcome.to_json(), "p_success": float(odds.p_success), "p_success_exact": str(odds.p_success)})
        return
    console.print(f"chance to hit: {float(odds.p_success):.2%} (exactly {odds.p_success})")
    _show_outcome(outcome)


@app.command("attack")
def attack_cmd(
    attacker: Annotated[Path, typer.Argument(help="The attacker's character file.")],
    defender: Annotated[Path, typer.Argument(help="The defender's character file.")],
    weapon: Annotated[str, typer.Option("--weapon", help="primary, ranged or backup.")] = "primary",
    range_turns: Annotated[int, typer.Option("--range", help="Turns of distance for a ranged attack.")] = 1,
    seed: SeedOpt = None,
    house_rules: HouseRulesOpt = None,
    allow_illegal: AllowIllegalOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """One level-4 attack: attack total against the defender's melee or ranged defence, odds first."""
    if weapon not in ("primary", "ranged", "backup"):
        raise CheckError(f"--weapon {weapon!r}: give primary, ranged or backup")
    hr = _hr(house_rules)
    a, d = _load(attacker, hr, allow_illegal), _load(defender, hr, allow_illegal)
    parts = attack_parts(a, weapon)  # type: ignore[arg-type]
    from ...systems.bum.character import profile

    prof = profile(a, weapon)  # type: ignore[arg-type]
    assert prof is not None
    if prof.ranged:
        pen = range_penalty(range_turns, rifle=prof.rifle, thrown=prof.reload == "thrown", hr=hr)
        if pen is None:
            raise CheckError(
                f"a thrown weapon cannot reach {range_turns} turns", hint=f"at most {hr.thrown_max_turns} turns"
            )
        if pen:
            parts.append(("range", pen))
    dparts = defence_parts(d, ranged=prof.ranged)
    check = OpposedCheck(
        bonus=sum(v for _, v in parts),
        vs=sum(v for _, v in dparts),
        parts=tuple(parts),
        vs_parts=tuple(dparts),
        is_player=not a.npc,
        opponent_is_player=not d.npc,
        label=f"{a.name} attacks {d.name} with {prof.name}",
    )
    odds = SYSTEM.odds(check, hr)
    outcome = SYSTEM.resolve(check, make_rng(seed, "bum-attack"), hr)
    if as_json:
        print_json(
            {
                **outcome.to_json(),
                "p_success": float(odds.p_success),
                "p_success_exact": str(odds.p_success),
                "wounds": prof.wounds if outcome.success else 0,
            },
        )
        return
    console.print(f"chance to hit: {float(odds.p_success):.2%} (exactly {odds.p_success})")
    _show_outcome(outcome)
    if outcome.success:
        console.print(
            f"{d.name} takes {prof.wounds} wound(s): {max(0, current_hp(d) - prof.wounds)} of {hit_points(d)} HP left."
        )


# --------------------------------------------------------------------------- fights


def _pairs(values: list[str] | None, what: str) -> dict[str, str]:
    out = {}
    for v in values or []:
        if "=" not in v:
            raise CombatError(f"{what} {v!r}: write NAME=VALUE")
        k, _, val = v.partition("=")
        out[k.strip()] = val.strip()
    return out


# options shared by `fight` and `forecast` (one definition, so the two commands cannot drift apart)
LevelOpt = Annotated[int, typer.Option("--level", help="Combat level 1-4 (Part Five).")]
SwitchOpt = Annotated[
    list[str] | None, typer.Option("--switch", help="ROUND:LEVEL, change level from that round (repeatable).")
]
DistanceOpt = Annotated[int, typer.Option("--distance", help="Turns of distance between the sides at the start.")]
InitiativeOpt = Annotated[
    str, typer.Option("--initiative", help="gm (initiator first, longer reach first), dex or int.")
]
DelayOpt = Annotated[list[str] | None, typer.Option("--delay", help="NAME=OTHER: NAME acts after OTHER (repeatable).")]
FightDcOpt = Annotated[int, typer.Option("--difficulty", "--dc", help="Level 1: the difficulty to win the fight.")]
MaxRoundsOpt = Annotated[int, typer.Option("--max-rounds", min=1, help="Stop as a stand-off after this many rounds.")]
SurprisedOpt = Annotated[
    list[str] | None, typer.Option("--surprised", help="A fighter caught unaware in round 1 (repeatable).")
]
SneakDcOpt = Annotated[int, typer.Option("--sneak-dc", help="The GM's DC for ranged sneak attacks.")]
HeadshotOpt = Annotated[
    bool, typer.Option("--headshot", help="Ranged sneak attacks aim at the head (-4, incapacitates).")
]


def _fight_options(
    sides: list[list[BumCharacter]],
    *,
    level: int,
    switch: list[str] | None,
    distance: int,
    initiative: str,
    tactic: list[str] | None,
    delay: list[str] | None,
    dc: int,
    max_rounds: int,
    surprised: list[str] | None,
    sneak_dc: int,
    headshot: bool,
) -> dict[str, Any]:
    """The options of a fight, from 'fight' and 'forecast' alike; what cannot apply is refused, not ignored."""
    sw: dict[int, int] = {}
    for x in switch or []:
        try:
            rnd, _, lvl = x.partition(":")
            sw[int(rnd)] = int(lvl)
        except ValueError:
            raise CombatError(f"--switch {x!r}: write ROUND:LEVEL, e.g. 3:4") from None
    if distance and level != 4 and 4 not in sw.values():
        raise CombatError(
            f"--distance counts turns of distance, which only level 4 plays out; this fight stays at level {level}",
            hint="leave out --distance, or use --level 4 (or --switch ROUND:4)",
        )
    names = {c.name for side in sides for c in side}
    tactics = _side_keys(_pairs(tactic, "--tactic"), len(sides))
    delays = _pairs(delay, "--delay")
    for option, given in (("--tactic", list(tactics)), ("--delay", [*delays, *delays.values()])):
        for who in given:
            if who not in names and not who.isdigit():
                raise CombatError(
                    f"{option}: nobody called {who!r} is in this fight",
                    hint="names in the fight: " + ", ".join(sorted(names)) + "; or a side: A, B ...",
                )
    for who in surprised or []:
        if who not in names:
            raise CombatError(f"--surprised: nobody called {who!r} is in this fight")
    return {
        "level": level,
        "distance": distance,
        "initiative": initiative,
        "switch": sw,
        "tactics": tactics,
        "delay": delays,
        "dc": dc,
        "max_rounds": max_rounds,
        "surprised": surprised or [],
        "sneak_dc": sneak_dc,
        "sneak_headshot": headshot,
    }


TacticOpt = Annotated[
    list[str] | None,
    typer.Option("--tactic", help="NAME=T or SIDE=T (A, B ...), T one of auto|melee|ranged|hold (repeatable)."),
]


@app.command("fight")
def fight_cmd(
    files: Annotated[
        list[Path] | None,
        typer.Argument(help="A.yaml B.yaml (one a side), or side A's files followed by --vs X.yaml ..."),
    ] = None,
    vs: TeamVsOpt = None,
    ally: Annotated[list[Path] | None, typer.Option("--ally", help="Another fighter on side A (old spelling).")] = None,
    foe: Annotated[list[Path] | None, typer.Option("--foe", help="Another fighter on side B (old spelling).")] = None,
    state_file: Annotated[
        Path | None, typer.Option("--state", help="Go on with a fight saved by 'fight --save-state FILE'.")
    ] = None,
    level: LevelOpt = 4,
    switch: SwitchOpt = None,
    distance: DistanceOpt = 0,
    initiative: InitiativeOpt = "gm",
    tactic: TacticOpt = None,
    delay: DelayOpt = None,
    dc: FightDcOpt = 6,
    max_rounds: MaxRoundsOpt = 100,
    surprised: SurprisedOpt = None,
    sneak_dc: SneakDcOpt = 6,
    headshot: HeadshotOpt = False,
    rounds: Annotated[
        int | None,
        typer.Option("--rounds", min=1, help="Play only this many rounds (then stop, to forecast or go on)."),
    ] = None,
    save_state: Annotated[
        Path | None,
        typer.Option("--save-state", help="Write the fight state (JSON) here when it stops; --state reads it."),
    ] = None,
    seed: SeedOpt = None,
    house_rules: HouseRulesOpt = None,
    allow_illegal: AllowIllegalOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Run a fight round by round with a readable log; a team: A B --vs X --vs Y."""
    engine = SYSTEM.combat
    if state_file is not None:
        if files or vs or ally or foe:
            raise InputFileError("give either character files or --state FILE, not both")
        if house_rules is not None:
            raise InputFileError("a saved fight keeps its own house rules; leave out --house-rules with --state")
        state = _retactic(_load_state(state_file), _pairs(tactic, "--tactic"))
        rng = make_rng(seed, f"bum-fight-from-round-{state.round}")
    else:
        hr = _hr(house_rules)
        if ally or foe:  # the old spelling: A B --ally C --foe D
            if vs:
                raise InputFileError("give the teams with --vs only (--ally/--foe are its old spelling)")
            if len(files or []) != 2:
                raise InputFileError("with --ally/--foe give exactly two files, A and B")
            paths = [[files[0], *(ally or [])], [files[1], *(foe or [])]]  # type: ignore[index]
        else:
            paths = split_sides(files or [], vs)
        sides = [[_load(p, hr, allow_illegal) for p in side] for side in paths]
        options = _fight_options(
            sides,
            level=level,
            switch=switch,
            distance=distance,
            initiative=initiative,
            tactic=tactic,
            delay=delay,
            dc=dc,
            max_rounds=max_rounds,
            surprised=surprised,
            sneak_dc=sneak_dc,
            headshot=headshot,
        )
        state = engine.start(sides, house_rules=hr, options=options)
        rng = make_rng(seed, "bum-fight")
    if rounds is None:
        state, events = engine.run(state, rng)
    else:
        events = []
        for _ in range(rounds):
            if engine.is_over(state):
                break
            state, evs = engine.step(state, rng)
            events += evs
    if save_state is not None:
        try:
            save_state.write_text(state.model_dump_json(indent=1), encoding="utf-8")
        except OSError as exc:
            raise InputFileError(f"{save_state}: cannot write the fight state ({exc.strerror or exc})") from None
    w = engine.winner(state)
    n_sides = max(f.side for f in state.fighters) + 1
    names = [[f.name for f in state.fighters if f.side == i] for i in range(n_sides)]
    if not engine.is_over(state):
        result = f"stopped after {state.round} round(s), the fight still going"
    else:
        result = (
            f"{' and '.join(names[w])} win{'s' if len(names[w]) == 1 else ''} after {state.round} round(s)"
            if w is not None
            else f"no winner after {state.round} round(s)"
        )
    summary = {
        "result": result,
        "winner": w,
        "winner_side": None if w is None else side_label(w),
        "rounds": state.round,
        "seed": rng.seed,
        "hp": {f.name: f.hp for f in state.fighters},
        "state": state.model_dump(mode="json"),
    }
    if as_json:
        emit_events(events, True, summary)
        return
    emit_events(events, False, {"result": result})
    console.print("HP left: " + ", ".join(f"{f.name} {f.hp}/{hit_points(f.character)}" for f in state.fighters))
    if save_state is not None:
        console.print(f"fight state written to {save_state}")
    console.print(f"seed {rng.seed}", style="dim")


def _retactic(state: FightState, tactics: dict[str, str]) -> FightState:
    """A saved fight with some fighters' tactics changed (NAME=T or SIDE=T)."""
    if not tactics:
        return state
    n_sides = max(f.side for f in state.fighters) + 1
    keyed = _side_keys(tactics, n_sides)
    known = (
        {f.name for f in state.fighters} | {f.character.name for f in state.fighters} | {str(i) for i in range(n_sides)}
    )
    for who in keyed:
        if who not in known:
            raise CombatError(f"--tactic: nobody called {who!r} is in this fight")
    fighters = []
    for f in state.fighters:
        t = next((keyed[k] for k in (f.name, f.character.name, str(f.side)) if k in keyed), f.tactic)
        if t not in ("auto", "melee", "ranged", "hold"):
            raise CombatError(f"{f.name}: tactic {t!r} is not auto, melee, ranged or hold")
        fighters.append(f.model_copy(update={"tactic": t}))
    return state.model_copy(update={"fighters": tuple(fighters)})


def _load_state(path: Path) -> FightState:
    """A saved fight state: the JSON 'fight --save-state' writes (or 'fight --json' output, which holds one)."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputFileError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputFileError(
            f"{path}: not a JSON fight state ({exc})", hint="write one with 'bum fight ... --save-state FILE'"
        ) from None
    if isinstance(data, dict) and "state" in data and "fighters" not in data:
        data = data["state"]
    try:
        return FightState.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "state"
        raise InputFileError(
            f"{path}: not a B.U.M. fight state ({where}: {first['msg']})",
            hint="write one with 'bum fight ... --save-state FILE'",
        ) from None


def _side_keys(tactics: dict[str, str], n_sides: int) -> dict[str, str]:
    """--tactic A=melee (a side by its letter, as the forecast prints it) or NAME=melee."""
    labels = {side_label(i): str(i) for i in range(n_sides)}
    return {labels.get(k, k): v for k, v in tactics.items()}


@app.command("forecast")
def forecast_cmd(
    files: Annotated[
        list[Path] | None,
        typer.Argument(help="A.yaml B.yaml (one a side), or side A's files followed by --vs X.yaml ..."),
    ] = None,
    vs: TeamVsOpt = None,
    state_file: StateOpt = None,
    level: LevelOpt = 4,
    switch: SwitchOpt = None,
    distance: DistanceOpt = 0,
    initiative: InitiativeOpt = "gm",
    tactic: TacticOpt = None,
    delay: DelayOpt = None,
    dc: FightDcOpt = 6,
    max_rounds: MaxRoundsOpt = 100,
    surprised: SurprisedOpt = None,
    sneak_dc: SneakDcOpt = 6,
    headshot: HeadshotOpt = False,
    method: MethodOpt = "auto",
    samples: SamplesOpt = 100_000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the simulation (the same seed, the same forecast).")] = 0,
    plot: PlotOpt = None,
    house_rules: HouseRulesOpt = None,
    allow_illegal: AllowIllegalOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """The odds of a whole fight: each side's chance to win, the stand-off, the rounds, how each fighter ends.

    Exact (a Markov chain) for fights in melee reach with no missile to fire and a known turn order;
    otherwise simulated in numpy (--samples fights, --seed) with 95% intervals. From the start of a fight
    (the files, with the same options as 'fight') or from a saved state (--state FILE from 'fight --save-state').
    """
    check_method(method)
    if state_file is not None:
        if files or vs:
            raise InputFileError("give either character files or --state FILE, not both")
        state = _load_state(state_file)
        if house_rules is not None:
            state = state.model_copy(update={"house_rules": _hr(house_rules)})
        state = _retactic(state, _pairs(tactic, "--tactic"))
    else:
        hr = _hr(house_rules)
        sides = [[_load(p, hr, allow_illegal) for p in side] for side in split_sides(files or [], vs)]
        options = _fight_options(
            sides,
            level=level,
            switch=switch,
            distance=distance,
            initiative=initiative,
            tactic=tactic,
            delay=delay,
            dc=dc,
            max_rounds=max_rounds,
            surprised=surprised,
            sneak_dc=sneak_dc,
            headshot=headshot,
        )
        state = SYSTEM.combat.start(sides, house_rules=hr, options=options)
    with forecast_progress() as progress:
        result = SYSTEM.forecast(state, method=method, samples=samples, seed=seed, progress=progress)
    emit_forecast(result, as_json, plot)


# --------------------------------------------------------------------------- wounds and advancement


# the commands that change a character: one definition (cli/changes.py), the book's changes here
change = change_commands(app, SYSTEM, document=_document)


@change("wound")
def wound_cmd(
    character: BumCharacter,
    n: Annotated[int, typer.Option("--n", min=1, help="How many wounds.")] = 1,
    cause: Annotated[str, typer.Option("--cause", help="What caused them (a punch heals sooner than a sword).")] = "",
    heal_days: Annotated[
        int | None, typer.Option("--heal-days", min=0, help="Days until healed (the GM's call).")
    ] = None,
) -> tuple[BumCharacter, list[Any]]:
    """Mark wounds on a card (Part Five, Wounds/Injury)."""
    from ...rules import Event

    c = take_wounds(character, n, cause, heal_days)
    hp = current_hp(c)
    text = f"{c.name} takes {n} wound(s): {hp} of {hit_points(c)} HP left." + (
        " At 0 HP he is out of the fight, but alive." if hp == 0 else ""
    )
    return c, [Event("wound", text, data={"hp": hp})]


@change("heal")
def heal_cmd(
    character: BumCharacter,
    days: Annotated[int, typer.Option("--days", min=0, help="Days of rest.")],
) -> tuple[BumCharacter, list[Any]]:
    """Let wounds heal: each heals on its own, least severe first."""
    from ...rules import Event

    c = heal(character, days)
    healed = len(character.wounds) - len(c.wounds)
    text = f"After {days} day(s) {healed} wound(s) have healed; {current_hp(c)} of {hit_points(c)} HP."
    return c, [Event("heal", text)]


@change("award")
def award_cmd(
    points: Annotated[int, typer.Option("--points", min=0, help="Skill points earned this session (1-2 is usual).")],
    used: Annotated[
        list[str] | None, typer.Option("--used", help="A skill used this session (repeatable; 'A is for Axe').")
    ] = None,
) -> AwardPoints:
    """End of session: award skill points (saved until spent)."""
    return _build(AwardPoints, AdvancementError, points=points, used_skills=tuple(used or ()))  # type: ignore[no-any-return]


@change("buy-skill")
def buy_skill_cmd(
    skill: Annotated[str, typer.Argument(help="The skill to raise (or a new one).")],
    points: Annotated[int, typer.Option("--points", min=1, help="Skill points to put in.")] = 1,
    stat: Annotated[str | None, typer.Option("--stat", help="Governing stat of a new skill.")] = None,
    teacher: Annotated[bool, typer.Option("--teacher", help="A teacher helps ('A is for Axe').")] = False,
) -> BuySkill:
    """Spend saved skill points on a skill."""
    st = stat.upper() if stat else None
    if st is not None and st not in STATS:
        raise CheckError(f"{stat!r} is not a stat", hint="STR, DEX, INT or SOC")
    return _build(BuySkill, AdvancementError, skill=skill, points=points, stat=st, teacher=teacher)  # type: ignore[no-any-return]


@change("buy-stat")
def buy_stat_cmd(stat: Annotated[str, typer.Argument(help="STR, DEX, INT or SOC.")]) -> BuyStat:
    """Raise a stat by 1 for 4 saved skill points (once per stat per game)."""
    st = stat.upper()
    if st not in STATS:
        raise CheckError(f"{stat!r} is not a stat", hint="STR, DEX, INT or SOC")
    return BuyStat(stat=st)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- hazards


def _hazard_out(as_json: bool, kind: str, text: str, **data: Any) -> None:
    if as_json:
        print_json({"hazard": kind, "text": text, **data})
    else:
        console.print(text)


@hazard_app.command("fall")
def fall_cmd(
    feet: Annotated[float, typer.Option("--feet", help="Height of the fall in feet.")],
    house_rules: HouseRulesOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Falling: one wound per 10 feet."""
    w = hz.falling_wounds(feet, _hr(house_rules))
    _hazard_out(as_json, "fall", f"A fall of {feet:g} feet deals {w} wound(s).", wounds=w)


@hazard_app.command("explosion")
def explosion_cmd(
    power: Annotated[int, typer.Option("--power", min=0, max=1000, help="The explosion's power.")],
    spaces: Annotated[
        int, typer.Option("--spaces", min=0, max=1000, help="Spaces from the centre (0 = the centre).")
    ] = 0,
    as_json: JsonOpt = False,
) -> None:
    """Explosions: power at the centre, one less per space out."""
    w = hz.explosion_damage(power, spaces)
    ring = [hz.explosion_damage(power, s) for s in range(power + 1)]
    _hazard_out(
        as_json,
        "explosion",
        f"Power {power} at {spaces} space(s): {w} damage. By distance: {ring}",
        damage=w,
        by_distance=ring,
    )


@hazard_app.command("shock")
def shock_cmd(
    power: Annotated[int, typer.Option("--power", help="The charge's power.")],
    strength: Annotated[int, typer.Option("--str", help="The character's STR.")],
    as_json: JsonOpt = False,
) -> None:
    """Electricity: stunned for power - STR rounds."""
    r = hz.electric_stun_rounds(power, strength)
    _hazard_out(
        as_json, "shock", f"A charge of power {power} stuns a STR {strength} character for {r} round(s).", stun_rounds=r
    )


@hazard_app.command("cold")
def cold_cmd(
    strength: Annotated[int, typer.Option("--str", help="The character's STR.")],
    periods: Annotated[int, typer.Option("--periods", help="Periods spent in the cold (the GM sets the period).")],
    as_json: JsonOpt = False,
) -> None:
    """Cold: each period drains 1 STR until warm; at 0 STR he passes out."""
    left, out = hz.cold_exposure(strength, periods)
    _hazard_out(
        as_json,
        "cold",
        f"STR {strength} after {periods} period(s) in the cold: {left}" + (" - losing consciousness." if out else "."),
        strength=left,
        unconscious=out,
    )


@hazard_app.command("acid")
def acid_cmd(
    turns: Annotated[int, typer.Option("--turns", help="Turns the acid stays on.")],
    every: Annotated[int, typer.Option("--every", help="A wound every N turns (strong acid 1-2, weak 10-20).")],
    as_json: JsonOpt = False,
) -> None:
    """Acid: a wound every N turns until washed off."""
    w = hz.acid_wounds(turns, every)
    _hazard_out(as_json, "acid", f"{turns} turn(s) of acid at a wound every {every}: {w} wound(s).", wounds=w)


@hazard_app.command("fire")
def fire_cmd(
    dex: Annotated[int, typer.Option("--dex", help="The burning character's DEX.")],
    small: Annotated[bool, typer.Option("--small", help="Only a small flame: put out with the next action.")] = False,
    seed: SeedOpt = None,
    house_rules: HouseRulesOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Fire: a large flame wounds and sets alight; stop, drop and roll (DEX vs DC 6) each turn."""
    rng = make_rng(seed, "bum-fire")
    wounds, events = hz.burn(dex, rng, large_flame=not small, hr=_hr(house_rules))
    emit_events(
        events,
        as_json,
        {"result": f"{wounds} wound(s) from the fire (seed {rng.seed})", "wounds": wounds, "seed": rng.seed},
    )
