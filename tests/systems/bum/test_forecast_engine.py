"""The forecast agrees with the B.U.M. engine, fight by fight, across what the engine plays.

Each scenario runs the engine on a seeded sample (``fight_by_fight``) and the
vectorised simulation (and the exact chain where it applies), and compares every
side's chance to win within 4 combined standard errors.
"""

from __future__ import annotations

import math

import pytest

from storymaster.forecast import fight_by_fight
from storymaster.systems.bum import SYSTEM, BumCharacter, BumHouseRules
from storymaster.systems.bum.forecast import end_label

engine = SYSTEM.combat


def npc(name: str, stats: tuple[int, int, int, int], **kw) -> BumCharacter:
    s = dict(zip(("STR", "DEX", "INT", "SOC"), stats, strict=True))
    return BumCharacter(name=name, npc=True, stats=s, **kw)


SPEAR = npc("Spearman", (3, 2, 1, 1), weapons={"primary": {"name": "Longspear"}}, armour={"name": "Leather"})
SWORD = npc("Swordsman", (3, 2, 1, 1), weapons={"primary": {"name": "Sword"}}, shield={"name": "Buckler"})
PISTOLS = npc(
    "Pistoleer",
    (2, 3, 2, 1),
    weapons={"ranged": {"name": "Pistol", "ammo": 2}, "backup": {"name": "Dagger"}},
)
ARCHER = npc("Archer", (2, 4, 1, 1), weapons={"ranged": {"name": "Longbow", "ammo": 3}, "primary": {"name": "Club"}})
KNIVES = npc("Knife thrower", (2, 3, 1, 1), weapons={"ranged": {"name": "Throwing knife", "ammo": 2}})
BRUTE = npc("Brute", (4, 1, 1, 1))  # bare hands
RIFLE = npc(
    "Sniper",
    (2, 4, 1, 1),
    weapons={
        "ranged": {"name": "Rifle", "kind": "musket", "rifle": True, "modern": True, "wounds": 1, "ammo": 3},
        "backup": {"name": "Knife"},
    },
)
KNIGHT = npc(
    "Knight",
    (3, 2, 1, 1),
    weapons={"primary": {"name": "Longsword"}},
    armour={"name": "Plate"},
    shield={"name": "Kite shield"},
)
MUSKET = npc("Musketeer", (2, 3, 1, 1), weapons={"ranged": {"name": "Musket"}, "primary": {"name": "Club"}})


def sides_of(state) -> list[list[str]]:
    n = max(f.side for f in state.fighters) + 1
    return [[f.name for f in state.fighters if f.side == s] for s in range(n)]


def ends(state):
    return {f.name: end_label(f.hp, f.character.stats.STR) for f in state.fighters}


def close(a, b, n_a: int | None, n_b: int | None, k: float = 4.0) -> None:
    """Every side's p_win within k combined standard errors (an exact forecast has none)."""
    for pa, pb in zip(a.p_win, b.p_win, strict=True):
        p = (pa + pb) / 2
        var = sum(p * (1 - p) / n for n in (n_a, n_b) if n)
        assert abs(pa - pb) <= k * math.sqrt(var) + 1e-9, (a.p_win, b.p_win)
    assert abs(a.p_draw - b.p_draw) <= k * math.sqrt(sum(0.25 / n for n in (n_a, n_b) if n)) + 1e-9


def scenario(card, key):
    v, p1, p2, thief = (card(n) for n in ("victor-mordox", "player1", "player2", "thief"))
    hr = BumHouseRules()
    table = {
        "duel-4": ([[v], [p1]], {"tactics": {"Victor Mordox": "melee"}}, hr),
        "crossbow-at-range-dex": ([[v], [thief, thief]], {"distance": 3, "initiative": "dex"}, hr),
        "teams-3": ([[p1, thief], [v, thief]], {"level": 3}, hr),
        "level-1": ([[p1, p2], [thief, v]], {"level": 1, "dc": 11}, hr),
        "level-2-wounds": ([[p1], [v, thief]], {"level": 2}, BumHouseRules(loser_fate="wound")),
        "longspear": ([[SWORD], [SPEAR, thief]], {}, BumHouseRules(longspear_first_strike=True)),
        "sneak-headshot": (
            [
                [
                    p2.model_copy(
                        update={
                            "weapons": p2.weapons.model_copy(
                                update={"ranged": p2.weapons.ranged.model_copy(update={"readiness": "ready"})}
                            )
                        }
                    )
                ],
                [thief, p1],
            ],
            {"distance": 2, "surprised": ["Thief"], "sneak_headshot": True, "sneak_dc": 5},
            hr,
        ),
        "melee-sneak": ([[v, p1], [thief, thief]], {"surprised": ["Thief 2"], "tactics": {"0": "melee"}}, hr),
        "pistols-reload": (
            [[PISTOLS, MUSKET], [BRUTE, thief]],
            {"distance": 1, "tactics": {"Musketeer": "ranged"}},
            hr,
        ),
        "archer-holds": (
            [[ARCHER], [KNIVES, SWORD]],
            {"distance": 4, "tactics": {"Archer": "hold"}},
            BumHouseRules(double_move=True),
        ),
        "switch-3-to-4": ([[v], [p1]], {"level": 3, "switch": {3: 4}, "tactics": {"Victor Mordox": "melee"}}, hr),
        "three-sides": ([[p1], [thief], [BRUTE]], {"level": 3}, BumHouseRules(opposed_ties="defender")),
        "ties-to-players": (
            [[p1], [v]],
            {"initiative": "int", "tactics": {"1": "melee"}},
            BumHouseRules(opposed_ties="players"),
        ),
        "stand-off": ([[thief], [thief]], {"max_rounds": 3}, hr),
        "reload-at-range": ([[p2], [thief, SWORD]], {"distance": 3, "delay": {"Thief": "Swordsman"}}, hr),
        "targets-and-delay": (
            [[v, p1], [thief, BRUTE]],
            {"targets": {"Victor Mordox": "Brute"}, "delay": {"Victor Mordox": "Thief"}, "tactics": {"0": "melee"}},
            hr,
        ),
        "modern-rifle": ([[RIFLE], [KNIGHT]], {"distance": 4}, BumHouseRules(modern_guns_ignore_armour=True)),
        "sneak-without-kills": (
            [[SPEAR, SWORD], [BRUTE, thief]],
            {"surprised": ["Brute", "Thief"]},
            BumHouseRules(sneak_melee_kills=False, longspear_first_strike=True),
        ),
        "switch-down-to-2": (
            [[p1, thief], [v, BRUTE]],
            {"switch": {2: 2}, "tactics": {"1": "melee"}},
            BumHouseRules(loser_fate="wound"),
        ),
        "level-1-wounds": ([[p1, p2], [v, BRUTE]], {"level": 1, "dc": 9}, BumHouseRules(loser_fate="wound")),
        "thrown-out-of-reach": ([[KNIVES], [ARCHER]], {"distance": 3, "initiative": "int"}, hr),
        "dex-teams-melee": ([[v, thief], [p1, SPEAR]], {"initiative": "dex", "tactics": {"0": "melee"}}, hr),
    }
    if key == "stunned-mid-fight":
        from storymaster.dice import DiceRng
        from storymaster.systems.bum.combat import apply_hazard

        s = engine.start([[v, thief], [p1, SPEAR]], options={"tactics": {"0": "melee"}})
        s, _ = engine.step(s, DiceRng("stun"))
        s, _ = apply_hazard(s, "Player 1", stun_rounds=2)
        s, _ = apply_hazard(s, "Thief", wounds=1, stun_rounds=1)
        return s
    sides, opts, rules = table[key]
    return engine.start(sides, house_rules=rules, options=opts)


KEYS = [
    "duel-4",
    "crossbow-at-range-dex",
    "teams-3",
    "level-1",
    "level-2-wounds",
    "longspear",
    "sneak-headshot",
    "melee-sneak",
    "pistols-reload",
    "archer-holds",
    "switch-3-to-4",
    "three-sides",
    "ties-to-players",
    "stand-off",
    "reload-at-range",
    "targets-and-delay",
    "modern-rifle",
    "sneak-without-kills",
    "switch-down-to-2",
    "level-1-wounds",
    "thrown-out-of-reach",
    "stunned-mid-fight",
    "dex-teams-melee",
]
N_ENGINE, N_SIM = 600, 20_000


@pytest.mark.parametrize("key", KEYS)
def test_forecast_agrees_with_engine(card, key):
    state = scenario(card, key)
    ref = fight_by_fight("bum", engine, state, samples=N_ENGINE, seed=key, sides=sides_of(state), end_state=ends)
    sim = SYSTEM.forecast(state, method="simulate", samples=N_SIM, seed=1)
    close(sim, ref, N_SIM, N_ENGINE)
    assert sum(sim.p_win) + sim.p_draw == pytest.approx(1)
    # each fighter's chance of going down agrees too
    for c in sim.combatants:
        e = next(x for x in ref.combatants if x.name == c.name)
        p, q = c.end_states.get("down (0 HP)", 0.0), e.end_states.get("down (0 HP)", 0.0)
        m = (p + q) / 2
        assert abs(p - q) <= 4 * math.sqrt(m * (1 - m) * (1 / N_SIM + 1 / N_ENGINE)) + 1e-9, (c.name, p, q)
    # the exact chain covers every one of these (an independent program from the simulation)
    ex = SYSTEM.forecast(state, method="exact")
    assert ex.method == "exact" and ex.error < 1e-9
    close(ex, sim, None, N_SIM)
    assert sum(ex.p_win) + ex.p_draw == pytest.approx(1, abs=1e-9)
    assert SYSTEM.forecast(state).method == "exact"  # auto picks the chain


def test_big_fights_are_simulated(card):
    """Six fighters whose turn order is rolled, or many hit points: auto simulates; exact says why not."""
    from storymaster.errors import OddsError

    v, p1, thief = card("victor-mordox"), card("player1"), card("thief")
    rolled = engine.start([[v, p1, thief], [thief, p1, v]], options={"initiative": "dex"})
    with pytest.raises(OddsError, match="rolled"):
        SYSTEM.forecast(rolled, method="exact")
    auto = SYSTEM.forecast(rolled, samples=2000)
    assert auto.method == "simulated" and auto.notes[-1].startswith("simulated, not exact: the turn order of 6")
    ogres = [npc(f"Ogre {i}", (9, 2, 1, 1), weapons={"primary": {"name": "Club"}}) for i in range(5)]
    big = engine.start([ogres[:2], ogres[2:]])
    with pytest.raises(OddsError, match="combinations"):
        SYSTEM.forecast(big, method="exact")
    f = SYSTEM.forecast(big, samples=2000)
    assert f.method == "simulated" and f.p_win[1] > f.p_win[0]
