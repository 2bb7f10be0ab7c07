"""Forecasts by vectorised simulation: many fights at once in numpy, with 95% intervals.

A system provides a *batch simulator*: ``simulate(n, generator) -> Batch``,
playing ``n`` independent fights from the same state with array operations
(not a Python loop per fight). :func:`run_simulation` runs it in chunks with a
fixed seed, reports progress through an optional callback (the CLI draws a bar;
the core stays free of terminal code), and turns the counts into a
:class:`~storymaster.forecast.result.Forecast`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import OddsError
from .result import CombatantForecast, Forecast, wilson_interval

__all__ = ["Batch", "run_simulation"]

MAX_SAMPLES = 10_000_000


@dataclass(frozen=True)
class Batch:
    """The ends of ``n`` simulated fights.

    ``winner``: side index per fight, -1 for a draw / stand-off / unfinished;
    ``rounds``: rounds each fight took; ``end_states``: per combatant, an array
    of codes into ``state_names`` (the system's own words: "unhurt", "Defeated", ...).
    """

    winner: np.ndarray
    rounds: np.ndarray
    end_states: Mapping[str, np.ndarray]
    state_names: Sequence[str]


def run_simulation(
    system: str,
    simulate: Callable[[int, np.random.Generator], Batch],
    *,
    sides: Sequence[Sequence[str]],
    combatant_sides: Mapping[str, int],
    samples: int = 100_000,
    seed: int = 0,
    chunk: int = 50_000,
    tactics: Mapping[str, str] | None = None,
    draw_meaning: str = "draw",
    progress: Callable[[int, int], None] | None = None,
    notes: Sequence[str] = (),
) -> Forecast:
    """Play ``samples`` fights with the batch simulator ``simulate``, in chunks, from ``seed``.

    The forecast carries 95% Wilson intervals for each side and the draw.
    """
    if not 1 <= samples <= MAX_SAMPLES:
        raise OddsError(f"the number of simulated fights must be 1 to {MAX_SAMPLES}, not {samples}")
    gen = np.random.default_rng(seed)
    n_sides = len(sides)
    wins = np.zeros(n_sides, dtype=np.int64)
    draws = 0
    round_counts: dict[int, int] = {}
    state_counts: dict[str, np.ndarray] = {}
    names: Sequence[str] = ()
    done = 0
    while done < samples:
        m = min(chunk, samples - done)
        batch = simulate(m, gen)
        names = batch.state_names
        w = np.asarray(batch.winner)
        if w.shape != (m,):
            raise ValueError("a batch simulator must return one winner per fight")
        wins += np.bincount(w[w >= 0], minlength=n_sides)[:n_sides]
        draws += int((w < 0).sum())
        values, counts = np.unique(np.asarray(batch.rounds), return_counts=True)
        for v, c in zip(values.tolist(), counts.tolist(), strict=True):
            round_counts[v] = round_counts.get(v, 0) + c
        for who, codes in batch.end_states.items():
            add = np.bincount(np.asarray(codes), minlength=len(names))
            state_counts[who] = state_counts.get(who, np.zeros(len(names), dtype=np.int64)) + add
        done += m
        if progress is not None:
            progress(done, samples)
    intervals = tuple(wilson_interval(int(k), samples) for k in wins)
    draw_ci = wilson_interval(draws, samples)
    error = max([(hi - lo) / 2 for lo, hi in (*intervals, draw_ci)])
    combatants = tuple(
        CombatantForecast(
            who,
            combatant_sides[who],
            {names[i]: float(c) / samples for i, c in enumerate(counts) if c},
        )
        for who, counts in state_counts.items()
    )
    return Forecast(
        system=system,
        method="simulated",
        sides=tuple(tuple(s) for s in sides),
        p_win=tuple(float(k) / samples for k in wins),
        p_draw=draws / samples,
        rounds={r: c / samples for r, c in sorted(round_counts.items())},
        combatants=combatants,
        error=error,
        tactics=dict(tactics or {}),
        intervals=intervals,
        samples=samples,
        seed=seed,
        draw_meaning=draw_meaning,
        notes=tuple(notes),
    )
