"""The tutorials in docs/tutorial run as notebooks: their files, console commands and ``>>>`` lines, as shown.

tools/pycon_outputs.py runs a page (``fill`` rewrites its outputs; ``check`` lists where page and code differ).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "docs" / "tutorial"


@pytest.fixture(scope="module")
def pages():
    spec = importlib.util.spec_from_file_location("pycon_outputs", ROOT / "tools" / "pycon_outputs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["pycon_outputs"] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("pycon_outputs", None)


def test_the_python_tutorial_runs_as_shown(pages) -> None:
    page = TUTORIAL / "python.md"
    text = page.read_text(encoding="utf-8")
    for system in ("blyss", "philsys", "bum", "kalyr", "fuzzy"):  # two example characters of each, a fight each
        assert len(re.findall(rf'load_character\("examples/{system}/', text)) >= 2, system
    assert text.count("Fight.start(") >= 5 and text.count(".forecast(") >= 5 and text.count(".odds(") >= 5
    problems, ran = pages.check(page)
    assert problems == [] and ran > 40


def test_the_own_system_tutorial_builds_a_sixth_system_that_works(pages) -> None:
    page = TUTORIAL / "own-system.md"
    text = page.read_text(encoding="utf-8")
    files = pages.page_files(text)
    assert {"pyproject.toml", "src/pebble_rpg/__init__.py", "ann.yaml", "bo.yaml"} <= set(files)
    assert 'pebble = "pebble_rpg:SYSTEM"' in files["pyproject.toml"]
    problems, ran = pages.check(page)
    assert problems == [] and ran >= 10
    with pages.installed(files):  # installed through its entry point, and only then
        from storymaster.rules import all_systems, get_system

        pebble = get_system("pebble")
        assert type(pebble).__module__ == "pebble_rpg" and len(all_systems()) >= 6
        # the book's odds, computed here independently: 3 dice for a 5+ miss with (4/6)^3
        from fractions import Fraction

        assert pebble.odds(pebble.make_check("roll", {"dice": 3})).p_success == 1 - Fraction(4, 6) ** 3
        from rules.contract import Subject, run_contract

        run_contract(  # what the page promises: the checks every built-in system passes
            Subject(
                pebble,
                characters=[{"name": "Ann", "grit": 4, "knacks": {"climbing": 2}}, {"name": "Bo", "grit": 3}],
                house_rules=[{}, {"points": 10, "target": 4}],
                schema=pebble.character_model.model_json_schema(),
            )
        )
    from storymaster.rules import all_systems

    assert "pebble" not in all_systems()  # and gone again: the scratch install leaves nothing behind


def test_a_page_that_drifts_from_the_code_is_caught(pages, tmp_path) -> None:
    page = tmp_path / "drift.md"
    page.write_text("```pycon\n>>> 1 + 1\n3\n```\n\n```console\n$ storymaster roll 2d6 --seed 7\n11\n```\n")
    problems, ran = pages.check(page)
    assert ran == 2 and len(problems) == 2
