"""The Modifiers section's numbers as small named rules (Kalyr RPG ch. 3, Modifiers; Deciding What
Ability to Use). Pure functions of plain values: ``abilities`` applies them to characters, and a
check's :class:`~storymaster.systems.kalyr.checks.AbilityRoll` carries them as fields, so the CLI
and the table can set them without a character file."""

from __future__ import annotations

from typing import Literal

from ...errors import CheckError

__all__ = [
    "RACE_STANDINGS",
    "Quality",
    "RaceStanding",
    "equipment_modifier",
    "race_penalty",
    "rank_modifier_for_gap",
    "similar_ability_modifier",
    "situation_modifier",
]

Quality = Literal["fine", "normal", "poor"]
RaceStanding = Literal["same", "other", "very_intolerant"]
RACE_STANDINGS: tuple[str, ...] = ("same", "other", "very_intolerant")
_EQUIPMENT = {"fine": 1, "normal": 0, "poor": -1}


def equipment_modifier(quality: str) -> int:
    """+1 for very good equipment or circumstances, -1 for very poor or improvised (Modifiers)."""
    try:
        return _EQUIPMENT[quality]
    except (KeyError, TypeError):
        raise CheckError(
            f"equipment is fine, normal or poor, not {quality!r}", hint="fine (+1), normal (0) or poor (-1)"
        ) from None


def situation_modifier(value: int) -> int:
    """A situational advantage of +1 or even +2 (Modifiers); a disadvantage likewise."""
    if isinstance(value, bool) or not isinstance(value, int) or not -2 <= value <= 2:
        raise CheckError(f"a situational modifier is between -2 and +2, not {value!r}", hint="e.g. --situation 1")
    return value


def race_penalty(standing: str) -> int:
    """Persuading someone of another race: -1, or -2 if they are Very Intolerant (Modifiers)."""
    penalties = {"same": 0, "other": -1, "very_intolerant": -2}
    if standing not in penalties:
        raise CheckError(
            f"the target's race is same, other or very_intolerant, not {standing!r}",
            hint="other: -1; very_intolerant: -2 (Modifiers)",
        )
    return penalties[standing]


def rank_modifier_for_gap(gap: int) -> int:
    """Persuading a social superior: -1 for each level the target's highest connection is above
    yours (``gap`` > 0); +1 only if you outrank them (``gap`` < 0) (Modifiers; ruling K8)."""
    if isinstance(gap, bool) or not isinstance(gap, int) or not -6 <= gap <= 6:
        raise CheckError(f"a difference in social rank is -6..+6 ladder levels, not {gap!r}")
    if gap > 0:
        return -gap
    return 1 if gap < 0 else 0


def similar_ability_modifier(penalty: int) -> int:
    """A similar ability used in place of the one required: "a penalty, typically -1 or -2, depending
    on how close your ability is" (Deciding What Ability to Use). 0 means the ability itself."""
    if isinstance(penalty, bool) or not isinstance(penalty, int) or not -3 <= penalty <= 0:
        raise CheckError(
            f"a similar ability is used at a penalty of -1 or -2 (at most -3), not {penalty!r}",
            hint="the GM is the final arbiter: typically -1 for a close ability, -2 for a distant one",
        )
    return penalty
