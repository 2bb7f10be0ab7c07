"""Rolling Nd6 with the two coloured dice, and the exact distribution of such a roll.

"Dice-Rolling": roll as many d6 as the ability and add them. "Fancy Shit": two
of the dice are coloured; both 1s is a critical failure, both 6s a critical
success, which adds a bonus d6 that re-rolls on every 6. With a single die, a
1 or a 6 is confirmed by a second die that is never added.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache
from typing import Literal

from ...dice import DiceRng, RollRecord, roll
from ...errors import CheckError
from .options import FuzzyHouseRules

__all__ = [
    "MAX_DICE",
    "AbilityRoll",
    "AbilityTest",
    "AbilityTestResult",
    "Contest",
    "Contested",
    "Critical",
    "bonus_die_distribution",
    "effective_dice",
    "margin_pmf",
    "p_at_least",
    "roll_ability",
    "roll_distribution",
    "sum_distribution",
    "truncated_mass",
]

#: the most dice one roll may use (a "20" is in the book; this leaves room for gods)
MAX_DICE = 100

Critical = Literal["success", "failure"] | None


def effective_dice(dice: int, penalty_dice: int = 0) -> int:
    """Dice left after die penalties, never fewer than one.

    "Combat Rules" (-1 die "down to a minimum of 1"), wound levels ("down to a
    minimum of one") and the Clumsy spot rule ("to a minimum of 1 Body dice").
    """
    if dice < 1:
        raise CheckError(f"an ability roll needs at least one die, not {dice}", hint="abilities are rated 1 or more")
    if dice > MAX_DICE:
        raise CheckError(f"{dice} dice is more than the limit of {MAX_DICE}", hint="roll at most 100 dice at once")
    if penalty_dice < 0:
        raise CheckError(
            f"a die penalty cannot be negative ({penalty_dice})", hint="give penalties as positive numbers of dice lost"
        )
    return max(1, dice - penalty_dice)


@dataclass(frozen=True, slots=True)
class AbilityRoll:
    """The dice of one ability roll: what was thrown and what it came to (before modifiers)."""

    dice: int
    coloured: tuple[int, ...]
    others: tuple[int, ...]
    check_die: int | None
    bonus: tuple[int, ...]
    critical: Critical
    records: tuple[RollRecord, ...]

    @property
    def total(self) -> int:
        """The sum of the dice, the critical bonus dice included, the one-die check die never."""
        return sum(self.coloured) + sum(self.others) + sum(self.bonus)

    def describe(self) -> str:
        """The dice in plain words."""
        if self.dice == 1:
            text = f"one die showed {self.coloured[0]}"
            if self.check_die is not None:
                same = "the same" if self.check_die == self.coloured[0] else "not the same"
                text += f"; the second die (only for criticals, never added) showed {self.check_die}, {same}"
        else:
            text = f"coloured dice {self.coloured[0]} and {self.coloured[1]}"
            if self.others:
                text += f", other dice {', '.join(map(str, self.others))}"
        if self.critical == "success":
            text += f"; critical success! bonus die {'+'.join(map(str, self.bonus))} added"
        elif self.critical == "failure":
            text += "; critical failure: something bad happens"
        return text


def critical_of(dice: int, coloured: tuple[int, ...], check_die: int | None) -> Critical:
    """Whether a roll is a critical ("Fancy Shit: Critical Successes and Failures").

    Two or more dice: the two coloured dice both 1 (failure) or both 6 (success).
    One die: the die and the second check die show the same 1 or 6.
    """
    pair = coloured if dice >= 2 else (coloured[0], check_die)
    if pair[1] is None or pair[0] != pair[1]:
        return None
    if pair[0] == 6:
        return "success"
    if pair[0] == 1:
        return "failure"
    return None


def bonus_expression(house: FuzzyHouseRules) -> str:
    k = house.critical_bonus_max_explosions
    return f"1d6!({k})" if k else "1d6"


def roll_ability(dice: int, rng: DiceRng, house: FuzzyHouseRules, *, label: str = "") -> AbilityRoll:
    """Roll ``dice`` d6 with coloured dice, the one-die check die and the exploding bonus die."""
    if dice < 1 or dice > MAX_DICE:
        raise CheckError(f"cannot roll {dice} dice", hint=f"roll between 1 and {MAX_DICE} dice")
    prefix = f"{label}: " if label else ""
    records: list[RollRecord] = []
    check_die: int | None = None
    if dice == 1:
        rec = roll("1d6", rng, label=f"{prefix}die")
        records.append(rec)
        coloured: tuple[int, ...] = rec.faces
        others: tuple[int, ...] = ()
        if house.one_die_second_die_for_criticals and coloured[0] in (1, 6):
            chk = roll("1d6", rng, label=f"{prefix}second die for criticals (not added)")
            records.append(chk)
            check_die = chk.faces[0]
    else:
        rec = roll("2d6", rng, label=f"{prefix}coloured dice")
        records.append(rec)
        coloured = rec.faces
        others = ()
        if dice > 2:
            rest = roll(f"{dice - 2}d6", rng, label=f"{prefix}other dice")
            records.append(rest)
            others = rest.faces
    critical = critical_of(dice, coloured, check_die)
    bonus: tuple[int, ...] = ()
    if critical == "success":
        b = roll(bonus_expression(house), rng, label=f"{prefix}critical bonus die")
        records.append(b)
        bonus = tuple(d.face for d in b.dice)
    return AbilityRoll(dice, coloured, others, check_die, bonus, critical, tuple(records))


# -- exact distributions -----------------------------------------------------------


@cache
def sum_distribution(n: int) -> Mapping[int, int]:
    """Ways to roll each total on ``n`` d6 (out of 6**n), by convolution."""
    ways = {0: 1}
    for _ in range(n):
        nxt: dict[int, int] = {}
        for total, w in ways.items():
            for face in range(1, 7):
                nxt[total + face] = nxt.get(total + face, 0) + w
        ways = nxt
    return ways


@cache
def bonus_die_distribution(max_explosions: int) -> Mapping[int, Fraction]:
    """The critical bonus die: a d6 that re-rolls and adds on a 6, at most ``max_explosions`` times.

    A chain of ``j`` sixes then a non-six ``r`` totals ``6j + r`` with chance
    ``(1/6)**(j+1)``; at the cap the last die counts whatever it shows.
    """
    out: dict[int, Fraction] = {}
    sixth = Fraction(1, 6)
    for j in range(max_explosions + 1):
        last = j == max_explosions
        for r in range(1, 7 if last else 6):
            out[6 * j + r] = out.get(6 * j + r, Fraction(0)) + sixth ** (j + 1)
    return out


def truncated_mass(dice: int, house: FuzzyHouseRules) -> Fraction:
    """Chance the bonus die hit the GM's limit still showing a 6 (the uncapped roll would go on)."""
    p_crit = _p_critical_success(dice, house)
    return p_crit * Fraction(1, 6) ** (house.critical_bonus_max_explosions + 1)


def _p_critical_success(dice: int, house: FuzzyHouseRules) -> Fraction:
    if dice == 1 and not house.one_die_second_die_for_criticals:
        return Fraction(0)
    return Fraction(1, 36)


@cache
def _bonus_weights(max_explosions: int) -> tuple[tuple[int, int], ...]:
    """The bonus die as (total, weight) over 6**(max_explosions+1): integer weights for speed."""
    scale = 6 ** (max_explosions + 1)
    return tuple((b, int(p * scale)) for b, p in bonus_die_distribution(max_explosions).items())


@cache
def _roll_distribution(dice: int, max_explosions: int, one_die_check: bool) -> Mapping[tuple[Critical, int], Fraction]:
    # integer weights over ``denom``: every die face 1/6, the bonus die over 6**(k+1)
    bonus = _bonus_weights(max_explosions)
    bscale = 6 ** (max_explosions + 1)
    out: dict[tuple[Critical, int], int] = {}

    def add(key: tuple[Critical, int], w: int) -> None:
        out[key] = out.get(key, 0) + w

    if dice == 1:
        denom = 36 * bscale
        for face in range(1, 7):
            if one_die_check and face in (1, 6):
                if face == 6:
                    for b, wb in bonus:
                        add(("success", face + b), wb)
                else:
                    add(("failure", face), bscale)
                add((None, face), 5 * bscale)
            else:
                add((None, face), 6 * bscale)
    else:
        rest = sum_distribution(dice - 2)
        denom = 36 * 6 ** (dice - 2) * bscale
        for c1 in range(1, 7):
            for c2 in range(1, 7):
                crit: Critical = "success" if c1 == c2 == 6 else "failure" if c1 == c2 == 1 else None
                for r, w in rest.items():
                    base = c1 + c2 + r
                    if crit == "success":
                        for b, wb in bonus:
                            add(("success", base + b), w * wb)
                    else:
                        add((crit, base), w * bscale)
    return {k: Fraction(w, denom) for k, w in out.items()}


def roll_distribution(dice: int, house: FuzzyHouseRules) -> Mapping[tuple[Critical, int], Fraction]:
    """Exact chance of each (critical, total) of an ability roll of ``dice`` dice (bonus dice included)."""
    if dice < 1 or dice > MAX_DICE:
        raise CheckError(f"cannot give odds for {dice} dice", hint=f"ask about 1 to {MAX_DICE} dice")
    return _roll_distribution(dice, house.critical_bonus_max_explosions, house.one_die_second_die_for_criticals)


def total_distribution(dice: int, house: FuzzyHouseRules) -> dict[int, Fraction]:
    """Exact chance of each total (criticals folded in)."""
    out: dict[int, Fraction] = {}
    for (_, total), p in roll_distribution(dice, house).items():
        out[total] = out.get(total, Fraction(0)) + p
    return out


# -- the two random things a fight round asks for (storymaster.forecast.chance events) -------------


def p_at_least(dice: int, target: int, house: FuzzyHouseRules) -> float:
    """Chance an ability roll of ``dice`` dice totals ``target`` or more (a test against a fixed target)."""
    return _p_at_least(dice, target, house.critical_bonus_max_explosions, house.one_die_second_die_for_criticals)


@lru_cache(maxsize=4096)  # bounded: a long-running server forecasts many fights
def _p_at_least(dice: int, target: int, max_explosions: int, one_die_check: bool) -> float:
    dist = _roll_distribution(dice, max_explosions, one_die_check)
    return float(sum((p for (_, t), p in dist.items() if t >= target), Fraction(0)))


@dataclass(frozen=True, slots=True)
class AbilityTestResult:
    """What an :class:`AbilityTest` came to: passed or not, and the roll when real dice were thrown."""

    passed: bool
    roll: AbilityRoll | None = None


@dataclass(frozen=True, slots=True)
class AbilityTest:
    """An ability roll of ``dice`` dice against a fixed ``target`` (the Tenacity test, the Body test).

    The engine rolls it with :func:`roll_ability`; the chain sees only passed or failed.
    """

    dice: int
    target: int
    house: FuzzyHouseRules
    label: str = ""

    def sample(self, rng: DiceRng) -> AbilityTestResult:
        r = roll_ability(self.dice, rng, self.house, label=self.label)
        return AbilityTestResult(r.total >= self.target, r)

    def outcomes(self) -> tuple[tuple[float, AbilityTestResult], ...]:
        h = self.house
        return _test_outcomes(
            self.dice, self.target, h.critical_bonus_max_explosions, h.one_die_second_die_for_criticals
        )


@lru_cache(maxsize=4096)  # bounded: a long-running server forecasts many fights
def _test_outcomes(
    dice: int, target: int, max_explosions: int, one_die_check: bool
) -> tuple[tuple[float, AbilityTestResult], ...]:
    p = _p_at_least(dice, target, max_explosions, one_die_check)
    return tuple((q, AbilityTestResult(ok)) for q, ok in ((p, True), (1 - p, False)) if q > 0)


@dataclass(frozen=True, slots=True)
class Contested:
    """What a :class:`Contest` came to: the first side's score minus the second's, and the rolls if thrown."""

    margin: int
    rolls: tuple[AbilityRoll, AbilityRoll] | None = None


@dataclass(frozen=True, slots=True)
class Contest:
    """One exchange: two ability rolls, each with its flat modifier, the first rolled first.

    ``decisive`` (per side, or None) is a margin past which the round can tell nothing apart any more
    (the winner's points reach a killing blow whatever the excess): the chain's outcomes lump every
    larger margin into it. The engine's rolls are never lumped.
    """

    dice: tuple[int, int]
    flat: tuple[int, int]
    house: FuzzyHouseRules
    labels: tuple[str, str] = ("", "")
    decisive: tuple[int | None, int | None] = (None, None)

    def sample(self, rng: DiceRng) -> Contested:
        a = roll_ability(self.dice[0], rng, self.house, label=self.labels[0])
        b = roll_ability(self.dice[1], rng, self.house, label=self.labels[1])
        return Contested(a.total + self.flat[0] - (b.total + self.flat[1]), (a, b))

    def outcomes(self) -> tuple[tuple[float, Contested], ...]:
        h = self.house
        return _contest_outcomes(
            self.dice,
            self.flat[0] - self.flat[1],
            h.critical_bonus_max_explosions,
            h.one_die_second_die_for_criticals,
            self.decisive,
        )


@lru_cache(maxsize=4096)  # bounded: a long-running server forecasts many fights
def _contest_outcomes(
    dice: tuple[int, int],
    flat: int,
    max_explosions: int,
    one_die_check: bool,
    decisive: tuple[int | None, int | None],
) -> tuple[tuple[float, Contested], ...]:
    lumped: dict[int, float] = {}
    for g, p in margin_pmf(dice, flat, max_explosions, one_die_check):
        if g > 0 and decisive[0] is not None and g > decisive[0]:
            g = decisive[0]
        elif g < 0 and decisive[1] is not None and -g > decisive[1]:
            g = -decisive[1]
        lumped[g] = lumped.get(g, 0.0) + p
    return tuple((p, Contested(g)) for g, p in lumped.items())


@lru_cache(maxsize=4096)  # bounded: a long-running server forecasts many fights
def margin_pmf(
    dice: tuple[int, int], flat: int, max_explosions: int, one_die_check: bool
) -> tuple[tuple[int, float], ...]:
    """The first roll's total (+ ``flat``) minus the second's, as (margin, probability) in floating point.

    The exact totals (:func:`roll_distribution`) convolved with numpy: the fractions take a tenth of a
    second per pair of rolls, the floats a millisecond.
    """
    import numpy as np  # the engine rolls dice without numpy; only the odds need it

    pmfs = []
    for d in dice:
        dist: dict[int, Fraction] = {}
        for (_, t), p in _roll_distribution(d, max_explosions, one_die_check).items():
            dist[t] = dist.get(t, Fraction(0)) + p
        lo, hi = min(dist), max(dist)
        pmf = np.zeros(hi - lo + 1)
        for t, p in dist.items():
            pmf[t - lo] = float(p)
        pmfs.append((lo, pmf))
    (lo_a, pa), (lo_b, pb) = pmfs
    conv = np.convolve(pa, pb[::-1])
    low = lo_a + flat - (lo_b + len(pb) - 1)
    return tuple((low + i, float(p)) for i, p in enumerate(conv) if p > 0)
