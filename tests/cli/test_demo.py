"""`storymaster demo`: every step shows a command the user can copy, then exactly what that command prints."""

from __future__ import annotations

import re
import shlex
import time
from pathlib import Path

import pytest

from storymaster.cli.demo import SYSTEM_STEPS, tour

ROOT = Path(__file__).resolve().parents[2]
SHOWN = re.compile(r"^\$ storymaster (.+)$", re.M)


@pytest.fixture
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)
    return ROOT


def test_the_tour_covers_dice_odds_and_every_system(at_root) -> None:
    commands = [cmd for _, cmd in tour()]
    assert any(c.startswith("roll ") for c in commands) and any(c.startswith("odds ") for c in commands)
    for system in ("blyss", "philsys", "bum", "kalyr", "fuzzy"):
        verbs = [c.split()[1] for c in commands if c.split()[0] == system]
        assert verbs == ["sheet", "check", "odds", "fight", "forecast"], system
    assert all("examples/" in c for c in commands if c.split()[0] in {"blyss", "philsys", "bum", "kalyr", "fuzzy"})


def test_every_shown_command_prints_what_the_demo_shows(at_root, cli) -> None:
    started = time.monotonic()
    demo = cli("demo")
    took = time.monotonic() - started
    assert demo.exit_code == 0, demo.output
    shown = SHOWN.findall(demo.stdout)
    steps = tour()
    assert shown == [cmd for _, cmd in steps]  # one shown command a step, in order, each one line
    for cmd in shown:
        r = cli(*shlex.split(cmd))  # what the user gets by copying the line
        assert r.exit_code == 0, (cmd, r.output)
        assert f"$ storymaster {cmd}\n{r.output.rstrip()}\n" in demo.stdout, cmd
        assert "error" not in r.output.lower().split("\n")[0], cmd
    assert took < 60, f"the tour took {took:.0f} s"


def test_from_another_folder_the_paths_are_absolute_and_still_run(tmp_path, monkeypatch, cli) -> None:
    monkeypatch.chdir(tmp_path)
    steps = tour(["kalyr"])
    assert [s.system for s, _ in steps] == ["kalyr"] * 5
    for _, cmd in steps:
        args = shlex.split(cmd)
        assert any(Path(a).is_absolute() and Path(a).is_file() for a in args), cmd
    r = cli(*shlex.split(steps[2][1]))  # the odds step, copied into a shell somewhere else
    assert r.exit_code == 0 and "22/27" in r.stdout  # Good against Fair on 4dF: 22/27 (Kalyr: -1 or better)


def test_one_system_and_a_wrong_name(at_root, cli) -> None:
    r = cli("demo", "bum")
    assert r.exit_code == 0
    assert SHOWN.findall(r.stdout) == [s.command.format(ex="examples") for s in SYSTEM_STEPS if s.system == "bum"]
    r = cli("demo", "gurps")
    assert r.exit_code == 2 and "no rule system called 'gurps'" in r.stderr and "Traceback" not in r.output


def test_without_the_examples_the_tour_says_why(tmp_path, monkeypatch, cli) -> None:
    import storymaster.cli.demo as demo

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(demo, "examples_dir", lambda cwd=None: None)  # an installed wheel: no examples/
    r = cli("demo")
    assert r.exit_code == 0
    assert [c.split()[0] for c in SHOWN.findall(r.stdout)] == [s.command.split()[0] for s in demo.STEPS]
    assert "need the example characters" in r.stdout
