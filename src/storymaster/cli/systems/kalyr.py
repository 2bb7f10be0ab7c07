"""``storymaster kalyr ...``: the Kalyr RPG (chapter 3) at the table."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich.table import Table

from ...errors import CheckError, InputFileError
from ...rules import Event, side_label, validate_data
from ...systems.kalyr import SYSTEM
from ...systems.kalyr.abilities import build_roll, level_roll
from ...systems.kalyr.advancement import (
    AddKey,
    Buy,
    EndScene,
    EndSession,
    GainFudge,
    Heal,
    Purchase,
    Rest,
    SpendFudge,
    TakeWound,
    purchase_cost,
)
from ...systems.kalyr.character import (
    Character,
)
from ...systems.kalyr.checks import AbilityRoll, GroupCheck, OpenCheck, OpposedCheck, UnopposedCheck
from ...systems.kalyr.damage import simple_contest_damage
from ...systems.kalyr.data_files import table
from ...systems.kalyr.ladder import LADDER, level_name, parse_level, parse_levels
from ...systems.kalyr.wounds import severity_for_damage, severity_name
from ..changes import change_commands
from ..characters import load_character
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
from ..output import console, print_json
from ..prompts import ask, ask_choice, ask_int, say
from ..shared import finish_new, system_app
from ..vocab import AllowIllegalOpt, OutOpt, TeamVsOpt

app = system_app(
    SYSTEM, help="The Kalyr RPG (ch. 3, Playing the Game): 4dF Trait Ladder, contests, damage tracks, Fudge points."
)

Track = Literal["physical", "mental", "social"]


def _hr(path: Path | None):
    return load_house_rules(path, SYSTEM)


def _load(path: Path, hr: Any = None, allow_illegal: bool = False) -> Character:
    """A character file, refused like 'sheet' refuses it unless --allow-illegal."""
    return load_character(SYSTEM, path, hr, allow_illegal=allow_illegal)  # type: ignore[no-any-return]


def _level(text: str | None, what: str) -> int | None:
    return None if text is None else parse_level(text, what=what)


# ---- reference ---------------------------------------------------------------------------------


@app.command("ladder")
def ladder_cmd(as_json: JsonOpt = False) -> None:
    """The Trait Ladder and the 4dF odds of each shift."""
    from ...odds import distribution

    pmf = distribution("4dF").pmf()
    if as_json:
        print_json({"ladder": LADDER, "4dF": {str(k): str(v) for k, v in pmf.items()}})
        return
    t = Table(title="Trait Ladder")
    t.add_column("level")
    t.add_column("steps from Fair", justify="right")
    for name, v in LADDER.items():
        t.add_row(name, f"{v:+d}")
    console.print(t)
    console.print("4dF shift: " + ", ".join(f"{k:+d}: {v}" for k, v in pmf.items()))


@app.command("costs")
def costs_cmd(as_json: JsonOpt = False) -> None:
    """The experience-point costs of Character Advancement."""
    data = table("advancement")
    if as_json:
        print_json(data)
        return
    t = Table(title="Advancement costs")
    for h in ("purchase", "from", "to", "XP"):
        t.add_column(h)
    for r in data["purchases"]:
        t.add_row(f"{r['what']} ({r['kind']})", r["from"] or "new", r["to"], str(r["cost"]))
    t.add_row("new Key", "", "", str(data["new_key_cost"]))
    console.print(t)
    console.print(f"A new Lifepath after {data['levels_per_lifepath']} levels; one level per ability per scene.")


# ---- the sheet -------------------------------------------------------------------------------


def _ask_level(prompt: str, default: str) -> int:
    return ask(prompt, lambda text: parse_level(text, what=prompt.strip()), default=default)


@app.command("new")
def new_cmd(out: OutOpt = None, house_rules: HouseRulesOpt = None, as_json: JsonOpt = False) -> None:
    """Build a character step by step (abilities, connections, keys, gifts, lifepaths, gear); a wrong answer is
    asked again and the running totals are shown."""
    from ...rules import validate_data

    hr = _hr(house_rules)
    data: dict[str, Any] = {}
    data["name"] = ask("Name", check=lambda v: None if v else "a character needs a name")
    data["race"] = ask("Race", default="human")
    data["scale"] = ask_int("Scale (0 = human-sized)", default=0, lo=-10, hi=10)
    abilities: list[dict[str, Any]] = []
    say("Abilities (blank name to finish).")
    while True:
        name = ask("  ability", default="", show_default=False)
        if not name:
            break
        level = _ask_level("  level", "Fair")
        kind = ask_choice("  kind (mundane/psionic)", ["mundane", "psionic"], default="mundane")
        track = ask_choice(
            "  track (physical/mental/social)",
            ["physical", "mental", "social"],
            default="mental" if kind == "psionic" else "physical",
        )
        entry: dict[str, Any] = {"name": name, "level": level_name(level), "kind": kind, "track": track}
        if kind == "psionic":
            entry["power"] = ask("  power", check=lambda v: None if v else "a psionic ability names its power")
        abilities.append(entry)
        steps = sum(parse_level(a["level"]) for a in abilities)
        say(f"  -> {len(abilities)} abilities, {steps:+d} ladder steps from Fair in total")
    data["abilities"] = abilities
    powers = sorted({a["power"] for a in abilities if a.get("power")})
    if powers:
        data["powers"] = powers
    connections = []
    say("Connections (blank organisation to finish).")
    while True:
        org = ask("  organisation", default="", show_default=False)
        if not org:
            break
        connections.append({"organisation": org, "level": level_name(_ask_level("  level", "Mediocre"))})
        say(f"  -> {len(connections)} connections")
    data["connections"] = connections
    for field, label in (
        ("keys", "Key"),
        ("gifts", "Gift"),
        ("lifepaths", "Lifepath"),
        ("incompetences", "Incompetence"),
    ):
        items: list[Any] = []
        while True:
            v = ask(f"{label} (blank to finish)", default="", show_default=False)
            if not v:
                break
            items.append(v if field == "incompetences" else {"name": v})
            say(f"  -> {len(items)} {field}")
        data[field] = items
    data["weapon"] = {"name": ask("Weapon", default="unarmed")}
    if data["weapon"]["name"].lower() not in table("equipment")["weapons"]:
        data["weapon"]["damage"] = ask_int("  its damage bonus", default=0, lo=0, hi=10)
        data["weapon"]["reach"] = ask_choice(
            "  its reach (close/medium/long)", ["close", "medium", "long"], default="medium"
        )
    data["armour"] = {"name": ask("Armour", default="none")}
    if data["armour"]["name"].lower() not in table("equipment")["armour"]:
        data["armour"]["armour"] = ask_int("  its armour bonus", default=0, lo=0, hi=10)
    data["shield"] = ask_choice(
        "Shield (none/small/medium/large)", ["none", "small", "medium", "large"], default="none"
    )

    c = validate_data(data, Character, source="new character")
    finish_new(SYSTEM, c, hr, out, as_json)


# ---- checks and odds -------------------------------------------------------------------------


def _roller(
    ability: str | None,
    modifier: int,
    second: str | None,
    combine: str,
    automatic: bool,
    character: Character | None = None,
    use: str | None = None,
    equipment: str = "normal",
    situation: int = 0,
    name: str = "",
    similar: str | None = None,
    similar_penalty: int = 0,
    race: str = "same",
    rank_gap: int = 0,
    persuade: Path | None = None,
    organisation: str | None = None,
    hr: Any = None,
    allow_illegal: bool = False,
) -> tuple[AbilityRoll, list[str]]:
    if character is None:
        unused = [flag for flag, given in (("--use", use),) if given]
        if unused:
            raise CheckError(
                f"{', '.join(unused)} names a character's ability: give -c/--character FILE",
                hint="with --ability LEVEL, --equipment, --situation, --similar-penalty, --race, --rank-gap apply",
            )
    if character is not None:
        if ability is not None:
            raise CheckError("give either --ability LEVEL or -c/--character FILE --use ABILITY, not both")
        if not use:
            raise CheckError("with --character, say which ability with --use", hint="e.g. --use Stealth")
        if race != "same" or rank_gap:
            raise CheckError(
                "with --character, race and rank come from the target: give --persuade TARGET_FILE",
                hint="--race and --rank-gap are for a bare --ability",
            )
        if similar is None and similar_penalty:
            raise CheckError("--similar-penalty needs --similar ABILITY (the one used instead of --use)")
        c = character  # loaded and validated by the shared command
        r, notes = build_roll(
            c,
            use,
            similar=similar,
            similar_penalty=similar_penalty or -1,
            second=second,
            combine=combine,  # type: ignore[arg-type]
            equipment=equipment,  # type: ignore[arg-type]
            situation=situation,
            persuade=_load(persuade, hr, allow_illegal) if persuade is not None else None,
            organisation=organisation,
            extra=modifier,
            automatic=automatic,
        )
        return r, notes
    if ability is None:
        raise CheckError("give --ability LEVEL (or --character FILE --use ABILITY)", hint="e.g. --ability Good")
    if similar is not None or persuade is not None or organisation is not None:
        raise CheckError(
            "--similar, --persuade and --organisation need --character",
            hint="with a bare --ability use --similar-penalty, --race and --rank-gap",
        )
    return level_roll(
        parse_level(ability, what="--ability"),
        modifier=modifier,
        second=_level(second, "--second"),
        combine=combine,  # type: ignore[arg-type]
        automatic=automatic,
        equipment=equipment,
        situation=situation,
        similar=similar_penalty,
        race=race.replace("-", "_"),
        rank_gap=rank_gap,
        name=name,
    )


def _check(
    ability,
    modifier,
    second,
    combine,
    automatic,
    character,
    use,
    equipment,
    situation,
    difficulty,
    partial,
    vs,
    vs_modifier,
    vs_second,
    vs_combine,
    similar=None,
    similar_penalty=0,
    race="same",
    rank_gap=0,
    persuade=None,
    organisation=None,
    hr=None,
    allow_illegal=False,
):
    actor, notes = _roller(
        ability,
        modifier,
        second,
        combine,
        automatic,
        character,
        use,
        equipment,
        situation,
        "",
        similar=similar,
        similar_penalty=similar_penalty,
        race=race,
        rank_gap=rank_gap,
        persuade=persuade,
        organisation=organisation,
        hr=hr,
        allow_illegal=allow_illegal,
    )
    if vs is None and (vs_modifier or vs_second is not None or vs_combine != "best"):
        raise CheckError("--vs-modifier, --vs-second and --vs-combine describe the opponent: give --vs LEVEL")
    if partial is not None and difficulty is None:
        raise CheckError("--partial is a lower mark under --difficulty: give --difficulty too")
    if second is None and combine != "best":
        raise CheckError("--combine says how two abilities combine: give --second too")
    if vs is not None and difficulty is not None:
        raise CheckError("give either --difficulty (unopposed) or --vs (opposed), not both")
    if vs is not None:
        opp = AbilityRoll(
            ability=parse_level(vs, what="--vs"),
            modifier=vs_modifier,
            second=_level(vs_second, "--vs-second"),
            combine=vs_combine,
        )
        return OpposedCheck(actor=actor, opponent=opp), notes
    if difficulty is None:
        return OpenCheck(actor=actor), notes
    p = _level(partial, "--partial")
    d = parse_level(difficulty, what="--difficulty")
    if p is not None and p >= d:
        raise CheckError("--partial must be below --difficulty")
    return UnopposedCheck(actor=actor, difficulty=d, partial=p), notes


AbilityOpt = Annotated[str | None, typer.Option("--ability", help="Ability level on the ladder (Terrible..Superb).")]
ModOpt = Annotated[int, typer.Option("--modifier", "-m", min=-10, max=10, help="Total modifier to the ability.")]
SecondOpt = Annotated[str | None, typer.Option("--second", help="A second ability level (see --combine).")]
CombineOpt = Annotated[
    str, typer.Option("--combine", help="best: two relevant abilities; worst: two needed abilities.")
]
AutoOpt = Annotated[bool, typer.Option("--fudge-auto", help="Spend a Fudge point before rolling: automatic +2.")]
CharOpt = Annotated[
    Path | None, typer.Option("--character", "-c", help="Build the roll from this character (wounds included).")
]
UseOpt = Annotated[str | None, typer.Option("--use", help="With --character: the ability to use.")]
EquipOpt = Annotated[str, typer.Option("--equipment", help="fine (+1), normal or poor (-1).")]
SitOpt = Annotated[int, typer.Option("--situation", help="Situational modifier, -2..+2.")]
SimilarOpt = Annotated[
    str | None,
    typer.Option("--similar", help="With --character: a similar ability used in place of --use (at a penalty)."),
]
SimilarPenaltyOpt = Annotated[
    int, typer.Option("--similar-penalty", help="A similar ability in place of the one needed: -1 or -2 (GM's call).")
]
RaceOpt = Annotated[
    str, typer.Option("--race", help="Persuading: the target is of the same race, other (-1) or very-intolerant (-2).")
]
RankOpt = Annotated[
    int, typer.Option("--rank-gap", help="Persuading: levels the target's rank is above yours (-1 each; below: +1).")
]
PersuadeOpt = Annotated[
    Path | None, typer.Option("--persuade", help="With --character: the character persuaded (race and rank).")
]
OrgOpt = Annotated[str | None, typer.Option("--organisation", help="With --persuade: rank in this organisation only.")]
DiffOpt = Annotated[
    str | None, typer.Option("--difficulty", help="Unopposed: the difficulty (omit with --vs for open-ended).")
]
PartialOpt = Annotated[str | None, typer.Option("--partial", help="Unopposed: a lower mark for a partial success.")]
VsOpt = Annotated[str | None, typer.Option("--vs", help="Opposed: the opponent's ability level.")]
VsModOpt = Annotated[int, typer.Option("--vs-modifier", min=-10, max=10, help="The opponent's modifier.")]
VsSecondOpt = Annotated[str | None, typer.Option("--vs-second", help="The opponent's second ability.")]
VsCombineOpt = Annotated[str, typer.Option("--vs-combine", help="best or worst, for --vs-second.")]


def _combine(v: str) -> str:
    if v not in ("best", "worst"):
        raise CheckError(f"--combine is best or worst, not {v!r}")
    return v


def _check_from_options(
    hr: Any,
    character: Character | None,
    allow_illegal: bool,
    ability: AbilityOpt = None,
    modifier: ModOpt = 0,
    second: SecondOpt = None,
    combine: CombineOpt = "best",
    fudge_auto: AutoOpt = False,
    use: UseOpt = None,
    equipment: EquipOpt = "normal",
    situation: SitOpt = 0,
    similar: SimilarOpt = None,
    similar_penalty: SimilarPenaltyOpt = 0,
    race: RaceOpt = "same",
    rank_gap: RankOpt = 0,
    persuade: PersuadeOpt = None,
    organisation: OrgOpt = None,
    difficulty: DiffOpt = None,
    partial: PartialOpt = None,
    vs: VsOpt = None,
    vs_modifier: VsModOpt = 0,
    vs_second: VsSecondOpt = None,
    vs_combine: VsCombineOpt = "best",
) -> tuple[Any, list[str]]:
    """A check from the book's options: against a difficulty, against an opponent (--vs), or open-ended."""
    return _check(
        ability,
        modifier,
        second,
        _combine(combine),
        fudge_auto,
        character,
        use,
        equipment,
        situation,
        difficulty,
        partial,
        vs,
        vs_modifier,
        vs_second,
        _combine(vs_combine),
        similar,
        similar_penalty,
        race,
        rank_gap,
        persuade,
        organisation,
        hr,
        allow_illegal,
    )


def _retro(
    check: Any,
    outcome: Any,
    hr: Any,
    retro: Annotated[int, typer.Option("--retro", help="Fudge point after the roll: move your result +1 or -1.")] = 0,
    vs_retro: Annotated[
        int, typer.Option("--vs-retro", help="Fudge point after the roll: move the opponent's result +1 or -1.")
    ] = 0,
) -> Any:
    """A Fudge point spent after the roll (--retro, --vs-retro)."""
    if not (retro or vs_retro):
        return outcome
    opposed = isinstance(check, OpposedCheck)
    if vs_retro and not opposed:
        raise CheckError("--vs-retro needs an opposed check (--vs)")
    if retro and getattr(check.actor, "automatic", False):
        raise CheckError("an automatic +2 was not rolled: there is no roll to shift with --retro")
    from ...systems.kalyr.checks import retro_shift

    return retro_shift(check, outcome, [retro] + ([vs_retro] if opposed else []), hr)


# `check` and `odds`: the shared commands (cli/checks.py), with the book's options
add_check_commands(
    app,
    SYSTEM,
    CheckCommands(
        build=_check_from_options,
        stream="kalyr-check",
        roll_options=_retro,
        difficulty_of=lambda text: parse_level(text, what="--difficulty"),
        check_help="Roll an ability check (4dF) and explain the result; --retro spends a Fudge point on it afterwards.",
        odds_help="Exact odds before rolling: against a difficulty, against an opponent (--vs), or open-ended.",
    ),
)


def _levels(text: str, what: str) -> list[AbilityRoll]:
    return [AbilityRoll(ability=v) for v in parse_levels(text, what=what)]


@app.command("group")
def group_cmd(
    side: Annotated[str, typer.Option("--side", help="Levels of one side, comma-separated: Good,Fair,Fair")],
    vs: Annotated[str, typer.Option("--vs", help="Levels of the other side.")],
    no_outnumbering: Annotated[
        bool, typer.Option("--no-outnumbering", help="Do not apply outnumbering penalties.")
    ] = False,
    odds_only: Annotated[bool, typer.Option("--odds", help="Show exact odds instead of rolling.")] = False,
    seed: SeedOpt = None,
    house_rules: HouseRulesOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A simple group contest: best average result wins; the outnumbered side takes penalties."""
    check = GroupCheck(
        side=tuple(_levels(side, "--side")), opposition=tuple(_levels(vs, "--vs")), outnumbering=not no_outnumbering
    )
    hr = _hr(house_rules)
    if odds_only:
        emit_odds(SYSTEM.odds(check, hr), as_json)
    else:
        emit_outcome(SYSTEM.resolve(check, make_rng(seed, "kalyr-group"), hr), as_json)


@app.command("damage-calc")
def damage_calc_cmd(
    a: Annotated[Path, typer.Argument(help="First participant.")],
    b: Annotated[Path, typer.Argument(help="Second participant.")],
    a_result: Annotated[str, typer.Option("--a-result", help="A's rolled result.")],
    b_result: Annotated[str, typer.Option("--b-result", help="B's rolled result.")],
    a_approach: Annotated[
        int, typer.Option("--a-approach", min=-2, max=2, help="A: aggressive +1/+2, cautious -1/-2.")
    ] = 0,
    b_approach: Annotated[int, typer.Option("--b-approach", min=-2, max=2)] = 0,
    detailed: Annotated[
        bool,
        typer.Option("--detailed", help="A detailed-contest round: only the loser is hurt, halved (rounding up)."),
    ] = False,
    house_rules: HouseRulesOpt = None,
    allow_illegal: AllowIllegalOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Damage from a simple contest's results: margin, weapons, armour, gifts and approaches."""
    hr = _hr(house_rules)
    ca, cb = _load(a, hr, allow_illegal), _load(b, hr, allow_illegal)
    ra, rb = parse_level(a_result, what="--a-result"), parse_level(b_result, what="--b-result")
    if detailed:
        from ...systems.kalyr.damage import detailed_contest_damage

        to_a, to_b = detailed_contest_damage(
            ca,
            ra,
            cb,
            rb,
            a_approach=a_approach,
            b_approach=b_approach,
            winner_takes_damage=_hr(house_rules).detailed_winner_takes_damage,
        )
    else:
        to_a, to_b = simple_contest_damage(ca, ra, cb, rb, a_approach=a_approach, b_approach=b_approach)
    res = {
        ca.name: {"points": to_a, "wound": severity_name(severity_for_damage(to_a)) if to_a > 0 else "none"},
        cb.name: {"points": to_b, "wound": severity_name(severity_for_damage(to_b)) if to_b > 0 else "none"},
    }
    if as_json:
        print_json({"damage": res})
        return
    for who, r in res.items():
        console.print(f"{who}: {r['points']} point(s) -> {r['wound']}")


# ---- fights ----------------------------------------------------------------------------------


SAVE_STATE_HELP = "Write the fight's state as JSON at the end (mid-fight with --rounds), for 'forecast --state'."


@app.command("fight")
def fight_cmd(
    files: Annotated[
        list[Path] | None,
        typer.Argument(help="A.yaml B.yaml (one a side), or side A's characters followed by --vs for side B's."),
    ] = None,
    vs: TeamVsOpt = None,
    state_file: Annotated[
        Path | None, typer.Option("--state", help="Go on with a fight saved by 'fight --save-state FILE'.")
    ] = None,
    detailed: Annotated[bool, typer.Option("--detailed", help="Play a detailed contest round by round.")] = False,
    ally_a: Annotated[list[Path] | None, typer.Option("--ally-a", help="More on side A (old spelling).")] = None,
    ally_b: Annotated[list[Path] | None, typer.Option("--ally-b", help="More on side B (old spelling).")] = None,
    track: Annotated[str, typer.Option("--track", help="physical, mental or social.")] = "physical",
    ability_a: Annotated[
        str | None,
        typer.Option(
            "--ability-a",
            help="Side A's ability, or NAME=ABILITY,... one per ally (default: Brawling or Melee Weapons in a "
            "physical fight, by the text).",
        ),
    ] = None,
    ability_b: Annotated[str | None, typer.Option("--ability-b")] = None,
    approach_a: Annotated[
        int, typer.Option("--approach-a", min=-2, max=2, help="aggressive +1/+2, cautious -1/-2")
    ] = 0,
    approach_b: Annotated[int, typer.Option("--approach-b", min=-2, max=2)] = 0,
    stance_a: Annotated[str, typer.Option("--stance-a", help="normal, all_out_offence or all_out_defence")] = "normal",
    stance_b: Annotated[str, typer.Option("--stance-b")] = "normal",
    withdraw_a: Annotated[str | None, typer.Option("--withdraw-a", help="A admits defeat at this wound level.")] = None,
    withdraw_b: Annotated[str | None, typer.Option("--withdraw-b")] = None,
    stakes: Annotated[
        str | None, typer.Option("--stakes", help="A fixed wound for the loser (e.g. Hurt for first blood).")
    ] = None,
    on_tie: Annotated[str, typer.Option("--on-tie", help="reroll or draw (simple contests).")] = "reroll",
    ranged: Annotated[
        bool, typer.Option("--ranged", help="Missile combat (shields' ranged values, no reach).")
    ] = False,
    rounds: Annotated[
        int | None,
        typer.Option("--rounds", min=1, help="Stop after this many rounds (rolls), still going (see --save-state)."),
    ] = None,
    save_state: Annotated[
        Path | None,
        typer.Option("--save-state", help=SAVE_STATE_HELP),
    ] = None,
    seed: SeedOpt = None,
    house_rules: HouseRulesOpt = None,
    allow_illegal: AllowIllegalOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Fight a contest out: a simple contest (one roll), or --detailed round by round; teams with --vs."""
    from ...systems.kalyr.combat import FightState

    engine = SYSTEM.combat
    if state_file is not None:
        if files or vs or ally_a or ally_b:
            raise InputFileError("give either character files or --state, not both")
        if house_rules is not None:
            raise InputFileError("a saved fight keeps its own house rules; leave out --house-rules with --state")
        state = load_file(state_file, FightState)
        rng = make_rng(seed, f"kalyr-fight-from-round-{state.round}")
        start_round = state.round
    else:
        hr = _hr(house_rules)
        if ally_a or ally_b:  # the old spelling: A B --ally-a C --ally-b D
            if vs or len(files or []) != 2:
                raise InputFileError("with --ally-a/--ally-b give exactly two files and no --vs (use --vs instead)")
            paths = [[files[0], *(ally_a or [])], [files[1], *(ally_b or [])]]  # type: ignore[index]
        else:
            paths = split_sides(files or [], vs)
        sides = [[_load(p, hr, allow_illegal) for p in side] for side in paths]
        state = _start_fight(
            sides,
            detailed=detailed,
            track=track,
            abilities=(ability_a, ability_b),
            approaches=(approach_a, approach_b),
            stances=(stance_a, stance_b),
            withdraws=(withdraw_a, withdraw_b),
            stakes=stakes,
            on_tie=on_tie,
            ranged=ranged,
            house_rules=house_rules,
        )
        rng = make_rng(seed, "kalyr-fight")
        start_round = 0
    events: list[Event] = []
    played = 0
    while not engine.is_over(state) and (rounds is None or played < rounds):
        state, evs = engine.step(state, rng)
        events += evs
        played += 1
    if save_state is not None:
        try:
            save_state.write_text(state.model_dump_json(indent=2), encoding="utf-8")
        except OSError as exc:
            raise InputFileError(f"{save_state}: cannot write the fight state ({exc.strerror or exc})") from None
    del start_round
    w = engine.winner(state)
    names = [] if w is None else [f.name for f in state.sides[w]]  # type: ignore[attr-defined]
    if not engine.is_over(state):
        result = f"still going after round {state.round}"  # type: ignore[attr-defined]
    else:
        result = "draw" if w is None else f"{' and '.join(names)} win{'s' if len(names) == 1 else ''}"
    summary = {
        "result": result,
        "over": engine.is_over(state),
        "winner": w,
        "winner_side": None if w is None else side_label(w),
        "rounds": state.round,  # type: ignore[attr-defined]
        "seed": rng.seed,
        "final": [[{"name": f.name, "status": _status_text(f.character, track)} for f in s] for s in state.sides],  # type: ignore[attr-defined]
    }
    emit_events(events, as_json, summary)
    if not as_json:
        for s in state.sides:  # type: ignore[attr-defined]
            for f in s:
                console.print(
                    f"{f.name}: {_status_text(f.character, track)}, {f.character.fudge_points} Fudge point(s)"
                )
        console.print(f"seed {rng.seed}", style="dim")
        if save_state is not None:
            console.print(f"fight state written to {save_state}")


def _start_fight(
    sides,
    *,
    detailed: bool,
    track: str,
    abilities,
    approaches,
    stances,
    withdraws,
    stakes: str | None,
    on_tie: str,
    ranged: bool,
    house_rules: Path | None,
):
    """A fresh fight with one tactics mapping per side, as 'fight' and 'forecast' both build it.

    ``--ability-a`` is one ability for the whole side, or NAME=ABILITY entries (comma-separated)
    so that every ally chooses their own."""
    side_ability: list[str | None] = [None, None]
    per_fighter: dict[str, str] = {}
    for i, text in enumerate(abilities):
        if text is None or "=" not in text:
            side_ability[i] = text
            continue
        for entry in text.split(","):
            who, _, what = entry.partition("=")
            if not who.strip() or not what.strip():
                raise CheckError(
                    f"--ability-{'ab'[i]}: {entry!r} is not NAME=ABILITY",
                    hint="e.g. 'Kylar=Melee Combat,Luanu=Brawling'",
                )
            per_fighter[who.strip()] = what.strip()
    tactics = [
        {"ability": side_ability[i], "approach": approaches[i], "stance": stances[i], "withdraw_at": withdraws[i]}
        for i in (0, 1)
    ]
    options: dict[str, Any] = {
        "mode": "detailed" if detailed else "simple",
        "track": track,
        "tactics": tactics,
        "on_tie": on_tie,
        "ranged": ranged,
        "abilities": per_fighter,
    }
    if stakes is not None:
        options["stakes"] = stakes
    return SYSTEM.combat.start(sides, house_rules=_hr(house_rules), options=options)


@app.command("forecast")
def forecast_cmd(
    files: Annotated[
        list[Path] | None,
        typer.Argument(help="Two characters (A against B), or side A's characters followed by --vs for side B's."),
    ] = None,
    vs: TeamVsOpt = None,
    state_file: StateOpt = None,
    detailed: Annotated[bool, typer.Option("--detailed", help="A detailed contest, round by round (1 on 1).")] = False,
    track: Annotated[str, typer.Option("--track", help="physical, mental or social.")] = "physical",
    ability_a: Annotated[
        str | None,
        typer.Option(
            "--ability-a",
            help="Side A's ability, or NAME=ABILITY,... one per ally (default: Brawling or Melee Weapons in a "
            "physical fight, by the text).",
        ),
    ] = None,
    ability_b: Annotated[str | None, typer.Option("--ability-b")] = None,
    approach_a: Annotated[
        int, typer.Option("--approach-a", min=-2, max=2, help="aggressive +1/+2, cautious -1/-2")
    ] = 0,
    approach_b: Annotated[int, typer.Option("--approach-b", min=-2, max=2)] = 0,
    stance_a: Annotated[
        str, typer.Option("--stance-a", help="normal, all_out_offence or all_out_defence (detailed)")
    ] = "normal",
    stance_b: Annotated[str, typer.Option("--stance-b")] = "normal",
    withdraw_a: Annotated[
        str | None, typer.Option("--withdraw-a", help="Side A admits defeat at this wound level (detailed).")
    ] = None,
    withdraw_b: Annotated[str | None, typer.Option("--withdraw-b")] = None,
    stakes: Annotated[str | None, typer.Option("--stakes", help="A fixed wound for the loser (simple).")] = None,
    on_tie: Annotated[str, typer.Option("--on-tie", help="reroll or draw (simple contests).")] = "reroll",
    ranged: Annotated[bool, typer.Option("--ranged", help="Missile combat.")] = False,
    method: MethodOpt = "auto",
    samples: SamplesOpt = 100_000,
    seed: Annotated[
        int, typer.Option("--seed", min=0, help="Seed of the simulation (the same seed gives the same forecast).")
    ] = 0,
    plot: PlotOpt = None,
    house_rules: HouseRulesOpt = None,
    allow_illegal: AllowIllegalOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """The odds of a whole contest: each side's chance to win, the draw, the rounds, how each fighter ends.

    Exact (a Markov chain) for detailed contests and for simple contests of up to four fighters;
    simulated otherwise. From two character files (or two teams with --vs), or from a fight saved
    mid-way with 'fight --rounds N --save-state FILE' (then --state FILE; its tactics are kept).
    """
    from ...systems.kalyr.combat import FightState

    check_method(method)
    if state_file is not None:
        if files or vs:
            raise InputFileError("give either character files or --state, not both")
        state = load_file(state_file, FightState)
        if house_rules is not None:
            state = state.model_copy(update={"house_rules": _hr(house_rules)})
    else:
        hr = _hr(house_rules)
        sides = [[_load(p, hr, allow_illegal) for p in side] for side in split_sides(files or [], vs)]
        state = _start_fight(
            sides,
            detailed=detailed,
            track=track,
            abilities=(ability_a, ability_b),
            approaches=(approach_a, approach_b),
            stances=(stance_a, stance_b),
            withdraws=(withdraw_a, withdraw_b),
            stakes=stakes,
            on_tie=on_tie,
            ranged=ranged,
            house_rules=house_rules,
        )
    with forecast_progress() as progress:
        result = SYSTEM.forecast(state, method=method, samples=samples, seed=seed, progress=progress)
    emit_forecast(result, as_json, plot)


def _status_text(c: Character, track: str) -> str:
    st = c.damage.track(track).status  # type: ignore[arg-type]
    return f"{severity_name(st)} ({track})" if st else f"unhurt ({track})"


# ---- changing a character: one definition (cli/changes.py), the book's changes here -----------

TrackOpt = Annotated[str, typer.Option("--track", help="physical, mental or social.")]
change = change_commands(app, SYSTEM, document=lambda c: c.model_dump(mode="json"))


@change("wound")
def wound_cmd(
    character: Character,
    hr: Any,
    severity: Annotated[
        str | None, typer.Option("--severity", help="Scratch, Hurt, Very Hurt, Defeated, Destroyed.")
    ] = None,
    points: Annotated[
        int | None, typer.Option("--points", help="Damage points instead (1 Scratch, 2 Hurt, ... 5+ Destroyed).")
    ] = None,
    track: TrackOpt = "physical",
    fudge: Annotated[
        int, typer.Option("--fudge", min=0, help="Fudge points spent to reduce the wound, one level each.")
    ] = 0,
) -> tuple[Any, list[Any]]:
    """Mark a wound on a damage track (overflowing to the next open box)."""
    if (severity is None) == (points is None):
        raise CheckError("give --severity or --points (one of them)")
    sev: Any = severity if severity is not None else severity_for_damage(points or 0)
    if sev == 0:
        return character, [Event("wound", f"{points} point(s): {character.name} gets through unscathed")]
    req = validate_data({"track": track, "severity": sev, "fudge_reduce": fudge}, TakeWound, source="kalyr wound")
    new, events = SYSTEM.advance(character, req, make_rng(None), hr)
    return new, list(events)


@change("heal")
def heal_cmd(
    result: Annotated[
        str, typer.Option("--result", help="The healer's result (Good heals 1 level, Great 2, Superb 3).")
    ],
    track: TrackOpt = "physical",
    method: Annotated[str, typer.Option("--method", help="medical (days) or psionic (hours).")] = "medical",
) -> Heal:
    """Heal with a medical or psionic healing result."""
    data = {"track": track, "result": parse_level(result, what="--result"), "method": method}
    return validate_data(data, Heal, source="kalyr heal")


@change("rest")
def rest_cmd(weeks: Annotated[int, typer.Option("--weeks", min=0, help="Weeks of rest: one level each.")] = 1) -> Rest:
    """Natural healing: one wound level per week of rest."""
    return Rest(weeks=weeks)


@change("end-scene")
def end_scene_cmd() -> EndScene:
    """End of a scene: Scratches clear, and abilities may be raised again."""
    return EndScene()


@change("end-session")
def end_session_cmd(
    convert: Annotated[
        int, typer.Option("--convert", min=0, help="Unspent Fudge points to spend for XP; the rest carry over.")
    ] = 0,
) -> EndSession:
    """End of a session: carry Fudge points over, or spend them for experience."""
    return EndSession(convert=convert)


@change("fudge")
def fudge_cmd(
    action: Annotated[str, typer.Argument(help="spend or gain")],
    use: Annotated[str, typer.Option("--use", help="spend: retro, automatic, reduce_wound or story.")] = "retro",
    key: Annotated[str | None, typer.Option("--key", help="gain: the Key that came into play.")] = None,
    vetoed: Annotated[
        bool, typer.Option("--vetoed", help="spend --use story: the GM vetoed it (no point spent).")
    ] = False,
) -> Any:
    """Spend a Fudge point (earning an XP) or gain one when a Key comes into play."""
    if action == "spend":
        return validate_data({"use": use, "vetoed": vetoed}, SpendFudge, source="kalyr fudge spend")
    if action == "gain":
        if not key:
            raise CheckError("gain needs --key: the Key that came into play")
        return validate_data({"key": key}, GainFudge, source="kalyr fudge gain")
    raise CheckError(f"fudge spend or fudge gain, not {action!r}")


@change("advance")
def advance_cmd(
    character: Character,
    hr: Any,
    buy: Annotated[
        list[str],
        typer.Option("--buy", help="ability:NAME, psionic:NAME@POWER, connection:ORG or key:NAME (repeatable)."),
    ],
    track: TrackOpt = "physical",
    lifepath: Annotated[
        str, typer.Option("--lifepath", help="Name for a Lifepath earned by these levels.")
    ] = "Experience",
) -> tuple[Any, list[Any]]:
    """Spend experience at the end of a scene (costs: 'storymaster kalyr costs')."""
    purchases = []
    for item in buy:
        kind, _, name = item.partition(":")
        if not name:
            raise CheckError(
                f"--buy {item!r}: write it as ability:NAME, psionic:NAME@POWER, connection:ORG or key:NAME"
            )
        if kind == "ability":
            purchases.append(Purchase(target="ability", name=name, track=track))  # type: ignore[arg-type]
        elif kind == "psionic":
            nm, _, power = name.partition("@")
            purchases.append(Purchase(target="ability", name=nm, kind="psionic", power=power or None, track="mental"))
        elif kind == "connection":
            purchases.append(Purchase(target="connection", name=name))
        elif kind == "key":
            purchases.append(Purchase(target="key", name=name))
        else:
            raise CheckError(f"--buy {item!r}: unknown kind {kind!r}", hint="ability, psionic, connection or key")
    costs = []
    for p in purchases:
        try:
            cost, _, _ = purchase_cost(character, p)
        except Exception:  # the advance below reports it properly
            continue
        costs.append(Event("cost", f"{p.target} {p.name}: {cost} XP"))
    new, events = SYSTEM.advance(character, Buy(purchases=tuple(purchases), lifepath_name=lifepath), make_rng(None), hr)
    return new, [*costs, *events]


@change("add-key")
def add_key_cmd(
    name: Annotated[
        str, typer.Option("--name", help="The new Key (tied to the conflict that Destroyed the character).")
    ],
    kind: Annotated[str, typer.Option("--kind", help="e.g. Fear, Goal, Physical Disability.")] = "",
) -> AddKey:
    """Take the new Key owed for being Destroyed."""
    from ...systems.kalyr.character import Key

    return AddKey(key=Key(name=name, kind=kind))
