"""Checks every system's fight tracker must pass (storymaster.rules.FightTracker)."""

from __future__ import annotations

from typing import Any

from storymaster.dice import DiceRng
from storymaster.rules import CombatantStatus, FightTracker


def check_rows(engine: Any, state: Any, expected: dict[str, int]) -> list[CombatantStatus]:
    """The rows agree with the order and with each other; ``expected`` maps every name to its side."""
    assert isinstance(engine, FightTracker)
    order = engine.initiative_order(state)
    rows = engine.tracker(state)
    assert all(isinstance(r, CombatantStatus) for r in rows)
    names = [r.name for r in rows]
    assert sorted(names) == sorted(expected), "every combatant appears once"
    assert {r.name: r.side for r in rows} == expected
    assert len(set(order)) == len(order) and set(order) <= set(names)
    for r in rows:
        assert r.position == (order.index(r.name) if r.name in order else None)
        assert r.condition
        assert all(isinstance(v, (str, int)) for v in r.details.values())
        j = r.to_json()
        assert j["name"] == r.name and j["details"] == dict(r.details) and j["out"] == r.out
    acting = [r for r in rows if r.acting]
    assert len(acting) <= 1
    if acting:
        assert not acting[0].out and acting[0].position is not None
    if engine.is_over(state):
        assert not acting
    return rows


def play(
    engine: Any, state: Any, rng: DiceRng, expected: dict[str, int], rounds: int = 60
) -> list[tuple[Any, list[CombatantStatus]]]:
    """Step the fight to its end (at most ``rounds``), checking the rows after every round."""
    seen = [(state, check_rows(engine, state, expected))]
    for _ in range(rounds):
        if engine.is_over(state):
            break
        state, _events = engine.step(state, rng)
        seen.append((state, check_rows(engine, state, expected)))
    return seen
