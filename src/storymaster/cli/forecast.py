"""Shared pieces of every system's ``forecast`` command: sides, rendering, progress, plot."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from ..errors import InputFileError
from ..forecast import Forecast, side_label
from .common import write_chart
from .output import bar_rows, console, err_console, print_json
from .vocab import PlotOpt

__all__ = [
    "MethodOpt",
    "PlotOpt",
    "SamplesOpt",
    "StateOpt",
    "VsOpt",
    "emit_forecast",
    "forecast_progress",
    "split_sides",
]

VsOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--vs", help="The opposing side's files (repeat --vs for each); the positional files are then one side."
    ),
]
StateOpt = Annotated[
    Path | None, typer.Option("--state", help="Forecast from a saved fight state (JSON from 'fight --save-state').")
]
SamplesOpt = Annotated[
    int, typer.Option("--samples", min=100, max=10_000_000, help="Fights to simulate when not exact.")
]
MethodOpt = Annotated[
    str, typer.Option("--method", help="auto (exact where the state space allows), exact, or simulate.")
]


def split_sides(files: Sequence[Path], vs: Sequence[Path] | None) -> list[list[Path]]:
    """``A B`` is A against B; ``A B C --vs X Y`` is the team A, B, C against the team X, Y."""
    files = list(files or [])
    if vs:
        if not files:
            raise InputFileError("name the first side's files before --vs")
        return [files, list(vs)]
    if len(files) != 2:
        raise InputFileError(
            f"give two files (one a side), or one side's files then --vs and the other side's; got {len(files)}",
            hint="e.g. 'forecast a.yaml b.yaml' or 'forecast a.yaml b.yaml --vs x.yaml --vs y.yaml'",
        )
    return [[files[0]], [files[1]]]


def check_method(method: str) -> str:
    if method not in ("auto", "exact", "simulate"):
        raise typer.BadParameter(f"--method is auto, exact or simulate, not {method!r}")
    return method


@contextmanager
def forecast_progress(label: str = "simulating", *, after: float = 0.3) -> Iterator[Callable[[int, int], None]]:
    """A progress callback that shows a bar on stderr once the work has taken longer than ``after`` seconds."""
    start = time.monotonic()
    progress: Progress | None = None
    task = None

    def update(done: int, total: int) -> None:
        nonlocal progress, task
        if progress is None:
            if time.monotonic() - start < after or done >= total:
                return
            progress = Progress(
                TextColumn(label),
                BarColumn(),
                TextColumn("{task.completed:,}/{task.total:,}"),
                TimeRemainingColumn(),
                console=err_console,
                transient=True,
            )
            progress.start()
            task = progress.add_task(label, total=total)
        progress.update(task, completed=done)

    try:
        yield update
    finally:
        if progress is not None:
            progress.stop()


def forecast_panels(forecast: Forecast) -> list[tuple[str, list[tuple[str, float]], set[str] | None]]:
    """The two charts of a forecast: who wins (each side by its fighters' names, and the draw) and how long."""
    wins = [(_side_name(forecast, i), p) for i, p in enumerate(forecast.p_win)]
    wins.append(("draw" if forecast.draw_meaning.startswith("draw") else "no winner", forecast.p_draw))
    return [
        ("who wins", wins, None),
        (f"how long: rounds (mean {forecast.mean_rounds:.1f})", _round_bars(forecast), None),
    ]


def _side_name(forecast: Forecast, i: int) -> str:
    names = forecast.sides[i]
    shown = ", ".join(names) if len(names) <= 2 else f"{names[0]} +{len(names) - 1}"
    return f"{shown} ({side_label(i)})"


def _round_bars(forecast: Forecast) -> list[tuple[str, float]]:
    rounds = sorted(forecast.rounds.items())
    if not rounds:
        return []
    head, tail = _head_and_tail(rounds)
    shown = [(str(r), p) for r, p in head] if len(head) <= 20 else _bucket(head)
    if tail:
        shown.append((f">{head[-1][0]}", tail))
    return shown


def emit_forecast(forecast: Forecast, as_json: bool, plot: Path | None = None) -> None:
    if plot is not None:
        write_chart(plot, forecast_panels(forecast), f"{forecast.system} forecast ({forecast.method})")
    if as_json:
        print_json(forecast.to_json())
        return
    if forecast.method == "exact":
        how = f"exact (Markov chain; unresolved probability at most {forecast.error:.1e})"
    elif forecast.method == "simulated":
        how = (
            f"simulated: {forecast.samples or 0:,} fights, seed {forecast.seed}, "
            f"95% intervals (widest +/-{forecast.error:.4f})"
        )
    else:
        how = f"the combat engine, fight by fight: {forecast.samples or 0:,} fights"
    console.print(Text(f"{forecast.system} forecast: {how}", style="bold"))
    table = Table(show_edge=False, title="who wins")
    table.add_column("side")
    table.add_column("who", overflow="fold")
    table.add_column("tactics", overflow="fold")
    table.add_column("wins", justify="right", no_wrap=True)
    if forecast.intervals:
        table.add_column("95% interval", justify="right", no_wrap=True)
    for i, (names, p) in enumerate(zip(forecast.sides, forecast.p_win, strict=True)):
        label = side_label(i)
        row = [label, ", ".join(names), forecast.tactics.get(label, ""), f"{p:.2%}"]
        if forecast.intervals:
            lo, hi = forecast.intervals[i]
            row.append(f"{lo:.2%}..{hi:.2%}")
        table.add_row(*(Text(c) for c in row))
    console.print(table)
    console.print(Text(f"{forecast.draw_meaning}: {forecast.p_draw:.2%}"))
    shown = _round_bars(forecast)
    if shown:
        console.print(bar_rows(shown, title=f"how long: rounds (mean {forecast.mean_rounds:.2f})", width=30))
    if forecast.combatants:
        _end_states_table(forecast)
    for note in forecast.notes:
        console.print(Text(note))


def _end_states_table(forecast: Forecast, per_table: int = 5) -> None:
    """How each combatant ends: end states as rows (mildest first), combatants as columns, 80 columns wide."""
    states = forecast.ordered_end_states()
    people = list(forecast.combatants)
    for start in range(0, len(people), per_table):  # more combatants than fit: several tables, same rows
        chunk = people[start : start + per_table]
        ends = Table(title="how each combatant ends", show_edge=False)
        ends.add_column("end state", overflow="fold", min_width=10, max_width=22)
        for c in chunk:
            ends.add_column(Text(f"{c.name} ({side_label(c.side)})"), justify="right", overflow="fold", min_width=7)
        for state in states:
            ends.add_row(Text(state), *(f"{c.end_states.get(state, 0.0):.2%}" for c in chunk))
        console.print(ends)


def _head_and_tail(rounds: list[tuple[int, float]], share: float = 0.999) -> tuple[list[tuple[int, float]], float]:
    """The rounds up to where ``share`` of the fights have ended, and what is left after them."""
    total = sum(p for _, p in rounds)
    running = 0.0
    for i, (_, p) in enumerate(rounds):
        running += p
        if running >= share * total:
            return rounds[: i + 1], total - running
    return rounds, 0.0


def _bucket(rounds: list[tuple[int, float]], buckets: int = 20) -> list[tuple[str, float]]:
    lo, hi = rounds[0][0], rounds[-1][0]
    width = max(1, -(-(hi - lo + 1) // buckets))
    out: dict[int, float] = {}
    for r, p in rounds:
        key = lo + (r - lo) // width * width
        out[key] = out.get(key, 0.0) + p
    return [(f"{k}-{k + width - 1}" if width > 1 else str(k), p) for k, p in sorted(out.items())]
