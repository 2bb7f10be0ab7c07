"""Fit the weights of the exact-odds work bound (storymaster.odds.engine.WEIGHTS) on a calibration set.

    nice -n 10 .venv/bin/python tools/calibrate_work.py          # measure, fit, print the weights
    nice -n 10 .venv/bin/python tools/calibrate_work.py --check  # measure, compare with the weights in use

Each question is asked new (caches cleared) in this warm process, several times; its time is the least
CPU time of the process (``time.process_time``) over the runs: on the shared 2-core machine a run's
wall time also counts the time other processes held the core, and that grows with the question.
The work bound tallies each question's operations by kind (``engine.work_tally``); the fit finds
non-negative weights, in steps of STEP_SECONDS, that make predicted/measured closest to 1 in the
worst case (least squares on relative error, reweighted towards the worst). The calibration set
is not the bench suite: bench/run.py section (d) checks the weights on questions they were not
fitted on.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from storymaster.dice import parse
from storymaster.errors import OddsError
from storymaster.odds import distribution, engine
from storymaster.odds.distribution import clear_caches

#: how much more an under-prediction counts than an over-prediction, and a question over 50 ms than a quick one
UNDER, HEAVY = 1.5, 2.0

# fmt: off
CALIBRATION = [
    # sums, of few to many dice, small to large
    "7", "1d6", "2d6", "5d6", "20d6", "50d6", "150d6", "200d6", "3d20", "10d20", "50d20", "100d20", "2d100",
    "10d100", "30d100", "1d1000", "5d1000", "20d10", "60d10", "200d10", "400d6", "1000dF", "600d4", "100d6r1",
    "d6r1!(60)", "3d6r1!(20)", "3d4+2d8", "1d20+1d12+1d10+1d8", "2d6-1d4", "-3d6", "40d6+40d6",
    # keep and drop
    "3d6kh2", "5d8kh2", "6d6kl3", "15d10kh7", "25d6kh12", "40d6kh20", "10d20kh3", "50d20kh1", "300d20kh1",
    "1000d10kh1", "500d6kh3", "8d100kh4", "12d12kh6", "100d6kh30", "30d20kh15", "5d6dl1", "7d10dh2", "100d6kh50",
    "150d6kh40", "1000d20kh5", "1000d100kh1", "300d6kh20", "20d6r1kh10", "6d10r1!kh3",
    # near the limit (about a second): where the bound must be right
    "160d6kh80", "120d10kh40", "250d4kh120", "80d8kh40", "6d8r1!kh3", "8d12r1!kh4", "12d6r1!kh6", "5d10r(20)1kh3",
    "20d6r(30)1kh10", "8d10r1k6x>=8", "10d10r1k4x>=9", "9d10k8x>=9", "12d8r1k6x>=7", "500d2kh250", "1000d2kh500",
    "400d3kh200", "400d4kh150", "10d10k5x>=8", "10d10r(1)1k5x>=8", "10d10r(3)1k5x>=8", "10d10r(6)1k5x>=8",
    "10d10r(20)1k5x>=8", "50d20kh25", "8d10r1!kh4", "12d10!kh6", "40d10!kh5", "250d6", "350d6", "80d20",
    "700d6>=5f1", "25d10!", "12d6r1!", "300d4+300d4",
    # explosions, compounding, penetrating
    "2d6!", "d10!", "2d10!", "6d6!", "10d6!", "20d6!", "2d8!!", "3d10!!", "8d6!!", "d6!p", "4d6!p", "3d6!>=5",
    "2d20!", "d6!(30)", "2d6!(20)", "6d10!kh3", "3d6!kh2", "5d8!kh2", "d4!(100)", "3d4!(50)", "d6!(100)",
    "d10!(60)", "2d6!(60)", "d20!(40)", "d8!!(80)", "d6!p(50)",
    # products and division
    "1d6*1d6", "2d10*2d10", "3d6*1d20", "1d100*1d100", "2d6*2d6*2d6", "10d6*3", "1d50*1d50", "5d6/3", "10d10/4",
    "1d100/1d6", "floor(4d6/3)", "round(10d6/4)", "ceil(1d100/7)", "floor(2d20/1d4)", "round(20d6/3)", "floor(3d6)",
    "1d30*1d30", "1d200*1d20", "1d150*1d150", "ceil(1d100/1d10)", "round(3d20/1d6)", "floor(1d100*1d6/7)",
    "floor(1d500/1d30)", "round(1d300/1d40)",
    # Fudge
    "1dF", "20dF", "100dF", "300dF", "10dF+1d6",
    # sets
    "{1d20, 1d20, 1d20}kh1", "{2d6, 1d8, 1d10}kl1", "{1d20+2, 1d20, 1d20-1, 1d20+4}kh1", "{3d6, 3d6, 3d6, 3d6}kh2",
    "{1d20, 1d20, 1d20}kh2", "{2d10, 2d10, 2d10}kl2", "{5d6, 5d6, 5d6, 5d6, 5d6}kh3", "{1d20, 1d12, 1d8}>=8",
    "{2d6, 2d6}", "{1d20, 1d20}kh1>=10", "{1d100, 1d100, 1d100, 1d100}kh2",
    "{1d20, 1d19, 1d18, 1d17, 1d16, 1d15, 1d14, 1d13}kh3", "{1d100, 1d99}kh1>=50", "{15d6, 15d6, 15d6}kl2",
    "{2d6, 2d6+1, 2d6+2, 2d6+3, 2d6+4, 2d6+5}kh2",
    "{1d50, 1d50, 1d50, 1d50, 1d50, 1d50, 1d50, 1d50, 1d50, 1d50}kh1",
    # success counting
    "10d10>=8", "30d10>=7", "100d6>=5", "300d10>=8f1", "20d6>=5f1", "10d10!>=8", "8d10>=7kh4", "1000d6>=6",
    "1000d10>=8f1", "800d6>=5",
    # rerolls, clamps, keep by comparison
    "3d6r1", "10d6r<3", "20d10r1", "5d8ro<3", "50d6r1", "4d20r<5", "10d6r(3)1", "3d10r1!", "6d6r1kh3", "10d6mi2",
    "5d20ma15", "20d6mi3ma5", "10d6k>3", "20d10d<3", "50d6k>=5",
    # comparisons
    "1d20>=1d20", "3d6>2d6+2", "1d20+7>=15", "2d20kh1+5>=18", "2d20>=2d20", "1d100>=1d100", "4d10>3d12",
]
# fmt: on


def measure(text: str, runs: int = 5, budget: float = 3.0) -> float:
    """The least CPU time of a new question (parsed, checked, answered), over a few runs."""
    best, spent = math.inf, 0.0
    for _ in range(runs):
        clear_caches()
        t = time.process_time()
        distribution(text)
        d = time.process_time() - t
        best, spent = min(best, d), spent + d
        if spent > budget:
            break
    return best


def fit(rows: list[tuple[str, float, dict[str, float]]]) -> dict[str, float]:
    """Weights w >= 0 making predicted/measured = a @ w closest to 1 in the worst case: gradient descent
    on log w of the sum of (log ratio) ** p, p rising so that the largest errors dominate; an
    under-prediction (a question slower than the bound says) and a question of more than 50 ms count more."""
    kinds = list(engine.WEIGHTS)
    f = np.array([[tally.get(k, 0.0) for k in kinds] for _, _, tally in rows])
    seconds = np.array([s for _, s, _ in rows])
    a = f * engine.STEP_SECONDS / seconds[:, None]
    used = f.any(axis=0)
    heavy = np.where(seconds > 0.05, HEAVY, 1.0)  # near the limit is where the bound decides
    u = np.where(used, 0.0, -50.0)
    for p in (2, 4, 8, 16):
        m, v = np.zeros_like(u), np.zeros_like(u)
        for it in range(1, 4001):
            w = np.exp(u)
            r = a @ w
            lr = np.log(r)
            side = np.where(lr < 0, UNDER, 1.0)  # an under-prediction counts more than an over-prediction
            g = ((heavy * p * (side * lr) ** (p - 1) * side / r)[:, None] * a * w[None, :]).sum(axis=0) * used
            m = 0.9 * m + 0.1 * g
            v = 0.999 * v + 0.001 * g * g
            u -= 0.05 * (m / (1 - 0.9**it)) / (np.sqrt(v / (1 - 0.999**it)) + 1e-12)
            u = np.maximum(u, -50.0)
    return {k: float(np.exp(x)) if ok else 0.0 for k, x, ok in zip(kinds, u, used, strict=True)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="compare with the weights in use; no fit")
    ap.add_argument("exprs", nargs="*", help="questions to measure instead of the calibration set")
    ap.add_argument("--save", help="write the measurements to this file (JSON)")
    ap.add_argument("--load", help="fit on measurements saved before, measuring nothing")
    args = ap.parse_args()
    sys.setrecursionlimit(10_000)
    importlib.import_module("storymaster.odds.distribution").MAX_WORK = 10**18  # measure what it would refuse
    rows = []
    if args.load:  # the times measured before, tallied again (the tally may have changed since)
        rows = [
            (text, seconds, engine.work_tally(parse(text))[1])
            for text, seconds, _ in json.loads(Path(args.load).read_text())
        ]
    for text in args.exprs or ([] if args.load else CALIBRATION):
        try:
            seconds = measure(text)
        except OddsError as e:  # too many outcomes (the work bound is lifted here, not the support's)
            print(f"  refused {text}: {e.message}", file=sys.stderr)
            continue
        rows.append((text, seconds, engine.work_tally(parse(text))[1]))
        print(f"  measured {text:<36} {rows[-1][1] * 1e3:10.3f} ms", file=sys.stderr, flush=True)
    if args.save:
        Path(args.save).write_text(json.dumps(rows))
    weights = dict(engine.WEIGHTS) if args.check else fit(rows)
    if not args.check:
        print("WEIGHTS = {")
        for k, v in weights.items():
            print(f'    "{k}": {float(f"{v:.2g}")!r},')
        print("}")
    ratios = []
    for text, seconds, tally in rows:
        predicted = sum(weights[k] * v for k, v in tally.items()) * engine.STEP_SECONDS
        ratios.append((predicted / seconds, text, seconds, predicted))
    for r, text, seconds, predicted in sorted(ratios):
        print(f"  {text:<36} measured {seconds * 1e3:10.3f} ms  predicted {predicted * 1e3:10.3f} ms  x{r:.2f}")
    lo, hi = min(r for r, *_ in ratios), max(r for r, *_ in ratios)
    print(f"predicted/measured {lo:.2f}..{hi:.2f}; worst {max(hi, 1 / lo):.2f}x on {len(rows)} questions")


if __name__ == "__main__":
    main()
