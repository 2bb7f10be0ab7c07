"""`storymaster demo`: a short guided tour, run by `make run` until the table server lands."""

from __future__ import annotations

import shlex

from rich.rule import Rule
from typer.testing import CliRunner

from .output import console

STEPS: list[tuple[str, str]] = [
    ("Roll dice with a seed: the same seed always gives the same dice.", "roll 2d6+3 --seed 7"),
    ("Keep the best three of four d6, as for rolled abilities.", "roll 4d6kh3 --seed 42"),
    ("Exact odds before anyone rolls: Fudge dice as Kalyr uses them.", "odds 4dF"),
    ("Every command speaks JSON for scripts and bots.", "roll d20+5 --seed 1 --json"),
    ("The installed rule systems.", "systems"),
]


def run_demo() -> None:
    from .app import app

    runner = CliRunner()
    console.print(
        "[bold]Storymaster[/bold]: a tour of the command line. Each step shows the command, then its output.\n"
    )
    for text, cmd in STEPS:
        console.print(Rule(text))
        console.print(f"[bold]$ storymaster {cmd}[/bold]")
        result = runner.invoke(app, shlex.split(cmd))
        console.print(result.output.rstrip(), markup=False, highlight=False)
        console.print()
    console.print("Try 'storymaster --help', or 'storymaster <system> --help' for a system's own commands.")
