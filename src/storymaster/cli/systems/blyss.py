"""`storymaster blyss ...`: BLYSS 3.5 characters, Tests with exact odds, fights and advancement."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.table import Table

from ...errors import CheckError, InputFileError
from ...rules import side_label
from ...rules.files import validation_message
from ...systems.blyss import SYSTEM
from ...systems.blyss.advancement import AcquireNegative, AwardExperience, Deteriorate, SpendCP
from ...systems.blyss.character import (
    ATTRIBUTES,
    Attributes,
    Character,
    Trait,
    character_pool,
    cp_budget,
    cp_left,
    cp_spent,
    max_dodges,
    max_flesh_wounds,
    max_health,
    template_character,
    templates,
)
from ...systems.blyss.checks import BlyssContest, BlyssTest, CombinedTest, Pool, make_pool, pool_from_text
from ...systems.blyss.combat import FightState
from ...systems.blyss.costs import cumulative_cost, rank_cost
from ...systems.blyss.living import (
    Vitals,
    apply_damage,
    collapses,
    deprivation_penalty,
    starvation_interval,
    stay_awake_checks,
    threshold_hours,
    wound_level,
    wound_penalty,
)
from ...systems.blyss.options import BlyssHouseRules
from ...systems.blyss.scale import ability_name
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
    StateOpt,
    VsOpt,
    check_method,
    emit_forecast,
    forecast_progress,
    split_sides,
)
from ..output import console, print_json
from ..prompts import ask, ask_choice, ask_int, ask_yes, say
from ..shared import finish_new, system_app
from ..vocab import AllowIllegalOpt, CharacterOpt, OutOpt, TeamVsOpt

app = system_app(SYSTEM, help="BLYSS 3.5 Basic Rules: characters, die-pool Tests with exact odds, fights, experience.")

PoolOpt = Annotated[str | None, typer.Option("--pool", help="Die pool: statistics separated by ',' e.g. 'd12+d4,d10'.")]
RanksOpt = Annotated[str | None, typer.Option("--ranks", help="Ranks of the statistics combined, e.g. '6,4'.")]
CharOpt = CharacterOpt
StatOpt = Annotated[
    list[str] | None, typer.Option("--stat", "-s", help="A statistic of the character (repeat to combine).")
]
TdOpt = Annotated[
    int | None, typer.Option("--difficulty", "--td", help="The Test Difficulty, TD (Table 2-02: 0, 2, 4 ... 20).")
]
GoldenOpt = Annotated[
    bool, typer.Option("--golden", help="Golden Rolls: a die's highest face is an automatic success.")
]
PenaltyOpt = Annotated[
    int, typer.Option("--penalty", help="Rank penalty (wounds, range, armour ...), taken highest ranked first.")
]
NegOpt = Annotated[int, typer.Option("--negative", help="Ranks of negative Traits deducted from the pool.")]
BonusOpt = Annotated[int, typer.Option("--bonus", help="Bonus ranks (aiming, help), divided between the statistics.")]
DieModOpt = Annotated[
    int, typer.Option("--die-mod", help="Added to each die's value against the TD (Flesh Wounds: -1).")
]
SmOpt = Annotated[bool, typer.Option("--sm-allows", help="The SM allows the Test below the Minimum Die Pool.")]


def _hr(path: Path | None) -> BlyssHouseRules:
    hr = load_house_rules(path, SYSTEM)
    assert isinstance(hr, BlyssHouseRules)
    return hr


def _load_char(path: Path, hr: BlyssHouseRules | None = None, allow_illegal: bool = False) -> Character:
    """A character file, refused like 'sheet' refuses it unless --allow-illegal."""
    c = load_character(SYSTEM, path, hr, allow_illegal=allow_illegal)
    assert isinstance(c, Character)
    return c


def _non_negative(name: str, value: int) -> None:
    if value < 0:
        raise CheckError(f"{name} must be 0 or more, not {value}")


def pool_from_options(
    pool: str | None,
    ranks: str | None,
    character: Character | None,
    stats: list[str] | None,
    *,
    penalty: int = 0,
    negative: int = 0,
    bonus: int = 0,
    die_mod: int = 0,
    name: str = "",
) -> Pool:
    """Build a Pool from the command line: --pool dice, --ranks, or --character with --stat."""
    for n, v in (("--penalty", penalty), ("--negative", negative), ("--bonus", bonus)):
        _non_negative(n, v)
        if v > 200:
            raise CheckError(f"{n} of {v} ranks is more than any pool has")
    given = sum(x is not None for x in (pool, ranks, character))
    if given != 1:
        raise CheckError("give exactly one of --pool, --ranks or --character", hint="e.g. --pool 'd12+d4,d10' --td 8")
    if character is None and stats:
        raise CheckError("--stat names a statistic of a --character; with --pool or --ranks leave it out")
    if character is not None:
        if not stats:
            raise CheckError(
                "name the statistics to roll with --stat", hint="e.g. --stat Dexterity --stat 'Lock Picking'"
            )
        c = character
        return character_pool(c, stats, penalty_ranks=penalty, die_modifier=die_mod, bonus_ranks=bonus).model_copy(
            update={"negative_ranks": character_pool(c, stats).negative_ranks + negative}
        )
    if ranks is not None:
        try:
            rk = tuple(int(x) for x in ranks.replace("+", ",").split(",") if x.strip())
        except ValueError:
            raise CheckError(f"--ranks takes whole numbers separated by commas, not {ranks!r}") from None
        if not rk or any(r < 0 or r > 50 for r in rk):
            raise CheckError("--ranks are whole numbers from 0 to 50, e.g. '6,4'")
        return make_pool(
            name=name, ranks=rk, penalty_ranks=penalty, negative_ranks=negative, bonus_ranks=bonus, die_modifier=die_mod
        )
    assert pool is not None
    return pool_from_text(
        pool, name=name, penalty_ranks=penalty, negative_ranks=negative, bonus_ranks=bonus, die_modifier=die_mod
    )


def _rating_text(a: dict) -> str:
    """'5', or for damaged armour the rating it soaks with now and the original: '4 (damaged; 5 new)'."""
    if a["current_rating"] == a["armour_rating"]:
        return str(a["armour_rating"])
    return f"{a['current_rating']} (damaged; {a['armour_rating']} new)"


def emit_outcome(outcome, as_json: bool) -> None:
    """An outcome as plain lines (long explanations wrap instead of being cut off in a panel)."""
    if as_json:
        print_json(outcome.to_json())
        return
    console.print(f"[bold]{outcome.check}: {outcome.result}[/bold]")
    for r in outcome.rolls:  # BLYSS reads each die against the TD: the faces, never their sum
        faces = ", ".join(f"d{d.sides}={d.face}" for d in r.dice)
        console.print(f"  {r.label + ': ' if r.label else ''}{faces}", markup=False)
    console.print(outcome.explanation, markup=False, soft_wrap=False)
    if outcome.rolls:
        console.print(f"seed {outcome.rolls[0].seed}", style="dim", markup=False)


def _test(pool: Pool, td: int | None, golden: bool, sm_allows: bool) -> BlyssTest:
    td = 8 if td is None else td
    if td < 0:
        raise CheckError(f"a TD is 0 or more, not {td}", hint="Table 2-02 runs 0, 2, 4 ... 20")
    return BlyssTest(**pool.model_dump(), td=td, golden=True if golden else None, sm_allows=sm_allows)


def _test_from_options(
    character: Character | None,
    pool: PoolOpt = None,
    ranks: RanksOpt = None,
    stat: StatOpt = None,
    difficulty: TdOpt = 8,
    golden: GoldenOpt = False,
    penalty: PenaltyOpt = 0,
    negative: NegOpt = 0,
    bonus: BonusOpt = 0,
    die_mod: DieModOpt = 0,
    sm_allows: SmOpt = False,
) -> BlyssTest:
    """A Test from the book's options: a pool (--pool, --ranks, or -c FILE --stat NAME) against a TD."""
    p = pool_from_options(
        pool, ranks, character, stat, penalty=penalty, negative=negative, bonus=bonus, die_mod=die_mod
    )
    return _test(p, difficulty, golden, sm_allows)


# `check`, the book's `test`, and `odds`: the shared commands (cli/checks.py), with the book's options
add_check_commands(
    app,
    SYSTEM,
    CheckCommands(
        build=_test_from_options,
        verb="test",
        stream="",
        show=lambda check, outcome, hr, as_json: emit_outcome(outcome, as_json),
        check_help="Roll a Test and explain how the dice made the result.",
        odds_help="Exact odds of a Test before rolling: every number of successes, Screw-Ups and criticals.",
    ),
)


@app.command("contest")
def contest_cmd(
    a: Annotated[str, typer.Option("--a", help="Side A's pool, e.g. 'd10' or 'd8,d6'.")],
    b: Annotated[str, typer.Option("--b", help="Side B's pool.")],
    a_name: Annotated[str, typer.Option("--a-name")] = "A",
    b_name: Annotated[str, typer.Option("--b-name")] = "B",
    no_draw: Annotated[bool, typer.Option("--no-draw", help="A draw is impossible: roll again.")] = False,
    golden: GoldenOpt = False,
    odds_only: Annotated[bool, typer.Option("--odds", help="Only the exact odds.")] = False,
    seed: SeedOpt = None,
    house_rules: HouseRulesOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A Character Contest: each side rolls against the other's rank; most successes wins."""
    check = BlyssContest(
        a=pool_from_options(a, None, None, None, name=a_name),
        b=pool_from_options(b, None, None, None, name=b_name),
        draw_allowed=not no_draw,
        golden=True if golden else None,
    )
    hr = _hr(house_rules)
    if odds_only:
        emit_odds(SYSTEM.odds(check, hr), as_json)
    else:
        emit_outcome(SYSTEM.resolve(check, make_rng(seed), hr), as_json)


@app.command("combined")
def combined_cmd(
    assisted: Annotated[str, typer.Option("--assisted", help="The assisted character's pool, e.g. 'd8,d8'.")],
    helper: Annotated[list[str], typer.Option("--helper", help="A helper's pool (repeat).")],
    td: TdOpt = 8,
    golden: GoldenOpt = False,
    sm_allows: SmOpt = False,
    odds_only: Annotated[bool, typer.Option("--odds", help="Only the exact odds.")] = False,
    seed: SeedOpt = None,
    house_rules: HouseRulesOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A Combined Test: helpers' successes become ranks for the assisted character; Screw-Ups carry over."""
    td = 8 if td is None else td
    if td < 0:
        raise CheckError(f"a TD is 0 or more, not {td}")
    check = CombinedTest(
        assisted=pool_from_options(assisted, None, None, None, name="assisted"),
        helpers=tuple(pool_from_options(h, None, None, None, name=f"helper {i + 1}") for i, h in enumerate(helper)),
        td=td,
        golden=True if golden else None,
        sm_allows=sm_allows,
    )
    hr = _hr(house_rules)
    if odds_only:
        emit_odds(SYSTEM.odds(check, hr), as_json)
    else:
        emit_outcome(SYSTEM.resolve(check, make_rng(seed), hr), as_json)


# ------------------------------------------------------------------ characters
@app.command("templates")
def templates_cmd(as_json: JsonOpt = False) -> None:
    """The four Archetypal Templates."""
    data = templates()
    if as_json:
        print_json(data)
        return
    for key, t in data.items():
        console.print(
            f"[bold]{key}[/bold] ({t['title']}): priority {', '.join(t['priority_attributes'])}; "
            f"traits {', '.join(x['name'] for x in t['suggested_traits'])}"
        )


@app.command("costs")
def costs_cmd(as_json: JsonOpt = False) -> None:
    """The CP cost tables (per rank and cumulative) for Attributes, Skills, Talents and Naturals."""
    kinds = ("attribute", "skill", "talent", "natural")
    data = {
        k: {"each": [rank_cost(k, r) for r in range(11)], "cumulative": [cumulative_cost(k, r) for r in range(11)]}
        for k in kinds
    }
    if as_json:
        print_json(data)
        return
    t = Table(show_edge=False)
    t.add_column("Rank")
    t.add_column("Ability")
    for k in kinds:
        t.add_column(f"{k} each/total")
    for r in range(11):
        t.add_row(str(r), ability_name(r), *(f"{data[k]['each'][r]}/{data[k]['cumulative'][r]}" for k in kinds))
    console.print(t)


def character_document(c: Character) -> dict:
    """The sheet as written to a file: defaults left out, except every Attribute, which is always spelt out."""
    data = c.model_dump(mode="json", exclude_defaults=True)
    data["attributes"] = c.attributes.model_dump(mode="json")
    return {k: data[k] for k in type(c).model_fields if k in data}


def _with_field(base: Character, field: str, value: int) -> Character:
    return base.model_copy(update={field: value})


def _cp_after(change: Callable[[int], Character], hr: BlyssHouseRules, value: int) -> str | None:
    """Why ``value`` cannot stand: the character it makes would overspend (None when it fits)."""
    return _cp_check(change(value), hr)


def _cp_check(c: Character, hr: BlyssHouseRules) -> str | None:
    """Why an answer cannot stand: it would spend more CP than the budget (None when it fits)."""
    left = cp_left(c, hr)
    return None if left >= 0 else f"that would overspend by {-left} CP"


@app.command("new")
def new_cmd(
    template: Annotated[str | None, typer.Option("--template", "-t", help="Start from an Archetypal Template.")] = None,
    out: OutOpt = None,
    house_rules: HouseRulesOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Build a character interactively: a wrong answer is asked again; CP left is shown at every step."""
    hr = _hr(house_rules)
    if template is not None and template != "none" and template not in templates():
        raise CheckError(f"no template {template!r}", hint=f"one of: {', '.join(templates())}")
    name = ask("Name", check=lambda v: None if v else "a character needs a name")
    concept = ask("Concept (a sentence)", default="")
    if template is None:
        template = ask_choice(f"Template ({', '.join(templates())}, or none)", [*templates(), "none"], default="none")
    c = template_character(template, name) if template and template != "none" else Character(name=name)
    c = c.model_copy(update={"concept": concept or c.concept})
    say(
        f"{cp_budget(c, hr)} CP to spend; Attributes cost "
        f"{', '.join(str(cumulative_cost('attribute', r)) for r in range(1, 7))} CP for ranks 1-6. "
        f"Running total: {cp_spent(c, hr)} spent, {cp_left(c, hr)} left."
    )
    for book, field in ATTRIBUTES.items():

        def with_rank(r: int, field: str = field, base: Character = c) -> Character:
            return base.model_copy(update={"attributes": Attributes(**{**base.attributes.model_dump(), field: r})})

        r = ask_int(
            f"{book} rank [{cp_left(c, hr)} CP left]",
            default=c.attributes.of(book),
            lo=0,
            hi=10,
            check=partial(_cp_after, with_rank, hr),
        )
        c = with_rank(r)
    say(f"Attributes: {cp_spent(c, hr)} CP spent, {cp_left(c, hr)} left.")
    traits = list(c.traits)
    if traits:
        say("Template Traits: " + ", ".join(f"{t.name} {t.rank}" for t in traits))
    while True:
        tname = ask(f"Add a Trait (blank to finish) [{cp_left(c, hr)} CP left]", default="", show_default=False)
        if not tname:
            break
        kind = ask_choice("  kind (skill/talent/natural)", ["skill", "talent", "natural"], default="skill")
        rank = ask_int("  rank", default=3, lo=1, hi=10)
        neg = ask_yes("  negative?", default=False)
        trial = c.model_copy(
            update={
                "traits": (
                    *(t for t in traits if t.name.lower() != tname.lower()),
                    Trait(name=tname, kind=kind, rank=rank, negative=neg),  # type: ignore[arg-type]
                )
            }
        )
        why = _cp_check(trial, hr)
        if why:
            say(f"  {why}: {tname} is not added (try again)")
            continue
        c = trial
        traits = list(c.traits)
        say(f"  {cp_spent(c, hr)} CP spent, {cp_left(c, hr)} left.")
    tongue = ask("Native tongue (free Skill at rank 3; blank for none)", default="", show_default=False)
    if tongue:
        c = c.model_copy(update={"traits": (*c.traits, Trait(name=tongue, kind="skill", rank=3, free=True))})
    for label, field, mx in (
        ("Dodges", "extra_dodges", 5),
        ("Flesh Wounds", "extra_flesh_wounds", 10),
        ("Health", "extra_health", 20),
    ):
        n = ask_int(
            f"Extra {label} (max {mx}) [{cp_left(c, hr)} CP left]",
            default=0,
            lo=0,
            hi=mx,
            check=partial(_cp_after, partial(_with_field, c, field), hr),
        )
        c = c.model_copy(update={field: n})
    finish_new(SYSTEM, c, hr, out, as_json, document=character_document(c))


# ------------------------------------------------------------------ living
@app.command("damage")
def damage_cmd(
    file: Annotated[Path, typer.Argument(help="A character file.")],
    amount: Annotated[list[int], typer.Argument(help="Damage of each blow, in order.")],
    house_rules: HouseRulesOpt = None,
    allow_illegal: AllowIllegalOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Deal blows to a fresh character: Dodges, then Flesh Wounds, then Health; the Wound Level after each."""
    hr = _hr(house_rules)
    c = _load_char(file, hr, allow_illegal)
    v = Vitals.fresh(max_dodges(c), max_flesh_wounds(c), max_health(c))
    rows = []
    for n in amount:
        _non_negative("damage", n)
        v, took = apply_damage(v, n, spill=hr.damage_spills_over)
        lvl = wound_level(v)
        ranks, die = wound_penalty(lvl, hr)
        rows.append(
            {
                "damage": n,
                **took,
                "left": {"dodges": v.dodges, "flesh_wounds": v.flesh_wounds, "health": v.health},
                "wound_level": lvl,
                "rank_penalty": ranks,
                "die_modifier": die,
                "unconscious": v.unconscious,
                "dying": v.dying,
            }
        )
    if as_json:
        print_json({"name": c.name, "blows": rows})
        return
    for r in rows:
        left = r["left"]
        state = " - dying" if r["dying"] else " - unconscious" if r["unconscious"] else ""
        console.print(
            f"{r['damage']} damage -> Dodges {left['dodges']}, Flesh Wounds {left['flesh_wounds']}, Health "
            f"{left['health']}: "
            f"{r['wound_level']} (-{r['rank_penalty']} ranks, {r['die_modifier']:+d} per die){state}"
        )


@app.command("deprivation")
def deprivation_cmd(
    stamina: Annotated[int, typer.Option("--stamina")],
    mental_fortitude: Annotated[int, typer.Option("--mental-fortitude")] = 3,
    awake: Annotated[float, typer.Option("--awake", help="Hours without sleep.")] = 0,
    fasting: Annotated[float, typer.Option("--fasting", help="Hours without food.")] = 0,
    thirsty: Annotated[float, typer.Option("--thirsty", help="Hours without drink.")] = 0,
    as_json: JsonOpt = False,
) -> None:
    """Fatigue, Hunger and Thirst: the Threshold, rank penalties, stay-awake checks due, and collapse."""
    for n, v in (
        ("--stamina", stamina),
        ("--mental-fortitude", mental_fortitude),
        ("--awake", awake),
        ("--fasting", fasting),
        ("--thirsty", thirsty),
    ):
        if v < 0:
            raise CheckError(f"{n} must be 0 or more")
    pens = {
        k: deprivation_penalty(k, h, stamina) for k, h in (("fatigue", awake), ("hunger", fasting), ("thirst", thirsty))
    }
    total = sum(pens.values())
    data = {
        "threshold_hours": threshold_hours(stamina),
        "penalties": pens,
        "total_rank_penalty": total,
        "stay_awake_checks_due": stay_awake_checks(awake, stamina),
        "unconscious": collapses(stamina, mental_fortitude, total),
        "starvation_check_every_hours": starvation_interval(stamina),
    }
    if as_json:
        print_json(data)
        return
    console.print(
        f"Threshold: {data['threshold_hours']} hours. Penalties: fatigue -{pens['fatigue']}, hunger -{pens['hunger']}, "
        f"thirst -{pens['thirst']} (total -{total} ranks to every Attribute and Trait)."
    )
    console.print(f"Mental Fortitude checks to stay awake so far: {data['stay_awake_checks_due']}.")
    if data["unconscious"]:
        console.print("Stamina or Mental Fortitude is down to rank 0: the character falls unconscious.")


# ------------------------------------------------------------------ fights
TacticAOpt = Annotated[
    str | None, typer.Option("--tactic-a", help="Side A's tactic: attack | defensive | aim | disarm.")
]
TacticBOpt = Annotated[
    str | None, typer.Option("--tactic-b", help="Side B's tactic: attack | defensive | aim | disarm.")
]
DistanceOpt = Annotated[int, typer.Option("--distance", help="Feet between the sides at the start.")]
TACTICS = ("attack", "defensive", "aim", "disarm")


def _check_tactics(*tactics: str | None) -> None:
    for t in tactics:
        if t is not None and t not in TACTICS:
            raise CheckError(f"unknown tactic {t!r}", hint="attack, defensive, aim or disarm")


def _start_fight(
    sides: list[list[Path]],
    tactic_a: str | None,
    tactic_b: str | None,
    distance: int,
    hr: BlyssHouseRules,
    allow_illegal: bool = False,
) -> FightState:
    _check_tactics(tactic_a, tactic_b)
    if distance < 0:
        raise CheckError("--distance is 0 feet or more")
    chars = [[_load_char(p, hr, allow_illegal) for p in side] for side in sides]
    state = SYSTEM.combat.start(
        chars,
        house_rules=hr,
        options={
            "tactic": [tactic_a or "attack", tactic_b or "attack"],
            "distance": distance,
            # the engine refuses illegal characters too: the GM's --allow-illegal reaches it
            "allow_illegal": allow_illegal,
        },
    )
    assert isinstance(state, FightState)
    return state


def _load_state(path: Path) -> FightState:
    """A fight state saved by 'fight --save-state' (JSON)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read the fight state ({exc.strerror or exc})") from None
    try:
        return FightState.model_validate_json(text)
    except ValidationError as exc:
        raise InputFileError(
            validation_message(exc, str(path)),
            hint="save a fight state with 'storymaster blyss fight A.yaml B.yaml --rounds N --save-state FILE'",
        ) from None


def _retactic(state: FightState, tactic_a: str | None, tactic_b: str | None) -> FightState:
    """Override the tactics saved in a fight state, side by side (A = the first side, B = the second)."""
    _check_tactics(tactic_a, tactic_b)
    chosen = {0: tactic_a, 1: tactic_b}
    fighters = tuple(
        f.model_copy(update={"tactic": chosen[f.side]}) if chosen.get(f.side) else f for f in state.fighters
    )
    return state.model_copy(update={"fighters": fighters})


@app.command("fight")
def fight_cmd(
    files: Annotated[
        list[Path] | None, typer.Argument(help="Side A's file and side B's file (or side A's files, then --vs).")
    ] = None,
    vs: TeamVsOpt = None,
    state_file: Annotated[
        Path | None, typer.Option("--state", help="Go on with a fight saved by 'fight --save-state FILE'.")
    ] = None,
    seed: SeedOpt = None,
    tactic_a: TacticAOpt = None,
    tactic_b: TacticBOpt = None,
    distance: DistanceOpt = 0,
    rounds: Annotated[
        int | None,
        typer.Option("--rounds", min=1, help="Stop after this many rounds (then --save-state to go on or forecast)."),
    ] = None,
    save_state: Annotated[
        Path | None, typer.Option("--save-state", help="Write the fight's state (JSON) here when it stops.")
    ] = None,
    house_rules: HouseRulesOpt = None,
    allow_illegal: AllowIllegalOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Fight round by round with automatic choices; a readable log. 'A B', or a team: 'A B C --vs X --vs Y'."""
    if state_file is not None:
        if files or vs:
            raise InputFileError("give either --state or the character files, not both")
        if house_rules is not None or distance:
            raise InputFileError(
                "a saved fight keeps its own house rules and distance",
                hint="drop --house-rules / --distance when going on with --state",
            )
        state = _retactic(_load_state(state_file), tactic_a, tactic_b)
    else:
        state = _start_fight(
            split_sides(files or [], vs), tactic_a, tactic_b, distance, _hr(house_rules), allow_illegal
        )
    eng = SYSTEM.combat
    rng = make_rng(seed, "fight")
    if state_file is not None:  # a continued fight draws on from where the saved one stopped
        rng = make_rng(seed, f"fight-from-round-{state.round}")
    events = []
    stop = None if rounds is None else state.round + rounds
    while not eng.is_over(state) and (stop is None or state.round < stop):
        state, ev = eng.step(state, rng)
        events.extend(ev)
    w = eng.winner(state)
    if not eng.is_over(state):
        result = f"still fighting after {state.round} round(s)"
    elif w is None:
        result = "no winner"
    else:
        result = f"side {side_label(w)} wins ({', '.join(f.id for f in state.fighters if f.side == w)})"
    if save_state is not None:
        try:
            save_state.write_text(state.model_dump_json(indent=1), encoding="utf-8")
        except OSError as exc:
            raise InputFileError(f"{save_state}: cannot write the fight state ({exc.strerror or exc})") from None
    emit_events(
        events,
        as_json,
        {
            "result": f"{result} (seed {rng.seed})",
            "winner": w,
            "winner_side": None if w is None else side_label(w),
            "rounds": state.round,
            "seed": rng.seed,
            "over": state.over,
            **({"state_file": str(save_state)} if save_state else {}),
        },
    )


@app.command("forecast")
def forecast_cmd(
    files: Annotated[
        list[Path] | None, typer.Argument(help="Side A's file and side B's file (or side A's files, then --vs).")
    ] = None,
    vs: VsOpt = None,
    state: StateOpt = None,
    tactic_a: TacticAOpt = None,
    tactic_b: TacticBOpt = None,
    distance: DistanceOpt = 0,
    method: MethodOpt = "auto",
    samples: Annotated[
        int | None,
        typer.Option(
            "--samples",
            min=100,
            max=10_000_000,
            help="Fights to simulate when not exact (default: until every 95% interval is within ±1%, "
            "at most 100,000).",
        ),
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", help="Seed of the simulation (the same seed gives the same forecast).")
    ] = 0,
    plot: PlotOpt = None,
    house_rules: HouseRulesOpt = None,
    allow_illegal: AllowIllegalOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """The odds of a whole fight: each side's chance to win, the draw, the rounds, how each fighter ends.

    Exact (a Markov chain) for a duel in which both fighters attack every round; simulated (many
    fights at once, with 95% intervals) otherwise. From character files, or from a fight saved
    mid-way with 'fight --rounds N --save-state FILE' (--state FILE)."""
    method = check_method(method)
    if state is not None:
        if files or vs:
            raise InputFileError("give either --state or the character files, not both")
        if house_rules is not None or distance:
            raise InputFileError(
                "a saved fight keeps its own house rules and distance",
                hint="drop --house-rules / --distance when forecasting from --state",
            )
        fight = _retactic(_load_state(state), tactic_a, tactic_b)
    else:
        fight = _start_fight(
            split_sides(files or [], vs), tactic_a, tactic_b, distance, _hr(house_rules), allow_illegal
        )
    with forecast_progress() as progress:
        result = SYSTEM.forecast(fight, method=method, samples=samples, seed=seed, progress=progress)
    emit_forecast(result, as_json, plot)


# ------------------------------------------------------------------ advancement
def _cp_left_line(new: Character, hr: BlyssHouseRules) -> str:
    return f"{cp_left(new, hr)} CP left to spend"


# the commands that change a character: one definition (cli/changes.py), the book's requests here
change = change_commands(
    app,
    SYSTEM,
    summary=_cp_left_line,
    json_extra=lambda new, hr: {"cp_left": cp_left(new, hr)},
    document=character_document,
)


@change("award")
def award_cmd(
    challenges: Annotated[int, typer.Option("--challenges", help="Very challenging experiences (+1 each).")] = 0,
    roleplaying: Annotated[int, typer.Option("--roleplaying", help="Good roleplaying: 0-3 CP.")] = 0,
    learned: Annotated[bool, typer.Option("--learned", help="Explained something learned (+1).")] = False,
) -> AwardExperience:
    """Award Experience CP at the end of a Chapter or session (3 + extras)."""
    if not 0 <= roleplaying <= 3:
        raise CheckError("--roleplaying awards 0 to 3 CP")
    _non_negative("--challenges", challenges)
    return AwardExperience(challenges=challenges, roleplaying=roleplaying, learned=learned)


@change("spend")
def spend_cmd(
    target: Annotated[str, typer.Argument(help="An Attribute, a Trait, or Dodges / Flesh Wounds / Health.")],
    cp: Annotated[int, typer.Argument(help="CP to spend (partial ranks are noted).")],
    new: Annotated[
        str | None, typer.Option("--new", help="Buy a new Trait of this kind: skill, talent or natural.")
    ] = None,
) -> SpendCP:
    """Spend earned CP after creation (no creation guidelines)."""
    if cp < 1:
        raise CheckError("spend at least 1 CP")
    if new is not None and new not in ("skill", "talent", "natural"):
        raise CheckError("--new takes skill, talent or natural")
    return SpendCP(target=target, cp=cp, new_trait=new)  # type: ignore[arg-type]


@change("flaw")
def flaw_cmd(
    name: Annotated[str, typer.Argument(help="The negative Trait.")],
    rank: Annotated[int, typer.Option("--rank")] = 1,
    kind: Annotated[str, typer.Option("--kind", help="skill, talent or natural")] = "skill",
) -> AcquireNegative:
    """A negative Trait acquired after creation (grants no CP)."""
    if kind not in ("skill", "talent", "natural") or not 1 <= rank <= 10:
        raise CheckError("--kind is skill, talent or natural; --rank 1 to 10")
    return AcquireNegative(name=name, rank=rank, trait_kind=kind)  # type: ignore[arg-type]


@change("deteriorate")
def deteriorate_cmd(
    trait: Annotated[str, typer.Argument(help="The unused Trait.")],
    increments: Annotated[int, typer.Option("--increments", help="Increments of time unused (2 CP each).")] = 1,
) -> Deteriorate:
    """Deterioration: an unused Trait loses 2 CP per increment of time."""
    if increments < 1:
        raise CheckError("--increments is 1 or more")
    return Deteriorate(target=trait, increments=increments)
