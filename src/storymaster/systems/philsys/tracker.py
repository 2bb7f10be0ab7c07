"""The GM's fight tracker for Philsys: the turn sequence and each fighter's HP, MP and TP.

Turn Sequence: initiative is rolled once, at the beginning of combat, highest first, and each
fighter takes a turn in that order every round. Taking Damage: 'critical health status' at
roughly 10-15 HP or less (-3/-3 to -6/-6); at 0 HP or less a character falls unconscious; death
at the house rule's threshold (the book leaves it open); optional bleeding below 0 HP; a heavy
wound (more than 3/4 of max HP from one attack) may carry a penalty for the rest of the fight.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...rules.protocol import CombatantStatus, place_in
from .character import hp_max, mp_max, tp_max

if TYPE_CHECKING:
    from .combat import Fighter, FightState
    from .options import PhilsysHouseRules

__all__ = ["condition", "fight_order", "fight_tracker"]


def fight_order(state: FightState) -> list[str]:
    """Fighter names in initiative order, highest first (empty until the first round rolls it)."""
    return [state.fighters[i].name for i in state.order]


def condition(f: Fighter, hr: PhilsysHouseRules) -> str:
    """dead / unconscious (bleeding) / critical health, with 'heavy wound' when one was taken; else healthy."""
    if f.dead:
        return "dead"
    if f.unconscious:
        return "unconscious, bleeding" if hr.bleeding and f.hp < 0 else "unconscious"
    parts = []
    if 0 < f.hp <= hr.critical_health_threshold:
        parts.append(f"critical health (-{hr.critical_health_penalty}/-{hr.critical_health_penalty})")
    if f.heavy_wound:
        parts.append("heavy wound")
    return ", ".join(parts) or "healthy"


def _details(f: Fighter) -> dict[str, str | int]:
    c = f.character
    out: dict[str, str | int] = {
        "hp": f"{f.hp}/{hp_max(c)}",
        "mp": f"{f.mp}/{mp_max(c)}",
        "tp": f"{f.tp}/{tp_max(c)}",
    }
    if f.initiative:
        out["initiative"] = f.initiative
    if f.wake_in is not None:
        out["wakes_in_rounds"] = f.wake_in
    if f.lose_turn:
        out["loses_next_turn"] = "yes"
    if f.disabled_limbs:
        out["disabled_limbs"] = f.disabled_limbs
    if f.shield_broken and c.equipment.shield is not None:
        out["shield"] = f"{c.equipment.shield.name} (broken)"
    return out


def fight_tracker(state: FightState) -> list[CombatantStatus]:
    order = fight_order(state)
    opener = (
        None if state.over else next((state.fighters[i].name for i in state.order if state.fighters[i].active), None)
    )
    return [
        CombatantStatus(
            name=f.name,
            side=f.side,
            position=place_in(order, f.name),
            acting=f.name == opener,
            condition=condition(f, state.house_rules),
            details=_details(f),
            out=not f.active,
        )
        for f in state.fighters
    ]
