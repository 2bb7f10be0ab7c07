"""Exact fight forecasts as absorbing Markov chains, propagated round by round in floating point.

A system describes one round as a transition: from a (hashable) state, the
list of ``(probability, next_state)``. :func:`absorb` pushes the probability
mass forward until what is left unresolved is below ``tolerance`` (or the round
cap is hit) and reports that remainder as the error bound: every absorbed
probability is exact up to floating-point rounding and misses at most that mass.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from ..errors import OddsError

__all__ = ["Absorbed", "absorb"]

S = TypeVar("S", bound=Hashable)

#: states a chain may visit before the question is refused (too big to answer exactly)
MAX_STATES = 200_000


@dataclass(frozen=True)
class Absorbed(Generic[S]):
    """Where the chain ends: terminal state -> probability; rounds -> probability of ending then.

    ``live`` holds the states still in play when propagation stopped (at the round cap or
    below the tolerance), with their probability; ``unresolved`` is their total.
    """

    terminal: dict[S, float]
    rounds: dict[int, float]
    unresolved: float
    states_seen: int
    live: dict[S, float] = field(default_factory=dict)


def absorb(
    start: S,
    transitions: Callable[[S], Iterable[tuple[float, S]]],
    is_terminal: Callable[[S], bool],
    *,
    max_rounds: int = 10_000,
    tolerance: float = 1e-12,
) -> Absorbed[S]:
    """Propagate ``start`` through the chain until absorbed (see the module docstring)."""
    cache: dict[S, list[tuple[float, S]]] = {}
    terminal: dict[S, float] = defaultdict(float)
    rounds: dict[int, float] = defaultdict(float)
    if is_terminal(start):
        return Absorbed({start: 1.0}, {0: 1.0}, 0.0, 1)
    live: dict[S, float] = {start: 1.0}
    for r in range(1, max_rounds + 1):
        nxt: dict[S, float] = defaultdict(float)
        for state, p in live.items():
            moves = cache.get(state)
            if moves is None:
                moves = [(q, t) for q, t in transitions(state) if q > 0]
                total = sum(q for q, _ in moves)
                if abs(total - 1) > 1e-9:
                    raise ValueError(f"transitions from {state!r} sum to {total}, not 1")
                cache[state] = moves
                if len(cache) > MAX_STATES:
                    raise OddsError(
                        f"the fight has more than {MAX_STATES} states: too big to forecast exactly",
                        hint="forecast it by simulation instead",
                    )
            for q, t in moves:
                if is_terminal(t):
                    terminal[t] += p * q
                    rounds[r] += p * q
                else:
                    nxt[t] += p * q
        live = nxt
        if sum(live.values()) < tolerance:
            break
    return Absorbed(dict(terminal), dict(rounds), sum(live.values()), len(cache), dict(live))
