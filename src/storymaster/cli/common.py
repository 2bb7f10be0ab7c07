"""Pieces every system's sub-app shares: options, loading files, and printing outcomes, odds and logs.

A system's CLI module (``storymaster.cli.systems.<name>``) builds a ``typer.Typer``
from these and registers it under the ``storymaster.cli`` entry-point group.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from html import escape
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..dice import DiceRng
from ..errors import InputFileError
from ..odds.chart import svg_bar_chart
from ..rules import Event, HouseRules, Outcome, OutcomeOdds, describe_house_rules, load_model
from .output import bar_rows, console, print_json
from .vocab import HouseRulesOpt, JsonOpt, SeedOpt

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
    "write_chart",
    "write_plot",
]

M = TypeVar("M", bound=BaseModel)


def make_rng(seed: str | None, stream: str = "") -> DiceRng:
    return DiceRng(seed, stream)


def load_file(path: Path | str, model: type[M]) -> M:
    return load_model(path, model)


def load_house_rules(path: Path | None, system: Any) -> HouseRules:
    """A system's house rules from ``--house-rules FILE`` (the book's without one).

    Read by the system's own ``load_house_rules``, so a wrong option is the one ``HouseRulesError``
    naming the option and pointing to ``storymaster SYSTEM house-rules``. A bare model still works.
    """
    if hasattr(system, "load_house_rules"):
        return system.coerce_house_rules(None) if path is None else system.load_house_rules(path)
    if path is None:
        return system()  # type: ignore[no-any-return]
    return load_model(path, system)


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
    if outcome.rolls:
        body.append(f"\nseed {outcome.rolls[0].seed}", style="dim")
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


ChartPanel = tuple[str, Sequence[tuple[str, float]], set[str] | None]


def write_plot(path: Path, bars: Sequence[tuple[str, float]], title: str, highlight: set[str] | None = None) -> None:
    """Save a bar chart as SVG (always available) or PNG (needs the 'plot' extra: matplotlib)."""
    write_chart(path, [(title, bars, highlight)])


def write_chart(path: Path, panels: Sequence[ChartPanel], title: str = "") -> None:
    """Save one or more bar charts, stacked, as SVG or PNG: the same panels, titles, bars and labels in both."""
    suffix = path.suffix.lower()
    if suffix not in (".svg", ".png"):
        raise InputFileError(f"{path}: a plot is written as .svg or .png", hint="name the file chart.svg or chart.png")
    text_or_bytes: str | bytes = _svg_panels(panels, title) if suffix == ".svg" else _png_panels(panels, title)
    try:
        if isinstance(text_or_bytes, str):
            path.write_text(text_or_bytes, encoding="utf-8")
        else:
            path.write_bytes(text_or_bytes)
    except OSError as exc:
        raise InputFileError(f"{path}: cannot be written ({exc.strerror or exc})") from None


PANEL_W, PANEL_H, HEAD = 640, 320, 30


def _svg_panels(panels: Sequence[ChartPanel], title: str) -> str:
    if len(panels) == 1 and not title:
        name, bars, highlight = panels[0]
        return svg_bar_chart(bars, title=name, highlight=highlight)
    head = HEAD if title else 0
    height = head + PANEL_H * len(panels)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {PANEL_W} {height}" width="{PANEL_W}" '
        f'height="{height}" font-family="sans-serif">',
        f"<title>{escape(title or 'charts')}</title>",
        '<rect width="100%" height="100%" fill="#fff"/>',
    ]
    if title:
        parts.append(f'<text x="{PANEL_W / 2}" y="20" text-anchor="middle" font-size="15">{escape(title)}</text>')
    for k, (name, bars, highlight) in enumerate(panels):
        inner = svg_bar_chart(bars, title=name, highlight=highlight, width=PANEL_W, height=PANEL_H)
        inner = re.sub(r"\b(chart-title|chart-desc|hatch)\b", rf"\1-{k}", inner)  # ids stay unique in one document
        inner = inner.replace("<svg ", f'<svg x="0" y="{head + k * PANEL_H}" ', 1)
        parts.append(inner)
    parts.append("</svg>")
    return "\n".join(parts)


def _png_panels(panels: Sequence[ChartPanel], title: str) -> bytes:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputFileError(
            "writing PNG needs matplotlib", hint="pip install 'storymaster[plot]', or write an .svg instead"
        ) from None
    import io

    head = HEAD if title else 0
    fig, axes = plt.subplots(
        len(panels), 1, figsize=(PANEL_W / 100, (head + PANEL_H * len(panels)) / 100), squeeze=False
    )
    for ax, (name, bars, highlight) in zip(axes[:, 0], panels, strict=True):
        labels = [b[0] for b in bars]
        ax.bar(
            range(len(bars)),
            [b[1] for b in bars],
            color=["#b3541e" if highlight and lab in highlight else "#2f5d8a" for lab in labels],
        )
        every = max(1, round(len(bars) / 24))
        ax.set_xticks(
            [i for i in range(len(bars)) if i % every == 0],
            [lab for i, lab in enumerate(labels) if i % every == 0],
            fontsize=8 if len(bars) <= 12 else 7,
            rotation=0 if len(bars) <= 12 else 45,
        )
        ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=1))
        ax.set_title(name, fontsize=11)
    if title:
        fig.suptitle(title, fontsize=13)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=100, format="png")
    plt.close(fig)
    return buffer.getvalue()
