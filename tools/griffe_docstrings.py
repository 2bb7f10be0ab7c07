"""A griffe extension for the API reference (mkdocs.yml): the code's docstrings, read as Markdown.

The docstrings are written for readers of the source: doctest examples (``>>>``) and Sphinx
roles (``:class:`~storymaster.dice.DiceRng```). Markdown would read ``>>>`` as nested quotes and
print the roles literally, so doctest blocks become ``pycon`` code blocks and a role becomes
the code span of its name (the last dotted part when the role starts with ``~``).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:class|func|meth|data|attr|mod|exc|obj):`(~?)([^`]+)`")


def _role(m: re.Match[str]) -> str:
    tilde, target = m.groups()
    return f"`{target.rsplit('.', 1)[-1] if tilde else target}`"


def markdown_docstring(text: str) -> str:
    """``text`` with its doctest blocks fenced as pycon and its Sphinx roles as code spans."""
    out: list[str] = []
    in_doctest = False
    for line in text.splitlines():
        starts = line.lstrip().startswith(">>>")
        if starts and not in_doctest:
            out.append("```pycon")
            in_doctest = True
        elif in_doctest and not line.strip():
            out.append("```")
            in_doctest = False
        out.append(line if in_doctest else ROLE.sub(_role, line))
    if in_doctest:
        out.append("```")
    return "\n".join(out)


class MarkdownDocstrings(griffe.Extension):
    """Rewrite each object's docstring as it is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:  # griffe passes node, agent, ...
        if obj.docstring is not None:
            obj.docstring.value = markdown_docstring(obj.docstring.value)
