"""`storymaster fuzzy ...`: A Loose and Fuzzy Game System on the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
import yaml
from rich.table import Table

from ...errors import CharacterError, CheckError, InputFileError, Problem
from ...rules import Outcome, load_document, side_label, validate_data
from ...systems.fuzzy import SYSTEM
from ...systems.fuzzy.advancement import (
    Award,
    BuyLuck,
    BuyOffUnluck,
    LowerDisability,
    NewAbility,
    NewDisability,
    RaiseAbility,
    RaiseDisability,
    RaiseUnluck,
    ReduceLuck,
    buy_cost,
    lower_disability_cost,
    new_disability_award,
    raise_cost,
)
from ...systems.fuzzy.character import (
    REQUIRED,
    Ability,
    Disability,
    FuzzyCharacter,
    RequiredAbilities,
    ability_karma_cost,
    dice_for,
    find_ability,
    is_disability,
    karma,
)
from ...systems.fuzzy.checks import AbilityCheck, ContestCheck, KarmaRoll, Lottery, Side, target_number
from ...systems.fuzzy.combat import CombatTactics, FightState, Manoeuvre, defence_total, harm_level, with_tactics
from ...systems.fuzzy.options import FuzzyHouseRules
from ...systems.fuzzy.tables import difficulties, discworld_body, fit_modifiers
from ..changes import change_commands
from ..characters import load_character
from ..checks import CheckCommands, add_check_commands
from ..common import (
    HouseRulesOpt,
    JsonOpt,
    SeedOpt,
    emit_events,
    emit_odds,
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
from ..prompts import ask, ask_int, ask_yes, say
from ..shared import finish_new, system_app
from ..vocab import AllowIllegalOpt, TeamVsOpt

__all__ = ["app"]

app = system_app(
    SYSTEM,
    help="A Loose and Fuzzy Game System: Nd6 abilities, criticals, Luck and Unluck, experience, "
    "Advantage Point combat.",
)
xp_app = typer.Typer(
    help="Experience: awards and what they buy (the changed character is printed; -o or --in-place saves it).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(xp_app, name="xp")

CharFile = Annotated[Path, typer.Argument(help="A character file (YAML or JSON).")]
OutOpt = Annotated[
    Path | None,
    typer.Option("--out", "-o", "--output", help="Write the changed character to this file (default: print it)."),
]
TargetHelp = "The difficulty: a target number or easy/average/hard/'really hard'/nigh-impossible."
ApprovedOpt = Annotated[bool | None, typer.Option("--gm-approved/--gm-veto", help="The GM's approval, or veto.")]
FitOpt = Annotated[
    str, typer.Option("--fit", help="How well the Ability fits the task: fits, 'not quite' (+1), barely (+2).")
]


def _house(path: Path | None) -> FuzzyHouseRules:
    return load_house_rules(path, SYSTEM)  # type: ignore[return-value]


def _character(path: Path, house: FuzzyHouseRules | None = None, allow_illegal: bool = False) -> FuzzyCharacter:
    """A character file, refused like 'sheet' refuses it unless --allow-illegal."""
    return load_character(SYSTEM, path, house, allow_illegal=allow_illegal)  # type: ignore[no-any-return]


def _fit(value: str) -> str:
    key = " ".join(value.lower().replace("-", " ").replace("_", " ").split())
    if key not in fit_modifiers():
        raise CheckError(f"unknown --fit {value!r}", hint=f"use one of: {', '.join(fit_modifiers())}")
    return key


def _target(value: str) -> int | str:
    raw = value.strip()
    if raw.lstrip("+-").isdigit():
        n = int(raw)
        if n < 1:
            raise CheckError(
                f"a target number is 1 or more, not {n}", hint="the easiest named difficulty is 'easy' (4)"
            )
        return n
    text = " ".join(raw.lower().replace("_", " ").replace("-", " ").split())
    text = "nigh-impossible" if text == "nigh impossible" else text
    if text not in difficulties():
        raise CheckError(f"unknown target {value!r}", hint=f"give a number or one of: {', '.join(difficulties())}")
    return text


def _check(build: Any, **kwargs: Any) -> Any:
    """Build a check model; turn a validation error into a clear CheckError."""
    from pydantic import ValidationError

    try:
        return build(**kwargs)
    except ValidationError as exc:
        msgs = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise CheckError(msgs) from None


def _dump(character: FuzzyCharacter) -> str:
    data = character.model_dump(mode="json", exclude_defaults=True)
    data = {"system": "fuzzy", **data}
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def emit_outcome(outcome: Outcome, as_json: bool) -> None:
    """An outcome: the result, each roll, and the explanation (wrapped, never cut off)."""
    if as_json:
        print_json(outcome.to_json())
        return
    margin = f" (margin {outcome.margin:+d})" if outcome.margin is not None else ""
    console.rule(outcome.check)
    console.print(f"[bold]{outcome.result}[/bold]{margin}")
    for r in outcome.rolls:
        console.print(f"  {r.label + ': ' if r.label else ''}{r.detail}", markup=False)
    console.print(outcome.explanation, markup=False, soft_wrap=False)
    if outcome.rolls:
        console.print(f"seed {outcome.rolls[0].seed}", style="dim", markup=False)


# -- sheet, schema, new -----------------------------------------------------------------------------


def _running(c: FuzzyCharacter, house: FuzzyHouseRules) -> str:
    k = karma(c, house)
    return f"[karma {k.total} of baseline {k.baseline}: Luck {k.luck}, Unluck {k.unluck}]"


def _rating(name: str, *, default: int) -> int:
    return ask_int(f"{name} rating (1-5; more costs karma)", default=default, lo=1, hi=100)


@app.command("new")
def new_cmd(
    output: OutOpt = None,
    house_rules: HouseRulesOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Build a character step by step: the karma running total (Luck and Unluck) is shown as you go, and a
    wrong answer is asked again."""
    house = _house(house_rules)
    name = ask("Name", check=lambda v: None if v else "a character needs a name")
    concept = ask("Concept (a phrase)", default="", show_default=False)
    c = _entry(FuzzyCharacter, name=name, concept=concept)
    say(f"Baseline {house.baseline}: two dice in each required Ability plus {house.baseline - 10} more to play with.")
    values: dict[str, int] = {}
    for n in REQUIRED:
        values[n] = ask_int(f"{n.capitalize()} (1-5)", default=2, lo=1, hi=100)
        c = c.model_copy(update={"required": RequiredAbilities(**{**c.required.model_dump(), **values})})
        say(_running(c, house))
    say("Special Abilities: pick two or three (an empty name ends the list).")
    while True:
        an = ask("Ability name", default="", show_default=False)
        if not an:
            break
        rating = _rating(an, default=2)
        big = ask_yes(f"Is {an} a huge magic power (one big thing per die)?", default=False)
        powers: list[str] = []
        if big:
            for i in range(rating + house.big_magic_extra_powers):
                p = ask(f"  power {i + 1}", default="", show_default=False)
                if not p:
                    break
                powers.append(p)
        try:
            ability = _entry(Ability, name=an, rating=rating, big_magic=big, powers=tuple(powers))
        except CharacterError as exc:
            say(f"  {exc} (try again)")
            continue
        c = c.model_copy(update={"abilities": (*c.abilities, ability)})
        say(_running(c, house))
    say("Disabilities (an empty name ends the list).")
    while True:
        dn = ask("Disability name", default="", show_default=False)
        if not dn:
            break
        rating = _rating(dn, default=1)
        hinders = (
            ask(
                f"Does {dn} count against an Ability (like Clumsy against Body)? Name it or leave empty",
                default="",
                show_default=False,
            )
            or None
        )
        try:
            disability = _entry(Disability, name=dn, rating=rating, hinders=hinders)
        except CharacterError as exc:
            say(f"  {exc} (try again)")
            continue
        c = c.model_copy(update={"disabilities": (*c.disabilities, disability)})
        say(_running(c, house))
    known = [*REQUIRED, *(a.name for a in c.abilities)]
    fight = ask(
        "Ability used in fights",
        default="body",
        check=lambda v: None if v.lower() in [k.lower() for k in known] else "one of: " + ", ".join(known),
    )
    c = c.model_copy(update={"combat": c.combat.model_copy(update={"ability": fight})})
    finish_new(SYSTEM, c, house, output, as_json, document=_document(c))


def _rating_ok(name: str, rating: int) -> None:
    if not 1 <= rating <= 100:
        raise CharacterError(
            [Problem(name, f"rated {rating}; ratings run from 1 (5 is spectacular; higher costs karma)", "The Basics")]
        )


def _entry(model: Any, **kwargs: Any) -> Any:
    """Build one part of a character from prompted answers; a bad answer is a CharacterError, not a crash."""
    from pydantic import ValidationError

    try:
        return model(**kwargs)
    except ValidationError as exc:
        where = kwargs.get("name", model.__name__)
        raise CharacterError(
            [Problem(str(where), f"{'.'.join(map(str, e['loc']))}: {e['msg']}") for e in exc.errors()]
        ) from None


# -- odds and rolls ------------------------------------------------------------------------------------


def _roll_check(
    house: FuzzyHouseRules,
    dice: int | None,
    character: FuzzyCharacter | None,
    ability: str | None,
    hindered: bool,
) -> tuple[int, int, str, int | None, bool]:
    if character is None and hindered:
        raise CheckError("--hindered reads the character's Disabilities: give -c/--character FILE")
    if character is not None:
        if dice is not None:
            raise CheckError("give either --dice N or -c/--character FILE --ability NAME, not both")
        c = character  # loaded and validated by the shared command
        if not ability:
            raise CheckError("--ability is needed with --character", hint="e.g. --ability Swordsman")
        n, pen = dice_for(c, ability, hindered=hindered, house=house)
        shown, _ = find_ability(c, ability, house)
        return n, pen, shown, karma(c, house).unluck, is_disability(c, ability)
    if dice is None:
        raise CheckError("give --dice N, or --character FILE --ability NAME")
    return dice, 0, ability or "", None, False


def _check_from_options(
    hr: FuzzyHouseRules,
    character: FuzzyCharacter | None,
    dice: Annotated[int | None, typer.Option("--dice", "-d", help="Dice rolled (the Ability's rating).")] = None,
    ability: Annotated[str | None, typer.Option("--ability", "-a", help="Which Ability (with --character).")] = None,
    hindered: Annotated[
        bool, typer.Option("--hindered", help="The task is one a Disability counts against (Clumsy and Body).")
    ] = False,
    difficulty: Annotated[str | None, typer.Option("--difficulty", "-t", "--target", help=TargetHelp)] = None,
    against: Annotated[
        int | None, typer.Option("--against", help="Instead of a target: the opposing Ability's dice (a contest).")
    ] = None,
    fit: FitOpt = "fits",
    modifier: Annotated[int, typer.Option("--modifier", "-m", help="Added to the roll.")] = 0,
    against_modifier: Annotated[int, typer.Option("--against-modifier", help="Added to the opposing roll.")] = 0,
    penalty: Annotated[
        int, typer.Option("--penalty", help="Dice lost to wounds, Clumsy, several opponents (never below 1).")
    ] = 0,
    narrower: Annotated[
        int, typer.Option("--narrower", help="Lower the target this much for a narrower skill (GM's call).")
    ] = 0,
) -> Any:
    """An Ability roll from the book's options: against a difficulty, or a contest (--against)."""
    if penalty < 0 or narrower < 0:
        raise CheckError(f"--penalty and --narrower are 0 or more (not {min(penalty, narrower)})")
    n, pen, name, unluck, disability = _roll_check(hr, dice, character, ability, hindered)
    if (difficulty is None) == (against is None):
        raise CheckError(
            "give either --difficulty or --against", hint="--difficulty 11 for a task, --against 3 for a contest"
        )
    if against is None and against_modifier:
        raise CheckError("--against-modifier is the opposing roll's: it goes with --against")
    if against is not None and (fit != "fits" or narrower):
        raise CheckError("--fit and --narrower adjust a task's difficulty; a contest (--against) has none")
    if against is not None:
        return _check(
            ContestCheck,
            first=_check(Side, name=name or "roller", dice=n, modifier=modifier, penalty_dice=pen + penalty),
            second=_check(Side, name="opponent", dice=against, modifier=against_modifier),
        )
    return _check(
        AbilityCheck,
        ability=name,
        dice=n,
        target=_target(difficulty or ""),
        fit=_fit(fit),
        roll_modifier=modifier,
        penalty_dice=pen + penalty,
        narrower_skill=narrower,
        unluck_dice=unluck,
        disability=disability,
    )


def _odds_json(check: Any, odds: Any, house: FuzzyHouseRules, out: dict[str, Any]) -> dict[str, Any]:
    """The bonus die's capped tail and the target number, beside the odds."""
    out["truncated"] = float(odds.truncated)
    out["exact"]["truncated"] = f"{odds.truncated.numerator}/{odds.truncated.denominator}"
    out["bonus_die_max_explosions"] = house.critical_bonus_max_explosions
    if isinstance(check, AbilityCheck):
        out["target"] = target_number(check)
    return out


# `check`, the book's `roll`, and `odds`: the shared commands (cli/checks.py), with the book's options
add_check_commands(
    app,
    SYSTEM,
    CheckCommands(
        build=_check_from_options,
        verb="roll",
        stream="fuzzy-roll",
        show=lambda check, outcome, hr, as_json: emit_outcome(outcome, as_json),
        odds_json=_odds_json,
        difficulty_of=_target,
        check_help="Roll an Ability against a difficulty (or a contest) and explain how the dice made the result.",
        odds_help="Exact odds before rolling: success, criticals (both coloured dice), the bonus die's capped tail.",
    ),
)


@app.command("contest")
def contest_cmd(
    first: Annotated[str, typer.Argument(help="NAME:DICE[+MOD], e.g. Achmed:4+2")],
    second: Annotated[str, typer.Argument(help="NAME:DICE[+MOD], e.g. Sven:4-1")],
    seed: SeedOpt = None,
    house_rules: HouseRulesOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Pit two Abilities against each other: the higher score wins (ties by the house rules)."""
    house = _house(house_rules)
    check = _check(ContestCheck, first=_side(first), second=_side(second))
    emit_outcome(SYSTEM.resolve(check, make_rng(seed, "fuzzy-contest"), house), as_json)


def _side(text: str) -> Side:
    name, sep, rest = text.rpartition(":")
    if not sep or not name:
        raise CheckError(f"{text!r} is not NAME:DICE", hint="e.g. Achmed:4 or Achmed:4+2")
    mod = 0
    for sign in ("+", "-"):
        if sign in rest:
            d, _, m = rest.partition(sign)
            rest, mod = d, int(m) * (1 if sign == "+" else -1) if m.isdigit() else _bad(text)
            break
    if not rest.isdigit():
        _bad(text)
    return _check(Side, name=name, dice=int(rest), modifier=mod)


def _bad(text: str) -> int:
    raise CheckError(f"{text!r} is not NAME:DICE[+MOD]", hint="e.g. Achmed:4+2")


@app.command("luck")
def luck_cmd(
    character: CharFile,
    unluck: Annotated[bool, typer.Option("--unluck", help="Roll Unluck instead of Luck.")] = False,
    target: Annotated[
        int | None, typer.Option("--target", "-t", help="Does the random thing happen? (omit: how good or bad?)")
    ] = None,
    seed: SeedOpt = None,
    house_rules: HouseRulesOpt = None,
    allow_illegal: AllowIllegalOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Roll a character's Luck (or Unluck): against a target, or open to see how good (or bad)."""
    house = _house(house_rules)
    c = _character(character, house, allow_illegal)
    k = karma(c, house)
    dice = k.unluck if unluck else k.luck
    if dice < 1:
        raise CheckError(f"{c.name} has no {'Unluck' if unluck else 'Luck'} dice to roll")
    if target is not None and target < 1:
        raise CheckError(f"a target number is 1 or more, not {target}")
    check = _check(KarmaRoll, kind="unluck" if unluck else "luck", dice=dice, target=target)
    emit_outcome(SYSTEM.resolve(check, make_rng(seed, "fuzzy-luck"), house), as_json)


@app.command("lottery")
def lottery_cmd(
    characters: Annotated[list[Path], typer.Argument(help="Two or more character files.")],
    unluck: Annotated[bool, typer.Option("--unluck", help="A bad thing: everyone rolls Unluck.")] = False,
    odds: Annotated[bool, typer.Option("--odds", help="Show each one's exact chance instead of rolling.")] = False,
    seed: SeedOpt = None,
    house_rules: HouseRulesOpt = None,
    allow_illegal: AllowIllegalOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """The lottery: everybody rolls Luck (or Unluck); it happens to whoever rolls highest."""
    house = _house(house_rules)
    entrants: dict[str, int] = {}
    for p in characters:
        c = _character(p, house, allow_illegal)
        k = karma(c, house)
        n = k.unluck if unluck else k.luck
        if c.name in entrants:
            raise CheckError(f"{c.name} is entered twice")
        entrants[c.name] = max(n, 1)
    check = _check(Lottery, kind="unluck" if unluck else "luck", entrants=entrants)
    if odds:
        emit_odds(SYSTEM.odds(check, house), as_json)
        return
    emit_outcome(SYSTEM.resolve(check, make_rng(seed, "fuzzy-lottery"), house), as_json)


@app.command("difficulties")
def difficulties_cmd(as_json: JsonOpt = False) -> None:
    """The difficulty table and the ability-fit modifiers."""
    rows = difficulties()
    if as_json:
        print_json({"difficulties": rows, "fit": fit_modifiers()})
        return
    t = Table(show_edge=False)
    t.add_column("task")
    t.add_column("target", justify="right")
    for k, v in rows.items():
        t.add_row(k, str(v))
    console.print(t)
    console.print("Ability that doesn't quite fit: +1 to the target; only barely relates: +2.")


@app.command("guide")
def guide_cmd(as_json: JsonOpt = False) -> None:
    """The Discworld Body guide by species (optional setting data)."""
    g = discworld_body()
    if as_json:
        print_json({"body_guide": g})
        return
    for level, row in g.items():
        kinds = ", ".join(f"{q} {k}" for k, q in row["kinds"])
        ex = f" (e.g. {', '.join(row['examples'])})" if row["examples"] else ""
        console.print(f"Body {level}: {kinds}{ex}")


@app.command("harm")
def harm_cmd(
    points: Annotated[int, typer.Option("--points", "-p", help="Advantage Points spent on harm.")],
    defence: Annotated[int, typer.Option("--defence", "-d", help="The target's Defence Total (at least 1).")],
    as_json: JsonOpt = False,
) -> None:
    """What spending Advantage Points against a Defence Total does (1x moderate ... 4x killed)."""
    if defence < 1:
        raise CheckError(
            f"a Defence Total is never below 1 (got {defence})", hint="'No Defense total can be less than 1'"
        )
    if points < 0:
        raise CheckError("Advantage Points spent are 0 or more")
    level = harm_level(points, defence)
    thresholds = {name: m * defence for name, m in (("moderate", 1), ("serious", 2), ("mortal", 3), ("killed", 4))}
    if as_json:
        print_json({"points": points, "defence": defence, "level": level, "thresholds": thresholds})
        return
    console.print(f"{points} points against Defence Total {defence}: [bold]{level}[/bold]")
    console.print("  " + ", ".join(f"{k} at {v}" for k, v in thresholds.items()))


# -- fights ----------------------------------------------------------------------------------------


def _tactics(stance: str, harm_at: str, intent: str, appropriate: int, manoeuvres: list[str]) -> CombatTactics:
    mans = []
    for m in manoeuvres:
        name, _, cost = m.partition(":")
        if cost and not cost.isdigit():
            raise CheckError(f"manoeuvre {m!r}: write NAME or NAME:COST")
        mans.append(Manoeuvre(name=name, cost=int(cost) if cost else 2))
    return _check(
        CombatTactics,
        stance=stance,
        harm_at=harm_at,
        intent=intent,
        appropriateness=appropriate,
        manoeuvres=tuple(mans),
    )


@app.command("fight")
def fight_cmd(
    files: Annotated[
        list[Path] | None, typer.Argument(help="Two character files (one a side), or side A's files with --vs.")
    ] = None,
    vs: TeamVsOpt = None,
    state_file: Annotated[
        Path | None, typer.Option("--state", help="Go on with a fight saved by 'fight --save-state FILE'.")
    ] = None,
    with_a: Annotated[list[Path] | None, typer.Option("--with-a", help="More on side A (old spelling).")] = None,
    with_b: Annotated[list[Path] | None, typer.Option("--with-b", help="More on side B (old spelling).")] = None,
    stance_a: Annotated[
        str, typer.Option(help="normal, offensive, defensive, 'all-out attack', 'all-out defence'.")
    ] = "normal",
    stance_b: Annotated[str, typer.Option(help="As --stance-a, for the second side.")] = "normal",
    harm_a: Annotated[
        str, typer.Option(help="Spend on harm once points reach: moderate, serious, mortal, killed.")
    ] = "moderate",
    harm_b: Annotated[str, typer.Option(help="As --harm-a, for the second side.")] = "moderate",
    intent_a: Annotated[str, typer.Option(help="lethal or non-lethal.")] = "lethal",
    intent_b: Annotated[str, typer.Option(help="lethal or non-lethal.")] = "lethal",
    appropriate_a: Annotated[int, typer.Option(help="GM's +1/+2: the first side's Ability is more appropriate.")] = 0,
    appropriate_b: Annotated[int, typer.Option(help="GM's +1/+2 for the second side.")] = 0,
    manoeuvre_a: Annotated[list[str] | None, typer.Option(help="A manoeuvre to buy, NAME[:COST] (repeatable).")] = None,
    manoeuvre_b: Annotated[list[str] | None, typer.Option(help="A manoeuvre to buy, NAME[:COST] (repeatable).")] = None,
    rounds: Annotated[
        int | None, typer.Option("--rounds", min=1, help="Play at most this many rounds (stop mid-fight).")
    ] = None,
    save_state: Annotated[
        Path | None, typer.Option("--save-state", help="Write the fight state (JSON) here, e.g. to forecast from it.")
    ] = None,
    seed: SeedOpt = None,
    house_rules: HouseRulesOpt = None,
    allow_illegal: AllowIllegalOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Run a fight round by round: contested rolls, Advantage Points, wounds and Tenacity tests."""
    tactics = [
        _tactics(stance_a, harm_a, intent_a, appropriate_a, manoeuvre_a or []),
        _tactics(stance_b, harm_b, intent_b, appropriate_b, manoeuvre_b or []),
    ]
    if state_file is not None:
        if files or vs or with_a or with_b:
            raise InputFileError("give either --state or character files, not both")
        if house_rules is not None:
            raise InputFileError("a saved fight keeps its own house rules", hint="leave out --house-rules with --state")
        state = _load_state(state_file)
        rng = make_rng(seed, f"fuzzy-fight-from-round-{state.round}")
    else:
        house = _house(house_rules)
        if with_a or with_b:  # the old spelling: A B --with-a C --with-b D
            if vs or len(files or []) != 2:
                raise InputFileError("with --with-a/--with-b give exactly two files and no --vs (use --vs instead)")
            paths = [[files[0], *(with_a or [])], [files[1], *(with_b or [])]]  # type: ignore[index]
        else:
            paths = split_sides(files or [], vs)
        sides = [[_character(p, house, allow_illegal) for p in side] for side in paths]
        rng = make_rng(seed, "fuzzy-fight")
        state = SYSTEM.combat.start(sides, house_rules=house, options={"tactics": tactics})
    if rounds is None:
        state, events = SYSTEM.combat.run(state, rng)
    else:
        events = []
        stop = state.round + rounds
        while not state.over and state.round < stop:
            state, ev = SYSTEM.combat.step(state, rng)
            events += ev
    if save_state is not None:
        try:
            save_state.write_text(state.model_dump_json(indent=1), encoding="utf-8")
        except OSError as exc:
            raise InputFileError(f"{save_state}: cannot write the fight state ({exc.strerror or exc})") from None
    result = state.reason if state.over else f"stopped after round {state.round}; the fight goes on"
    summary = {
        "result": f"after {state.round} rounds: {result}",
        "winner": state.winner,
        "winner_side": None if state.winner is None else side_label(state.winner),
        "rounds": state.round,
        "seed": rng.seed,
        "state": state.model_dump(mode="json"),
    }
    emit_events(events, as_json, summary)
    if not as_json:
        for f in state.fighters:
            wounds = ", ".join(f"{w.level} wound" for w in f.wounds) or ("unhurt" if f.status != "dead" else "")
            extra = " (dying)" if f.dying else " (knocked out)" if f.knocked_out else ""
            console.print(f"  {f.key}: {f.status}{extra}" + (f"; {wounds}" if wounds else ""))
        if save_state is not None:
            console.print(
                f"state saved to {save_state} (forecast from it with 'forecast --state {save_state}')", markup=False
            )
        console.print(f"seed {rng.seed}", style="dim")


_SIDE_OPTS = ("stance", "harm_at", "intent", "appropriateness", "manoeuvres")


def _side_tactics(
    stance: str | None, harm: str | None, intent: str | None, appropriate: int | None, manoeuvres: list[str] | None
) -> dict[str, Any]:
    """The tactics options given for one side (None where not given)."""
    base = _tactics(stance or "normal", harm or "moderate", intent or "lethal", appropriate or 0, manoeuvres or [])
    given = (stance, harm, intent, appropriate, manoeuvres)
    return {k: getattr(base, k) for k, v in zip(_SIDE_OPTS, given, strict=True) if v is not None}


def _load_state(path: Path) -> FightState:
    """A saved fight: the JSON from 'fight --save-state', or the whole 'fight --json' output."""
    data = load_document(path)
    if isinstance(data, dict) and "state" in data and "fighters" not in data:
        data = data["state"]
    return validate_data(data, FightState, source=str(path))


@app.command("forecast")
def forecast_cmd(
    files: Annotated[
        list[Path] | None, typer.Argument(help="Two character files (one a side), or side A's files with --vs.")
    ] = None,
    vs: TeamVsOpt = None,
    state_file: StateOpt = None,
    stance_a: Annotated[
        str | None,
        typer.Option(help="Side A's stance: normal, offensive, defensive, 'all-out attack', 'all-out defence'."),
    ] = None,
    stance_b: Annotated[str | None, typer.Option(help="As --stance-a, for side B.")] = None,
    harm_a: Annotated[
        str | None, typer.Option(help="Side A spends on harm once points reach: moderate, serious, mortal, killed.")
    ] = None,
    harm_b: Annotated[str | None, typer.Option(help="As --harm-a, for side B.")] = None,
    intent_a: Annotated[str | None, typer.Option(help="lethal or non-lethal.")] = None,
    intent_b: Annotated[str | None, typer.Option(help="lethal or non-lethal.")] = None,
    appropriate_a: Annotated[int | None, typer.Option(help="GM's +1/+2: side A's Ability is more appropriate.")] = None,
    appropriate_b: Annotated[int | None, typer.Option(help="GM's +1/+2 for side B.")] = None,
    manoeuvre_a: Annotated[
        list[str] | None, typer.Option(help="A manoeuvre side A buys, NAME[:COST] (repeatable).")
    ] = None,
    manoeuvre_b: Annotated[
        list[str] | None, typer.Option(help="A manoeuvre side B buys, NAME[:COST] (repeatable).")
    ] = None,
    method: MethodOpt = "auto",
    samples: SamplesOpt = 100_000,
    seed: Annotated[
        int, typer.Option("--seed", min=0, help="Seed of the simulation (the same seed, the same forecast).")
    ] = 0,
    plot: PlotOpt = None,
    house_rules: HouseRulesOpt = None,
    allow_illegal: AllowIllegalOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """The odds of a whole fight: each side's chance to win, a draw, the rounds, how each fighter ends.

    Exact (a Markov chain) for a duel, simulated (numpy, 95% intervals) for more fighters. From the
    start (character files) or from a saved fight (--state, written by 'fight --save-state'); the
    tactics options change a saved fight's tactics from the next round on.
    """
    check_method(method)
    chosen = [
        _side_tactics(stance_a, harm_a, intent_a, appropriate_a, manoeuvre_a),
        _side_tactics(stance_b, harm_b, intent_b, appropriate_b, manoeuvre_b),
    ]
    if state_file is not None:
        if files or vs:
            raise InputFileError("give either --state or character files, not both")
        if house_rules is not None:
            raise InputFileError("a saved fight keeps its own house rules", hint="leave out --house-rules with --state")
        state = _load_state(state_file)
        for f in state.fighters:
            if chosen[f.side] and not state.over:
                state = with_tactics(state, f.key, f.tactics.model_copy(update=chosen[f.side]))
    else:
        house = _house(house_rules)
        sides = [[_character(p, house, allow_illegal) for p in side] for side in split_sides(files or [], vs)]
        tactics = [CombatTactics.model_validate(chosen[0]), CombatTactics.model_validate(chosen[1])]
        state = SYSTEM.combat.start(sides, house_rules=house, options={"tactics": tactics})
    with forecast_progress() as progress:
        result = SYSTEM.forecast(state, method=method, samples=samples, seed=seed, progress=progress)
    emit_forecast(result, as_json, plot)


@app.command("defence")
def defence_cmd(
    defender: Annotated[Path, typer.Argument(help="The defender's character file.")],
    attacker: Annotated[Path, typer.Argument(help="The attacker's character file.")],
    stance: Annotated[str, typer.Option(help="The defender's stance this round.")] = "normal",
    intent: Annotated[str, typer.Option(help="The attacker's intent: lethal or non-lethal.")] = "lethal",
    house_rules: HouseRulesOpt = None,
    allow_illegal: AllowIllegalOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """A Defence Total with every modifier listed (never below 1)."""
    house = _house(house_rules)
    st = SYSTEM.combat.start(
        [[_character(defender, house, allow_illegal)], [_character(attacker, house, allow_illegal)]],
        house_rules=house,
        options={
            "tactics": [_tactics(stance, "moderate", "lethal", 0, []), _tactics("normal", "moderate", intent, 0, [])]
        },
    )
    d, att = st.fighters
    total, mods = defence_total(d, att)
    if as_json:
        print_json(
            {
                "defence_total": total,
                "modifiers": [{"what": k, "value": v} for k, v in mods],
                "floored": sum(v for _, v in mods) < 1,
            }
        )
        return
    for k, v in mods:
        console.print(f"  {k:<45} {v:+d}")
    console.print(f"Defence Total: [bold]{total}[/bold]" + (" (never below 1)" if sum(v for _, v in mods) < 1 else ""))


# -- experience ------------------------------------------------------------------------------------------


def _document(c: FuzzyCharacter) -> dict[str, Any]:
    return {"system": "fuzzy", **c.model_dump(mode="json", exclude_defaults=True)}


def _xp_left(new: FuzzyCharacter, house: FuzzyHouseRules) -> str:
    k = karma(new, house)
    return f"{new.experience.unspent} experience points left; Luck {k.luck}, Unluck {k.unluck}."


# the commands that change a character: one definition (cli/changes.py), the book's requests here
xp = change_commands(xp_app, SYSTEM, summary=_xp_left, document=_document, out_option=OutOpt)


@xp("award")
def xp_award(
    points: Annotated[int, typer.Argument(help="Experience points (an experience point or three).")],
    reason: Annotated[str, typer.Option(help="What for.")] = "",
) -> Award:
    """Award experience points."""
    if points < 0:
        raise CheckError("an award is 0 or more points")
    return Award(points=points, reason=reason)


@xp("raise")
def xp_raise(
    ability: Annotated[str, typer.Argument(help="The Ability to raise by one.")],
    power: Annotated[str | None, typer.Option(help="For a big magic power: the new big thing.")] = None,
    gm: ApprovedOpt = None,
) -> RaiseAbility:
    """Raise a good Ability by one: 3 x its new level."""
    return RaiseAbility(ability=ability, power=power, gm_approved=gm)


@xp("new-ability")
def xp_new_ability(
    name: Annotated[str, typer.Argument()],
    rating: Annotated[int, typer.Option(min=1, help="Level to buy it at.")] = 1,
    gm: ApprovedOpt = None,
) -> NewAbility:
    """Buy a new Ability (3 x each level on the way up: 3, 9, 18, ...)."""
    return NewAbility(name=name, rating=rating, gm_approved=gm)


@xp("lower-disability")
def xp_lower(disability: Annotated[str, typer.Argument()], gm: ApprovedOpt = None) -> LowerDisability:
    """Lower a Disability by one: 3 x its old level."""
    return LowerDisability(disability=disability, gm_approved=gm)


@xp("new-disability")
def xp_new_disability(
    name: Annotated[str, typer.Argument()],
    rating: Annotated[int, typer.Option(min=1)] = 1,
    misfortune: Annotated[bool, typer.Option("--misfortune", help="Gained in play: no points.")] = False,
    hinders: Annotated[str | None, typer.Option(help="The Ability it counts against.")] = None,
    gm: ApprovedOpt = None,
) -> NewDisability:
    """Take a new Disability: voluntary ones give what buying a good Ability to that level costs."""
    return NewDisability(name=name, rating=rating, voluntary=not misfortune, hinders=hinders, gm_approved=gm)


@xp("raise-disability")
def xp_raise_disability(
    disability: Annotated[str, typer.Argument()],
    misfortune: Annotated[bool, typer.Option("--misfortune", help="Worsened in play: no points.")] = False,
    gm: ApprovedOpt = None,
) -> RaiseDisability:
    """Worsen a Disability by one: voluntary, it gives 3 x its new level."""
    return RaiseDisability(disability=disability, voluntary=not misfortune, gm_approved=gm)


@xp("luck")
def xp_luck(change: Annotated[str, typer.Argument(help="buy or reduce")], gm: ApprovedOpt = None) -> Any:
    """Buy Luck (3 x the new level) or reduce it (gaining 3 x the old level); Luck stays 1 to 5."""
    reqs = {"buy": BuyLuck, "reduce": ReduceLuck}
    if change not in reqs:
        raise CheckError(f"luck: {change!r} is not buy or reduce")
    return reqs[change](gm_approved=gm)


@xp("unluck")
def xp_unluck(change: Annotated[str, typer.Argument(help="raise or buy-off")], gm: ApprovedOpt = None) -> Any:
    """Take on Unluck (gaining 3 x the new level) or buy it off (3 x the old level), down to 1."""
    reqs = {"raise": RaiseUnluck, "buy-off": BuyOffUnluck}
    if change not in reqs:
        raise CheckError(f"unluck: {change!r} is not raise or buy-off")
    return reqs[change](gm_approved=gm)


@xp_app.command("costs")
def xp_costs(
    up_to: Annotated[int, typer.Option(min=1, max=20, help="Show levels up to this.")] = 6, as_json: JsonOpt = False
) -> None:
    """The experience cost table."""
    rows = [
        {
            "level": n,
            "raise_to": raise_cost(n),
            "buy_from_zero": buy_cost(n),
            "lower_from": lower_disability_cost(n),
            "new_disability": new_disability_award(n),
            "karma": ability_karma_cost(n),
        }
        for n in range(1, up_to + 1)
    ]
    if as_json:
        print_json({"costs": rows})
        return
    t = Table(show_edge=False)
    for h in (
        "level",
        "raise to it",
        "buy from nothing",
        "lower a Disability from it",
        "new Disability gives",
        "karma dice",
    ):
        t.add_column(h, justify="right")
    for r in rows:
        t.add_row(*(str(v) for v in r.values()))
    console.print(t)
