"""The GM's fight tracker for the fuzzy system: wounds, Advantage Points and who is still up.

"Combat Rules for Those Who Really Need 'Em": each round every engaged pair rolls at once, so
a fight has no acting order and nobody has the turn. Advantage Points won carry over between
rounds; harm bought with them is a moderate, serious or mortal wound (dice lost to the worst
only: "Injury penalties are not cumulative") or a kill; a failed Tenacity test leaves the
fighter incapacitated or unconscious.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...rules.protocol import CombatantStatus
from .combat import wound_penalty

if TYPE_CHECKING:
    from .combat import Fighter, FightState

__all__ = ["condition", "fight_order", "fight_tracker"]

_WORST = ("mortal", "serious", "moderate")
_WORDS = {"mortal": "mortally wounded", "serious": "seriously wounded", "moderate": "moderately wounded"}


def fight_order(state: FightState) -> list[str]:
    """None: every engaged pair rolls together each round."""
    return []


def _wounded(f: Fighter) -> str:
    for level in _WORST:
        hits = [w for w in f.wounds if w.level == level]
        if hits:
            return _WORDS[level] + ("" if any(w.lethal for w in hits) else " (non-lethal)")
    return "unhurt"


def condition(f: Fighter) -> str:
    """dead / unconscious (dying, knocked out) / incapacitated / escaped, else the worst wound ('unhurt')."""
    if f.status == "dead":
        return "dead"
    if f.status == "unconscious":
        return "unconscious, dying" if f.dying else "knocked out" if f.knocked_out else "unconscious"
    if f.status in ("incapacitated", "escaped"):
        return f.status + (", dying" if f.dying else "")
    return _wounded(f) + (", dying" if f.dying else "")


def _details(f: Fighter, state: FightState) -> dict[str, str | int]:
    out: dict[str, str | int] = {
        "ability": f"{f.ability} {f.dice}",
        "defence": f"{f.defence_ability} {f.defence_base}",
        "stance": f.tactics.stance,
    }
    if f.wounds:
        out["wounds"] = ", ".join(w.level for w in f.wounds)
        out["dice_penalty"] = -wound_penalty(f.wounds)
    held = [(p.against, p.points) for p in state.pools if p.holder == f.key and p.points]
    out["advantage_points"] = sum(n for _, n in held)
    if held:
        out["advantage"] = ", ".join(f"{n} against {who}" for who, n in held)
    if f.bought:
        out["manoeuvres"] = ", ".join(f.bought)
    return out


def fight_tracker(state: FightState) -> list[CombatantStatus]:
    return [
        CombatantStatus(name=f.key, side=f.side, condition=condition(f), details=_details(f, state), out=not f.up)
        for f in state.fighters
    ]
