"""Fill in the outputs of a Markdown page's ``pycon`` blocks by running them, as a notebook would.

    python tools/pycon_outputs.py docs/tutorial/python.md          # rewrite the page in place

Every ``pycon`` block of the page runs in one namespace, top to bottom, from the repository
root; each ``>>>`` statement (with its ``...`` lines) is followed by what it printed or
returned. The tests run the page as a doctest (tests/test_tutorials.py), so a page whose
outputs drift from the code fails them: run this, read the diff, commit.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import traceback
from pathlib import Path

BLOCK = re.compile(r"(```pycon\n)(.*?)(```)", re.S)


def _statements(body: str) -> list[str]:
    out: list[str] = []
    for line in body.splitlines():
        if line.startswith(">>> "):
            out.append(line[4:])
        elif (line.startswith("... ") or line == "...") and out:
            out[-1] += "\n" + line[4:]
    return out


def _run(source: str, ns: dict) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            code = compile(source + "\n", "<tutorial>", "single")
            exec(code, ns)
        except Exception as exc:
            print("Traceback (most recent call last):\n  ...")
            print("".join(traceback.format_exception_only(type(exc), exc)).rstrip())
    return buf.getvalue()


def fill(text: str) -> str:
    ns: dict = {"__name__": "__tutorial__"}

    def block(m: re.Match[str]) -> str:
        lines: list[str] = []
        for stmt in _statements(m.group(2)):
            parts = stmt.split("\n")
            lines.append(">>> " + parts[0])
            lines += ["... " + p if p else "..." for p in parts[1:]]
            out = _run(stmt, ns).rstrip("\n")
            if out:
                lines += [line if line.strip() else "<BLANKLINE>" for line in out.split("\n")]
        return m.group(1) + "\n".join(lines) + "\n" + m.group(3)

    return BLOCK.sub(block, text)


def main(argv: list[str]) -> int:
    for name in argv:
        page = Path(name)
        page.write_text(fill(page.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
