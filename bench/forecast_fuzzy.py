"""`make bench`: Loose and Fuzzy fight forecasts against the combat engine, fight by fight.

(a) simulation throughput: the vectorised forecast against the engine playing the same fights one at
    a time (target >= 50x), in fights per second per core (both run in one process on one core);
(b) the exact duel forecast: its time, and the engine's time for enough fights to pin p_win to
    about +-1% (what a GM would otherwise have to run), with the two answers side by side.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from storymaster.forecast import fight_by_fight
from storymaster.rules import load_model
from storymaster.systems.fuzzy import SYSTEM
from storymaster.systems.fuzzy.character import FuzzyCharacter
from storymaster.systems.fuzzy.forecast import end_states, exact_forecast, simulate_forecast

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "fuzzy"
ENGINE_FIGHTS = 2_000
SIM_FIGHTS = 200_000


def character(name: str) -> FuzzyCharacter:
    return load_model(EXAMPLES / f"{name}.yaml", FuzzyCharacter)


def fights() -> dict[str, object]:
    a, s, d, r = (character(n) for n in ("achmed", "sven", "detritus", "rincewind"))
    return {
        "duel (Achmed v Sven)": SYSTEM.combat.start([[a], [s]]),
        "2 v 1 (Achmed, Sven v Detritus)": SYSTEM.combat.start([[a, s], [d]]),
        "2 v 2 (Achmed, Rincewind v Sven, Detritus)": SYSTEM.combat.start([[a, r], [s, d]]),
    }


def engine_rate(state, n: int) -> tuple[float, object]:
    sides = [[f.key for f in state.fighters if f.side == i] for i in (0, 1)]
    t = time.perf_counter()
    f = fight_by_fight("fuzzy", SYSTEM.combat, state, samples=n, seed="bench", sides=sides, end_state=end_states)
    return n / (time.perf_counter() - t), f


def sim_rate(state, n: int) -> tuple[float, object]:
    simulate_forecast(state, samples=2_000)  # warm the roll tables
    t = time.perf_counter()
    f = simulate_forecast(state, samples=n, seed=1)
    return n / (time.perf_counter() - t), f


def main() -> None:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print("Loose and Fuzzy forecast benchmarks (one process, one core; the machine has", cores, "cores)\n")
    print(
        f"(a) simulation vs the engine fight by fight -- target >= 50x ({SIM_FIGHTS:,} simulated, "
        f"{ENGINE_FIGHTS:,} engine fights)"
    )
    print(
        f"  {'fight':<44} {'engine fights/s':>16} {'simulated fights/s':>19} {'ratio':>8}   p_win A (engine / "
        "simulated)"
    )
    ok = True
    worst = float("inf")
    for name, state in fights().items():
        e_rate, e = engine_rate(state, ENGINE_FIGHTS)
        s_rate, s = sim_rate(state, SIM_FIGHTS)
        ratio = s_rate / e_rate
        ok &= ratio >= 50
        worst = min(worst, ratio)
        print(f"  {name:<44} {e_rate:>16,.0f} {s_rate:>19,.0f} {ratio:>7.0f}x   {e.p_win[0]:.3f} / {s.p_win[0]:.3f}")
    print("\n(b) exact duel forecast vs the engine pinning p_win to about +-1% (10,000 fights)")
    state = fights()["duel (Achmed v Sven)"]
    t = time.perf_counter()
    ex = exact_forecast(state)
    t_exact = time.perf_counter() - t
    e_rate, e = engine_rate(state, ENGINE_FIGHTS)
    t_engine = 10_000 / e_rate
    print(
        f"  exact: p_win A {ex.p_win[0]:.6f} (error bound {ex.error:.1e}) in {t_exact:.2f}s;"
        f" engine: {e.p_win[0]:.3f} from {ENGINE_FIGHTS:,} fights, 10,000 fights take {t_engine:.1f}s;"
        f" ratio {t_engine / t_exact:.1f}x"
    )
    print("\n  simulation target met" if ok else "\n  SIMULATION TARGET MISSED")
    print(
        f"TARGET | Fuzzy fight simulation >= 50x the engine fight by fight | worst {worst:,.0f}x"
        f" | {worst / 50:.2f}x of target | holds {'yes' if ok else 'no'}"
    )


if __name__ == "__main__":
    main()
