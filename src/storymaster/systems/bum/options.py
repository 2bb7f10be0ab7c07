"""B.U.M. house rules: every optional rule and "up to the GM" in the book, defaulting to the book.

The book's Golden Rule ("whatever the GM says goes") makes every rule open to
change, but it also says the players must hear the rule and their chance
before they commit: so each option here is shown by ``storymaster house-rules
bum`` and feeds the exact odds.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from ...rules import HouseRules

__all__ = ["BumHouseRules", "TieRule"]

TieRule = Literal["reroll", "defender", "attacker", "players"]


class BumHouseRules(HouseRules):
    """The optional rules of B.U.M., each citing its passage."""

    # -- characters ---------------------------------------------------------
    stat_points: int = Field(
        10,
        ge=4,
        le=40,
        description="Points shared among the four stats (Part Three, Basic Character Creation: 'ten points').",
    )
    stat_min: int = Field(1, ge=0, le=10, description="Lowest stat at creation (Part Three: 'a minimum of 1').")
    stat_max: int = Field(
        4,
        ge=1,
        le=20,
        description="Highest stat (Part Three: 'a maximum of 4'; the GM may allow more for superhuman characters). "
        "Also the body's limit on stat increases (Part Six).",
    )
    skill_points: int = Field(
        10,
        ge=0,
        le=100,
        description="Starting skill points (Part Three, Skills: 10 standard; about 5 for a 'regular guy' game).",
    )
    skill_cap_at_stat: bool = Field(
        True,
        description="A skill may not exceed its governing stat (Part Three optional rule 'Limitations on Skill "
        "Values'; Part Eight step 5 states it as a rule 'unless the GM wishes otherwise'). Ruling: on by default.",
    )
    # -- rolls --------------------------------------------------------------
    opposed_ties: TieRule = Field(
        "reroll",
        description="Ties in opposed rolls (Part Two, Opposed Rolls: 'both characters roll again'; the GM may "
        "decide ties in favour of defenders or players). 'attacker' favours the side that acts.",
    )
    # -- combat ---------------------------------------------------------------
    longspear_first_strike: bool = Field(
        False,
        description="Appendix A footnote ** 'Optional rule for longspears': a longspear wielder who is attacked "
        "makes his attack for the turn before the attacker's.",
    )
    double_move: bool = Field(
        False,
        description="A character who makes no standard action may move twice as far (Part Five, Movement: "
        "'You can also choose to allow ...').",
    )
    grid_move: int = Field(5, ge=1, le=100, description="Squares moved per turn on a grid (Part Five, Movement: 5).")
    rifle_range_divisor: int = Field(
        2,
        ge=1,
        le=10,
        description="Rifles take range penalties at 1/N the rate (Part Five, Ranged attacking: 'at least half "
        "the rate').",
    )
    thrown_max_turns: int = Field(
        2,
        ge=1,
        le=10,
        description="Farthest a thrown weapon can hit, in turns of distance (Part Five, Ranged attacking: "
        "'not ... more than 2 turns away').",
    )
    muzzleloader_reload_actions: int = Field(
        12,
        ge=1,
        le=100,
        description="Actions to reload a muzzle-loader (Appendix A, Reloading: '20-30 seconds ... something like "
        "10-15 combat rounds'). Ruling: 12.",
    )
    modern_guns_ignore_armour: bool = Field(
        False,
        description="Medieval armour and shields do nothing against guns marked 'modern' (Part Seven, Technology: "
        "'say that medieval style armor and shields do nothing').",
    )
    headshot_penalty: int = Field(
        4, ge=0, le=10, description="Penalty to aim a sneak shot at the head (Part Five, Sneak Attacks: '(-4)')."
    )
    sneak_melee_kills: bool = Field(
        True,
        description="A melee sneak attack needs no roll and incapacitates at once (Part Five, Sneak Attacks).",
    )
    simple_combat_bonuses: Literal["all", "attack"] = Field(
        "all",
        description="What the one roll of combat levels 1-3 adds (Part Four, Weapons and Armor: 'In the simple "
        "combat rules, just add all these bonuses to the stat and skill'): 'all' adds the weapon's attack and "
        "defence bonuses and the armour's and shield's (the book); 'attack' adds only the best attack total.",
    )
    loser_fate: Literal["defeated", "wound"] = Field(
        "defeated",
        description="What losing a level 1 or 2 combat roll costs (Part Five, Level 1: 'he loses, suffers a wound, "
        "is captured ...'): out of the fight, or one wound.",
    )
    # -- damage from other sources ---------------------------------------------
    falling_boundary: Literal["every_full_ten", "over"] = Field(
        "over",
        description="Falling (Part Seven): 'over' follows the book's thresholds ('less than 10 feet' none, "
        "'between 10 and 20 feet, one point, over 20 feet, 2 damage, over 30, 3'): 10-20 ft = 1, 21-30 ft = 2; "
        "'every_full_ten' counts each full 10 feet ('one wound for every 10 feet': 20 ft = 2).",
    )
    falling_feet_per_wound: int = Field(
        10, ge=1, le=1000, description="Feet of fall per wound (Part Seven, Falling: 10)."
    )
    fire_wound_every: int = Field(
        2,
        ge=1,
        le=100,
        description="A burning character takes a wound after every N-th turn (Part Seven, Fire: 'every other turn').",
    )
    fire_dc: int = Field(6, ge=1, le=30, description="DEX roll to stop, drop and roll (Part Seven, Fire: 'DC 6').")
    # -- advancement -------------------------------------------------------------
    stat_cost: int = Field(
        4, ge=1, le=40, description="Skill points per stat point (Part Six: 'Stat points cost 4 skill points')."
    )
    stat_raises_per_game: int = Field(
        1,
        ge=0,
        le=10,
        description="How often each stat may rise in one game (Part Six: 'only ... by 1 in the course of a game').",
    )
    a_is_for_axe: bool = Field(
        False,
        description="Skill points from a session only go to skills used that session, or to new ones with a "
        "teacher (Part Six, 'The \"A is for Axe\" Problem').",
    )

    @model_validator(mode="after")
    def _stat_range(self) -> BumHouseRules:
        if self.stat_min > self.stat_max:
            raise ValueError(f"stat_min ({self.stat_min}) is above stat_max ({self.stat_max})")
        return self
