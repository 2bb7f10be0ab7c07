"""One YAML loader for everything a user hands us: no aliases or anchors, bounded size and depth.

``yaml.safe_load`` builds no objects, but it still expands aliases: a few hundred bytes of
nested ``&a [*b, *b, ...]`` ("a billion laughs") grow into billions of nodes and hold the
process for seconds. A character sheet, house rules or a check's fields never need an
alias, so :func:`load` refuses them (and anchors) at the first one, with where it was, and
caps the nodes and the nesting of what is left. Errors are :class:`yaml.YAMLError`
subclasses, so callers that already handle YAML errors handle these too.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import yaml
from yaml.composer import ComposerError

__all__ = ["MAX_DEPTH", "MAX_NODES", "load"]

#: more nodes than any sheet has (a full B.U.M. character is a few hundred)
MAX_NODES = 50_000
#: deeper than any sheet nests (about five)
MAX_DEPTH = 64


class _Loader(yaml.SafeLoader):
    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._nodes = 0
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        event: Any = self.peek_event()
        mark: Any = event.start_mark
        if isinstance(event, yaml.AliasEvent):
            raise ComposerError(None, None, f"aliases (*{event.anchor}) are not accepted: write the value out", mark)
        if getattr(event, "anchor", None):
            raise ComposerError(None, None, f"anchors (&{event.anchor}) are not accepted: write the value out", mark)
        self._nodes += 1
        if self._nodes > MAX_NODES:
            raise ComposerError(None, None, f"more than {MAX_NODES} values", mark)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise ComposerError(None, None, f"nested more than {MAX_DEPTH} levels deep", mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")


def _bracket_depth(text: str) -> int:
    """How deep ``[`` and ``{`` nest over the whole text, a closer never going below zero.

    Quotes are not told apart (a bound, not a parse): text with more than :data:`MAX_DEPTH`
    unclosed brackets inside its strings is refused too. Vectorised: 256 KiB in a few ms.
    """
    only = _NOT_BRACKETS.sub("", text)
    if len(only) <= MAX_DEPTH:
        return len(only)
    raw = np.frombuffer(only.encode("ascii"), dtype=np.uint8)
    steps = np.where((raw == ord("[")) | (raw == ord("{")), 1, -1)
    total = np.cumsum(steps)
    floor = np.minimum(np.minimum.accumulate(total), 0)  # a stray closer does not lower later depths
    return int((total - floor).max())


def load(text: str) -> Any:
    """Parse YAML (or JSON) text from a user: plain data only, no aliases or anchors, bounded.

    PyYAML's scanner takes time quadratic in how deep flow collections nest, so that depth is
    bounded before it runs (5,000 ``[`` would otherwise hold the process for seconds).
    """
    if _bracket_depth(text) > MAX_DEPTH:
        raise yaml.YAMLError(f"nested more than {MAX_DEPTH} levels deep")
    return yaml.load(text, Loader=_Loader)
