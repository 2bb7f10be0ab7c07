"""`make bench`: B.U.M. fight forecasts measured against their peers, as ratios.

(a) The exact forecast of level-3 duels (the whole ``SYSTEM.forecast(state, method="exact")`` call,
    which answers a plain level 2-3 duel in closed form, and the general absorbing Markov chain on
    the same duel) against icepool's own Markov-chain solution of the same duel
    (``Die.map(step, repeat='inf')`` on a die over the duel's hit-point states): the same end
    distribution to 1e-6, and the time of each. Target: >= 100x faster.
(b) The vectorised simulation against the combat engine run fight by fight, for the same number
    of fights from the same state. Target: >= 50x. Both run on one core (numpy's element-wise work
    is single-threaded; BLAS threads are pinned to 1 below).

Times are process (CPU) times, best of several runs, so a busy shared machine does not skew the
ratios; fights/s are fights per CPU second, i.e. per core.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import sys
import time
import timeit
from pathlib import Path

import icepool

from storymaster.forecast import fight_by_fight
from storymaster.rules import load_model
from storymaster.systems.bum import SYSTEM, BumCharacter
from storymaster.systems.bum.combat import exchange_odds
from storymaster.systems.bum.forecast import _exact

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "examples" / "bum"
engine = SYSTEM.combat
N_FIGHTS = int(os.environ.get("BENCH_FIGHTS", "10000"))


def card(name: str) -> BumCharacter:
    return load_model(EX / f"{name}.yaml", BumCharacter)


def npc(name: str, strength: int, weapon: str, dex: int = 2) -> BumCharacter:
    return BumCharacter(
        name=name,
        npc=True,
        stats={"STR": strength, "DEX": dex, "INT": 1, "SOC": 1},
        weapons={"primary": {"name": weapon}},
    )


def best(fn, number: int, repeat: int = 5) -> float:
    """Best CPU time per call (process time: what the work costs one core, whatever else the machine runs)."""
    return min(timeit.Timer(fn, timer=time.process_time).repeat(number=number, repeat=repeat)) / number


def icepool_duel(a: BumCharacter, b: BumCharacter, hp: tuple[int, int]):
    """icepool's own solution: a die over (hp a, hp b); each step one exchange (ties re-rolled) until one is out."""
    p = exchange_odds(a, b)  # a Fraction: icepool works in exact integer weights
    win, lose = p.numerator, p.denominator - p.numerator

    def step(x: int, y: int):
        if x == 0 or y == 0:
            return icepool.Vector((x, y))
        return icepool.Die({icepool.Vector((x, y - 1)): win, icepool.Vector((x - 1, y)): lose})

    start = icepool.Die([icepool.Vector(hp)])
    return lambda: start.map(step, star=True, repeat="inf")


def bench_exact() -> list[tuple[str, float, float, float]]:
    duels = [
        ("Victor Mordox vs Player 1 (3 HP each)", card("victor-mordox"), card("player1")),
        ("two STR-4 swordsmen (4 HP each)", npc("Ser Anna", 4, "Sword", 3), npc("Ser Bors", 4, "Sword")),
        ("the STR-6 bear vs a STR-4 hero", npc("Bear", 6, "Club", 1), npc("Hero", 4, "Longsword", 3)),
        ("two STR-8 ogres (8 HP each)", npc("Ogre", 8, "Club", 1), npc("Ogress", 8, "Mace", 2)),
    ]
    rows = []
    for label, a, b in duels:
        state = engine.start([[a], [b]], options={"level": 3, "max_rounds": 10_000})
        ours = SYSTEM.forecast(state, method="exact")
        theirs_fn = icepool_duel(a, b, (state.fighters[0].hp, state.fighters[1].hp))
        die = theirs_fn()
        total = die.denominator()
        # compare the whole end distribution: each fighter's chance to end with each number of hit points
        diff = 0.0
        for k in (0, 1):
            full = state.fighters[k].hp
            ends = ours.combatants[k].end_states
            for h in range(full + 1):
                theirs = sum(q for o, q in die.items() if o[k] == h) / total
                mine = sum(v for name, v in ends.items() if _hp_of(name, full) == h)
                diff = max(diff, abs(mine - theirs))
        p_icepool = sum(q for o, q in die.items() if o[1] == 0) / total
        diff = max(diff, abs(ours.p_win[0] - p_icepool))
        chain = _exact(state, closed_form=False)  # the same duel through the general Markov chain (absorb)
        diff = max(diff, abs(chain.p_win[0] - p_icepool))
        # interleaved, best of each: the machine may be shared
        t_ours, t_chain, t_theirs = float("inf"), float("inf"), float("inf")
        for _ in range(3):
            t_ours = min(t_ours, best(lambda state=state: SYSTEM.forecast(state, method="exact"), 200, repeat=3))
            t_chain = min(t_chain, best(lambda state=state: _exact(state, closed_form=False), 50, repeat=3))
            t_theirs = min(t_theirs, best(theirs_fn, 1, repeat=2))
        rows.append((label, t_ours, t_chain, t_theirs, diff))
    return rows


def _hp_of(label: str, full: int) -> int:
    if label.startswith("down"):
        return 0
    if label == "unhurt":
        return full
    return int(label.split()[0])


def bench_simulation() -> list[tuple[str, float, float, float, float]]:
    v, p1, thief = card("victor-mordox"), card("player1"), card("thief")
    scenarios = [
        ("level-4 duel, Victor's crossbow opens", [[v], [p1]], {}),
        (
            "Victor vs two thieves, 3 turns apart, DEX initiative",
            [[v], [thief, thief]],
            {"distance": 3, "initiative": "dex"},
        ),
    ]
    rows = []
    for label, sides, opts in scenarios:
        state = engine.start(sides, options=opts)
        names = [[f.name for f in state.fighters if f.side == s] for s in range(2)]
        SYSTEM.forecast(state, method="simulate", samples=1000)  # warm up
        t0 = time.process_time()
        sim = SYSTEM.forecast(state, method="simulate", samples=N_FIGHTS, seed=1)
        t_sim = time.process_time() - t0
        t0 = time.process_time()
        ref = fight_by_fight("bum", engine, state, samples=N_FIGHTS, seed=1, sides=names)
        t_eng = time.process_time() - t0
        rows.append((label, N_FIGHTS / t_sim, N_FIGHTS / t_eng, sim.p_win[0], ref.p_win[0]))
    return rows


def main() -> int:
    print("B.U.M. forecast benchmark (one core)")
    print()
    print("(a) exact level-3 duel: SYSTEM.forecast(state, method='exact') (closed form for a plain duel) and the")
    print("    general Markov chain (absorb) on the same duel, vs icepool map(step, repeat='inf'); target >= 100x")
    failed = False
    worst_exact, worst_sim, exact_ok, sim_ok = float("inf"), float("inf"), True, True
    for label, ours, chain, theirs, diff in bench_exact():
        ratio = theirs / ours
        ok = diff <= 1e-6 and ratio >= 100
        failed |= not ok
        worst_exact, exact_ok = min(worst_exact, ratio), exact_ok and ok
        print(
            f"  {label:38s} forecast {ours * 1e6:7.1f} us {ratio:6.0f}x | chain {chain * 1e6:7.1f} us "
            f"{theirs / chain:5.0f}x | icepool {theirs * 1e3:7.2f} ms | max |diff| {diff:.1e}  "
            f"{'ok' if ok else 'BELOW TARGET'}"
        )
    print()
    print(f"(b) simulation vs the engine fight by fight, {N_FIGHTS:,} fights each")
    for label, sim_rate, eng_rate, p_sim, p_eng in bench_simulation():
        ratio = sim_rate / eng_rate
        ok = ratio >= 50
        failed |= not ok
        worst_sim, sim_ok = min(worst_sim, ratio), sim_ok and ok
        print(
            f"  {label:55s} simulation {sim_rate:10,.0f} fights/s/core   engine {eng_rate:7,.0f} fights/s/core   "
            f"{ratio:5.0f}x   p_win A {p_sim:.3f} vs {p_eng:.3f}   {'ok' if ok else 'BELOW TARGET'}"
        )
    print(
        f"TARGET | B.U.M. exact duel forecast >= 100x icepool (and equal to 1e-6) | worst {worst_exact:,.0f}x"
        f" | {worst_exact / 100:.2f}x of target | holds {'yes' if exact_ok else 'no'}"
    )
    print(
        f"TARGET | B.U.M. fight simulation >= 50x the engine fight by fight | worst {worst_sim:,.0f}x"
        f" | {worst_sim / 50:.2f}x of target | holds {'yes' if sim_ok else 'no'}"
    )
    return 1 if failed and os.environ.get("BENCH_STRICT") else 0


if __name__ == "__main__":
    sys.exit(main())
