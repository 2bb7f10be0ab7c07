"""The GM's fight tracker for Kalyr: each fighter's damage tracks, in the book's words.

Kalyr RPG ch. 3, Using Simple Contests for Fights / Detailed Contests: both sides roll at once,
so a contest has no acting order and nobody has the turn. Damage: a track of Scratch (three
boxes), Hurt, Very Hurt, Defeated and Destroyed; the highest box marked is where a character
stands on it. Defeated or worse on the contest's track, or having withdrawn (admitted defeat),
puts a fighter out of the contest.
"""

from __future__ import annotations

from ...rules.protocol import CombatantStatus
from .fight_state import Fighter, FightState, is_out
from .ladder import level_name
from .wounds import BOXES, SCRATCH, TRACKS, TrackName, severity_name

__all__ = ["condition", "fight_order", "fight_tracker", "track_word"]


def fight_order(state: FightState) -> list[str]:
    """None: every round both sides roll together (Using Simple Contests for Fights)."""
    return []


def track_word(f: Fighter, track: TrackName) -> str:
    """The highest box marked on a track ('Hurt'), or 'Unhurt'."""
    status = f.character.damage.track(track).status
    return severity_name(status) if status else "Unhurt"


def condition(f: Fighter, track: TrackName) -> str:
    """'withdrew', else the contest track's level with the track: 'Hurt (physical)', 'Defeated (social)'."""
    if f.withdrawn:
        return "withdrew"
    return f"{track_word(f, track)} ({track})"


def _details(f: Fighter, track: TrackName) -> dict[str, str | int]:
    out: dict[str, str | int] = {t: track_word(f, t) for t in TRACKS}
    tr = f.character.damage.track(track)
    out["scratches"] = f"{tr.used(SCRATCH)}/{BOXES[SCRATCH]}"
    if tr.penalty:
        out["wound_penalty"] = tr.penalty
    out["ability"] = f"{f.ability} ({level_name(f.level)})"
    out["fudge_points"] = f.character.fudge_points
    return out


def fight_tracker(state: FightState) -> list[CombatantStatus]:
    return [
        CombatantStatus(
            name=f.name,
            side=side,
            condition=condition(f, state.track),
            details=_details(f, state.track),
            out=is_out(f, state.track),
        )
        for side, members in enumerate(state.sides)
        for f in members
    ]
