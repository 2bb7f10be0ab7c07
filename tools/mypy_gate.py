"""The gate's type check: mypy errors per file may only go down.

mypy runs with the configuration in pyproject.toml ([tool.mypy]): strict on the pure core
(storymaster.dice, .odds, .rules, .play, .forecast), the default checks elsewhere. This script
counts the errors per file and compares them with the recorded baseline (mypy-baseline.json):

- a file with more errors than its baseline (a file not in the baseline has a baseline of 0,
  so new files and the strict packages must be clean) fails the gate, showing its errors;
- a file with fewer errors passes, and the script says so: record the progress with
  ``make mypy-baseline`` (``python tools/mypy_gate.py --update``), which only ever lowers
  counts. Raising a count needs a hand edit of the JSON with a reason in the commit.

Exit status: 0 when no count rose, 1 when one did, 2 when mypy itself could not run.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "mypy-baseline.json"
ERROR = re.compile(r"^(?P<path>[^:\n]+\.pyi?):\d+(?::\d+)?: error: ")


def run_mypy() -> str:
    """mypy's report for the configured files (pyproject.toml); exits 2 if mypy crashed or is missing."""
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-color-output", "--no-error-summary"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode not in (0, 1):  # 2: mypy could not run (bad config, crash)
        sys.stderr.write(proc.stdout + proc.stderr)
        sys.stderr.write(f"mypy_gate: mypy did not run (exit {proc.returncode})\n")
        raise SystemExit(2)
    return proc.stdout


def count_errors(report: str) -> Counter[str]:
    """Errors per file (paths as mypy prints them, relative to the repository) in a mypy report."""
    counts: Counter[str] = Counter()
    for line in report.splitlines():
        m = ERROR.match(line)
        if m:
            counts[m.group("path").replace("\\", "/")] += 1
    return counts


def compare(
    counts: Counter[str], baseline: dict[str, int]
) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
    """(files whose count rose, files whose count fell), each file -> (baseline, now)."""
    rose = {f: (baseline.get(f, 0), n) for f, n in counts.items() if n > baseline.get(f, 0)}
    fell = {f: (b, counts.get(f, 0)) for f, b in baseline.items() if counts.get(f, 0) < b}
    return rose, fell


def lowered(counts: Counter[str], baseline: dict[str, int]) -> dict[str, int]:
    """The baseline with every count lowered to today's where today's is lower (never raised); zeros dropped."""
    new = {f: min(b, counts.get(f, 0)) for f, b in baseline.items()}
    return {f: n for f, n in sorted(new.items()) if n > 0}


def load_baseline(path: Path = BASELINE) -> dict[str, int]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {str(k): int(v) for k, v in data["errors"].items()}


def write_baseline(counts: dict[str, int], path: Path = BASELINE) -> None:
    data = {
        "about": "mypy errors per file that the gate tolerates (tools/mypy_gate.py); counts may only go down. "
        "Strict packages (dice, odds, rules, play, forecast) and files not listed must have none.",
        "total": sum(counts.values()),
        "errors": dict(sorted(counts.items())),
    }
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="lower the recorded counts to today's (never raises)")
    parser.add_argument(
        "--init", action="store_true", help="write today's counts as the baseline (only for the first recording)"
    )
    args = parser.parse_args(argv)
    report = run_mypy()
    counts = count_errors(report)
    if args.init:
        write_baseline(dict(counts))
        print(f"mypy_gate: baseline written: {sum(counts.values())} errors in {len(counts)} files")
        return 0
    baseline = load_baseline()
    rose, fell = compare(counts, baseline)
    if rose:
        print("mypy_gate: more mypy errors than the baseline (mypy-baseline.json) allows:")
        for f, (b, n) in sorted(rose.items()):
            print(f"  {f}: {n} (baseline {b})")
        print()
        for line in report.splitlines():
            m = ERROR.match(line)
            if m and m.group("path").replace("\\", "/") in rose:
                print(line)
        print("\nFix these (the baseline only goes down). Run `.venv/bin/mypy` to see every error.")
        return 1
    if args.update:
        new = lowered(counts, baseline)
        write_baseline(new)
        print(f"mypy_gate: baseline lowered from {sum(baseline.values())} to {sum(new.values())} errors")
        return 0
    total = sum(counts.values())
    print(f"mypy_gate: {total} errors, baseline {sum(baseline.values())}; no file above its baseline")
    if fell:
        print(
            "  fewer errors than recorded in: " + ", ".join(f"{f} ({b} -> {n})" for f, (b, n) in sorted(fell.items()))
        )
        print("  record the progress with `make mypy-baseline`")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
