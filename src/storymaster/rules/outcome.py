"""What a check comes to (:class:`Outcome`) and what it could come to (:class:`OutcomeOdds`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from ..dice import RollRecord

__all__ = ["Outcome", "OutcomeOdds"]


def _frozen(mapping: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of resolving one check.

    ``result`` is the outcome's name in the book's vocabulary ("critical
    success", "screw-up", "Good"); ``success`` is True/False where the check
    has a pass mark and None where it has not (an open-ended Kalyr roll);
    ``explanation`` tells a player in plain words how the dice produced it.
    """

    system: str
    check: str
    result: str
    success: bool | None
    explanation: str = field(repr=False)
    rolls: tuple[RollRecord, ...] = field(default=(), repr=False)
    margin: int | None = None
    details: Mapping[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "details", _frozen(self.details))
        object.__setattr__(self, "rolls", tuple(self.rolls))

    def __str__(self) -> str:
        """The result, then how the dice produced it: ``success: The d20 showed 19; ...``."""
        return f"{self.result}: {self.explanation}" if self.explanation else self.result

    def to_json(self) -> dict[str, Any]:
        """The outcome as JSON (figures as numbers, every roll record included)."""
        return {
            "system": self.system,
            "check": self.check,
            "result": self.result,
            "success": self.success,
            "margin": self.margin,
            "explanation": self.explanation,
            "details": _jsonable(self.details),
            "rolls": [r.to_json() for r in self.rolls],
        }


@dataclass(frozen=True, slots=True)
class OutcomeOdds:
    """The exact chance of every outcome of a check, before anything is rolled.

    ``probabilities`` maps each outcome name to an exact :class:`Fraction`;
    they sum to 1. ``success_outcomes`` names the outcomes that count as
    success, so ``p_success`` is their sum. ``extra`` holds further exact
    figures a system wants to show (``p_win``/``p_tie``/``p_lose``, margins).
    """

    system: str
    check: str
    probabilities: Mapping[str, Fraction]
    success_outcomes: frozenset[str] = frozenset()
    extra: Mapping[str, Fraction] = field(default_factory=dict)
    truncated: Fraction = Fraction(0)
    note: str = ""

    def __post_init__(self) -> None:
        probs = {k: Fraction(v) for k, v in self.probabilities.items()}
        total = sum(probs.values(), Fraction(0))
        if total != 1:
            raise ValueError(f"outcome probabilities sum to {total}, not 1")
        unknown = set(self.success_outcomes) - probs.keys()
        if unknown:
            raise ValueError(f"success outcomes {sorted(unknown)} are not outcomes")
        object.__setattr__(self, "probabilities", MappingProxyType(probs))
        object.__setattr__(self, "success_outcomes", frozenset(self.success_outcomes))
        object.__setattr__(self, "extra", MappingProxyType({k: Fraction(v) for k, v in self.extra.items()}))

    @property
    def p_success(self) -> Fraction:
        """The exact chance of success: the sum of the ``success_outcomes``."""
        return sum((self.probabilities[k] for k in self.success_outcomes), Fraction(0))

    def probability(self, outcome: str) -> Fraction:
        """The exact chance of the outcome called ``outcome`` (0 for a name that is not an outcome)."""
        return self.probabilities.get(outcome, Fraction(0))

    def __repr__(self) -> str:
        return (
            f"OutcomeOdds(system={self.system!r}, check={self.check!r}, "
            f"p_success={_fraction_text(self.p_success)} ({_percent(self.p_success)}), "
            f"outcomes={list(self.probabilities)!r})"
        )

    def __str__(self) -> str:
        """A small table: each outcome's chance (success marked ``*``), then the chance of success."""
        width = max((len(k) for k in self.probabilities), default=0)
        lines = [f"{self.check} ({self.system})"]
        for k, p in self.probabilities.items():
            mark = " *" if k in self.success_outcomes else ""
            lines.append(f"  {k:<{width}}  {_percent(p):>7}  {_fraction_text(p)}{mark}")
        if self.success_outcomes:
            lines.append(f"  success (*): {_percent(self.p_success)} ({_fraction_text(self.p_success)})")
        if self.truncated:
            lines.append(f"  cut off by a depth cap: {float(self.truncated):.3g}")
        if self.note:
            lines.append(f"  {self.note}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """The odds as JSON: floats under ``outcomes``, exact fractions as text under ``exact``."""
        out: dict[str, Any] = {
            "system": self.system,
            "check": self.check,
            "p_success": float(self.p_success),
            "outcomes": {k: float(v) for k, v in self.probabilities.items()},
            "exact": {k: _fraction_text(v) for k, v in self.probabilities.items()},
        }
        out["exact"]["p_success"] = _fraction_text(self.p_success)
        for k, v in self.extra.items():
            out[k] = float(v)
            out["exact"][k] = _fraction_text(v)
        if self.truncated:
            out["truncated"] = float(self.truncated)
        if self.note:
            out["note"] = self.note
        return out


def _fraction_text(f: Fraction) -> str:
    return f"{f.numerator}/{f.denominator}"


def _percent(f: Fraction | float) -> str:
    return f"{float(f) * 100:.2f}%"


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)) and not isinstance(value, str):
        return [_jsonable(v) for v in value]
    if isinstance(value, Fraction):
        return float(value)
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if hasattr(value, "to_json"):
        return value.to_json()
    return value


def sum_fractions(values: Iterable[Fraction]) -> Fraction:
    return sum(values, Fraction(0))
