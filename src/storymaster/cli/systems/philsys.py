"""``storymaster philsys ...``: sheets, a character builder, checks with exact odds, fights and level-ups."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError

from ...errors import CheckError, InputFileError
from ...rules import Check, Outcome, side_label
from ...systems.philsys import SYSTEM
from ...systems.philsys import damage as dmg
from ...systems.philsys.advancement import LevelUp, award_xp, level_up, xp_to_next
from ...systems.philsys.character import Character, Skill, Stats, skill_points, skill_points_spent
from ...systems.philsys.checks import (
    D20Check,
    MagicAttack,
    MeleeAttack,
    MissileAttack,
    OpposedCheck,
    SkillCheck,
    StatCheck,
)
from ...systems.philsys.combat import FightOptions, FightState
from ...systems.philsys.options import PhilsysHouseRules
from ...systems.philsys.tables import STAT_NAMES, tables
from ..characters import load_character, write_character
from ..checks import CheckCommands, add_check_commands
from ..common import (
    HouseRulesOpt,
    JsonOpt,
    SeedOpt,
    emit_events,
    emit_odds,
    emit_outcome,
    load_file,
    load_house_rules,
    make_rng,
)
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
from ..forecast import VsOpt as SidesVsOpt
from ..output import console, print_json
from ..prompts import ask, ask_choice, ask_int, say
from ..shared import finish_new, system_app
from ..vocab import AllowIllegalOpt, InPlaceOpt, OutOpt, TeamVsOpt

app = system_app(SYSTEM, help="Philsys: d20 checks, AT/PA melee, missiles, magic and levels.")


def _hr(path: Path | None) -> PhilsysHouseRules:
    hr = load_house_rules(path, SYSTEM)
    assert isinstance(hr, PhilsysHouseRules)
    return hr


def _load(path: Path, hr: PhilsysHouseRules | None = None, allow_illegal: bool = False) -> Character:
    """A character file, refused like 'sheet' refuses it unless --allow-illegal."""
    return load_character(SYSTEM, path, hr, allow_illegal=allow_illegal)


def _validated(model, data: dict, what: str):  # type: ignore[no-untyped-def]
    """Build a model from command-line values; a bad value becomes one clear error, not a traceback."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise CheckError(_explain(exc, what), hint="see --help for the allowed values") from None


def _check(
    kind: str,
    modifier: int | None,
    stat: int | None,
    bases: str | None,
    rank: int,
    td: int | None,
    vs: int | None,
    no_parry: bool,
) -> Check:
    try:
        return _build_check(kind, modifier, stat, bases, rank, td, vs, no_parry)
    except ValidationError as exc:
        raise CheckError(_explain(exc, "check"), hint="modifiers run -200..500, TDs 0..1000") from None


def _build_check(
    kind: str,
    modifier: int | None,
    stat: int | None,
    bases: str | None,
    rank: int,
    td: int | None,
    vs: int | None,
    no_parry: bool,
) -> Check:
    if td is not None and td < 0:
        raise CheckError(f"a TD cannot be negative (got {td})", hint="TDs run 10 (easy) to 70 (practically impossible)")
    if kind not in ("check", "melee", "missile", "magic"):
        raise CheckError(f"unknown kind {kind!r}", hint="check, melee, missile or magic")
    if stat is not None and not -5 <= stat <= 20:
        raise CheckError(f"a stat runs -5..+10 (got {stat})")
    if bases is not None:
        try:
            b = tuple(int(x) for x in bases.split(","))
        except ValueError:
            raise CheckError(f"--bases takes three numbers like 3,2,1 (got {bases!r})") from None
        if len(b) != 3:
            raise CheckError(f"a skill has exactly three bases (got {len(b)})", hint="--bases 3,2,1")
    if rank < 0:
        raise CheckError(f"a skill rank cannot be negative (got {rank})")
    if rank and bases is None:
        raise CheckError("--rank is a skill's rank: it goes with --bases (or --character with --skill)")
    if kind != "check" and (stat is not None or bases is not None or td is not None):
        raise CheckError(f"a {kind} roll takes --modifier and --vs; --stat, --bases and --td do not apply")
    if no_parry and vs is None:
        raise CheckError("--no-parry is for an opposed roll (--vs) or an attack")
    mod = modifier or 0
    if kind != "check":
        if modifier is None or vs is None:
            raise CheckError(f"a {kind} roll needs --modifier (attacker) and --vs (defender)")
        if kind == "melee":
            return MeleeAttack(at=mod, pa=vs, parry=not no_parry)
        if kind == "missile":
            return MissileAttack(attack=mod, defence=vs)
        return MagicAttack(attack=mod, resist=vs)
    if vs is not None:
        if td is not None:
            raise CheckError("give either --td or --vs, not both")
        return OpposedCheck(modifier=mod, vs=vs, defender_rolls=not no_parry)
    if td is None:
        raise CheckError("a check needs --td (or --vs for an opposed roll)")
    if stat is not None:
        return StatCheck(stat=stat, modifier=mod, td=td)
    if bases is not None:
        return SkillCheck(bases=b, rank=rank, modifier=mod, td=td)
    if modifier is None:
        raise CheckError("give --modifier, --stat or --bases")
    return D20Check(modifier=mod, td=td)


KindOpt = Annotated[str, typer.Option("--kind", help="check (default), melee (AT vs PA), missile or magic.")]
ModOpt = Annotated[
    int | None, typer.Option("--modifier", "-m", help="Total modifier (or the attacker's: AT, accuracy, spell).")
]
StatOpt = Annotated[int | None, typer.Option("--stat", help="A stat check: Stat*3 + d20.")]
BasesOpt = Annotated[str | None, typer.Option("--bases", help="A skill check: three base stats, e.g. 3,3,5.")]
RankOpt = Annotated[int, typer.Option("--rank", help="Skill rank (with --bases).")]
TdOpt = Annotated[
    int | None, typer.Option("--difficulty", "--td", help="The target difficulty, TD (see 'philsys tds').")
]
VsOpt = Annotated[int | None, typer.Option("--vs", help="Opposed: the defender's modifier (defender wins ties).")]
NoParryOpt = Annotated[bool, typer.Option("--no-parry", help="The defender has no roll (parry already used).")]
SkillOpt = Annotated[str | None, typer.Option("--skill", help="With --character: a skill check (bases + rank).")]
StatOfOpt = Annotated[
    str | None, typer.Option("--stat-of", help="With --character: a stat check on this stat (e.g. STR).")
]


def _from_sheet(
    c: Character | None,
    skill: str | None,
    stat_of: str | None,
    modifier: int | None,
    stat: int | None,
    bases: str | None,
    rank: int,
) -> tuple[int | None, str | None, int]:
    """Turn --character/--skill/--stat-of into --stat or --bases/--rank."""
    if c is None:
        if skill or stat_of:
            raise CheckError("--skill and --stat-of need --character FILE")
        return stat, bases, rank
    if stat is not None or bases is not None or rank:
        raise CheckError("give either --character or --stat/--bases/--rank, not both")
    if skill:
        sk = c.skill(skill)
        if sk is None:
            known = ", ".join(x.name for x in c.skills) or "none"
            raise CheckError(f"{c.name} has no skill {skill!r}", hint=f"known skills: {known}")
        try:
            b = sk.effective_bases()
        except ValueError as exc:
            raise CheckError(str(exc)) from None
        return None, ",".join(str(c.stats.get(x)) for x in b), sk.rank
    if stat_of:
        name = stat_of.upper()
        if name not in STAT_NAMES:
            raise CheckError(f"unknown stat {stat_of!r}", hint="one of " + ", ".join(STAT_NAMES))
        return c.stats.get(name), None, 0
    raise CheckError("with --character, name a --skill or a --stat-of")


def _check_from_options(
    character: Character | None,
    kind: KindOpt = "check",
    modifier: ModOpt = None,
    stat: StatOpt = None,
    bases: BasesOpt = None,
    rank: RankOpt = 0,
    difficulty: TdOpt = None,
    vs: VsOpt = None,
    no_parry: NoParryOpt = False,
    skill: SkillOpt = None,
    stat_of: StatOfOpt = None,
) -> Check:
    """A check from the book's options: d20 + modifier (or a stat, or a skill's bases) against a TD, or --vs."""
    stat, bases, rank = _from_sheet(character, skill, stat_of, modifier, stat, bases, rank)
    return _check(kind, modifier, stat, bases, rank, difficulty, vs, no_parry)


def _show_check(check: Check, outcome: Outcome, hr: PhilsysHouseRules, as_json: bool) -> None:
    if as_json:
        emit_outcome(outcome, True)
        return
    console.print(f"[bold]{outcome.result}[/bold] (margin {outcome.margin:+d})  {outcome.check}")
    for r in outcome.rolls:
        console.print(f"  {r.label}: {r.detail}")
    console.print(outcome.explanation)
    console.print(f"seed {outcome.rolls[0].seed}", style="dim")


# `check` and `odds`: the shared commands (cli/checks.py), with the book's options
add_check_commands(
    app,
    SYSTEM,
    CheckCommands(
        build=_check_from_options,
        stream="philsys-check",
        show=_show_check,
        check_help="Roll a check and explain how the dice made the result.",
        odds_help="Exact odds of a check before rolling: d20+modifier vs TD, or opposed (--vs).",
    ),
)


@app.command("attack-odds")
def attack_odds_cmd(
    attacker: Annotated[Path, typer.Argument(help="Attacker's sheet.")],
    defender: Annotated[Path, typer.Argument(help="Defender's sheet.")],
    attack: Annotated[
        str,
        typer.Option("--attack", help="thrust/slash/chop, light/medium/heavy, punch/kick, missile, or a spell name."),
    ] = "thrust",
    no_parry: NoParryOpt = False,
    aim: Annotated[str, typer.Option("--aim", help="Missile target location.")] = "abdomen",
    distance: Annotated[str, typer.Option("--range", help="medium or long.")] = "medium",
    house_rules: HouseRulesOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Exact odds of one attack between two characters, from their sheets."""
    from ...systems.philsys.character import at_pa
    from ...systems.philsys.combat import melee_options

    hr = _hr(house_rules)
    a, d = _load(attacker), _load(defender)
    spell = next((x for x in a.abilities if x.name.lower() == attack.lower()), None)
    chk: Check
    if spell is not None:
        sk = a.skill(spell.skill) if spell.skill else None
        chk = MagicAttack(attack=dmg.spell_attack_modifier(a, sk), resist=dmg.magic_resist_modifier(d))
    elif attack == "missile":
        w = a.equipment.missile
        if w is None:
            raise CheckError(f"{a.name} has no missile weapon")
        sk = a.skill(w.skill) if w.skill else None
        chk = MissileAttack(
            attack=dmg.missile_attack_modifier(w, sk.rank if sk else 0, aim),
            defence=dmg.missile_defence_modifier(d, distance, hr),
        )
    else:
        kinds = [k for k, _ in melee_options(a, hr)]
        if attack not in kinds:
            raise CheckError(f"{a.name} cannot make a {attack!r} attack", hint="choose one of " + ", ".join(kinds))
        at, _ = at_pa(a, hr)
        _, pa = at_pa(d, hr)
        chk = MeleeAttack(at=at + dmg.attack_penalty(attack), pa=pa, parry=not no_parry)
    emit_odds(SYSTEM.odds(chk, hr), as_json)


@app.command("damage")
def damage_cmd(
    weapon: Annotated[str, typer.Option("--weapon", help="T/S/C damage, e.g. 10/14/17; omit for unarmed.")] = "",
    strength: Annotated[int, typer.Option("--str", help="The wielder's STR.")] = 0,
    rank: Annotated[int, typer.Option("--rank", help="Weapon (or Unarmed) skill rank.")] = 0,
    two_handed: Annotated[bool, typer.Option("--two-handed")] = False,
    house_rules: HouseRulesOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Damage of each melee attack type for a weapon and STR (the scheme follows the house rules)."""
    hr = _hr(house_rules)
    rows: list[dict[str, object]] = []
    lmh = hr.melee_damage == "light_medium_heavy"
    if two_handed and not (weapon and lmh):
        raise CheckError(
            "--two-handed applies only to a weapon under the light/medium/heavy scheme",
            hint="add --weapon and a house-rules file with melee_damage: light_medium_heavy, or drop --two-handed",
        )
    if rank and weapon and not lmh:
        raise CheckError(
            "--rank does not change thrust/slash/chop damage (only light/medium/heavy and unarmed add the rank)",
            hint="drop --rank, or use a house-rules file with melee_damage: light_medium_heavy",
        )
    if weapon:
        try:
            d = tuple(int(x) for x in weapon.split("/"))
        except ValueError:
            raise CheckError(f"--weapon takes T/S/C like 10/14/17 (got {weapon!r})") from None
        if len(d) != 3:
            raise CheckError("--weapon takes three numbers: thrust/slash/chop")
        for i, a in enumerate(
            ("light", "medium", "heavy") if hr.melee_damage == "light_medium_heavy" else ("thrust", "slash", "chop")
        ):
            e = (
                dmg.lmh_damage_expr(d[i], rank, strength, a, two_handed)
                if hr.melee_damage == "light_medium_heavy"
                else dmg.tsc_damage_expr(d, a, strength)
            )  # type: ignore[arg-type]
            rows.append({"attack": a, "damage": e, "to_hit": dmg.attack_penalty(a)})
    else:
        for a in ("punch", "kick"):
            rows.append(
                {"attack": a, "damage": dmg.unarmed_damage_expr(strength, rank, a), "to_hit": dmg.attack_penalty(a)}
            )
    if as_json:
        print_json({"attacks": rows})
        return
    for r in rows:
        console.print(f"{r['attack']:>7}: {r['damage']}  ({r['to_hit']:+d} to hit)")


def _parse_kv(values: list[str], what: str) -> dict[str, str]:
    out = {}
    for v in values:
        if "=" not in v:
            raise InputFileError(f"{what} takes NAME=VALUE (got {v!r})")
        k, val = v.split("=", 1)
        out[k.strip()] = val.strip()
    return out


TacticsOpt = Annotated[
    list[str], typer.Option("--tactics", help="NAME=auto|melee|missile|magic (NAME may be side0/side1).")
]
AttackOpt = Annotated[list[str], typer.Option("--attack", help="NAME=thrust|slash|chop|light|medium|heavy|punch|kick.")]
AimOpt = Annotated[list[str], typer.Option("--aim", help="NAME=limb|abdomen|torso|head for missiles.")]
RangeOpt = Annotated[str, typer.Option("--range", help="medium or long (missile size modifiers).")]


def _fight_options(tactics: list[str], attack: list[str], aim: list[str], distance: str) -> FightOptions:
    return _validated(
        FightOptions,
        {
            "tactics": _parse_kv(tactics, "--tactics"),
            "attack": _parse_kv(attack, "--attack"),
            "aim": _parse_kv(aim, "--aim"),
            "distance": distance,
        },
        "fight options",
    )


def _start_fight(
    sides_files: list[list[Path]], hr: PhilsysHouseRules, opts: FightOptions, allow_illegal: bool = False
) -> FightState:
    sides = [[_load(p, hr, allow_illegal) for p in side] for side in sides_files]
    names = {c.name for side in sides for c in side}
    for option, given in (("--tactics", opts.tactics), ("--attack", opts.attack), ("--aim", opts.aim)):
        for who in given:
            if who not in names and who not in ("side0", "side1"):
                raise CheckError(
                    f"{option} {who}=...: nobody called {who!r} is in this fight",
                    hint="names in the fight: " + ", ".join(sorted(names)) + " (or side0 / side1)",
                )
    return SYSTEM.combat.start(sides, house_rules=hr, options=opts)


@app.command("fight")
def fight_cmd(
    files: Annotated[
        list[Path] | None,
        typer.Argument(help="Side A's file and side B's (or side A's files, then --vs; 'A vs B' also works)."),
    ] = None,
    vs: TeamVsOpt = None,
    state_file: Annotated[
        Path | None, typer.Option("--state", help="Go on with a fight saved by 'fight --save-state FILE'.")
    ] = None,
    seed: SeedOpt = None,
    tactics: TacticsOpt = [],  # noqa: B006
    attack: AttackOpt = [],  # noqa: B006
    aim: AimOpt = [],  # noqa: B006
    distance: RangeOpt = "medium",
    rounds: Annotated[
        int | None, typer.Option("--rounds", min=1, help="Stop after this many rounds (even if the fight goes on).")
    ] = None,
    save_state: Annotated[
        Path | None,
        typer.Option(
            "--save-state", help="Write the fight state (JSON) at the end, for --state or 'forecast --state'."
        ),
    ] = None,
    house_rules: HouseRulesOpt = None,
    allow_illegal: AllowIllegalOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Run a fight (to the end, or --rounds N) with a round-by-round log; teams: A B --vs X --vs Y."""
    if state_file is not None:
        if files or vs:
            raise InputFileError("give either character files or --state, not both")
        if house_rules is not None:
            raise InputFileError("a saved fight keeps its own house rules; leave out --house-rules with --state")
        state = load_file(state_file, FightState)
        if tactics or attack or aim or distance != "medium":
            state = state.model_copy(update={"options": _fight_options(tactics, attack, aim, distance)})
        rng = make_rng(seed, f"philsys-fight-from-round-{state.round}")
    else:
        names = [str(p) for p in files or []]
        if "vs" in names and not vs:  # the old spelling: A B vs X Y
            k = names.index("vs")
            sides = [list(files or [])[:k], list(files or [])[k + 1 :]]
            if not sides[0] or not sides[1]:
                raise InputFileError("each side needs at least one character file")
        else:
            sides = split_sides(files or [], vs)
        opts = _fight_options(tactics, attack, aim, distance)
        rng = make_rng(seed, "philsys-fight")
        state = _start_fight(sides, _hr(house_rules), opts, allow_illegal)
    stop = None if rounds is None else state.round + rounds
    events = []
    while not SYSTEM.combat.is_over(state) and (stop is None or state.round < stop):
        state, evs = SYSTEM.combat.step(state, rng)
        events += evs
    if save_state is not None:
        try:
            save_state.write_text(state.model_dump_json(indent=1), encoding="utf-8")
        except OSError as exc:
            raise InputFileError(f"cannot write {save_state}: {exc.strerror}") from None
    w = SYSTEM.combat.winner(state)
    if not state.over:
        result = f"still going after {state.round} round(s)"
    else:
        result = (
            "a draw"
            if w is None
            else f"side {side_label(w)} wins (" + ", ".join(f.name for f in state.fighters if f.side == w) + ")"
        )
    emit_events(
        events,
        as_json,
        {
            "result": f"{result} (seed {rng.seed})",
            "winner": w,
            "winner_side": None if w is None else side_label(w),
            "seed": rng.seed,
            "rounds": state.round,
            "over": state.over,
            "fighters": [
                {"name": f.name, "hp": f.hp, "mp": f.mp, "tp": f.tp, "unconscious": f.unconscious, "dead": f.dead}
                for f in state.fighters
            ],
        },
    )


@app.command("forecast")
def forecast_cmd(
    files: Annotated[
        list[Path] | None, typer.Argument(help="Side A's file then side B's (or side A's files, then --vs).")
    ] = None,
    vs: SidesVsOpt = None,
    state_file: StateOpt = None,
    method: MethodOpt = "auto",
    samples: SamplesOpt = 100_000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the simulation (the same seed, the same forecast).")] = 0,
    tactics: TacticsOpt = [],  # noqa: B006
    attack: AttackOpt = [],  # noqa: B006
    aim: AimOpt = [],  # noqa: B006
    distance: RangeOpt = "medium",
    house_rules: HouseRulesOpt = None,
    plot: PlotOpt = None,
    allow_illegal: AllowIllegalOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """The odds of a whole fight: each side's chance to win, the draw, the rounds, how each fighter ends.

    Exact for a duel (one against one), simulated otherwise (teams, three or more sides). From a saved fight:
    --state FILE (see 'fight --rounds N --save-state FILE'); its house rules and tactics hold
    unless --tactics/--attack/--aim/--range are given.
    """
    check_method(method)
    if state_file is not None:
        if files or vs:
            raise InputFileError("give either character files or --state, not both")
        if house_rules is not None:
            raise InputFileError("a saved fight keeps its own house rules; leave out --house-rules with --state")
        state = load_file(state_file, FightState)
        if tactics or attack or aim or distance != "medium":
            state = state.model_copy(update={"options": _fight_options(tactics, attack, aim, distance)})
    else:
        sides = split_sides(files or [], vs)
        state = _start_fight(sides, _hr(house_rules), _fight_options(tactics, attack, aim, distance), allow_illegal)
    with forecast_progress() as progress:
        result = SYSTEM.forecast(state, method=method, samples=samples, seed=seed, progress=progress)
    emit_forecast(result, as_json, plot)


@app.command("xp")
def xp_cmd(
    file: Annotated[Path, typer.Argument(help="Character file.")],
    amount: Annotated[int, typer.Argument(help="XP awarded.")],
    out: OutOpt = None,
    in_place: InPlaceOpt = False,
    house_rules: HouseRulesOpt = None,
    allow_illegal: AllowIllegalOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Award XP and say how far the next level is (the changed character is printed; -o or --in-place saves it)."""
    if amount < 0:
        raise CheckError(f"an XP award cannot be negative (got {amount})")
    c, events = award_xp(_load(file, _hr(house_rules), allow_illegal), amount)
    _emit_change(c, events, file, out, in_place, as_json, {"xp": c.xp, "level": c.level})


def _emit_change(
    c: Character,
    events: list,
    file: Path,
    out: Path | None,
    in_place: bool,
    as_json: bool,
    summary: dict,
) -> None:
    """The log of a change, then the changed character printed or written (one JSON object with --json)."""
    if as_json:
        done = write_character(c, source=file, out=out, in_place=in_place, as_json=True)
        emit_events(events, True, {**summary, "character": c.model_dump(mode="json", exclude_defaults=True), **done})
        return
    emit_events(events, False, summary)
    write_character(c, source=file, out=out, in_place=in_place)


def _parse_new_skill(text: str) -> Skill:
    """'[k]Name', '[s]Name=INT/INT/WIS', 'Name=DEX/DEX/INT', 'magic:Name', 'melee:Name'."""
    kind, category = "normal", "other"
    if ":" in text.split("=")[0]:
        category, text = text.split(":", 1)
    if text.startswith("[k]"):
        kind, text = "knowledge", text[3:]
    elif text.startswith("[s]"):
        kind, text = "support", text[3:]
    bases = None
    if "=" in text:
        text, b = text.split("=", 1)
        bases = tuple(x.strip().upper() for x in b.split("/"))
    try:
        return Skill.model_validate({"name": text.strip(), "kind": kind, "category": category, "bases": bases})
    except Exception as exc:
        raise InputFileError(
            f"cannot read the new skill {text!r}: {exc}",
            hint="write e.g. 'Lockpicking=DEX/DEX/INT', '[k]Geography', 'magic:Ice Magic'",
        ) from None


@app.command("levelup")
def levelup_cmd(
    file: Annotated[Path, typer.Argument(help="Character file.")],
    primary: Annotated[str, typer.Option("--primary", help="Primary stat to try to raise (d100 <= 100 - stat*5).")],
    secondary: Annotated[str, typer.Option("--secondary", help="Secondary stat (d100 <= 50 - stat*5).")],
    skill: Annotated[
        list[str], typer.Option("--skill", help="A skill raise attempt (repeat; a skill twice for 2 ranks).")
    ] = [],  # noqa: B006
    learn: Annotated[
        list[str], typer.Option("--learn", help="A new skill: 'Name=DEX/DEX/INT', '[k]Name', 'magic:Name'.")
    ] = [],  # noqa: B006
    ignore_xp: Annotated[bool, typer.Option("--ignore-xp", help="The GM grants the level without XP.")] = False,
    seed: SeedOpt = None,
    out: OutOpt = None,
    in_place: InPlaceOpt = False,
    house_rules: HouseRulesOpt = None,
    allow_illegal: AllowIllegalOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Level up with every roll shown; the same --seed gives the same level-up (-o or --in-place saves it)."""
    c = _load(file, _hr(house_rules), allow_illegal)
    new_skills = [_parse_new_skill(t) for t in learn]
    attempts = list(skill) + [s.name for s in new_skills if s.name.lower() not in [x.lower() for x in skill]]
    req = _validated(
        LevelUp,
        {
            "primary": primary.upper(),
            "secondary": secondary.upper(),
            "skills": attempts,
            "new_skills": [s.model_dump() for s in new_skills],
            "ignore_xp": ignore_xp,
        },
        "level-up",
    )
    rng = make_rng(seed, "philsys-levelup")
    new, events = level_up(c, req, rng, _hr(house_rules))
    _emit_change(
        new,
        list(events),
        file,
        out,
        in_place,
        as_json,
        {"result": f"{new.name} is now level {new.level} (seed {rng.seed})", "seed": rng.seed},
    )


@app.command("revive")
def revive_cmd(
    hours_dead: Annotated[float, typer.Option("--hours-dead", help="Hours since death.")],
    modifiers: Annotated[
        int, typer.Option("--modifiers", help="Ritual/Astral/Resurrection Magic modifiers of the caster.")
    ] = 0,
    seed: SeedOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A resurrection: still possible (48 hours)? The ritual takes (4+1d6) - modifiers hours, at least 2."""
    if hours_dead < 0:
        raise CheckError(f"hours since death cannot be negative (got {hours_dead})")
    rng = make_rng(seed, "philsys-revive")
    possible = dmg.revival_possible(hours_dead)
    hours, rec = dmg.resurrection_hours(modifiers, rng)
    finished = hours_dead + hours
    in_time = possible and dmg.revival_possible(finished)
    if as_json:
        print_json(
            {"possible": possible, "ritual_hours": hours, "in_time": in_time, "roll": rec.to_json(), "seed": rng.seed}
        )
        return
    console.print(f"seed {rng.seed}", style="dim", markup=False)
    if not possible:
        console.print("More than 48 hours have passed: memories and skills are lost (a zombie is still possible).")
        return
    console.print(f"Ritual: 4 + d6 ({rec.total}) - {modifiers} = {hours} hours (at least 2).")
    console.print("Finished within 48 hours of death." if in_time else "Too slow: it would end after the 48 hours.")


@app.command("tds")
def tds_cmd(as_json: JsonOpt = False) -> None:
    """The target difficulties (TDs) for stat checks and for skill checks."""
    t = tables()
    rows = {"stat": t["stat_tds"], "skill": t["skill_tds"]}
    if as_json:
        print_json({k: {str(td): text for td, text in v.items()} for k, v in rows.items()})
        return
    for kind, ladder in rows.items():
        console.print(f"[bold]{kind} checks[/bold]")
        for td, text in ladder.items():
            console.print(f"  TD {td}: {text}")


@app.command("xp-table")
def xp_table_cmd(as_json: JsonOpt = False) -> None:
    """The XP needed for each level (the count resets after each level)."""
    rows = {lvl: xp_to_next(lvl - 1) for lvl in range(2, 21)}
    if as_json:
        print_json({"xp_to_reach": rows})
        return
    for lvl, xp in rows.items():
        console.print(f"level {lvl:>2}: {xp:>6} XP")


def _within(left: int, value: int) -> str | None:
    return None if value <= left else f"only {left} stat points are left"


def _three_numbers(raw: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in raw.split("/"))
    except ValueError:
        raise ValueError(f"{raw!r}: three whole numbers separated by /") from None


@app.command("new")
def new_cmd(
    out: OutOpt = None,
    house_rules: HouseRulesOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Build a character step by step: a wrong answer is asked again; stat and skill points are totalled as you go."""
    hr = _hr(house_rules)
    name = ask("Name", check=lambda v: None if v else "a character needs a name")
    concept = ask("Concept", default="")
    t = tables()["stats"]
    budget_stats = tables()["stat_points"]
    stats: dict[str, int] = {}
    for s in STAT_NAMES:
        left = budget_stats - sum(stats.values())
        v = ask_int(
            f"{t[s]['name']} ({s}, {t[s]['min']:+d}..{t[s]['max']:+d}; {left} points left)",
            default=0,
            lo=t[s]["min"],
            hi=t[s]["max"],
            check=partial(_within, left),
        )
        stats[s] = v
    say(f"stats spend {sum(stats.values())} of {budget_stats} points")
    c = Character(name=name, concept=concept, stats=Stats(**stats))
    skills: list[Skill] = []
    while True:
        spent = skill_points_spent(c.model_copy(update={"skills": skills}))
        budget = skill_points(c)
        sname = ask(
            f"Skill name ({float(spent):g}/{budget} points spent; empty to finish)", default="", show_default=False
        )
        if not sname:
            break
        kind = ask_choice("  kind (normal, knowledge, support)", ["normal", "knowledge", "support"], default="normal")
        category = ask_choice(
            "  category (melee, missile, unarmed, magic, other)",
            ["melee", "missile", "unarmed", "magic", "other"],
            default="other",
        )
        bases = None
        if kind != "knowledge" and category not in ("melee", "unarmed", "magic"):
            bases = ask(
                "  three bases, e.g. DEX/DEX/INT",
                lambda raw: [x.strip().upper() for x in raw.split("/")],
                check=lambda b: (
                    None
                    if len(b) == 3 and all(x in STAT_NAMES for x in b)
                    else "three of " + ", ".join(STAT_NAMES) + " separated by /"
                ),
            )
        rank = ask_int("  rank (1..4 at first level)", default=1, lo=0, hi=4)
        try:
            sk = Skill.model_validate({"name": sname, "kind": kind, "category": category, "bases": bases, "rank": rank})
        except ValidationError as exc:
            say(f"  not a skill: {_explain(exc, 'skill')} (try again)")
            continue
        trial = [*skills, sk]
        now = skill_points_spent(c.model_copy(update={"skills": trial}))
        if now > budget:
            say(f"  {sname} would spend {float(now):g} of {budget} skill points (try again)")
            continue
        skills = trial
    c = c.model_copy(update={"skills": skills})
    equipment: dict[str, object] = {}
    wname = ask("Melee weapon (empty for none)", default="", show_default=False)
    if wname:
        dmg_t = ask(
            "  damage as Thrust/Slash/Chop, e.g. 10/14/17",
            _three_numbers,
            check=lambda d: None if len(d) == 3 and min(d) >= 0 else "three whole numbers separated by /",
        )
        wskill = ask("  weapon skill", default=next((x.name for x in skills if x.category == "melee"), ""))
        equipment["weapon"] = {"name": wname, "damage": dmg_t, "skill": wskill}
    aname = ask("Armour (empty for none)", default="", show_default=False)
    if aname:
        equipment["armor"] = {"name": aname, "ac": ask_int("  AC", default=0, lo=0, hi=20)}
    if equipment:
        c = Character.model_validate({**c.model_dump(), "equipment": equipment})
    finish_new(SYSTEM, c, hr, out, as_json)


def _explain(exc: ValidationError, what: str) -> str:
    """A pydantic error as one line per bad value."""
    parts = [f"{'.'.join(str(x) for x in e['loc']) or what}: {e['msg']}" for e in exc.errors()]
    return f"bad {what}: " + "; ".join(parts)
