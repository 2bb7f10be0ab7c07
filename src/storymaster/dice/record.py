"""Immutable records of rolls: what was thrown, what it came to, where it came from.

Records are named tuples: immutable, cheap to make (a roll is made often), and
plain to serialise. The human-readable ``detail`` is rendered on demand from the
expression and the dice (see :mod:`storymaster.dice.render`), so the maths never
waits on presentation.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from ..errors import VerificationError

__all__ = ["DieRoll", "RollRecord"]

_render: Any = None  # render.render, imported on first use (it imports this module)


class DieRoll(NamedTuple):
    """One die thrown: its sides (``"F"`` for Fudge), the face it showed, and its fate.

    ``kept`` is False for a die a keep/drop dropped (a whole explosion chain is
    kept or dropped together, and so are the dice of a set's dropped item) and
    for a throw a reroll replaced; ``exploded`` is True for a die an explosion
    added; ``rerolled`` is True for a throw a reroll replaced (the throw after it
    stands in its place); ``term`` is the index of the dice term, in the order
    the terms are written. ``face`` is always what the die showed; minimums,
    maximums and penetration are applied to it when the total is worked out.
    """

    sides: int | str
    face: int
    kept: bool = True
    exploded: bool = False
    term: int = 0
    rerolled: bool = False

    def to_json(self) -> dict[str, Any]:
        """The die as JSON."""
        out = {"sides": self.sides, "face": self.face, "kept": self.kept, "exploded": self.exploded, "term": self.term}
        if self.rerolled:  # written only when set, so records without rerolls read exactly as before
            out["rerolled"] = True
        return out


class RollRecord(NamedTuple):
    """An audited roll, replayable from ``seed``, ``stream`` and ``counter`` (derivation ``rng_version``).

    ``draws`` is how many 64-bit words the roll consumed from the stream (a
    rejected word counts), so the next roll in the stream starts at
    ``counter + draws``.
    """

    expression: str
    total: int
    dice: tuple[DieRoll, ...]
    seed: str
    stream: str
    counter: int
    draws: int
    rng_version: int = 1
    label: str = ""

    def __repr__(self) -> str:
        where = (
            f"seed={self.seed!r}" + (f", stream={self.stream!r}" if self.stream else "") + f", counter={self.counter}"
        )
        label = f", label={self.label!r}" if self.label else ""
        return f"<RollRecord {self.detail}; {where}{label}>"

    def __str__(self) -> str:
        """How the total came about: ``4d6kh3[~1~, 5, 6, 6] = 17``."""
        return self.detail

    @property
    def faces(self) -> tuple[int, ...]:
        """The faces of the kept dice, in order."""
        return tuple(d.face for d in self.dice if d.kept)

    @property
    def detail(self) -> str:
        """How the total came about, e.g. ``4d6kh3[6, 5, 3, ~1~] = 14`` (dropped dice between tildes)."""
        global _render
        if _render is None:
            from .render import render

            _render = render
        return str(_render(self))

    def to_json(self) -> dict[str, Any]:
        """The record as JSON (what :meth:`from_json` reads back)."""
        return {
            "expression": self.expression,
            "total": self.total,
            "dice": [d.to_json() for d in self.dice],
            "detail": self.detail,
            "seed": self.seed,
            "stream": self.stream,
            "counter": self.counter,
            "draws": self.draws,
            "rng_version": self.rng_version,
            "label": self.label,
        }

    def dumps(self) -> str:
        """The record as canonical JSON text (sorted keys)."""
        return json.dumps(self.to_json(), sort_keys=True)

    @classmethod
    def from_json(cls, data: Any) -> RollRecord:
        """Rebuild a record from :meth:`to_json` output (``detail`` is recomputed, not trusted)."""
        try:
            dice = tuple(
                DieRoll(
                    d["sides"] if d["sides"] == "F" else int(d["sides"]),
                    int(d["face"]),
                    bool(d.get("kept", True)),
                    bool(d.get("exploded", False)),
                    int(d.get("term", 0)),
                    bool(d.get("rerolled", False)),
                )
                for d in data["dice"]
            )
            return cls(
                expression=str(data["expression"]),
                total=int(data["total"]),
                dice=dice,
                seed=str(data["seed"]),
                stream=str(data.get("stream", "")),
                counter=int(data.get("counter", 0)),
                draws=int(data.get("draws", 0)),
                rng_version=int(data.get("rng_version", 1)),
                label=str(data.get("label", "")),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise VerificationError(
                f"not a roll record ({type(exc).__name__}: {exc})",
                hint="a record has at least expression, total, dice, seed, stream and counter",
            ) from None
