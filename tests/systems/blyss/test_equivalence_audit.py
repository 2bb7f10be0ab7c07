"""Mutants an audit of tools/mutation-equivalent.txt found NOT equivalent (notes/round-3/audit-fix.md): each test
tells one of them from the original, on input the models, the public functions or the command line accept. The
expected values are the book's (Combat Mechanics) or worked by hand in the docstrings, never the program's output.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from blyss_helpers import ENG

from storymaster.cli.systems.blyss import _retactic
from storymaster.systems.blyss import SYSTEM
from storymaster.systems.blyss.character import Attributes, Character, Trait, Weapon
from storymaster.systems.blyss.checks import Pool
from storymaster.systems.blyss.combat import FightState
from storymaster.systems.blyss.dicepool import CRITICAL_SCREW_UP, FAILURE, SCREW_UP, SUCCESS
from storymaster.systems.blyss.forecast import simulate_batch
from storymaster.systems.blyss.options import BlyssHouseRules
from storymaster.systems.blyss.round import InitiativeRoll, Judged, Order, Roster, from_state, play_round, to_state
from storymaster.systems.blyss.vectorised import END_STATES, screw_up_weapon_v

FAIL = Judged("failure")


def brute(name: str) -> Character:
    """Melee Attack (2 + 3) / 2 = 2 (d6) + Armed Combat 4 (d10) with a Maul; no Unarmed Combat, so bare fists are a
    lone d6: it can never meet the Attack TD of 8 (Character Tests: a die must equal or beat the TD)."""
    return Character(
        name=name,
        attributes=Attributes(strength=2, agility=3, dexterity=1),
        traits=(Trait(name="Armed Combat", rank=4),),
        weapons=(Weapon(name="Maul", damage="30", skill="Armed Combat"),),
    )


def ann() -> Character:
    """Melee Attack 4 (d10) + Armed Combat 3 (d8); Dexterity 3 + Intelligence 3 for an Aim: d8 + d8 at TD 8."""
    return Character(
        name="Ann",
        attributes=Attributes(strength=4, agility=4),
        traits=(Trait(name="Armed Combat", rank=3),),
        weapons=(Weapon(name="Axe", damage="d6", skill="Armed Combat"),),
    )


def bo() -> Character:
    return Character(
        name="Bo",
        attributes=Attributes(),
        traits=(Trait(name="Armed Combat", rank=2),),
        weapons=(Weapon(name="Club", damage="d4", skill="Armed Combat", blunt=True),),
    )


def _with(st: FightState, k: int, vitals: dict[str, Any] | None = None, **changes: Any) -> FightState:
    fs = list(st.fighters)
    if vitals:
        changes["vitals"] = fs[k].vitals.model_copy(update=vitals)
    fs[k] = fs[k].model_copy(update=changes)
    return st.model_copy(update={"fighters": tuple(fs)})


def test_a_simulated_fight_raises_no_numpy_warning() -> None:
    """forecast.py:521 (``standing & same_side`` -> ``//``): the same 0/1 values, but ``x // False`` is numpy's
    "divide by zero encountered in floor_divide" in every round of every fight. Two Maul brutes fight a few
    rounds under warnings as errors; each fight ends with one side standing or none (a draw)."""
    st = ENG.start([[brute("Ann")], [brute("Bo")]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = simulate_batch(st)(20, np.random.default_rng(3))
    assert set(b.winner.tolist()) <= {-1, 0, 1} and (b.rounds >= 1).all()


def test_a_negative_saved_aim_count_is_no_pending_aim() -> None:
    """forecast.py:545 (``aimb > 0`` -> ``!= 0``): ``Fighter.aimed_this_round`` accepts -1. Both brutes have lost
    their Mauls, so their fists (a lone d6 against TD 8) can never hit and neither aims (tactic attack): the fight
    is a stand-off after its first round (no winner, 1 round), whatever Ann's nonsense aim count of -1 says: only
    an aim that gained successes (> 0) is an aim still to be used."""
    st = ENG.start([[brute("Ann")], [brute("Bo")]])
    st = _with(_with(st, 0, weapon=None), 1, weapon=None)
    st = _with(st, 0, aimed_this_round=-1)
    b = simulate_batch(st)(5, np.random.default_rng(1))
    assert b.winner.tolist() == [-1] * 5
    assert b.rounds.tolist() == [1] * 5


def test_flesh_wounds_above_their_maximum_are_not_unhurt() -> None:
    """forecast.py:552 (``f == maxf`` -> ``>=``): ``Vitals`` accepts flesh wounds above the maximum. Bo is dead from
    the start, so the fight ends at once with Ann's side standing; Ann's Flesh Wounds (max + 1) are not her
    maximum, so she is not reported "unhurt" (unhurt: every vital at its maximum)."""
    st = ENG.start([[brute("Ann")], [brute("Bo")]])
    mf = st.fighters[0].vitals.max_flesh_wounds
    st = _with(_with(st, 1, vitals={"dead": True, "health": -20}), 0, vitals={"flesh_wounds": mf + 1})
    b = simulate_batch(st)(3, np.random.default_rng(1))
    assert b.winner.tolist() == [0] * 3
    ann_ends = {b.state_names[c] for c in b.end_states[st.fighters[0].id].tolist()}
    assert "unhurt" not in ann_ends and ann_ends <= set(END_STATES)


def test_dodges_above_their_maximum_are_not_unhurt() -> None:
    """forecast.py:552 (``d == maxd`` -> ``>=``): the same with Dodges one above their maximum."""
    st = ENG.start([[brute("Ann")], [brute("Bo")]])
    md = st.fighters[0].vitals.max_dodges
    st = _with(_with(st, 1, vitals={"dead": True, "health": -20}), 0, vitals={"dodges": md + 1})
    b = simulate_batch(st)(3, np.random.default_rng(1))
    assert b.winner.tolist() == [0] * 3
    assert "unhurt" not in {b.state_names[c] for c in b.end_states[st.fighters[0].id].tolist()}


def test_screw_up_weapon_v_compares_the_rule_by_value() -> None:
    """vectorised.py:180 (``rule == "drop_weapon"`` -> ``is``): the public function takes any str; one built at run
    time (not the interned literal) must drop the weapon in hand on a Screw-Up and lose it on a Critical one
    (Screw-Ups, house rule drop_weapon); under 'none' nothing is dropped."""
    kind = np.array([FAILURE, SUCCESS, SCREW_UP, CRITICAL_SCREW_UP, SCREW_UP])
    in_hand = np.array([True, True, True, True, False])
    rule = "".join(["drop_", "weapon"])
    drop, lost = screw_up_weapon_v(kind, in_hand, rule)
    assert drop.tolist() == [False, False, True, True, False]
    assert lost.tolist() == [False, False, False, True, False]
    drop, lost = screw_up_weapon_v(kind, in_hand, "".join(["no", "ne"]))
    assert not drop.any() and not lost.any()


def test_initiative_roll_refuses_names_and_pools_of_different_lengths() -> None:
    """round.py:660 (``zip(..., strict=True)`` -> ``strict=False``): the public InitiativeRoll with three names and
    two pools would silently drop the third fighter from the order; it is refused."""
    roll = InitiativeRoll(("A", "B", "C"), (Pool(ranks=(3,)), Pool(ranks=(2,))), BlyssHouseRules())
    with pytest.raises(ValueError):
        roll.sample(np.random.default_rng(1))


def test_a_resumed_fight_with_tactic_aim_from_the_command_line_aims() -> None:
    """round.py:713 (``tactic == "aim"`` -> ``is``): ``--tactic-a aim`` on a saved fight goes through the CLI's
    _retactic (a model_copy: the argv string is stored as given, not pydantic's interned Literal). Ann, with no aim
    yet, declares an Aim (Aiming): the round draws Initiative, Bo's attack (he is slower, so acts first), then
    Ann's Aim, Dexterity + Intelligence (d8 + d8) at TD 8."""
    st = ENG.start([[ann()], [bo()]])
    st = _retactic(st, "".join(["a", "im"]), None)
    drawn: list[Any] = []

    class Script:
        """Ann ahead on Initiative; every attack fails; an aim gains 2 successes."""

        narrate = True

        def draw(self, event: Any) -> Any:
            drawn.append(event)
            if isinstance(event, InitiativeRoll):
                return Order((0, 1))
            return Judged("success", 2) if getattr(event, "label", "") == "Ann aim" else FAIL

    out, _ = play_round(to_state(st), Roster(st), Script())
    assert [getattr(e, "label", None) for e in drawn[1:]] == ["Bo attack", "Ann aim"]
    assert (drawn[2].dice, drawn[2].td) == ((8, 8), 8)
    assert from_state(out, st).get("Ann").aim_bonus == 2


def test_each_sides_tactic_is_reported_under_that_side() -> None:
    """forecast.py:736 (``f.side == s`` -> ``is not``, found by the second audit): Ann fights side A with the tactic
    attack, Bo side B defensively (only the simulation forecasts it); the tactics are reported side by side."""
    st = ENG.start([[ann()], [bo()]], options={"tactic": ["attack", "defensive"]})
    fc = SYSTEM.forecast(st, method="simulate", samples=200, seed=1)
    assert fc.tactics == {"A": "attack", "B": "defensive"}
