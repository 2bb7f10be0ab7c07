"""Damage tracks, penalties, healing and rest (Kalyr RPG ch. 3: Damage, Effects of Damage, Getting rid of damage)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from storymaster.errors import CheckError
from storymaster.systems.kalyr.abilities import wound_modifier
from storymaster.systems.kalyr.character import Character
from storymaster.systems.kalyr.damage import (
    approach_total,
    armament_bonus,
    contest_damage,
    end_scene,
    halve_for_detailed,
    heal,
    rest,
    take_wound,
)
from storymaster.systems.kalyr.ladder import parse_level
from storymaster.systems.kalyr.options import KalyrHouseRules
from storymaster.systems.kalyr.wounds import (
    BOXES,
    DEFEATED,
    DESTROYED,
    HURT,
    SCRATCH,
    VERY_HURT,
    Track,
    heal_track,
    healing_levels,
    mark_wound,
    severity_for_damage,
)


def test_damage_points_to_wound_levels():
    """'1 is a Scratch, 2 Hurt, and so on'; 0 or less unscathed; past Destroyed stays Destroyed (ruling K4)."""
    assert [severity_for_damage(n) for n in (-3, 0, 1, 2, 3, 4, 5, 6, 12)] == [
        0,
        0,
        SCRATCH,
        HURT,
        VERY_HURT,
        DEFEATED,
        DESTROYED,
        DESTROYED,
        DESTROYED,
    ]


def test_approaches_add_and_cancel():
    assert approach_total(2, 0) == 2
    assert approach_total(1, 2) == 3
    assert approach_total(-1, -2) == -3
    assert approach_total(2, -2) == 0
    with pytest.raises(CheckError):
        approach_total(3, 0)


def test_contest_damage_formula():
    assert contest_damage(2, weapon=3, gift=1, armour=2, reduction=1, approach=-1) == 2


def test_halved_rounding_up():
    assert [halve_for_detailed(n) for n in (-2, 0, 1, 2, 3, 5, 6)] == [-2, 0, 1, 1, 2, 3, 3]


def test_armament_bonus_rule_of_thumb():
    a = Character(name="A", weapon={"name": "two-handed sword"}, armour={"name": "hardened ulsoghir hide"})
    b = Character(name="B", weapon={"name": "knife"})
    assert armament_bonus(a, b) == (2, 0)  # (3 + 2) / 2 rounded down
    assert armament_bonus(b, a) == (0, 2)
    c = Character(name="C", weapon={"name": "mace"}, armour={"name": "lightweight armour"})
    k = Character(name="K", weapon={"name": "narvork"}, armour={"name": "hardened ulsoghir hide"})
    assert armament_bonus(k, c) == (0, 0)  # (0 + 1) / 2 rounds down to 0


def test_overflow_when_track_is_full_goes_nowhere():
    t = Track()
    for s in (SCRATCH,) * 3 + (HURT, VERY_HURT, DEFEATED, DESTROYED):
        t, w = mark_wound(t, s)
        assert w is not None
    t2, w = mark_wound(t, HURT)
    assert w is None and t2 == t


@settings(max_examples=50)
@given(st.lists(st.integers(1, 5), max_size=10))
def test_track_never_overfills_and_boxes_are_at_least_severity(wounds):
    t = Track()
    for s in wounds:
        t, _ = mark_wound(t, s)
    for box, n in BOXES.items():
        assert t.used(box) <= n
    assert all(w.box >= w.severity for w in t.wounds)


def test_penalty_same_track_only_and_incapacitated_elsewhere():
    c = Character(name="X")
    c, _ = take_wound(c, "physical", VERY_HURT)
    assert wound_modifier(c, "physical")[0] == -2
    assert wound_modifier(c, "social")[0] == 0
    c, _ = take_wound(c, "social", DEFEATED)
    with pytest.raises(CheckError):
        wound_modifier(c, "social")
    assert wound_modifier(c, "physical")[0] == -3  # -2 and the Incapacitated -1 stack (ruling K5)
    assert wound_modifier(c, "mental")[0] == -1
    assert wound_modifier(c, "physical", KalyrHouseRules(cross_track_penalty_stacks=False))[0] == -2


def test_scratches_clear_at_end_of_scene():
    c = Character(name="X", raised_this_scene=("ability:stealth",))
    for _ in range(4):
        c, _ = take_wound(c, "physical", SCRATCH)
    assert c.damage.physical.status == HURT
    c, _ = take_wound(c, "physical", VERY_HURT)
    c = end_scene(c)
    assert [w.severity for w in c.damage.physical.wounds] == [VERY_HURT]
    assert c.raised_this_scene == ()


def test_healing_levels_by_result():
    assert [healing_levels(parse_level(x)) for x in ("Fair", "Good", "Great", "Superb", "Superb+2")] == [0, 1, 2, 3, 3]


def test_great_heals_two_levels_superb_three():
    t = Track()
    for s in (DESTROYED, VERY_HURT):
        t, _ = mark_wound(t, s)
    assert [w.severity for w in heal_track(t, 2).wounds] == [VERY_HURT]
    assert [w.severity for w in heal_track(t, 3).wounds] == [HURT]


def test_psionic_healing_takes_hours():
    c = Character(name="X")
    c, _ = take_wound(c, "mental", DEFEATED)
    c2, levels, time, unit = heal(c, "mental", parse_level("Good"), method="psionic")
    assert (levels, time, unit) == (1, 4, "hours")
    assert c2.damage.mental.status == VERY_HURT


def test_destroyed_healing_takes_a_week():
    c = Character(name="X")
    c, _ = take_wound(c, "physical", DESTROYED)
    _, _, time, unit = heal(c, "physical", parse_level("Good"))
    assert (time, unit) == (7, "days")


def test_social_damage_is_not_healed_by_skill():
    with pytest.raises(CheckError):
        heal(Character(name="X"), "social", parse_level("Superb"))


def test_rest_one_level_per_week():
    c = Character(name="X")
    c, _ = take_wound(c, "physical", DEFEATED)
    c, _ = take_wound(c, "social", HURT)
    one = rest(c, 1)
    assert one.damage.physical.status == VERY_HURT and one.damage.social.status == 0
    assert rest(c, 3).damage.physical.status == 0
    with pytest.raises(CheckError):
        rest(c, -1)


def test_destroyed_owes_a_key_and_fudge_reduces_it_to_defeated():
    c = Character(name="X", fudge_points=2)
    c1, rep = take_wound(c, "physical", DESTROYED)
    assert rep.key_due and c1.keys_due == 1
    c2, rep = take_wound(c, "physical", DESTROYED, fudge_reduce=1)
    assert rep.severity == DEFEATED and not rep.key_due
    assert c2.fudge_points == 1 and c2.experience == 1
    with pytest.raises(CheckError):
        take_wound(c, "physical", HURT, fudge_reduce=3)


def test_overflow_into_destroyed_also_owes_a_key():
    c = Character(name="X")
    for s in (HURT, VERY_HURT, DEFEATED, DEFEATED):
        c, rep = take_wound(c, "physical", s)
    assert rep.box == DESTROYED and c.keys_due == 1


def test_group_margins_round_down_not_to_nearest_nor_toward_zero():
    """Damage: "comparing the character's roll with the average roll of the other side, rounding down" (K25).

    An average of 1.5 against 0 is a margin of 1 (to the nearest would give 2); against 2 it is -0.5,
    rounded down to -1 (towards zero would give 0)."""
    from storymaster.systems.kalyr.checks import group_margins

    assert group_margins([0, 2], [1, 2]) == [1, -1]
    assert group_margins([0], [0, 0, 1]) == [0]  # 1/3 rounds down to 0
    assert group_margins([1], [0, 0, 1]) == [-1]  # -2/3 rounds down to -1


def test_contest_damage_defaults_add_nothing():
    """Only the bonuses a fight has count: the margin alone is the damage."""
    assert contest_damage(3) == 3
    assert contest_damage(3, weapon=2, armour=1) == 4


def test_wound_report_words_for_each_box():
    """Tracks (Scratch x3, Hurt, Very Hurt, Defeated, Destroyed, one box each above Scratch): a wound goes in its
    own box, else the next open box up, else nowhere; Destroyed owes a new Key. Words written by hand."""
    c = Character(name="X")
    c, r = take_wound(c, "physical", SCRATCH)
    assert r.text("X") == "X takes a physical Scratch"
    c, r = take_wound(c, "physical", HURT)
    assert r.text("X") == "X takes a physical Hurt"
    c, r = take_wound(c, "physical", HURT)
    assert r.text("X") == "X takes a physical Hurt, marked in the Very Hurt box (no open Hurt box)"
    c, r = take_wound(c, "physical", 0)
    assert r.text("X") == "X takes no physical damage"
    c, r = take_wound(c, "mental", DESTROYED)
    assert r.text("X") == "X takes a mental Destroyed; Destroyed: the character gains a new Key tied to this conflict"
    c, r = take_wound(c, "mental", DESTROYED)
    assert r.text("X") == "X takes a mental Destroyed, but every box from there up is already marked"


def test_no_weeks_of_rest_heal_nothing():
    c, _ = take_wound(Character(name="X"), "physical", HURT)
    assert rest(c, 0) == c
    with pytest.raises(CheckError, match="cannot be negative"):
        rest(c, -1)


def test_a_spent_fudge_point_is_an_experience_point():
    """Fudge Points: 'Every time a player spends a Fudge Point, they gain an Experience Point' (advancement=False
    is the program's switch for a fight that awards none); a wound of no level takes no Fudge point."""
    from storymaster.systems.kalyr.damage import take_damage

    c = Character(name="X", fudge_points=2)
    after, _ = take_wound(c, "physical", HURT, fudge_reduce=1)
    assert (after.fudge_points, after.experience) == (1, 1)
    after, _ = take_damage(c, "physical", 2, fudge_reduce=1)  # 2 points: Hurt, reduced to a Scratch
    assert (after.fudge_points, after.experience) == (1, 1)
    after, _ = take_wound(c, "physical", HURT, fudge_reduce=1, advancement=False)
    assert (after.fudge_points, after.experience) == (1, 0)
    for severity in (0, -1):
        after, _ = take_wound(c, "physical", severity, fudge_reduce=1)
        assert (after.fudge_points, after.experience) == (2, 0)


def test_an_unarmed_simple_contest_hurts_by_the_margin():
    """Using Simple Contests for Fights, unarmed: no weapon or armour, no approaches: each side's damage points are
    the margin against it (negative for the winner, who takes no wound)."""
    from storymaster.systems.kalyr.damage import simple_contest_damage

    a, b = Character(name="A"), Character(name="B")
    assert simple_contest_damage(a, 3, b, 1, armed=False) == (-2, 2)
    assert simple_contest_damage(a, 1, b, 4, armed=False) == (3, -3)


def test_healing_more_levels_than_a_wound_has_removes_it():
    """Getting rid of damage: each level healed takes a wound one step down, and a Scratch is no level (a Hurt
    healed 1 is gone). A Hurt healed 3 (Superb) is gone too, not left below zero; a Very Hurt healed 1 is Hurt."""
    t, _ = mark_wound(Track(), HURT)
    assert heal_track(t, 3).wounds == ()
    assert heal_track(t, 1).wounds == ()
    t, _ = mark_wound(Track(), VERY_HURT)
    assert [w.severity for w in heal_track(t, 1).wounds] == [HURT]
    assert heal_track(t, 2).wounds == ()


def test_scratches_heal_with_the_first_level_and_take_no_time():
    """Getting rid of damage: a Scratch is no level; healing times go by the level each wound heals from
    (Hurt 1 ... Destroyed 7, ruling K9), so Scratches and an empty track take none, and healing 0 levels none."""
    from storymaster.systems.kalyr.wounds import healing_time

    t, _ = mark_wound(Track(), SCRATCH)
    t, _ = mark_wound(t, HURT)
    assert heal_track(t, 1).wounds == ()
    assert healing_time(t, 1) == 1
    assert healing_time(t, 0) == 0
    s, _ = mark_wound(Track(), SCRATCH)
    assert healing_time(s, 1) == 0
    assert healing_time(Track(), 2) == 0
    assert heal_track(t, 0) == t and heal_track(t, -1) == t  # no levels (or a bad count) heal nothing


def test_wound_levels_by_name_or_number_only():
    from storymaster.systems.kalyr.wounds import parse_severity

    assert parse_severity(3) == VERY_HURT and parse_severity("very hurt") == VERY_HURT
    for bad in (7, 0, True):
        with pytest.raises(CheckError, match="is not a wound level"):
            parse_severity(bad)
