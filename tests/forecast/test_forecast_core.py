"""The forecast core: the chain solver against closed forms, intervals, the simulation runner, the engine runner."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from storymaster.dice import DiceRng, roll
from storymaster.errors import OddsError
from storymaster.forecast import Batch, absorb, fight_by_fight, run_simulation, wilson_interval
from storymaster.forecast.markov import absorb_indexed
from storymaster.rules import Event, Model


def ruin(i: int, n: int, p: float) -> float:
    """Gambler's ruin: chance to reach n before 0 from i, stepping +1 with probability p."""
    if p == 0.5:
        return i / n
    r = (1 - p) / p
    return (1 - r**i) / (1 - r**n)


@given(st.integers(1, 9), st.sampled_from([0.3, 0.5, 0.55, 0.8]), st.sampled_from([0.0, 0.25]))
def test_chain_matches_gamblers_ruin(i: int, p: float, stay: float) -> None:
    n = 10
    step = lambda s: [(p * (1 - stay), s + 1), ((1 - p) * (1 - stay), s - 1), (stay, s)]  # noqa: E731
    result = absorb(i, step, lambda s: s in (0, n))
    assert result.unresolved < 1e-12
    assert result.terminal.get(n, 0.0) == pytest.approx(ruin(i, n, p), abs=1e-9)
    assert sum(result.rounds.values()) + result.unresolved == pytest.approx(1, abs=1e-12)


def test_round_cap_reports_the_unresolved_mass() -> None:
    step = lambda s: [(0.5, s + 1), (0.5, s - 1)]  # noqa: E731
    result = absorb(5, step, lambda s: s in (0, 10), max_rounds=3)
    assert result.unresolved == pytest.approx(1.0)  # cannot end in 3 steps from 5
    assert result.terminal == {}
    assert result.live == {2: 0.125, 4: 0.375, 6: 0.375, 8: 0.125}  # where the fight stands at the cap


def test_chain_refuses_bad_and_huge_chains() -> None:
    with pytest.raises(ValueError, match="sum to"):
        absorb(0, lambda s: [(0.5, s + 1)], lambda s: s > 3)
    with pytest.raises(OddsError, match="too big"):
        absorb(1, lambda s: [(0.5, 2 * s), (0.5, 2 * s + 1)], lambda s: False, max_rounds=10**6)  # doubles each round


def test_terminal_start() -> None:
    assert absorb(0, lambda s: [], lambda s: True).terminal == {0: 1.0}


def test_wilson_interval() -> None:
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0


def coin_batch(n: int, gen: np.random.Generator) -> Batch:
    winner = gen.integers(0, 2, size=n)
    winner[gen.random(n) < 0.1] = -1
    return Batch(winner, gen.integers(1, 4, size=n), {"Ann": np.where(winner == 0, 0, 1)}, ("standing", "down"))


def test_simulation_runner() -> None:
    seen: list[int] = []
    f = run_simulation(
        "coin",
        coin_batch,
        sides=[["Ann"], ["Bo"]],
        combatant_sides={"Ann": 0},
        samples=120_000,
        seed=5,
        chunk=50_000,
        progress=lambda done, total: seen.append(done),
    )
    assert seen == [50_000, 100_000, 120_000]
    assert f.p_win[0] + f.p_win[1] + f.p_draw == pytest.approx(1)
    for p, (lo, hi) in zip(f.p_win, f.intervals, strict=True):
        assert lo <= p <= hi and lo < 0.45 < hi
    assert sum(f.rounds.values()) == pytest.approx(1) and set(f.rounds) == {1, 2, 3}
    data = f.to_json()
    assert set(data["p_win"]) == {"A", "B"} and data["method"] == "simulated" and data["samples"] == 120_000
    again = run_simulation(
        "coin", coin_batch, sides=[["Ann"], ["Bo"]], combatant_sides={"Ann": 0}, samples=120_000, seed=5
    )
    assert again.p_win == f.p_win


def test_simulation_bounds() -> None:
    with pytest.raises(OddsError):
        run_simulation("coin", coin_batch, sides=[["A"], ["B"]], combatant_sides={}, samples=0)


# -- a toy duel: each round both swing (hit on 4+ of a d6), 2 hit points each, a double knock-out is a draw
class Duel(Model):
    hp: tuple[int, int] = (2, 2)
    round: int = 0


class DuelEngine:
    def start(self, sides, *, house_rules=None, options=None):
        return Duel()

    def step(self, state, rng):
        a, b = roll("d6", rng).total >= 4, roll("d6", rng).total >= 4
        hp = (state.hp[0] - b, state.hp[1] - a)
        return Duel(hp=hp, round=state.round + 1), [Event("round", f"{hp}")]

    def is_over(self, state):
        return min(state.hp) <= 0

    def winner(self, state):
        if state.hp[0] <= 0 and state.hp[1] <= 0:
            return None
        return 0 if state.hp[1] <= 0 else 1 if state.hp[0] <= 0 else None


def duel_step(s: tuple[int, int]):
    out = []
    for a in (0, 1):
        for b in (0, 1):
            out.append((0.25, (s[0] - b, s[1] - a)))
    return out


def test_engine_agrees_with_exact_chain() -> None:
    exact = absorb((2, 2), duel_step, lambda s: min(s) <= 0)
    p_a = sum(p for s, p in exact.terminal.items() if s[1] <= 0 < s[0])
    p_draw = sum(p for s, p in exact.terminal.items() if s[0] <= 0 and s[1] <= 0)
    assert p_a == pytest.approx(p_draw * 0 + (1 - p_draw) / 2)  # symmetric duel
    engine = DuelEngine()
    f = fight_by_fight(
        "toy",
        engine,
        engine.start([]),
        samples=3000,
        seed=1,
        sides=[["A"], ["B"]],
        end_state=lambda s: {"A": "down" if s.hp[0] <= 0 else "standing"},
    )
    lo, hi = f.intervals[0]
    assert lo <= p_a <= hi
    assert f.p_draw == pytest.approx(p_draw, abs=0.03)
    assert sum(f.combatants[0].end_states.values()) == pytest.approx(1)
    assert f.method == "engine" and sum(f.rounds.values()) == pytest.approx(1)


def test_engine_runner_is_reproducible() -> None:
    engine = DuelEngine()
    a = fight_by_fight("toy", engine, Duel(), samples=50, seed=3, sides=[["A"], ["B"]])
    b = fight_by_fight("toy", engine, Duel(), samples=50, seed=3, sides=[["A"], ["B"]])
    assert a == b
    assert DiceRng  # the engine runner draws from audited streams


@pytest.mark.parametrize("cap", [3, 10_000])
@pytest.mark.parametrize("start", [1, 5, 9])
def test_absorb_indexed_is_absorb_on_numbered_states(start: int, cap: int) -> None:
    """The numpy form for chains with numbered states (the BLYSS chain's) gives absorb's answer: gambler's ruin with
    a lazy step, to the round cap (the states still in play) and to the end (against the closed form)."""
    step = lambda s: [(0.55 * 0.75, s + 1), (0.45 * 0.75, s - 1), (0.25, s)]  # noqa: E731
    a = absorb(start, step, lambda s: s in (0, 10), max_rounds=cap)
    b = absorb_indexed(start, step, lambda s: s in (0, 10), max_rounds=cap)
    assert (
        b.terminal.keys() == a.terminal.keys() and b.rounds.keys() == a.rounds.keys() and b.live.keys() == a.live.keys()
    )
    for x, y in ((a.terminal, b.terminal), (a.rounds, b.rounds), (a.live, b.live)):
        assert all(abs(x[k] - y[k]) < 1e-14 for k in x)
    assert abs(a.unresolved - b.unresolved) < 1e-14 and a.states_seen == b.states_seen
    if cap > 100:
        assert b.terminal[10] == pytest.approx(ruin(start, 10, 0.55), abs=1e-9)
    with pytest.raises(ValueError, match="sum to"):
        absorb_indexed(0, lambda s: [(0.5, s + 1)], lambda s: s > 3)
    assert absorb_indexed(2, lambda s: [], lambda s: s == 2).terminal == {2: 1.0}
