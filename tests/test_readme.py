"""Every example in the README is run: console commands against their shown output, Python as doctests."""

from __future__ import annotations

import doctest
import re
import shlex
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCK = re.compile(r"```(console|python)\n(.*?)```", re.S)


def console_examples() -> list[tuple[str, str]]:
    examples = []
    for kind, body in BLOCK.findall(README.read_text(encoding="utf-8")):
        if kind != "console":
            continue
        command, output = None, []
        for line in body.splitlines():
            if line.startswith("$ "):
                if command is not None:
                    examples.append((command, "\n".join(output)))
                command, output = line[2:], []
            else:
                output.append(line)
        if command is not None:
            examples.append((command, "\n".join(output)))
    return examples


def python_examples() -> list[str]:
    return [body for kind, body in BLOCK.findall(README.read_text(encoding="utf-8")) if kind == "python"]


def _norm(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def test_readme_opens_with_make_run_and_make_test() -> None:
    text = README.read_text(encoding="utf-8")
    first_block = text.split("```sh", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].strip() for line in first_block.strip().splitlines()]
    assert commands[:2] == ["make run", "make test"]


def test_there_are_examples() -> None:
    assert len(console_examples()) >= 5 and python_examples()


@pytest.mark.parametrize(("command", "expected"), console_examples(), ids=[c for c, _ in console_examples()])
def test_console_example(cli, command: str, expected: str) -> None:
    args = shlex.split(command)
    assert args[0] == "storymaster"
    result = cli(*args[1:])
    shown_error = expected.lstrip().startswith("error:")
    assert result.exit_code == (2 if shown_error else 0), result.output
    if expected.strip():
        assert _norm(result.output) == _norm(expected)


@pytest.mark.parametrize("source", python_examples())
def test_python_example(source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(README.parent)  # the examples name files from the repository's root (examples/...)
    parser = doctest.DocTestParser()
    test = parser.get_doctest(source, {}, "README", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0 and runner.tries > 0
