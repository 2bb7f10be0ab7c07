"""Part Seven: damage from falling, fire, explosions, electricity, cold and acid, with the book's numbers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from storymaster.errors import CheckError
from storymaster.systems.bum import BumHouseRules
from storymaster.systems.bum.hazards import (
    acid_wounds,
    burn,
    cold_exposure,
    electric_stun_rounds,
    explosion_damage,
    falling_wounds,
    fire_wounds,
)


@pytest.mark.parametrize(
    "feet,wounds",
    [(0, 0), (9.9, 0), (10, 1), (15, 1), (19, 1), (20, 1), (20.5, 2), (21, 2), (30, 2), (31, 3), (40, 3), (41, 4)],
)
def test_falling_by_the_books_thresholds(feet, wounds):
    """Part Seven, Falling: "less than 10 feet ... no damage"; "between 10 and 20 feet, one point of damage,
    over 20 feet, 2 damage, over 30, 3 and so on". 20 ft and 30 ft tell this default from every_full_ten."""
    assert falling_wounds(feet) == wounds


@pytest.mark.parametrize("feet,wounds", [(9, 0), (10, 1), (19, 1), (20, 2), (25, 2), (29, 2), (30, 3), (31, 3)])
def test_falling_every_full_ten_feet_option(feet, wounds):
    """House rule every_full_ten: "one wound for every 10 feet he falls" counted per full 10 feet."""
    assert falling_wounds(feet, BumHouseRules(falling_boundary="every_full_ten")) == wounds


@pytest.mark.parametrize("feet", [-1, float("nan"), float("inf"), float("-inf")])
def test_falling_errors(feet):
    with pytest.raises(CheckError, match="a fall"):
        falling_wounds(feet)


def test_explosion_power_four():
    """'a power of 4 ... 4 damage in the space it explodes, 3 ... adjacent, 2 ...'."""
    assert [explosion_damage(4, d) for d in range(6)] == [4, 3, 2, 1, 0, 0]


@pytest.mark.parametrize("power,strength,rounds", [(6, 2, 4), (6, 4, 2), (6, 6, 0), (6, 8, 0)])
def test_electricity_stun(power, strength, rounds):
    """Power 6: STR 2 recovers in 4 rounds, STR 4 in 2; a bear with STR 6+ is unaffected."""
    assert electric_stun_rounds(power, strength) == rounds


def test_cold_drains_str_until_unconscious():
    assert cold_exposure(3, 2) == (1, False)
    assert cold_exposure(2, 2) == (0, True)
    assert cold_exposure(2, 5) == (0, True)


def test_acid_wound_every_x_turns():
    assert acid_wounds(10, 10) == 1 and acid_wounds(25, 10) == 2 and acid_wounds(5, 1) == 5
    with pytest.raises(CheckError):
        acid_wounds(5, 0)


def test_fire_wounds_every_other_turn():
    assert fire_wounds(0, large_flame=True) == 1
    assert [fire_wounds(t) for t in range(6)] == [0, 0, 1, 1, 2, 2]


def test_burn_stop_drop_and_roll(scripted):
    wounds, events = burn(2, scripted([1, 1, 1, 6]))  # DEX 2 vs DC 6: fails three times, then puts it out
    assert wounds == 1 + 1  # the large flame, and one burn after the second turn
    assert "fire is out" in events[-1].text and len([e for e in events if e.rolls]) == 4


def test_small_flame_needs_no_roll(scripted):
    wounds, events = burn(2, scripted([]), large_flame=False)
    assert wounds == 0 and events[0].rolls == ()


@given(st.integers(0, 200), st.integers(0, 200))
def test_falling_is_monotone(a, b):
    lo, hi = sorted((a, b))
    assert falling_wounds(lo) <= falling_wounds(hi)
    full_ten = BumHouseRules(falling_boundary="every_full_ten")
    assert falling_wounds(lo, full_ten) <= falling_wounds(hi, full_ten)
    assert falling_wounds(hi) <= falling_wounds(hi, full_ten) <= falling_wounds(hi) + 1
