"""The GM's fight tracker: the Turn Sequence, HP/MP/TP and critical health, unconscious, dead."""

from __future__ import annotations

from philsys_helpers import example
from systems.tracker_kit import check_rows, play

from storymaster.dice import DiceRng
from storymaster.rules import FightTracker
from storymaster.systems.philsys import SYSTEM
from storymaster.systems.philsys.character import hp_max
from storymaster.systems.philsys.options import PhilsysHouseRules
from storymaster.systems.philsys.tracker import condition

ENGINE = SYSTEM.combat


def start():
    sides = [[example("knight")], [example("guard"), example("guard")]]
    state = ENGINE.start(sides)
    return state, {"Brenna": 0, "Guard": 1, "Guard #2": 1}


def test_the_engine_is_a_fight_tracker() -> None:
    assert isinstance(ENGINE, FightTracker)


def test_order_is_the_engines_turn_sequence() -> None:
    state, expected = start()
    assert ENGINE.initiative_order(state) == []
    assert all(r.position is None and not r.acting for r in check_rows(ENGINE, state, expected))
    state, _ = ENGINE.step(state, DiceRng("tracker", "philsys"))
    order = ENGINE.initiative_order(state)
    assert order == [state.fighters[i].name for i in state.order] and sorted(order) == sorted(expected)
    rows = check_rows(ENGINE, state, expected)
    if not ENGINE.is_over(state):
        first = next(state.fighters[i].name for i in state.order if state.fighters[i].active)
        assert [r.name for r in rows if r.acting] == [first]
    for r in rows:
        f = next(f for f in state.fighters if f.name == r.name)
        assert r.details["hp"] == f"{f.hp}/{hp_max(f.character)}" and r.details["initiative"] == f.initiative


def test_conditions_follow_the_wounds_to_the_end() -> None:
    state, expected = start()
    seen = play(ENGINE, state, DiceRng("tracker", "philsys"), expected)
    final, rows = seen[-1]
    assert ENGINE.is_over(final)
    losers = [r for r in rows if r.side != final.winner]
    assert losers and all(r.out and r.condition in ("dead", "unconscious") for r in losers)
    assert seen[0][1][0].condition == "healthy"
    assert len({r.condition for _, rs in seen for r in rs}) >= 2


def test_conditions_in_the_books_words() -> None:
    state, _ = start()
    hr = PhilsysHouseRules()
    f = state.fighters[0]
    assert condition(f, hr) == "healthy"
    assert condition(f.model_copy(update={"hp": 12}), hr) == "critical health (-3/-3)"
    assert condition(f.model_copy(update={"hp": 12, "heavy_wound": True}), hr) == "critical health (-3/-3), heavy wound"
    assert condition(f.model_copy(update={"hp": -3, "unconscious": True}), hr) == "unconscious"
    assert (
        condition(f.model_copy(update={"hp": -3, "unconscious": True}), PhilsysHouseRules(bleeding=True))
        == "unconscious, bleeding"
    )
    assert condition(f.model_copy(update={"hp": -12, "unconscious": True, "dead": True}), hr) == "dead"
