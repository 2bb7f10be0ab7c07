"""Actions in Combat: what one turn may hold (move, attack, double move, long and free actions)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

__all__ = ["ACTIONS", "Action", "turn_problems"]

Action = Literal["move", "attack", "double_move", "long", "free"]

#: each action and what it costs a turn
ACTIONS: dict[str, str] = {
    "move": "move up to AGI+3 yards (hexboard) or as the GM allows; may go with an attack",
    "attack": "one attack: melee, missile, spell or tech",
    "double_move": "move twice as far; no attack this turn",
    "long": "rifling through a pack and the like; may take more than one turn (GM decides)",
    "free": "talking, dropping an item: takes no time",
}


def turn_problems(actions: Sequence[str]) -> list[str]:
    """Why a turn's actions are not allowed (empty when they are).

    Actions in Combat: a character 'may usually attack and move during the same turn'; a double
    move gives up the attack; a long action fills the turn; free actions go with anything.
    """
    problems = [f"unknown action {a!r}" for a in actions if a not in ACTIONS]
    counts = {a: sum(1 for x in actions if x == a) for a in ACTIONS}
    if counts["attack"] > 1:
        problems.append("only one attack per turn")
    if counts["move"] > 1:
        problems.append("only one move per turn (a double move gives up the attack)")
    if counts["double_move"] and (counts["attack"] or counts["move"] or counts["double_move"] > 1):
        problems.append("a double move replaces both the move and the attack")
    if counts["long"] and (counts["attack"] or counts["move"] or counts["double_move"] or counts["long"] > 1):
        problems.append("a long action takes the whole turn (free actions aside)")
    return problems
