"""Damage tracks: Scratch x3, Hurt, Very Hurt, Defeated, Destroyed (Kalyr RPG ch. 3, Damage).

A track keeps every wound in the order it was taken, with the box it landed in and its
original severity (the "H" written under Defeated). Status and penalties read the boxes;
healing reads the original severities.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, PlainSerializer, WithJsonSchema

from ...errors import CheckError
from ...rules.models import Model
from .data_files import table
from .ladder import parse_level

__all__ = [
    "DEFEATED",
    "DESTROYED",
    "HURT",
    "SCRATCH",
    "SEVERITIES",
    "VERY_HURT",
    "Severity",
    "Track",
    "TrackName",
    "Wound",
    "heal_track",
    "healing_levels",
    "healing_time",
    "mark_wound",
    "open_box_in",
    "rest_track",
    "severity_for_damage",
    "severity_name",
]

_ROWS = table("damage")["severities"]
SEVERITIES: dict[str, int] = {r["name"]: r["value"] for r in _ROWS}
_NAMES = {v: k for k, v in SEVERITIES.items()}
BOXES: dict[int, int] = {r["value"]: r["boxes"] for r in _ROWS}
PENALTY: dict[int, int | None] = {r["value"]: r["penalty"] for r in _ROWS}
SCRATCH, HURT, VERY_HURT, DEFEATED, DESTROYED = (
    SEVERITIES[n] for n in ("Scratch", "Hurt", "Very Hurt", "Defeated", "Destroyed")
)

TrackName = Literal["physical", "mental", "social"]
TRACKS: tuple[TrackName, ...] = ("physical", "mental", "social")


def severity_name(value: int, /) -> str:
    return _NAMES[value]


def parse_severity(value: Any, /) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value in _NAMES:
        return value
    s = str(value).strip().lower().replace("_", " ").replace("-", " ")
    for name, v in SEVERITIES.items():
        if s == name.lower():
            return v
    raise CheckError(f"{value!r} is not a wound level", hint="use Scratch, Hurt, Very Hurt, Defeated or Destroyed")


def _validate(value: Any) -> int:
    try:
        return parse_severity(value)
    except CheckError as exc:
        raise ValueError(exc.message) from None


Severity = Annotated[
    int,
    BeforeValidator(_validate),
    PlainSerializer(severity_name, return_type=str, when_used="always"),
    WithJsonSchema({"enum": list(SEVERITIES)}),
]


class Wound(Model):
    """One wound: its original ``severity`` and the ``box`` it was marked in (box >= severity)."""

    severity: Severity
    box: Severity


class Track(Model):
    """One damage track (physical, mental or social): the wounds in the order taken."""

    wounds: tuple[Wound, ...] = ()

    def used(self, box: int) -> int:
        return sum(1 for w in self.wounds if w.box == box)

    def boxes_used(self) -> tuple[int, ...]:
        """How many boxes of each level are marked, Scratch to Destroyed."""
        used = [0] * DESTROYED
        for w in self.wounds:
            used[w.box - 1] += 1
        return tuple(used)

    def open_box(self, severity: int) -> int | None:
        """The box a wound of ``severity`` lands in: its own, or the next higher one that is open."""
        return open_box_in(self.boxes_used(), severity)

    @property
    def status(self) -> int:
        """The highest box marked (0 when unhurt): the level the character is at on this track."""
        return max((w.box for w in self.wounds), default=0)

    @property
    def penalty(self) -> int | None:
        """Hurt -1, Very Hurt -2 (only the highest wound counts); None when Defeated or worse."""
        status = self.status
        return 0 if status == 0 else PENALTY[status]


def severity_for_damage(points: int, /) -> int:
    """Damage points to a wound level: 0 or less none, 1 Scratch, 2 Hurt ... 5 and up Destroyed (ruling K4).

    Kalyr RPG ch. 3, Damage: "1 is a Scratch, 2 Hurt, and so on".
    """
    if points <= 0:
        return 0
    return min(points, DESTROYED)


def open_box_in(used: tuple[int, ...], severity: int, /) -> int | None:
    """The box a wound of ``severity`` (1 or more) lands in, given the boxes marked of each level
    (Scratch to Destroyed): its own, or the next higher one with a box open (Damage); None when none is."""
    for box in range(severity, DESTROYED + 1):
        if used[box - 1] < BOXES[box]:
            return box
    return None


def mark_wound(track: Track, severity: int, /) -> tuple[Track, Wound | None]:
    """Mark a wound in its box, or overflow to the next open box, keeping its original severity.

    Kalyr RPG ch. 3, Damage: "If there is no open box ... the next highest wound for which there
    is an open box". With every box from its level up full (Destroyed already marked) the wound
    has nowhere to go and changes nothing (ruling K3).
    """
    if severity <= 0:
        return track, None
    box = track.open_box(severity)
    if box is None:
        return track, None
    wound = Wound(severity=severity, box=box)
    return Track(wounds=(*track.wounds, wound)), wound


def rebuild(severities: list[int]) -> Track:
    """A track holding these wounds, marked again in the same order (after healing)."""
    track = Track()
    for s in severities:
        track, _ = mark_wound(track, s)
    return track


def clear_scratches(track: Track, /) -> Track:
    """Scratches go away at the end of a scene (Getting rid of damage). Other wounds are re-marked."""
    return rebuild([w.severity for w in track.wounds if w.severity != SCRATCH])


def healing_levels(result: int, /) -> int:
    """Levels a medical or psionic healing result heals: Good 1, Great 2, Superb or better 3 (Getting rid of damage)."""
    levels = 0
    for row in table("damage")["healing_results"]:
        if result >= parse_level(row["min"]):
            levels = row["levels"]
    return levels


def _reduce(severity: int, levels: int) -> int:
    """Heal one wound ``levels`` levels; Scratches do not count as a level (Hurt healed 1 is gone)."""
    if severity == SCRATCH:
        return 0
    left = severity - levels
    return left if left > SCRATCH else 0


def heal_track(track: Track, levels: int, /) -> Track:
    """Heal every wound on the track by ``levels`` (by original severity), re-marking what is left.

    Kalyr RPG ch. 3, Getting rid of damage: "heals all damage one level"; the overflow example
    heals by the wounds actually received, not the boxes they landed in.
    """
    if levels <= 0:
        return track
    return rebuild([s for s in (_reduce(w.severity, levels) for w in track.wounds) if s])


def healing_time(track: Track, levels: int, /) -> int:
    """Days (medical) or hours (psionic) before a healing of ``levels`` takes effect: the longest of
    the wounds it heals, by the level each heals from (Hurt 1, Very Hurt 2, Defeated 4, Destroyed 7; ruling K9)."""
    times = table("damage")["healing_time"]
    worst = 0
    for w in track.wounds:
        if w.severity > SCRATCH and levels > 0:
            worst = max(worst, times[severity_name(w.severity)])
    return worst


def rest_track(track: Track, weeks: int, /) -> Track:
    """Natural healing: every wound heals one level per week of rest (Getting rid of damage)."""
    per = table("damage")["natural_healing_weeks_per_level"]
    return heal_track(track, math.floor(weeks / per))
