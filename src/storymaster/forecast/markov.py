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

import numpy as np

from ..errors import OddsError

__all__ = ["Absorbed", "absorb", "absorb_indexed"]

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


def _moves(state: S, transitions: Callable[[S], Iterable[tuple[float, S]]]) -> list[tuple[float, S]]:
    """A state's moves with positive chance, refused unless they sum to 1."""
    moves = [(q, t) for q, t in transitions(state) if q > 0]
    total = sum(q for q, _ in moves)
    if abs(total - 1) > 1e-9:
        raise ValueError(f"transitions from {state!r} sum to {total}, not 1")
    return moves


def _check_size(states: int) -> None:
    if states > MAX_STATES:
        raise OddsError(
            f"the fight has more than {MAX_STATES} states: too big to forecast exactly",
            hint="forecast it by simulation instead",
        )


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
                moves = cache[state] = _moves(state, transitions)
                _check_size(len(cache))
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


def absorb_indexed(
    start: int,
    transitions: Callable[[int], Iterable[tuple[float, int]]],
    is_terminal: Callable[[int], bool],
    *,
    max_rounds: int = 10_000,
    tolerance: float = 1e-12,
) -> Absorbed[int]:
    """:func:`absorb` for a chain whose states are small integers (a system numbers its states as it meets them;
    ``is_terminal`` must answer for every number up to the largest met), with the mass moved by numpy: the same
    answer up to the order of floating-point sums. Each state's moves are found once, when it first holds mass
    (as absorb finds them); each round is then one weighted bincount over every move found."""
    if is_terminal(start):
        return Absorbed({start: 1.0}, {0: 1.0}, 0.0, 1)
    n = start + 1
    over = np.array([is_terminal(j) for j in range(n)], dtype=bool)
    mass, terminal, expanded = np.zeros(n), np.zeros(n), np.zeros(n, dtype=bool)
    mass[start] = 1.0
    src: list[int] = []
    dst: list[int] = []
    prob: list[float] = []
    arrays: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    rounds: dict[int, float] = {}
    seen = 0
    for r in range(1, max_rounds + 1):
        new = np.flatnonzero((mass > 0) & ~expanded)
        for i in new.tolist():
            moves = _moves(i, transitions)
            src += [i] * len(moves)
            dst += [t for _, t in moves]
            prob += [q for q, _ in moves]
            seen += 1
            _check_size(seen)
        if len(new) or arrays is None:
            expanded[new] = True
            arrays = (np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), np.array(prob))
            m = max(n, int(arrays[1].max()) + 1 if dst else 0)
            if m > n:
                over = np.concatenate([over, [is_terminal(j) for j in range(n, m)]]).astype(bool)
                mass, terminal = (np.concatenate([x, np.zeros(m - n)]) for x in (mass, terminal))
                expanded = np.concatenate([expanded, np.zeros(m - n, dtype=bool)])
                n = m
        a_src, a_dst, a_p = arrays
        flow = np.bincount(a_dst, weights=a_p * mass[a_src], minlength=n)
        ended = np.where(over, flow, 0.0)
        if ended.any():
            terminal += ended
            rounds[r] = float(ended.sum())
        mass = np.where(over, 0.0, flow)
        if mass.sum() < tolerance:
            break
    live = {int(i): float(mass[i]) for i in np.flatnonzero(mass)}
    ends = {int(i): float(terminal[i]) for i in np.flatnonzero(terminal)}
    return Absorbed(ends, rounds, float(mass.sum()), seen, live)
