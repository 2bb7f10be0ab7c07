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
from .common import write_plot
from .output import bar_rows, console, err_console, print_json

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
PlotOpt = Annotated[Path | None, typer.Option("--plot", help="Save a chart of the forecast: FILE.svg or FILE.png.")]


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


def emit_forecast(forecast: Forecast, as_json: bool, plot: Path | None = None) -> None:
    if plot is not None:
        bars = [(f"{side_label(i)} wins", p) for i, p in enumerate(forecast.p_win)]
        bars.append((forecast.draw_meaning, forecast.p_draw))
        bars += [(f"r{r}", p) for r, p in sorted(forecast.rounds.items())]
        write_plot(plot, bars, f"{forecast.system} forecast ({forecast.method})")
    if as_json:
        print_json(forecast.to_json())
        return
    if forecast.method == "exact":
        how = f"exact (Markov chain; unresolved probability at most {forecast.error:.1e})"
    elif forecast.method == "simulated":
        how = (
            f"simulated: {forecast.samples or 0:,} fights, seed {forecast.seed}, 95% intervals (widest "
            f"+/-{forecast.error:.4f})"
        )
    else:
        how = f"the combat engine, fight by fight: {forecast.samples or 0:,} fights"
    table = Table(title=f"{forecast.system} forecast: {how}", show_edge=False)
    table.add_column("side")
    table.add_column("who")
    table.add_column("tactics")
    table.add_column("wins", justify="right")
    if forecast.intervals:
        table.add_column("95% interval", justify="right")
    for i, (names, p) in enumerate(zip(forecast.sides, forecast.p_win, strict=True)):
        label = side_label(i)
        row = [label, ", ".join(names), forecast.tactics.get(label, ""), f"{p:.2%}"]
        if forecast.intervals:
            lo, hi = forecast.intervals[i]
            row.append(f"{lo:.2%} .. {hi:.2%}")
        table.add_row(*(Text(c) for c in row))
    console.print(table)
    console.print(Text(f"{forecast.draw_meaning}: {forecast.p_draw:.2%}"))
    rounds = sorted(forecast.rounds.items())
    if rounds:
        head, tail = _head_and_tail(rounds)
        shown = [(str(r), p) for r, p in head] if len(head) <= 20 else _bucket(head)
        if tail:
            shown.append((f">{head[-1][0]}", tail))
        console.print(bar_rows(shown, title=f"rounds (mean {forecast.mean_rounds:.2f})"))
    if forecast.combatants:
        states = sorted({k for c in forecast.combatants for k in c.end_states})
        ends = Table(title="how each combatant ends", show_edge=False)
        ends.add_column("combatant")
        for s in states:
            ends.add_column(s, justify="right")
        for c in forecast.combatants:
            ends.add_row(Text(f"{c.name} ({side_label(c.side)})"), *(f"{c.end_states.get(s, 0.0):.2%}" for s in states))
        console.print(ends)
    for note in forecast.notes:
        console.print(Text(note))


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
