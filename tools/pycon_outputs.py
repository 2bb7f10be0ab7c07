"""Run a tutorial page as a notebook: its files, its console commands and its ``>>>`` lines.

    python tools/pycon_outputs.py docs/tutorial/python.md          # rewrite the outputs in place

A page is run top to bottom in one place:

- code blocks with a ``title="path"`` are files: they are written under a scratch folder (blocks
  with the same title are joined, in order). When the files hold a ``pyproject.toml`` declaring
  ``storymaster.systems`` entry points, the package is installed the way pip would (its
  ``src/`` on ``sys.path`` and a ``*.dist-info`` with those entry points), so the page's
  plugin is one of Storymaster's systems;
- ``console`` blocks are ``$ storymaster ...`` commands, run in-process from the scratch folder
  (or the repository root when the page has no files), each followed by its output;
- ``pycon`` blocks run in one namespace, each ``>>>`` statement followed by what it printed
  or returned.

``fill`` writes the outputs into the page; ``check`` (what tests/test_tutorials.py calls)
runs it and lists every place where the page and the code disagree.
"""

from __future__ import annotations

import contextlib
import doctest
import importlib
import io
import re
import shlex
import sys
import tempfile
import tomllib
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"```(\w+)([^\n]*)\n(.*?)```", re.S)
TITLE = re.compile(r'title="([^"]+)"')


def page_files(text: str) -> dict[str, str]:
    """The page's files: each titled code block, joined by title in order."""
    files: dict[str, str] = {}
    for _, info, body in BLOCK.findall(text):
        m = TITLE.search(info)
        if m:
            files[m.group(1)] = files.get(m.group(1), "") + ("\n\n" if m.group(1) in files else "") + body
    return files


@contextlib.contextmanager
def installed(files: dict[str, str]) -> Iterator[Path]:
    """Write ``files`` to a scratch folder; install its package's entry points; yield the folder (the cwd)."""
    from storymaster.rules import registry

    with tempfile.TemporaryDirectory(prefix="tutorial-") as tmp:
        here = Path(tmp)
        for name, body in files.items():
            (here / name).parent.mkdir(parents=True, exist_ok=True)
            (here / name).write_text(body, encoding="utf-8")
        added: list[str] = []
        project = files.get("pyproject.toml")
        if project:
            meta = tomllib.loads(project)["project"]
            site = here / ".site"
            info = site / f"{meta['name'].replace('-', '_')}-{meta['version']}.dist-info"
            info.mkdir(parents=True)
            (info / "METADATA").write_text(
                f"Metadata-Version: 2.1\nName: {meta['name']}\nVersion: {meta['version']}\n", encoding="utf-8"
            )
            lines = []
            for group, points in meta.get("entry-points", {}).items():
                lines.append(f"[{group}]")
                lines += [f"{k} = {v}" for k, v in points.items()]
            (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
            added = [str(site), str(here / "src")]
        sys.path[:0] = added
        importlib.invalidate_caches()
        caches = _caches(registry)
        for c in caches:
            c.cache_clear()
        old = Path.cwd()
        import os

        os.chdir(here if files else ROOT)
        try:
            yield here
        finally:
            os.chdir(old)
            for p in added:
                sys.path.remove(p)
            for mod in [m for m in sys.modules if any(m.split(".")[0] == Path(p).name for p in _packages(here))]:
                del sys.modules[mod]
            for c in caches:
                c.cache_clear()


def _packages(here: Path) -> list[Path]:
    src = here / "src"
    return [p for p in src.iterdir() if p.is_dir()] if src.is_dir() else []


def _caches(registry: Any) -> list[Any]:
    from storymaster.cli import app as cli_app

    names = ("_rule_system_names", "_generic_command", "_system_entry_points")
    return [registry._load, *(getattr(cli_app, n) for n in names if hasattr(getattr(cli_app, n, None), "cache_clear"))]


def _console(command: str) -> str:
    from typer.testing import CliRunner

    from storymaster.cli.app import app

    args = shlex.split(command)
    if args[0] != "storymaster":
        raise ValueError(f"a console block runs storymaster commands, not {args[0]!r}")
    result = CliRunner().invoke(app, args[1:])
    return result.output


def _statements(body: str) -> list[str]:
    out: list[str] = []
    for line in body.splitlines():
        if line.startswith(">>> "):
            out.append(line[4:])
        elif (line.startswith("... ") or line == "...") and out:
            out[-1] += "\n" + line[4:]
    return out


def _run(source: str, ns: dict[str, Any]) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            exec(compile(source + "\n", "<tutorial>", "single"), ns)
        except Exception as exc:
            print("Traceback (most recent call last):\n  ...")
            print("".join(traceback.format_exception_only(type(exc), exc)).rstrip())
    return buf.getvalue()


def _norm(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def fill(text: str) -> str:
    """The page with every console command's and ``>>>`` line's output written in."""
    ns: dict[str, Any] = {"__name__": "__tutorial__"}

    def block(m: re.Match[str]) -> str:
        kind, info, body = m.group(1), m.group(2), m.group(3)
        lines: list[str] = []
        if kind == "pycon":
            for stmt in _statements(body):
                parts = stmt.split("\n")
                lines.append(">>> " + parts[0])
                lines += ["... " + p if p else "..." for p in parts[1:]]
                out = _run(stmt, ns).rstrip("\n")
                if out:
                    lines += [line if line.strip() else "<BLANKLINE>" for line in out.split("\n")]
        elif kind == "console":
            for line in body.splitlines():
                if line.startswith("$ "):
                    lines.append(line)
                    lines += [x.rstrip() for x in _console(line[2:]).rstrip("\n").split("\n")]
        else:
            return m.group(0)
        return f"```{kind}{info}\n" + "\n".join(lines) + "\n```"

    with installed(page_files(text)):
        return BLOCK.sub(block, text)


def check(page: Path) -> tuple[list[str], int]:
    """Run ``page``; the disagreements (empty when it runs as shown) and how many examples ran."""
    text = page.read_text(encoding="utf-8")
    problems: list[str] = []
    ran = 0
    with installed(page_files(text)):
        doc_source = "\n".join(body for kind, _, body in BLOCK.findall(text) if kind == "pycon")
        for kind, _, body in BLOCK.findall(text):
            if kind != "console":
                continue
            command, shown = None, []
            for line in [*body.splitlines(), "$ "]:
                if line.startswith("$ "):
                    if command is not None:
                        ran += 1
                        got = _console(command)
                        if _norm(got) != _norm("\n".join(shown)):
                            problems.append(f"$ {command}\n--- page:\n" + "\n".join(shown) + f"\n--- now:\n{got}")
                    command, shown = line[2:] or None, []
                else:
                    shown.append(line)
        if doc_source:
            test = doctest.DocTestParser().get_doctest(
                doc_source, {"__name__": "__tutorial__"}, page.stem, str(page), 0
            )
            out = io.StringIO()
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
            runner.run(test, out=out.write)
            ran += runner.tries
            if runner.failures:
                problems.append(out.getvalue())
    return problems, ran


def main(argv: list[str]) -> int:
    for name in argv:
        page = Path(name)
        page.write_text(fill(page.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
