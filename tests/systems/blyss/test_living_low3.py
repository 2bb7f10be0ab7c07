"""Rules for Living: edges left by mutation testing (session 5, branch mut-low3). Expected values by hand
from the book (Fatigue: "one rank back per 2 hours' sleep") or from what the simulation needs of the twins."""

from __future__ import annotations

import itertools

import numpy as np

from storymaster.dice import DiceRng
from storymaster.systems.blyss.living import (
    Vitals,
    blow_flags_v,
    collapses,
    deprivation_recovery,
    dying_result,
    knockout_check,
    spill_damage_v,
    starvation_check,
    stay_awake_checks,
    wound_level_code,
    wound_level_codes,
)
from storymaster.systems.blyss.options import BlyssHouseRules


def test_recovery_never_goes_below_no_penalty() -> None:
    # Fatigue: one rank back per 2 hours' sleep. A penalty of 1 and 10 hours' sleep: 10 // 2 = 5 ranks back,
    # more than the 1 there is, so 0 is left (not -4, not -1). Thirst: 1 rank, 8 hours at 4 a rank = 2 back -> 0.
    assert deprivation_recovery("fatigue", 1, 10) == 0
    assert deprivation_recovery("thirst", 1, 8) == 0
    assert deprivation_recovery("hunger", 0, 48) == 0


def test_the_blow_twin_gives_boolean_masks() -> None:
    # The simulation negates these flags with ~: that is logical not only on bool arrays (on 0/1 integers ~ gives
    # -1/-2, both true). Every combination of the small domain: Health -2..1, Health taken 0..1, each flag either way.
    rows = list(itertools.product([-2, -1, 0, 1], [0, 1], [False, True], [False, True], [False, True], [False, True]))
    cols = [np.array(c) for c in zip(*rows, strict=True)]
    cols.append(np.array([2] * len(rows)))
    unc, dying, stab, _checks = blow_flags_v(*cols)
    for flag in (unc, dying, stab):
        assert flag.dtype == np.bool_


def test_knockout_check_takes_its_leading_arguments_by_keyword() -> None:
    # rank, rng and the house rules are ordinary parameters; only the label is keyword-only
    hit, record = knockout_check(rank=3, rng=DiceRng(7), hr=None)
    assert isinstance(hit, bool) and record is not None


def test_the_array_blow_spills_over_by_default() -> None:
    # 2 Dodges, 3 Flesh Wounds, a blow of 10: 2 from Dodges, 3 from Flesh Wounds, 10 - 2 - 3 = 5 on to Health
    # (Derived Attributes; house rule damage_spills_over is the default). Without spill it stops at the Dodges.
    d, f, left = spill_damage_v(np.array([2]), np.array([3]), np.array([10]))
    assert (d.tolist(), f.tolist(), left.tolist()) == ([2], [3], [5])
    d, f, left = spill_damage_v(np.array([2]), np.array([3]), np.array([10]), False)
    assert (d.tolist(), f.tolist(), left.tolist()) == ([2], [0], [0])


def test_the_wound_level_twin_runs_clean_under_numpy_errors_raised() -> None:
    # the forecast's twin must not divide by zero on the way (a hidden 0 // 0 would warn, or raise here); its codes
    # against the scalar rule on a small domain: max Flesh Wounds 2, max Health 12, Dodges 0..1, FW 0..2, Health -1..12
    rows = list(itertools.product([0, 1], [0, 1, 2], range(-1, 13), [False, True]))
    d, fw, h, act = (np.array(c) for c in zip(*rows, strict=True))
    with np.errstate(all="raise"):
        got = wound_level_codes(d, fw, h, 2, 12, act)
    want = [wound_level_code(int(a), int(b), int(c), 2, 12, bool(e)) for a, b, c, e in rows]
    assert got.tolist() == want


def test_the_coma_rule_is_read_by_its_value() -> None:
    # house rule coma_instead_of_death 'always': rank 0 falls into a coma; the rule's name built at run time
    # (an equal string that is another object) must read the same
    always = "".join(["al", "ways"])
    blunt = "".join(["bl", "unt"])
    assert dying_result(0, False, always, False) == "coma"
    assert dying_result(0, False, blunt, True) == "coma"
    assert dying_result(0, False, blunt, False) == "dead"


def test_a_failed_starvation_check_leaves_the_character_unconscious() -> None:
    # Thirst: failure costs a Wound's worth of Health (a third of 20, rounded up: 7), and the character is
    # unconscious; Stamina rank 0 has no dice, so the Test fails whatever the roll. 20 - 7 = 13 Health left.
    v = Vitals.fresh(2, 3, 20)
    after, text, _ = starvation_check(v, 0, DiceRng(3))
    assert after.unconscious and after.health == 13 and not after.dying
    assert text == "loses 7 Health"


def test_a_wound_level_code_is_of_a_character_who_can_act_by_default() -> None:
    # untouched: 0 Health lost, Flesh Wounds at their maximum -> Healthy (code 0), not Incapacitated (5)
    assert wound_level_code(0, 4, 20, 4, 20) == 0
    assert wound_level_code(0, 3, 20, 4, 20) == 1  # Dodges gone and a Flesh Wound taken: Flesh Wounds


def test_no_stay_awake_checks_before_the_threshold() -> None:
    # Fatigue: Threshold Stamina x 8 = 24 hours at Stamina 3; at 10 hours awake nothing is due (not a negative count);
    # at 25 hours, one hour past at a check per half hour: 2 checks
    assert stay_awake_checks(10, 3) == 0
    assert stay_awake_checks(25, 3) == 2


def test_a_penalty_past_the_rank_collapses_too() -> None:
    # Fatigue: Stamina or Mental Fortitude brought to rank 0 falls unconscious; a penalty of 3 on Stamina 2
    # brings it below 0, which is past rank 0 (Mental Fortitude 5 - 3 = 2 would hold)
    assert collapses(2, 5, 3)
    assert collapses(5, 2, 3)
    assert not collapses(5, 5, 3)


def test_the_starvation_loss_rule_is_read_by_its_value() -> None:
    # house rule starvation_loss 'third' set with model_copy from a string built at run time (as a command line's
    # argument would be: an equal string that is another object): a third of 20 rounded up, 7, not the 1 of 'one'
    hr = BlyssHouseRules().model_copy(update={"starvation_loss": "".join(["th", "ird"])})
    after, _, _ = starvation_check(Vitals.fresh(2, 3, 20), 0, DiceRng(3), hr)
    assert after.health == 13


def test_nobody_dying_or_dead_acts_and_calls_by_keyword() -> None:
    # Unconsciousness, Dying, Death: a dying fighter (not dead) cannot act; nor a dead one not in a coma
    from storymaster.systems.blyss.living import apply_damage, can_act, dying_check

    assert not can_act(False, True, False, False)
    assert not can_act(False, False, True, False)
    assert can_act(False, False, False, False)
    # the leading parameters can be named: 3 damage against 2 Dodges, 3 Flesh Wounds: 2 from Dodges, 1 from FW
    v, took = apply_damage(v=Vitals.fresh(2, 3, 20), damage=3)
    assert took == {"dodges": 2, "flesh_wounds": 1, "health": 0}
    assert dying_check(v=v, stamina=3, rng=DiceRng(1))[1] == "not dying"
