"""Random small fights (seeded): the exact chain and the numpy simulation, two programs of the same rules, agree.

Each fight draws weapons, missiles (counted or not, ready or not), armour, shields, levels, distances,
turn-order rules, tactics, targets, sneak attacks, switches and house rules at random.
"""

from __future__ import annotations

import math
import random

import pytest

from storymaster.forecast import fight_by_fight
from storymaster.systems.bum import SYSTEM, BumCharacter, BumHouseRules

MELEE = ["dagger", "sword", "spear", "longsword", "longspear", "quarterstaff", "greatsword", "club", None]
RANGED = [
    "thrown knife",
    "javelin",
    "shortbow",
    "longbow",
    "small crossbow",
    "pistol",
    "heavy crossbow",
    "musket",
    None,
]
ARMOUR = [None, "leather", "maille", "plate"]
SHIELDS = [None, "buckler", "small shield", "large shield"]


def random_card(rng: random.Random, name: str) -> BumCharacter:
    stats = {"STR": rng.randint(1, 4), "DEX": rng.randint(1, 4), "INT": rng.randint(1, 3), "SOC": 1}
    weapons: dict = {}
    melee, ranged = rng.choice(MELEE), rng.choice(RANGED)
    if melee:
        weapons["primary"] = {"name": melee}
    if ranged:
        entry: dict = {"name": ranged}
        if rng.random() < 0.5:
            entry["ammo"] = rng.randint(0, 3)
        if rng.random() < 0.3:
            entry["readiness"] = "empty" if ranged in ("pistol", "musket") else "unready"
        weapons["ranged"] = entry
    extra = {}
    armour, shield = rng.choice(ARMOUR), rng.choice(SHIELDS)
    if armour:
        extra["armour"] = {"name": armour}
    if shield and melee not in ("longspear", "quarterstaff", "greatsword"):
        extra["shield"] = {"name": shield}
    return BumCharacter(name=name, npc=rng.random() < 0.5, stats=stats, weapons=weapons, **extra)


def random_fight(seed: int):
    rng = random.Random(seed)
    na, nb = rng.choice([(1, 1), (1, 1), (1, 2), (2, 2), (2, 1)])
    cards = [random_card(rng, f"F{i}") for i in range(na + nb)]
    hr = BumHouseRules(
        opposed_ties=rng.choice(["reroll", "defender", "attacker", "players"]),
        longspear_first_strike=rng.random() < 0.3,
        double_move=rng.random() < 0.3,
        modern_guns_ignore_armour=rng.random() < 0.2,
        sneak_melee_kills=rng.random() < 0.7,
        loser_fate=rng.choice(["defeated", "wound"]),
    )
    opts: dict = {
        "level": rng.choice([1, 2, 3, 4, 4, 4]),
        "distance": rng.choice([0, 0, 1, 2, 3, 5]),
        "initiative": rng.choice(["gm", "gm", "dex", "int"]),
        "initiator": rng.randint(0, 1),
        "dc": rng.randint(4, 10),
        "max_rounds": rng.choice([100, 100, 6]),
        "tactics": {
            f"F{i}": rng.choice(["auto", "auto", "melee", "ranged", "hold"])
            for i in range(na + nb)
            if rng.random() < 0.4
        },
    }
    if rng.random() < 0.3:
        opts["switch"] = {rng.randint(2, 4): rng.choice([1, 2, 3, 4])}
    if rng.random() < 0.3:
        opts["surprised"] = [f"F{rng.randint(0, na + nb - 1)}"]
        opts["sneak_headshot"] = rng.random() < 0.5
    if rng.random() < 0.3:
        opts["targets"] = {"F0": f"F{na + rng.randint(0, nb - 1)}"}
    return SYSTEM.combat.start([cards[:na], cards[na:]], house_rules=hr, options=opts)


def within(a, b, n_a: int | None, n_b: int, k: float = 4.0) -> None:
    for pa, pb in zip((*a.p_win, a.p_draw), (*b.p_win, b.p_draw), strict=True):
        p = (pa + pb) / 2
        var = sum(p * (1 - p) / n for n in (n_a, n_b) if n)
        assert abs(pa - pb) <= k * math.sqrt(var) + 1e-9, (a.p_win, a.p_draw, b.p_win, b.p_draw)


@pytest.mark.parametrize("seed", range(8))
def test_random_fights_exact_and_simulated_agree(seed):
    state = random_fight(seed)
    exact = SYSTEM.forecast(state, method="exact")
    sim = SYSTEM.forecast(state, method="simulate", samples=20_000, seed=seed)
    within(exact, sim, None, 20_000)
    assert exact.error < 1e-9
    assert abs(exact.mean_rounds - sim.mean_rounds) < 0.1
    for c in exact.combatants:
        assert sum(c.end_states.values()) == pytest.approx(1, abs=1e-9)


@pytest.mark.parametrize("seed", [112, 116])  # level 4: two against two at range; a stand-off at the cap
def test_random_fights_agree_with_the_engine(seed):
    state = random_fight(seed)
    sides = [[f.name for f in state.fighters if f.side == i] for i in range(2)]
    ref = fight_by_fight("bum", SYSTEM.combat, state, samples=600, seed=f"random-{seed}", sides=sides)
    within(SYSTEM.forecast(state), ref, None, 600)
