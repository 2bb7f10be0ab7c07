"""Mutants an audit of tools/mutation-equivalent.txt found NOT equivalent (notes/round-3/audit-fix.md): each test
tells one of them from the original, on input the models or the public classes accept. Expected values are worked
by hand in the docstrings, never copied from the program's output.

The fighters are bare-handed brawlers (Unarmed Combat rank 1), as in test_forecast_kernels.py."""

from __future__ import annotations

import numpy as np
import pytest

from storymaster.systems.philsys import SYSTEM
from storymaster.systems.philsys import forecast as fc
from storymaster.systems.philsys.character import Character
from storymaster.systems.philsys.combat import FightState, body, setup
from storymaster.systems.philsys.options import PhilsysHouseRules
from storymaster.systems.philsys.twins import Fights


def fighter(name: str, hp: int) -> Character:
    return Character.model_validate(
        {
            "name": name,
            "stats": {"COU": 2, "AGI": 3, "INT": 1, "STR": 2, "STA": 2},
            "skills": [{"name": "Unarmed Combat", "category": "unarmed", "rank": 1}],
            "current": {"hp": hp},
        }
    )


def duel() -> FightState:
    return SYSTEM.combat.start(
        [[fighter("Ann", 10)], [fighter("Bo", 12)]],
        house_rules=PhilsysHouseRules(),
        options={"attack": {"side0": "punch", "side1": "punch"}},
    )


def test_fights_keep_minus_one_for_no_waking() -> None:
    """twins.py:110 (``-1 if wake_in is None`` -> ``~1`` or ``-2``): Fights documents WAKE -1 for a fighter with
    no waking count, as the scalar round's Body keeps None; a count of 3 stays 3."""
    st = duel()
    su = setup(st)
    bodies = [body(f) for f in st.fighters]
    bodies[1] = bodies[1]._replace(unconscious=True, wake_in=3)
    assert bodies[0].wake_in is None
    f = Fights(su, bodies, 2, None)
    assert f.WAKE.tolist() == [[-1, 3], [-1, 3]]
    assert f.HP.tolist() == [[10, 12], [10, 12]]


def test_fights_refuse_fewer_bodies_than_fighters() -> None:
    """twins.py:112 (``zip(bodies, specs, strict=True)`` -> ``strict=False``): one body for a two-fighter setup is
    refused, not built into fights that lack a fighter."""
    st = duel()
    su = setup(st)
    with pytest.raises(ValueError):
        Fights(su, [body(st.fighters[0])], 1, None)


def test_a_fight_with_every_fighter_on_one_side_is_won_by_that_side() -> None:
    """twins.py:148 (``rows.size == 0`` -> another number): a FightState with both fighters moved to side 0 (the
    model accepts it, over=False). Nobody has an enemy, so nobody acts: every simulated fight is won by side 0, the
    only side standing, with nobody hurt, after the first round."""
    st = duel()
    one = st.model_copy(update={"fighters": tuple(f.model_copy(update={"side": 0}) for f in st.fighters)})
    assert not one.over
    b = fc.simulate_batch(one)(4, np.random.default_rng(1))
    assert b.winner.tolist() == [0] * 4
    assert b.rounds.tolist() == [1] * 4


def test_a_simulated_fight_stopped_by_the_round_cap_has_no_winner() -> None:
    """forecast.py:533 (the draw's ``-1`` -> ``-2``, found by the second audit): Batch.winner is -1 for a fight nobody
    won. Two brawlers of 300 HP with two rounds left before the cap: a punch does at most d6 (doubled to 12 on a
    critical hit), so two rounds take at most 24 HP from either; every fight ends at the cap, undecided."""
    st = SYSTEM.combat.start(
        [[fighter("Ann", 300)], [fighter("Bo", 300)]],
        house_rules=PhilsysHouseRules(),
        options={"attack": {"side0": "punch", "side1": "punch"}},
    )
    st = st.model_copy(update={"round": st.house_rules.max_rounds - 2})
    b = fc.simulate_batch(st)(4, np.random.default_rng(1))
    assert b.winner.tolist() == [-1] * 4


def test_a_simulated_fight_with_a_healer_raises_no_numpy_warning() -> None:
    """twins.py:282 (``~DEAD & (hp <= threshold)`` -> ``//``, found by the second audit): the same truth values, but
    floor division by a False divides by zero and numpy warns. Ann (5 MP, MAG 1) knows Mend (5 MP, heal 14+2d6);
    every simulated round asks whether she heals, so the whole batch runs with warnings as errors."""
    import warnings

    mend = {"name": "Mend", "cost": {"mp": 5}, "effect": {"kind": "heal", "damage": "14+2d6"}}
    ann = Character.model_validate(
        {
            "name": "Ann",
            "stats": {"COU": 2, "AGI": 3, "INT": 1, "STR": 2, "STA": 2, "MAG": 1},
            "skills": [{"name": "Unarmed Combat", "category": "unarmed", "rank": 1}],
            "current": {"hp": 7, "mp": 5},
            "abilities": [mend],
        }
    )
    st = SYSTEM.combat.start(
        [[ann], [fighter("Bo", 12)]],
        house_rules=PhilsysHouseRules(),
        options={"attack": {"side0": "punch", "side1": "punch"}},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = fc.simulate_batch(st)(200, np.random.default_rng(3))
    assert set(b.winner.tolist()) <= {-1, 0, 1}
