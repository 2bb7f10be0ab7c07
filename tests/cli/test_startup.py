"""Start-up (issue 17): what each command imports, checked in a fresh process through ``sys.modules``.

A plain roll loads the dice and Typer, nothing else of weight; ``odds`` adds the exact engine but not
icepool or numpy for a one-term question; ``--help`` lists the five systems without importing them.
The time figures themselves are measured by ``make bench`` (bench/startup.py), never here.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("numpy", "icepool", "pydantic", "yaml", "ruamel", "fastapi", "starlette", "sqlalchemy", "uvicorn", "argon2")
OURS_HEAVY = (
    "storymaster.rules",
    "storymaster.systems",
    "storymaster.web",
    "storymaster.store",
    "storymaster.forecast",
)

_PROBE = """
import contextlib, io, json, sys
sys.argv = ["storymaster", *json.loads(sys.argv[1])]
from storymaster.cli.app import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    else:
        code = 0
sys.__stdout__.write(json.dumps({"code": code, "out": out.getvalue(), "modules": sorted(sys.modules)}))
"""


def _modules_after(*args: str) -> tuple[set[str], str]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(list(args))], capture_output=True, text=True, check=True
    )
    report = json.loads(done.stdout)
    assert report["code"] in (0, None), done.stderr
    return set(report["modules"]), report["out"]


def _loaded(modules: set[str], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in prefixes or m.startswith(prefixes))


def test_a_plain_roll_imports_only_the_dice() -> None:
    modules, out = _modules_after("roll", "d20", "--seed", "7")
    assert "1d20[" in out
    assert {"storymaster.dice", "storymaster.dice.roller", "typer"} <= modules
    assert _loaded(modules, HEAVY) == []
    assert _loaded(modules, (*OURS_HEAVY, "storymaster.odds")) == []
    assert "importlib.metadata" not in modules  # entry points are read only to list or load systems


def test_odds_of_a_one_term_question_loads_the_engine_but_not_icepool_or_numpy() -> None:
    modules, out = _modules_after("odds", "3d6", "--json")
    assert json.loads(out)["mean"] == 10.5
    assert "storymaster.odds.engine" in modules
    assert _loaded(modules, HEAVY) == []
    assert _loaded(modules, OURS_HEAVY) == []


def test_help_lists_every_system_without_importing_any() -> None:
    modules, out = _modules_after("--help")
    for name in ("blyss", "bum", "fuzzy", "kalyr", "philsys"):
        assert f"  {name} " in out
    assert _loaded(modules, HEAVY) == []
    assert _loaded(modules, (*OURS_HEAVY, "storymaster.dice", "storymaster.odds", "storymaster.cli.systems")) == []
    assert "rich" not in modules


def test_a_system_command_still_loads_its_system() -> None:
    modules, out = _modules_after("kalyr", "--help")
    assert "storymaster.cli.systems.kalyr" in modules and "Usage:" in out


def test_the_static_help_table_matches_the_systems() -> None:
    """SYSTEM_HELP is what each loaded system command says of itself, for exactly the built-in systems."""
    from storymaster.cli import app as cli_app
    from storymaster.cli.system_help import SYSTEM_HELP
    from storymaster.rules.registry import SYSTEMS_GROUP

    assert cli_app.SYSTEMS_GROUP == SYSTEMS_GROUP
    eps = cli_app._system_entry_points()
    assert set(SYSTEM_HELP) == {n for n, ep in eps.items() if ep.value.startswith("storymaster.cli.systems.")}
    for name, (value, line) in SYSTEM_HELP.items():
        assert eps[name].value == value
        loaded = cli_app._load_system_command(eps[name])
        for limit in (20, 45, 80):  # a short_help is shown whole at any width, as the table's line is
            assert loaded.get_short_help_str(limit) == line, name


@pytest.mark.parametrize("counter", ["-1", "abc"])
def test_skipping_typer_coercion_keeps_its_refusals(cli, counter: str) -> None:
    """A value given as text still goes through Typer's own checks (only unchanged defaults are skipped)."""
    result = cli("roll", "d20", "--counter", counter)
    assert result.exit_code == 2 and "Invalid value for '--counter'" in result.output


def test_a_given_counter_is_used(cli) -> None:
    result = cli("roll", "d20", "--seed", "7", "--counter", "3", "--json")
    assert json.loads(result.stdout)["counter"] == 3
