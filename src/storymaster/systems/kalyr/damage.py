"""How much damage a contest does, and what it does to a character (Kalyr RPG ch. 3, Damage)."""

from __future__ import annotations

import math

from ...errors import CheckError
from .character import Character, armour_value, damage_bonus, damage_reduction, weapon_damage
from .wounds import (
    DESTROYED,
    TrackName,
    Wound,
    clear_scratches,
    heal_track,
    healing_levels,
    healing_time,
    mark_wound,
    rest_track,
    severity_for_damage,
    severity_name,
)

__all__ = [
    "WoundReport",
    "approach_total",
    "armament_bonus",
    "contest_damage",
    "detailed_contest_damage",
    "end_scene",
    "halve_for_detailed",
    "heal",
    "rest",
    "simple_contest_damage",
    "take_damage",
    "take_wound",
]


def approach_total(a: int, b: int) -> int:
    """Aggressive +1/+2, cautious -1/-2 for each party; both parties' damage moves by the sum
    (same approaches add, opposite ones cancel). Kalyr RPG ch. 3, Damage."""
    for v in (a, b):
        if not -2 <= v <= 2:
            raise CheckError(f"an approach is -2..+2 (cautious to aggressive), not {v:+d}")
    return a + b


def contest_damage(
    margin: int, *, weapon: int = 0, gift: int = 0, armour: int = 0, reduction: int = 0, approach: int = 0
) -> int:
    """Damage points one participant takes: the margin against them (positive for a loser) plus the
    opponent's weapon and gift bonuses, minus their own armour and gifts, plus the approaches."""
    return margin + weapon + gift - armour - reduction + approach


def simple_contest_damage(
    a: Character,
    a_result: int,
    b: Character,
    b_result: int,
    *,
    a_approach: int = 0,
    b_approach: int = 0,
    armed: bool = True,
) -> tuple[int, int]:
    """Damage points (to A, to B) after a simple contest with no fixed stakes: both parties can be hurt.

    Kalyr RPG ch. 3, Example of Damage: both Great, bandit mace +3, aggressive +2, Kylar's armour -2:
    3 (Very Hurt); Kylar's Narvork +3, Extra Damage +1, +2, bandit's armour -1: 5 (Destroyed).
    """
    app = approach_total(a_approach, b_approach)
    to_a = contest_damage(
        b_result - a_result,
        weapon=weapon_damage(b) if armed else 0,
        gift=damage_bonus(b),
        armour=armour_value(a) if armed else 0,
        reduction=damage_reduction(a),
        approach=app,
    )
    to_b = contest_damage(
        a_result - b_result,
        weapon=weapon_damage(a) if armed else 0,
        gift=damage_bonus(a),
        armour=armour_value(b) if armed else 0,
        reduction=damage_reduction(b),
        approach=app,
    )
    return to_a, to_b


def halve_for_detailed(points: int) -> int:
    """Detailed Contests: the total damage is halved, rounding up, before reading the track."""
    return math.ceil(points / 2) if points > 0 else points


def detailed_contest_damage(
    a: Character,
    a_result: int,
    b: Character,
    b_result: int,
    *,
    a_approach: int = 0,
    b_approach: int = 0,
    winner_takes_damage: bool = False,
) -> tuple[int, int]:
    """Damage points (to A, to B) from one round of a detailed contest, halved (rounding up).

    Detailed Contests: "If the result is a tie, the round results is a stand-off ... nobody is
    hurt"; otherwise the winner scores the hit: only the loser takes damage (ruling K11; house
    rule ``detailed_winner_takes_damage`` checks the winner's too). The minimum result to hit
    and the other detailed-combat modifiers act on the results before this.
    """
    if a_result == b_result:
        approach_total(a_approach, b_approach)  # bad approaches are still refused
        return 0, 0
    to_a, to_b = simple_contest_damage(a, a_result, b, b_result, a_approach=a_approach, b_approach=b_approach)
    to_a, to_b = halve_for_detailed(to_a), halve_for_detailed(to_b)
    if winner_takes_damage:
        return to_a, to_b
    return (0, to_b) if a_result > b_result else (to_a, 0)


def armament_bonus(a: Character, b: Character) -> tuple[int, int]:
    """Using Simple Contests for Fights: the better-armed fighter's bonus is the average of the
    weapon-damage and armour differences, rounded down (returned as (bonus to A, bonus to B))."""
    diff = (weapon_damage(a) - weapon_damage(b)) + (armour_value(a) - armour_value(b))
    bonus = abs(diff) // 2
    return (bonus, 0) if diff > 0 else (0, bonus)


class WoundReport:
    """What one wound did: severity taken, box marked, levels a Fudge point took off, key due."""

    __slots__ = ("box", "key_due", "reduced", "severity", "track")

    def __init__(self, track: str, severity: int, wound: Wound | None, reduced: int, key_due: bool) -> None:
        self.track = track
        self.severity = severity
        self.box = wound.box if wound else 0
        self.reduced = reduced
        self.key_due = key_due

    def text(self, who: str) -> str:
        if self.severity <= 0:
            return f"{who} takes no {self.track} damage" + (
                " (a Fudge point took the wound away)" if self.reduced else ""
            )
        name = severity_name(self.severity)
        line = f"{who} takes a {self.track} {name}"
        if self.reduced:
            line += f" (reduced {self.reduced} level(s) with Fudge points)"
        if self.box == 0:
            return line + ", but every box from there up is already marked"
        if self.box != self.severity:
            line += f", marked in the {severity_name(self.box)} box (no open {name} box)"
        if self.key_due:
            line += "; Destroyed: the character gains a new Key tied to this conflict"
        return line


def take_wound(
    character: Character, track: TrackName, severity: int, *, fudge_reduce: int = 0, advancement: bool = True
) -> tuple[Character, WoundReport]:
    """Mark a wound (overflowing as needed); Fudge points may reduce it first, one level each
    (Fudge Points: 'including reducing Destroyed to Defeated'); Destroyed owes a new Key (Destroyed)."""
    if fudge_reduce < 0:
        raise CheckError("Fudge points reduce a wound, they cannot raise it")
    if fudge_reduce > character.fudge_points:
        raise CheckError(f"{character.name} has {character.fudge_points} Fudge point(s), not {fudge_reduce}")
    reduce = min(fudge_reduce, max(severity, 0))
    severity = max(severity - reduce, 0)
    t, wound = mark_wound(character.damage.track(track), severity)
    key_due = wound is not None and wound.box == DESTROYED
    update: dict = {
        "damage": character.damage.with_track(track, t),
        "fudge_points": character.fudge_points - reduce,
        "experience": character.experience + (reduce if advancement else 0),
        "keys_due": character.keys_due + (1 if key_due else 0),
    }
    return character.model_copy(update=update), WoundReport(track, severity, wound, reduce, key_due)


def take_damage(
    character: Character, track: TrackName, points: int, *, fudge_reduce: int = 0, advancement: bool = True
) -> tuple[Character, WoundReport]:
    """Damage points to a wound: 1 Scratch, 2 Hurt ... 5+ Destroyed."""
    return take_wound(character, track, severity_for_damage(points), fudge_reduce=fudge_reduce, advancement=advancement)


def end_scene(character: Character) -> Character:
    """Scratches go away at the end of a scene; the scene's advancement limit resets."""
    damage = character.damage
    for t in ("physical", "mental", "social"):
        damage = damage.with_track(t, clear_scratches(damage.track(t)))  # type: ignore[arg-type]
    return character.model_copy(update={"damage": damage, "raised_this_scene": ()})


def heal(
    character: Character, track: TrackName, result: int, *, method: str = "medical"
) -> tuple[Character, int, int, str]:
    """A healing-skill result: Good heals every wound 1 level, Great 2, Superb+ 3; medical healing
    takes days, psionic hours (Getting rid of damage). Returns (character, levels, time, unit)."""
    if track == "social":
        raise CheckError("social damage is not healed by skill: it is reversed by undoing the humiliation in play")
    if method not in ("medical", "psionic"):
        raise CheckError(f"healing is medical or psionic, not {method!r}")
    levels = healing_levels(result)
    before = character.damage.track(track)
    time = healing_time(before, levels)
    new = heal_track(before, levels)
    unit = "days" if method == "medical" else "hours"
    return character.model_copy(update={"damage": character.damage.with_track(track, new)}), levels, time, unit


def rest(character: Character, weeks: int) -> Character:
    """All damage heals on its own one wound level per week of rest."""
    if weeks < 0:
        raise CheckError("weeks of rest cannot be negative")
    damage = character.damage
    for t in ("physical", "mental", "social"):
        damage = damage.with_track(t, rest_track(damage.track(t), weeks))  # type: ignore[arg-type]
    return character.model_copy(update={"damage": damage})
