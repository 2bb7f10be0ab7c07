"""`make bench`, dice and odds: Storymaster measured side by side with its peers, as ratios.

Like with like, every time:
(a) a single audited roll *with its text* (``roll(expr, rng).detail``) against the d20
    library (avrae) *with its text* (``str(d20.roll(expr))``), on d20's own expressions
    (the ones in its README's performance section) and ours; timed in turn (ours, d20, ours,
    d20 ...), the ratio of the best run of each (the least disturbed by other work);
(b) batch rolling against hand-written numpy code for the same expression (the ceiling),
    for every construct of the language, timed in turn, ratio of the best runs;
(c) exact odds against icepool called directly, on a suite of questions across every
    construct: cold = the first question in a fresh process, *import time included* (the
    project's modules byte-compiled first, as ``pip install`` leaves them, so that both sides
    load bytecode), each side in its own process, interleaved, medians; repeated = the same
    question again in-process.
(d) The work bound (storymaster.odds.engine.cost) against the time it predicts: the suite of (c),
    questions near the limit it accepts and just over it, which it refuses (timed with the limit
    lifted); a new question in a warm process, the least CPU time of the process over the runs
    (wall time printed alongside). ``python bench/run.py d`` runs this section alone.

Every figure is printed with its spread (median (min..max)); each target as a TARGET line
(bench/common.py) with its ratio and whether it holds. BENCH_QUICK=1 repeats less.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
import timeit
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import QUICK, ensure_bytecode, header, target

REPEAT = 3 if QUICK else 7
COLD_RUNS = 3 if QUICK else 7
N_BATCH = 1_000_000

# -- (a) single audited roll -----------------------------------------------------------------
# d20's own expressions (its README, "Performance"), then ours; and the new constructs
SINGLE = [
    ("1d20", "d20 README"),
    ("100d20", "d20 README"),
    ("1d20+" * 50 + "1d20", "d20 README"),
    ("10d20rr<20", "d20 README (a reroll)"),
    ("1d20+5", "ours"),
    ("4d6kh3", "ours"),
    ("16+2d4", "ours"),
    ("2d6ro<3", "d20 README example (a reroll once)"),
    ("8d6mi2", "d20 README example"),
]
# constructs d20 does not have with the same meaning: ours alone
SINGLE_OURS_ONLY = ["6d10>=8", "5d6!!", "{1d20+5, 1d20+3}kh1"]


def spread(samples: list[float]) -> tuple[float, float, float]:
    return min(samples), statistics.median(samples), max(samples)


def per_call(fn, number: int, repeat: int = REPEAT) -> list[float]:
    return [t / number for t in timeit.repeat(fn, number=number, repeat=repeat)]


def interleaved(a, b, number: int, repeat: int) -> tuple[list[float], list[float]]:
    """Per-call times of ``a`` and ``b``, timed in turn (a b a b ...) so that the machine's load hits both."""
    ta, tb = [], []
    for _ in range(repeat):
        ta.append(timeit.timeit(a, number=number) / number)
        tb.append(timeit.timeit(b, number=number) / number)
    return ta, tb


def bench_single():
    import d20

    from storymaster.dice import DiceRng, roll

    rng = DiceRng("bench")
    rows = []
    for expr, source in SINGLE:
        number = 50 if len(expr) > 20 or expr.startswith("100") else 500
        ours, theirs = interleaved(
            lambda e=expr: roll(e, rng).detail, lambda e=expr: str(d20.roll(e)), number, 3 * REPEAT
        )
        rows.append((expr, source, spread(ours), spread(theirs)))
    only = [(e, spread(per_call(lambda e=e: roll(e, rng).detail, 500))) for e in SINGLE_OURS_ONLY]
    return rows, only


# -- (b) batch --------------------------------------------------------------------------------
def _ceiling(expr: str, gen: np.random.Generator, n: int) -> np.ndarray:
    """The least numpy code that rolls the same thing (no parsing, no checks)."""
    if expr == "1d20+5":
        return gen.integers(1, 21, size=n) + 5
    if expr == "3d6":
        return gen.integers(1, 7, size=(n, 3)).sum(axis=1)
    if expr == "16+2d4":
        return 16 + gen.integers(1, 5, size=(n, 2)).sum(axis=1)
    if expr == "4d6kh3":
        f = gen.integers(1, 7, size=(n, 4))
        f.sort(axis=1)
        return f[:, 1:].sum(axis=1)
    if expr == "6d10>=8":  # success counting
        return (gen.integers(1, 11, size=(n, 6)) >= 8).sum(axis=1)
    if expr == "4d6rr1":  # reroll until not a 1 (the cap of 10 is practically never reached)
        f = gen.integers(1, 7, size=(n, 4))
        for _ in range(10):
            m = f == 1
            k = int(m.sum())
            if not k:
                break
            f[m] = gen.integers(1, 7, size=k)
        return f.sum(axis=1)
    if expr == "5d6!!":  # compounding explosion
        f = gen.integers(1, 7, size=(n, 5))
        live = f == 6
        for _ in range(10):
            k = int(live.sum())
            if not k:
                break
            extra = gen.integers(1, 7, size=k)
            f[live] += extra
            nxt = np.zeros_like(live)
            nxt[live] = extra == 6
            live = nxt
        return f.sum(axis=1)
    if expr == "4d6mi2":
        return np.maximum(gen.integers(1, 7, size=(n, 4)), 2).sum(axis=1)
    if expr == "8d6/2":
        return gen.integers(1, 7, size=(n, 8)).sum(axis=1) // 2
    if expr == "ceil(3d6/2)":
        return -(-gen.integers(1, 7, size=(n, 3)).sum(axis=1) // 2)
    if expr == "d20adv":
        return gen.integers(1, 21, size=(n, 2)).max(axis=1)
    if expr == "{1d20+5, 1d20+3}kh1":
        return np.maximum(gen.integers(1, 21, size=n) + 5, gen.integers(1, 21, size=n) + 3)
    if expr == "1d20+5>=15":
        return (gen.integers(1, 21, size=n) + 5 >= 15).astype(np.int64)
    if expr == "4d6k>3":
        f = gen.integers(1, 7, size=(n, 4))
        return (f * (f > 3)).sum(axis=1)
    if expr == "3d6[fire]+2":
        return gen.integers(1, 7, size=(n, 3)).sum(axis=1) + 2
    raise KeyError(expr)


BATCH = [
    "1d20+5",
    "3d6",
    "16+2d4",
    "4d6kh3",
    "6d10>=8",
    "4d6rr1",
    "5d6!!",
    "4d6mi2",
    "8d6/2",
    "ceil(3d6/2)",
    "d20adv",
    "{1d20+5, 1d20+3}kh1",
    "1d20+5>=15",
    "4d6k>3",
    "3d6[fire]+2",
]


def bench_batch():
    from storymaster.dice import roll_batch

    rows = []
    for expr in BATCH:
        gen = np.random.default_rng(1)
        ours, ceiling = interleaved(
            lambda e=expr: roll_batch(e, N_BATCH, seed=1), lambda e=expr, g=gen: _ceiling(e, g, N_BATCH), 1, REPEAT
        )
        rows.append((expr, spread(ours), spread(ceiling)))
    return rows


# -- (c) exact odds ----------------------------------------------------------------------------
# (question, the same question built with icepool directly)
ODDS = [
    # sums
    ("3d6", "3 @ icepool.d(6)"),
    ("10d10", "10 @ icepool.d(10)"),
    ("100d6", "100 @ icepool.d(6)"),
    ("2d6+1d8+3", "2 @ icepool.d(6) + icepool.d(8) + 3"),
    ("1d20+5", "icepool.d(20) + 5"),
    # keep/drop of 2-1,000 dice
    ("2d20kh1", "icepool.d(20).pool(2).highest(1).sum()"),
    ("4d6kh3", "icepool.d(6).pool(4).highest(3).sum()"),
    ("8d6kh3+2", "icepool.d(6).pool(8).highest(3).sum() + 2"),
    ("10d10kh5", "icepool.d(10).pool(10).highest(5).sum()"),
    ("12d10kl3", "icepool.d(10).pool(12).lowest(3).sum()"),
    ("20d20kh10", "icepool.d(20).pool(20).highest(10).sum()"),
    ("100d20kh1", "icepool.d(20).pool(100).highest(1).sum()"),
    ("1000d6kh1", "icepool.d(6).pool(1000).highest(1).sum()"),
    # explosions
    ("d6!", "icepool.d(6).explode(depth=10)"),
    ("3d6!", "3 @ icepool.d(6).explode(depth=10)"),
    ("4d6!kh3", "icepool.d(6).explode(depth=10).pool(4).highest(3).sum()"),
    ("5d10!>=9", "5 @ icepool.d(10).explode([9, 10], depth=10)"),
    # products
    ("2d6*3", "(2 @ icepool.d(6)) * 3"),
    ("1d20*1d20", "icepool.d(20) * icepool.d(20)"),
    ("(1d6+1)*1d4", "(icepool.d(6) + 1) * icepool.d(4)"),
    # Fudge
    ("4dF", "4 @ icepool.Die([-1, 0, 1])"),
    ("8dF+2", "8 @ icepool.Die([-1, 0, 1]) + 2"),
    # pools and sets
    ("{1d20+5, 1d20+3}kh1", "icepool.Pool([icepool.d(20) + 5, icepool.d(20) + 3]).highest(1).sum()"),
    ("{3d6, 3d6, 3d6}kh1", "icepool.Pool([3 @ icepool.d(6)] * 3).highest(1).sum()"),
    # the dice language's new constructs
    ("6d10>=8", "6 @ (icepool.d(10) >= 8)"),
    ("12d10>=8f1", "12 @ icepool.d(10).map(lambda x: (x >= 8) - (x == 1))"),
    ("4d6r1", "4 @ icepool.d(6).reroll([1], depth=10)"),
    ("10d6ro1", "10 @ icepool.d(6).reroll([1], depth=1)"),
    ("5d6!!", "5 @ icepool.d(6).explode(depth=10)"),
    ("4d6mi2", "4 @ icepool.d(6).clip(2, 6)"),
    ("8d6/2", "(8 @ icepool.d(6)) // 2"),
    ("ceil(3d6/2)", "(3 @ icepool.d(6)).map(lambda x: -(-x // 2))"),
    ("1d20+5>=15", "(icepool.d(20) + 5 >= 15).map(lambda b: int(b))"),
    ("d20adv", "icepool.d(20).pool(2).highest(1).sum()"),
    ("4d6k>3", "4 @ icepool.d(6).map(lambda x: x if x > 3 else 0)"),
]

_COLD_OURS = """
import time
t = time.perf_counter()
from storymaster.odds import distribution
distribution({expr!r})
print(time.perf_counter() - t)
"""
_COLD_ICEPOOL = """
import time
t = time.perf_counter()
import icepool
d = {ice}
dict(d.items())
print(time.perf_counter() - t)
"""


def _fresh(code: str) -> float:
    """The time a fresh process reports for its import and question (its own clock, start-up excluded)."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def bench_odds():
    import icepool

    from storymaster.dice import parse
    from storymaster.odds import distribution
    from storymaster.odds.distribution import clear_caches
    from storymaster.odds.engine import cost

    sys.setrecursionlimit(10_000)
    rows = []
    for expr, ice in ODDS:
        ours_cold, ice_cold = [], []
        for _ in range(COLD_RUNS):  # interleaved, so machine noise hits both sides
            ours_cold.append(_fresh(_COLD_OURS.format(expr=expr)))
            ice_cold.append(_fresh(_COLD_ICEPOOL.format(ice=ice)))

        def miss(e: str = expr) -> None:
            clear_caches()
            distribution(e)

        miss_times = per_call(miss, 1, repeat=7)
        distribution(expr)
        again = per_call(lambda e=expr: distribution(e), 2000, repeat=7)
        ice_fn = eval(f"lambda: dict(({ice}).items())", {"icepool": icepool})
        ice_again = per_call(ice_fn, 5, repeat=7)
        work = cost(parse(expr))[1]
        pairs = [i / o for i, o in zip(ice_cold, ours_cold, strict=True)]
        rows.append(
            (
                expr,
                spread(ours_cold),
                spread(ice_cold),
                spread(miss_times),
                spread(again),
                spread(ice_again),
                work,
                pairs,
            )
        )
    return rows


def _new_question(expr: str, runs: int) -> tuple[list[float], list[float]]:
    """A new question (caches cleared), asked ``runs`` times: (wall seconds, CPU seconds of this process)."""
    from storymaster.odds import distribution
    from storymaster.odds.distribution import clear_caches

    wall, cpu = [], []
    for _ in range(runs):
        clear_caches()
        t, c = time.perf_counter(), time.process_time()
        distribution(expr)
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - t)
    return wall, cpu


# near the limit (the bound accepts up to 10,000,000 steps, about a second): every kind of work the bound
# counts, at 0.1-1 s; and questions just over it, which it refuses (timed with the limit lifted: they
# would take a second or more). None of them is in the calibration set (tools/calibrate_work.py).
LIMIT_PROBES = [
    "290d6",
    "500d6",
    "950dF",
    "60d10kh30",
    "38d20kh19",
    "180d6kh90",
    "10d10!kh5",
    "30d10!kh10",
    "10d10k8x>=9",
    "10d10r1k5x>=8",
    "3d6!(100)",
    "d100!(100)",
    "500d6>=5f1",
    "800d20>=15",
    "1000d6kh1",
    "1000d100kh1+1000d100kl1",
    "{10d6, 10d6, 10d6, 10d6}kh2",
    "{20d6, 20d6, 20d6, 20d6}kh2",
    "floor(1d1000/1d50)",
    "1d100000",
]
OVER_PROBES = ["600d6", "10d10r1k8x>=8", "35d10!kh12", "200d6kh100"]


def section_d(verdicts: list[tuple[str, bool]]) -> None:
    import importlib

    from storymaster.dice import parse
    from storymaster.odds.engine import cost, predicted_seconds

    limits = importlib.import_module("storymaster.odds.distribution")
    runs = REPEAT
    print(
        f"\n(d) the work bound against the time it predicts: a new question in a warm process, least of {runs} runs;"
        " CPU time of the process (wall time alongside: on a shared machine the wall time of a long question"
        " also counts the time other processes held the core)"
    )
    sys.setrecursionlimit(10_000)

    def measure(exprs: list[str], n: int) -> list[tuple[str, int, float, float]]:
        out = []
        for expr in exprs:
            work = cost(parse(expr))[1]
            # a question of milliseconds is run as often as the suite's: one disturbed run is most of it
            wall, cpu = _new_question(expr, n if predicted_seconds(work) > 0.05 else max(n, runs))
            out.append((expr, work, min(cpu), min(wall)))
        return out

    def show(rows: list[tuple[str, int, float, float]], indent: str = "  ") -> None:
        for expr, work, cpu, wall in rows:
            p = predicted_seconds(work)
            print(
                f"{indent}{expr:<30} work {work:>11,}  predicted {p * 1e3:9.3f} ms  CPU {cpu * 1e3:9.3f} ms"
                f" x{cpu / p:.2f}  wall {wall * 1e3:9.3f} ms x{wall / p:.2f}"
            )

    suite = measure([e for e, _ in ODDS], runs)
    show(suite)
    factors = [cpu / predicted_seconds(w) for _, w, cpu, _ in suite]
    wall_factors = [wall / predicted_seconds(w) for _, w, _, wall in suite]
    scale = _load_scale(factors)
    worst = max(max(f * scale, 1 / (f * scale)) for f in factors)
    wall_worst = max(
        max(f / statistics.median(wall_factors), statistics.median(wall_factors) / f) for f in wall_factors
    )
    print(
        f"  measured/predicted (CPU): {min(factors):.2f}..{max(factors):.2f} (median {statistics.median(factors):.2f},"
        f" the machine's speed against the calibration); worst after that scaling: {worst:.2f}x;"
        f" wall: {min(wall_factors):.2f}..{max(wall_factors):.2f}, worst {wall_worst:.2f}x"
    )
    verdicts.append(
        (
            "work bound",
            target(
                f"the work bound predicts real time within 3x ({len(suite)} questions, scaled by the median)",
                f"CPU measured/predicted {min(factors):.2f}..{max(factors):.2f},"
                f" median {statistics.median(factors):.2f}"
                f" (wall {min(wall_factors):.2f}..{max(wall_factors):.2f}, worst {wall_worst:.2f}x)",
                f"worst {worst:.2f}x",
                worst <= 3,
            ),
        )
    )

    print(f"  near the limit ({limits.MAX_WORK:,} steps, about a second), least of 3 runs ({runs} under 50 ms):")
    probes = measure(LIMIT_PROBES, 3)
    show(probes, "    ")
    refused = [e for e in OVER_PROBES if cost(parse(e))[1] > limits.MAX_WORK]
    print("  just over the limit: refused (timed once with the limit lifted):")
    saved = limits.MAX_WORK
    limits.MAX_WORK = 10**18
    try:
        over = measure(OVER_PROBES, 1)
    finally:
        limits.MAX_WORK = saved
    show(over, "    ")
    near = probes + over
    probe_factors = [cpu / predicted_seconds(w) for _, w, cpu, _ in near]
    wall_probe = [wall / predicted_seconds(w) for _, w, _, wall in near]
    worst_probe = max(max(f * scale, 1 / (f * scale)) for f in probe_factors)
    verdicts.append(
        (
            "work bound near the limit",
            target(
                f"the work bound predicts real time within 3x near the limit ({len(near)} heavy questions,"
                " most of 0.1-2 s, both sides of 10,000,000 steps)",
                f"CPU measured/predicted {min(probe_factors):.2f}..{max(probe_factors):.2f}"
                f" (wall {min(wall_probe):.2f}..{max(wall_probe):.2f})",
                f"worst {worst_probe:.2f}x",
                worst_probe <= 3,
            ),
        )
    )
    accepted = [(e, w, cpu, wall) for e, w, cpu, wall in probes if w <= limits.MAX_WORK]
    slowest = max(accepted, key=lambda r: r[2])
    all_refused = len(refused) == len(OVER_PROBES)
    verdicts.append(
        (
            "limit probe",
            target(
                "no question the work bound accepts takes more than about a second (probes near the bound);"
                " those just over are refused",
                f"slowest accepted `{slowest[0]}` {slowest[2]:.3f} s CPU ({slowest[3]:.3f} s wall);"
                f" refused {len(refused)} of {len(OVER_PROBES)} just over (they take"
                f" {min(r[2] for r in over):.2f}-{max(r[2] for r in over):.2f} s)",
                f"{slowest[2] / 1.5:.2f}x of 1.5 s",
                slowest[2] <= 1.5 and all_refused,
            ),
        )
    )


def _fmt(s: tuple[float, float, float], unit: float, suffix: str) -> str:
    lo, mid, hi = s
    return f"{mid * unit:.2f}{suffix} ({lo * unit:.2f}..{hi * unit:.2f})"


def main(sections: str = "abcd") -> None:
    ensure_bytecode()
    header("Storymaster dice and odds against their peers (median (min..max) of repeated runs; ratio > 1: ours faster)")
    verdicts: list[tuple[str, bool]] = []

    if "a" in sections:
        print(
            "(a) single audited roll WITH its text vs d20 WITH its text, interleaved -- target >= 3x on d20's"
            " expressions and ours (ratio of the best runs)"
        )
        rows, only = bench_single()
        for expr, source, ours, theirs in rows:
            ratio = theirs[0] / ours[0]  # best of each, timed in turn: the least disturbed run of either side
            ok = ratio >= 3
            print(
                f"  {expr[:28]:<28} {source:<34} ours {_fmt(ours, 1e6, 'us'):<26} d20 {_fmt(theirs, 1e6, 'us'):<26}"
                f" {ratio:5.2f}x {'holds' if ok else 'MISSED'}"
            )
            shown = expr if len(expr) <= 24 else f"{expr[:12]}... ({expr.count('d20')} terms)"
            verdicts.append(
                (
                    f"single roll {expr}",
                    target(
                        f"single audited roll with text >= 3x d20 with text: `{shown}` ({source})",
                        f"{ours[0] * 1e6:.1f} us vs {theirs[0] * 1e6:.1f} us (best of {3 * REPEAT}, interleaved;"
                        f" medians {theirs[1] / ours[1]:.2f}x)",
                        f"{ratio:.2f}x",
                        ok,
                    ),
                )
            )
        for expr, ours in only:
            print(f"  {expr:<28} {'(no d20 equivalent)':<34} ours {_fmt(ours, 1e6, 'us')}")

    if "b" in sections:
        print(
            f"\n(b) batch of {N_BATCH:,} vs hand-written numpy for the same expression -- target >= 30% of the ceiling"
        )
        for expr, ours, ceiling in bench_batch():
            share = ceiling[0] / ours[0]  # best of each, timed in turn
            ok = share >= 0.30
            print(
                f"  {expr:<22} ours {_fmt(ours, 1e3, 'ms'):<28} numpy {_fmt(ceiling, 1e3, 'ms'):<28}"
                f" {share:6.0%} {'holds' if ok else 'MISSED'}"
            )
            verdicts.append(
                (
                    f"batch {expr}",
                    target(
                        f"batch >= 30% of the numpy ceiling: `{expr}`",
                        f"{ours[0] * 1e3:.1f} ms vs {ceiling[0] * 1e3:.1f} ms (best of {REPEAT}, interleaved;"
                        f" medians {ceiling[1] / ours[1]:.0%})",
                        f"{share:.0%}",
                        ok,
                    ),
                )
            )

    if "c" in sections:
        print(
            "\n(c) exact odds vs icepool directly -- targets: a new question (cold, fresh process, import included)"
            " >= 1x (median of run-by-run ratios); the same question again >= 100x (best of 7 each)"
        )
        odds = bench_odds()
        cold_ratios, again_ratios = [], []
        for expr, oc, ic, _miss, again, ice_again, _work, pairs in odds:
            cold_ratio = statistics.median(pairs)  # run by run (interleaved), so drift in the load cancels
            rep_ratio = ice_again[0] / again[0]  # best of each
            cold_ratios.append((cold_ratio, expr))
            again_ratios.append((rep_ratio, expr))
            print(
                f"  {expr:<20} cold ours {_fmt(oc, 1e3, 'ms'):<24} icepool {_fmt(ic, 1e3, 'ms'):<24} {cold_ratio:6.2f}x"
                f" {'holds' if cold_ratio >= 1 else 'MISSED'} | again ours {again[0] * 1e6:.2f}us icepool"
                f" {ice_again[0] * 1e3:.2f}ms {rep_ratio:8.0f}x {'holds' if rep_ratio >= 100 else 'MISSED'}"
            )
        worst_cold, worst_cold_expr = min(cold_ratios)
        missed = [e for r, e in cold_ratios if r < 1]
        verdicts.append(
            (
                "odds cold",
                target(
                    f"exact odds, new question (fresh process, import included) never slower than icepool,"
                    f" {len(odds)} questions",
                    f"worst `{worst_cold_expr}`; median {statistics.median(r for r, _ in cold_ratios):.2f}x"
                    f" (run-by-run ratios of {COLD_RUNS} interleaved pairs);"
                    f" slower on {len(missed)}{': ' + ', '.join(missed) if missed else ''}",
                    f"{worst_cold:.2f}x",
                    worst_cold >= 1,
                ),
            )
        )
        worst_again, worst_again_expr = min(again_ratios)
        verdicts.append(
            (
                "odds again",
                target(
                    f"exact odds, the same question again >= 100x faster than icepool, {len(odds)} questions",
                    f"worst `{worst_again_expr}`; median {statistics.median(r for r, _ in again_ratios):,.0f}x",
                    f"{worst_again:,.0f}x",
                    worst_again >= 100,
                ),
            )
        )

    if "d" in sections:
        section_d(verdicts)

    held = sum(ok for _, ok in verdicts)
    print(f"\ntargets: {held} of {len(verdicts)} hold")
    for name, ok in verdicts:
        if not ok:
            print(f"  missed: {name}")


def _load_scale(factors: list[float]) -> float:
    """Machine speed against the calibration machine: the median factor (a loaded box is uniformly slower)."""
    return 1 / statistics.median(factors)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    # `python bench/run.py d` runs section (d) alone (any of a, b, c, d); no argument: all four
    main(sys.argv[1] if len(sys.argv) > 1 else "abcd")
