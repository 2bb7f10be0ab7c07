"""The round stated once (rounds.next_state): driven by a scripted chance, enumerated by branches."""

from __future__ import annotations

from fractions import Fraction

import pytest

from storymaster.forecast.chance import Scripted, branches
from storymaster.systems.bum import SYSTEM, BumCharacter
from storymaster.systems.bum.checks import p_opposed_final
from storymaster.systems.bum.rounds import Roll, Setup, _play, next_state

engine = SYSTEM.combat


def fighter(name: str, strength: int, weapon: str = "Sword") -> BumCharacter:
    stats = {"STR": strength, "DEX": 2, "INT": 2, "SOC": 2}
    return BumCharacter(name=name, npc=True, stats=stats, weapons={"primary": {"name": weapon}})


def test_level3_exchange_loser_loses_one_hit_point():
    """Part Five, Level 3: one opposed roll for the pair; the loser loses a hit point (A starts: GM order)."""
    s = engine.start([[fighter("A", 3)], [fighter("B", 4)]], options={"level": 3})
    setup, x = Setup.of(s), Setup.of(s).state(s)
    won = next_state(setup, x, Scripted([Roll(True)], narrate=False))
    lost = next_state(setup, x, Scripted([Roll(False)], narrate=False))
    assert won[4] == (3, 3) and lost[4] == (2, 4)  # hit points after the round
    assert won[0] == 1 and won[2] == (0, 1)  # one round played, the turn order fixed


def test_no_log_while_enumerating():
    s = engine.start([[fighter("A", 3)], [fighter("B", 4)]], options={"level": 4})
    events: list = []
    _play(Setup.of(s), Setup.of(s).state(s), Scripted([Roll(False), Roll(False)], narrate=False), events)
    assert events == []


def test_branches_of_a_level3_round_are_the_exchange_odds():
    """The chain's transition from a level-3 state: B loses with the chance A's total wins (ties rolled again):
    STR 3 against STR 4 with swords, a difference of -1: A wins 10 of the 36 face pairs (his die at least 2 above
    B's) and ties 5 (exactly 1 above), so 10 / (36 - 5)."""
    s = engine.start([[fighter("A", 3)], [fighter("B", 4)]], options={"level": 3})
    setup = Setup.of(s)
    out = {y[4]: p for p, y in branches(lambda ch: next_state(setup, setup.state(s), ch))}
    assert Fraction(10, 31) == p_opposed_final(-1, 0, None)
    assert out == {(3, 3): pytest.approx(10 / 31), (2, 4): pytest.approx(21 / 31)}
