"""Part Five, Wounds/Injury: taking wounds, 0 hit points, and healing them least severe first."""

from __future__ import annotations

from .character import BumCharacter, Wound, current_hp

__all__ = ["ZERO_HP_EFFECTS", "heal", "incapacitated", "take_wounds"]

#: Part Five, Wounds/Injury: what 0 HP means (not death)
ZERO_HP_EFFECTS = (
    "knocked out or too wounded to fight, run, cast or do anything strenuous",
    "not dead: can crawl off, bandage himself and (maybe) speak",
    "in great pain and likely bleeding; the GM says what the wounds mean",
)


def take_wounds(c: BumCharacter, n: int = 1, cause: str = "", heal_days: int | None = None) -> BumCharacter:
    """Mark ``n`` wounds on the card (a tally mark each)."""
    if n < 0:
        raise ValueError("wounds taken cannot be negative")
    return c.model_copy(update={"wounds": (*c.wounds, *(Wound(cause=cause, heal_days=heal_days) for _ in range(n)))})


def incapacitated(c: BumCharacter) -> bool:
    """At 0 hit points a character is out of the fight (but not dead)."""
    return current_hp(c) == 0


def heal(c: BumCharacter, days: int) -> BumCharacter:
    """Wounds heal independently, least severe first: every wound whose healing time has passed is gone.

    A wound with no healing time set (the GM has not said) stays until the GM removes it.
    """
    if days < 0:
        raise ValueError("days cannot be negative")
    left = tuple(w for w in c.wounds if w.heal_days is None or w.heal_days > days)
    remaining = tuple(
        w.model_copy(update={"heal_days": None if w.heal_days is None else w.heal_days - days}) for w in left
    )
    ordered = tuple(sorted(remaining, key=lambda w: (w.heal_days is None, w.heal_days or 0)))
    return c.model_copy(update={"wounds": ordered})
