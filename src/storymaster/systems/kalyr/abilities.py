"""Choosing the ability and the modifiers on it (Kalyr RPG ch. 3, Deciding What Ability to Use; Modifiers)."""

from __future__ import annotations

from typing import Literal

from ...errors import CheckError
from .character import Character, find_ability, highest_connection
from .checks import AbilityRoll
from .ladder import POOR, TERRIBLE, level_name
from .modifiers import (
    Quality,
    equipment_modifier,
    race_penalty,
    rank_modifier_for_gap,
    similar_ability_modifier,
    situation_modifier,
)
from .options import KalyrHouseRules
from .wounds import DEFEATED, TRACKS, TrackName, severity_name

__all__ = [
    "ability_level",
    "build_roll",
    "equipment_modifier",
    "level_roll",
    "race_modifier",
    "race_standing",
    "rank_gap",
    "rank_modifier",
    "situation_modifier",
    "usable_level",
    "wound_modifier",
]


def ability_level(
    character: Character,
    name: str,
    *,
    similar: str | None = None,
    similar_penalty: int = -1,
    incompetent: bool | None = None,
) -> tuple[int, str]:
    """The level to roll for ``name``, and how it was chosen (Deciding What Ability to Use).

    Listed: its level. Not listed but a ``similar`` one is: that one at the GM's penalty
    (typically -1 or -2). Neither: Poor, or Terrible when it falls under an incompetence.
    """
    own = find_ability(character, name)
    if own is not None:
        return own.level, f"{own.name} {level_name(own.level)}"
    if similar is not None:
        alt = find_ability(character, similar)
        if alt is None:
            raise CheckError(f"{character.name} has no ability {similar!r} to use instead of {name!r}")
        if similar_penalty >= 0 or similar_penalty < -3:
            raise CheckError(f"a similar ability is used at a penalty (typically -1 or -2), not {similar_penalty:+d}")
        return (
            alt.level + similar_penalty,
            f"{alt.name} {level_name(alt.level)} {similar_penalty:+d} in place of {name}",
        )
    if incompetent is None:
        incompetent = name.strip().lower() in {i.lower() for i in character.incompetences}
    if incompetent:
        return TERRIBLE, f"no {name}, and it falls under an incompetence: Terrible"
    return POOR, f"no {name}: Poor by default"


def wound_modifier(
    character: Character, track: TrackName, house_rules: KalyrHouseRules | None = None
) -> tuple[int, str]:
    """Wound penalty for a conflict of the kind ``track`` (Modifiers; Effects of Damage; ruling K5).

    Hurt -1, Very Hurt -2 on the same track (highest wound only); Defeated on it: the ability
    cannot be used at all; Defeated ("Incapacitated") on another track: -1 more.
    """
    hr = house_rules or KalyrHouseRules()
    tr = character.damage.track(track)
    own = tr.penalty
    if own is None:
        raise CheckError(
            f"{character.name} is {severity_name(tr.status)} on the {track} track and cannot use {track} "
            "abilities at all",
            hint="heal the damage first (storymaster kalyr heal)",
        )
    others = [t for t in TRACKS if t != track and character.damage.track(t).status >= DEFEATED]
    cross = hr.incapacitated_penalty if others else 0
    total = own + cross if hr.cross_track_penalty_stacks else min(own, cross)
    why = []
    if own:
        why.append(f"{severity_name(tr.status)} ({own:+d})")
    if cross:
        why.append(f"Defeated on the {', '.join(others)} track ({cross:+d})")
    return total, ", ".join(why)


def usable_level(
    character: Character, ability: str, house_rules: KalyrHouseRules | None = None
) -> tuple[int | None, str]:
    """The level an ability is rolled at now, wounds on every track counted (ruling K5), or None when
    the wounds on its own track forbid it; and why. What the sheet shows is what a check rolls."""
    own = find_ability(character, ability)
    level, _ = ability_level(character, ability)
    track: TrackName = own.track if own else "physical"
    try:
        wound, why = wound_modifier(character, track, house_rules)
    except CheckError as exc:
        return None, exc.message
    return level + wound, why


def race_standing(actor: Character, target: Character) -> str:
    """How the target stands to the actor's race: same, other, or other and Very Intolerant."""
    if actor.race.strip().lower() == target.race.strip().lower():
        return "same"
    return "very_intolerant" if target.intolerance == "very_intolerant" else "other"


def race_modifier(actor: Character, target: Character) -> int:
    """Persuading someone of another race: -1, or -2 if they are Very Intolerant (Modifiers)."""
    return race_penalty(race_standing(actor, target))


def rank_gap(actor: Character, target: Character, organisation: str | None = None) -> int:
    """Levels the target's highest connection is above the actor's (no connection counts as Poor, ruling K8)."""
    mine = highest_connection(actor, organisation)
    theirs = highest_connection(target, organisation)
    return (POOR if theirs is None else theirs) - (POOR if mine is None else mine)


def rank_modifier(actor: Character, target: Character, organisation: str | None = None) -> int:
    """Persuading a social superior: -1 per level the target's highest connection is above yours;
    +1 if you outrank them (Modifiers). No connection at all counts as Poor (ruling K8)."""
    return rank_modifier_for_gap(rank_gap(actor, target, organisation))


def build_roll(
    character: Character,
    ability: str,
    *,
    track: TrackName | None = None,
    similar: str | None = None,
    similar_penalty: int = -1,
    second: str | None = None,
    combine: Literal["best", "worst"] = "best",
    equipment: Quality = "normal",
    situation: int = 0,
    persuade: Character | None = None,
    organisation: str | None = None,
    extra: int = 0,
    automatic: bool = False,
    house_rules: KalyrHouseRules | None = None,
) -> tuple[AbilityRoll, list[str]]:
    """A character's side of a check with every modifier applied, and the reasons, one per line."""
    level, how = ability_level(character, ability, similar=similar, similar_penalty=similar_penalty)
    notes = [how]
    listed = find_ability(character, similar or ability)
    kind: TrackName = track or (listed.track if listed else "physical")
    total = 0
    wound, why = wound_modifier(character, kind, house_rules)
    if wound:
        notes.append(f"wounds {wound:+d}: {why}")
        total += wound
    eq = equipment_modifier(equipment)
    if eq:
        notes.append(f"equipment {eq:+d}")
    sit = situation_modifier(situation)
    if sit:
        notes.append(f"situation {sit:+d}")
    race, gap = "same", 0
    if persuade is not None:
        race, gap = race_standing(character, persuade), rank_gap(character, persuade, organisation)
        if race_penalty(race):
            notes.append(f"different race {race_penalty(race):+d}")
        if rank_modifier_for_gap(gap):
            notes.append(f"social rank {rank_modifier_for_gap(gap):+d}")
    if extra:
        notes.append(f"other {extra:+d}")
        total += extra
    second_level = None
    if second is not None:
        second_level, how2 = ability_level(character, second)
        notes.append(f"second ability: {how2}")
    return AbilityRoll(
        ability=level,
        modifier=total,
        second=second_level,
        combine=combine,
        automatic=automatic,
        name=character.name,
        equipment=equipment,
        situation=sit,
        race=race,  # type: ignore[arg-type]
        rank_gap=gap,
    ), notes


def level_roll(
    level: int,
    *,
    modifier: int = 0,
    second: int | None = None,
    combine: Literal["best", "worst"] = "best",
    automatic: bool = False,
    equipment: str = "normal",
    situation: int = 0,
    similar: int = 0,
    race: str = "same",
    rank_gap: int = 0,
    name: str = "",
) -> tuple[AbilityRoll, list[str]]:
    """One side of a check from a bare ladder level with the Modifiers section's named modifiers,
    each checked by its rule (a bad value is a :class:`CheckError`), and the reasons, one per line."""
    named = [
        ("equipment", equipment_modifier(equipment)),
        ("situation", situation_modifier(situation)),
        ("similar ability", similar_ability_modifier(similar)),
        ("different race", race_penalty(race)),
        ("social rank", rank_modifier_for_gap(rank_gap)),
    ]
    notes = [f"{what} {v:+d}" for what, v in named if v]
    if modifier:
        notes.append(f"other {modifier:+d}")
    return AbilityRoll(
        ability=level,
        modifier=modifier,
        second=second,
        combine=combine,
        automatic=automatic,
        name=name,
        equipment=equipment,  # type: ignore[arg-type]
        situation=situation,
        similar=similar,
        race=race,  # type: ignore[arg-type]
        rank_gap=rank_gap,
    ), notes
