"""What a fight forecast says: each side's chance to win, the draw, the length, each combatant's end."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from ..rules.fight import side_label

__all__ = ["CombatantForecast", "Forecast", "side_label", "wilson_interval"]

Method = Literal["exact", "simulated", "engine"]


def wilson_interval(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval (95% by default) for a proportion seen in a sample."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)  # the bounds are exactly 0 / 1 at the edges
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return (lo, hi)


def _frozen(m: Mapping[Any, Any]) -> Mapping[Any, Any]:
    return MappingProxyType(dict(m))


@dataclass(frozen=True)
class CombatantForecast:
    """One combatant's chances of ending the fight in each condition, in the system's own words."""

    name: str
    side: int
    end_states: Mapping[str, float]

    def __post_init__(self) -> None:
        object.__setattr__(self, "end_states", _frozen(self.end_states))

    def __str__(self) -> str:
        """``Brenna (side A): unhurt 40.0%, wounded 55.0%, dead 5.0%``."""
        ends = ", ".join(f"{k} {p * 100:.1f}%" for k, p in self.end_states.items())
        return f"{self.name} (side {side_label(self.side)}): {ends}"

    def to_json(self) -> dict[str, Any]:
        """The combatant's forecast as JSON; the side by its letter."""
        return {"name": self.name, "side": side_label(self.side), "end_states": dict(self.end_states)}


@dataclass(frozen=True)
class Forecast:
    """The odds of a whole fight.

    ``p_win[i]`` is side i's chance to win; ``p_draw`` the chance that nobody
    does (a draw, a stand-off, or a fight still going at the round cap, as
    ``draw_meaning`` says). For ``method="exact"``, ``error`` bounds the
    probability left unresolved when the chain was cut (every figure is exact
    to within it); for simulations, ``intervals`` are 95% Wilson intervals and
    ``error`` is the widest half-width.
    """

    system: str
    method: Method
    sides: tuple[tuple[str, ...], ...]
    p_win: tuple[float, ...]
    p_draw: float
    rounds: Mapping[int, float]
    combatants: tuple[CombatantForecast, ...]
    error: float
    tactics: Mapping[str, str] = field(default_factory=dict)
    intervals: tuple[tuple[float, float], ...] = ()
    samples: int | None = None
    seed: int | None = None
    draw_meaning: str = "draw"
    notes: tuple[str, ...] = ()
    #: the system's end states from the mildest to the most severe (front ends list them in this order)
    end_state_order: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "rounds", _frozen(self.rounds))
        object.__setattr__(self, "tactics", _frozen(self.tactics))
        if len(self.p_win) != len(self.sides):
            raise ValueError("one p_win per side")

    @property
    def mean_rounds(self) -> float:
        """The expected number of rounds the fight lasts (from where it stood)."""
        total = sum(self.rounds.values())
        return sum(r * p for r, p in self.rounds.items()) / total if total else 0.0

    def ordered_end_states(self) -> tuple[str, ...]:
        """Every end state any combatant reached, mildest first (the system's order; others after, as met)."""
        seen: list[str] = []
        for c in self.combatants:
            seen += [k for k in c.end_states if k not in seen]
        rank = {name: i for i, name in enumerate(self.end_state_order)}
        return tuple(sorted(seen, key=lambda k: (rank.get(k, len(rank)), seen.index(k))))

    def p_win_of(self, side: int | str) -> float:
        """Side ``side``'s chance to win, by index (0) or letter ("A")."""
        if isinstance(side, str):
            labels = [side_label(i) for i in range(len(self.sides))]
            if side.upper() not in labels:
                raise KeyError(f"no side {side!r}: the sides are {', '.join(labels)}")
            return self.p_win[labels.index(side.upper())]
        return self.p_win[side]

    def _precision(self) -> str:
        if self.method == "exact":
            return f"exact, error at most {self.error:.1g}"
        return f"{self.method}, {self.samples} fights, 95% within {self.error * 100:.1f} points"

    def __repr__(self) -> str:
        wins = ", ".join(f"{side_label(i)} {p * 100:.1f}%" for i, p in enumerate(self.p_win))
        return (
            f"<Forecast {self.system} {self.method}: {wins}, no winner {self.p_draw * 100:.1f}%;"
            f" {self.mean_rounds:.1f} rounds>"
        )

    def __str__(self) -> str:
        """Each side's chance to win (with its members), the draw, the length, each combatant's end."""
        lines = [f"{self.system} fight forecast ({self._precision()})"]
        for i, (names, p) in enumerate(zip(self.sides, self.p_win, strict=True)):
            lines.append(f"  side {side_label(i)} wins {p * 100:5.1f}%  ({', '.join(names)})")
        lines.append(
            f"  no winner   {self.p_draw * 100:5.1f}%  ({self.draw_meaning.removeprefix('draw ').strip('()')})"
        )
        lines.append(f"  about {self.mean_rounds:.1f} rounds")
        order = self.ordered_end_states()
        for c in self.combatants:
            ends = ", ".join(f"{k} {c.end_states[k] * 100:.1f}%" for k in order if k in c.end_states)
            lines.append(f"  {c.name} (side {side_label(c.side)}): {ends}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """The forecast as JSON: sides, ``p_win`` and ``intervals`` keyed by side letter."""
        out: dict[str, Any] = {
            "system": self.system,
            "method": self.method,
            "sides": {side_label(i): list(names) for i, names in enumerate(self.sides)},
            "p_win": {side_label(i): p for i, p in enumerate(self.p_win)},
            "p_draw": self.p_draw,
            "draw_meaning": self.draw_meaning,
            "rounds": {str(r): p for r, p in sorted(self.rounds.items())},
            "mean_rounds": self.mean_rounds,
            "combatants": [c.to_json() for c in self.combatants],
            "error": self.error,
            "tactics": dict(self.tactics),
            "end_state_order": list(self.ordered_end_states()),
        }
        if self.intervals:
            out["intervals"] = {side_label(i): list(ci) for i, ci in enumerate(self.intervals)}
        if self.samples is not None:
            out["samples"] = self.samples
        if self.seed is not None:
            out["seed"] = self.seed
        if self.notes:
            out["notes"] = list(self.notes)
        return out
