"""``check``, ``odds`` and ``checks``: one definition for every system, made from the check catalogue.

Every system gets the same three commands with the same shared flags:

- ``check [SUBJECT] -c FILE`` rolls one of the character's catalogued checks (``find_check``: its key,
  subject or label, e.g. ``strength`` or ``test:strength``), ``check KIND --set NAME=VALUE`` a check
  of the catalogue by its kind; ``--difficulty`` sets the kind's difficulty field (``kind.difficulty``);
- ``odds`` the same, with the exact odds instead of a roll;
- ``checks [-c FILE]`` lists the kinds, or the checks a character can make.

A system may add its book's own way to describe a check (``--pool``, ``--ability``, ``--bonus`` ...)
with a :class:`CheckCommands`: its ``build`` function's parameters become options of both commands
(they are the same options in ``check`` and ``odds``), and ``build`` turns them into the check.
The book's verb (``test``, ``roll``) is the same command under its own name.
"""

from __future__ import annotations

import inspect
import json
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import CheckError, RulesInputError
from ..rules.catalogue import entry_key
from .characters import load_character
from .common import emit_odds, emit_outcome, load_house_rules, make_rng, write_plot
from .output import console, print_json
from .vocab import AllowIllegalOpt, HouseRulesOpt, JsonOpt, PlotOpt, SeedOpt

__all__ = ["CheckCommands", "add_check_commands", "check_params", "command_from", "parameters_of"]

#: parameters of a ``build`` function that the shared command fills in (they are not options)
INJECTED = ("hr", "character", "allow_illegal")

SubjectArg = Annotated[
    str | None,
    typer.Argument(
        help="With -c: one of the character's checks (its key, name or label; see 'checks -c FILE'). "
        "Without -c: a check kind of the catalogue, made from --set and --difficulty.",
        show_default=False,
    ),
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option("--set", "-p", help="A parameter of the check, NAME=VALUE (VALUE as JSON or text; repeatable)."),
]
CharacterFileOpt = Annotated[
    Path | None, typer.Option("--character", "-c", "--char", help="A character file (YAML or JSON).")
]
DifficultyOpt = Annotated[int | None, typer.Option("--difficulty", help="The check's difficulty.")]


def _no_book_options(difficulty: DifficultyOpt = None) -> None:
    """A system without options of its own: a check is named by its kind (or by -c FILE SUBJECT)."""
    return None


@dataclass(frozen=True)
class CheckCommands:
    """How a system's ``check`` and ``odds`` read its book's options (all optional).

    ``build(hr, character, allow_illegal, **options) -> check | (check, notes)``: its parameters other
    than those three are the commands' options; one named ``difficulty`` is also the difficulty of a
    check named by SUBJECT (``difficulty_of`` turns its text into the kind's value). ``None`` from
    ``build`` means the options describe no check: then a SUBJECT is needed.
    ``roll_options(check, outcome, hr, **options) -> outcome``: options of ``check`` only (after the roll).
    ``show(check, outcome, hr, as_json)``: how an outcome is printed (default: a panel).
    ``odds_json(check, odds, hr, data) -> data``: more figures in ``odds --json``.
    """

    build: Callable[..., Any] = _no_book_options
    verb: str = ""
    stream: str | None = None
    roll_options: Callable[..., Any] | None = None
    show: Callable[..., None] | None = None
    odds_json: Callable[..., dict[str, Any]] | None = None
    difficulty_of: Callable[[Any], Any] | None = None
    check_help: str = "Roll a check and explain how the dice made the result."
    odds_help: str = "The exact odds of a check before rolling."


def check_params(values: Sequence[str] | None) -> dict[str, Any]:
    """``--set NAME=VALUE`` options as a mapping (VALUE read as JSON when it is JSON, else as text)."""
    out: dict[str, Any] = {}
    for item in values or []:
        name, sep, raw = item.partition("=")
        if not sep or not name.strip():
            raise CheckError(f"--set {item!r}: write NAME=VALUE", where="--set")
        try:
            out[name.strip()] = json.loads(raw, parse_constant=_no_constant)
        except json.JSONDecodeError:
            out[name.strip()] = raw
        except ValueError as exc:  # NaN and infinity are JSON to Python, never a value of a check
            raise CheckError(f"--set {item!r}: {exc}", where="--set") from None
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a finite number")


def parameters_of(func: Callable[..., Any], skip: Sequence[str] = ()) -> list[inspect.Parameter]:
    """``func``'s parameters with their resolved annotations, as keyword-only (for a generated signature)."""
    hints = typing.get_type_hints(func, include_extras=True)
    return [
        p.replace(kind=inspect.Parameter.KEYWORD_ONLY, annotation=hints.get(p.name, p.annotation))
        for p in inspect.signature(func).parameters.values()
        if p.name not in skip
    ]


def command_from(name: str, doc: str, params: list[inspect.Parameter], body: Callable[[dict[str, Any]], None]) -> Any:
    """A function Typer reads as a command with exactly ``params`` (names must not repeat)."""
    seen = [p.name for p in params]
    if len(seen) != len(set(seen)):
        raise TypeError(f"{name}: options repeat: {sorted({n for n in seen if seen.count(n) > 1})}")

    def command(**kwargs: Any) -> None:
        body(kwargs)

    command.__name__ = name.replace("-", "_") + "_cmd"
    command.__doc__ = doc
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    return command


def _flag(name: str, func: Callable[..., Any]) -> str:
    """The command-line spelling of a ``build`` parameter (its first option name)."""
    hint = typing.get_type_hints(func, include_extras=True).get(name)
    for meta in getattr(hint, "__metadata__", ()):
        decls = [d for d in getattr(meta, "param_decls", ()) or () if d.startswith("--")]
        if decls:
            return str(decls[0])
    return "--" + name.replace("_", "-")


def add_check_commands(app: typer.Typer, system: Any, spec: CheckCommands | None = None) -> None:
    """Add ``check`` (and the book's verb), ``odds`` and ``checks`` to a system's sub-app."""
    spec = spec or CheckCommands()
    build_params = parameters_of(spec.build, INJECTED)
    defaults = {p.name: p.default for p in build_params}
    roll_params = parameters_of(spec.roll_options, ("check", "outcome", "hr")) if spec.roll_options else []
    takes = set(inspect.signature(spec.build).parameters)

    def shared(*extra: inspect.Parameter) -> list[inspect.Parameter]:
        def p(name: str, annotation: Any, default: Any = None) -> inspect.Parameter:
            return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)

        return [
            p("subject", SubjectArg),
            p("character", CharacterFileOpt),
            p("params", SetOpt),
            *build_params,
            *extra,
            p("house_rules", HouseRulesOpt),
            p("allow_illegal", AllowIllegalOpt, False),
            p("as_json", JsonOpt, False),
        ]

    def make(kw: dict[str, Any]) -> tuple[Any, Any, list[str]]:
        hr = load_house_rules(kw.pop("house_rules"), system)
        path, allow, subject = kw.pop("character"), kw.pop("allow_illegal"), kw.pop("subject")
        sets = check_params(kw.pop("params"))
        options = {k: kw.pop(k) for k in defaults}
        if path is None and allow:
            raise CheckError("--allow-illegal lets a character file through: it goes with -c/--character FILE")
        character = load_character(system, path, hr, allow_illegal=allow) if path is not None else None
        if subject is not None:
            return _named(subject, character, options, sets, hr), hr, []
        injected = {"hr": hr, "character": character, "allow_illegal": allow}
        built = spec.build(**{k: v for k, v in injected.items() if k in takes}, **options)
        if built is None:
            raise CheckError(
                "name the check: a kind of the catalogue, or -c FILE and one of the character's checks",
                hint=f"see 'storymaster {system.name} checks' (and 'checks -c FILE')",
            )
        check, notes = built if isinstance(built, tuple) else (built, [])
        if sets:  # --set changes any parameter of the check the options made
            check = system.make_check(system.kind_of(check), {**check.model_dump(mode="json"), **sets})
        return check, hr, list(notes)

    def _named(subject: str, character: Any, options: dict[str, Any], sets: dict[str, Any], hr: Any) -> Any:
        given = [n for n, v in options.items() if n != "difficulty" and v != defaults[n]]
        if given:
            flags = ", ".join(_flag(n, spec.build) for n in given)
            raise CheckError(
                f"{flags}: an option of the book's own way to make a check, not of a named check ({subject!r})",
                hint="change a named check's parameters with --set NAME=VALUE, or leave out the name",
            )
        if character is not None:
            base: Any = _find(character, subject, hr)
            kind = system.check_kind(base.check)
        else:
            base = kind = system.check_kind(subject)
        difficulty = options.get("difficulty")
        if difficulty is not None and kind.difficulty is None:
            if difficulty != defaults.get("difficulty"):  # given, not the book's default: it cannot apply
                raise CheckError(f"a {kind.name} check has no difficulty: leave out --difficulty", where="--difficulty")
        elif difficulty is not None:
            sets.setdefault(kind.difficulty, spec.difficulty_of(difficulty) if spec.difficulty_of else difficulty)
        return system.make_check(base, sets)

    def _find(character: Any, subject: str, hr: Any) -> Any:
        """The character's check named ``subject``. A name several kinds share (a skill's check and its
        contest) means the first kind in the catalogue's order that rolls against a difficulty rather
        than an opponent, as 'check' rolls it; a key (``skill:fire-magic``) is never ambiguous."""
        try:
            return system.find_check(character, subject, house_rules=hr)
        except RulesInputError:
            if ":" in subject:  # a key typed with the subject's own spelling: "opposed:Fire Magic"
                kind_name, _, rest = subject.partition(":")
                if entry_key(kind_name.strip(), rest) == subject:
                    raise
                return _find(character, entry_key(kind_name.strip(), rest), hr)
            for kind in system.check_kinds:
                if kind.opponent is None:
                    try:
                        return system.find_check(character, subject, check=kind.name, house_rules=hr)
                    except RulesInputError:
                        continue
            raise

    def notes_out(notes: list[str], as_json: bool) -> None:
        if notes and not as_json:
            console.print("modifiers: " + "; ".join(notes), markup=False)

    def check_body(kw: dict[str, Any]) -> None:
        seed, as_json = kw.pop("seed"), kw["as_json"]
        after = {p.name: kw.pop(p.name) for p in roll_params}
        check, hr, notes = make(kw)
        outcome = system.resolve(
            check, make_rng(seed, f"{system.name}-check" if spec.stream is None else spec.stream), hr
        )
        if spec.roll_options is not None:
            outcome = spec.roll_options(check, outcome, hr, **after)
        if spec.show is not None:
            spec.show(check, outcome, hr, as_json)
        else:
            emit_outcome(outcome, as_json)
        notes_out(notes, as_json)

    def odds_body(kw: dict[str, Any]) -> None:
        plot, as_json = kw.pop("plot"), kw["as_json"]
        check, hr, notes = make(kw)
        odds = system.odds(check, hr)
        if as_json and spec.odds_json is not None:
            if plot is not None:
                bars = [(k, float(v)) for k, v in odds.probabilities.items()]
                write_plot(plot, bars, odds.check, set(odds.success_outcomes))
            print_json(spec.odds_json(check, odds, hr, odds.to_json()))
        else:
            emit_odds(odds, as_json, plot)
        notes_out(notes, as_json)

    seed = inspect.Parameter("seed", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=SeedOpt)
    plot = inspect.Parameter("plot", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=PlotOpt)
    check_cmd = command_from("check", spec.check_help, shared(*roll_params, seed), check_body)
    book = f" The book's word for it: '{spec.verb}'." if spec.verb else ""
    app.command("check", help=spec.check_help + book)(check_cmd)
    if spec.verb:
        app.command(spec.verb)(check_cmd)
    app.command("odds")(command_from("odds", spec.odds_help, shared(plot), odds_body))

    @app.command("checks")
    def checks_cmd(
        character: CharacterFileOpt = None,
        house_rules: HouseRulesOpt = None,
        allow_illegal: AllowIllegalOpt = False,
        as_json: JsonOpt = False,
    ) -> None:
        """The check kinds of the catalogue, or with -c the checks a character can make (for 'check SUBJECT')."""
        if character is None and (allow_illegal or house_rules is not None):
            raise CheckError(
                "--house-rules and --allow-illegal are about a character's checks: they go with -c/--character FILE"
            )
        hr = load_house_rules(house_rules, system)
        if character is None:
            kinds = list(system.check_kinds)
            if as_json:
                print_json({"system": system.name, "kinds": [k.to_json() for k in kinds]})
                return
            for k in kinds:
                field = f"  (--difficulty sets {k.difficulty})" if k.difficulty else ""
                console.print(f"{k.name}: {k.title} - {k.summary}{field}", markup=False)
            return
        c = load_character(system, character, hr, allow_illegal=allow_illegal)
        entries = system.checks_for(c, hr)
        if as_json:
            print_json({"system": system.name, "checks": [e.to_json() for e in entries]})
            return
        for e in entries:
            needs = f"  (needs {', '.join(e.needs)})" if e.needs else ""
            console.print(f"{e.key}: {e.label}{needs}", markup=False)
