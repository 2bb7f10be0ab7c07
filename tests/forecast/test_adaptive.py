"""Adaptive sample size (issue 17): a simulation stops once every 95% interval is tight enough.

The intervals are checked here against an independent computation: the Wilson score interval
taken from its definition (the proportions p the score test does not reject,
n (p_hat - p)^2 <= z^2 p (1 - p)), found by bisection, with z from the normal distribution's
quantile -- not the closed form the program uses.
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pytest

from storymaster.errors import OddsError
from storymaster.forecast import Batch, run_simulation
from storymaster.forecast.simulate import ADAPTIVE_ERROR, adaptive_checkpoints

Z = NormalDist().inv_cdf(0.975)


def score_interval(k: int, n: int) -> tuple[float, float]:
    p_hat = k / n

    def accepted(p: float) -> bool:
        return n * (p_hat - p) ** 2 <= Z * Z * p * (1 - p)

    def edge(inside: float, outside: float) -> float:
        for _ in range(100):
            mid = (inside + outside) / 2
            inside, outside = (mid, outside) if accepted(mid) else (inside, mid)
        return inside

    lo = 0.0 if k == 0 else edge(p_hat, 0.0)
    hi = 1.0 if k == n else edge(p_hat, 1.0)
    return lo, hi


def _recording(p_a: float, p_draw: float):
    """A fight that side A wins with p_a, draws with p_draw; every winner drawn is kept."""
    seen: list[np.ndarray] = []

    def simulate(n: int, gen: np.random.Generator) -> Batch:
        u = gen.random(n)
        winner = np.where(u < p_a, 0, np.where(u < p_a + p_draw, -1, 1))
        seen.append(winner)
        return Batch(winner, np.ones(n, dtype=np.int64), {}, ("x",))

    return simulate, seen


def _widest(winners: np.ndarray) -> float:
    n = len(winners)
    counts = [int((winners == 0).sum()), int((winners == 1).sum()), int((winners < 0).sum())]
    return max((hi - lo) / 2 for lo, hi in (score_interval(k, n) for k in counts))


def test_the_looks_double() -> None:
    assert adaptive_checkpoints() == [2_000, 6_000, 14_000, 30_000, 62_000, 100_000]
    assert adaptive_checkpoints(2_000, 5_000) == [2_000, 5_000]


@pytest.mark.parametrize(("p_a", "p_draw"), [(0.45, 0.1), (0.3, 0.25), (0.9, 0.02), (0.5, 0.0)])
def test_it_stops_at_the_first_look_where_every_interval_is_tight(p_a: float, p_draw: float) -> None:
    simulate, seen = _recording(p_a, p_draw)
    f = run_simulation(
        "toy", simulate, sides=[["A"], ["B"]], combatant_sides={}, samples=100_000, seed=3, target_error=ADAPTIVE_ERROR
    )
    winners = np.concatenate(seen)
    assert len(winners) == f.samples
    looks = adaptive_checkpoints()
    stop = looks.index(f.samples)
    assert _widest(winners) <= ADAPTIVE_ERROR or f.samples == looks[-1]
    for earlier in looks[:stop]:  # and not one look earlier
        assert _widest(winners[:earlier]) > ADAPTIVE_ERROR
    k = [int((winners == 0).sum()), int((winners == 1).sum())]
    for (lo, hi), kk in zip(f.intervals, k, strict=True):
        want = score_interval(kk, f.samples)
        assert lo == pytest.approx(want[0], abs=1e-9) and hi == pytest.approx(want[1], abs=1e-9)
    assert f.error == pytest.approx(_widest(winners), abs=1e-9)
    if f.samples < 100_000:
        assert any("stopped after" in n for n in f.notes)


def test_the_same_seed_stops_at_the_same_count_with_the_same_figures() -> None:
    runs = [
        run_simulation(
            "toy",
            _recording(0.4, 0.2)[0],
            sides=[["A"], ["B"]],
            combatant_sides={},
            samples=100_000,
            seed=seed,
            target_error=0.01,
        )
        for seed in (9, 9, 10)
    ]
    assert (runs[0].samples, runs[0].p_win, runs[0].p_draw) == (runs[1].samples, runs[1].p_win, runs[1].p_draw)
    assert runs[0].p_win != runs[2].p_win


def test_without_a_target_it_runs_exactly_the_samples_asked() -> None:
    simulate, seen = _recording(0.5, 0.0)
    f = run_simulation("toy", simulate, sides=[["A"], ["B"]], combatant_sides={}, samples=12_345, seed=1)
    assert f.samples == 12_345 == sum(map(len, seen)) and not f.notes


def test_a_target_outside_zero_to_a_half_is_refused() -> None:
    simulate, _ = _recording(0.5, 0.0)
    with pytest.raises(OddsError, match=r"between 0 and 0\.5"):
        run_simulation("toy", simulate, sides=[["A"], ["B"]], combatant_sides={}, samples=10, target_error=0.0)


def test_blyss_team_fights_are_adaptive_by_default_and_exact_in_count_when_asked() -> None:
    from pathlib import Path

    import yaml

    from storymaster.systems.blyss import SYSTEM
    from storymaster.systems.blyss.character import Character

    root = Path(__file__).resolve().parents[2] / "examples" / "blyss"

    def load(name: str) -> Character:
        return Character.model_validate(yaml.safe_load((root / f"{name}.yaml").read_text()))

    state = SYSTEM.combat.start([[load("rogue"), load("expert")], [load("warrior")]])
    default = SYSTEM.forecast(state, seed=1)
    assert default.method == "simulated" and default.samples in adaptive_checkpoints()
    assert default.error <= ADAPTIVE_ERROR or default.samples == 100_000
    assert SYSTEM.forecast(state, seed=1, samples=700).samples == 700
