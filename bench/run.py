"""`make bench`: Storymaster measured side by side with its peers, in one run, as ratios.

(a) single audited rolls against the d20 library (avrae) on the same expressions;
(b) batch rolling against raw numpy Generator.integers code for the same expression (the ceiling);
(c) exact odds against calling icepool directly on the same question: cold (each side in a
    fresh process, first question) and repeated (the same question asked again in-process).

Targets from the foundation issue: (a) >= 3x d20, (b) >= 30% of the numpy ceiling,
(c) never slower than icepool cold, >= 100x faster repeated.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import timeit

import numpy as np

ROLL_EXPRS = ["1d20+5", "4d6kh3", "16+2d4"]
N_BATCH = 1_000_000


def best_per_call(fn, number: int, repeat: int = 5) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def bench_single() -> list[tuple[str, float, float, float]]:
    import d20

    from storymaster.dice import DiceRng, roll

    rows = []
    rng = DiceRng("bench")
    for expr in ROLL_EXPRS:
        ours = best_per_call(lambda expr=expr: roll(expr, rng), 20_000)
        ours_text = best_per_call(lambda expr=expr: roll(expr, rng).detail, 20_000)
        theirs = best_per_call(lambda expr=expr: str(d20.roll(expr)), 20_000)
        rows.append((expr, ours, ours_text, theirs))
    return rows


def _ceiling(expr: str, gen: np.random.Generator, n: int) -> np.ndarray:
    if expr == "1d20+5":
        return gen.integers(1, 21, size=n) + 5
    if expr == "16+2d4":
        return 16 + gen.integers(1, 5, size=(n, 2)).sum(axis=1)
    if expr == "4d6kh3":
        faces = gen.integers(1, 7, size=(n, 4))
        faces.sort(axis=1)
        return faces[:, 1:].sum(axis=1)
    if expr == "3d6":
        return gen.integers(1, 7, size=(n, 3)).sum(axis=1)
    raise KeyError(expr)


def bench_batch() -> list[tuple[str, float, float]]:
    from storymaster.dice import roll_batch

    rows = []
    for expr in ["1d20+5", "3d6", "4d6kh3", "16+2d4"]:
        ours = best_per_call(lambda expr=expr: roll_batch(expr, N_BATCH, seed=1), 3)
        gen = np.random.default_rng(1)
        ceiling = best_per_call(lambda expr=expr, gen=gen: _ceiling(expr, gen, N_BATCH), 3)
        rows.append((expr, ours, ceiling))
    return rows


ODDS_QUESTIONS = [
    ("3d6", "icepool.d(6).pool(3).sum()"),
    ("4d6kh3", "icepool.d(6).pool(4).highest(3).sum()"),
    ("10d10", "10 @ icepool.d(10)"),
    ("8d6kh3+2", "icepool.d(6).pool(8).highest(3).sum() + 2"),
    ("4dF", "4 @ icepool.Die([-1, 0, 1])"),
]

_COLD = """
import time, icepool
from storymaster.odds import distribution
t = time.perf_counter()
{call}
print(time.perf_counter() - t)
"""


def _fresh(call: str) -> float:
    out = subprocess.run([sys.executable, "-c", _COLD.format(call=call)], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def _cold_pair(ours: str, theirs: str, runs: int = 11) -> tuple[float, float]:
    """Each side's first question in a fresh process; runs interleaved so machine noise hits both; medians."""
    a, b = [], []
    for _ in range(runs):
        a.append(_fresh(ours))
        b.append(_fresh(theirs))
    return statistics.median(a), statistics.median(b)


def bench_odds() -> list[tuple[str, float, float, float, float, float]]:
    import icepool

    from storymaster.odds import distribution

    rows = []
    for expr, ice in ODDS_QUESTIONS:
        ours_cold, ice_cold = _cold_pair(f"d = distribution({expr!r})", f"d = {ice}; dict(d.items())")
        # a cache miss in a warm process (a server asking a new question)
        from storymaster.odds.distribution import _distribution

        def miss(expr: str = expr) -> None:
            _distribution.cache_clear()
            distribution(expr)

        ours_miss = best_per_call(miss, 20)
        distribution(expr)
        ours_rep = best_per_call(lambda expr=expr: distribution(expr), 20_000)
        ice_fn = eval(f"lambda: dict(({ice}).items())", {"icepool": icepool})
        ice_rep = best_per_call(ice_fn, 50)
        rows.append((expr, ours_cold, ice_cold, ours_miss, ours_rep, ice_rep))
    return rows


def main() -> None:
    print("Storymaster benchmarks (best of 5; lower time is better; ratio > 1 means Storymaster is faster)\n")
    print("(a) single audited roll vs d20 (avrae) -- target >= 3x")
    print(
        f"  {'expression':<10} {'storymaster':>12} {'+detail text':>13} {'d20':>10} {'ratio':>7} {'ratio w/ text':>14}"
    )
    for expr, ours, ours_text, theirs in bench_single():
        print(
            f"  {expr:<10} {ours * 1e6:>10.2f}us {ours_text * 1e6:>11.2f}us {theirs * 1e6:>8.2f}us "
            f"{theirs / ours:>6.2f}x {theirs / ours_text:>13.2f}x"
        )
    print(f"\n(b) batch rolling of {N_BATCH:,} vs raw numpy Generator.integers -- target >= 30% of the ceiling")
    print(f"  {'expression':<10} {'storymaster':>12} {'numpy':>10} {'share of ceiling':>17}")
    for expr, ours, ceiling in bench_batch():
        print(f"  {expr:<10} {ours * 1e3:>10.1f}ms {ceiling * 1e3:>8.1f}ms {ceiling / ours:>16.0%}")
    print("\n(c) exact odds vs icepool directly -- targets: cold >= 1x, repeated >= 100x")
    print("  cold = first question in a fresh process (median of 11, interleaved); miss = new question, warm process")
    print(
        f"  {'question':<10} {'ours cold':>10} {'icepool cold':>13} {'ratio':>7} {'ours miss':>10} "
        f"{'icepool warm':>13} {'ratio':>7} {'ours again':>11} {'ratio':>9}"
    )
    for expr, oc, ic, omiss, orep, irep in bench_odds():
        print(
            f"  {expr:<10} {oc * 1e3:>8.2f}ms {ic * 1e3:>11.2f}ms {ic / oc:>6.2f}x {omiss * 1e3:>8.2f}ms "
            f"{irep * 1e3:>11.2f}ms"
            f" {irep / omiss:>6.2f}x {orep * 1e6:>9.2f}us {irep / orep:>8.0f}x"
        )


if __name__ == "__main__":
    main()
