"""What every bench script shares: the machine line, spreads, fresh-process timing, and TARGET lines.

Each target a script measures is printed as one line (the format of notes/round-2/SPEED-EXECUTOR.md):

    TARGET | <what, with the target> | <measured> | <ratio> | holds yes|no

``make bench`` tees every script's output to .bench-output.txt and bench/summary.py gathers the
TARGET lines into one table at the end.
"""

from __future__ import annotations

import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUICK = bool(os.environ.get("BENCH_QUICK"))


def ensure_bytecode() -> None:
    """Compile the project's modules, as ``pip install`` does: a fresh process then reads bytecode.

    Without it (PYTHONDONTWRITEBYTECODE set, or a source checkout never imported) every fresh
    process compiles Storymaster from source while the libraries it is compared with load their
    installed bytecode: not like for like.
    """
    import compileall

    compileall.compile_dir(str(ROOT / "src"), quiet=1)


def load_average() -> str:
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:  # pragma: no cover - not on this platform
        return "load average unknown"
    return f"load average {one:.1f} / {five:.1f} / {fifteen:.1f} (1/5/15 min)"


def machine() -> str:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:  # pragma: no cover
        pass
    return (
        f"machine: {os.cpu_count()} cores {cpu}, {platform.system()} {platform.release()}; "
        f"python {sys.version.split()[0]}; shared with other work; {load_average()}"
    )


def header(title: str) -> None:
    print(title)
    print(machine())
    print()


def spread(samples: Sequence[float]) -> tuple[float, float, float]:
    return min(samples), statistics.median(samples), max(samples)


def fmt(s: tuple[float, float, float], unit: float = 1e3, suffix: str = " ms", digits: int = 1) -> str:
    lo, mid, hi = s
    return f"{mid * unit:.{digits}f}{suffix} ({lo * unit:.{digits}f}..{hi * unit:.{digits}f})"


def run_fresh(argv: Sequence[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """One fresh process: (wall seconds, its own CPU seconds, user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def target(what: str, measured: str, ratio: str, holds: bool) -> bool:
    print(f"TARGET | {what} | {measured} | {ratio} | holds {'yes' if holds else 'no'}", flush=True)
    return holds
