"""Rules for Living at the edges the book draws (expected values worked by hand from Table 2-03, Derived
Attributes, Unconsciousness, Dying, Death, Fatigue and Thirst). Written from mutation testing's survivors."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from storymaster.dice import DiceRng
from storymaster.systems.blyss.living import (
    Vitals,
    apply_damage,
    collapses,
    dying_check,
    starvation_check,
    wound_level,
)
from storymaster.systems.blyss.options import BlyssHouseRules


def vitals(d: int, f: int, h: int, *, maxd: int | None = None, maxf: int | None = None, maxh: int | None = None, **kw):
    return Vitals(
        dodges=d,
        flesh_wounds=f,
        health=h,
        max_dodges=d if maxd is None else maxd,
        max_flesh_wounds=f if maxf is None else maxf,
        max_health=h if maxh is None else maxh,
        **kw,
    )


def test_what_is_left_counts_no_health_below_zero() -> None:
    assert vitals(2, 3, 7).total == 12
    assert vitals(2, 3, -4, maxh=20).total == 5


def test_a_dying_count_is_never_negative() -> None:
    with pytest.raises(ValidationError):
        vitals(0, 0, -1, maxh=20, dying_checks=-1)


def test_without_spill_a_blow_with_no_dodges_or_flesh_wounds_left_goes_to_health() -> None:
    v, took = apply_damage(vitals(0, 0, 20, maxd=3, maxf=4), 5, spill=False)
    assert v.health == 15 and took == {"dodges": 0, "flesh_wounds": 0, "health": 5}


def test_zero_health_knocks_out_even_after_stabilising() -> None:
    """Unconsciousness: 0 Health knocks out; Dying: below 0. A stabilised character healed to 2 and hit for 2 is
    unconscious at 0, not dying again; hit again below 0, dying again with a fresh count."""
    healed = vitals(0, 0, 2, maxh=20, stabilised=True, unconscious=True)
    v, _ = apply_damage(healed, 2)
    assert v.health == 0 and v.unconscious and not v.dying
    down = vitals(0, 0, -2, maxh=20, stabilised=True, unconscious=True, dying_checks=2)
    v, _ = apply_damage(down, 1)
    assert v.dying and not v.stabilised and v.dying_checks == 0


def test_wound_levels_at_their_edges() -> None:
    """Table 2-03 (ruling 5): Heavy below 10 Health once hurt; Moderate from two thirds of max lost."""
    assert wound_level(vitals(2, 3, 8)) == "Healthy"  # low Stamina but unhurt: not Heavy
    assert wound_level(vitals(2, 3, 7, maxh=8)) == "Heavy Wounds"  # one Health lost, 7 < 10
    # max 33: two thirds is 22; 23 lost leaves 10 (not Heavy): Moderate, not Light
    assert wound_level(vitals(0, 0, 10, maxf=3, maxh=33)) == "Moderate Wounds"
    assert wound_level(vitals(0, 0, 12, maxf=3, maxh=33)) == "Light Wounds"  # 21 lost: a third (11) or more


def test_coma_rule_only_for_blunt_blows_when_the_sm_says_blunt() -> None:
    """Death: a dying character whose Stamina is used up dies; the SM may rule a coma (for blunt blows)."""
    out = vitals(0, 0, -3, maxh=20, dying=True, unconscious=True, dying_checks=3)
    never = BlyssHouseRules(coma_instead_of_death="never")
    v, text, _ = dying_check(out, 3, DiceRng(1), never, blunt=True)
    assert v.dead and not v.coma and text == "dies"
    blunt = BlyssHouseRules(coma_instead_of_death="blunt")
    assert dying_check(out, 3, DiceRng(1), blunt, blunt=True)[0].coma
    assert dying_check(out, 3, DiceRng(1), blunt, blunt=False)[0].dead


@pytest.mark.parametrize(
    ("stamina", "fortitude", "penalty", "down"),
    [(5, 2, 2, True), (5, 3, 2, False), (5, 1, 2, True), (2, 5, 2, True), (3, 5, 2, False)],
)
def test_collapse_when_stamina_or_fortitude_reaches_rank_zero(stamina, fortitude, penalty, down) -> None:
    assert collapses(stamina, fortitude, penalty) is down


def test_a_failed_starvation_check_costs_a_wounds_worth() -> None:
    """Thirst: a failed Stamina Test at TD 10 costs a third of max Health (rounded up): 20 -> 7."""
    v = vitals(0, 0, 20, unconscious=True)
    after, text, _ = starvation_check(v, 1, DiceRng(3))  # Stamina rank 1 is a d4: it never meets TD 10
    assert after.health == 13 and text == "loses 7 Health"
    low, text, _ = starvation_check(vitals(0, 0, 5, maxh=20, unconscious=True), 1, DiceRng(3))
    assert low.health == 0 and low.dying and text == "loses 5 Health and is now dying"


def test_spill_damage_array_twin_on_every_small_input() -> None:
    """spill_damage_v (the simulation's twin) against spill_damage on every small input, with and without
    spill-over (its docstring said so; no test did it)."""
    import itertools

    import numpy as np

    from storymaster.systems.blyss.living import spill_damage, spill_damage_v

    grid = list(itertools.product(range(-1, 4), range(-1, 4), range(-2, 12)))
    d, f, dmg = (np.array(x) for x in zip(*grid, strict=True))
    for spill in (True, False):
        arrays = spill_damage_v(d, f, dmg, spill)
        for i, (di, fi, gi) in enumerate(grid):
            assert tuple(int(a[i]) for a in arrays) == spill_damage(di, fi, 0, gi, spill), (di, fi, gi, spill)


def test_health_one_left_is_still_awake() -> None:
    """Unconsciousness: Health 0 knocks the character out; 1 left does not."""
    v, _ = apply_damage(vitals(0, 0, 10), 9)
    assert (v.health, v.unconscious) == (1, False)
    v, _ = apply_damage(vitals(0, 0, 10), 10)
    assert (v.health, v.unconscious, v.dying) == (0, True, False)


def test_a_failed_dying_check_adds_to_the_penalty() -> None:
    """Dying: a Stamina Test at TD 6, -1 rank per check failed; a d4 (rank 1) can never show 6, so it fails and
    the character is still dying, one failed check more."""
    v = vitals(0, 0, -3, maxh=20, unconscious=True, dying=True)
    for seed in range(20):
        after, _, _ = dying_check(v, 1, DiceRng(seed))
        assert (after.dying, after.stabilised, after.dying_checks) == (True, False, 1)


def test_deprivation_ranks_per_statistic_or_per_test() -> None:
    """Ruling B-L2: every statistic rolled loses the ranks (default), or the Test loses them once (per_test)."""
    from storymaster.systems.blyss.living import deprivation_pool_ranks

    assert deprivation_pool_ranks(2, 3) == 6
    assert deprivation_pool_ranks(2, 0) == 2  # a pool of loose dice counts as one
    assert deprivation_pool_ranks(2, 3, BlyssHouseRules(deprivation_penalty="per_test")) == 2
    assert deprivation_pool_ranks(0, 3) == 0 and deprivation_pool_ranks(-1, 3) == 0


def test_a_blow_spills_over_by_default() -> None:
    """Dodges first, then Flesh Wounds, then Health; by default (ruling) a blow runs on from one to the next."""
    from storymaster.systems.blyss.living import spill_damage

    assert spill_damage(2, 3, 10, 7) == (2, 3, 2)
    assert spill_damage(2, 3, 10, 7, False) == (2, 0, 0)


def test_coma_ends_dying_and_a_stabilising_check_shows_its_roll() -> None:
    """Dying; Death: at rank 0 no roll: dead, or a coma under the house rule (no longer dying either way). A
    passed check stabilises, and the roll that did it is returned."""
    v = vitals(0, 0, -3, maxh=20, unconscious=True, dying=True, dying_checks=2)
    after, text, rec = dying_check(v, 2, DiceRng(0), BlyssHouseRules(coma_instead_of_death="always"))
    assert (after.coma, after.dying, after.dead, text, rec) == (True, False, False, "falls into a coma", None)
    after, text, rec = dying_check(v, 2, DiceRng(0))
    assert (after.dead, after.dying, text) == (True, False, "dies")
    fresh = vitals(0, 0, -3, maxh=20, unconscious=True, dying=True)
    for seed in range(60):
        after, text, rec = dying_check(fresh, 8, DiceRng(seed))
        if after.stabilised:
            assert text == "stabilises (Stamina rank 8)" and rec is not None and not after.dying
            break
    else:
        raise AssertionError("Stamina 8 never stabilised in 60 tries")


def test_no_deprivation_penalty_before_the_threshold() -> None:
    """Fatigue: the Threshold is Stamina x 8 hours; before it (and at it) no ranks are lost."""
    from storymaster.systems.blyss.living import deprivation_penalty

    assert [deprivation_penalty("fatigue", h, 3) for h in (0, 10, 24, 25)] == [0, 0, 0, 1]


def test_deprived_rank_in_and_outside_a_test() -> None:
    """Ruling B-L6: in a Test of the one statistic it loses the ranks under either house rule; read outside a Test
    it loses them only per_statistic (the statistics decrease); never below 0. Worked by hand."""
    from storymaster.systems.blyss.living import deprived_rank

    per_test = BlyssHouseRules(deprivation_penalty="per_test")
    for hr in (BlyssHouseRules(), per_test):
        assert deprived_rank(4, 1, hr, in_a_test=True) == 3
        assert deprived_rank(1, 3, hr, in_a_test=True) == 0
    assert deprived_rank(4, 1, BlyssHouseRules(), in_a_test=False) == 3
    assert deprived_rank(1, 3, BlyssHouseRules(), in_a_test=False) == 0
    assert deprived_rank(4, 1, per_test, in_a_test=False) == 4
