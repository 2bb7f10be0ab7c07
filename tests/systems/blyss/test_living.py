"""Rules for Living: damage order, Wound Levels, unconsciousness, dying, death, deprivation."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from storymaster.dice import DiceRng
from storymaster.systems.blyss import SYSTEM
from storymaster.systems.blyss.checks import BlyssTest
from storymaster.systems.blyss.living import (
    Vitals,
    apply_damage,
    collapses,
    deprivation_penalty,
    deprivation_recovery,
    dying_check,
    knockout_check,
    starvation_check,
    starvation_interval,
    stay_awake_check,
    stay_awake_checks,
    threshold_hours,
    wound_level,
    wound_penalty,
)
from storymaster.systems.blyss.options import BlyssHouseRules


def fresh(stamina: int = 3, agility: int = 3) -> Vitals:
    return Vitals.fresh(agility, stamina, stamina * 6)


def test_damage_goes_dodges_then_flesh_wounds_then_health() -> None:
    v, took = apply_damage(fresh(), 8)
    assert took == {"dodges": 3, "flesh_wounds": 3, "health": 2}
    assert (v.dodges, v.flesh_wounds, v.health) == (0, 0, 16)
    _v2, took2 = apply_damage(fresh(), 8, spill=False)
    assert took2 == {"dodges": 3, "flesh_wounds": 0, "health": 0}


@given(st.lists(st.integers(0, 15), max_size=8))
@settings(max_examples=60)
def test_damage_is_conserved(blows: list[int]) -> None:
    v = fresh(4, 4)
    total = 0
    for b in blows:
        v, took = apply_damage(v, b)
        assert sum(took.values()) == b
        total += b
    assert (4 - v.dodges) + (4 - v.flesh_wounds) + (24 - v.health) == total


def test_wound_levels_for_average_stamina() -> None:
    v = fresh()  # Health 18
    assert wound_level(v) == "Healthy"
    v, _ = apply_damage(v, 3)
    assert wound_level(v) == "Healthy"  # Dodges gone, no Flesh Wound yet
    v, _ = apply_damage(v, 1)
    assert wound_level(v) == "Flesh Wounds"
    v, _ = apply_damage(v, 2 + 6)  # 6 Health lost = 1/3 of 18
    assert (v.health, wound_level(v)) == (12, "Light Wounds")
    v, _ = apply_damage(v, 3)  # Health 9: below 10 comes before 2/3 lost
    assert wound_level(v) == "Heavy Wounds"


def test_wound_levels_for_high_stamina() -> None:
    v = Vitals.fresh(0, 0, 36)  # Stamina 6
    assert wound_level(apply_damage(v, 11)[0]) == "Healthy"
    assert wound_level(apply_damage(v, 12)[0]) == "Light Wounds"  # 1/3 of 36
    assert wound_level(apply_damage(v, 24)[0]) == "Moderate Wounds"  # 2/3 of 36
    assert wound_level(apply_damage(v, 27)[0]) == "Heavy Wounds"  # below 10
    v0, _ = apply_damage(v, 36)
    assert v0.unconscious and not v0.dying and wound_level(v0) == "Incapacitated"
    vneg, _ = apply_damage(v, 37)
    assert vneg.dying


def test_wound_penalties_not_cumulative() -> None:
    assert wound_penalty("Flesh Wounds") == (0, -1)
    assert wound_penalty("Flesh Wounds", BlyssHouseRules(flesh_wound_penalty="rank")) == (1, 0)
    assert wound_penalty("Light Wounds") == (1, 0)
    assert wound_penalty("Moderate Wounds") == (2, 0)
    assert wound_penalty("Heavy Wounds") == (3, 0)
    assert wound_penalty("Healthy") == (0, 0)


def test_knockout_chance_is_average_against_td_6() -> None:
    odds = SYSTEM.odds(BlyssTest(ranks=(3,), td=6))
    assert odds.p_success == Fraction(3, 8)  # 6, 7 or 8 on a d8
    rng = DiceRng("ko")
    results = {knockout_check(3, rng)[0] for _ in range(40)}
    assert results == {True, False}


def test_dying_runs_out_at_stamina_zero() -> None:
    v = apply_damage(fresh(stamina=2), 2 + 3 + 13)[0]
    assert v.dying
    rng = DiceRng("dying")
    # force failures: play until the outcome; penalty grows one rank per failed check
    seen_checks = []
    for _ in range(5):
        v, text, _rec = dying_check(v, 2, rng)
        seen_checks.append(text)
        if not v.dying:
            break
    assert v.stabilised or v.dead
    if v.dead:
        assert len(seen_checks) == 3  # Stamina 2: checks at rank 2 and 1, then rank 0 means death
    v_dead = Vitals.fresh(0, 0, 6).model_copy(
        update={"health": -1, "dying": True, "unconscious": True, "dying_checks": 2}
    )
    assert dying_check(v_dead, 2, rng)[0].dead
    assert dying_check(v_dead, 2, rng, BlyssHouseRules(coma_instead_of_death="always"))[0].coma
    assert not dying_check(v_dead, 2, rng, BlyssHouseRules(coma_instead_of_death="blunt"))[0].coma
    assert dying_check(v_dead, 2, rng, BlyssHouseRules(coma_instead_of_death="blunt"), blunt=True)[0].coma


def test_deprivation_thresholds_and_penalties() -> None:
    assert threshold_hours(3) == 24  # Stamina x 8
    assert deprivation_penalty("fatigue", 24, 3) == 0
    assert deprivation_penalty("fatigue", 27.5, 3) == 3  # one rank per extra hour
    assert deprivation_penalty("hunger", 24 + 47, 3) == 1  # one rank per 24 hours
    assert deprivation_penalty("thirst", 24 + 6, 3) == 3  # one rank per 2 hours
    assert stay_awake_checks(26, 3) == 4  # every half hour
    assert deprivation_recovery("fatigue", 3, 4) == 1  # a rank per 2 hours' sleep
    assert deprivation_recovery("hunger", 2, 24) == 1  # a rank per day of eating
    assert deprivation_recovery("thirst", 3, 8) == 1  # a rank per 4 hours of drinking
    assert collapses(3, 4, 3) and not collapses(3, 4, 2)
    assert starvation_interval(3) == 12  # Stamina x 4


def test_starvation_check_costs_a_wounds_worth() -> None:
    rng = DiceRng("starve")
    v = Vitals.fresh(3, 3, 18).model_copy(update={"unconscious": True})
    losses = set()
    for _ in range(30):
        v2, _text, _ = starvation_check(v, 5, rng)  # Stamina 5 (d12) can reach TD 10
        losses.add(v.health - v2.health)
    assert losses == {0, 6}  # a third of 18
    assert starvation_check(v, 3, rng)[0].health == 12  # a d8 never reaches TD 10
    v3, _, _ = starvation_check(v, 0, rng, BlyssHouseRules(starvation_loss="one"))
    assert v3.health == 17
    low = v.model_copy(update={"health": 4})
    v4, _text, _ = starvation_check(low, 0, rng)
    assert v4.health == 0 and v4.dying


def test_stay_awake_check_uses_the_reduced_rank() -> None:
    rng = DiceRng("awake")
    results = {stay_awake_check(4, 1, rng)[0] for _ in range(40)}
    assert results == {True, False}
    awake, rec = stay_awake_check(3, 3, rng)  # Mental Fortitude worn down to rank 0: no dice, asleep
    assert not awake and rec is None
    _, rec = stay_awake_check(5, 1, rng)
    assert rec is not None and rec.expression == "1d10"


def test_wound_thirds_round_up_with_health_not_a_multiple_of_three() -> None:
    """Ruling 5: Light / Moderate Wounds at a third / two thirds of maximum Health lost, rounded up. By hand:
    Health 31: a third is 10.33 -> 11 (down or nearest: 10); Health 32: two thirds is 21.33 -> 22 (down or
    nearest: 21). Heavy (below 10 left) does not interfere at these values."""
    from storymaster.systems.blyss.living import health_thirds

    v31 = Vitals.fresh(0, 0, 31)
    assert wound_level(apply_damage(v31, 10)[0]) == "Healthy"
    assert wound_level(apply_damage(v31, 11)[0]) == "Light Wounds"
    v32 = Vitals.fresh(0, 0, 32)
    assert wound_level(apply_damage(v32, 21)[0]) == "Light Wounds"  # 11 Health left: not yet two thirds
    assert wound_level(apply_damage(v32, 22)[0]) == "Moderate Wounds"  # 10 left: not below 10
    # the one function serves ints and arrays alike; ceil(k * h / 3) by exact arithmetic
    import math

    import numpy as np

    hs = np.arange(0, 61)
    for k in (1, 2):
        assert [int(x) for x in health_thirds(hs, k)] == [math.ceil(k * h / 3) for h in range(61)]
        assert [health_thirds(h, k) for h in range(61)] == [math.ceil(k * h / 3) for h in range(61)]


def test_starvation_costs_a_third_rounded_up() -> None:
    """Hunger/Thirst: "a Wound's worth of Health" is a third of maximum Health rounded up: 20 -> 7 (not 6)."""
    rng = DiceRng("starve-20")
    v = Vitals.fresh(3, 3, 20).model_copy(update={"unconscious": True})
    assert starvation_check(v, 3, rng)[0].health == 13  # a d8 never reaches TD 10: the check fails


def test_wound_level_codes_twin_on_every_small_vitals() -> None:
    """The forecast's array form of :func:`wound_level` says the same on every (Dodges, Flesh Wounds, Health) of
    small maximums, active or not."""
    import itertools

    import numpy as np

    from storymaster.systems.blyss.living import WOUND_LEVELS, wound_level_codes

    for maxd, maxf, maxh in ((0, 0, 7), (2, 3, 12), (3, 3, 18), (1, 2, 31)):
        cells = list(itertools.product(range(maxd + 1), range(maxf + 1), range(-3, maxh + 1), (False, True)))
        d, f, h, down = (np.array(col) for col in zip(*cells, strict=True))
        codes = wound_level_codes(d, f, h, maxf, maxh, ~down)
        for (dd, ff, hh, dn), code in zip(cells, codes.tolist(), strict=True):
            v = Vitals(
                dodges=dd,
                flesh_wounds=ff,
                health=hh,
                max_dodges=maxd,
                max_flesh_wounds=maxf,
                max_health=maxh,
                unconscious=dn,
            )
            assert WOUND_LEVELS[code] == wound_level(v), (dd, ff, hh, dn)
