"""The GM's fight tracker: damage tracks in the book's words; a contest has no acting order."""

from __future__ import annotations

import pytest
from systems.tracker_kit import check_rows, play

from storymaster.dice import DiceRng
from storymaster.rules import FightTracker
from storymaster.systems.kalyr import SYSTEM
from storymaster.systems.kalyr.damage import take_wound
from storymaster.systems.kalyr.fight_state import Tactics
from storymaster.systems.kalyr.tracker import condition

ENGINE = SYSTEM.combat


def test_the_engine_is_a_fight_tracker() -> None:
    assert isinstance(ENGINE, FightTracker)


@pytest.mark.parametrize("mode", ["simple", "detailed"])
def test_tracks_fill_until_someone_is_defeated(example, mode) -> None:
    sides = [[example("kylar")], [example("bandit")]]
    state = ENGINE.start(sides, options={"mode": mode, "on_tie": "reroll"})
    expected = {"Kylar": 0, "Bandit heavy": 1}
    rows = check_rows(ENGINE, state, expected)
    assert [r.condition for r in rows] == ["Unhurt (physical)", "Unhurt (physical)"]
    seen = play(ENGINE, state, DiceRng("tracker", "kalyr"), expected, rounds=200)
    final, rows = seen[-1]
    assert ENGINE.is_over(final)
    for st, rs in seen:
        assert ENGINE.initiative_order(st) == []
        assert all(r.position is None and not r.acting for r in rs)
    if final.winner is not None:
        loser = next(r for r in rows if r.side != final.winner)
        assert loser.out and loser.condition in ("Defeated (physical)", "Destroyed (physical)", "withdrew")
    assert len({r.condition for _, rs in seen for r in rs}) >= 2


def test_a_group_contest_lists_every_fighter(example) -> None:
    sides = [[example("kylar"), example("karela")], [example("bandit")]]
    state = ENGINE.start(sides)
    play(ENGINE, state, DiceRng("tracker", "kalyr-group"), {"Kylar": 0, "Karela": 0, "Bandit heavy": 1}, rounds=50)


def test_conditions_in_the_books_words(example) -> None:
    state = ENGINE.start(
        [[example("kylar")], [example("bandit")]], options={"mode": "detailed", "tactics": [{}, Tactics(withdraw_at=3)]}
    )
    f = state.sides[0][0]
    assert condition(f, "physical") == "Unhurt (physical)"
    assert condition(f.model_copy(update={"withdrawn": True}), "physical") == "withdrew"
    hurt, _ = take_wound(f.character, "mental", 2, advancement=False)
    g = f.model_copy(update={"character": hurt})
    assert condition(g, "mental") == "Hurt (mental)" and condition(g, "physical") == "Unhurt (physical)"
    row = next(
        r for r in ENGINE.tracker(state.model_copy(update={"sides": ((g,), state.sides[1])})) if r.name == "Kylar"
    )
    assert row.details["mental"] == "Hurt" and row.details["physical"] == "Unhurt"
