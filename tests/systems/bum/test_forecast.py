"""The exact Markov forecast of level 3 and 4 duels agrees with the engine and with hand sums."""

from __future__ import annotations

from fractions import Fraction

import pytest

from storymaster.dice import DiceRng
from storymaster.errors import OddsError
from storymaster.systems.bum import SYSTEM, BumHouseRules
from storymaster.systems.bum.combat import attack_odds
from storymaster.systems.bum.forecast import duel_chain, round_transitions, win_probability

engine = SYSTEM.combat


def _simulate(start, n, seed):
    rng = DiceRng(seed)
    wins = 0
    for _ in range(n):
        end, _ = engine.run(start, rng)
        wins += engine.winner(end) == 0
    return wins / n


def test_level3_one_hp_each_is_one_exchange(card):
    p1, thief = card("player1"), card("thief")
    s = engine.start([[p1], [thief]], options={"level": 3})
    s = s.model_copy(update={"fighters": tuple(f.model_copy(update={"hp": 1}) for f in s.fighters)})
    w = sum(1 for x in range(1, 7) for y in range(1, 7) if x + 7 > y + 4)
    t = sum(1 for x in range(1, 7) for y in range(1, 7) if x + 7 == y + 4)
    assert win_probability(s) == Fraction(w, 36 - t)


def test_level4_transitions_sum_to_one_and_hand_check(card):
    v, p1 = card("victor-mordox"), card("player1")
    s = engine.start([[v], [p1]], options={"tactics": {"Victor Mordox": "melee"}})
    chain = duel_chain(s)
    assert chain.p_hit == (attack_odds(7, 6), attack_odds(7, 6))
    trans = round_transitions(chain, (3, 3))
    assert sum(trans.values()) == 1 and len(trans) == 4
    pa = chain.p_hit[chain.first]
    last = round_transitions(chain, (1, 1))
    assert last[(1, 0) if chain.first == 0 else (0, 1)] == pa


@pytest.mark.parametrize("level", [3, 4])
def test_forecast_agrees_with_engine(card, level):
    v, thief = card("victor-mordox"), card("player1")
    start = engine.start(
        [[v], [thief]], options={"level": level, "max_rounds": 10_000, "tactics": {"Victor Mordox": "melee"}}
    )
    exact = float(win_probability(start))
    n = 500
    freq = _simulate(start, n, f"forecast-{level}")
    sd = (exact * (1 - exact) / n) ** 0.5
    assert abs(freq - exact) < 4 * sd


def test_forecast_scope(card):
    v, p1, t = card("victor-mordox"), card("player1"), card("thief")
    with pytest.raises(OddsError, match="shoot his Heavy Crossbow"):
        win_probability(engine.start([[v], [p1]]))  # Victor's opening crossbow shot is not in the chain
    with pytest.raises(OddsError):
        win_probability(engine.start([[v], [p1, t]]))
    with pytest.raises(OddsError):
        win_probability(engine.start([[v], [p1]], options={"level": 2}))
    with pytest.raises(OddsError):
        win_probability(engine.start([[v], [p1]], options={"distance": 2}))
    with pytest.raises(OddsError):
        win_probability(engine.start([[v], [p1]], house_rules=BumHouseRules(longspear_first_strike=True)))
