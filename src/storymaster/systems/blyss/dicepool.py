"""Reading a rolled Die Pool against a TD: successes, Screw-Ups, criticals and Golden Rolls.

Exact odds work on counts: each die independently lands in one category (a 1, a Golden
Roll that does or does not meet the TD, a plain success, or nothing), so a pool's outcome
depends only on how many dice fall in each category. The joint distribution of those
counts is a convolution over the dice, with exact Fractions.

BLYSS 3.5, Rules & Mechanics: Character Tests, Screw-Ups, Golden Rolls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

__all__ = [
    "Counts",
    "Judgement",
    "count_distribution",
    "die_category",
    "die_succeeds",
    "die_succeeds_v",
    "judge",
    "judge_kind_v",
    "outcome_key",
    "outcome_order",
    "successes_v",
]

# categories of one die
ONE, GOLD_HIT, GOLD_MISS, HIT, MISS = "one", "gold_hit", "gold_miss", "hit", "miss"
#: a natural 1 that meets the TD, under the literal reading: a success and a Screw-Up at once
ONE_HIT = "one_hit"


@dataclass(frozen=True, slots=True)
class Counts:
    """How many dice of a pool fell in each category. ``crit`` counts dice that 'beat' the TD for a critical."""

    n: int
    ones: int = 0
    gold_hit: int = 0
    gold_miss: int = 0
    hit: int = 0
    crit: int = 0
    value: int = 0  # total (natural) face value of the dice that met the TD


def die_succeeds(face: int, td: int, die_modifier: int = 0, *, literal_ones: bool = False) -> bool:
    """Character Tests: a die succeeds when its value (face + ``die_modifier``, e.g. -1 at Flesh Wounds) equals
    or beats the TD. Ruling 3: a natural 1 never does (it is a Screw-Up); ``literal_ones`` (house rule
    ``literal_ones``) lets a 1 that meets the TD succeed too (it still cancels one success)."""
    return (face >= 2 or literal_ones) and face + die_modifier >= td


def die_succeeds_v(faces: np.ndarray, td: Any, die_modifier: Any = 0) -> np.ndarray:
    """:func:`die_succeeds` (ruling 3's default) on numpy arrays of faces; ``td`` and ``die_modifier`` broadcast."""
    return (faces >= 2) & (faces + die_modifier >= td)


def successes_v(faces: np.ndarray, td: Any, die_modifier: Any = 0) -> np.ndarray:
    """:func:`judge`'s successes on rolled faces (n, dice; a 0 is no die), ``td`` and ``die_modifier`` per row or one
    for all: the dice that meet the TD less one for each 1, none left for a failure or a Screw-Up (no Golden
    Rolls). The simulation's twin, tested against :func:`judge` on every roll of small pools."""
    hits = die_succeeds_v(faces, np.asarray(td).reshape(-1, 1), np.asarray(die_modifier).reshape(-1, 1))
    return np.maximum(hits.sum(axis=1) - (faces == 1).sum(axis=1), 0)


#: :func:`judge_kind_v`'s codes for :class:`Judgement` kinds (a critical success reads as a success)
FAILURE, SUCCESS, SCREW_UP, CRITICAL_SCREW_UP = 0, 1, 2, 3


def judge_kind_v(n: np.ndarray, ones: np.ndarray, hits: np.ndarray) -> np.ndarray:
    """:func:`judge`'s kind on arrays of counts (``n`` dice, ``ones`` of them 1s, ``hits`` meeting the TD; no
    Golden Rolls or carried Screw-Ups), as codes FAILURE, SUCCESS, SCREW_UP, CRITICAL_SCREW_UP: the
    simulation's twin, tested against :func:`judge` on every small count."""
    out = np.where(hits > ones, SUCCESS, np.where(ones > hits, SCREW_UP, FAILURE))
    return np.where((n > 0) & (ones == n), CRITICAL_SCREW_UP, out)


def die_category(
    face: int,
    sides: int,
    td: int,
    *,
    die_modifier: int = 0,
    golden: bool = False,
    strict: bool = False,
    literal_ones: bool = False,
) -> tuple[str, bool]:
    """One die's category and whether it counts towards a critical success.

    A natural 1 is a (potential) Screw-Up and never a success (ruling 3: it cannot cancel itself); under
    ``literal_ones`` a 1 that meets the TD is both (category ONE_HIT). Success: :func:`die_succeeds`.
    With Golden Rolls on, the highest face is a Golden Roll (Golden Rolls). ``strict``: a critical needs
    value > TD instead of >= TD.
    """
    if face == 1:
        if literal_ones and die_succeeds(face, td, die_modifier, literal_ones=True):
            return ONE_HIT, (face + die_modifier > td if strict else True)
        return ONE, False
    value = face + die_modifier
    meets = die_succeeds(face, td, die_modifier)
    crit = value > td if strict else meets
    if golden and face == sides:
        return (GOLD_HIT if meets else GOLD_MISS), crit
    return (HIT if meets else MISS), crit


def counts_of(
    faces: Sequence[int],
    sides: Sequence[int],
    td: int,
    *,
    die_modifier: int = 0,
    golden: bool = False,
    strict: bool = False,
    literal_ones: bool = False,
) -> Counts:
    """The category counts of rolled faces."""
    c = {ONE: 0, GOLD_HIT: 0, GOLD_MISS: 0, HIT: 0, MISS: 0, ONE_HIT: 0}
    crit = value = 0
    for f, s in zip(faces, sides, strict=True):
        cat, cr = die_category(
            f, s, td, die_modifier=die_modifier, golden=golden, strict=strict, literal_ones=literal_ones
        )
        c[cat] += 1
        crit += cr
        if cat in (HIT, GOLD_HIT, ONE_HIT):
            value += f
    return Counts(len(faces), c[ONE] + c[ONE_HIT], c[GOLD_HIT], c[GOLD_MISS], c[HIT] + c[ONE_HIT], crit, value)


@dataclass(frozen=True, slots=True)
class Judgement:
    """What a pool's dice come to.

    ``kind`` is one of: critical screw-up, screw-up, failure, success, critical success.
    ``successes`` are what is left after Screw-Ups cancel; ``screw_ups`` the uncancelled 1s (the degree).
    """

    kind: str
    successes: int
    screw_ups: int
    cancelled: int
    golden_used: int

    @property
    def succeeded(self) -> bool:
        return self.kind in ("success", "critical success")

    @property
    def key(self) -> str:
        return outcome_key(self)


def judge(c: Counts, *, extra_screw_ups: int = 0) -> Judgement:
    """Read the counts of a rolled pool (BLYSS 3.5, Character Tests, Screw-Ups and Golden Rolls).

    - Every die showing 1 cancels one success; a pool of nothing but 1s is a critical screw-up.
    - With Golden Rolls, Screw-Ups negate Golden Rolls first. A Golden Roll that also meets the
      TD cancels a Screw-Up and still counts as a regular success; one that does not meet the TD
      is an automatic success unless a Screw-Up negated it. (Ruling: Screw-Ups take the Golden
      Rolls that meet the TD first, which is the reading that lets the 'still count' clause bite.)
    - Left-over 1s after all successes are gone: a Screw-Up whose degree is their number.
    - If every die meets (or with the strict option, beats) the TD: a critical success.
    ``extra_screw_ups`` are carried over from helpers in a Combined Test.
    """
    if c.n > 0 and c.ones == c.n:
        return Judgement("critical screw-up", 0, c.ones + extra_screw_ups, 0, 0)
    left = c.ones + extra_screw_ups
    used_gh = min(left, c.gold_hit)
    left -= used_gh
    used_gm = min(left, c.gold_miss)
    left -= used_gm
    regular = c.hit + c.gold_hit
    cancelled = min(left, regular)
    regular -= cancelled
    left -= cancelled
    successes = regular + (c.gold_miss - used_gm)
    golden_used = used_gh + used_gm
    if left > 0:
        return Judgement("screw-up", 0, left, cancelled + golden_used, golden_used)
    if successes == 0:
        return Judgement("failure", 0, 0, cancelled + golden_used, golden_used)
    if c.n > 0 and c.crit == c.n and extra_screw_ups == 0:
        return Judgement("critical success", successes, 0, cancelled + golden_used, golden_used)
    return Judgement("success", successes, 0, cancelled + golden_used, golden_used)


def outcome_key(j: Judgement) -> str:
    """The outcome's name in odds tables: 'screw-up x2', 'failure', 'success x3', ..."""
    if j.kind == "screw-up":
        return f"screw-up x{j.screw_ups}"
    if j.kind == "success":
        return f"success x{j.successes}"
    return j.kind


def outcome_order(key: str) -> float:
    """Sort outcomes from worst to best."""
    if key == "critical screw-up":
        return -1e9
    if key.startswith("screw-up x"):
        return -int(key[10:])
    if key == "failure":
        return 0
    if key.startswith("success x"):
        return int(key[9:])
    return 1e9


@lru_cache(maxsize=4096)
def _die_dist(
    sides: int, td: int, die_modifier: int, golden: bool, strict: bool, literal_ones: bool = False
) -> tuple[tuple[tuple[str, bool, int], Fraction], ...]:
    acc: dict[tuple[str, bool, int], Fraction] = {}
    for face in range(1, sides + 1):
        cat, crit = die_category(
            face, sides, td, die_modifier=die_modifier, golden=golden, strict=strict, literal_ones=literal_ones
        )
        value = face if cat in (HIT, GOLD_HIT, ONE_HIT) else 0
        key = (cat, crit, value)
        acc[key] = acc.get(key, Fraction(0)) + Fraction(1, sides)
    return tuple(acc.items())


def count_distribution(
    dice: Sequence[int],
    td: int,
    *,
    die_modifier: int = 0,
    golden: bool = False,
    strict: bool = False,
    with_value: bool = False,
    literal_ones: bool = False,
) -> dict[Counts, Fraction]:
    """The exact joint distribution of a pool's category counts (a convolution over its dice)."""
    dist: dict[Counts, Fraction] = {Counts(0): Fraction(1)}
    for sides in dice:
        step = _die_dist(sides, td, die_modifier, golden, strict, literal_ones)
        new: dict[Counts, Fraction] = {}
        for c, p in dist.items():
            for (cat, crit, value), q in step:
                nc = Counts(
                    c.n + 1,
                    c.ones + (cat in (ONE, ONE_HIT)),
                    c.gold_hit + (cat == GOLD_HIT),
                    c.gold_miss + (cat == GOLD_MISS),
                    c.hit + (cat in (HIT, ONE_HIT)),
                    c.crit + crit,
                    c.value + value if with_value else 0,
                )
                new[nc] = new.get(nc, Fraction(0)) + p * q
        dist = new
    return dist
