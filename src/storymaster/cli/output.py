"""Rendering for the terminal: Rich tables and bars, JSON, and errors on stderr."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = ["bar_rows", "console", "err_console", "print_json"]

# long lines wrap at the terminal width (panels and tables would otherwise crop them)
console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


def print_json(data: Any) -> None:
    """One JSON document on stdout (plain, so scripts can read it)."""
    sys.stdout.write(json.dumps(data, indent=2, default=_default) + "\n")
    sys.stdout.flush()


def _default(value: Any) -> Any:
    if isinstance(value, Fraction):
        return float(value)
    if hasattr(value, "to_json"):
        return value.to_json()
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def bar_rows(
    rows: Sequence[tuple[str, Fraction | float]],
    *,
    title: str = "",
    width: int = 40,
    extra: Sequence[Sequence[str]] | None = None,
    extra_headers: Sequence[str] = (),
) -> Table:
    """A table of outcomes with their probability and a bar (text, so it reads without colour)."""
    table = Table(title=title or None, show_edge=False, pad_edge=False)
    table.add_column("outcome", justify="right")
    table.add_column("chance", justify="right")
    for h in extra_headers:
        table.add_column(h, justify="right")
    table.add_column("", justify="left")
    top = max((float(p) for _, p in rows), default=0) or 1.0
    for i, (label, p) in enumerate(rows):
        p = float(p)
        bar = "█" * round(width * p / top)
        cells = [label, f"{p:.2%}", *(extra[i] if extra else ()), bar]
        table.add_row(*cells)
    return table
