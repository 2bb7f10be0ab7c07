"""`make bench`: the Philsys fight forecast against the fight engine, fight by fight.

Simulation throughput (numpy, many fights at once) against running the combat engine
one fight at a time for the same kind of fight; target >= 50x. Both run on one core
(numpy here does no multithreading), so fights/s is fights/s per core. Also the time of
the exact forecast of duels (the HP/MP/TP chain) and how many engine fights would match
its precision.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from storymaster.forecast import fight_by_fight
from storymaster.rules import load_model
from storymaster.systems.philsys import SYSTEM
from storymaster.systems.philsys.character import Character
from storymaster.systems.philsys.forecast import end_states

EX = Path(__file__).resolve().parents[1] / "examples" / "philsys"
ENGINE_FIGHTS = 400
SIM_FIGHTS = 200_000
TARGET = 50.0


def ch(name: str) -> Character:
    return load_model(EX / f"{name}.yaml", Character)


def sides_of(state) -> list[list[str]]:
    out: list[list[str]] = [[], []]
    for f in state.fighters:
        out[f.side].append(f.name)
    return out


def measure(label: str, state) -> float:
    t = time.perf_counter()
    eng = fight_by_fight(
        "philsys", SYSTEM.combat, state, samples=ENGINE_FIGHTS, sides=sides_of(state), end_state=end_states
    )
    t_eng = time.perf_counter() - t
    SYSTEM.forecast(state, method="simulate", samples=2_000, seed=1)  # warm caches (odds, dice tables)
    t = time.perf_counter()
    sim = SYSTEM.forecast(state, method="simulate", samples=SIM_FIGHTS, seed=1)
    t_sim = time.perf_counter() - t
    e_rate, s_rate = ENGINE_FIGHTS / t_eng, SIM_FIGHTS / t_sim
    ratio = s_rate / e_rate
    print(
        f"  {label:<34} engine {e_rate:>9,.0f} fights/s/core   simulation {s_rate:>11,.0f} fights/s/core"
        f"   {ratio:6.1f}x  (p_win A: engine {eng.p_win[0]:.3f}, simulated {sim.p_win[0]:.3f}, mean rounds "
        f"{eng.mean_rounds:.1f} / {sim.mean_rounds:.1f})"
    )
    return ratio


def main() -> int:
    print("Philsys fight forecast (issue 10)")
    print(
        f"simulation against the engine fight by fight ({ENGINE_FIGHTS} engine fights, {SIM_FIGHTS:,} "
        f"simulated; target >= {TARGET:.0f}x):"
    )
    ratios = [
        measure("duel: Brenna (tech) vs Guard", SYSTEM.combat.start([[ch("knight")], [ch("guard")]])),
        measure("duel: Guard vs Guard (melee)", SYSTEM.combat.start([[ch("guard")], [ch("guard")]])),
        measure(
            "2 vs 2: Aya, Chandler vs Guard, Brenna",
            SYSTEM.combat.start([[ch("aya"), ch("chandler")], [ch("guard"), ch("knight")]]),
        ),
    ]
    for label, sides in (
        ("Guard vs Guard, melee", [[ch("guard")], [ch("guard")]]),
        ("Brenna (tech) vs Guard", [[ch("knight")], [ch("guard")]]),
        ("Aya (spells) vs Brenna (tech)", [[ch("aya")], [ch("knight")]]),
    ):
        st = SYSTEM.combat.start(sides)
        t = time.perf_counter()
        f = SYSTEM.forecast(st, method="exact")
        t_exact = time.perf_counter() - t
        print(
            f"exact duel {label:<30} {t_exact * 1000:6.0f} ms  p_win A {f.p_win[0]:.12f}  unresolved {f.error:.1e}"
            f"  (the engine would need ~{0.25 / max(f.error, 1e-24) ** 2:.0e} fights to match)"
        )
    worst = min(ratios)
    print(f"worst simulation ratio {worst:.1f}x: {'PASS' if worst >= TARGET else 'FAIL'} (target {TARGET:.0f}x)")
    print(
        f"TARGET | Philsys fight simulation >= 50x the engine fight by fight | worst {worst:,.1f}x"
        f" | {worst / TARGET:.2f}x of target | holds {'yes' if worst >= TARGET else 'no'}"
    )
    return 0 if worst >= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
