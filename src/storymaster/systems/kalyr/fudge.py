"""Fudge points (Kalyr RPG ch. 3, Fudge Points): gaining, spending, and carrying them over."""

from __future__ import annotations

from typing import Literal

from ...errors import CheckError
from .character import Character, Role
from .data_files import table

__all__ = ["USES", "FudgeUse", "allowance", "convert_at_session_end", "gain_for_key", "spend"]

FudgeUse = Literal["retro", "automatic", "reduce_wound", "story"]

#: the four uses, in the book's words (shortened)
USES: dict[str, str] = {
    "retro": "after a roll affecting you, move its result +1 or -1 (yours, or the GM's for an NPC; not another "
    "player's)",
    "automatic": "declared before rolling: an automatic +2 instead of the dice",
    "reduce_wound": "reduce a wound one level, Destroyed to Defeated included",
    "story": "a small, plausible change to the scene (the GM may veto it)",
}


def allowance(role: Role, *, henchman_points: int = 1) -> int:
    """Fudge points at the start: one for PCs and major villains, one or two for henchmen, none for
    cannon fodder (Fudge Points)."""
    data = table("fudge")
    if role == "henchman":
        if not 1 <= henchman_points <= data["henchman_max"]:
            raise CheckError(f"henchmen get one or two Fudge points, not {henchman_points}")
        return henchman_points
    return int(data["npc_allowance"][role])


def gain_for_key(character: Character, key: str) -> Character:
    """A Key came into play in a way that significantly affected the game: +1 Fudge point."""
    if key.strip().lower() not in {k.name.lower() for k in character.keys}:
        raise CheckError(f"{character.name} has no Key {key!r}", hint="Fudge points come from the character's own Keys")
    if character.role == "cannon_fodder":
        raise CheckError("cannon-fodder NPCs get no Fudge points")
    return character.model_copy(update={"fudge_points": character.fudge_points + 1})


def spend(character: Character, use: FudgeUse, *, vetoed: bool = False, advancement: bool = True) -> Character:
    """Spend one Fudge point; each point spent earns an experience point (Character Advancement).

    A story change the GM vetoes costs nothing (ruling K16).
    """
    if use not in USES:
        raise CheckError(f"a Fudge point is spent on one of {', '.join(USES)}, not {use!r}")
    if character.fudge_points < 1:
        raise CheckError(f"{character.name} has no Fudge points left")
    if vetoed:
        if use != "story":
            raise CheckError("the GM's veto is over story changes only")
        return character
    return character.model_copy(
        update={
            "fudge_points": character.fudge_points - 1,
            "experience": character.experience + (1 if advancement else 0),
        }
    )


def convert_at_session_end(character: Character, points: int, *, advancement: bool = True) -> Character:
    """At the end of a session unspent points carry over, or are spent for experience (ruling K17)."""
    if points < 0 or points > character.fudge_points:
        raise CheckError(f"{character.name} can convert 0..{character.fudge_points} Fudge points, not {points}")
    if points and not advancement:
        raise CheckError(
            "character advancement is switched off in the house rules: unspent Fudge points just carry over"
        )
    return character.model_copy(
        update={"fudge_points": character.fudge_points - points, "experience": character.experience + points}
    )
