"""The forecast's vectorised rules agree with the named scalar rules on every input of a small domain
(issue 14: "each rule stated once"), and the AC/3 rounding is pinned by armours that are not multiples of 3."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from storymaster.systems.philsys import damage as dmg
from storymaster.systems.philsys.character import Armor, armor_reduction
from storymaster.systems.philsys.checks import melee_result, melee_result_v
from storymaster.systems.philsys.options import PhilsysHouseRules

MARGINS = np.arange(-45, 46)


@pytest.mark.parametrize(
    "hr",
    [
        PhilsysHouseRules(),
        PhilsysHouseRules(unparried_attacks_hit_automatically=True),
        PhilsysHouseRules(critical_margin=1),
        PhilsysHouseRules(critical_margin=20, unparried_attacks_hit_automatically=True),
    ],
)
@pytest.mark.parametrize("parry", [True, False])
def test_melee_result_twin(hr: PhilsysHouseRules, parry: bool) -> None:
    crit, hit, fail = melee_result_v(MARGINS, parry, hr)
    assert crit.dtype == hit.dtype == fail.dtype == np.bool_  # masks: the forecast indexes with them
    for m, c, h, f in zip(MARGINS.tolist(), crit, hit, fail, strict=True):
        scalar = melee_result(m, parry, hr)
        assert (bool(c), bool(h), bool(f)) == (
            scalar == "critical hit",
            scalar == "hit",
            scalar == "critical failure",
        ), (m, scalar)


def test_reduce_damage_twin() -> None:
    damages = np.arange(-5, 61)
    for stopped in range(12):
        got = dmg.reduce_damage_v(damages, stopped).tolist()
        assert got == [dmg.reduce_damage(d, stopped) for d in damages.tolist()]


def test_head_shot_twin_and_chance() -> None:
    faces = np.arange(1, 7)
    assert dmg.head_shot_kills_on_v(faces).tolist() == [dmg.head_shot_kills_on(f) for f in range(1, 7)]
    # the book: 'on a roll of 1-5 the target dies'
    assert [dmg.head_shot_kills_on(f) for f in range(1, 7)] == [True] * 5 + [False]
    assert dmg.head_shot_kill_chance() == 5 / 6
    # 'on a roll of 5-6 the limb is disabled'
    assert [dmg.limb_disabled_on(f) for f in range(1, 7)] == [False] * 4 + [True, True]


def test_location_damage_from_the_table() -> None:
    # Resolving Ranged Attacks: torso +1d6+1d4, head +10+1d10, limb and abdomen nothing extra
    assert dmg.location_damage_expr("4d8", "torso") == "4d8+1d6+1d4"
    assert dmg.location_damage_expr("4d8", "head") == "4d8+10+1d10"
    assert dmg.location_damage_expr("4d8", "limb") == "4d8"
    assert dmg.location_damage_expr("4d8", "abdomen") == "4d8"


@pytest.mark.parametrize(("ac", "stops"), [(8, 2), (7, 2), (5, 1), (1, 0), (2, 0), (16, 5), (17, 5)])
def test_ac_third_rounds_down_for_armour_not_a_multiple_of_three(ac: int, stops: int) -> None:
    """Ruling 7: AC/3 rounded down. Rounding up or to nearest would give 3 for AC 8 (8/3 = 2.67) and 2 for AC 5;
    only rounding down gives these."""
    assert armor_reduction(ac) == stops
    assert dmg.apply_armor(20, ac) == 20 - stops
    assert dmg.armor_stops(Armor(name="x", ac=ac)) == stops


def test_armour_stops_spells_only_when_exotic() -> None:
    plain, exotic = Armor(name="p", ac=8), Armor(name="e", ac=8, reduces_magic=True)
    assert dmg.armor_stops(plain, magical=True) == 0
    assert dmg.armor_stops(exotic, magical=True) == 2
    assert dmg.armor_stops(None) == 0
    for a, m in itertools.product((plain, exotic), (False,)):
        assert dmg.armor_stops(a, magical=m) == 2


@pytest.mark.parametrize(
    "hr",
    [
        PhilsysHouseRules(),
        PhilsysHouseRules(critical_health_threshold=10, critical_health_penalty=6, heavy_wound_penalty=4),
    ],
)
def test_wound_penalty_twin(hr: PhilsysHouseRules) -> None:
    hps = np.arange(-15, 40)
    for heavy in (False, True):
        got = dmg.wound_penalty_v(hps, np.full(hps.shape, heavy), hr).tolist()
        assert got == [dmg.wound_penalty(h, hr, heavy) for h in hps.tolist()]


def test_wound_penalty_edges_from_the_book() -> None:
    """Taking Damage: critical health at 'roughly 10-15 HP or less' (default 15), not at 0 or below (unconscious):
    15 HP is penalised, 16 is not, 1 is, 0 is not."""
    hr = PhilsysHouseRules()
    assert [dmg.wound_penalty(hp, hr) for hp in (16, 15, 1, 0)] == [0, 3, 3, 0]
    assert dmg.wound_penalty(16, PhilsysHouseRules(heavy_wound_penalty=4), True) == 4


def test_heavy_blow_twin_and_more_than_three_quarters() -> None:
    """'more than 3/4 ... of a character's total HP from one attack': of 28 HP, 21 is exactly 3/4 (not more);
    22 is; of 30 HP (3/4 = 22.5) 22 is not and 23 is (a rounded 3/4 would call 22 or 23 differently)."""
    assert [dmg.heavy_blow(d, 28) for d in (21, 22)] == [False, True]
    assert [dmg.heavy_blow(d, 30) for d in (22, 23)] == [False, True]
    damages = np.arange(-3, 80)
    for top in range(61):
        assert dmg.heavy_blow_v(damages, top).tolist() == [dmg.heavy_blow(d, top) for d in damages.tolist()]


def test_death_and_shield_twins() -> None:
    hps = np.arange(-30, 5)
    for threshold in (-10, -1, 0, -20):
        hr = PhilsysHouseRules(death_threshold=threshold)
        assert dmg.is_dead_v(hps, hr).tolist() == [dmg.is_dead(h, hr) for h in hps.tolist()]
    assert [dmg.is_dead(h) for h in (-9, -10)] == [False, True]  # the default addition: death at -10
    raws = np.arange(-2, 40)
    for ac in range(25):
        assert dmg.shield_overwhelmed_v(raws, ac).tolist() == [dmg.shield_overwhelmed(r, ac) for r in raws.tolist()]
    assert [dmg.shield_overwhelmed(r, 12) for r in (12, 13)] == [False, True]  # 'exceeds' the shield's AC


def test_heal_threshold_is_a_quarter_rounded_down_on_ints_and_arrays() -> None:
    from storymaster.systems.philsys.combat import heal_threshold

    assert [heal_threshold(t) for t in (40, 41, 43, 44)] == [10, 10, 10, 11]
    tops = np.arange(0, 100)
    assert heal_threshold(tops).tolist() == [t // 4 for t in range(100)]  # type: ignore[arg-type]


def test_halves_round_down_on_odd_values() -> None:
    """Rulings 1 and 8 and Advancement: every half rounds down. Odd values tell the readings apart:
    near-miss magic on 7 damage deals 3 (not 4); AGI 4 + COU 3 / 2 = 5 (not 6); (MAG 3 + INT 2) / 2 = 2 (not 3)."""
    from storymaster.systems.philsys.advancement import mp_gain_expr
    from storymaster.systems.philsys.character import Character, Stats, initiative_bonus

    assert [dmg.half_damage(v) for v in (0, 1, 7, 8)] == [0, 0, 3, 4]
    values = np.arange(0, 80)
    assert dmg.half_damage(values).tolist() == [dmg.half_damage(v) for v in values.tolist()]
    c = Character(name="odd", stats=Stats(AGI=4, COU=3, INT=5, MAG=3))
    assert initiative_bonus(c, PhilsysHouseRules(initiative_formula="agi_cou_half")) == 5
    assert initiative_bonus(c, PhilsysHouseRules(initiative_formula="agi_int_half")) == 6  # 4 + 5/2
    assert initiative_bonus(c, PhilsysHouseRules(initiative_formula="agi_cou")) == 7
    assert mp_gain_expr(Character(name="m", stats=Stats(MAG=3, INT=2))) == "1d4+2"


def test_bleed_twin() -> None:
    hps = np.arange(-20, 10)
    for hr in (
        PhilsysHouseRules(),
        PhilsysHouseRules(bleeding=True),
        PhilsysHouseRules(bleeding=True, bleeding_rate=3),
    ):
        assert dmg.bleed_v(hps, hr).tolist() == [dmg.bleed(h, hr) for h in hps.tolist()]
    assert [dmg.bleed(h, PhilsysHouseRules(bleeding=True)) for h in (0, -1)] == [0, -2]  # 'below 0 HP': not at 0


# --- the simulation's twins of the round's rules (issue 14) -----------------------------------


@pytest.mark.parametrize("near_miss", [False, True])
def test_magic_result_twin(near_miss: bool) -> None:
    from storymaster.systems.philsys.checks import magic_result, magic_result_v

    hr = PhilsysHouseRules(near_miss_half_damage=near_miss)
    hit, half = magic_result_v(MARGINS, hr)
    assert hit.dtype == half.dtype == np.bool_
    for m, h, x in zip(MARGINS.tolist(), hit, half, strict=True):
        assert (bool(h), bool(x)) == (magic_result(m, hr) == "hit", magic_result(m, hr) == "half damage"), m


def test_opposed_wins_serves_ints_and_arrays() -> None:
    from storymaster.systems.philsys.checks import opposed_wins

    a, d = np.meshgrid(np.arange(-3, 25), np.arange(-3, 25))
    got = opposed_wins(a.ravel(), d.ravel())
    assert got.tolist() == [opposed_wins(x, y) for x, y in zip(a.ravel().tolist(), d.ravel().tolist(), strict=True)]
    assert opposed_wins(7, 7) is False and opposed_wins(8, 7) is True  # a tie goes to the defender


def test_pay_cost_twin() -> None:
    from storymaster.systems.philsys.character import Cost

    hp, mp, tp = (g.ravel() for g in np.meshgrid(np.arange(-2, 9), np.arange(0, 9), np.arange(0, 6)))
    for cmp, ctp, chp in itertools.product(range(6), range(4), range(3)):
        cost = Cost(mp=cmp, tp=ctp, hp=chp)
        ok = tp >= ctp  # a tech cannot be used without its TP: the scalar refuses, the twin is never asked
        got = dmg.pay_cost_v(hp[ok], mp[ok], tp[ok], cost)
        want = [
            dmg.pay_cost(h, m, t, cost)
            for h, m, t in zip(hp[ok].tolist(), mp[ok].tolist(), tp[ok].tolist(), strict=True)
        ]
        assert list(zip(*(x.tolist() for x in got), strict=True)) == want


def test_healed_twin() -> None:
    hp, amount = (g.ravel() for g in np.meshgrid(np.arange(-12, 30), np.arange(-4, 30)))
    for top in (1, 10, 25):
        assert dmg.healed_v(hp, amount, top).tolist() == [
            dmg.healed(h, x, top) for h, x in zip(hp.tolist(), amount.tolist(), strict=True)
        ]
    assert dmg.healed(5, -3, 20) == 5 and dmg.healed(18, 6, 20) == 20


def test_is_unconscious_serves_arrays() -> None:
    hp = np.arange(-12, 5)
    assert dmg.is_unconscious(hp).tolist() == [dmg.is_unconscious(h) for h in hp.tolist()]


def test_affords_twin() -> None:
    from storymaster.systems.philsys.round import Move, affords

    mp, tp, hp = (g.ravel() for g in np.meshgrid(np.arange(0, 7), np.arange(0, 5), np.arange(-1, 5)))
    for a in (Move(0, 0, 0, "1"), Move(3, 0, 0, "1"), Move(0, 2, 1, "1"), Move(4, 3, 2, "1")):
        got = affords(mp, tp, hp, a).tolist()
        assert got == [bool(affords(m, t, h, a)) for m, t, h in zip(mp.tolist(), tp.tolist(), hp.tolist(), strict=True)]
        # the book's costs: MP and TP at hand; an HP cost needs more HP than it takes (never paid into 0)
        assert got == [
            m >= a.mp and t >= a.tp and h > a.hp for m, t, h in zip(mp.tolist(), tp.tolist(), hp.tolist(), strict=True)
        ]


@pytest.mark.parametrize("threshold", [0, 5, 15])
def test_end_code_twin(threshold: int) -> None:
    from storymaster.systems.philsys.forecast import end_code, end_code_v

    hr = PhilsysHouseRules(critical_health_threshold=threshold)
    hp = np.arange(-12, 40)
    for unc, dead in itertools.product([False, True], repeat=2):
        for top in (20, 30):
            got = end_code_v(hp, np.full(hp.size, unc), np.full(hp.size, dead), top, hr).tolist()
            assert got == [end_code(h, unc, dead, top, hr) for h in hp.tolist()]


@pytest.mark.parametrize("heavy_penalty", [0, 4])
def test_modified_at_pa_twin(heavy_penalty: int) -> None:
    from storymaster.systems.philsys.character import Shield
    from storymaster.systems.philsys.round import modified_at_pa, modified_at_pa_v

    hr = PhilsysHouseRules(heavy_wound_penalty=heavy_penalty, critical_health_threshold=6)
    hp, broken, heavy = (g.ravel() for g in np.meshgrid(np.arange(-3, 12), [False, True], [False, True]))
    for shield in (None, Shield(name="Buckler", ac=8, pa=1), Shield(name="Tower", ac=12, at=-2, pa=3)):
        at, pa = modified_at_pa_v((14, 11), shield, broken, hp, heavy, hr)
        want = [
            modified_at_pa((14, 11), shield, b, h, w, hr)
            for b, h, w in zip(broken.tolist(), hp.tolist(), heavy.tolist(), strict=True)
        ]
        assert list(zip(at.tolist(), pa.tolist(), strict=True)) == want


@pytest.mark.parametrize("ties", ["modifier_then_reroll", "reroll"])
def test_initiative_rank_twin_sorts_like_the_key(ties: str) -> None:
    from storymaster.systems.philsys.round import initiative_key, initiative_rank_v

    hr = PhilsysHouseRules(initiative_ties=ties)
    total, bonus = (g.ravel() for g in np.meshgrid(np.arange(-2, 25), np.arange(-3, 12)))
    rank = initiative_rank_v(total, bonus, hr).tolist()
    keys = [initiative_key(t, b, hr) for t, b in zip(total.tolist(), bonus.tolist(), strict=True)]
    for i in range(0, len(keys), 7):  # every pair with every 7th fighter: the same order, the same ties
        for j in range(len(keys)):
            assert (rank[i] > rank[j]) == (keys[i] > keys[j]) and (rank[i] == rank[j]) == (keys[i] == keys[j])


def test_aim_at() -> None:
    assert [dmg.aim_at(a, True) for a in ("limb", "abdomen", "torso", "head")] == ["limb", "abdomen", "torso", "head"]
    assert [dmg.aim_at(a, False) for a in ("limb", "abdomen", "torso", "head")] == [
        "abdomen",
        "abdomen",
        "torso",
        "abdomen",
    ]


def _duel_setup(hr: PhilsysHouseRules):
    from storymaster.systems.philsys import SYSTEM
    from storymaster.systems.philsys.character import Character
    from storymaster.systems.philsys.combat import setup

    c = Character.model_validate({"name": "A", "stats": {"STA": -5}})  # 30 HP: heavy blows within reach
    return setup(SYSTEM.combat.start([[c], [c.model_copy(update={"name": "B"})]], house_rules=hr))


@pytest.mark.parametrize(
    "hr",
    [PhilsysHouseRules(), PhilsysHouseRules(heavy_wound_penalty=4, death_threshold=-3)],
)
def test_hurt_twin(hr: PhilsysHouseRules) -> None:
    from storymaster.systems.philsys.round import Body, hurt, hurt_v

    su = _duel_setup(hr)
    top = su.specs[1].top
    grid = np.meshgrid(np.arange(-4, 16), [False, True], [False, True], [-1, 3], np.arange(0, 26))
    hp, unc, heavy, wake, amount = (g.ravel() for g in grid)
    got = hurt_v(hp, unc, heavy, wake, amount, top, hr)
    for n, (h, u, w, k, x) in enumerate(
        zip(hp.tolist(), unc.tolist(), heavy.tolist(), wake.tolist(), amount.tolist(), strict=True)
    ):
        b = Body(h, 0, 0, unconscious=u, heavy_wound=w, wake_in=None if k < 0 else k)
        after = hurt(su, (Body(30, 0, 0), b), 1, x)[1]
        want = (
            after.hp,
            after.unconscious,
            after.dead,
            after.heavy_wound,
            -1 if after.wake_in is None else after.wake_in,
        )
        assert tuple(v[n].item() for v in got) == want, (h, u, w, k, x)


@pytest.mark.parametrize(
    "hr", [PhilsysHouseRules(), PhilsysHouseRules(bleeding=True, bleeding_rate=2, death_threshold=-6)]
)
def test_end_of_round_twin(hr: PhilsysHouseRules) -> None:
    from storymaster.systems.philsys.round import Body, end_of_round, end_of_round_v

    su = _duel_setup(hr)
    grid = np.meshgrid(np.arange(-9, 6), [False, True], [False, True], [-1, 0, 1, 2, 5])
    hp, unc, dead, wake = (g.ravel() for g in grid)
    got = end_of_round_v(hp, unc, dead, wake, hr)
    for n, (h, u, d, k) in enumerate(zip(hp.tolist(), unc.tolist(), dead.tolist(), wake.tolist(), strict=True)):
        b = Body(h, 0, 0, unconscious=u, dead=d, wake_in=None if k < 0 else k)
        after = end_of_round(su, (Body(30, 0, 0), b))[1]
        want = (after.hp, after.unconscious, after.dead, -1 if after.wake_in is None else after.wake_in)
        assert tuple(v[n].item() for v in got) == want, (h, u, d, k)


@pytest.mark.parametrize(
    "house",
    [
        {},
        {"critical_health_missile": True},
        {"critical_health_missile": True, "critical_health_penalty": 6, "heavy_wound_penalty": 4},
    ],
)
def test_missile_wound_penalty_twin(house: dict[str, object]) -> None:
    """Ruling P-L1: nothing off a shot by the book; the whole wound penalty under the house rule."""
    hr = PhilsysHouseRules(**house)  # type: ignore[arg-type]
    hp = np.arange(-12, 40)
    for heavy in (False, True):
        got = dmg.missile_wound_penalty_v(hp, np.full(hp.shape, heavy), hr)
        for h, g in zip(hp.tolist(), got.tolist(), strict=True):
            assert g == dmg.missile_wound_penalty(h, hr, heavy), (h, heavy)
            if not hr.critical_health_missile:
                assert g == 0
            elif 0 < h <= hr.critical_health_threshold:
                assert g >= hr.critical_health_penalty
