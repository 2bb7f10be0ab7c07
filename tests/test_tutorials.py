"""The notebook-style tutorials in docs/tutorial run as doctests from the repository root, one namespace a page."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYCON = re.compile(r"```pycon\n(.*?)```", re.S)


def run_page(page: Path) -> doctest.TestResults:
    text = "\n".join(PYCON.findall(page.read_text(encoding="utf-8")))
    test = doctest.DocTestParser().get_doctest(text, {"__name__": "__tutorial__"}, page.stem, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    return runner.summarize(verbose=False)


def test_the_python_tutorial_runs_as_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    page = ROOT / "docs" / "tutorial" / "python.md"
    text = page.read_text(encoding="utf-8")
    for system in ("blyss", "philsys", "bum", "kalyr", "fuzzy"):  # two example characters of each, a fight each
        assert len(re.findall(rf'load_character\("examples/{system}/', text)) >= 2, system
    assert text.count("Fight.start(") >= 5 and text.count(".forecast(") >= 5 and text.count(".odds(") >= 5
    result = run_page(page)
    assert result.failed == 0 and result.attempted > 40
