"""BLYSS house rules: every optional rule, SM's-discretion call and ruling switch, defaulting to the book.

Each field's description cites the passage it rests on (BLYSS 3.5 Basic Rules).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ...rules.models import HouseRules

__all__ = ["BlyssHouseRules"]


class BlyssHouseRules(HouseRules):
    """The SM's choices for a BLYSS game. The defaults are the book (and this project's rulings)."""

    starting_cp: int = Field(
        400,
        ge=0,
        le=100_000,
        description="Character Points to build a character with (Building the Character: 400 CP). Only the "
        "campaign's house rules set it; a character file cannot.",
    )
    creation_rank_cap: int = Field(
        6,
        ge=1,
        le=10,
        description="Highest rank an Attribute or Trait may have at creation (Building the Character: "
        "'above \"Very Good\" rank (d12)'). Very Good is rank 6 (d12+d4); set 5 to read the '(d12)' literally.",
    )
    zero_rank_attributes_allowed: bool = Field(
        False,
        description="SM permission for Attributes at rank 0 (Building the Character: 'Without special SM "
        "permission, all characters must have at least 1 rank in all Attributes').",
    )
    native_tongue_free: bool = Field(
        True,
        description="The native tongue is a free Skill at rank 3 (Table 1-05 note: 'native tongue as a free skill').",
    )
    free_common_traits: tuple[str, ...] = Field(
        (),
        description="Further Traits every character has at no cost, at rank 3 or below (Table 1-05 note: "
        "'SMs may decide other common Traits may be shared').",
    )
    single_advantage_cost: int = Field(
        24,
        ge=0,
        description='CP value of a single-advantage Natural (Natural Traits: \'the same as an "Average" rank '
        "Natural (24 CP) unless the SM rules otherwise').",
    )
    specialisation_cost: Literal["flat", "rising"] = Field(
        "flat",
        description="Specialisation: 'flat' = 1 CP per level ('a single CP ... for each level'); 'rising' = "
        "the n-th level costs n CP (reading 'an extra 1 CP' as one more than the last).",
    )
    required_specialisation: tuple[str, ...] = Field(
        (),
        description="Traits that must be specialised (Specialisation: 'At the SM's options, certain Traits may "
        "require specialisation', e.g. Weapon Skills, Knowledges, Crafts).",
    )
    minimum_pool: Literal["combined", "best_statistic", "off"] = Field(
        "combined",
        description="What Table 2-02's Minimum Die Pool is compared with: the combined pool's total rank "
        "(Character Tests: 'the combined set of dice becomes their Die Pool'), the best single statistic, or off "
        "('unless in exceptional circumstances at the SM's discretion').",
    )
    golden_rolls: bool = Field(
        False,
        description="Golden Rolls on every Test by default (Golden Rolls: 'At the SM's discretion'); a check "
        "can also switch them on by itself (--golden).",
    )
    literal_ones: bool = Field(
        False,
        description="Ruling 3's alternative, the literal text (Character Tests: a die that 'equal[s] or beat[s] the "
        "TD' succeeds; Screw-Ups: a 1 'cancels out one of the characters' successes'): at TD 0 or 1 a natural 1 is "
        "a success and a Screw-Up at once. Default: a 1 is never a success.",
    )
    critical_needs_strict_beat: bool = Field(
        False,
        description="Critical success needs every die strictly above the TD; default: the same 'equal or beat' "
        "as success (Character Tests).",
    )
    penalty_spread: Literal["level", "highest_whole"] = Field(
        "level",
        description="How rank penalties and negative Traits spread over a pool's statistics (Table 2-03 note: "
        "'shared between dice, highest ranked first'): 'level' takes one rank at a time from the currently "
        "highest statistic; 'highest_whole' empties the highest statistic before touching the next.",
    )
    flesh_wound_penalty: Literal["die_value", "rank"] = Field(
        "die_value",
        description="Flesh Wounds level '-1 to all rolls' (Table 2-03): 'die_value' lowers each die's result by "
        "1 against the TD; 'rank' treats it as -1 rank like the other levels.",
    )
    contest_td: Literal["rank_total", "highest_rank"] = Field(
        "rank_total",
        description="A Contest's TD is 'the opposing character's rank in whatever statistic they're using' "
        "(Character Contests): the total of the opposing pool's ranks, or its highest single rank.",
    )
    no_contest_rank_gap: int | None = Field(
        None,
        ge=1,
        description="If set, a rank lead of this much wins a Contest without rolling (Character Contests: "
        "'three or higher ... there is no real contest'; 'never a concrete rule', so off by default).",
    )
    initiative_td: int = Field(
        6,
        ge=0,
        description="TD of the Initiative test (Initiative: the text names no TD; Average, 6, by ruling).",
    )
    initiative_final_tie: Literal["roll_off", "sm_order"] = Field(
        "roll_off",
        description="Last Initiative tie-break (Initiative: 'the order most convenient for the SM, or roll again').",
    )
    action_order: Literal["declaration", "initiative"] = Field(
        "declaration",
        description="Order of the Action Round. 'declaration' (the book: results 'are established, in the same "
        "order where possible' as the Declaration Round, which starts with the lowest Initiative): slowest first. "
        "'initiative': fastest first (round one's reading).",
    )
    reroll_initiative_each_round: bool = Field(
        False,
        description="Re-roll Initiative every round (Initiative: 're-rolled ... where events take a new twist "
        "(SM's discretion)').",
    )
    damage_spills_over: bool = Field(
        True,
        description="One blow's damage runs on from Dodges to Flesh Wounds to Health (Derived Attributes: "
        "damage is dealt to Dodges first, then Flesh Wounds, then Health). Off: a blow stops at the track it "
        "started in.",
    )
    minimum_damage: int = Field(
        1,
        ge=0,
        description=(
            "An addition (the book is silent; Weapons: Damage): the least damage a hit deals after a negative "
            "Strength bonus. 0 lets a weak blow deal nothing."
        ),
    )
    armour_contest_against: Literal["attack_dice", "damage_roll"] = Field(
        "attack_dice",
        description="Armour Rating: soak when an armour die beats 'the value of all the attack dice': the attack "
        "Test's dice (default) or the damage roll.",
    )
    armour_ties_soak: bool = Field(
        False,
        description="An armour die equal to the best attack die soaks (Armour Rating says 'beat'; off by default).",
    )
    armour_heavy_blow: int | None = Field(
        None,
        ge=1,
        description="A blow of at least this much damage taken on the armour costs it two lives (Armour Rating: "
        "'at the GM's discretion it can be ruined more rapidly if the damage dealt to it is high'). Off by default.",
    )
    combat_screw_up: Literal["drop_weapon", "none"] = Field(
        "drop_weapon",
        description="What a Screw-Up on an attack or disarm roll does in a fight (Screw-Ups: the character ends up "
        "'worse off'; 'A Screw-Up could mean the character dropping their weapon'; a critical one allows 'no chance "
        "of recovery'). The book leaves the effect to the SM; ruling: 'drop_weapon' (the book's own example): the "
        "weapon falls and takes a round to recover (Equipment Use), and after a critical Screw-Up it is lost for the "
        "rest of the fight (the fighter goes on unarmed). 'none': the roll only fails.",
    )
    defence_draw: Literal["defender", "reroll"] = Field(
        "defender",
        description="Equal successes in a Defend/Evade contest: the attack does not land ('the characters draw'), "
        "or roll again (Character Contests).",
    )
    coma_instead_of_death: Literal["never", "blunt", "always"] = Field(
        "never",
        description="A dying character who runs out of checks falls into a coma instead of dying: never, when the "
        "final blow was from a blunt weapon, or always (Death: 'the SM can rule ... coma ... blunt weapon or for "
        "dramatic purposes').",
    )
    starvation_loss: Literal["third", "one"] = Field(
        "third",
        description="'a Wound's worth of Health' lost on a failed starvation/dehydration Test (Thirst): a third of "
        "maximum Health, rounded up (one Wound Level step), or 1 Health.",
    )
    stay_awake_td: int = Field(
        6,
        ge=0,
        description="TD of the Mental Fortitude check to stay awake past the Threshold "
        "(Fatigue: no TD given; Average).",
    )
    max_rounds: int = Field(
        100, ge=1, le=10_000, description="A fight with no winner after this many rounds is a stand-off."
    )
    deprivation_penalty: Literal["per_statistic", "per_test"] = Field(
        "per_statistic",
        description="Fatigue, Hunger and Thirst at the table (Fatigue: 'all of their attributes and traits ... "
        "decrease by one rank'): every statistic rolled in a pool loses the ranks (default), or the Test loses "
        "them once, like a Wound Level.",
    )
