"""The GM's fight tracker for BLYSS: acting order and each fighter's state in the book's words.

BLYSS 3.5, Combat Mechanics: Initiative sets the order once (re-rolled each round only by house
rule); the Action Round follows the Declaration Round's order (house rule ``action_order``).
Rules for Living: damage runs through Dodges, Flesh Wounds and Health; the Wound Level (Table 2-03:
Flesh Wounds, Light, Moderate, Heavy Wounds); 0 Health is Unconsciousness, below 0 Dying, then Death (or a
coma, by house rule).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...rules.protocol import CombatantStatus, place_in
from .living import Vitals, wound_level

if TYPE_CHECKING:
    from .combat import Fighter, FightState

__all__ = ["condition", "fight_order", "fight_tracker"]


def fight_order(state: FightState) -> list[str]:
    """The order in which fighters act (the Action Round's, from Initiative); empty before round 1 is rolled."""
    from .combat import action_round_order

    return action_round_order(state.order, state.house_rules)


def condition(v: Vitals) -> str:
    """Dead / Coma / Dying / Unconscious (Rules for Living), else the Wound Level (Table 2-03)."""
    if v.dead:
        return "Dead"
    if v.coma:
        return "Coma"
    if v.dying:
        return "Dying"
    if v.unconscious:
        return "Unconscious (stabilised)" if v.stabilised else "Unconscious"
    return wound_level(v)


def _details(f: Fighter, state: FightState) -> dict[str, str | int]:
    v = f.vitals
    out: dict[str, str | int] = {
        "dodges": f"{v.dodges}/{v.max_dodges}",
        "flesh_wounds": f"{v.flesh_wounds}/{v.max_flesh_wounds}",
        "health": f"{v.health}/{v.max_health}",
        "weapon": f.wielded().name + (" (dropped)" if f.weapon_dropped else ""),
    }
    for a, lives in zip(f.character.armour, f.armour_lives, strict=True):
        out[f"armour: {a.name}"] = f"{lives}/3 lives"
    if f.deprivation:
        per = "statistic rolled" if state.house_rules.deprivation_penalty == "per_statistic" else "Test"
        out["fatigue, hunger, thirst"] = f"-{f.deprivation} rank(s) per {per}"
    if f.aim_bonus:
        out["aim"] = f.aim_bonus
    if v.dying:
        out["dying_checks"] = v.dying_checks
    return out


def _opener(state: FightState, order: list[str]) -> str | None:
    """Who acts first next round (The Action Round), when that is known."""
    if state.over or not order or state.house_rules.reroll_initiative_each_round:
        return None
    return next((fid for fid in order if state.get(fid).active), None)


def fight_tracker(state: FightState) -> list[CombatantStatus]:
    order = fight_order(state)
    opener = _opener(state, order)
    return [
        CombatantStatus(
            name=f.id,
            side=f.side,
            position=place_in(order, f.id),
            acting=f.id == opener,
            condition=condition(f.vitals),
            details=_details(f, state),
            out=not f.active,
        )
        for f in state.fighters
    ]
