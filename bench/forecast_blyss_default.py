"""`make bench`, BLYSS team forecasts (issue 17): the default run answers within 5 s, with its interval.

The default (no --samples) simulates until every 95% interval (each side's win, the draw) is within
±1%, looking after 2,000, 6,000, 14,000 ... fights. Timed as a user runs it: the CLI in a fresh
process (imports included), wall time, median (min..max) of repeated runs.
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import QUICK, ROOT, fmt, header, spread, target

RUNS = 1 if QUICK else 3
STORYMASTER = str(Path(sys.executable).parent / "storymaster")
EX = ROOT / "examples" / "blyss"
FIGHTS = {
    "rogue + expert vs warrior (close: about 29% / 58%, 13% draws)": ["rogue", "expert", "--vs", "warrior"],
    "warrior + craftsman vs rogue + expert": ["warrior", "craftsman", "--vs", "rogue", "expert"],
}


def argv(words: list[str]) -> list[str]:
    files = [w if w.startswith("--") else str(EX / f"{w}.yaml") for w in words]
    return [STORYMASTER, "blyss", "forecast", *files, "--json"]


def main() -> None:
    header("BLYSS team forecasts, the default run (adaptive sample size), CLI in a fresh process")
    for name, words in FIGHTS.items():
        walls, cpus, report = [], [], {}
        for _ in range(RUNS):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            out = subprocess.run(argv(words), capture_output=True, text=True, check=True).stdout
            walls.append(time.perf_counter() - t)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            report = json.loads(out)
        median = statistics.median(walls)
        p_win = report["p_win"]
        print(
            f"  {name}: {fmt(spread(walls), 1, ' s', 2)}, cpu {fmt(spread(cpus), 1, ' s', 2)};"
            f" {report['samples']:,} fights; "
            f"p_win {', '.join(f'{k} {v:.3f}' for k, v in p_win.items())}, draw {report['p_draw']:.3f}; "
            f"widest 95% interval ±{report['error']:.4f}"
        )
        target(
            f"BLYSS team forecast, default run, within 5 s with its interval: {name}",
            f"{fmt(spread(walls), 1, ' s', 2)} (cpu {statistics.median(cpus):.2f} s), {report['samples']:,} fights,"
            f" ±{report['error']:.4f}",
            f"{median / 5:.2f}x of limit",
            median <= 5 and report["error"] <= 0.01,
        )


if __name__ == "__main__":
    main()
