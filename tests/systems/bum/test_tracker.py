"""The GM's fight tracker: Part Five's turn order, hit points and who is down."""

from __future__ import annotations

from systems.tracker_kit import check_rows, play

from storymaster.dice import DiceRng
from storymaster.rules import FightTracker
from storymaster.systems.bum import SYSTEM
from storymaster.systems.bum.character import hit_points
from storymaster.systems.bum.tracker import condition

ENGINE = SYSTEM.combat
EXPECTED = {"Player 1": 0, "Player 2": 0, "Thief": 1, "Victor Mordox": 1}


def start(card, **options):
    sides = [[card("player1"), card("player2")], [card("thief"), card("victor-mordox")]]
    return ENGINE.start(sides, options=options)


def test_the_engine_is_a_fight_tracker() -> None:
    assert isinstance(ENGINE, FightTracker)


def test_the_gms_order_is_known_before_round_1_and_kept(card) -> None:
    state = start(card, delay={"Player 1": "Thief"})
    before = ENGINE.initiative_order(state)
    assert sorted(before) == sorted(EXPECTED) and before.index("Player 1") == before.index("Thief") + 1
    rows = check_rows(ENGINE, state, EXPECTED)
    assert [r.name for r in rows if r.acting] == before[:1]
    state, _ = ENGINE.step(state, DiceRng("tracker", "bum"))
    assert ENGINE.initiative_order(state) == list(state.order) == before


def test_a_rolled_order_is_unknown_until_rolled(card) -> None:
    state = start(card, initiative="dex")
    assert ENGINE.initiative_order(state) == []
    assert all(r.position is None for r in check_rows(ENGINE, state, EXPECTED))
    state, _ = ENGINE.step(state, DiceRng("tracker", "bum"))
    assert ENGINE.initiative_order(state) == list(state.order) and len(state.order) == 4


def test_only_level_4_takes_turns(card) -> None:
    state = start(card, level=3)
    assert ENGINE.initiative_order(state) and not any(r.acting for r in ENGINE.tracker(state))


def test_hit_points_and_down_to_the_end(card) -> None:
    seen = play(ENGINE, start(card), DiceRng("tracker", "bum"), EXPECTED)
    final, rows = seen[-1]
    assert ENGINE.is_over(final)
    losers = [r for r in rows if r.side != ENGINE.winner(final)]
    assert losers and all(r.out and r.condition == "down" for r in losers)
    for st, rs in seen:
        for r in rs:
            f = st.fighter(r.name)
            assert r.details["hp"] == f"{f.hp}/{hit_points(f.character)}"
    assert len({r.condition for _, rs in seen for r in rs}) >= 2


def test_conditions_in_the_books_words(card) -> None:
    f = start(card).fighter("Victor Mordox")
    full = hit_points(f.character)
    assert condition(f.model_copy(update={"hp": full})) == "unhurt"
    assert condition(f.model_copy(update={"hp": 2})) == "2 HP left"
    assert condition(f.model_copy(update={"hp": 2, "stunned": 1})) == "2 HP left, stunned"
    assert condition(f.model_copy(update={"hp": 0})) == "down"
