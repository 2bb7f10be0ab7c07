"""`make bench`, start-up (issue 17): the CLI in a fresh process, against a d20 one-liner.

Every command runs as a new process (import time included), interleaved A B A B so that the
machine's drift hits both alike; medians with their min..max, wall time (what a user waits) and
the process's own CPU time (less sensitive to other work on a shared machine).
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import QUICK, ensure_bytecode, fmt, header, run_fresh, spread, target

RUNS = 7 if QUICK else 15
BIN = Path(sys.executable).parent
STORYMASTER = str(BIN / "storymaster")
D20 = [sys.executable, "-c", "import d20; print(d20.roll('d20'))"]


def interleaved(commands: dict[str, list[str]], runs: int) -> dict[str, tuple[list[float], list[float]]]:
    out: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in commands}
    for argv in commands.values():  # one warm-up each (the OS's file cache, .pyc files)
        run_fresh(argv)
    for _ in range(runs):
        for name, argv in commands.items():
            wall, cpu = run_fresh(argv)
            out[name][0].append(wall)
            out[name][1].append(cpu)
    return out


def main() -> None:
    ensure_bytecode()
    header("Storymaster start-up: fresh processes, interleaved (median (min..max))")
    got = interleaved(
        {
            "python -c pass": [sys.executable, "-c", "pass"],
            "d20 one-liner": D20,
            "storymaster roll d20": [STORYMASTER, "roll", "d20"],
            "storymaster --help": [STORYMASTER, "--help"],
            "storymaster odds 3d6": [STORYMASTER, "odds", "3d6"],
        },
        RUNS,
    )
    for name, (wall, cpu) in got.items():
        print(f"  {name:<24} wall {fmt(spread(wall)):<30} cpu {fmt(spread(cpu))}")
    roll_wall, roll_cpu = got["storymaster roll d20"]
    d20_wall, d20_cpu = got["d20 one-liner"]
    pairs = [a / b for a, b in zip(roll_wall, d20_wall, strict=True)]  # run by run, as they were interleaved
    ratio = statistics.median(pairs)
    cpu_ratio = statistics.median(roll_cpu) / statistics.median(d20_cpu)
    print()
    target(
        "`storymaster roll d20` within 1.5x of a d20 one-liner (fresh process, wall)",
        f"{fmt(spread(roll_wall))} vs {fmt(spread(d20_wall))}; cpu {cpu_ratio:.2f}x; {RUNS} pairs",
        f"{ratio:.2f}x (pairwise {min(pairs):.2f}..{max(pairs):.2f})",
        ratio <= 1.5,
    )
    help_wall = got["storymaster --help"][0]
    median = statistics.median(help_wall)
    target(
        "`storymaster --help` under 250 ms (fresh process, wall)",
        f"{fmt(spread(help_wall))}; python -c pass {fmt(spread(got['python -c pass'][0]))}",
        f"{median / 0.250:.2f}x of limit",
        median < 0.250,
    )


if __name__ == "__main__":
    main()
