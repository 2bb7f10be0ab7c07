"""The reference every forecast must agree with: the system's own combat engine, fight by fight.

Slow by design (one Python fight at a time, every die audited); used by the
tests that check forecasts and as the peer in the simulation benchmark.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from pydantic import BaseModel

from ..dice import DiceRng
from ..rules import CombatEngine
from .result import CombatantForecast, Forecast, wilson_interval

__all__ = ["fight_by_fight", "play_out"]


def play_out(engine: CombatEngine, state: BaseModel, rng: DiceRng, *, max_steps: int = 1_000) -> tuple[BaseModel, int]:
    """Step the engine until the fight is over (or ``max_steps``); the final state and the steps taken."""
    steps = 0
    while not engine.is_over(state) and steps < max_steps:
        state, _ = engine.step(state, rng)
        steps += 1
    return state, steps


def fight_by_fight(
    system: str,
    engine: CombatEngine,
    state: BaseModel,
    *,
    samples: int,
    seed: int | str = 0,
    sides: Sequence[Sequence[str]],
    end_state: Callable[[BaseModel], dict[str, str]] | None = None,
    rounds_of: Callable[[BaseModel, int], int] | None = None,
) -> Forecast:
    """Run the engine ``samples`` times from ``state`` (each fight its own dice stream)."""
    wins: Counter[int] = Counter()
    rounds: Counter[int] = Counter()
    ends: dict[str, Counter[str]] = {}
    for i in range(samples):
        final, steps = play_out(engine, state, DiceRng(str(seed), f"fight:{i}"))
        w = engine.winner(final)
        wins[-1 if w is None else w] += 1
        rounds[rounds_of(final, steps) if rounds_of else steps] += 1
        if end_state is not None:
            for who, label in end_state(final).items():
                ends.setdefault(who, Counter())[label] += 1
    side_of = {name: i for i, names in enumerate(sides) for name in names}
    intervals = tuple(wilson_interval(wins[i], samples) for i in range(len(sides)))
    return Forecast(
        system=system,
        method="engine",
        sides=tuple(tuple(s) for s in sides),
        p_win=tuple(wins[i] / samples for i in range(len(sides))),
        p_draw=wins[-1] / samples,
        rounds={r: c / samples for r, c in sorted(rounds.items())},
        combatants=tuple(
            CombatantForecast(who, side_of.get(who, 0), {k: v / samples for k, v in c.items()})
            for who, c in ends.items()
        ),
        error=max((hi - lo) / 2 for lo, hi in intervals),
        intervals=intervals,
        samples=samples,
        seed=seed if isinstance(seed, int) else None,
    )
