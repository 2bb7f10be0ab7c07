"""The ``storymaster`` command: dice, odds, systems, and one sub-app per rule system."""

from __future__ import annotations

import textwrap
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Annotated, Any

import typer
import typer.main
from rich.markup import escape
from rich.table import Table

from .. import __version__
from ..dice import DiceRng, replay, roll
from ..odds import distribution
from ..rules import all_systems, get_system, load_failures
from .common import JsonOpt, SeedOpt, show_house_rules, write_plot
from .errors import StorymasterGroup
from .output import bar_rows, console, print_json
from .vocab import suggest, tidy

__all__ = ["CLI_GROUP", "app", "main"]

CLI_GROUP = "storymaster.cli"

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
    dist = distribution(expression)
    if plot is not None:
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
    from ..dice import RollRecord, verify
    from ..rules import load_document

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
    show_house_rules(get_system(system).house_rules_model, as_json)


@app.command("demo")
def demo_cmd() -> None:
    """A short guided tour of the CLI."""
    from .demo import run_demo

    run_demo()


from .serve import serve_cmd, verify_cmd  # noqa: E402  (the table server and its offline checker)

app.command("serve")(serve_cmd)
app.command("verify")(verify_cmd)


class _SystemCommands(StorymasterGroup):
    """The root group, with each system's sub-app loaded only when its name is used.

    Importing a rule system builds all its models (a few hundred milliseconds for the five),
    so ``storymaster roll d6`` should not pay for them. A plugin that fails to load becomes
    a command that says why, and never breaks the others.
    """

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

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name = args[0] if args else ""
        if args and not name.startswith("-") and self.get_command(ctx, name) is None:
            ctx.fail(f"No such command {name!r}.{suggest(name, self.list_commands(ctx))}")
        return super().resolve_command(ctx, args)


@cache
def _system_entry_points() -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group=CLI_GROUP)}


@cache
def _rule_system_names() -> frozenset[str]:
    """Systems registered under ``storymaster.systems`` (their names only: nothing is imported)."""
    from ..rules.registry import SYSTEMS_GROUP

    return frozenset(ep.name for ep in entry_points(group=SYSTEMS_GROUP))


@cache
def _generic_command(name: str) -> Any:
    from .shared import generic_app

    command = typer.main.get_command(generic_app(get_system(name)))
    command.name = name
    return command


@cache
def _load_system_command(ep: Any) -> Any:
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
