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

__all__ = ["ADAPTIVE_ERROR", "ADAPTIVE_MAX", "Batch", "adaptive_checkpoints", "run_simulation"]

MAX_SAMPLES = 10_000_000
#: an adaptive run stops once every 95% interval (each side's win, the draw) is within this (half-width)
ADAPTIVE_ERROR = 0.01
#: the first look at the intervals, after this many fights; each later chunk is twice the one before
ADAPTIVE_FIRST = 2_000
#: and an adaptive run stops here whatever its intervals
ADAPTIVE_MAX = 100_000


def adaptive_checkpoints(first: int = ADAPTIVE_FIRST, most: int = ADAPTIVE_MAX) -> list[int]:
    """Where an adaptive run looks at its intervals: 2,000, 6,000, 14,000, 30,000 ... (chunks double), then ``most``."""
    out, chunk, done = [], first, 0
    while done + chunk < most:
        done += chunk
        out.append(done)
        chunk *= 2
    return [*out, most]


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
    target_error: float | None = None,
) -> Forecast:
    """Play ``samples`` fights with the batch simulator ``simulate``, in chunks, from ``seed``.

    The forecast carries 95% Wilson intervals for each side and the draw. With ``target_error``,
    the run stops early once the intervals are that tight: they are looked at after the fights of
    :func:`adaptive_checkpoints` (``samples`` is then the most), and the run stops at the first
    look where the widest 95% Wilson interval of each side's win and of the draw has a half-width
    of at most ``target_error``. The looks are at fixed counts and the generator is seeded, so the
    same seed stops at the same count with the same figures.
    """
    if not 1 <= samples <= MAX_SAMPLES:
        raise OddsError(f"the number of simulated fights must be 1 to {MAX_SAMPLES}, not {samples}")
    if target_error is not None and not 0 < target_error < 0.5:
        raise OddsError(f"the interval to reach must be between 0 and 0.5, not {target_error}")
    looks = adaptive_checkpoints(min(ADAPTIVE_FIRST, samples), samples) if target_error is not None else [samples]
    gen = np.random.default_rng(seed)
    n_sides = len(sides)
    wins = np.zeros(n_sides, dtype=np.int64)
    draws = 0
    round_counts: dict[int, int] = {}
    state_counts: dict[str, np.ndarray] = {}
    names: Sequence[str] = ()
    done = 0
    while done < samples:
        look = next(n for n in looks if n > done)
        m = min(chunk, look - done)
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
        if target_error is not None and done == look and _half_width(wins, draws, done) <= target_error:
            break
    if done < samples:
        notes = [
            *notes,
            f"stopped after {done:,} fights: every 95% interval within ±{target_error:.1%} (--samples N runs N)",
        ]
    samples = done
    intervals = tuple(wilson_interval(int(k), samples) for k in wins)
    error = _half_width(wins, draws, samples)
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


def _half_width(wins: np.ndarray, draws: int, n: int) -> float:
    """The widest half-width of the 95% Wilson intervals of each side's win and of the draw."""
    return max((hi - lo) / 2 for lo, hi in [*(wilson_interval(int(k), n) for k in wins), wilson_interval(draws, n)])
