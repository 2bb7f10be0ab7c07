"""The B.U.M. forecast's edges (forecast.py): the words around the numbers, the exact chain's limits, the duel
reference, and the numpy simulation against the exact chain (an independent program: the round enumerated) on
small fights that each exercise one rule. Odds by hand come from Part Two's counts (d6 + bonus, ties again)."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product

import pytest

from storymaster.errors import OddsError
from storymaster.systems.bum import SYSTEM, BumCharacter, BumHouseRules
from storymaster.systems.bum.combat import apply_hazard
from storymaster.systems.bum.forecast import (
    DuelChain,
    duel_chain,
    end_label,
    exact_scope,
    round_transitions,
    win_probability,
)

engine = SYSTEM.combat


def npc(name: str, stats=(2, 2, 2, 2), **kw) -> BumCharacter:
    s = dict(zip(("STR", "DEX", "INT", "SOC"), stats, strict=True))
    return BumCharacter.model_validate({"name": name, "npc": True, "stats": s, **kw})


def sword(name: str, strength: int = 2, dex: int = 2) -> BumCharacter:
    return npc(name, (strength, dex, 2, 2), weapons={"primary": {"name": "Sword"}})


def p_opp(a: int, b: int) -> float:
    """d6 + a exceeds d6 + b, ties rolled again: wins / (36 - ties), counted."""
    wins = sum(1 for x, y in product(range(1, 7), repeat=2) if x + a > y + b)
    ties = sum(1 for x, y in product(range(1, 7), repeat=2) if x + a == y + b)
    return wins / (36 - ties)


# -- words -------------------------------------------------------------------------------------------


def test_end_labels_in_the_books_terms():
    """Part Five, Wounds/Injury: no wound on the card is unhurt; at 0 HP he is down."""
    assert [end_label(h, 3) for h in (-1, 0, 1, 2, 3, 4)] == [
        "down (0 HP)",
        "down (0 HP)",
        "1 HP left",
        "2 HP left",
        "unhurt",
        "unhurt",
    ]


def test_end_states_are_listed_mildest_first():
    """Two fighters with 4 HP at level 3: every end state from unhurt to down, in that order."""
    s = engine.start([[sword("A", 4)], [sword("B", 4)]], options={"level": 3})
    f = SYSTEM.forecast(s, method="exact")
    assert f.end_state_order == ("unhurt", "3 HP left", "2 HP left", "1 HP left", "down (0 HP)")
    s = engine.start([[sword("A", 9)], [sword("B", 9)]], options={"level": 3})  # 9 HP each: eleven ends
    f = SYSTEM.forecast(s, method="exact")
    assert f.end_state_order == ("unhurt", *(f"{k} HP left" for k in range(8, 0, -1)), "down (0 HP)")


def test_tactics_and_notes_in_words():
    a, b, c = sword("A"), sword("B"), sword("C")
    s = engine.start(
        [[a, b], [c]],
        options={"level": 2, "tactics": {"A": "melee"}, "targets": {"B": "C"}, "max_rounds": 9},
    )
    f = SYSTEM.forecast(s, method="exact")
    assert dict(f.tactics) == {"A": "A: melee, B: auto; B targets C", "B": "auto"}
    assert f.notes[0] == ("rounds are counted from this state (round 0); the fight stops as a stand-off after round 9")
    assert "levels 1-2: the loser of a roll is out (0 HP)" in f.notes
    f = SYSTEM.forecast(s.model_copy(update={"house_rules": BumHouseRules(loser_fate="wound")}), method="exact")
    assert "levels 1-2: the loser of a roll is wounded" in f.notes
    s4 = engine.start([[a], [c]], options={"tactics": {"0": "hold", "1": "hold"}, "switch": {2: 1}, "distance": 1})
    assert any(n.startswith("levels 1-2") for n in SYSTEM.forecast(s4, method="exact").notes)
    s4 = engine.start([[a], [c]], options={"switch": {2: 3}})
    assert not any(n.startswith("levels 1-2") for n in SYSTEM.forecast(s4, method="exact").notes)
    # an empty side in the middle keeps its letter, with no one's tactics
    s_gap = engine.start([[a], [], [c]], options={"level": 3})
    assert dict(SYSTEM.forecast(s_gap, method="exact").tactics) == {"A": "auto", "B": "", "C": "auto"}
    # three sides: each side's tactics under its own letter
    s3 = engine.start([[a], [b], [c]], options={"level": 3, "tactics": {"2": "hold"}})
    assert dict(SYSTEM.forecast(s3, method="exact").tactics) == {"A": "auto", "B": "auto", "C": "hold"}


# -- the exact chain's limits ------------------------------------------------------------------------


def test_exact_scope_limits_at_their_edges():
    """The hit points make prod(hp + 1) combinations (at most 20,000); a rolled order of at most 5 fighters."""
    ogre = npc("Ogre", (9, 2, 2, 2))  # 9 HP: 10 states each
    four = engine.start([[ogre, ogre], [ogre, ogre]])  # 10^4 = 10,000

    def with_hp(*hps: int):
        return four.model_copy(
            update={"fighters": tuple(f.model_copy(update={"hp": h}) for f, h in zip(four.fighters, hps, strict=True))}
        )

    exact_scope(four)
    exact_scope(with_hp(19, 9, 9, 9))  # 20 * 10 * 10 * 10 = 20,000
    with pytest.raises(OddsError, match="21,000 combinations"):
        exact_scope(with_hp(20, 9, 9, 9))
    five = engine.start([[sword("A"), sword("B"), sword("C")], [sword("D"), sword("E")]], options={"initiative": "dex"})
    exact_scope(five)
    six = engine.start(
        [[sword("A"), sword("B"), sword("C")], [sword("D"), sword("E"), sword("F")]], options={"initiative": "int"}
    )
    with pytest.raises(OddsError, match="at most 5"):
        exact_scope(six)
    exact_scope(six.model_copy(update={"order": ("A", "B", "C", "D", "E", "F")}))  # an order given: nothing rolled
    exact_scope(six.model_copy(update={"initiative": "gm"}))


def test_forecast_refuses_other_states_and_methods():
    from pydantic import BaseModel

    class Other(BaseModel):
        x: int = 0

    with pytest.raises(OddsError, match=r"B\.U\.M\. fight state"):
        SYSTEM.forecast(Other())  # type: ignore[arg-type]
    s = engine.start([[sword("A")], [sword("B")]])
    for method in ("exact", "simulate", "auto"):
        assert SYSTEM.forecast(s, method=method, samples=500).p_win[0] > 0
    with pytest.raises(OddsError):
        SYSTEM.forecast(s, method="Exact")


def test_a_finished_fight_and_a_fight_with_nobody_standing():
    s = engine.start([[sword("A")], [sword("B")]])
    done = apply_hazard(s, "B", wounds=2)[0]
    f = SYSTEM.forecast(done)
    assert f.p_win == (1.0, 0.0) and f.p_draw == 0.0 and f.rounds == {0: 1.0}
    assert f.combatants[0].end_states == {"unhurt": 1.0} and f.combatants[1].end_states == {"down (0 HP)": 1.0}
    nobody = apply_hazard(done, "A", wounds=2)[0]
    f = SYSTEM.forecast(nobody)
    assert f.p_win == (0.0, 0.0) and f.p_draw == 1.0 and f.combatants[0].end_states == {"down (0 HP)": 1.0}
    b_won = apply_hazard(s, "A", wounds=2)[0]
    f = SYSTEM.forecast(b_won)
    assert f.p_win == (0.0, 1.0) and f.p_draw == 0.0
    stopped = s.model_copy(update={"ended": True})
    f = SYSTEM.forecast(stopped)
    assert f.p_draw == 1.0 and f.p_win == (0.0, 0.0) and f.notes == ("the fight is already over",)


# -- exact odds by hand ----------------------------------------------------------------------------------


def test_level2_duel_in_closed_form_by_hand():
    """Level 2: one roll decides. A (+5) against B (+4): A wins with p; the loser is out (0 HP)."""
    s = engine.start([[sword("A", 3)], [sword("B")]], options={"level": 2})
    p = p_opp(5, 4)
    f = SYSTEM.forecast(s, method="exact")
    assert f.p_win == pytest.approx((p, 1 - p), abs=1e-12) and f.rounds == {1: pytest.approx(1.0)}
    assert f.combatants[0].end_states == {"unhurt": pytest.approx(p), "down (0 HP)": pytest.approx(1 - p)}
    assert f.combatants[1].end_states == {"down (0 HP)": pytest.approx(p), "unhurt": pytest.approx(1 - p)}


def test_level3_duel_in_closed_form_by_hand():
    """Level 3, A 2 HP (+4) against B 1 HP (+4), mid-fight: A needs one win before two losses: p + (1-p) p."""
    s = engine.start([[sword("A")], [sword("B")]], options={"level": 3})
    s = apply_hazard(s, "B", wounds=1)[0]
    p = p_opp(4, 4)  # 1/2
    f = SYSTEM.forecast(s, method="exact")
    assert f.p_win[0] == pytest.approx(p + (1 - p) * p, abs=1e-12)
    assert f.rounds == {1: pytest.approx(p), 2: pytest.approx(1 - p)}
    assert f.combatants[0].end_states == {
        "unhurt": pytest.approx(p),
        "1 HP left": pytest.approx((1 - p) * p),
        "down (0 HP)": pytest.approx((1 - p) ** 2),
    }
    # side B listed first in the fight: the same duel seen from the other side
    s = engine.start([[sword("B")], [sword("A")]], options={"level": 3, "initiator": 1})
    s = apply_hazard(s, "B", wounds=1)[0]
    f = SYSTEM.forecast(s, method="exact")
    assert f.p_win[1] == pytest.approx(p + (1 - p) * p, abs=1e-12)


def test_level3_duel_with_a_tie_rule_by_hand():
    """House rule: ties go to the defender. At levels 2-3 the side that did not start the fight counts as the
    defender (ruling 1). A (+4) started against B (+4): A wins 15 of 36, B 15 + the 6 ties."""
    hr = BumHouseRules(opposed_ties="defender")
    s = engine.start([[sword("A")], [sword("B")]], house_rules=hr, options={"level": 2})
    assert SYSTEM.forecast(s, method="exact").p_win[0] == pytest.approx(15 / 36, abs=1e-12)
    s = engine.start([[sword("A")], [sword("B")]], house_rules=hr, options={"level": 2, "initiator": 1})
    assert SYSTEM.forecast(s, method="exact").p_win[0] == pytest.approx(21 / 36, abs=1e-12)


def test_level3_closed_form_leaves_the_capped_duel_to_the_chain():
    """Level 3, 2 HP each, a cap of 2 rounds: A wins only by two straight wins (p^2), B likewise; else a stand-off."""
    s = engine.start([[sword("A")], [sword("B")]], options={"level": 3, "max_rounds": 2})
    p = p_opp(4, 4)
    f = SYSTEM.forecast(s, method="exact")
    assert f.p_win == pytest.approx((p * p, (1 - p) ** 2), abs=1e-12)
    assert f.p_draw == pytest.approx(2 * p * (1 - p), abs=1e-12) and f.rounds == {2: pytest.approx(1.0)}
    s = engine.start([[sword("A")], [sword("B")]], options={"level": 3, "max_rounds": 3})  # 2 + 2 - 1 rounds at most
    f = SYSTEM.forecast(s, method="exact")
    assert f.p_draw == 0.0 and "closed form" in f.notes[-1]
    assert f.rounds == {2: pytest.approx(p * p + (1 - p) ** 2), 3: pytest.approx(2 * p * (1 - p))}


def test_a_certain_exchange_lists_only_possible_ends():
    """A +10 (STR 8, sword 2) against +4: A wins every roll (a difference of 6: his lowest 11 beats B's highest 10):
    B goes down in two rounds, A ends unhurt, for certain."""
    s = engine.start([[sword("A", 8)], [sword("B")]], options={"level": 3})
    f = SYSTEM.forecast(s, method="exact")
    assert f.p_win == (1.0, 0.0) and f.rounds == {2: 1.0}
    assert f.combatants[0].end_states == {"unhurt": 1.0} and f.combatants[1].end_states == {"down (0 HP)": 1.0}


def test_level4_duel_by_hand():
    """Level 4, 1 HP each, in reach, A first: A hits with p, else B with p; the round repeats while both miss."""
    s = engine.start([[sword("A", 1)], [sword("B", 1)]], options={"max_rounds": 10_000})
    p = p_opp(3, 2)  # STR 1 + sword 2 against DEX 2
    f = SYSTEM.forecast(s, method="exact")
    assert f.p_win[0] == pytest.approx(p / (1 - (1 - p) ** 2), abs=1e-11)
    assert float(win_probability(s)) == pytest.approx(p / (1 - (1 - p) ** 2), abs=1e-12)


# -- the exact-rational duel reference -------------------------------------------------------------------


def test_round_transitions_by_hand():
    p, q = Fraction(1, 3), Fraction(1, 4)
    assert round_transitions(DuelChain(3, 0, (p, 1 - p), (1, 1)), (2, 2)) == {(2, 1): p, (1, 2): 1 - p}
    four = DuelChain(4, 0, (p, q), (1, 2))  # A first, hits 1/3 for 1 wound; B hits 1/4 for 2
    assert round_transitions(four, (3, 3)) == {
        (1, 2): p * q,
        (3, 2): p * (1 - q),
        (1, 3): (1 - p) * q,
        (3, 3): (1 - p) * (1 - q),
    }
    assert round_transitions(four, (3, 1)) == {(3, 0): p, (1, 1): (1 - p) * q, (3, 1): (1 - p) * (1 - q)}
    second = DuelChain(4, 1, (p, q), (1, 2))  # B first
    got = round_transitions(second, (3, 3))
    assert got == {(1, 2): q * p, (1, 3): q * (1 - p), (3, 2): (1 - q) * p, (3, 3): (1 - q) * (1 - p)}
    assert round_transitions(second, (2, 3)) == {(0, 3): q, (2, 2): (1 - q) * p, (2, 3): (1 - q) * (1 - p)}
    assert round_transitions(DuelChain(4, 0, (Fraction(1), q), (1, 1)), (1, 1)) == {(1, 0): 1}


def test_duel_chain_refusals():
    a, b = sword("A"), sword("B")
    ok = engine.start([[a], [b]])
    assert duel_chain(ok).level == 4 and duel_chain(ok).first == 0
    assert duel_chain(engine.start([[a], [b]], options={"order": ["B", "A"]})).first == 1
    assert duel_chain(engine.start([[a], [b]], options={"level": 3, "order": ["B", "A"]})).first == 1
    for bad in (
        engine.start([[a, b], [sword("C")]]),
        engine.start([[a], [b]], options={"level": 2}),
        engine.start([[a], [b]], options={"level": 3, "switch": {2: 4}}),
        engine.start([[a], [b]], options={"surprised": ["B"]}),
        engine.start([[a], [b]], options={"distance": 1}),
        engine.start([[a], [b]], house_rules=BumHouseRules(longspear_first_strike=True)),
        apply_hazard(engine.start([[a], [b]]), "A", stun_rounds=1)[0],
        engine.start([[a], [b]], options={"initiative": "dex"}),
    ):
        with pytest.raises(OddsError):
            duel_chain(bad)
    bow = npc("Bow", weapons={"ranged": {"name": "Longbow"}, "primary": {"name": "Sword"}})
    with pytest.raises(OddsError, match="would shoot his Longbow first"):
        duel_chain(engine.start([[bow], [b]]))
    assert duel_chain(engine.start([[bow], [b]], options={"tactics": {"Bow": "melee"}})).p_hit[0] > 0
    wall = npc("Wall", (1, 9, 2, 2), armour={"name": "Wall", "defence": 9})
    with pytest.raises(OddsError, match="never ends"):
        win_probability(engine.start([[wall], [npc("Wall2", (1, 9, 2, 2), armour={"name": "W", "defence": 9})]]))


# -- the simulation against the exact chain -------------------------------------------------------------------


def _agree(state, samples: int = 20_000, k: float = 4.5) -> None:
    """Every side's chance, the stand-off and each fighter's chance to go down: within k standard errors of the
    exact chain (seeded: the same draw each run)."""
    ex = SYSTEM.forecast(state, method="exact")
    sim = SYSTEM.forecast(state, method="simulate", samples=samples, seed=11)
    for a, b in [*zip(ex.p_win, sim.p_win, strict=True), (ex.p_draw, sim.p_draw)]:
        assert abs(a - b) <= k * math.sqrt(max(a * (1 - a), 1e-4) / samples), (ex.p_win, sim.p_win, ex.p_draw)
    for c, d in zip(ex.combatants, sim.combatants, strict=True):
        for label in set(c.end_states) | set(d.end_states):
            a, b = c.end_states.get(label, 0.0), d.end_states.get(label, 0.0)
            assert abs(a - b) <= k * math.sqrt(max(a * (1 - a), 1e-4) / samples), (c.name, label, a, b)
    mean_ex = sum(r * p for r, p in ex.rounds.items())
    mean_sim = sum(r * p for r, p in sim.rounds.items())
    assert abs(mean_ex - mean_sim) <= 0.05 * max(1.0, mean_ex), (mean_ex, mean_sim)


ARCHER = npc("Archer", (2, 4, 2, 2), weapons={"ranged": {"name": "Longbow", "ammo": 2}, "primary": {"name": "Club"}})
XBOW = npc("Xbow", (2, 3, 2, 2), weapons={"ranged": {"name": "Heavy crossbow"}, "backup": {"name": "Dagger"}})
PISTOLS = npc(
    "Pistoleer", (2, 3, 2, 2), weapons={"ranged": {"name": "Pistol", "ammo": 2}, "backup": {"name": "Dagger"}}
)
MUSKET = npc("Musketeer", (2, 3, 1, 1), weapons={"ranged": {"name": "Musket"}, "primary": {"name": "Club"}})
KNIVES = npc("Knives", (2, 3, 1, 1), weapons={"ranged": {"name": "Throwing knife", "ammo": 2}})
SPEAR = npc("Spear", (3, 2, 1, 1), weapons={"primary": {"name": "Longspear"}})
BRUTE = npc("Brute", (3, 1, 1, 1))
RIFLE = npc(
    "Sniper",
    (2, 4, 1, 1),
    weapons={"ranged": {"name": "Rifle", "kind": "musket", "rifle": True, "modern": True, "wounds": 1, "ammo": 2}},
)
KNIGHT = npc(
    "Knight",
    (3, 2, 1, 1),
    weapons={"primary": {"name": "Sword"}},
    armour={"name": "Plate"},
    shield={"name": "Kite shield"},
)

SCENARIOS = {
    "level-1-team": ([[sword("A", 3), sword("B")], [sword("C"), sword("D", 3)]], {"level": 1, "dc": 7}, None),
    "level-1-wound": ([[sword("A", 3)], [sword("C")]], {"level": 1, "dc": 7}, BumHouseRules(loser_fate="wound")),
    "level-2-team": ([[sword("A", 3), sword("B")], [sword("C", 3)]], {"level": 2}, None),
    "level-3-three-sides": ([[sword("A")], [sword("B", 3)], [BRUTE]], {"level": 3}, None),
    "level-3-targets": (
        [[sword("A", 3), sword("B")], [sword("C"), sword("D", 3)]],
        {"level": 3, "targets": {"A": "D"}},
        None,
    ),
    "level-4-team-ties": (
        [[sword("A", 3), sword("B")], [sword("C", 3), BRUTE]],
        {"targets": {"C": "B"}},
        BumHouseRules(opposed_ties="defender"),
    ),
    "archer-at-range": ([[ARCHER], [sword("C", 3)]], {"distance": 3}, None),
    "archer-holds-double": (
        [[ARCHER], [sword("C", 3)]],
        {"distance": 4, "tactics": {"Archer": "hold"}},
        BumHouseRules(double_move=True),
    ),
    "crossbow-reload": ([[XBOW], [sword("C", 3, dex=0)]], {"distance": 5, "tactics": {"Xbow": "ranged"}}, None),
    "pistols": ([[PISTOLS], [sword("C", 3)]], {"distance": 1}, None),
    "musket-ranged": (
        [[MUSKET], [BRUTE]],
        {"distance": 2, "tactics": {"Musketeer": "ranged"}},
        BumHouseRules(muzzleloader_reload_actions=2),
    ),
    "knives": ([[KNIVES], [sword("C")]], {"distance": 3}, None),
    "rifle-ignores-armour": (
        [[RIFLE], [KNIGHT]],
        {"distance": 3},
        BumHouseRules(modern_guns_ignore_armour=True, rifle_range_divisor=3),
    ),
    "longspear": ([[sword("A", 3)], [SPEAR]], {}, BumHouseRules(longspear_first_strike=True)),
    "longspear-attacked-first": (
        [[sword("A", 3)], [SPEAR]],
        {"order": ["A", "Spear"]},
        BumHouseRules(longspear_first_strike=True),
    ),
    "javelins-taken-up": (
        [
            [npc("T", (2, 4, 2, 2), weapons={"ranged": {"name": "Javelin", "ammo": 3, "readiness": "unready"}})],
            [sword("C", 2, dex=0)],
        ],
        {"distance": 2, "tactics": {"T": "ranged", "C": "hold"}},
        None,
    ),
    "longspear-attacks": ([[SPEAR], [sword("A", 3)]], {}, BumHouseRules(longspear_first_strike=True)),
    "sneak-melee": ([[sword("A"), sword("B")], [sword("C", 3), sword("D", 3)]], {"surprised": ["C"]}, None),
    "sneak-no-kill": (
        [[sword("A"), BRUTE], [sword("C", 3), sword("D")]],
        {"surprised": ["C", "D"]},
        BumHouseRules(sneak_melee_kills=False),
    ),
    "sneak-shot-head": (
        [[ARCHER], [sword("C", 3), BRUTE]],
        {"distance": 2, "surprised": ["C"], "sneak_headshot": True, "sneak_dc": 4},
        None,
    ),
    "sneak-shot-body": ([[ARCHER], [sword("C", 3)]], {"distance": 2, "surprised": ["C"], "sneak_dc": 5}, None),
    "rolled-dex": ([[sword("A", 3, dex=4), sword("B")], [sword("C", 3, dex=1)]], {"initiative": "dex"}, None),
    "rolled-int-delay": (
        [[sword("A", 3), sword("B")], [sword("C", 3)]],
        {"initiative": "int", "delay": {"A": "C"}},
        None,
    ),
    "delay-gm": ([[sword("A", 3), sword("B")], [sword("C", 3)]], {"delay": {"A": "C"}}, None),
    "switch-3-to-4": ([[sword("A", 3)], [sword("C", 3)]], {"level": 3, "switch": {2: 4}}, None),
    "switch-4-to-2": ([[sword("A", 3), sword("B")], [sword("C", 3)]], {"switch": {2: 2}}, None),
    "stand-off": ([[sword("A", 3)], [sword("C", 3)]], {"max_rounds": 2}, None),
    "players-ties": (
        [[sword("A", 3)], [npc("P", (3, 2, 2, 2), weapons={"primary": {"name": "Sword"}})]],
        {},
        BumHouseRules(opposed_ties="players"),
    ),
    "level-4-three-sides": ([[sword("A", 3)], [sword("B")], [BRUTE]], {}, None),
    "archer-three-arrows": (
        [
            [
                npc(
                    "Archer",
                    (2, 4, 2, 2),
                    weapons={"ranged": {"name": "Longbow", "ammo": 3}, "primary": {"name": "Club"}},
                )
            ],
            [sword("C", 4, dex=0)],
        ],
        {"distance": 6, "tactics": {"Archer": "ranged", "C": "hold"}},
        None,
    ),
    "bow-then-staff": (
        [
            [npc("Staff", (2, 3, 2, 2), weapons={"ranged": {"name": "Longbow"}, "backup": {"name": "Quarterstaff"}})],
            [sword("C", 3), sword("D")],
        ],
        {"distance": 1},
        None,
    ),
    "two-wound-maul": (
        [[npc("Maul", (3, 2, 2, 2), weapons={"primary": {"name": "Maul", "attack": 1, "wounds": 2}})], [sword("C", 4)]],
        {},
        None,
    ),
    "musket-counted": (
        [
            [
                npc(
                    "Musketeer",
                    (2, 3, 1, 1),
                    weapons={"ranged": {"name": "Musket", "ammo": 1}, "primary": {"name": "Club"}},
                )
            ],
            [BRUTE],
        ],
        {"distance": 4, "tactics": {"Musketeer": "ranged", "Brute": "hold"}},
        BumHouseRules(muzzleloader_reload_actions=2),
    ),
    "attack-bonuses-only": ([[sword("A", 3)], [KNIGHT]], {"level": 3}, BumHouseRules(simple_combat_bonuses="attack")),
}


@pytest.mark.parametrize("key", sorted(SCENARIOS))
def test_simulation_agrees_with_the_exact_chain(key):
    sides, options, hr = SCENARIOS[key]
    _agree(engine.start(sides, house_rules=hr, options=options))


def test_simulation_agrees_whatever_the_listing():
    """Level 1 with the fighters listed side B first (a saved fight edited by hand): side A still rolls."""
    sides, options, hr = SCENARIOS["level-1-team"]
    s = engine.start(sides, house_rules=hr, options=options)
    _agree(s.model_copy(update={"fighters": s.fighters[::-1]}))


def test_simulation_from_mid_fight_states():
    """A state after round 1 (turn order fixed, weapons in hand), with a stun and wounds laid on by hazards."""
    from storymaster.dice import DiceRng

    s = engine.start([[ARCHER, sword("B")], [sword("C", 3), XBOW]], options={"distance": 2})
    s, _ = engine.step(s, DiceRng("mid"))
    s, _ = apply_hazard(s, "C", stun_rounds=2)
    s, _ = apply_hazard(s, "B", wounds=1)
    _agree(s)


def test_simulation_certainties():
    """What cannot go otherwise comes out for certain in every simulated fight: a melee sneak attack on a lone foe,
    a level-1 roll that cannot fail (d6 + 5 against DC 6), two walls that never hit (the round cap)."""
    s = engine.start([[sword("A")], [sword("B")]], options={"surprised": ["B"]})
    f = SYSTEM.forecast(s, method="simulate", samples=2000, seed=1)
    assert f.p_win == (1.0, 0.0) and dict(f.rounds) == {1: 1.0}
    s = engine.start([[sword("A", 3)], [sword("B")]], options={"level": 1})
    f = SYSTEM.forecast(s, method="simulate", samples=2000, seed=1)
    assert f.p_win == (1.0, 0.0) and f.combatants[1].end_states == {"down (0 HP)": 1.0}
    wall = npc("W", (1, 9, 2, 2), armour={"name": "Wall", "defence": 9})
    s = engine.start([[wall], [wall]], options={"max_rounds": 4})
    f = SYSTEM.forecast(s, method="simulate", samples=2000, seed=1)
    assert f.p_draw == 1.0 and dict(f.rounds) == {4: 1.0}
    assert f.combatants[0].end_states == {"unhurt": 1.0}
    done = apply_hazard(s, "W 2", wounds=1)[0]
    assert SYSTEM.forecast(done, method="simulate", samples=100).p_win == (1.0, 0.0)


def test_a_saved_fight_past_its_cap_plays_one_more_round():
    """The engine plays one round from any state that is not over, then stops at the cap (combat.step): from round 2
    of a fight capped at 1, one exchange at level 3 (3 HP each) cannot end it: a stand-off after 1 round, exact and
    simulated. With 1 HP each the one exchange decides: A (+4) against B (+4), 1/2 each."""
    s = engine.start([[sword("A", 3)], [sword("B", 3)]], options={"level": 3})
    late = s.model_copy(update={"round": 2, "order": ("A", "B"), "max_rounds": 1})
    for method in ("exact", "simulate"):
        f = SYSTEM.forecast(late, method=method, samples=2000)
        assert f.p_draw == pytest.approx(1.0) and dict(f.rounds) == {1: pytest.approx(1.0)}
    s = engine.start([[sword("A", 1)], [sword("B", 1)]], options={"level": 4})
    late = s.model_copy(update={"round": 2, "order": ("A", "B"), "max_rounds": 1})
    f = SYSTEM.forecast(late, method="exact")
    p = p_opp(3, 2)  # STR 1 + sword 2 against DEX 2; B strikes back only if A missed
    assert f.p_win == pytest.approx((p, (1 - p) * p), abs=1e-12) and f.p_draw == pytest.approx((1 - p) ** 2)


def test_the_chain_holds_the_round_once_nothing_is_due():
    """Past the last level switch the round number only matters for the cap: a level-4 duel at 1 HP each (no cap in
    reach) has two live states, the start and 'both standing after a round' (the same state every round after)."""
    s = engine.start([[sword("A", 1)], [sword("B", 1)]], options={"max_rounds": 10_000})
    assert SYSTEM.forecast(s, method="exact").notes[-1] == "exact Markov chain over 2 fight states"


def test_the_closed_form_whatever_the_listing():
    """A state listing side B's fighter first (a saved fight edited by hand): the same closed-form duel, by side."""
    s = engine.start([[sword("A", 3)], [sword("B")]], options={"level": 2})
    turned = s.model_copy(update={"fighters": s.fighters[::-1]})
    f = SYSTEM.forecast(turned, method="exact")
    p = p_opp(5, 4)
    assert "closed form" in f.notes[-1] and f.p_win == pytest.approx((p, 1 - p), abs=1e-12)


def test_duel_chain_reads_who_is_first_by_name_and_level3_wounds():
    """Who acts first is read from the order by name, whatever the names sort as; at level 3 each lost exchange
    costs one hit point (Part Five)."""
    zed, abe = sword("Zed"), sword("Abe")
    c = duel_chain(engine.start([[zed], [abe]], options={"level": 3, "order": ["Abe", "Zed"]}))
    assert c.first == 1 and c.wounds == (1, 1) and c.level == 3
    c = duel_chain(engine.start([[zed], [abe]], options={"order": ["Zed", "Abe"]}))
    assert c.first == 0
    # ties to the defender (ruling 1: at level 3 the side that did not start): Zed (+4) started against Abe (+4)
    hr = BumHouseRules(opposed_ties="defender")
    c = duel_chain(engine.start([[zed], [abe]], house_rules=hr, options={"level": 3}))
    assert c.p_hit == (Fraction(15, 36), Fraction(21, 36))
    with pytest.raises(OddsError, match="rolled"):
        duel_chain(engine.start([[zed], [abe]], options={"initiative": "int"}))
