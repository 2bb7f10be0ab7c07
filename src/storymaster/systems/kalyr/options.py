"""Kalyr house rules: every optional rule of chapter 3, defaulting to the book (rulings in docs/rulings/kalyr.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ...rules.models import HouseRules
from .ladder import Level

__all__ = ["KalyrHouseRules"]


class KalyrHouseRules(HouseRules):
    """Kalyr RPG ch. 3 options. The detailed-combat options default to on: the book offers them
    for groups that like crunch and tells others to "ignore any or all of them" (ruling K12)."""

    winner_narrates: bool = Field(
        True,
        description="Simple Contests, 'Optional Rule': the winner of a contest narrates its outcome (the GM "
        "always narrates information-gathering).",
    )
    simple_armament_bonus: bool = Field(
        True,
        description="Using Simple Contests for Fights: the better-armed fighter gets a bonus of the average of "
        "the weapon-damage and armour differences, rounded down ('a good rule of thumb').",
    )
    simple_reach_bonus: int = Field(
        1,
        ge=0,
        le=2,
        description="Using Simple Contests for Fights: bonus to a fighter whose weapon has a much longer reach "
        "(Long against Close, 'polearm vs. dagger'); 0 turns it off.",
    )
    outnumbering_max_penalty: int | None = Field(
        None,
        ge=0,
        description="Simple Group Contests: largest outnumbering penalty (book: 2:1 is -1, 3:1 is -2; by default "
        "each extra foe adds -1 with no cap - ruling K6).",
    )
    incapacitated_penalty: int = Field(
        -1,
        le=0,
        description="Modifiers: being Defeated ('Incapacitated') on one damage track gives this to conflicts of "
        "another type (ruling K5).",
    )
    cross_track_penalty_stacks: bool = Field(
        True,
        description="Ruling K5: the Incapacitated penalty from another track adds to the acting track's own "
        "Hurt/Very Hurt penalty (off: only the worse of the two counts).",
    )
    detailed_minimum_to_hit: bool = Field(
        True,
        description="Specific rules for Detailed Combats: a winner needs at least Poor (adjusted by Scale) to hit.",
    )
    detailed_reach: bool = Field(
        True,
        description="Specific rules for Detailed Combats: weapon reach (-1 to the shorter weapon, then to the "
        "loser; Close against Long cannot attack until it dodges).",
    )
    detailed_shields: bool = Field(
        True,
        description="Specific rules for Detailed Combats: a shield's value is subtracted from the opponent's "
        "weapon skill.",
    )
    detailed_weapon_size: bool = Field(
        True,
        description="Specific rules for Detailed Combats: weapon+shield value 2 or more below the foe's gives -1 "
        "to combat skill.",
    )
    detailed_aimed_blows: bool = Field(
        True, description="Specific rules for Detailed Combats: aimed blows (-1 and a Good or Great minimum)."
    )
    detailed_all_out: bool = Field(
        True,
        description="Specific rules for Detailed Combats: all-out offence (+1, +1 damage, foe +2 damage on "
        "tie/loss) and all-out defence (+2, harms only on a critical).",
    )
    detailed_scope_out: bool = Field(
        True,
        description="Specific rules for Detailed Combats: successful all-out defence plus a Perception or "
        "Tactics roll gives the foe -1 next round.",
    )
    scope_out_difficulty: Level = Field(
        "Fair",
        validate_default=True,
        description="Ruling K13: the difficulty of the Perception/Tactics roll after an all-out defence (the "
        "book sets none; Fair is its 'if in doubt' difficulty).",
    )
    critical_rule: Literal["dice_plus_4", "margin_3"] = Field(
        "dice_plus_4",
        description="Ruling K14: what counts as a 'critical result' for all-out defence (the chapter does not "
        "define it): all four dice showing [+], or winning by 3 or more.",
    )
    detailed_winner_takes_damage: bool = Field(
        False,
        description="Ruling K11: in a detailed-contest round only the loser checks for damage (on: both parties "
        "do, as in a simple contest).",
    )
    max_retro_shifts_per_roll: int = Field(
        1,
        ge=1,
        description="Fudge Points: how many Fudge points one character may spend to shift the same roll by +1/-1 "
        "(ruling K16).",
    )
    advancement: bool = Field(True, description="Character Advancement: 'strictly optional'; off for one-shots.")
