"""`make bench`: the Kalyr fight forecast against the combat engine fight by fight (issue 10).

(a) simulation throughput: the vectorised simulator (numpy, all fights of a batch at once) against
    the engine playing the same contest fight by fight, for the same number of fights; fights per
    second per core for both, and the ratio (target >= 50x);
(b) the exact forecast (a Markov chain) of the same contest: its time, and its answer against the
    simulated one.

Single-threaded numpy (one core); under two minutes.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import time
from pathlib import Path

from storymaster.forecast import fight_by_fight
from storymaster.rules import load_model
from storymaster.systems.kalyr import SYSTEM
from storymaster.systems.kalyr.character import Character
from storymaster.systems.kalyr.forecast import exact_forecast, simulated_forecast

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "kalyr"
ENGINE_FIGHTS = 1_000
SIM_FIGHTS = 200_000


def _cpu(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def main() -> None:
    kylar, bandit = (load_model(EXAMPLES / f"{n}.yaml", Character) for n in ("kylar", "bandit"))
    guard = Character(name="Guard", abilities=[{"name": "Melee", "level": "Fair"}], weapon={"name": "knife"})
    E = SYSTEM.combat
    cases = {
        "detailed duel (Kylar vs bandit, aggressive +2)": E.start(
            [[kylar], [bandit]], options={"mode": "detailed", "tactics": [{}, {"approach": 2}]}
        ),
        "simple group 2 vs 1 (ties re-rolled)": E.start([[kylar, guard], [bandit]]),
    }
    print("Kalyr fight forecast: simulation vs the engine fight by fight (one core)")
    head = f"{'contest':48} {'engine f/s':>11} {'numpy f/s':>11} {'ratio':>8} {'exact s':>8}"
    print(head + "  p_win A: exact / simulated / engine")
    worst = float("inf")
    for name, state in cases.items():
        sides = [[f.name for f in s] for s in state.sides]
        eng, _, eng_cpu = _cpu(
            lambda state=state, sides=sides: fight_by_fight(
                "kalyr", E, state, samples=ENGINE_FIGHTS, seed=1, sides=sides
            )
        )
        simulated_forecast(state, samples=2_000, seed=0)  # warm up
        sim, _, sim_cpu = _cpu(lambda state=state: simulated_forecast(state, samples=SIM_FIGHTS, seed=2))
        ex, ex_wall, _ = _cpu(lambda state=state: exact_forecast(state))
        eng_rate, sim_rate = ENGINE_FIGHTS / eng_cpu, SIM_FIGHTS / sim_cpu
        ratio = sim_rate / eng_rate
        worst = min(worst, ratio)
        print(
            f"{name:48} {eng_rate:11,.0f} {sim_rate:11,.0f} {ratio:7.0f}x {ex_wall:8.3f}  "
            f"{ex.p_win[0]:.4f} / {sim.p_win[0]:.4f} +/- {sim.error:.4f} / {eng.p_win[0]:.3f}"
        )
    print(f"simulation vs engine: worst ratio {worst:.0f}x (target >= 50x): {'ok' if worst >= 50 else 'BELOW TARGET'}")
    print(
        f"TARGET | Kalyr fight simulation >= 50x the engine fight by fight (cpu) | worst {worst:,.0f}x"
        f" | {worst / 50:.2f}x of target | holds {'yes' if worst >= 50 else 'no'}"
    )


if __name__ == "__main__":
    main()
