"""Part Seven, Damage from Sources Other than Weapons: falling, fire, explosions, electricity, cold, acid."""

from __future__ import annotations

import math

from ...dice import DiceRng
from ...errors import CheckError
from ...rules import Event
from .checks import FixedCheck, resolve_fixed
from .options import BumHouseRules

__all__ = [
    "acid_wounds",
    "burn",
    "cold_exposure",
    "electric_stun_rounds",
    "explosion_damage",
    "falling_wounds",
    "fire_wounds",
]


def _non_negative(value: float, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise CheckError(f"{what} must be a finite number (got {value!r})", hint=f"give {what} as 0 or more")
    if value < 0:
        raise CheckError(f"{what} cannot be negative (got {value})", hint=f"give {what} as 0 or more")


def falling_wounds(feet: float, hr: BumHouseRules | None = None) -> int:
    """Part Seven, Falling: under 10 feet none; "between 10 and 20 feet, one point ...
    over 20 feet, 2 damage, over 30, 3 and so on".

    Ruling 4: the three thresholds agree with each other, so they are the default
    (``falling_boundary='over'``): 10-20 ft = 1, 21-30 ft = 2, 31-40 ft = 3.
    ``'every_full_ten'`` reads the opening "one wound for every 10 feet" as each full
    10 feet (20 ft = 2, 30 ft = 3). Exactly 10 ft is 1 wound either way.
    """
    hr = hr or BumHouseRules()
    _non_negative(feet, "a fall")
    step = hr.falling_feet_per_wound
    if feet < step:
        return 0
    if hr.falling_boundary == "every_full_ten":
        return int(feet // step)
    return max(1, math.ceil(feet / step) - 1)


def explosion_damage(power: int, spaces: int) -> int:
    """Part Seven, Explosions: full power at the centre, one less for each space out, down to 0."""
    _non_negative(power, "an explosion's power")
    _non_negative(spaces, "the distance in spaces")
    return max(0, power - spaces)


def electric_stun_rounds(power: int, strength: int) -> int:
    """Part Seven, Electricity: stunned for the charge's power minus STR rounds (none if STR is as high)."""
    _non_negative(power, "a charge's power")
    _non_negative(strength, "STR")
    return max(0, power - strength)


def cold_exposure(strength: int, periods: int) -> tuple[int, bool]:
    """Part Seven, Cold: each period in the cold drains 1 STR for now; at 0 STR the character passes out.

    Returns (STR left, unconscious). The STR comes back once he is warm again.
    """
    _non_negative(strength, "STR")
    _non_negative(periods, "the number of periods")
    left = max(0, strength - periods)
    return left, left == 0


def acid_wounds(turns: int, every: int) -> int:
    """Part Seven, Acid: a wound every X turns while the acid stays on (X set by its potency)."""
    _non_negative(turns, "the number of turns")
    if every < 1:
        raise CheckError(
            "an acid deals a wound every 1 or more turns", hint="a strong acid: every 1-2 turns; a weak one: 10-20"
        )
    return turns // every


def fire_wounds(turns_burning: int, large_flame: bool = False, hr: BumHouseRules | None = None) -> int:
    """Part Seven, Fire: a large flame deals 1 wound at once; burning deals 1 after every other turn."""
    hr = hr or BumHouseRules()
    _non_negative(turns_burning, "the number of turns")
    return (1 if large_flame else 0) + turns_burning // hr.fire_wound_every


def burn(
    dex: int, rng: DiceRng, *, large_flame: bool = True, max_turns: int = 20, hr: BumHouseRules | None = None
) -> tuple[int, list[Event]]:
    """Part Seven, Fire: a burning character spends each whole turn to stop, drop and roll (DEX vs DC 6).

    Returns the wounds taken and the log. A small flame is put out by spending the next action, without a roll.
    """
    hr = hr or BumHouseRules()
    events: list[Event] = []
    if not large_flame:
        events.append(Event("fire", "A small flame: he spends his next action putting it out, and takes no wound."))
        return 0, events
    wounds = 1
    events.append(Event("fire", "Hit by a large flame: 1 wound, and he is on fire.", data={"wounds": 1}))
    for turn in range(1, max_turns + 1):
        out = resolve_fixed(
            FixedCheck(bonus=dex, dc=hr.fire_dc, parts=(("DEX", dex),), label="stop, drop and roll"), rng
        )
        if out.success:
            events.append(
                Event(
                    "fire",
                    f"Turn {turn}: stop, drop and roll: {out.explanation} The fire is out.",
                    turn,
                    rolls=out.rolls,
                ),
            )
            return wounds, events
        burned = turn % hr.fire_wound_every == 0
        wounds += burned
        events.append(
            Event(
                "fire",
                f"Turn {turn}: stop, drop and roll fails ({out.explanation})"
                + (" He burns: 1 wound." if burned else ""),
                turn,
                rolls=out.rolls,
                data={"wounds": int(burned)},
            )
        )
    events.append(Event("fire", f"Still burning after {max_turns} turns.", max_turns))
    return wounds, events
