"""The GM's fight tracker for B.U.M.: the turn order and each fighter's hit points.

Part Five, Turn Sequence: the GM's order (initiator first, longer reach first in melee) or a
DEX/INT roll, set before the first round; a character may choose on his first turn to act after
another, and the order then stays. Only level 4 takes turns; levels 1-3 are single rolls.
Part Five, Wounds/Injury: hit points equal STR, a wound takes one; at 0 a character is down
(out of the fight, but not dead).
"""

from __future__ import annotations

from collections.abc import Sequence

from ...rules.protocol import CombatantStatus, place_in
from .character import hit_points
from .fighters import Fighter, FightState, gm_order, in_hand, missile_of

__all__ = ["condition", "fight_order", "fight_tracker"]


def _with_delays(order: Sequence[str], delay: Sequence[tuple[str, str]]) -> list[str]:
    """Turn Sequence: each delayer moves to just after the one he waits for (as round 1 will do)."""
    out = list(order)
    for who, after in delay:
        if who != after:
            out.remove(who)
            out.insert(out.index(after) + 1, who)
    return out


def fight_order(state: FightState) -> list[str]:
    """The turn order: the state's once set, else round 1's as far as it is known (the GM's order;
    none before a DEX/INT roll)."""
    if state.round > 0:
        return list(state.order)
    if state.order:
        return _with_delays(state.order, state.delay)
    if state.initiative == "gm":
        return _with_delays(gm_order(state), state.delay)
    return []


def condition(f: Fighter) -> str:
    """'down' at 0 HP, else 'unhurt' or 'N HP left'; 'stunned' while turns are lost to it (Part Seven)."""
    if not f.standing:
        return "down"
    words = "unhurt" if f.hp >= hit_points(f.character) else f"{f.hp} HP left"
    return f"{words}, stunned" if f.stunned else words


def _details(f: Fighter) -> dict[str, str | int]:
    out: dict[str, str | int] = {
        "hp": f"{f.hp}/{hit_points(f.character)}",
        "wounds": max(0, hit_points(f.character) - f.hp),
        "weapon": in_hand(f).name,
    }
    missile = missile_of(f)
    if missile is not None:
        out["missile"] = f"{missile.name} ({f.readiness})"
    if f.ammo is not None:
        out["ammo"] = f.ammo
    if f.stunned:
        out["stunned_rounds"] = f.stunned
    return out


def _next_level(state: FightState) -> int:
    return dict(state.switch).get(state.round + 1, state.level)


def fight_tracker(state: FightState, over: bool) -> list[CombatantStatus]:
    order = fight_order(state)
    opener = None
    if not over and _next_level(state) == 4:
        opener = next((n for n in order if state.fighter(n).standing), None)
    return [
        CombatantStatus(
            name=f.name,
            side=f.side,
            position=place_in(order, f.name),
            acting=f.name == opener,
            condition=condition(f),
            details=_details(f),
            out=not f.standing,
        )
        for f in state.fighters
    ]
