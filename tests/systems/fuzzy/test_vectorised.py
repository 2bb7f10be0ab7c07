"""The simulation's vectorised rules against their scalar namesakes, on every input of a small domain (issue 14)."""

from __future__ import annotations

import itertools

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
