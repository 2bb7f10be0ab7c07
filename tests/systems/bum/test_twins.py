"""Each vectorised twin (twins.py) the simulation calls against its scalar rule (rounds.py, checks.py), on every
input of a small domain: the simulation and the engine state each rule once."""

from __future__ import annotations

import warnings
from fractions import Fraction
from itertools import permutations, product

import numpy as np
import pytest

from storymaster.systems.bum import BumCharacter, BumHouseRules, twins
from storymaster.systems.bum.character import profile
from storymaster.systems.bum.checks import p_fixed, p_opposed_final, range_penalty
from storymaster.systems.bum.fighters import UNARMED, set_down
from storymaster.systems.bum.rounds import (
    Fixed,
    Opposed,
    advance,
    after_shot,
    p_ok,
    pick_target,
    reload_step,
    strikes_first,
    uses_missile,
)
from storymaster.systems.bum.twins import (
    READINESS,
    advance_v,
    after_shot_v,
    p_fixed_v,
    p_opposed_v,
    pick_target_v,
    range_penalty_v,
    reload_step_v,
    set_down_v,
    strikes_first_v,
    uses_missile_v,
)

MISSILES = [
    {"name": "Longbow"},
    {"name": "Small crossbow"},
    {"name": "Pistol"},
    {"name": "Musket"},
    {"name": "Throwing knife"},
    {"name": "Rifle", "kind": "musket", "rifle": True, "modern": True, "wounds": 1},
]
RULES = [
    BumHouseRules(),
    BumHouseRules(thrown_max_turns=1, rifle_range_divisor=3, muzzleloader_reload_actions=2, double_move=True),
]


def missile(entry: dict):
    c = BumCharacter(name="M", stats={"STR": 2, "DEX": 2, "INT": 2, "SOC": 2}, weapons={"ranged": entry})
    m = profile(c, "ranged")
    assert m is not None
    return m


def codes(values) -> np.ndarray:
    return np.array([READINESS.index(v) for v in values], dtype=np.int64)


@pytest.fixture(autouse=True)
def _no_numpy_warnings():
    """A twin does plain boolean and integer work: any numpy warning (a division by zero, an overflow) is a fault."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        yield


def is_mask(a) -> bool:
    return isinstance(a, np.ndarray) and a.dtype == np.bool_


def test_event_chances_are_the_book_counts():
    """The events' outcomes are the counted chances of checks.py (Fractions, ties re-rolled or settled)."""
    for d, tie in product(range(-8, 9), (None, "actor", "opponent")):
        assert p_ok(Opposed(d, 0, tie)) == pytest.approx(float(p_opposed_final(d, 0, tie)), abs=1e-15)
        assert p_ok(Opposed(d + 3, 3, tie)) == p_ok(Opposed(d, 0, tie))
    for b, dc in product(range(-8, 9), range(11)):
        assert p_ok(Fixed(b, dc, "")) == float(p_fixed(b, dc))
    assert p_ok(Opposed(0, 0, None)) == pytest.approx(float(Fraction(15, 30)))  # 15 wins of 30 untied pairs


def test_p_opposed_and_p_fixed_twins():
    twins._TABLES.clear()  # as in a fresh process: the chance tables are made on first use
    diffs = np.arange(-9, 10)
    for tie in (None, "actor", "opponent"):
        assert list(p_opposed_v(diffs, tie)) == [p_ok(Opposed(int(d), 0, tie)) for d in diffs]
    for dc in range(11):
        bonuses = np.arange(-8, 12)
        assert list(p_fixed_v(bonuses, dc)) == [p_ok(Fixed(int(b), dc, "")) for b in bonuses]


def test_pick_target_twin_on_every_small_fight():
    """Three fighters, every side split, turn order, hit points 0-1 (and -1, a state edited by hand: no more standing
    than 0), chosen target and rolled flags."""
    for sides in ((0, 1, 1), (0, 1, 0), (1, 0, 2)):
        orders = list(permutations(range(3)))
        hps = [*product((0, 1), repeat=3), (-1, 1, 1), (1, -1, 1), (1, 1, -1), (1, -1, -1)]
        rolls = [None, *product((False, True), repeat=3)]
        for i, target, rolled in product(range(3), (-1, 0, 1, 2), rolls):
            rows = list(product(orders, hps))
            pos = np.array([np.argsort(o) for o, _ in rows])
            hp = np.array([h for _, h in rows])
            r = None if rolled is None else np.tile(np.array(rolled), (len(rows), 1))
            got = pick_target_v(i, pos, np.array(sides), hp, target, r)
            want = [pick_target(i, o, sides, h, target, rolled) for o, h in rows]
            assert got.dtype.kind == "i"
            assert list(got) == want, (sides, i, target, rolled)


def test_range_penalty_twin():
    dist = np.arange(0, 9)
    for entry, hr in product(MISSILES, RULES):
        m = missile(entry)
        want = [range_penalty(int(d), rifle=m.rifle, hr=hr) for d in dist]
        assert list(range_penalty_v(dist, m, hr)) == want


def test_uses_missile_twin_on_every_small_turn():
    tactics = ("auto", "melee", "ranged", "hold")
    ammos = (None, 0, 1, 2, -1)  # -1: a count edited by hand, no more missiles than 0
    dist = np.array([d for d, _ in product(range(5), range(4 * 5))])
    ready_all = [r for _ in range(5) for r in READINESS for _ in range(5)]
    ammo_all = [a for _ in range(5) for _ in READINESS for a in ammos]
    for entry, hr, tactic, first in product(MISSILES, RULES, tactics, (False, True)):
        m = missile(entry)
        want = [
            uses_missile(m, tactic, r, a, int(d), first, hr) for d, r, a in zip(dist, ready_all, ammo_all, strict=True)
        ]
        # the twin takes the counted ammunition as one array: ask for the counted and the uncounted rows apart
        for counted in (False, True):
            rows = [k for k, a in enumerate(ammo_all) if (a is not None) == counted]
            ammo = np.array([ammo_all[k] for k in rows]) if counted else None
            got = uses_missile_v(m, tactic, codes([ready_all[k] for k in rows]), ammo, dist[rows], first, hr)
            assert list(got) == [want[k] for k in rows], (entry["name"], tactic, first, counted)
            assert is_mask(got)


def test_after_shot_twin():
    for entry in MISSILES:
        m = missile(entry)
        left = np.array([0, 1, 2, 3])
        assert list(after_shot_v(m, left, 4)) == list(codes([after_shot(m, int(a)) for a in left]))
        assert list(after_shot_v(m, None, 2)) == list(codes([after_shot(m, None)] * 2))


def test_set_down_and_reload_step_twins():
    ready = codes(READINESS)
    for kind in ("bow", "crossbow", "muzzleloader", "thrown", None):
        assert list(set_down_v(kind, ready)) == list(codes([set_down(kind, r) for r in READINESS]))
        for hr in RULES:
            rows = list(product(READINESS, range(15)))
            got_ready, got_prog = reload_step_v(kind, codes([r for r, _ in rows]), np.array([p for _, p in rows]), hr)
            want = [reload_step(kind, r, p, hr) for r, p in rows]
            assert list(got_ready) == list(codes([w for w, _ in want])) and got_ready.dtype.kind == "i"
            assert list(got_prog) == [p for _, p in want]


def test_advance_twin():
    dist = np.arange(0, 7)
    for tactic, hr in product(("auto", "melee", "ranged", "hold"), RULES):
        after, strike = advance_v(dist, tactic, hr)
        want = [advance(int(d), tactic, hr) for d in dist]
        assert list(after) == [a for a, _ in want] and list(strike) == [s for _, s in want]
        assert is_mask(strike)


def test_strikes_first_twin():
    c = BumCharacter(
        name="S", stats={"STR": 2, "DEX": 2, "INT": 2, "SOC": 2}, weapons={"primary": {"name": "Longspear"}}
    )
    longspear = profile(c, "primary")
    assert longspear is not None and longspear.longspear
    # acted, hp, stunned, distance; -1 hit points or stun: a state edited by hand (no more standing, still stunned)
    rows = list(product((False, True), (-1, 0, 1, 2), (-1, 0, 1), (0, 1, 2)))
    for hr, weapon, surprised in product(
        (BumHouseRules(), BumHouseRules(longspear_first_strike=True)), (longspear, UNARMED), (False, True)
    ):
        acted, hp, stun, dist = (np.array(col) for col in zip(*rows, strict=True))
        got = strikes_first_v(hr, np.full(len(rows), weapon.longspear), acted, hp, stun, surprised, dist)
        want = [strikes_first(hr, weapon, a, h, s, surprised, d) for a, h, s, d in rows]
        assert list(got) == want and is_mask(got)
