"""The ``storymaster`` command: dice, odds, systems, and one sub-app per rule system."""

from __future__ import annotations

import textwrap
from functools import cache
from pathlib import Path
from typing import Annotated, Any

import typer

from .. import __version__
from .errors import StorymasterGroup
from .system_help import SYSTEM_HELP
from .vocab import JsonOpt, SeedOpt, suggest, tidy

# Start-up (issue 17): this module imports only Typer and the CLI's own light modules. Each command
# imports what it uses when it runs (the dice for `roll`, the odds for `odds`, the rule systems for
# theirs, Rich for printing), so `storymaster roll d20` loads no numpy, icepool, pydantic, YAML,
# FastAPI or SQLAlchemy, and `--help` lists the five systems from SYSTEM_HELP without importing them
# (tests/cli/test_startup.py checks both).

__all__ = ["CLI_GROUP", "app", "main"]

CLI_GROUP = "storymaster.cli"
SYSTEMS_GROUP = "storymaster.systems"  # rules.registry's (not imported here: it loads the rules package)

app = typer.Typer(
    cls=None,  # set below, once _SystemCommands is defined
    name="storymaster",
    help="Storymaster: dice, exact odds and rules for five tabletop role-playing systems.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        from .output import console

        console.print(f"storymaster {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Storymaster: dice, exact odds and rules for five tabletop role-playing systems."""


@app.command("roll")
def roll_cmd(
    expression: Annotated[str, typer.Argument(help="Dice notation, e.g. '2d6+3', '4d6kh3', 'd6!', '4dF'.")],
    seed: SeedOpt = None,
    stream: Annotated[str, typer.Option(help="Stream name within the seed.")] = "",
    counter: Annotated[int, typer.Option(min=0, help="Position in the stream to start from (to replay a record).")] = 0,
    as_json: JsonOpt = False,
) -> None:
    """Roll dice. With --seed the roll is reproducible; the record says how to replay it."""
    from rich.markup import escape

    from ..dice import DiceRng, roll
    from .output import console, print_json

    record = roll(expression, DiceRng(seed, stream, counter))
    if as_json:
        print_json(record.to_json())
        return
    console.print(f"[bold]{record.total}[/bold]   {escape(record.detail)}")
    console.print(f"seed {record.seed}  stream {record.stream!r}  counter {record.counter}+{record.draws}", style="dim")


@app.command("odds")
def odds_cmd(
    expression: Annotated[str, typer.Argument(help="Dice notation, e.g. '3d6', '4d6kh3', '4dF'.")],
    plot: Annotated[Path | None, typer.Option("--plot", help="Also save a bar chart: FILE.svg or FILE.png.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Exact odds of a dice expression: every total, mean, spread, at-least and at-most."""
    from rich.markup import escape

    from ..odds import distribution
    from .output import bar_rows, console, print_json

    dist = distribution(expression)
    if plot is not None:
        from .common import write_plot

        write_plot(plot, [(str(o), float(p)) for o, p in dist.pmf().items()], f"{dist.expression}")
    if as_json:
        print_json(dist.to_json())
        return
    ge, le = dist.at_least_table(), dist.at_most_table()
    rows = list(dist.pmf().items())
    extra = [(f"{float(ge[o]):.2%}", f"{float(le[o]):.2%}") for o, _ in rows]
    console.print(
        bar_rows(
            [(str(o), p) for o, p in rows],
            title=escape(dist.expression),
            extra=extra,
            extra_headers=("at least", "at most"),
        )
    )
    console.print(f"mean {float(dist.mean):.4g}  sd {dist.sd:.4g}  range {dist.min}..{dist.max}")
    if dist.truncated:
        console.print(
            f"explosions or rerolls capped at their depth: {float(dist.truncated):.3g} "
            "of the probability is folded into the capped totals"
        )


@app.command("replay")
def replay_cmd(
    record_file: Annotated[Path, typer.Argument(help="A roll record as JSON (from 'roll --json').")],
    as_json: JsonOpt = False,
) -> None:
    """Check a roll record: roll it again from its seed and compare."""
    from rich.markup import escape

    from ..dice import RollRecord, replay, verify
    from ..rules import load_document
    from .output import console, print_json

    record = RollRecord.from_json(load_document(record_file))
    verify(record)
    again = replay(record)
    if as_json:
        print_json({"verified": True, "record": again.to_json()})
    else:
        console.print(f"verified: {escape(again.detail)}")


@app.command("systems")
def systems_cmd(as_json: JsonOpt = False) -> None:
    """The installed rule systems (and any that failed to load)."""
    from rich.table import Table

    from ..rules import all_systems, load_failures
    from .output import console, print_json

    systems, failed = all_systems(), load_failures()
    if as_json:
        print_json(
            {
                "systems": [{"name": s.name, "title": s.title, "version": s.version} for s in systems.values()],
                "failed": failed,
            }
        )
        return
    table = Table(show_edge=False)
    table.add_column("name")
    table.add_column("title")
    table.add_column("version")
    for s in systems.values():
        table.add_row(s.name, s.title, s.version)
    console.print(table)
    for name, why in failed.items():
        console.print(f"[red]{name}[/red] failed to load: {why}")


@app.command("house-rules")
def house_rules_cmd(
    system: Annotated[str, typer.Argument(help="A system name (see 'storymaster systems').")],
    as_json: JsonOpt = False,
) -> None:
    """A system's optional rules, each with the book's default."""
    from ..rules import get_system
    from .common import show_house_rules

    show_house_rules(get_system(system).house_rules_model, as_json)


@app.command("demo")
def demo_cmd(
    systems: Annotated[
        list[str] | None, typer.Argument(help="Tour only these systems (default: dice, odds and every system).")
    ] = None,
) -> None:
    """A short guided tour of the CLI.

    Dice and exact odds, then for each rule system a sheet, a check and its odds, a round of
    a fight and its forecast: every step shows a command you can copy, then its output.
    """
    from .demo import run_demo

    run_demo(systems or None)


from .serve import serve_cmd, verify_cmd  # noqa: E402  (the table server and its offline checker)

app.command("serve")(serve_cmd)
app.command("verify")(verify_cmd)


class _SystemCommands(StorymasterGroup):
    """The root group, with each system's sub-app loaded only when its name is used.

    Importing a rule system builds all its models (a few hundred milliseconds for the five),
    so ``storymaster roll d6`` should not pay for them. A plugin that fails to load becomes
    a command that says why, and never breaks the others.
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        tidy(self)  # the root's own options too (--version), and the built-in commands
        return super().parse_args(ctx, args)

    def list_commands(self, ctx: Any) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(_system_entry_points()) | set(_rule_system_names()))

    def get_command(self, ctx: Any, name: str) -> Any:
        command = super().get_command(ctx, name)
        if command is not None:
            return tidy(command)
        ep = _system_entry_points().get(name)
        if ep is not None:
            return tidy(_load_system_command(ep))
        if name in _rule_system_names():  # a system with no CLI module: the shared commands, generated
            return tidy(_generic_command(name))
        return None

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """``--help``'s command list; a built-in system is listed from SYSTEM_HELP, not imported.

        Click's own listing loads every command to ask for its help line: for the five systems that
        is most of the start-up time of ``storymaster --help``.
        """
        rows: list[tuple[str, Any]] = []  # (name, its help line or its command)
        for name in self.list_commands(ctx):
            ep = _system_entry_points().get(name)
            known = SYSTEM_HELP.get(name)
            if ep is not None and known is not None and known[0] == ep.value:
                rows.append((name, known[1]))
                continue
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command))
        if not rows:
            return
        limit = formatter.width - 6 - max(len(name) for name, _ in rows)
        listed = [(name, item if isinstance(item, str) else item.get_short_help_str(limit)) for name, item in rows]
        with formatter.section("Commands"):
            formatter.write_dl(listed)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name = args[0] if args else ""
        if args and not name.startswith("-") and self.get_command(ctx, name) is None:
            ctx.fail(f"No such command {name!r}.{suggest(name, self.list_commands(ctx))}")
        return super().resolve_command(ctx, args)


@cache
def _system_entry_points() -> dict[str, Any]:
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=CLI_GROUP)}


@cache
def _rule_system_names() -> frozenset[str]:
    """Systems registered under ``storymaster.systems`` (their names only: nothing is imported)."""
    from importlib.metadata import entry_points

    return frozenset(ep.name for ep in entry_points(group=SYSTEMS_GROUP))


@cache
def _generic_command(name: str) -> Any:
    import typer.main

    from ..rules import get_system
    from .shared import generic_app

    command = typer.main.get_command(generic_app(get_system(name)))
    command.name = name
    return command


@cache
def _load_system_command(ep: Any) -> Any:
    import typer.main

    try:
        sub = ep.load()
    except Exception as exc:  # a broken plugin must not break the whole CLI
        why = f"{type(exc).__name__}: {exc}"  # `exc` is unbound once the except block ends
        broken = typer.Typer()

        @broken.command(ep.name, help=f"(failed to load: {why})")
        def _broken() -> None:
            raise typer.BadParameter(f"the {ep.name} commands failed to load: {why}")

        return typer.main.get_command(broken)
    command = typer.main.get_command(sub)
    command.name = ep.name
    if command.help and not command.short_help:  # whole, not cut at a first full stop ("B.U.M.")
        command.short_help = textwrap.shorten(command.help.splitlines()[0], 72, placeholder="...")
    return command


app.info.cls = _SystemCommands


def main() -> None:
    app(prog_name="storymaster")
