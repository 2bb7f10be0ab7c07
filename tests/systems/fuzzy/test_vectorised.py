"""The simulation's vectorised rules against their scalar namesakes, on every input of a small domain (issue 14)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from storymaster.systems.fuzzy import SYSTEM
from storymaster.systems.fuzzy.character import CombatProfile, FuzzyCharacter, RequiredAbilities
from storymaster.systems.fuzzy.combat import (
    CombatTactics,
    blow_outcome,
    body_test,
    carry_over,
    defence_total,
    exchange_dice,
    harm_level,
    harm_spend,
    next_manoeuvre,
    pairings,
    tenacity_test,
)
from storymaster.systems.fuzzy.options import FuzzyHouseRules
from storymaster.systems.fuzzy.rolls import total_distribution
from storymaster.systems.fuzzy.vectorised import (
    LEVELS,
    STATUSES,
    FightTables,
    TotalSampler,
    carry_over_v,
    harm_level_v,
    harm_spend_v,
    next_manoeuvre_v,
    with_worst,
)

STANCES = ("normal", "offensive", "defensive", "all-out attack", "all-out defence")


def _character(name: str, body: int, tenacity: int = 2, **combat) -> FuzzyCharacter:
    profile = {"weapon": "sword", "weapon_lethality": "normal", **combat}
    return FuzzyCharacter(
        name=name, required=RequiredAbilities(body=body, tenacity=tenacity), combat=CombatProfile(**profile)
    )


@pytest.mark.parametrize("ruling", ["keep", "offset", "lose"])
def test_carry_over(ruling):
    house = FuzzyHouseRules(advantage_on_loss=ruling)
    grid = np.array(list(itertools.product(range(13), range(13))))
    gained, theirs = carry_over_v(grid[:, 0], grid[:, 1], house)
    want = [carry_over(int(g), int(t), house) for g, t in grid]
    assert list(zip(gained.tolist(), theirs.tolist(), strict=True)) == want


def test_harm_spend():
    state = SYSTEM.combat.start([[_character("A", 3)], [_character("B", 3)]])
    base = state.fighters[0]
    points, dtotal = (a.ravel() for a in np.meshgrid(np.arange(25), np.arange(1, 7)))
    for stance, harm_at, lethality in itertools.product(
        STANCES, ("moderate", "serious", "mortal", "killed"), ("harmless", "normal")
    ):
        f = base.model_copy(
            update={"tactics": CombatTactics(stance=stance, harm_at=harm_at), "weapon_lethality": lethality}
        )
        tables = FightTables(state.model_copy(update={"fighters": (f, state.fighters[1])}))
        can, all_out, mult = (x[0] for x in tables.attackers())
        n = points.size
        got = harm_spend_v(points, dtotal, np.full(n, can), np.full(n, all_out), np.full(n, mult))
        assert got.tolist() == [harm_spend(int(p), int(d), f) for p, d in zip(points, dtotal, strict=True)]


def test_harm_level():
    points, dtotal = (a.ravel() for a in np.meshgrid(np.arange(31), np.arange(1, 8)))
    got = harm_level_v(points, dtotal)
    assert [LEVELS[i] for i in got.tolist()] == [
        harm_level(int(p), int(d)) for p, d in zip(points, dtotal, strict=True)
    ]


def test_next_manoeuvre():
    tactics = CombatTactics(
        manoeuvres=[
            {"name": "feint", "cost": 2, "roll_bonus": 1},
            {"name": "high ground", "cost": 4, "roll_bonus": 2},
            {"name": "feint", "cost": 1},
            {"name": "out of the window", "cost": 3, "ends_fight": True},
        ]
    )
    state = SYSTEM.combat.start([[_character("A", 3)], [_character("B", 3)]])
    base = state.fighters[0].model_copy(update={"tactics": tactics})
    names = ("feint", "high ground", "out of the window")
    for bought in itertools.product((False, True), repeat=len(names)):
        f = base.model_copy(update={"bought": tuple(n for n, b in zip(names, bought, strict=True) if b)})
        points = np.arange(9)
        pick = next_manoeuvre_v(tactics.manoeuvres, names, np.tile(np.array(bought), (points.size, 1)), points)
        want = [next_manoeuvre(f, int(p)) for p in points]
        assert [tactics.manoeuvres[i] if i >= 0 else None for i in pick.tolist()] == want


HOUSES = [
    FuzzyHouseRules(),
    FuzzyHouseRules(nonlethal_body_test=7, killing_blow_leaves_dying=True, mortal_wound_deaths=False, huge_crowd=3),
]


@pytest.mark.parametrize("house", HOUSES, ids=["book", "house rules"])
def test_the_fight_tables_are_the_scalar_rules(house):
    a = _character("A", 4, 3, armour="armour", encumbrance="heavy")
    b = _character("B", 2, 1, weapon_lethality="really deadly")
    c = _character("C", 1, 2, hindered=False)
    d = _character("D", 3, 4, weapon_lethality="not-so-lethal")
    e = _character("E", 5, 2)
    state = SYSTEM.combat.start(
        [[a, b, c], [d, e]],
        house_rules=house,
        options={
            "tactics": [
                {
                    "intent": "non-lethal",
                    "appropriateness": 1,
                    "manoeuvres": [{"name": "m", "cost": 2, "roll_bonus": -1}],
                },
                {"stance": "defensive", "crowd": "multiple", "manoeuvres": [{"name": "n", "cost": 2, "roll_bonus": 2}]},
            ]
        },
    )
    fs = state.fighters
    t = FightTables(state)
    for (i, f), w, k in itertools.product(enumerate(fs), range(4), range(len(fs) + 1)):
        assert t.dice[i, w, k] == exchange_dice(with_worst(f, w), k, house)[0]
    for (i, f), rb in itertools.product(enumerate(fs), range(-1, 3)):
        assert t.flat[i, rb - t.rb_low] == exchange_dice(with_worst(f, 0, rb), 1, house)[1]
    for (i, df), (j, af), w in itertools.product(enumerate(fs), enumerate(fs), range(4)):
        assert t.defence[i, j, w] == defence_total(with_worst(df, w), af)[0]
    for (i, f), w in itertools.product(enumerate(fs), range(4)):
        assert t.p_tenacity[i, w] == sum(
            p for p, r in tenacity_test(f, with_worst(f, w).wounds, house).outcomes() if r.passed
        )
        if house.nonlethal_body_test is not None and f.tactics.intent != "lethal":
            assert t.p_body[i, w] == sum(p for p, r in body_test(with_worst(f, w), house).outcomes() if r.passed)
        else:
            assert t.p_body[i, w] == 1.0
    for level, lethal, passed in itertools.product(range(1, len(LEVELS)), (0, 1), (0, 1)):
        out = blow_outcome(LEVELS[level], bool(lethal), bool(passed), house)
        status = t.blow_status[level, lethal, passed]
        assert (STATUSES[status] if status >= 0 else None) == out.get("status")
        assert t.blow_dying[level, lethal, passed] == bool(out.get("dying"))
        assert t.blow_ko[level, lethal, passed] == bool(out.get("knocked_out"))
    # who fights whom, for every set of fighters still up
    masks = np.array(list(itertools.product((False, True), repeat=len(fs))))[:, ::-1]
    opp, count = t.pairs(masks)
    for row, up in enumerate(masks):
        st = state.model_copy(
            update={
                "fighters": tuple(
                    f.model_copy(update={"status": "fighting" if u else "dead"}) for f, u in zip(fs, up, strict=True)
                )
            }
        )
        want = pairings(st)
        got = [(fs[i].key, fs[int(o)].key) for i, o in enumerate(opp[row].tolist()) if o >= 0]
        assert got == [(f.key, g.key) for f, g in want]
        engaged = {f.key: 0 for f in fs}
        for f, g in want:
            engaged[f.key] += 1
            engaged[g.key] += 1
        assert count[row].tolist() == list(engaged.values())


@pytest.mark.parametrize("dice", [1, 2, 5])
def test_the_total_sampler_draws_the_exact_distribution(dice):
    house = FuzzyHouseRules(critical_bonus_max_explosions=3)
    values, cdf = TotalSampler(house).table(dice)
    dist = sorted(total_distribution(dice, house).items())
    assert values.tolist() == [t for t, _ in dist]
    assert np.diff(np.concatenate(([0.0], cdf))) == pytest.approx([float(p) for _, p in dist], abs=1e-15)


# -- what a blow does and what a manoeuvre buys, applied to arrays, against the scalar rules -----------------


@pytest.mark.parametrize("house", HOUSES, ids=["book", "house rules"])
def test_after_blow_is_blow_outcome_on_every_input(house):
    """Every blow level x lethal x passed, on a fighter in every status, dying or not, knocked out or not: the
    twin's status and flags are blow_outcome's update applied to him (status unchanged when it names none;
    a flag once set stays set, as the engine's model_copy of an update without it keeps it)."""
    state = SYSTEM.combat.start([[_character("A", 3)], [_character("B", 3)]], house_rules=house)
    t = FightTables(state)
    cases = list(
        itertools.product(range(1, len(LEVELS)), (False, True), (False, True), range(len(STATUSES)), (0, 1), (0, 1))
    )
    n = len(cases)
    level = np.array([c[0] for c in cases])
    lethal = np.array([c[1] for c in cases])
    passed = np.array([c[2] for c in cases])
    # fight i's fighter 1 is the one hit; fighter 0 holds other values, which must not leak in
    status = np.array([[0, c[3]] for c in cases])
    dying = np.array([[True, bool(c[4])] for c in cases])
    ko = np.array([[True, bool(c[5])] for c in cases])
    fights, who = np.arange(n), np.ones(n, dtype=np.int64)
    new_s, new_d, new_k = t.after_blow(level, lethal, passed, status, dying, ko, fights, who)
    f0 = state.fighters[1]
    for i, (lv, le, pa, st, dy, k) in enumerate(cases):
        f = f0.model_copy(update={"status": STATUSES[st], "dying": bool(dy), "knocked_out": bool(k)})
        want = f.model_copy(update=blow_outcome(LEVELS[lv], le, pa, house))
        assert (STATUSES[new_s[i]], bool(new_d[i]), bool(new_k[i])) == (want.status, want.dying, want.knocked_out)
    # one 'passed' for all (the killing blow's call passes False)
    s2, _, _ = t.after_blow(level, lethal, False, status, dying, ko, fights, who)
    for i, (lv, le, _pa, st, _dy, _k) in enumerate(cases):
        want = blow_outcome(LEVELS[lv], le, False, house).get("status", STATUSES[st])
        assert STATUSES[s2[i]] == want


def test_buy_is_the_engines_manoeuvre_purchase_on_every_input():
    """Fighter x buys next_manoeuvre_v in each fight: against the engine's own spending (combat._spend, with a
    fighter who cannot hurt, so no harm is ever due) for every bought subset and every points total 0..8, one
    fight at a time and all at once."""
    from storymaster.forecast import Rolled
    from storymaster.systems.fuzzy.combat import _spend

    tactics = CombatTactics(
        stance="all-out defence",
        manoeuvres=[
            {"name": "feint", "cost": 2, "roll_bonus": 1},
            {"name": "high ground", "cost": 4, "roll_bonus": 2},
            {"name": "stumble", "cost": 1, "roll_bonus": -1},
            {"name": "out of the window", "cost": 3, "ends_fight": True},
        ],
    )
    state = SYSTEM.combat.start([[_character("A", 3), _character("B", 3)], [_character("C", 3)]])
    state = state.model_copy(
        update={
            "fighters": (
                state.fighters[0],
                state.fighters[1].model_copy(update={"tactics": tactics}),
                state.fighters[2],
            )
        }
    )
    t = FightTables(state)
    x = 1
    names = t.names[x]
    assert names == ("feint", "high ground", "stumble", "out of the window")
    cases = list(itertools.product(itertools.product((False, True), repeat=len(names)), range(9), (0, 2), (-1, 0, 3)))
    want = []
    for bought, points, against, rb in cases:
        f = state.fighters[x].model_copy(
            update={"bought": tuple(n for n, b in zip(names, bought, strict=True) if b), "roll_bonus": rb}
        )
        fighters = {g.key: g for g in state.fighters}
        fighters[f.key] = f
        opp = state.fighters[against].key
        pools = {(f.key, opp): points}
        _spend(fighters, pools, f.key, opp, 1, Rolled(None, narrate=False), state.house_rules, [])  # type: ignore[arg-type]
        g = fighters[f.key]
        want.append((pools[(f.key, opp)], tuple(n in g.bought for n in names), g.roll_bonus, g.status))

    def apply(idx: list[int]):
        m = len(idx)
        pool = np.zeros((m, 3, 3), dtype=np.int64)
        bought = np.zeros((m, 3, len(names)), dtype=bool)
        rb = np.zeros((m, 3), dtype=np.int64)
        status = np.zeros((m, 3), dtype=np.int64)
        points = np.array([cases[i][1] for i in idx], dtype=np.int64)
        against = np.array([cases[i][2] for i in idx], dtype=np.int64)
        for j, i in enumerate(idx):
            pool[j, x, cases[i][2]] = cases[i][1]
            bought[j, x] = cases[i][0]
            rb[j, x] = cases[i][3]
        t.buy(x, np.arange(m), against, points, pool, bought, rb, status)
        return [
            (int(pool[j, x, cases[i][2]]), tuple(bool(b) for b in bought[j, x]), int(rb[j, x]), STATUSES[status[j, x]])
            for j, i in enumerate(idx)
        ], (pool, bought, rb, status)

    got, (pool, bought, rb, status) = apply(list(range(len(cases))))
    assert got == want
    # nothing else changes: the other fighters' pools, flags, bonuses and statuses
    others = [0, 2]
    assert not bought[:, others].any() and not rb[:, others].any() and not status[:, others].any()
    assert not pool[:, others].any()
    for i in range(0, len(cases), 37):  # one fight at a time
        assert apply([i])[0] == [want[i]]
    # a fighter with no manoeuvres, or no fights, changes nothing
    empty = np.array([], dtype=np.int64)
    pool = np.full((2, 3, 3), 5)
    t.buy(
        0,
        np.arange(2),
        np.array([1, 1]),
        np.array([5, 5]),
        pool,
        np.zeros((2, 3, 4), bool),
        np.zeros((2, 3), int),
        np.zeros((2, 3), int),
    )
    t.buy(x, empty, empty, empty, pool, np.zeros((2, 3, 4), bool), np.zeros((2, 3), int), np.zeros((2, 3), int))
    assert (pool == 5).all()


class _FixedUniforms:
    """A generator stand-in whose ``random(n)`` hands out the given numbers (in [0, 1))."""

    def __init__(self, us):
        self.us = np.asarray(us, dtype=float)

    def random(self, n):
        assert n == self.us.size
        return self.us


@pytest.mark.parametrize("dice", [1, 2, 3])
def test_the_total_sampler_is_the_inverse_cdf(dice):
    """u in [0, 1) maps to the total t whose interval [F(t-1), F(t)) holds it, F the exact CDF in Fractions
    (summed here): each total is drawn with its chance. Checked at 0, at each interval's middle and just below 1
    (not at the ends themselves: there the float CDF's rounding decides); dice counts mixed in one call."""
    house = FuzzyHouseRules(critical_bonus_max_explosions=2)
    dist = sorted(total_distribution(dice, house).items())
    edges, acc = [], Fraction(0)
    for _, p in dist:
        acc += p
        edges.append(acc)
    us, want = [0.0], [dist[0][0]]
    lo = Fraction(0)
    for (t, _), hi in zip(dist, edges, strict=True):
        us.append(float((lo + hi) / 2))
        want.append(t)
        lo = hi
    us.append(np.nextafter(1.0, 0.0))
    want.append(dist[-1][0])
    sampler = TotalSampler(house)
    got = sampler.roll(np.full(len(us), dice), _FixedUniforms(us))
    assert got.tolist() == want
    # mixed with one-die rolls in the same call: each keeps its own table
    one = sorted(total_distribution(1, house).items())
    mixed = np.array([dice, 1] * len(us))
    u2 = np.repeat(us, 2)
    got2 = sampler.roll(mixed, _FixedUniforms(u2))
    assert got2[0::2].tolist() == want
    cdf1 = np.cumsum([float(p) for _, p in one])
    assert got2[1::2].tolist() == [one[min(int(np.searchsorted(cdf1, u, side="right")), len(one) - 1)][0] for u in us]


def test_the_flat_table_covers_every_roll_bonus_a_fighter_can_reach():
    """A fighter whose manoeuvres are worth -1 and +2 can stand at -1, 0, +1 (both bought) or +2: every one of
    them is in the table, each the scalar flat modifier (the table's lowest entry is the lowest reachable)."""
    tactics = CombatTactics(
        manoeuvres=[
            {"name": "stumble", "cost": 1, "roll_bonus": -1},
            {"name": "high ground", "cost": 4, "roll_bonus": 2},
        ]
    )
    state = SYSTEM.combat.start([[_character("A", 3)], [_character("B", 3)]])
    a = state.fighters[0].model_copy(update={"tactics": tactics})
    state = state.model_copy(update={"fighters": (a, state.fighters[1])})
    t = FightTables(state)
    assert t.rb_low == -1
    for rb in (-1, 0, 1, 2):
        assert t.flat[0, rb - t.rb_low] == exchange_dice(with_worst(a, 0, rb), 1, state.house_rules)[1] == rb


def test_next_manoeuvre_v_gives_minus_one_for_none():
    """Its contract: the index of the manoeuvre bought, or -1 when none is (nothing affordable, all bought)."""
    tactics = CombatTactics(manoeuvres=[{"name": "feint", "cost": 2}])
    got = next_manoeuvre_v(tactics.manoeuvres, ("feint",), np.array([[False], [False], [True]]), np.array([1, 2, 5]))
    assert got.tolist() == [-1, 0, -1]
