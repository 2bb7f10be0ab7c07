"""Pieces every system's sub-app shares: options, loading files, and printing outcomes, odds and logs.

A system's CLI module (``storymaster.cli.systems.<name>``) builds a ``typer.Typer``
from these and registers it under the ``storymaster.cli`` entry-point group.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from pydantic import BaseModel
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..dice import DiceRng
from ..errors import InputFileError
from ..odds.chart import svg_bar_chart
from ..rules import Event, HouseRules, Outcome, OutcomeOdds, describe_house_rules, load_model
from .output import bar_rows, console, print_json

__all__ = [
    "HouseRulesOpt",
    "JsonOpt",
    "SeedOpt",
    "emit_events",
    "emit_odds",
    "emit_outcome",
    "load_file",
    "load_house_rules",
    "make_rng",
    "show_house_rules",
    "write_plot",
]

M = TypeVar("M", bound=BaseModel)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")]
SeedOpt = Annotated[str | None, typer.Option("--seed", help="Seed for the dice (the same seed gives the same rolls).")]
HouseRulesOpt = Annotated[
    Path | None,
    typer.Option("--house-rules", help="A YAML/JSON file of house-rule options (see the 'house-rules' command)."),
]


def make_rng(seed: str | None, stream: str = "") -> DiceRng:
    return DiceRng(seed, stream)


def load_file(path: Path | str, model: type[M]) -> M:
    return load_model(path, model)


def load_house_rules(path: Path | None, model: type[HouseRules]) -> HouseRules:
    if path is None:
        return model()
    return load_model(path, model)


def show_house_rules(model: type[HouseRules], as_json: bool) -> None:
    rows = describe_house_rules(model)
    if as_json:
        print_json({"house_rules": rows})
        return
    table = Table(show_lines=True)
    table.add_column("option")
    table.add_column("default")
    table.add_column("what it does")
    for r in rows:
        table.add_row(r["name"], str(r["default"]), r["description"])
    console.print(table)


def emit_outcome(outcome: Outcome, as_json: bool) -> None:
    if as_json:
        print_json(outcome.to_json())
        return
    body = Text()
    body.append(outcome.result, style="bold")
    if outcome.margin is not None:
        body.append(f" (margin {outcome.margin:+d})")
    for r in outcome.rolls:
        body.append(f"\n  {r.label + ': ' if r.label else ''}{r.detail}")
    body.append("\n" + outcome.explanation)
    # Text, not markup: explanations and dice may contain brackets; the panel wraps long lines
    console.print(Panel(body, title=Text(outcome.check), expand=False))


def emit_odds(odds: OutcomeOdds, as_json: bool, plot: Path | None = None) -> None:
    if plot is not None:
        write_plot(plot, [(k, float(v)) for k, v in odds.probabilities.items()], odds.check, set(odds.success_outcomes))
    if as_json:
        print_json(odds.to_json())
        return
    console.print(bar_rows(list(odds.probabilities.items()), title=odds.check))
    console.print(f"chance of success: [bold]{float(odds.p_success):.2%}[/bold] (exactly {odds.p_success})")
    for k, v in odds.extra.items():
        console.print(f"{k}: {float(v):.2%} (exactly {v})")
    if odds.note:
        console.print(odds.note)


def emit_events(events: Iterable[Event], as_json: bool, summary: dict[str, Any] | None = None) -> None:
    events = list(events)
    if as_json:
        print_json({"events": [e.to_json() for e in events], **(summary or {})})
        return
    current = None
    for e in events:
        if e.round != current:
            current = e.round
            console.rule(f"round {e.round}" if e.round else "")
        console.print(e.text, markup=False)
    if summary and "result" in summary:
        console.rule()
        console.print(Text(str(summary["result"]), style="bold"))


def write_plot(path: Path, bars: Sequence[tuple[str, float]], title: str, highlight: set[str] | None = None) -> None:
    """Save a bar chart as SVG (always available) or PNG (needs the 'plot' extra: matplotlib)."""
    suffix = path.suffix.lower()
    if suffix == ".svg":
        path.write_text(svg_bar_chart(bars, title=title, highlight=highlight), encoding="utf-8")
        return
    if suffix != ".png":
        raise InputFileError(f"{path}: a plot is written as .svg or .png", hint="name the file chart.svg or chart.png")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputFileError(
            "writing PNG needs matplotlib", hint="pip install 'storymaster[plot]', or write an .svg instead"
        ) from None
    fig, ax = plt.subplots(figsize=(8, 4))
    labels = [b[0] for b in bars]
    ax.bar(
        range(len(bars)),
        [b[1] for b in bars],
        color=["#b3541e" if highlight and label in highlight else "#2f5d8a" for label in labels],
    )
    ax.set_xticks(range(len(bars)), labels, rotation=90 if len(bars) > 20 else 0, fontsize=7 if len(bars) > 20 else 9)
    ax.set_ylabel("probability")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
