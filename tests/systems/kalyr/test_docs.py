"""Every command shown in docs/systems/kalyr.md runs; every test named in the rulings page exists."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
GUIDE = ROOT / "docs/systems/kalyr.md"
RULINGS = ROOT / "docs/rulings/kalyr.md"
COMMANDS = [line[2:] for line in GUIDE.read_text().splitlines() if line.startswith("$ storymaster ")]


def test_the_guide_has_examples():
    assert len(COMMANDS) >= 10


@pytest.mark.parametrize("command", COMMANDS)
def test_documented_command_runs(cli, command, monkeypatch):
    monkeypatch.chdir(ROOT)
    args = shlex.split(command)[1:]
    r = cli(*args)
    assert r.exit_code == 0, r.output


def test_rulings_cite_tests_that_exist():
    text = RULINGS.read_text()
    here = Path(__file__).parent
    cited = re.findall(r"`(test_\w+\.py)::(test_\w+)`", text) + [
        (None, name) for name in re.findall(r"`::(test_\w+)`", text)
    ]
    assert len(cited) >= 30
    sources = {p.name: p.read_text() for p in here.glob("test_*.py")}
    for file, name in cited:
        pool = [sources[file]] if file else list(sources.values())
        assert any(f"def {name}(" in s for s in pool), (file, name)
