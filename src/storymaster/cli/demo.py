"""`storymaster demo`: a guided tour of the command line, every step a command you can copy.

The tour rolls dice and reads exact odds, then visits each installed system that has
example characters: a sheet, a check and its odds, one round of a fight, and the forecast
of that fight. Each step prints ``$ storymaster ...`` and then exactly what that command
prints when you run it yourself (the tests run every shown command and compare).

The example characters ship in the source tree (``examples/``); the tour finds them in the
current folder or next to the installed package and shows their paths as you would type
them from where you are.
"""

from __future__ import annotations

import os
import shlex
import time
from dataclasses import dataclass
from pathlib import Path

from rich.rule import Rule
from typer.testing import CliRunner

from .output import console

__all__ = ["STEPS", "SYSTEM_STEPS", "Step", "examples_dir", "tour"]


@dataclass(frozen=True)
class Step:
    """One step of the tour: what it shows, and the command (``{ex}`` is the examples folder)."""

    text: str
    command: str
    system: str = ""


STEPS: list[Step] = [
    Step("Roll dice with a seed: the same seed always gives the same dice.", "roll 2d6+3 --seed 7"),
    Step("Keep the best three of four d6, as for rolled abilities.", "roll 4d6kh3 --seed 42"),
    Step("Exact odds before anyone rolls: Fudge dice as Kalyr uses them.", "odds 4dF"),
    Step("Every command speaks JSON for scripts and bots.", "roll d20+5 --seed 1 --json"),
    Step("The installed rule systems.", "systems"),
]

# Per system: a sheet, a check and its exact odds, one round of a fight, the fight's forecast.
SYSTEM_STEPS: list[Step] = [
    Step(
        "BLYSS 3.5: a character sheet, checked against the creation rules.",
        "blyss sheet {ex}/blyss/warrior.yaml",
        "blyss",
    ),
    Step(
        "BLYSS: a Strength Test against TD 3, the dice explained.",
        "blyss check -c {ex}/blyss/warrior.yaml -s strength --td 3 --seed 7",
        "blyss",
    ),
    Step("BLYSS: the exact odds of that Test.", "blyss odds -c {ex}/blyss/warrior.yaml -s strength --td 3", "blyss"),
    Step(
        "BLYSS: one round of a fight (--save-state keeps it to go on with --state).",
        "blyss fight {ex}/blyss/warrior.yaml {ex}/blyss/rogue.yaml --rounds 1 --seed 7",
        "blyss",
    ),
    Step(
        "BLYSS: who wins that fight, and how each fighter ends it (simulated here, for speed).",
        "blyss forecast {ex}/blyss/warrior.yaml {ex}/blyss/rogue.yaml --method simulate --samples 5000",
        "blyss",
    ),
    Step("Philsys: a character sheet.", "philsys sheet {ex}/philsys/knight.yaml", "philsys"),
    Step(
        "Philsys: a COU check against TD 25 (d20 + COU x 3).",
        "philsys check -c {ex}/philsys/knight.yaml --stat-of COU --td 25 --seed 7",
        "philsys",
    ),
    Step("Philsys: its exact odds.", "philsys odds -c {ex}/philsys/knight.yaml --stat-of COU --td 25", "philsys"),
    Step(
        "Philsys: one round of a fight, AT against PA.",
        "philsys fight {ex}/philsys/knight.yaml {ex}/philsys/guard.yaml --rounds 1 --seed 7",
        "philsys",
    ),
    Step(
        "Philsys: the exact forecast of that fight (a Markov chain).",
        "philsys forecast {ex}/philsys/knight.yaml {ex}/philsys/guard.yaml",
        "philsys",
    ),
    Step("B.U.M.: a character sheet.", "bum sheet {ex}/bum/player1.yaml", "bum"),
    Step("B.U.M.: a STR roll against DC 8.", "bum check -c {ex}/bum/player1.yaml --stat STR --dc 8 --seed 7", "bum"),
    Step("B.U.M.: its exact odds.", "bum odds -c {ex}/bum/player1.yaml --stat STR --dc 8", "bum"),
    Step(
        "B.U.M.: one round of a fight.",
        "bum fight {ex}/bum/player1.yaml {ex}/bum/player2.yaml --rounds 1 --seed 7",
        "bum",
    ),
    Step(
        "B.U.M.: the exact forecast of that fight.", "bum forecast {ex}/bum/player1.yaml {ex}/bum/player2.yaml", "bum"
    ),
    Step("Kalyr: a character sheet.", "kalyr sheet {ex}/kalyr/karela.yaml", "kalyr"),
    Step(
        "Kalyr: a Stealth roll (4dF) against Fair.",
        "kalyr check -c {ex}/kalyr/karela.yaml --use Stealth --difficulty Fair --seed 7",
        "kalyr",
    ),
    Step(
        "Kalyr: its exact odds on the Trait Ladder.",
        "kalyr odds -c {ex}/kalyr/karela.yaml --use Stealth --difficulty Fair",
        "kalyr",
    ),
    Step(
        "Kalyr: a fight (the simple combat: one contest decides it).",
        "kalyr fight {ex}/kalyr/kylar.yaml {ex}/kalyr/bandit.yaml --rounds 1 --seed 7",
        "kalyr",
    ),
    Step(
        "Kalyr: the exact forecast of that fight.",
        "kalyr forecast {ex}/kalyr/kylar.yaml {ex}/kalyr/bandit.yaml",
        "kalyr",
    ),
    Step("A Loose and Fuzzy Game System: a character sheet.", "fuzzy sheet {ex}/fuzzy/sven.yaml", "fuzzy"),
    Step(
        "Fuzzy: a Body roll against 10.",
        "fuzzy check -c {ex}/fuzzy/sven.yaml -a Body --difficulty 10 --seed 7",
        "fuzzy",
    ),
    Step(
        "Fuzzy: its exact odds (criticals and the bonus die's capped tail).",
        "fuzzy odds -c {ex}/fuzzy/sven.yaml -a Body --difficulty 10",
        "fuzzy",
    ),
    Step(
        "Fuzzy: one round of a duel.",
        "fuzzy fight {ex}/fuzzy/sven.yaml {ex}/fuzzy/achmed.yaml --rounds 1 --seed 7",
        "fuzzy",
    ),
    Step(
        "Fuzzy: the exact forecast of that duel.", "fuzzy forecast {ex}/fuzzy/sven.yaml {ex}/fuzzy/achmed.yaml", "fuzzy"
    ),
]


def examples_dir(cwd: Path | None = None) -> Path | None:
    """The example characters: ``examples/`` in the current folder, else in the source tree of this package."""
    here = Path.cwd() if cwd is None else cwd
    for candidate in (here / "examples", Path(__file__).resolve().parents[3] / "examples"):
        if (candidate / "blyss" / "warrior.yaml").is_file():
            return candidate
    return None


def _shown(path: Path, cwd: Path) -> str:
    """The folder as you would type it from ``cwd``: relative when it is below it, else absolute."""
    try:
        rel = path.resolve().relative_to(cwd.resolve())
    except ValueError:
        return str(path.resolve())
    return rel.as_posix() if str(rel) != "." else "."


def tour(systems: list[str] | None = None, cwd: Path | None = None) -> list[tuple[Step, str]]:
    """The steps to show, each with its command filled in (paths as typed from ``cwd``).

    ``systems`` limits the system steps to those named (no dice steps then); installed
    systems without steps, and every system step when the examples are not found, are left out.
    """
    from ..rules import all_systems

    here = Path.cwd() if cwd is None else cwd
    installed = set(all_systems())
    out = [] if systems else [(s, s.command) for s in STEPS]
    ex = examples_dir(here)
    if ex is None:
        return out
    folder = _shown(ex, here)
    quoted = shlex.quote(folder)
    for s in SYSTEM_STEPS:
        if s.system in installed and (not systems or s.system in systems):
            out.append((s, s.command.format(ex=quoted)))
    return out


def run_demo(systems: list[str] | None = None) -> None:
    """Print the tour: each step's text, its command, then what the command prints."""
    from ..errors import PluginError
    from ..rules import all_systems
    from .app import app

    unknown = [s for s in systems or [] if s not in all_systems()]
    if unknown:
        raise PluginError(
            f"no rule system called {unknown[0]!r}", hint=f"installed: {', '.join(sorted(all_systems()))}"
        )
    runner = CliRunner()
    started = time.monotonic()
    console.print(
        "[bold]Storymaster[/bold]: a tour of the command line."
        " Each step shows a command you can copy, then its output.\n"
    )
    steps = tour(systems)
    for step, cmd in steps:
        console.print(Rule(step.text))
        # soft_wrap: the command stays one line (a terminal wraps it for the eye; a copy takes it whole),
        # and the output is shown exactly as the command printed it
        console.print(f"$ storymaster {cmd}", markup=False, highlight=False, style="bold", soft_wrap=True)
        result = runner.invoke(app, shlex.split(cmd))
        console.print(result.output.rstrip(), markup=False, highlight=False, soft_wrap=True)
        console.print()
    if examples_dir() is None and not systems:
        console.print(
            "The rule systems' steps need the example characters (examples/ in the source tree), which were not"
            " found from " + os.getcwd() + "."
        )
    console.print(
        f"{len(steps)} commands in {time.monotonic() - started:.0f} s. Try 'storymaster --help', or"
        " 'storymaster <system> --help' for a system's own commands; 'storymaster demo kalyr' tours one system."
        " The same from Python: docs/tutorial/python.md; the play-by-post table with a demo campaign per"
        " system: 'make run' (storymaster serve --demo)."
    )
