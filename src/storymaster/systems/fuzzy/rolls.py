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
from functools import cache
from typing import Literal

from ...dice import DiceRng, RollRecord, roll
from ...errors import CheckError
from .options import FuzzyHouseRules

__all__ = [
    "MAX_DICE",
    "AbilityRoll",
    "Critical",
    "bonus_die_distribution",
    "effective_dice",
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
