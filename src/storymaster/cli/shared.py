"""The commands every system shares, generated from one definition.

:func:`system_app` makes a system's sub-app with the shared commands that need nothing but the
protocol (``schema``, ``house-rules``); a system's module then adds its own versions of the rest
and the verbs of its book. :func:`generic_app` makes *all* the shared commands from the
``RuleSystem`` protocol alone, for a system that brings no CLI module: a sixth system registered
through the ``storymaster.systems`` entry point gets ``sheet``, ``new``, ``schema``,
``house-rules``, ``check``, ``odds``, ``fight`` and ``forecast`` without any CLI code of its own.
"""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import BaseModel, TypeAdapter, ValidationError
from rich.table import Table
from rich.text import Text

from ..errors import CharacterError, InputFileError
from ..rules import side_label
from ..rules.files import validation_message
from ..rules.sheet import Sheet
from .characters import load_character, write_character
from .checks import add_check_commands
from .common import emit_events, load_house_rules, make_rng, show_house_rules
from .output import console, print_json
from .prompts import ask, say
from .vocab import (
    AllowIllegalOpt,
    HouseRulesOpt,
    JsonOpt,
    OutOpt,
    PlotOpt,
    SeedOpt,
    TeamVsOpt,
)

__all__ = [
    "SHARED_COMMANDS",
    "emit_sheet",
    "finish_new",
    "generic_app",
    "print_sheet",
    "system_app",
]

#: The commands every system has, each with the same flags everywhere (docs/cli.md's table).
SHARED_COMMANDS = ("sheet", "new", "schema", "house-rules", "check", "checks", "odds", "fight", "forecast")


def _app(system: Any, help: str | None) -> typer.Typer:
    return typer.Typer(
        name=system.name,
        help=help or f"{system.title}: rules, checks with exact odds, fights.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )


def system_app(system: Any, *, help: str | None = None) -> typer.Typer:
    """A system's sub-app, holding the generated shared commands (``schema``, ``house-rules``)."""
    app = _app(system, help)

    @app.command("schema")
    def schema_cmd(as_json: JsonOpt = True) -> None:
        """The JSON Schema of a character file (always JSON; --json is accepted for uniformity)."""
        print_json(system.character_model.model_json_schema())

    @app.command("house-rules")
    def house_rules_cmd(as_json: JsonOpt = False) -> None:
        """The optional rules and rulings, each with the book's default."""
        show_house_rules(system.house_rules_model, as_json)

    @app.command("sheet")
    def sheet_cmd(
        file: Annotated[Path, typer.Argument(help="A character file (YAML or JSON).")],
        html: Annotated[
            Path | None, typer.Option("--html", help="Also write the sheet as a printable HTML card.")
        ] = None,
        png: Annotated[Path | None, typer.Option("--png", help="Also write the card as a PNG image.")] = None,
        house_rules: HouseRulesOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Check a character against the creation rules and print its sheet (exit 2, with the reasons, if illegal)."""
        hr = load_house_rules(house_rules, system)
        c = load_character(system, file, hr, allow_illegal=True)  # the sheet shows the problems itself
        emit_sheet(system, c, hr, as_json, html=html, png=png)

    return app


# ------------------------------------------------------------------ the sheet, from the structured Sheet


def _cell(v: Any) -> str:
    return "" if v is None else "yes" if v is True else "no" if v is False else str(v)


def print_sheet(sheet: Sheet) -> None:
    """A structured sheet on the terminal: the name, then one table per section, then the problems."""
    console.print(Text(sheet.name, style="bold"))
    for sec in sheet.sections:
        if sec.empty:
            continue
        console.print()
        if sec.is_table:
            table = Table(title=sec.title, title_justify="left", show_edge=False, pad_edge=False)
            for col in sec.columns:
                table.add_column(col, overflow="fold")  # at 80 columns a long cell wraps, never cut
            for row in sec.rows:
                table.add_row(*(_cell(c) for c in row))
        else:
            notes = any(v.note for v in sec.values)
            table = Table(title=sec.title, title_justify="left", show_header=False, box=None, pad_edge=False)
            table.add_column("", style="bold")
            table.add_column("")
            if notes:
                table.add_column("", style="dim")
            for v in sec.values:
                table.add_row(v.label, v.text, *([v.note] if notes else []))
        console.print(table)
        if sec.note:
            console.print(Text(sec.note, style="yellow"))
    console.print()
    if sheet.problems:
        console.print(Text(f"{len(sheet.problems)} problem(s):", style="red"))
        for p in sheet.problems:
            console.print(Text(f"  - {p.where}: {p.message}" + (f" ({p.rule})" if p.rule else "")))
    else:
        console.print(Text("legal character", style="green"))


def emit_sheet(
    system: Any,
    character: Any,
    house_rules: Any,
    as_json: bool,
    *,
    html: Path | None = None,
    png: Path | None = None,
    refuse: bool = True,
) -> Sheet:
    """Print (or write as JSON, HTML, PNG) a character's structured sheet; exit 2 if it is illegal.

    The same :class:`~storymaster.rules.Sheet` in every form: ``storymaster.present`` renders the
    card, the terminal gets one table per section, ``--json`` the sheet's own JSON plus the character.
    """
    from ..present import card_html, card_png

    sheet = system.sheet(character, house_rules)
    title = getattr(system, "display_name", "") or system.title
    written = []
    if html is not None:
        _write(html, card_html(sheet, title=title))
        written.append(html)
    if png is not None:
        try:
            image = card_png(sheet)
        except ImportError:  # pragma: no cover - matplotlib comes with the project's extras
            raise InputFileError(
                "writing PNG needs matplotlib", hint="pip install 'storymaster[plot]', or use --html"
            ) from None
        _write(png, image)
        written.append(png)
    if as_json:
        print_json({**sheet.to_json(), "character": character.model_dump(mode="json")})
    else:
        print_sheet(sheet)
        for path in written:
            console.print(Text(f"card written to {path}"))
    if refuse and sheet.problems:
        raise CharacterError(
            sheet.problems,
            name=sheet.name,
            hint=f"fix the character file (see 'storymaster {system.name} schema')",
        )
    return sheet


def finish_new(
    system: Any, character: Any, house_rules: Any, out: Path | None, as_json: bool, document: Any = None
) -> None:
    """The end of every ``new``: the sheet, then the character printed or written with -o (exit 2 if illegal)."""
    sheet = system.sheet(character, house_rules)
    if as_json:
        done = write_character(character, source=None, out=out, in_place=False, document=document, as_json=True)
        print_json({"character": character.model_dump(mode="json"), "sheet": sheet.to_json(), **done})
    else:
        print_sheet(sheet)
        write_character(character, source=None, out=out, in_place=False, document=document)
    if sheet.problems:
        raise CharacterError(
            sheet.problems, name=sheet.name, hint=f"edit the file and check it with 'storymaster {system.name} sheet'"
        )


def _write(path: Path, data: str | bytes) -> None:
    try:
        if isinstance(data, str):
            path.write_text(data, encoding="utf-8")
        else:
            path.write_bytes(data)
    except OSError as exc:
        raise InputFileError(f"{path}: cannot be written ({exc.strerror or exc})") from None


# ------------------------------------------------------------------ the rest, from the protocol alone


def _ask_field(name: str, info: Any) -> Any:
    """One field of a character, asked until its value is valid (JSON for anything but plain text)."""
    adapter = TypeAdapter(info.annotation)
    default = None if info.is_required() else info.get_default(call_default_factory=True)
    shown = json.dumps(default.model_dump(mode="json") if isinstance(default, BaseModel) else default, default=str)

    def convert(raw: str) -> Any:
        try:
            return adapter.validate_python(json.loads(raw))
        except (json.JSONDecodeError, ValidationError):
            return adapter.validate_python(raw)

    described = f" ({info.description})" if info.description else ""
    return ask(f"{name}{described}", convert, default=None if info.is_required() else shown)


def state_model(system: Any) -> type[BaseModel] | None:
    """A system's fight state model: ``combat.state_model``, else the return annotation of ``combat.start``."""
    engine = system.combat
    model = getattr(engine, "state_model", None)
    if model is None:
        try:
            model = typing.get_type_hints(engine.start).get("return")
        except Exception:  # an annotation that does not resolve: no model known
            model = None
    if isinstance(model, type) and issubclass(model, BaseModel) and model is not BaseModel:
        return model
    return None


def load_state(system: Any, path: Path) -> Any:
    """A fight saved by ``fight --save-state`` (JSON; also the whole ``fight --json`` output with its ``state``)."""
    from ..rules import load_document, validate_data

    model = state_model(system)
    if model is None:
        raise InputFileError(
            f"{system.name} does not say what its fight state is, so a saved fight cannot be read",
            hint="its combat engine can name it: state_model = TheFightState (or annotate start's return type)",
        )
    data = load_document(path)
    if isinstance(data, dict) and isinstance(data.get("state"), dict) and "state" not in model.model_fields:
        data = data["state"]
    return validate_data(
        data, model, source=f"{path} (a fight saved by 'storymaster {system.name} fight --save-state FILE')"
    )


def generic_app(system: Any) -> typer.Typer:
    """Every shared command, made from the ``RuleSystem`` protocol alone (no system-specific code)."""
    app = system_app(system)

    def hr_of(path: Path | None) -> Any:
        return load_house_rules(path, system)

    @app.command("new")
    def new_cmd(out: OutOpt = None, house_rules: HouseRulesOpt = None, as_json: JsonOpt = False) -> None:
        """Build a character field by field; a wrong answer is asked again."""
        hr = hr_of(house_rules)
        say(f"A {system.title} character: {len(system.character_model.model_fields)} fields.")
        while True:
            data = {name: _ask_field(name, info) for name, info in system.character_model.model_fields.items()}
            try:
                c = system.character_model.model_validate(data)
            except ValidationError as exc:
                say(validation_message(exc, "character") + "\n  (try again)")
                continue
            problems = system.validate_character(c, hr)
            if not problems:
                break
            say("\n".join(f"  - {p}" for p in problems) + "\n  (try again)")
        finish_new(system, c, hr, out, as_json)

    add_check_commands(app, system)

    def start(files: list[Path] | None, vs: list[Path] | None, hr: Any, allow_illegal: bool) -> Any:
        from .forecast import split_sides

        sides = [
            [load_character(system, p, hr, allow_illegal=allow_illegal) for p in side]
            for side in split_sides(files or [], vs)
        ]
        return system.combat.start(sides, house_rules=hr)

    @app.command("fight")
    def fight_cmd(
        files: Annotated[list[Path] | None, typer.Argument(help="A.yaml B.yaml, or side A's files then --vs.")] = None,
        vs: TeamVsOpt = None,
        state_file: Annotated[
            Path | None, typer.Option("--state", help="Go on with a fight saved by --save-state.")
        ] = None,
        rounds: Annotated[int | None, typer.Option("--rounds", min=1, help="Stop after this many rounds.")] = None,
        save_state: Annotated[
            Path | None, typer.Option("--save-state", help="Write the fight state (JSON) here.")
        ] = None,
        seed: SeedOpt = None,
        house_rules: HouseRulesOpt = None,
        allow_illegal: AllowIllegalOpt = False,
        as_json: JsonOpt = False,
    ) -> None:
        """Fight round by round with the engine's automatic choices; a readable log."""
        engine = system.combat
        if state_file is not None:
            if files or vs or house_rules is not None or allow_illegal:
                raise InputFileError(
                    "--state goes on with a saved fight: give no files, --vs, --house-rules or --allow-illegal with it"
                )
            state = load_state(system, state_file)
            # a continued fight draws its own stream of the seed (the state holds no generator position)
            stream = f"{system.name}-fight-from-round-{getattr(state, 'round', 'saved')}"
        else:
            state = start(files, vs, hr_of(house_rules), allow_illegal)
            stream = f"{system.name}-fight"
        rng = make_rng(seed, stream)
        events: list[Any] = []
        stop = rounds
        while not engine.is_over(state) and (stop is None or stop > 0):
            state, evs = engine.step(state, rng)
            events += list(evs)
            stop = None if stop is None else stop - 1
        if save_state is not None:
            save_state.write_text(state.model_dump_json(indent=1), encoding="utf-8")
        w = engine.winner(state)
        over = engine.is_over(state)
        result = ("no winner" if w is None else f"side {side_label(w)} wins") if over else "still going"
        emit_events(
            events,
            as_json,
            {
                "result": f"{result} (seed {rng.seed})",
                "winner": w,
                "winner_side": None if w is None else side_label(w),
                "over": over,
                "seed": rng.seed,
            },
        )

    @app.command("forecast")
    def forecast_cmd(
        files: Annotated[list[Path] | None, typer.Argument(help="A.yaml B.yaml, or side A's files then --vs.")] = None,
        vs: TeamVsOpt = None,
        state_file: Annotated[
            Path | None, typer.Option("--state", help="A fight saved by 'fight --save-state'.")
        ] = None,
        method: Annotated[str, typer.Option("--method", help="auto, exact or simulate.")] = "auto",
        samples: Annotated[
            int, typer.Option("--samples", min=100, max=10_000_000, help="Fights to simulate.")
        ] = 100_000,
        seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the simulation.")] = 0,
        plot: PlotOpt = None,
        house_rules: HouseRulesOpt = None,
        allow_illegal: AllowIllegalOpt = False,
        as_json: JsonOpt = False,
    ) -> None:
        """The odds of a whole fight: who wins, how long, how each fighter ends."""
        from .forecast import check_method, emit_forecast, forecast_progress

        check_method(method)
        if not hasattr(system, "forecast"):
            raise InputFileError(f"{system.name} does not forecast fights", hint="play them with 'fight'")
        if state_file is not None:
            if files or vs or house_rules is not None or allow_illegal:
                raise InputFileError("--state forecasts a saved fight: give no files, --vs or --house-rules with it")
            state = load_state(system, state_file)
        else:
            state = start(files, vs, hr_of(house_rules), allow_illegal)
        with forecast_progress() as progress:
            result = system.forecast(state, method=method, samples=samples, seed=seed, progress=progress)
        emit_forecast(result, as_json, plot)

    return app
