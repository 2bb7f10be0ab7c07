"""The TARGET lines of a `make bench` run as one table (Markdown), with how many hold.

    python bench/summary.py .bench-output.txt

Every bench script prints its targets as ``TARGET | what | measured | ratio | holds yes|no``
(bench/common.py); this gathers them from the whole run's output, in order, with the 1-minute
load average last printed before each line (a script's ``machine:`` line; a script that prints
none shows the one printed before it).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path


def rows(text: str) -> list[tuple[str, str, str, str, str]]:
    out = []
    load = "?"
    for line in text.splitlines():
        found = re.search(r"load average\D{0,12}([0-9]+\.[0-9]+)", line)
        if found and not line.startswith("TARGET"):
            load = found.group(1)
        if not line.startswith("TARGET |"):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) < 5:
            continue
        what, measured, ratio, holds = parts[1], parts[2], parts[3], parts[-1]
        out.append((what, measured, ratio, holds.removeprefix("holds").strip(), load))
    return out


def main(argv: list[str]) -> int:
    path = Path(argv[1] if len(argv) > 1 else ".bench-output.txt")
    found = rows(path.read_text(encoding="utf-8", errors="replace"))
    print()
    print("## Targets (every TARGET line of this run)")
    print()
    print("| target | measured | ratio | holds | load |")
    print("| --- | --- | --- | --- | --- |")
    for what, measured, ratio, holds, load in found:
        print(f"| {what} | {measured} | {ratio} | {holds} | {load} |")
    held = sum(h == "yes" for *_, h, _ in found)
    print()
    print(f"{held} of {len(found)} targets hold.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
