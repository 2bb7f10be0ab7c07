"""Philsys house rules: every optional rule, contradiction and "GM's discretion" as a named option.

Each field defaults to the ruling recorded in ``docs/rulings/philsys.md``; its
description cites the passage of the Philsys wiki article (revision of
21 March 2006) that it rests on.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ...rules.models import HouseRules

__all__ = ["PhilsysHouseRules"]


class PhilsysHouseRules(HouseRules):
    """The optional rules of Philsys, each defaulting to the book (or to the ruling where it contradicts itself)."""

    initiative_formula: Literal["agi_cou", "agi_cou_half", "agi_int_half"] = Field(
        "agi_cou",
        description=(
            "Initiative bonus. Default 'agi_cou' = AGI + COU: the combat walkthrough rolls 'AGI+COU+2d6', calls "
            "AGI+COU the 'initiative bonus', and every worked initiative in it uses it (Aya 6, the guard 8, "
            "Chandler 5). 'agi_cou_half' = AGI + COU/2 (Derived Substats, the formula written on the sheet); "
            "'agi_int_half' = AGI + INT/2 (Turn Sequence). Halves round down."
        ),
    )
    initiative_ties: Literal["modifier_then_reroll", "reroll"] = Field(
        "modifier_then_reroll",
        description=(
            "Initiative ties. Default (Turn Sequence): the higher modifier goes first, identical modifiers re-roll. "
            "'reroll' (combat walkthrough: 'the two may roll off') re-rolls every tie at once."
        ),
    )
    melee_damage: Literal["thrust_slash_chop", "light_medium_heavy"] = Field(
        "thrust_slash_chop",
        description=(
            "Melee damage scheme. Default (Equipment and Inventory, Longsword 10/14/17; walkthrough slash at -3): "
            "weapon T/S/C + STR+1d6 / STR*2+2d4 / STR*3+2d6 at 0/-3/-6. Alternative (Resolving Melee Attacks): "
            "light/medium/heavy = base + rank + STR*k + kd6 at 0/-2/-5, two-handed STR*(k+1) + (k+1)d6; "
            "the weapon's three damages are read as its light/medium/heavy base damages."
        ),
    )
    unparried_attacks_hit_automatically: bool = Field(
        False,
        description=(
            "A defender gets one parry roll per round (Resolving Melee Attacks). Default: later attacks compare AT+d20 "
            "with the bare PA (defender wins ties). True: they hit automatically and the roll only decides a critical "
            "(walkthrough: 'they are hit automatically')."
        ),
    )
    critical_margin: int = Field(
        15, ge=1, description="Margin for a critical hit / critical failure (walkthrough: 'by 15 or more')."
    )
    critical_failure_effect: Literal["lose_next_turn", "none"] = Field(
        "lose_next_turn",
        description=(
            "An addition: the book leaves a critical failure's effect to the GM (dropped weapon, fell flat on their "
            "face); the fight engine's default is that the attacker loses their next turn recovering. "
            "'none': no effect."
        ),
    )
    strength_requirement: Literal["forbid", "penalty"] = Field(
        "forbid",
        description=(
            "Using gear whose strength requirement the wielder does not meet. 'forbid' (the basic rule: a requirement "
            "is a requirement) makes the sheet illegal; 'penalty' is the 'Advanced rule' of Equipment and Inventory: "
            "AT/PA penalty of twice the shortfall."
        ),
    )
    critical_health_threshold: int = Field(
        15,
        ge=0,
        description="'Critical health status' starts at this many HP or less (Taking Damage: 'roughly 10-15 HP "
        "or less').",
    )
    critical_health_penalty: int = Field(
        3,
        ge=3,
        le=6,
        description="AT/PA (and spellcasting) penalty at critical health, 3..6 (Taking Damage: '-3/-3 to -6/-6').",
    )
    heavy_wound_penalty: int = Field(
        0,
        ge=0,
        le=6,
        description=(
            "Extra AT/PA/spell penalty for the rest of the fight after one attack deals more than 3/4 of max HP "
            "(Taking Damage: 'could also confer a penalty of -4/-4 or so'). 0 = off (the book's 'whim of the GM')."
        ),
    )
    critical_health_missile: bool = Field(
        False,
        description="Critical health status also takes its penalty off missile attacks (an addition: Taking "
        "Damage names only AT/PA and spellcasting).",
    )
    bleeding: bool = Field(
        False,
        description="Optional rule (Taking Damage): characters below 0 HP lose HP each round until dead or healed.",
    )
    bleeding_rate: int = Field(
        1, ge=1, le=4, description="HP lost per round when bleeding ('a point or three' more if severe)."
    )
    death_threshold: int = Field(
        -10,
        le=0,
        description=(
            "An addition: a character at this HP or lower is dead. The book never says where death begins (Taking "
            "Damage, Wounds and Dying); -10 is Storymaster's, not the book's."
        ),
    )
    near_miss_half_damage: bool = Field(
        False,
        description="Optional rule (magic): a resisted spell that ties or misses by 1 deals half damage.",
    )
    skill_raise_roll: Literal["example", "text"] = Field(
        "example",
        description=(
            "Level-up skill raise roll when the new rank is not below the base sum. 'example' (the worked example, "
            "6->7 with bases 3 needs '3 or greater'): d6 >= current rank - base sum. 'text': d6 > new rank - base sum."
        ),
    )
    xp_surplus_carries: bool = Field(
        True,
        description="XP left over after paying for a level is kept (Character Advancement: 'The XP count "
        "resets'); False sets it to 0.",
    )
    missile_defence: Literal["agi_cou", "missile_evasion"] = Field(
        "agi_cou",
        description=(
            "Missile defence modifier. 'agi_cou' = AGI+COU+d20 (combat walkthrough and the Chandler example); "
            "'missile_evasion' = the substat 10 + INT + AGI*2 + d20 (Derived Substats)."
        ),
    )
    shield_breaks: bool = Field(
        False,
        description=(
            "A hit whose damage exceeds the shield's AC destroys the shield (Equipment: 'may be damaged or even "
            "destroyed'). Default: the event is noted, the shield holds."
        ),
    )
    max_rounds: int = Field(
        100, ge=1, le=10_000, description="The automatic fight engine stops (a draw) after this many rounds."
    )
