"""Mutation testing, one module at a time, bounded in time (issue 14): `make mutation`.

For each module this runs cosmic-ray in a private copy of the work tree (so an interrupted run never
leaves a mutant in your sources), with only the tests that exercise that module, and a time budget.
A session is kept in .mutation/<module>/session.sqlite: run the same command again and it goes on
where it stopped; change the module's source and it starts afresh (the old mutants no longer apply).

    .venv/bin/python tools/mutation.py src/storymaster/systems/philsys/damage.py --budget 600
    .venv/bin/python tools/mutation.py --report            # the table of every module run so far
    .venv/bin/python tools/mutation.py MODULE --survivors  # each surviving mutant, as a diff

Score = killed / (killed + survived - equivalent). Mutants judged equivalent (no test could tell
them from the original) are listed, with the reason, in tools/mutation-equivalent.txt as
``module:line:operator:occurrence  # why``. Timeouts count as killed (the mutant made the tests
hang, which a run notices); "incompetent" mutants (the module fails to import) count as killed too.

Operators left out (they multiply the count without telling more): replacing an arithmetic
operator by a bitwise, shift, power or modulo one. See /work/notes/MUTATION.md for the how-to.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STATE = ROOT / ".mutation"
EQUIVALENT = ROOT / "tools" / "mutation-equivalent.txt"

#: the modules of issue 14 and the tests that exercise each (the narrower, the faster a mutant is judged)
TESTS: dict[str, list[str]] = {
    "src/storymaster/systems/blyss/checks.py": ["tests/systems/blyss/test_checks.py"],
    "src/storymaster/systems/blyss/dicepool.py": ["tests/systems/blyss/test_checks.py"],
    "src/storymaster/systems/blyss/combat.py": ["tests/systems/blyss/test_combat.py"],
    "src/storymaster/systems/blyss/living.py": [
        "tests/systems/blyss/test_living_edges.py",
        "tests/systems/blyss/test_living.py",
        "tests/systems/blyss/test_combat.py",
    ],
    "src/storymaster/systems/blyss/forecast.py": ["tests/systems/blyss/test_forecast.py"],
    "src/storymaster/systems/philsys/checks.py": [
        "tests/systems/philsys/test_rule_twins.py",
        "tests/systems/philsys/test_odds.py",
        "tests/systems/philsys/test_golden.py",
    ],
    "src/storymaster/systems/philsys/combat.py": ["tests/systems/philsys/test_combat.py"],
    "src/storymaster/systems/philsys/damage.py": [
        "tests/systems/philsys/test_damage_rules.py",
        "tests/systems/philsys/test_rule_twins.py",
        "tests/systems/philsys/test_golden.py",
        "tests/systems/philsys/test_combat.py",
    ],
    "src/storymaster/systems/philsys/forecast.py": ["tests/systems/philsys/test_forecast.py"],
    "src/storymaster/play/verify.py": ["tests/play"],
}

EXCLUDE_OPERATORS = re.compile(r"core/ReplaceBinaryOperator_\w+_(BitOr|BitAnd|BitXor|LShift|RShift|Pow|Mod)$")
_COPY_IGNORE = shutil.ignore_patterns(
    ".venv", ".git", ".mutation", "__pycache__", ".pytest_cache", ".hypothesis", "*.egg-info", "node_modules", "docs"
)


def tests_for(module: str) -> list[str]:
    """The tests for a module: from the table above, else its system's (or area's) whole test folder."""
    if module in TESTS:
        return TESTS[module]
    parts = Path(module).parts
    if "systems" in parts:
        return [f"tests/systems/{parts[parts.index('systems') + 1]}"]
    return [f"tests/{parts[2]}"] if len(parts) > 3 else ["tests"]


def _slug(module: str) -> str:
    return module.removeprefix("src/storymaster/").removesuffix(".py").replace("/", ".")


def _equivalents() -> set[tuple[str, int, str, int]]:
    out = set()
    if EQUIVALENT.is_file():
        for line in EQUIVALENT.read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                mod, lineno, op, occ = line.rsplit(":", 3)
                out.add((mod, int(lineno), op, int(occ)))
    return out


def _annotation_spans(path: Path) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Where a function's parameter and return annotations are: never evaluated (the modules use
    ``from __future__ import annotations``), so a mutant there is equivalent by construction. Class-level
    annotations are kept: pydantic evaluates them."""
    import ast

    spans = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            notes = [x.annotation for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x]
            for ann in [*notes, node.returns]:
                if ann is not None:
                    spans.append(((ann.lineno, ann.col_offset), (ann.end_lineno, ann.end_col_offset)))
    return spans


def _copy_tree(dest: Path) -> None:
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(ROOT, dest, ignore=_COPY_IGNORE, symlinks=True)


def _config(where: Path, module: str, tests: list[str], timeout: float) -> Path:
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *tests]
    text = (
        "[cosmic-ray]\n"
        f'module-path = "{module}"\n'
        f"timeout = {timeout:.0f}\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(' '.join(cmd))}\n"
        "[cosmic-ray.distributor]\n"
        'name = "local"\n'
    )
    path = where / "cosmic-ray.toml"
    path.write_text(text)
    return path


def _env(tree: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree / "src")  # the copy's sources, ahead of the editable install
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("PYTEST_ADDOPTS", None)
    return env


def recheck_survivors(module: str) -> int:
    """Forget the verdict on every surviving mutant (after adding tests), so the next run judges them again."""
    import sqlite3

    session = STATE / _slug(module) / "session.sqlite"
    if not session.is_file():
        return 0
    with sqlite3.connect(session) as db:
        return db.execute(
            "DELETE FROM work_results WHERE upper(worker_outcome) = 'NORMAL' AND upper(test_outcome) = 'SURVIVED'"
        ).rowcount


def run(module: str, budget: float, fresh: bool) -> dict[str, object]:
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    source = (ROOT / module).read_bytes()
    digest = hashlib.sha256(source).hexdigest()
    home = STATE / _slug(module)
    tree, session, stamp = home / "tree", home / "session.sqlite", home / "source.sha256"
    if fresh or not stamp.is_file() or stamp.read_text() != digest:
        shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True, exist_ok=True)
    _copy_tree(tree)  # the tests and the other modules as they are now
    tests = tests_for(module)
    env = _env(tree)
    t0 = time.monotonic()
    base = subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    baseline = time.monotonic() - t0
    if base.returncode != 0:
        raise SystemExit(f"{module}: the selected tests fail before any mutation:\n{base.stdout[-3000:]}")
    config = _config(home, module, tests, timeout=max(30.0, 4 * baseline))
    if not session.is_file():
        subprocess.run(
            [sys.executable, "-m", "cosmic_ray.cli", "init", str(config), str(session)], cwd=tree, env=env, check=True
        )
        stamp.write_text(digest)
        spans = _annotation_spans(ROOT / module)
        with use_db(str(session), WorkDB.Mode.open) as db:
            for item in list(db.pending_work_items):
                m = item.mutations[0]
                if EXCLUDE_OPERATORS.match(m.operator_name):
                    why = "operator left out"
                elif any(lo <= tuple(m.start_pos) < hi for lo, hi in spans):
                    why = "in a function annotation (never evaluated)"
                else:
                    continue
                db.set_result(item.job_id, WorkResult(output=why, worker_outcome=WorkerOutcome.SKIPPED))
    proc = subprocess.Popen(
        [sys.executable, "-m", "cosmic_ray.cli", "exec", str(config), str(session)],
        cwd=tree,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        proc.wait(timeout=budget)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    finally:
        (tree / module).write_bytes(source)  # never leave a mutant behind
    summary = summarise(module)
    summary["baseline_s"] = round(baseline, 1)
    (home / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def _rows(module: str):
    from cosmic_ray.work_db import WorkDB, use_db

    session = STATE / _slug(module) / "session.sqlite"
    with use_db(str(session), WorkDB.Mode.open) as db:
        done = {item.job_id: (item, result) for item, result in db.completed_work_items}
        pending = list(db.pending_work_items)
    return done, pending


def summarise(module: str) -> dict[str, object]:
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    done, pending = _rows(module)
    eq = _equivalents()
    counts = {"killed": 0, "survived": 0, "timeout": 0, "incompetent": 0, "equivalent": 0, "left_out": 0}
    for item, result in done.values():
        m = item.mutations[0]
        key = (module, m.start_pos[0], m.operator_name, m.occurrence)
        if result.worker_outcome == WorkerOutcome.SKIPPED:
            counts["left_out"] += 1
        elif result.worker_outcome == WorkerOutcome.ABNORMAL:
            counts["timeout"] += 1
        elif key in eq:
            counts["equivalent"] += 1
        elif result.test_outcome == TestOutcome.SURVIVED:
            counts["survived"] += 1
        elif result.test_outcome == TestOutcome.INCOMPETENT:
            counts["incompetent"] += 1
        else:
            counts["killed"] += 1
    killed = counts["killed"] + counts["timeout"] + counts["incompetent"]
    judged = killed + counts["survived"]
    return {
        "module": module,
        **counts,
        "pending": len(pending),
        "score": round(100.0 * killed / judged, 1) if judged else None,
    }


def survivors(module: str) -> None:
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    done, _ = _rows(module)
    eq = _equivalents()
    for item, result in sorted(done.values(), key=lambda r: r[0].mutations[0].start_pos):
        m = item.mutations[0]
        key = (module, m.start_pos[0], m.operator_name, m.occurrence)
        if (
            result.worker_outcome == WorkerOutcome.NORMAL
            and result.test_outcome == TestOutcome.SURVIVED
            and key not in eq
        ):
            print(f"{module}:{m.start_pos[0]}:{m.operator_name}:{m.occurrence}")
            print("    " + "\n    ".join((result.diff or "").splitlines()[2:]))


def report() -> None:
    print(f"{'module':45} {'killed':>6} {'surv.':>5} {'t/o':>4} {'equiv':>5} {'left':>5} {'pend.':>5} {'score':>6}")
    for summary in sorted(STATE.glob("*/summary.json")):
        s = json.loads(summary.read_text())
        s.update(summarise(s["module"]))
        score = "-" if s["score"] is None else f"{s['score']}%"
        print(
            f"{s['module'].removeprefix('src/storymaster/'):45} {s['killed'] + s['incompetent']:>6} {s['survived']:>5} "
            f"{s['timeout']:>4} {s['equivalent']:>5} {s['left_out']:>5} {s['pending']:>5} {score:>6}"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("modules", nargs="*", help="module paths (default: every module of issue 14 that exists)")
    ap.add_argument("--budget", type=float, default=600, help="seconds per module for this run (default 600)")
    ap.add_argument("--fresh", action="store_true", help="forget the saved session and start again")
    ap.add_argument(
        "--recheck-survivors", action="store_true", help="judge the surviving mutants again (after adding tests)"
    )
    ap.add_argument("--report", action="store_true", help="print the table of every module run so far")
    ap.add_argument("--survivors", action="store_true", help="list the surviving mutants of the modules")
    args = ap.parse_args(argv)
    try:
        import cosmic_ray  # noqa: F401
    except ImportError:
        print("cosmic-ray is missing: pip install -e '.[mutation]'", file=sys.stderr)
        return 2
    if args.report:
        report()
        return 0
    modules = args.modules or [m for m in TESTS if (ROOT / m).is_file()]
    for module in modules:
        if not (ROOT / module).is_file():
            print(f"no such module: {module}", file=sys.stderr)
            return 2
    for module in modules:
        if args.recheck_survivors:
            print(f"{module}: {recheck_survivors(module)} survivor(s) to judge again")
        if args.survivors:
            survivors(module)
            continue
        s = run(module, args.budget, args.fresh)
        print(json.dumps(s))
    return 0


if __name__ == "__main__":
    sys.exit(main())
