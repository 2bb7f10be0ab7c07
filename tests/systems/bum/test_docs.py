"""Every command in docs/systems/bum.md runs (from a copy of the project folder) and succeeds."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
GUIDE = ROOT / "docs" / "systems" / "bum.md"


def _commands() -> list[str]:
    return [
        line[2:].strip() for line in GUIDE.read_text(encoding="utf-8").splitlines() if line.startswith("$ storymaster ")
    ]


def test_guide_has_examples():
    cmds = _commands()
    assert len(cmds) >= 15
    assert "storymaster bum odds --bonus 5 --dc 8 --json" in cmds


def test_guide_examples_run(cli, tmp_path, monkeypatch):
    shutil.copytree(ROOT / "examples" / "bum", tmp_path / "examples" / "bum")
    monkeypatch.chdir(tmp_path)
    for cmd in _commands():
        args = shlex.split(cmd)[1:]
        result = cli(*args)
        assert result.exit_code == 0, f"{cmd}\n{result.stdout}\n{result.stderr}"
    assert (
        (tmp_path / "victor.html").exists()
        and (tmp_path / "victor.png").exists()
        and (tmp_path / "victor2.yaml").exists()
    )


@pytest.mark.parametrize("path", ["docs/rulings/bum.md", "docs/systems/bum.md"])
def test_doc_test_references_exist(path):
    """Every `test_file.py::test_name` the docs cite is a test that exists."""
    import re

    text = (ROOT / path).read_text(encoding="utf-8")
    here = Path(__file__).parent
    current = None
    for m in re.finditer(r"`?(test_\w+\.py)?::(test_\w+)(\*)?`?", text):
        if m.group(1):
            current = m.group(1)
        assert current is not None
        body = (here / current).read_text(encoding="utf-8")
        name = m.group(2)
        if m.group(3):
            assert f"def {name}" in body, f"{current} has no test starting {name}"
        else:
            assert f"def {name}(" in body, f"{current}::{name} is cited in {path} but does not exist"


def test_guide_character_file_is_the_example():
    import yaml

    text = GUIDE.read_text(encoding="utf-8")
    block = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    example = yaml.safe_load((ROOT / "examples" / "bum" / "victor-mordox.yaml").read_text(encoding="utf-8"))
    assert yaml.safe_load(block) == example
