"""House rules for A Loose and Fuzzy Game System: every optional rule, defaulting to the book.

Each field's description names the passage it rests on. Fields that settle a
gap in the text (a ruling) say so and point to docs/rulings/fuzzy.md.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ...rules import HouseRules

__all__ = ["FuzzyHouseRules"]


class FuzzyHouseRules(HouseRules):
    """The Loose and Fuzzy options a GM can switch in a campaign's house rules."""

    baseline: int = Field(
        22,
        ge=0,
        le=1000,
        description="Campaign baseline of dice a character is expected to have "
        "('Karma Will Bite You': 'Usually the baseline is twenty-two').",
    )
    starting_luck: int = Field(
        2, ge=0, le=5, description="Luck dice every PC starts with ('Every PC starts with 2 Luck dice')."
    )
    starting_unluck: int = Field(
        1, ge=0, le=100, description="Unluck dice every PC starts with ('... and 1 Unluck dice')."
    )
    luck_cap: int = Field(
        5,
        ge=1,
        le=100,
        description="Most Luck dice a character may have; extra dice are discarded "
        "('You may never have more than 5 Luck dice').",
    )
    disabilities_count_double_above_5: bool = Field(
        False,
        description="Ruling (karma): the book doubles dice above 5 only for 'good' Abilities; a Disability "
        "subtracts its plain rating. Switch on to subtract a Disability of 7 as 9 too.",
    )
    luck_reduction_refund: bool = Field(
        False,
        description="An addition, off by default: giving up a Luck die through Experience refunds 3 x its old "
        "level. The book says only that Luck 'may be purchased or reduced as though it were a good Ability', "
        "and lowering a good Ability earns nothing in its list; by default reducing Luck earns no points.",
    )
    recompute_karma_after_experience: bool = Field(
        False,
        description="Ruling (karma): Luck and Unluck come from comparing the dice a character was built "
        "with to the baseline; dice changed later through Experience are not compared again. Switch on to "
        "compare the current dice instead.",
    )
    critical_bonus_max_explosions: int = Field(
        10,
        ge=0,
        le=100,
        description="'Fancy Shit': the bonus die on a critical success explodes on a 6 'till you roll "
        "something besides a 6, or the GM gets fed up'. This is the GM's limit: the most times the bonus die "
        "re-rolls. Odds report the probability mass cut off by the limit as 'truncated'.",
    )
    one_die_second_die_for_criticals: bool = Field(
        True,
        description="'Fancy Shit': with one die, a 1 or a 6 is confirmed by a second die showing the same "
        "(never added). Switch off to make one-die rolls unable to score criticals.",
    )
    contest_ties: Literal["stand-off", "reroll", "defender"] = Field(
        "stand-off",
        description="Ruling (ties): the book says only 'the higher score wins'. 'stand-off': a tie is won by "
        "nobody; 'reroll': both roll again until one is higher; 'defender': the second side wins ties.",
    )
    lottery_ties: Literal["roll-off", "all"] = Field(
        "roll-off",
        description="Ruling (lottery): the event happens to 'whoever rolls the highest'. 'roll-off': those "
        "tied for highest roll again among themselves; 'all': it happens to every one of them.",
    )
    advantage_on_loss: Literal["keep", "offset", "lose"] = Field(
        "keep",
        description="Ruling (Advantage Points): what happens to a fighter's carried-over points when the "
        "opponent wins a round. 'keep': nothing (the text takes none away); 'offset': the winner's margin "
        "first cancels them; 'lose': they are gone.",
    )
    tenacity_target: int = Field(
        7, ge=1, le=100, description="Target of the Tenacity test after each new injury ('a Tenacity test of 7')."
    )
    mortal_wound_deaths: bool = Field(
        True,
        description="'Mortally wounded': the character will expire in minutes without skilled medical "
        "attention. In a fight this marks the fighter as dying; switch off to ignore it.",
    )
    huge_crowd: int = Field(
        5,
        ge=3,
        le=1000,
        description="Ruling (opponents): fighting 'multiple people' costs 1 die, 'a huge crowd' 2 dice; "
        "this many opponents or more at once count as a huge crowd.",
    )
    nonlethal_body_test: int | None = Field(
        None,
        ge=1,
        le=100,
        description="'Sicko GMs may ask you to make a Body test' when fighting to incapacitate: the target of "
        "that Body test (none by default). A failed test means the restrained blow does no harm.",
    )
    killing_blow_leaves_dying: bool = Field(
        False,
        description="'Killed': 'They could just be bleeding death, if the GM is feeling nice towards them.' When "
        "on, a lethal blow of 4x the Defence Total leaves the foe down and dying instead of dead.",
    )
    max_rounds: int = Field(
        200, ge=1, le=100_000, description="A fight that lasts this many rounds stops as a stand-off (a safety stop)."
    )
    big_magic_extra_powers: int = Field(
        0,
        ge=0,
        le=20,
        description="'Some Spot Rules': a huge magic power buys one big thing per die. The book's own 'God' 2 "
        "example lists three; a generous GM may allow this many extra powers.",
    )
    minimum_special_abilities: int = Field(
        2,
        ge=0,
        le=20,
        description="'Abilities Special to Your Character': 'Pick two or three'. Fewer is noted on the sheet "
        "(advice, not an error).",
    )
    gm_approval_required: bool = Field(
        False,
        description="'Experience': 'The GM may veto character changes'. When on, every purchase needs "
        "gm_approved: true; a request with gm_approved: false is always refused.",
    )
    discworld_body_guide: bool = Field(
        False,
        description="'For The Tucson Discworld game': show the Body guidelines by species on the sheet and "
        "note a Body outside the guide for the character's species.",
    )
