"""The Trait Ladder (Kalyr RPG ch. 3, Ability Checks): seven adjectives, Terrible to Superb.

A level is an integer, the number of steps from Fair (Terrible -3 ... Superb +3). Results can
run past either end of the ladder; they are named "Superb+1", "Terrible-2" and so on (ruling
K2 in docs/rulings/kalyr.md) and compare as plain integers.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator, PlainSerializer, WithJsonSchema

from ...errors import CheckError
from .data_files import table

__all__ = ["FAIR", "LADDER", "SUPERB", "TERRIBLE", "Level", "LevelName", "level_name", "parse_level", "parse_levels"]

LADDER: dict[str, int] = {row["name"]: row["value"] for row in table("ladder")["ladder"]}
_BY_VALUE = {v: k for k, v in LADDER.items()}
TERRIBLE = LADDER["Terrible"]
POOR = LADDER["Poor"]
MEDIOCRE = LADDER["Mediocre"]
FAIR = LADDER["Fair"]
GOOD = LADDER["Good"]
GREAT = LADDER["Great"]
SUPERB = LADDER["Superb"]

_BEYOND = re.compile(r"^\s*(superb|terrible)\s*([+-])\s*(\d+)\s*$", re.IGNORECASE)


def level_name(value: int, /) -> str:
    """The ladder word for a level; past the ends "Superb+N" / "Terrible-N" (ruling K2)."""
    if value in _BY_VALUE:
        return _BY_VALUE[value]
    if value > SUPERB:
        return f"Superb+{value - SUPERB}"
    return f"Terrible-{TERRIBLE - value}"


def parse_level(text: Any, /, *, what: str = "level") -> int:
    """A level from a ladder word ("good", "Superb+1") or a number of steps from Fair."""
    if isinstance(text, bool):
        raise CheckError(f"{what}: {text!r} is not a ladder level")
    if isinstance(text, int):
        return text
    s = str(text).strip()
    for name, value in LADDER.items():
        if s.lower() == name.lower():
            return value
    m = _BEYOND.match(s)
    if m:
        base = SUPERB if m.group(1).lower() == "superb" else TERRIBLE
        n = int(m.group(3))
        return base + n if m.group(2) == "+" else base - n
    if re.fullmatch(r"[+-]\d+|0", s):
        return int(s)
    if re.fullmatch(r"\d+", s):
        raise CheckError(
            f"{what}: {s!r} is ambiguous: a level is a ladder word, or a signed number of steps from Fair",
            hint=f"write e.g. Good, or +{s} for {level_name(int(s))} ({s} steps above Fair)",
        )
    raise CheckError(
        f"{what}: {s!r} is not on the Trait Ladder",
        hint="use Terrible, Poor, Mediocre, Fair, Good, Great or Superb (or e.g. Superb+1)",
    )


def parse_levels(text: str, /, *, what: str = "levels") -> list[int]:
    """A comma-separated list of levels ("Good,Fair,Fair"); an empty entry is an error, not skipped."""
    items = [t.strip() for t in str(text).split(",")]
    if not any(items):
        raise CheckError(f"{what}: list at least one level", hint="e.g. Good,Fair")
    for k, t in enumerate(items, 1):
        if not t:
            raise CheckError(
                f"{what}: entry {k} of {text!r} is empty", hint="one ladder level per character, e.g. Good,Fair,Fair"
            )
    return [parse_level(t, what=f"{what} entry {k}") for k, t in enumerate(items, 1)]


def _validate(value: Any) -> int:
    try:
        return parse_level(value)
    except CheckError as exc:
        raise ValueError(exc.message) from None


#: a level in a model: read from a word or a number, written as the word
Level = Annotated[
    int,
    BeforeValidator(_validate),
    PlainSerializer(level_name, return_type=str, when_used="always"),
    WithJsonSchema(
        {
            "anyOf": [{"type": "string"}, {"type": "integer"}],
            "description": "a Trait Ladder level: Terrible, Poor, Mediocre, Fair, Good, Great, Superb (or steps "
            "from Fair)",
        }
    ),
]
LevelName = str


def on_ladder(value: int, /) -> bool:
    """True for the seven named levels (abilities and connections live there)."""
    return TERRIBLE <= value <= SUPERB
