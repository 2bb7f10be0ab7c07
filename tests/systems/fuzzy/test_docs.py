"""The docs are run: every `$ storymaster fuzzy ...` example works, and every test the rulings cite exists."""

from __future__ import annotations

import re
import shlex

import pytest
from fuzzy_helpers import ROOT

GUIDE = ROOT / "docs" / "systems" / "fuzzy.md"
RULINGS = ROOT / "docs" / "rulings" / "fuzzy.md"
COMMANDS = [line[2:].strip() for line in GUIDE.read_text().splitlines() if line.startswith("$ storymaster ")]


def test_the_guide_has_examples():
    assert len(COMMANDS) >= 15


@pytest.mark.parametrize("command", COMMANDS)
def test_guide_command_runs(cli, monkeypatch, command):
    monkeypatch.chdir(ROOT)
    args = shlex.split(command)[1:]
    r = cli(*args)
    assert r.exit_code == 0, f"{command}\n{r.output}"
    assert r.stdout.strip()


def test_rulings_cite_tests_that_exist():
    text = RULINGS.read_text()
    cited = set(re.findall(r"(test_\w+\.py)::(test_\w+|\*)", text))
    assert len(cited) >= 30
    for file, name in cited:
        source = (ROOT / "tests" / "systems" / "fuzzy" / file).read_text()
        if name != "*":
            assert f"def {name}(" in source, f"{file}::{name} is cited but missing"


def test_rulings_answer_every_question_in_the_shared_list():
    text = RULINGS.read_text()
    for n in range(1, 6):
        assert f"### {n}." in text
    for option in (
        "contest_ties",
        "advantage_on_loss",
        "one_die_second_die_for_criticals",
        "disabilities_count_double_above_5",
        "critical_bonus_max_explosions",
    ):
        assert f"`{option}`" in text
