"""Philsys checks: Modifiers + 1d20 against a TD, opposed d20 rolls, melee, missile and magic attacks.

Exact odds come from icepool (the d20 and the difference of two d20s);
tests compare them with brute-force enumeration over every face.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import icepool
import numpy as np
from pydantic import Field

from ...dice import DiceRng, RollRecord, roll
from ...errors import CheckError
from ...rules.models import Check
from ...rules.outcome import Outcome, OutcomeOdds
from .options import PhilsysHouseRules

__all__ = [
    "CHECK_TYPES",
    "D20Check",
    "MagicAttack",
    "MeleeAttack",
    "MissileAttack",
    "OpposedCheck",
    "SkillCheck",
    "StatCheck",
    "check_odds",
    "magic_result",
    "magic_result_v",
    "melee_result",
    "melee_result_v",
    "opposed_wins",
    "resolve_check",
]

SYSTEM_NAME = "philsys"


class D20Check(Check):
    """Basic Tests of Skill: modifier + d20, success when the total is equal to or greater than the TD."""

    modifier: int = Field(ge=-200, le=500)
    td: int = Field(ge=0, le=1000, description="Target difficulty (TD).")

    def total_modifier(self) -> int:
        return self.modifier

    def describe(self) -> str:
        return f"d20{self.total_modifier():+d} vs TD {self.td}"


class StatCheck(D20Check):
    """Basic Tests of Skill: a stat check is Stat*3 + d20 (a skill with three equal bases and no ranks)."""

    stat: int = Field(ge=-5, le=20)
    modifier: int = Field(0, ge=-200, le=500)

    def total_modifier(self) -> int:
        return 3 * self.stat + self.modifier

    def describe(self) -> str:
        return f"stat check {self.stat:+d}*3{self.modifier:+d} vs TD {self.td}"


class SkillCheck(D20Check):
    """Basic Tests of Skill: the three bases summed, plus the rank, plus d20."""

    bases: tuple[int, int, int]
    rank: int = Field(0, ge=0, le=200)
    modifier: int = Field(0, ge=-200, le=500)

    def total_modifier(self) -> int:
        return sum(self.bases) + self.rank + self.modifier

    def describe(self) -> str:
        b = "/".join(f"{x:+d}" for x in self.bases)
        return f"skill check <{b}> + rank {self.rank} vs TD {self.td}"


class OpposedCheck(Check):
    """An opposed d20 roll: modifier + d20 against vs + d20; the defender wins ties (Resolving Melee Attacks)."""

    modifier: int = Field(ge=-200, le=500)
    vs: int = Field(ge=-200, le=500)
    defender_rolls: bool = True

    def describe(self) -> str:
        d = "d20" if self.defender_rolls else "no roll"
        return f"d20{self.modifier:+d} vs {d}{self.vs:+d} (defender wins ties)"


class MeleeAttack(Check):
    """Resolving Melee Attacks: modified AT + d20 against modified PA + d20 (no roll after the first parry)."""

    at: int = Field(ge=-200, le=500, description="Modified AT, attack-type penalty included.")
    pa: int = Field(ge=-200, le=500, description="Modified PA.")
    parry: bool = Field(True, description="False once the defender has used this round's parry roll.")

    def describe(self) -> str:
        return f"melee AT {self.at} vs PA {self.pa}" + ("" if self.parry else " (no parry roll)")


class MissileAttack(Check):
    """Resolving Ranged Attacks: accuracy + skill + d20 + location vs AGI + COU + d20 + size/range."""

    attack: int = Field(ge=-200, le=500)
    defence: int = Field(ge=-200, le=500)

    def describe(self) -> str:
        return f"missile {self.attack} vs defence {self.defence}"


class MagicAttack(Check):
    """Resolving Magical Attacks: INT+WIS+MAG+skill+d20 must exceed 10 + COU*2 + INT + d20."""

    attack: int = Field(ge=-200, le=500, description="INT+WIS+MAG+skill rank (less penalties).")
    resist: int = Field(ge=-200, le=500, description="10 + COU*2 + INT of the target.")

    def describe(self) -> str:
        return f"spell {self.attack} vs resistance {self.resist}"


CHECK_TYPES: dict[str, type[Check]] = {
    "check": D20Check,
    "stat": StatCheck,
    "skill": SkillCheck,
    "opposed": OpposedCheck,
    "melee": MeleeAttack,
    "missile": MissileAttack,
    "magic": MagicAttack,
}


# --- the rules as small functions -------------------------------------------------------


def check_succeeds(total: int, td: int) -> bool:
    """Basic Tests of Skill: 'equal to or greater than the difficulty' succeeds."""
    return total >= td


def opposed_wins(attacker_total: Any, defender_total: Any) -> Any:
    """Resolving Melee Attacks: 'In the case of a tie, the defender wins.' A comparison: serves ints and arrays."""
    return attacker_total > defender_total


def melee_result(margin: int, parry: bool, hr: PhilsysHouseRules) -> str:
    """Attack total minus defence total -> critical hit / hit / miss / critical failure.

    Combat walkthrough: a hit is critical when the attacker beats the defender by 15 or more; the
    attacker critically fails when the defender beats him by 15 or more.
    """
    if margin >= hr.critical_margin:
        return "critical hit"
    if not parry and hr.unparried_attacks_hit_automatically:
        return "hit"
    if margin > 0:
        return "hit"
    if -margin >= hr.critical_margin:
        return "critical failure"
    return "miss"


def melee_result_v(margin: np.ndarray, parry: bool, hr: PhilsysHouseRules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`melee_result` for an array of margins: (critical hit, hit, critical failure) masks; the rest miss."""
    crit = margin >= hr.critical_margin
    if not parry and hr.unparried_attacks_hit_automatically:
        hit = ~crit
    else:
        hit = ~crit & (margin > 0)
    fail = ~crit & ~hit & (-margin >= hr.critical_margin)
    return crit, hit, fail


def magic_result(margin: int, hr: PhilsysHouseRules) -> str:
    """The spell total must exceed the resistance; optionally a tie or a miss by 1 deals half damage."""
    if margin > 0:
        return "hit"
    if hr.near_miss_half_damage and margin >= -1:
        return "half damage"
    return "resisted"


def magic_result_v(margin: np.ndarray, hr: PhilsysHouseRules) -> tuple[np.ndarray, np.ndarray]:
    """:func:`magic_result` for an array of margins: (hit, half damage) masks; the rest is resisted."""
    hit = margin > 0
    half = ~hit & (margin >= -1) if hr.near_miss_half_damage else np.zeros_like(hit)
    return hit, half


# --- odds -------------------------------------------------------------------------------

_D20 = icepool.d20


def _margin_die(check: Check) -> tuple[icepool.Die, int]:
    """The distribution of (attacker's d20 - defender's d20, or just the d20) and the constant part."""
    if isinstance(check, D20Check):
        return _D20, check.total_modifier() - check.td
    if isinstance(check, OpposedCheck):
        return (_D20 - _D20 if check.defender_rolls else _D20), check.modifier - check.vs
    if isinstance(check, MeleeAttack):
        return (_D20 - _D20 if check.parry else _D20), check.at - check.pa
    if isinstance(check, MissileAttack):
        return _D20 - _D20, check.attack - check.defence
    if isinstance(check, MagicAttack):
        return _D20 - _D20, check.attack - check.resist
    raise CheckError(f"philsys cannot give odds for a {type(check).__name__}")


def classify(check: Check, margin: int, hr: PhilsysHouseRules) -> str:
    """The outcome name for a margin (total minus TD or minus the defender's total)."""
    if isinstance(check, D20Check):
        return "success" if margin >= 0 else "failure"
    if isinstance(check, OpposedCheck):
        return "success" if opposed_wins(margin, 0) else "failure"
    if isinstance(check, MeleeAttack):
        return melee_result(margin, check.parry, hr)
    if isinstance(check, MissileAttack):
        return "hit" if opposed_wins(margin, 0) else "miss"
    if isinstance(check, MagicAttack):
        return magic_result(margin, hr)
    raise CheckError(f"philsys cannot resolve a {type(check).__name__}")


OUTCOME_ORDER: dict[type, tuple[str, ...]] = {
    D20Check: ("success", "failure"),
    OpposedCheck: ("success", "failure"),
    MeleeAttack: ("critical hit", "hit", "miss", "critical failure"),
    MissileAttack: ("hit", "miss"),
    MagicAttack: ("hit", "half damage", "resisted"),
}
SUCCESS = frozenset({"success", "critical hit", "hit", "half damage"})


def _order(check: Check) -> tuple[str, ...]:
    for cls, names in OUTCOME_ORDER.items():
        if isinstance(check, cls):
            return names
    raise CheckError(f"philsys cannot give odds for a {type(check).__name__}")


def check_odds(check: Check, hr: PhilsysHouseRules | None = None) -> OutcomeOdds:
    """The exact chance of every outcome, from icepool."""
    hr = hr or PhilsysHouseRules()
    die, const = _margin_die(check)
    probs: dict[str, Fraction] = {}
    total = die.denominator()
    for face, q in die.items():
        name = classify(check, int(face) + const, hr)
        probs[name] = probs.get(name, Fraction(0)) + Fraction(int(q), int(total))
    ordered = {k: probs.get(k, Fraction(0)) for k in _order(check) if k in probs}
    return OutcomeOdds(
        SYSTEM_NAME,
        check.describe(),
        ordered,
        frozenset(k for k in ordered if k in SUCCESS),
    )


# --- resolving --------------------------------------------------------------------------


def _d20(rng: DiceRng, label: str) -> RollRecord:
    return roll("1d20", rng, label=label)


def resolve_check(check: Check, rng: DiceRng, hr: PhilsysHouseRules | None = None) -> Outcome:
    """Roll the check and explain the result in plain words."""
    hr = hr or PhilsysHouseRules()
    if isinstance(check, D20Check):
        r = _d20(rng, "check d20")
        mod = check.total_modifier()
        total = r.total + mod
        margin = total - check.td
        result = classify(check, margin, hr)
        text = f"The d20 showed {r.total}; with the modifier {mod:+d} that makes {total} against TD {check.td}. " + (
            "Equal to or above the TD: success." if result == "success" else f"Short by {-margin}: failure."
        )
        return Outcome(
            SYSTEM_NAME,
            check.describe(),
            result,
            result == "success",
            text,
            (r,),
            margin,
            {"total": total, "td": check.td, "modifier": mod},
        )
    if isinstance(check, (OpposedCheck, MeleeAttack, MissileAttack, MagicAttack)):
        a_mod, d_mod, d_rolls, who = _sides(check)
        ra = _d20(rng, f"{who[0]} d20")
        rolls = [ra]
        a_total = ra.total + a_mod
        if d_rolls:
            rd = _d20(rng, f"{who[1]} d20")
            rolls.append(rd)
            d_total = rd.total + d_mod
            d_text = f"{who[1]} rolled {rd.total}{d_mod:+d} = {d_total}"
        else:
            d_total = d_mod
            d_text = f"{who[1]} has no roll left this round and stands on {d_mod}"
        margin = a_total - d_total
        result = classify(check, margin, hr)
        text = f"{who[0].capitalize()} rolled {ra.total}{a_mod:+d} = {a_total}; {d_text}. "
        text += _verdict(result, margin, hr)
        return Outcome(
            SYSTEM_NAME,
            check.describe(),
            result,
            result in SUCCESS,
            text,
            tuple(rolls),
            margin,
            {"attacker_total": a_total, "defender_total": d_total},
        )
    raise CheckError(f"philsys cannot resolve a {type(check).__name__}")


def _sides(check: Check) -> tuple[int, int, bool, tuple[str, str]]:
    if isinstance(check, OpposedCheck):
        return check.modifier, check.vs, check.defender_rolls, ("the actor", "the opponent")
    if isinstance(check, MeleeAttack):
        return check.at, check.pa, check.parry, ("the attacker", "the defender")
    if isinstance(check, MissileAttack):
        return check.attack, check.defence, True, ("the marksman", "the target")
    assert isinstance(check, MagicAttack)
    return check.attack, check.resist, True, ("the caster", "the target")


_VERDICTS: dict[str, Callable[[int, PhilsysHouseRules], str]] = {
    "success": lambda m, hr: f"Higher by {m}: success.",
    "failure": lambda m, hr: "A tie goes to the defender: failure." if m == 0 else f"Lower by {-m}: failure.",
    "critical hit": lambda m, hr: f"Beaten by {m} ({hr.critical_margin} or more): a critical hit, double damage.",
    "hit": lambda m, hr: f"Higher by {m}: a hit." if m > 0 else "No parry roll left: the blow lands.",
    "miss": lambda m, hr: "A tie goes to the defender: a miss." if m == 0 else f"Lower by {-m}: a miss.",
    "critical failure": lambda m, hr: f"The defender won by {-m} ({hr.critical_margin} or more): a critical failure.",
    "resisted": lambda m, hr: "A tie is resisted." if m == 0 else f"Lower by {-m}: the spell is resisted.",
    "half damage": lambda m, hr: f"A near miss ({m}): under the optional rule, half damage.",
}


def _verdict(result: str, margin: int, hr: PhilsysHouseRules) -> str:
    return _VERDICTS[result](margin, hr)
