"""Immutable records of rolls: what was thrown, what it came to, where it came from."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from ..errors import VerificationError

__all__ = ["DieRoll", "RollRecord"]


@dataclass(frozen=True, slots=True)
class DieRoll:
    """One die thrown: its sides (``"F"`` for Fudge), the face it showed, and its fate.

    ``kept`` is False for a die a keep/drop dropped; ``exploded`` is True for a
    die that an explosion added; ``term`` is the index of the dice term (in the
    order the terms appear) the die belongs to.
    """

    sides: int | str
    face: int
    kept: bool = True
    exploded: bool = False
    term: int = 0


@dataclass(frozen=True, slots=True)
class RollRecord:
    """An audited roll. Replayable from ``seed``, ``stream`` and ``counter`` (derivation ``rng_version``)."""

    expression: str
    total: int
    dice: tuple[DieRoll, ...]
    detail: str
    seed: str
    stream: str
    counter: int
    draws: int
    rng_version: int = 1
    label: str = ""
    meta: tuple[tuple[str, Any], ...] = field(default=())

    @property
    def faces(self) -> tuple[int, ...]:
        """The faces of the kept dice, in order."""
        return tuple(d.face for d in self.dice if d.kept)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["dice"] = [asdict(d) for d in self.dice]
        out["meta"] = dict(self.meta)
        return out

    def dumps(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RollRecord:
        try:
            dice = tuple(DieRoll(**d) for d in data["dice"])
            return cls(
                expression=str(data["expression"]),
                total=int(data["total"]),
                dice=dice,
                detail=str(data.get("detail", "")),
                seed=str(data["seed"]),
                stream=str(data.get("stream", "")),
                counter=int(data.get("counter", 0)),
                draws=int(data.get("draws", 0)),
                rng_version=int(data.get("rng_version", 1)),
                label=str(data.get("label", "")),
                meta=tuple(sorted((data.get("meta") or {}).items())),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise VerificationError(
                f"not a roll record: {exc}",
                hint="a record has at least expression, total, dice, seed, stream and counter",
            ) from None
