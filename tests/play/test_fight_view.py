"""The table's view of a fight: the engine's own acting order and tracker rows when it is a FightTracker."""

from __future__ import annotations

from pathlib import Path

from play.tally import Fight, Fighter, TallyCombat, TrackedTallyCombat

from storymaster.dice import DiceRng
from storymaster.play.combat import initiative_order, tracker_rows
from storymaster.rules import FightTracker, load_model
from storymaster.systems.philsys import SYSTEM as PHILSYS

NAMES = {1: "Arn", 2: "Bel", 3: "The Innkeeper"}
SIDES = [[1, 2], [3]]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def fight(arn: int = 6, bel: int = 6, inn: int = 6) -> Fight:
    sides = [[Fighter(name="Arn", hp=arn), Fighter(name="Bel", hp=bel)], [Fighter(name="The Innkeeper", hp=inn)]]
    return Fight(sides=sides, initiative_order=["The Innkeeper", "Bel", "Arn"])


def test_a_fight_tracker_gives_the_order_not_the_state_field() -> None:
    engine = TrackedTallyCombat()
    assert isinstance(engine, FightTracker) and not isinstance(TallyCombat(), FightTracker)
    assert initiative_order(fight(), SIDES, NAMES, engine) == [1, 2, 3]
    assert initiative_order(fight(arn=2), SIDES, NAMES, engine) == [2, 3, 1]
    assert initiative_order(fight(), SIDES, NAMES) == [3, 2, 1]  # no engine: the old guess from the field
    assert initiative_order(fight(), SIDES, NAMES, TallyCombat()) == [3, 2, 1]


def test_tracker_rows_as_json_with_character_ids() -> None:
    rows = tracker_rows(fight(bel=0), SIDES, NAMES, TrackedTallyCombat())
    assert [(r["name"], r["character"], r["side"], r["position"]) for r in rows] == [
        ("Arn", 1, 0, 0),
        ("Bel", 2, 0, 2),
        ("The Innkeeper", 3, 1, 1),
    ]
    assert (
        rows[0]["acting"] and rows[1]["out"] and rows[1]["condition"] == "down" and rows[2]["details"] == {"hp": "6/6"}
    )
    assert tracker_rows(fight(), SIDES, NAMES, TallyCombat()) == []


def test_namesakes_the_engine_numbers_map_to_their_own_characters() -> None:
    guard = load_model(EXAMPLES / "philsys" / "guard.yaml", PHILSYS.character_model)
    knight = load_model(EXAMPLES / "philsys" / "knight.yaml", PHILSYS.character_model)
    names = {10: "Brenna", 11: "Guard", 12: "Guard"}
    sides = [[10], [11, 12]]
    state = PHILSYS.combat.start([[knight], [guard, guard]])
    state, _ = PHILSYS.combat.step(state, DiceRng("view", "philsys"))
    by_name = {"Brenna": 10, "Guard": 11, "Guard #2": 12}
    assert initiative_order(state, sides, names, PHILSYS.combat) == [
        by_name[n] for n in PHILSYS.combat.initiative_order(state)
    ]
    rows = tracker_rows(state, sides, names, PHILSYS.combat)
    assert {r["name"]: r["character"] for r in rows} == by_name


def test_simultaneous_rounds_give_no_acting_order_and_posting_order_keeps_the_cast() -> None:
    """Loose and Fuzzy rolls both sides at once: no one 'acts next', and no one is left out of the posting turn."""
    from storymaster.play.scene import SceneState
    from storymaster.systems.fuzzy import SYSTEM as FUZZY

    achmed = load_model(EXAMPLES / "fuzzy" / "achmed.yaml", FUZZY.character_model)
    sven = load_model(EXAMPLES / "fuzzy" / "sven.yaml", FUZZY.character_model)
    state = FUZZY.combat.start([[achmed], [sven]])
    state, _ = FUZZY.combat.step(state, DiceRng("view", "fuzzy"))
    assert FUZZY.combat.initiative_order(state) == []
    assert initiative_order(state, [[20], [21]], {20: "Achmed", 21: "Sven"}, FUZZY.combat) == []
    assert initiative_order(fight(), SIDES, NAMES) == [3, 2, 1]  # a partial or full order is kept as given
    assert SceneState(id=1, cast=[20, 21], combat={"order": []}).turn_order() == [20, 21]
    assert SceneState(id=1, cast=[20, 21], combat={"order": [21]}).turn_order() == [21, 20]
