"""The GM's fight tracker: wounds, Advantage Points and who is up; a fight has no acting order."""

from __future__ import annotations

from fuzzy_helpers import EXAMPLES
from systems.tracker_kit import check_rows, play

from storymaster.dice import DiceRng
from storymaster.rules import FightTracker, load_model
from storymaster.systems.fuzzy.character import FuzzyCharacter
from storymaster.systems.fuzzy.combat import Pool, Wound
from storymaster.systems.fuzzy.system import SYSTEM
from storymaster.systems.fuzzy.tracker import condition

ENGINE = SYSTEM.combat
EXPECTED = {"Sven": 0, "Achmed": 0, "Detritus": 1}


def load(name: str) -> FuzzyCharacter:
    return load_model(EXAMPLES / f"{name}.yaml", FuzzyCharacter)


def start():
    return ENGINE.start([[load("sven"), load("achmed")], [load("detritus")]])


def test_the_engine_is_a_fight_tracker() -> None:
    assert isinstance(ENGINE, FightTracker)


def test_wounds_and_advantage_to_the_end() -> None:
    state = start()
    assert all(r.condition == "unhurt" for r in check_rows(ENGINE, state, EXPECTED))
    seen = play(ENGINE, state, DiceRng("tracker", "fuzzy"), EXPECTED, rounds=200)
    final, rows = seen[-1]
    assert ENGINE.is_over(final)
    for st, rs in seen:
        assert ENGINE.initiative_order(st) == []
        assert all(r.position is None and not r.acting for r in rs)
        for r in rs:
            held = sum(p.points for p in st.pools if p.holder == r.name)
            assert r.details["advantage_points"] == held
    if final.winner is not None:
        losers = [r for r in rows if r.side != final.winner]
        assert all(r.out and r.condition != "unhurt" for r in losers)
    assert len({r.condition for _, rs in seen for r in rs}) >= 2


def test_conditions_in_the_books_words() -> None:
    state = start()
    f = state.fighter("Sven")
    hurt = f.model_copy(
        update={
            "wounds": (Wound(level="moderate", by="Detritus", round=1), Wound(level="serious", by="Detritus", round=2))
        }
    )
    assert condition(f) == "unhurt"
    assert condition(hurt) == "seriously wounded"
    assert (
        condition(f.model_copy(update={"wounds": (Wound(level="moderate", by="x", round=1, lethal=False),)}))
        == "moderately wounded (non-lethal)"
    )
    assert condition(hurt.model_copy(update={"status": "incapacitated"})) == "incapacitated"
    assert condition(f.model_copy(update={"status": "unconscious", "dying": True})) == "unconscious, dying"
    assert condition(f.model_copy(update={"status": "unconscious", "knocked_out": True})) == "knocked out"
    assert condition(f.model_copy(update={"status": "dead"})) == "dead"
    st = state.model_copy(
        update={"fighters": (hurt, *state.fighters[1:]), "pools": (Pool(holder="Sven", against="Detritus", points=3),)}
    )
    row = next(r for r in ENGINE.tracker(st) if r.name == "Sven")
    assert row.details["dice_penalty"] == -2 and row.details["wounds"] == "moderate, serious"
    assert row.details["advantage_points"] == 3 and row.details["advantage"] == "3 against Detritus"
