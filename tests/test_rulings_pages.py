"""Every test a rulings page names exists (issue 14: "every 'Tests:' reference ... names a test that exists").

A rulings page (docs/rulings/<system>.md) pins each ruling with tests under tests/systems/<system>/,
written in backticks in one of these forms:

- ``test_file.py`` (the whole file),
- ``test_file.py::test_name`` (also ``test_name*`` for a family, ``test_name[param-id]`` for one case,
  ``test_file.py::TestClass::test_name``),
- ``::test_name`` or a bare ``test_name``: in the file named last before it on the page.

The checker reads the test files' syntax trees (no import), so a renamed or deleted test, or a reference
to the wrong file, fails here with the page, the line and the reference.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "docs" / "rulings"
SYSTEMS = ("blyss", "philsys", "bum", "kalyr", "fuzzy")

_SPAN = re.compile(r"`([^`\n]+)`")
_REF = re.compile(
    r"^(?P<file>test_\w+\.py)?(?P<path>(?:::\w+\*?)*)(?:\[[^\]]*\])?$|^(?P<bare>test_\w+\*?)(?:\[[^\]]*\])?$"
)


@cache
def _names(path: Path) -> frozenset[str]:
    """Every test function a file defines: 'test_x' and 'TestClass::test_x'."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.add(node.name)
        elif isinstance(node, ast.ClassDef):
            out.add(node.name)
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out.add(f"{node.name}::{sub.name}")
    return frozenset(out)


def references(text: str) -> list[tuple[int, str, str, str | None]]:
    """(line, the reference as written, file, test name or None for the whole file) for each test reference."""
    found: list[tuple[int, str, str, str | None]] = []
    current: str | None = None
    for lineno, line in enumerate(text.splitlines(), 1):
        for span in _SPAN.findall(line):
            span = span.strip()
            if "test_" not in span and not span.startswith("::"):
                continue
            m = _REF.match(span)
            if m is None:
                continue
            if m["bare"]:
                name: str | None = m["bare"]
                file = current
            else:
                if not m["file"] and not m["path"]:
                    continue
                file = m["file"] or current
                name = m["path"][2:] if m["path"] else None
                if m["file"]:
                    current = m["file"]
            found.append((lineno, span, file or "?", name))
    return found


def broken_references(system: str) -> list[str]:
    page = PAGES / f"{system}.md"
    tests = ROOT / "tests" / "systems" / system
    problems = []
    for lineno, span, file, name in references(page.read_text(encoding="utf-8")):
        where = f"{page.relative_to(ROOT)}:{lineno}: `{span}`"
        path = tests / file
        if not path.is_file():
            problems.append(f"{where}: no file tests/systems/{system}/{file}")
            continue
        if name is None:
            continue
        names = _names(path)
        if not any(fnmatch.fnmatchcase(n, name) for n in names):
            problems.append(f"{where}: {file} defines no test {name!r}")
    return problems


def test_the_reader_finds_each_form_of_reference() -> None:
    text = (
        "Tests: `test_a.py::test_one`, `test_two`, `::test_three*`.\n"
        "Option: `some_option` (not a test). `test_b.py`, `test_b.py::TestK::test_m[x-False]`"
    )
    assert references(text) == [
        (1, "test_a.py::test_one", "test_a.py", "test_one"),
        (1, "test_two", "test_a.py", "test_two"),
        (1, "::test_three*", "test_a.py", "test_three*"),
        (2, "test_b.py", "test_b.py", None),
        (2, "test_b.py::TestK::test_m[x-False]", "test_b.py", "TestK::test_m"),
    ]


def test_a_missing_test_is_reported(tmp_path: Path) -> None:
    f = tmp_path / "test_x.py"
    f.write_text("def test_real():\n    pass\n")
    assert _names(f) == frozenset({"test_real"})
    assert not any(fnmatch.fnmatchcase(n, "test_gone") for n in _names(f))


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_test_a_rulings_page_names_exists(system: str) -> None:
    page = PAGES / f"{system}.md"
    assert references(page.read_text(encoding="utf-8")), f"{page} names no tests"
    problems = broken_references(system)
    assert not problems, "\n".join(problems)
