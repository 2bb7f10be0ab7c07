"""Questions for the interactive builders (``new``): asked on stderr, asked again on any bad answer.

A builder never exits on a wrong answer (a whole session would be lost): :func:`ask` says what
was wrong and asks the same question again. Prompts go to stderr, so ``new --json`` prints
exactly one JSON object on stdout.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

import typer
from pydantic import ValidationError

from ..errors import StorymasterError
from ..rules.files import validation_message
from .output import err_console

__all__ = ["ask", "ask_choice", "ask_int", "ask_yes", "say"]


def say(text: str) -> None:
    """A line for the person answering (running totals, budgets): on stderr, like the questions."""
    err_console.print(text, markup=False, highlight=False)


def ask(
    text: str,
    convert: Callable[[str], Any] = str,
    *,
    default: Any = None,
    check: Callable[[Any], str | None] | None = None,
    show_default: bool = True,
) -> Any:
    """Ask until the answer converts and passes ``check`` (which returns why not, or None)."""
    while True:
        raw = _read(text, default, show_default)
        try:
            value = convert(raw.strip() if isinstance(raw, str) else raw)
        except ValidationError as exc:
            say(validation_message(exc).split("\n", 1)[-1] + "\n  (try again)")
            continue
        except (ValueError, StorymasterError) as exc:
            say(f"  {exc} (try again)")
            continue
        why = check(value) if check is not None else None
        if why:
            say(f"  {why} (try again)")
            continue
        return value


def _int(raw: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{raw!r} is not a whole number") from None


def ask_int(
    text: str,
    *,
    default: int | None = None,
    lo: int | None = None,
    hi: int | None = None,
    check: Callable[[int], str | None] | None = None,
) -> int:
    """A whole number from ``lo`` to ``hi`` (either may be open)."""

    def in_range(v: int) -> str | None:
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            span = (
                f"from {lo} to {hi}"
                if lo is not None and hi is not None
                else (f"{lo} or more" if lo is not None else f"{hi} or less")
            )
            return f"{v} is out of range: {span}"
        return check(v) if check is not None else None

    return int(ask(text, _int, default=default, check=in_range))


def ask_choice(text: str, choices: Sequence[str], *, default: str | None = None) -> str:
    """One of ``choices`` (case-insensitive), answered with its name."""
    lower = {c.lower(): c for c in choices}

    def pick(raw: str) -> str:
        if raw.lower() not in lower:
            raise ValueError(f"{raw!r} is not one of: {', '.join(choices)}")
        return lower[raw.lower()]

    return str(ask(text, pick, default=default))


def ask_yes(text: str, *, default: bool = False) -> bool:
    """Yes or no (y/n), asked again on anything else."""

    def yes(raw: str) -> bool:
        if raw.lower() in ("y", "yes"):
            return True
        if raw.lower() in ("n", "no"):
            return False
        raise ValueError(f"{raw!r}: answer y or n")

    return bool(
        ask(f"{text} [{'Y/n' if default else 'y/N'}]", yes, default="y" if default else "n", show_default=False)
    )


def _read(text: str, default: Any, show_default: bool) -> str:
    """One answer: the question on stderr, the line from stdin; an empty line is the default.

    Not ``typer.prompt``: with ``err=True`` Click still writes the prompt's last space to stdout
    (through ``input(" ")``), so ``new --json`` would not print JSON alone.
    """
    shown = f" [{default}]" if default is not None and show_default else ""
    while True:
        sys.stderr.write(f"{text}{shown}: ")
        sys.stderr.flush()
        line = sys.stdin.readline()
        if not line:  # end of input: stop, as Click does
            sys.stderr.write("\n")
            raise typer.Abort()
        answer = line.rstrip("\r\n")
        if answer.strip():
            return answer
        if default is not None:
            return str(default)
