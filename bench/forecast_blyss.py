"""`make bench`: the BLYSS fight forecast against the combat engine run fight by fight (issue 10).

Simulation throughput: the vectorised forecast (numpy, many fights at once) against the engine
playing the same number of fights one at a time, for a duel and for a two-against-two fight;
fights per second per core for both and the ratio (target >= 50x). Also the exact chain of a duel
(time, states) against the simulation of the same duel.

Both sides run in this one process, one after the other, so they share the machine's load alike.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from storymaster.dice import DiceRng  # noqa: E402
from storymaster.forecast import play_out  # noqa: E402
from storymaster.systems.blyss import SYSTEM  # noqa: E402
from storymaster.systems.blyss.character import Character  # noqa: E402
from storymaster.systems.blyss.forecast import blyss_forecast, simulate_batch  # noqa: E402

ENGINE_FIGHTS = int(os.environ.get("BENCH_ENGINE_FIGHTS", "200"))
TARGET = 50.0


def load(name: str) -> Character:
    return Character.model_validate(yaml.safe_load((ROOT / "examples" / "blyss" / f"{name}.yaml").read_text()))


def engine_rate(state, n: int) -> float:
    eng = SYSTEM.combat
    t = time.perf_counter()
    for i in range(n):
        play_out(eng, state, DiceRng("bench", f"fight:{i}"))
    return n / (time.perf_counter() - t)


def sim_rate(state, n: int) -> float:
    run = simulate_batch(state)
    gen = np.random.default_rng(1)
    run(1000, gen)  # warm the pool caches
    t = time.perf_counter()
    run(n, gen)
    return n / (time.perf_counter() - t)


def main() -> int:
    warrior, rogue, expert, craftsman = load("warrior"), load("rogue"), load("expert"), load("craftsman")
    eng = SYSTEM.combat
    cases = [
        ("duel: warrior vs rogue, both attack", eng.start([[warrior], [rogue]])),
        (
            "2 vs 2: warrior+craftsman vs rogue+expert, mixed tactics",
            eng.start(
                [[warrior, craftsman], [rogue, expert]], options={"tactic": {"Yama Wolfclaw": "defensive", "1": "aim"}}
            ),
        ),
    ]
    print("BLYSS forecast: vectorised simulation vs the combat engine fight by fight (one core each)")
    worst = float("inf")
    for label, state in cases:
        e = engine_rate(state, ENGINE_FIGHTS)
        n = 20_000
        s = sim_rate(state, n)
        worst = min(worst, s / e)
        print(f"  {label}")
        print(f"    engine     {e:>12,.0f} fights/s/core ({ENGINE_FIGHTS} fights)")
        print(f"    simulation {s:>12,.0f} fights/s/core ({n} fights)   ratio {s / e:,.0f}x (target >= {TARGET:.0f}x)")
    t = time.perf_counter()
    ex = blyss_forecast(cases[0][1], method="exact")
    te = time.perf_counter() - t
    t = time.perf_counter()
    si = blyss_forecast(cases[0][1], method="simulate", samples=50_000, seed=1)
    ts = time.perf_counter() - t
    print(f"  exact chain of the duel: {te:.2f} s ({ex.notes[0]}); p_win A {ex.p_win[0]:.6f}")
    print(f"  simulated, 50,000 fights: {ts:.2f} s; p_win A {si.p_win[0]:.6f} +/- {si.error:.4f}")
    ok = worst >= TARGET
    print(f"  {'OK' if ok else 'BELOW TARGET'}: worst simulation/engine ratio {worst:,.0f}x")
    print(
        f"TARGET | BLYSS fight simulation >= 50x the engine fight by fight | worst {worst:,.0f}x"
        f" | {worst / TARGET:.2f}x of target | holds {'yes' if ok else 'no'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
