"""The GM's fight tracker: Initiative order, Wound Levels and what is left of each fighter."""

from __future__ import annotations

from pathlib import Path

from systems.tracker_kit import check_rows, play

from storymaster.dice import DiceRng
from storymaster.rules import FightTracker, load_model
from storymaster.systems.blyss.character import Character
from storymaster.systems.blyss.combat import BlyssCombat
from storymaster.systems.blyss.living import Vitals
from storymaster.systems.blyss.options import BlyssHouseRules
from storymaster.systems.blyss.tracker import condition

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "blyss"


class _CodeBuiltEngine(BlyssCombat):
    """The engine, for stat blocks built in code to exercise one rule: the SM allows characters that the
    creation rules would refuse (a fight refuses illegal characters otherwise; see test_combat.py)."""

    def start(self, sides, *, house_rules=None, options=None):  # type: ignore[override]
        return super().start(sides, house_rules=house_rules, options={"allow_illegal": True, **dict(options or {})})


ENGINE = _CodeBuiltEngine()


def load(name: str) -> Character:
    return load_model(EXAMPLES / f"{name}.yaml", Character)


def start():
    sides = [[load("warrior")], [load("rogue"), load("expert")]]
    state = ENGINE.start(sides)
    return state, {c.name: i for i, side in enumerate(sides) for c in side}


def test_the_engine_is_a_fight_tracker() -> None:
    assert isinstance(ENGINE, FightTracker)


def test_no_order_before_initiative_then_the_engines_own() -> None:
    state, expected = start()
    assert ENGINE.initiative_order(state) == []
    rows = check_rows(ENGINE, state, expected)
    assert all(r.position is None and not r.acting and r.condition == "Healthy" for r in rows)
    state, _ = ENGINE.step(state, DiceRng("tracker", "blyss"))
    order = ENGINE.initiative_order(state)
    # the acting order: the Action Round follows the Declaration Round, slowest first (Initiative reversed)
    assert order == list(state.order)[::-1] and sorted(order) == sorted(expected)
    rows = check_rows(ENGINE, state, expected)
    acting = [r.name for r in rows if r.acting]
    assert acting == [next(n for n in order if state.get(n).active)]


def test_conditions_follow_the_wounds_to_the_end() -> None:
    state, expected = start()
    seen = play(ENGINE, state, DiceRng("tracker", "blyss"), expected)
    final, rows = seen[-1]
    assert ENGINE.is_over(final)
    losers = [r for r in rows if r.side != final.winner]
    assert losers and all(r.out for r in losers)
    assert all(r.condition in ("Dead", "Coma", "Dying", "Unconscious", "Unconscious (stabilised)") for r in losers)
    for st, rs in seen:
        for r in rs:
            v = st.get(r.name).vitals
            assert r.details["health"] == f"{v.health}/{v.max_health}"
            assert r.details["dodges"] == f"{v.dodges}/{v.max_dodges}"
    assert len({r.condition for _, rs in seen for r in rs}) >= 2


def test_conditions_in_the_books_words() -> None:
    v = Vitals.fresh(4, 3, 18)
    assert condition(v) == "Healthy"
    assert condition(v.model_copy(update={"dodges": 0, "flesh_wounds": 1})) == "Flesh Wounds"
    assert condition(v.model_copy(update={"dodges": 0, "flesh_wounds": 0, "health": 12})) == "Light Wounds"
    assert condition(v.model_copy(update={"health": 0, "unconscious": True})) == "Unconscious"
    assert condition(v.model_copy(update={"health": -2, "unconscious": True, "dying": True})) == "Dying"
    assert condition(v.model_copy(update={"health": -2, "unconscious": True, "dead": True})) == "Dead"


def test_no_one_is_known_to_open_a_re_rolled_round() -> None:
    sides = [[load("warrior")], [load("rogue")]]
    state = ENGINE.start(sides, house_rules=BlyssHouseRules(reroll_initiative_each_round=True))
    state, _ = ENGINE.step(state, DiceRng("tracker", "blyss"))
    rows = check_rows(ENGINE, state, {"Yama Wolfclaw": 0, "Ralan Kal'vhet": 1})
    assert not any(r.acting for r in rows) and all(r.position is not None for r in rows)
