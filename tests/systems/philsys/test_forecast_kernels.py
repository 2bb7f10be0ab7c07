"""The Philsys forecast's kernels (issue 14), quickly: tiny duels worked out by hand or by a brute force written
here (no call into the forecast), the exact chain's HP bands and reachable MP/TP, the refusals, and the seeded
simulation against those exact values within five standard errors of its sample.

The fighters are bare-handed brawlers (Unarmed Combat rank 1, its odd rank to AT). By the book: base AT/PA =
AGI + INT + STR + COU, AT = base + 1, PA = base + 0 + the armour's PA modifier; a punch does (STR + rank) * 2 +
1d6 = 6 + 1d6 at STR 2 (forced, so no choice of attack enters); armour stops AC/3 rounded down; the initiative
bonus is AGI + COU (ruling 1), ties to the higher bonus, then re-rolled. The "berserkers" wear rags with PA -25:
every blow against them lands (AT - PA >= 20 beats any pair of d20s), so the first to act wins.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from fractions import Fraction

import pytest

from storymaster.errors import OddsError
from storymaster.systems.philsys import SYSTEM
from storymaster.systems.philsys import forecast as fc
from storymaster.systems.philsys.character import Character
from storymaster.systems.philsys.combat import FightState, setup
from storymaster.systems.philsys.options import PhilsysHouseRules

RAGS = {"name": "Rags", "ac": 0, "pa": -25}
PADDED_RAGS = {"name": "Padded rags", "ac": 5, "pa": -25}  # stops 5 // 3 = 1
VEST = {"name": "Vest", "ac": 5}  # stops 1 (rounding up would stop 2, no rounding 1.67)
PUNCH = {d: Fraction(1, 6) for d in range(7, 13)}  # 6 + 1d6 at STR 2, rank 1


def fighter(name: str, hp: int, armour: dict | None = None, abilities: list | None = None, **stats: int) -> Character:
    base = {"COU": 2, "AGI": 3, "INT": 1, "STR": 2, "STA": 2}
    base.update(stats)
    data: dict = {
        "name": name,
        "stats": base,
        "skills": [{"name": "Unarmed Combat", "category": "unarmed", "rank": 1}],
        "current": {"hp": hp},
        "equipment": {"armor": armour} if armour else {},
    }
    if abilities:
        data["abilities"] = abilities
    return Character.model_validate(data)


def start(sides, hr: PhilsysHouseRules, order=None, rnd: int = 0, **options) -> FightState:
    options.setdefault("attack", {f"side{i}": "punch" for i in range(len(sides))})
    st = SYSTEM.combat.start(sides, house_rules=hr, options=options)
    if order is not None:
        st = st.model_copy(update={"order": tuple(order), "round": rnd})
    return st


def two_d6() -> dict[int, Fraction]:
    return {s: Fraction(6 - abs(s - 7), 36) for s in range(2, 13)}


def first_odds(bonuses: tuple[int, ...]) -> dict[tuple[int, ...], Fraction]:
    """Every Turn Sequence's chance by brute force over the 2d6s: highest total first, ties to the higher bonus,
    what is still tied re-rolled (each order of the tied alike)."""
    out: dict[tuple[int, ...], Fraction] = defaultdict(Fraction)
    d = two_d6()
    for sums in itertools.product(d, repeat=len(bonuses)):
        p = math.prod((d[s] for s in sums), start=Fraction(1))
        keys = [(s + b, b) for s, b in zip(sums, bonuses, strict=True)]
        groups = [[i for i, k in enumerate(keys) if k == key] for key in sorted(set(keys), reverse=True)]
        orders = list(itertools.product(*(itertools.permutations(g) for g in groups)))
        for parts in orders:
            out[tuple(i for part in parts for i in part)] += p / len(orders)
    return dict(out)


def se(p: float, n: int) -> float:
    """The standard error of a frequency over n fights whose chance is p (at least that of 1/n: never 0)."""
    return math.sqrt(max(p * (1 - p), 1.0 / n) / n)


def close(sim: float, exact: float, n: int) -> bool:
    return abs(sim - exact) <= 5 * se(exact, n)


def check_simulation(f, exact: dict, n: int) -> None:
    """A seeded simulation of n fights against exact values: every win, draw, round and end-state frequency
    within five of its standard errors (fixed seeds: no flakiness; a wrong rule moves them by more)."""
    assert f.method == "simulated" and f.samples == n
    for i, p in enumerate(exact["win"]):
        assert close(f.p_win[i], p, n), ("win", i, f.p_win[i], p)
    assert close(f.p_draw, exact.get("draw", 0.0), n), ("draw", f.p_draw)
    for r in set(f.rounds) | set(exact["rounds"]):
        assert close(f.rounds.get(r, 0.0), exact["rounds"].get(r, 0.0), n), ("round", r, f.rounds.get(r))
    for k, c in enumerate(f.combatants):
        for lab in set(c.end_states) | set(exact["ends"][k]):
            assert close(c.end_states.get(lab, 0.0), exact["ends"][k].get(lab, 0.0), n), (c.name, lab)


def check_exact(f, exact: dict, tol: float = 1e-12) -> None:
    assert f.method == "exact"
    assert all(p > 0 for p in f.rounds.values())  # the rounds in which fights end, no others
    assert f.p_win == pytest.approx(tuple(float(p) for p in exact["win"]), abs=tol)
    assert f.p_draw == pytest.approx(float(exact.get("draw", 0.0)), abs=tol)
    for r in set(f.rounds) | set(exact["rounds"]):
        assert f.rounds.get(r, 0.0) == pytest.approx(float(exact["rounds"].get(r, 0.0)), abs=tol), r
    for k, c in enumerate(f.combatants):
        assert {lab for lab, p in c.end_states.items() if p > tol} == {
            lab for lab, p in exact["ends"][k].items() if p > tol
        }
        for lab in set(c.end_states) - set(exact["ends"][k]):
            assert c.end_states[lab] <= tol, (c.name, lab)
        for lab, p in exact["ends"][k].items():
            assert c.end_states.get(lab, 0.0) == pytest.approx(float(p), abs=tol), (c.name, lab)


# --- one blow decides: whoever acts first wins ----------------------------------------------


def berserkers(order=None, agi_bo: int = 4, **house) -> FightState:
    """Ann (AGI 3: bonus 5) and Bo (AGI 4: bonus 6, padded rags stopping 1), 1 HP each, no criticals."""
    hr = PhilsysHouseRules(critical_margin=100, **house)
    return start([[fighter("Ann", 1, RAGS)], [fighter("Bo", 1, PADDED_RAGS, AGI=agi_bo)]], hr, order)


def berserker_odds(p_ann_first: Fraction) -> dict:
    """Round 1 decides. Ann's punch (7..12, Bo's rags stop 1) leaves Bo at 1 - 6..11: dead (-10 or less) only on
    a 12 (1/6); Bo's (7..12, nothing stopped) leaves Ann dead on 11 or 12 (2/6). The winner stays at 1 HP:
    critical health (15 or less)."""
    ann, bo = p_ann_first, 1 - p_ann_first
    return {
        "win": (ann, bo),
        "rounds": {1: Fraction(1)},
        "ends": [
            {"critical health": ann, "dead": bo * Fraction(2, 6), "unconscious": bo * Fraction(4, 6)},
            {"critical health": bo, "dead": ann * Fraction(1, 6), "unconscious": ann * Fraction(5, 6)},
        ],
    }


def test_the_first_to_act_wins_when_every_blow_lands_by_hand():
    # Ann acts first when 2d6 + 5 beats 2d6 + 6: X - Y >= 2 for two 2d6 (a tie goes to Bo's higher bonus):
    # P(X - Y = 0) = 146/1296, P(X - Y = 1) = 140/1296, so (1296 - 146 - 2 * 140) / 2 / 1296 = 435/1296
    p = Fraction(435, 1296)
    assert first_odds((5, 6))[(0, 1)] == p
    assert fc.initiative_first(setup(berserkers()).specs, PhilsysHouseRules()) == pytest.approx(float(p), abs=1e-15)
    f = SYSTEM.forecast(berserkers(), method="exact")
    check_exact(f, berserker_odds(p))
    assert f.error == 0.0
    # a saved Turn Sequence is kept: whoever it puts first wins
    check_exact(SYSTEM.forecast(berserkers(order=(1, 0)), method="exact"), berserker_odds(Fraction(0)))
    check_exact(SYSTEM.forecast(berserkers(order=(0, 1)), method="exact"), berserker_odds(Fraction(1)))


def test_the_simulated_berserkers_by_hand():
    n = 40_000
    p = Fraction(435, 1296)
    check_simulation(SYSTEM.forecast(berserkers(), method="simulate", samples=n, seed=5), berserker_odds(p), n)
    for order, p in (((1, 0), Fraction(0)), ((0, 1), Fraction(1))):
        f = SYSTEM.forecast(berserkers(order=order), method="simulate", samples=2000, seed=1)
        check_simulation(f, berserker_odds(p), 2000)
        assert f.p_win[0] == float(p)  # exactly: the order is given, every blow lands


def test_the_simulated_initiative_is_two_d6_each():
    """Bo at AGI 7 (bonus 9, four above Ann's): Ann first only on X - Y >= 5 of two 2d6 (0.0972). Where the
    bonuses are this far apart the spread of the dice shows: a d7 for a d6 in one of them would make it 0.118,
    over five standard errors of 40,000 fights (0.0074) away."""
    p = first_odds((5, 9))[(0, 1)]
    assert p == sum(
        (
            Fraction(6 - abs(x - 7), 36) * Fraction(6 - abs(y - 7), 36)
            for x in range(2, 13)
            for y in range(2, 13)
            if x - y >= 5
        ),
        Fraction(0),
    )
    n = 40_000
    f = SYSTEM.forecast(berserkers(agi_bo=7), method="simulate", samples=n, seed=12)
    check_simulation(f, berserker_odds(p), n)
    check_exact(SYSTEM.forecast(berserkers(agi_bo=7), method="exact"), berserker_odds(p))


def test_both_sitting_out_a_lost_turn():
    """A saved state with both to sit out a critical failure: nobody acts in the first round, then the first
    in line wins in the second."""
    st = berserkers(order=(0, 1))
    st = st.model_copy(update={"fighters": tuple(f.model_copy(update={"lose_turn": True}) for f in st.fighters)})
    odds = berserker_odds(Fraction(1)) | {"rounds": {2: Fraction(1)}}
    check_exact(SYSTEM.forecast(st, method="exact"), odds)
    f = SYSTEM.forecast(st, method="simulate", samples=2000, seed=3)
    check_simulation(f, odds, 2000)
    assert f.rounds == {2: 1.0}


def test_no_harm_done_is_a_draw_at_a_far_round_cap():
    """Plate of AC 75 stops 25: more than any punch (7..12, 24 doubled). Both stay unhurt to the cap, here 300
    rounds: the draw, counted in round 300, for the chain and the simulation alike."""
    plate = {"name": "Plate", "ac": 75}
    hr = PhilsysHouseRules(max_rounds=300)
    st = start([[fighter("Ann", 65, plate)], [fighter("Bo", 65, plate)]], hr)
    odds = {"win": (0, 0), "draw": 1, "rounds": {300: 1}, "ends": [{"unhurt": 1}, {"unhurt": 1}]}
    check_exact(SYSTEM.forecast(st, method="exact"), odds)
    check_simulation(SYSTEM.forecast(st, method="simulate", samples=50, seed=1), odds, 50)


def test_a_one_round_cap_that_the_fight_never_reaches():
    """A cap of one round: every fight is decided in it, so nothing is left for the draw."""
    for order, p in ((None, Fraction(435, 1296)), ((1, 0), Fraction(0))):
        st = berserkers(order=order, max_rounds=1)
        f = SYSTEM.forecast(st, method="exact")
        check_exact(f, berserker_odds(p))
        assert f.error == 0.0
        check_simulation(SYSTEM.forecast(st, method="simulate", samples=4000, seed=2), berserker_odds(p), 4000)


def test_the_initiative_reroll_house_rule_in_the_simulation():
    """Under ``initiative_ties: reroll`` a tie is re-rolled whatever the bonuses: Ann first on X - Y >= 2 and on
    half of X - Y = 1 (435/1296 + 70/1296)."""
    hr = PhilsysHouseRules(critical_margin=100, initiative_ties="reroll")
    st = start([[fighter("Ann", 1, RAGS)], [fighter("Bo", 1, PADDED_RAGS, AGI=4)]], hr)
    n = 40_000
    p = Fraction(435 + 70, 1296)
    check_exact(SYSTEM.forecast(st, method="exact"), berserker_odds(p))
    check_simulation(SYSTEM.forecast(st, method="simulate", samples=n, seed=9), berserker_odds(p), n)


def test_three_berserkers_the_last_two_in_line_decide_by_hand():
    """Three sides, 1 HP each, every blow lands; each attacks the standing enemy with the fewest HP, the first
    on ties. The first in line puts down the lower-numbered of the other two; the one left standing of them then
    puts down the first: the higher-numbered of the two not first wins, in round 1. So Ann (0) never wins, Cy (2)
    wins unless first, Bo (1) wins when Cy is first. Bonuses 5, 6, 7 (AGI 3, 4, 5)."""
    hr = PhilsysHouseRules(critical_margin=100)
    st = start([[fighter("Ann", 1, RAGS)], [fighter("Bo", 1, RAGS, AGI=4)], [fighter("Cy", 1, RAGS, AGI=5)]], hr)
    odds = first_odds((5, 6, 7))
    cy_first = sum((p for o, p in odds.items() if o[0] == 2), Fraction(0))
    # each loser is at 1 - (7..12): dead at -10 or less, on 11 or 12 (2/6); the winner at 1 HP
    ends = [{"unconscious": Fraction(4, 6), "dead": Fraction(2, 6)} for _ in range(3)]
    ends[1] = {"critical health": cy_first, "unconscious": (1 - cy_first) * 4 / 6, "dead": (1 - cy_first) * 2 / 6}
    ends[2] = {"critical health": 1 - cy_first, "unconscious": cy_first * 4 / 6, "dead": cy_first * 2 / 6}
    exact = {"win": (0, cy_first, 1 - cy_first), "rounds": {1: Fraction(1)}, "ends": ends}
    n = 20_000
    f = SYSTEM.forecast(st, method="simulate", samples=n, seed=3)
    check_simulation(f, exact, n)
    assert f.p_win[0] == 0.0 and f.rounds == {1: 1.0}


# --- several rounds: a duel solved by a brute force written here ------------------------------


def brute_melee_duel(
    hp,
    at,
    pa,
    stops,
    order_odds,
    *,
    threshold,
    penalty=3,
    margin,
    death,
    bleed,
    cap,
    top=(65, 65),
    heal=None,
    lose_turn=1,
):
    """Two punching fighters, written straight from the book and the rulings (no call into storymaster):
    AT + d20 against PA + d20 (one parry a round, so always parried), less 3 each at critical health (HP 1 ..
    threshold); margin >= the critical margin: damage doubled before armour; > 0: a hit; the defender ahead by
    the margin or more: a critical failure, the next turn lost; armour stops its AC/3; at 0 HP or less down,
    dead at the death threshold; the round stops once one is down; then bleeding (below 0 HP) and death again.
    ``heal`` = (cost, MP, threshold, amounts): fighter 0 heals itself instead of punching while it has the MP and
    at most ``threshold`` HP, never above its max HP. Returns the exact win, draw, round and end-state chances
    (the round cap's undecided fights are the draw)."""
    cost, mp0, heal_at, amounts = heal or (1, 0, 0, {})

    def pen(h):
        return penalty if 0 < h <= threshold else 0

    def label(h, k):
        return "unhurt" if h >= top[k] else "wounded" if h > threshold else "critical health"

    blows: dict[tuple[int, int, int], dict[str, float]] = {}

    def blow(a: int, ha: int, hb: int) -> dict[str, float]:
        if (a, ha, hb) not in blows:
            odds: dict[str, float] = defaultdict(float)
            for x, y in itertools.product(range(1, 21), repeat=2):
                m = x + at[a] - pen(ha) - (y + pa[1 - a] - pen(hb))
                kind = "crit" if m >= margin else "hit" if m > 0 else "fail" if -m >= margin else "miss"
                odds[kind] += 1 / 400
            blows[(a, ha, hb)] = odds
        return blows[(a, ha, hb)]

    win = [0.0, 0.0]
    rounds: dict[int, float] = defaultdict(float)
    ends: list[dict[str, float]] = [defaultdict(float), defaultdict(float)]
    draw = 0.0
    for order, w in order_odds.items():
        live = {(hp[0], hp[1], 0, 0, mp0): float(w)}
        for r in range(1, cap + 1):
            if sum(live.values()) < 1e-15:
                break
            for a in order:
                b = 1 - a
                nxt: dict = defaultdict(float)
                for s, p in live.items():
                    h, lose, mp = list(s[:2]), list(s[2:4]), s[4]
                    if lose[a]:
                        lose[a] = 0
                        nxt[(*h, *lose, mp)] += p
                        continue
                    if a == 0 and mp >= cost and h[0] <= heal_at:
                        for v, q in amounts.items():
                            nxt[(min(top[0], h[0] + v), h[1], *lose, mp - cost)] += p * float(q)
                        continue
                    odds = blow(a, h[a], h[b])
                    nxt[s] += p * odds["miss"]
                    failed = list(lose)
                    failed[a] = lose_turn  # 0 under critical_failure_effect: none
                    nxt[(*h, *failed, mp)] += p * odds["fail"]
                    for kind, mult in (("hit", 1), ("crit", 2)):
                        for dmg, q in PUNCH.items():
                            q = float(q)
                            left = h[b] - max(0, mult * dmg - stops[b])
                            if left > 0:
                                h2 = list(h)
                                h2[b] = left
                                nxt[(*h2, *lose, mp)] += p * odds[kind] * q
                                continue
                            final = left - bleed if (bleed and left < 0) else left
                            pq = p * odds[kind] * q
                            win[a] += pq
                            rounds[r] += pq
                            ends[a][label(h[a], a)] += pq
                            ends[b]["dead" if final <= death else "unconscious"] += pq
                live = dict(nxt)
            if r == cap:
                for (h0, h1, *_), p in live.items():
                    draw += p
                    rounds[r] += p
                    ends[0][label(h0, 0)] += p
                    ends[1][label(h1, 1)] += p
    return {"win": tuple(win), "draw": draw, "rounds": dict(rounds), "ends": [dict(e) for e in ends]}


def slugging_duel(order=None, rnd=0, **house) -> tuple[FightState, dict]:
    """Ann (10 HP, AT 9, PA 8, no armour) and Bo (12 HP, AGI 4: AT 10, PA 9, a vest stopping 1), critical health
    at 5 or less, criticals and critical failures at a margin of 12, death at -6, bleeding 2 a round."""
    rules = {"critical_health_threshold": 5, "critical_margin": 12, "death_threshold": -6, "bleeding": True}
    rules |= {"bleeding_rate": 2} | house
    hr = PhilsysHouseRules(**rules)
    st = start([[fighter("Ann", 10)], [fighter("Bo", 12, VEST, AGI=4)]], hr, order, rnd)
    orders = {tuple(order): Fraction(1)} if order else first_odds((5, 6))
    left = max(1, hr.max_rounds - rnd)
    lose_turn = int(hr.critical_failure_effect == "lose_next_turn")
    exact = brute_melee_duel(
        (10, 12),
        (9, 10),
        (8, 9),
        (0, 1),
        orders,
        threshold=5,
        margin=12,
        death=-6,
        bleed=2 if hr.bleeding else 0,
        cap=left,
        lose_turn=lose_turn,
    )
    return st, exact


def test_a_slugging_duel_by_brute_force():
    st, exact = slugging_duel()
    f = SYSTEM.forecast(st, method="exact")
    check_exact(f, exact)
    # no round cap in sight (100): the chain stops once less than 1e-12 is undecided and reports that as its
    # error (never 0: a fight can go on missing for ever), not as a draw
    assert 0 < f.error < 1e-12 and f.p_draw == 0.0 and max(f.rounds) < 60
    assert exact["ends"][1]["dead"] > 0.02 and exact["ends"][0]["critical health"] > 0.02  # the rules bite here
    n = 30_000
    check_simulation(SYSTEM.forecast(st, method="simulate", samples=n, seed=2), exact, n)


@pytest.mark.parametrize("effect", ["lose_next_turn", "none"])
def test_a_slugging_duel_with_a_given_order_and_no_bleeding(effect):
    """The same duel, Bo first, no bleeding; a critical failure costs the next turn, or nothing (the house rule)."""
    st, exact = slugging_duel(order=(1, 0), rnd=4, bleeding=False, critical_failure_effect=effect)
    check_exact(SYSTEM.forecast(st, method="exact"), exact)
    n = 30_000
    check_simulation(SYSTEM.forecast(st, method="simulate", samples=n, seed=4), exact, n)


@pytest.mark.parametrize("broken", [False, True])
def test_a_shield_kept_or_broken_in_a_saved_state(broken):
    """Bo with a buckler (AT -1, PA +3): AT 9, PA 12; saved with it broken, its modifiers are gone (AT 10, PA 9).
    No house rule breaks it in the fight."""
    buckler = {"name": "Buckler", "ac": 6, "pa": 3, "at": -1}
    hr = PhilsysHouseRules(critical_health_threshold=5, critical_margin=12, death_threshold=-6)
    data = fighter("Bo", 12, VEST, AGI=4).model_dump()
    data["equipment"]["shield"] = buckler
    bo = Character.model_validate(data)
    st = start([[fighter("Ann", 10)], [bo]], hr, order=(0, 1), rnd=2)
    st = st.model_copy(
        update={"fighters": (st.fighters[0], st.fighters[1].model_copy(update={"shield_broken": broken}))}
    )
    at, pa = ((9, 10), (8, 9)) if broken else ((9, 9), (8, 12))
    exact = brute_melee_duel((10, 12), at, pa, (0, 1), {(0, 1): 1}, threshold=5, margin=12, death=-6, bleed=0, cap=98)
    check_exact(SYSTEM.forecast(st, method="exact"), exact)
    n = 20_000
    check_simulation(SYSTEM.forecast(st, method="simulate", samples=n, seed=10), exact, n)


@pytest.mark.parametrize(("cap", "rnd"), [(3, 0), (5, 3), (5, 5), (5, 9)])
def test_the_round_cap_is_the_draw_by_brute_force(cap, rnd):
    """At the round cap what is undecided is the draw (counted in the last round); a state saved at or past the
    cap still fights one round."""
    st, exact = slugging_duel(order=(0, 1), rnd=rnd, max_rounds=cap)
    assert exact["draw"] > 0.1
    f = SYSTEM.forecast(st, method="exact")
    check_exact(f, exact)
    assert f.error == 0.0 and max(f.rounds) == max(1, cap - rnd)
    n = 20_000
    check_simulation(SYSTEM.forecast(st, method="simulate", samples=n, seed=6), exact, n)
    assert f"round cap, round {cap}" in f.draw_meaning


def test_an_unhurt_winner_by_brute_force():
    """Both in plate (AC 33 stops 11; PA 8 and 9 kept), no criticals: a punch (7..12) does 1 HP on a 12, else
    nothing. Ann at her full 65 HP puts Bo (1 HP) down with her first 12 (to 0 HP: unconscious, never dead); Bo
    needs 65 of them: Ann mostly wins unhurt (untouched) or wounded."""
    plate = {"name": "Plate", "ac": 33}
    hr = PhilsysHouseRules(critical_margin=100)
    st = start([[fighter("Ann", 65, plate)], [fighter("Bo", 1, plate, AGI=4)]], hr, order=(1, 0), rnd=1)
    exact = brute_melee_duel(
        (65, 1), (9, 10), (8, 9), (11, 11), {(1, 0): 1}, threshold=15, margin=100, death=-10, bleed=0, cap=99
    )
    # Bo is never dead; he is still standing only at the round cap (99 rounds from round 1, a draw: 1e-4 or so)
    assert exact["ends"][0]["unhurt"] > 0.1 and {k for k, v in exact["ends"][1].items() if v} == {
        "unconscious",
        "critical health",
    }
    assert 0 < exact["draw"] == exact["ends"][1]["critical health"] < 1e-3
    check_exact(SYSTEM.forecast(st, method="exact"), exact)


# --- a heal that reaches max HP, in the chain and the simulation ------------------------------


def healing_duel(swap: bool = False) -> tuple[FightState, dict]:
    """Ann (STA -5: max HP 55 - 25 = 30; 7 HP, 5 MP, MAG 1) heals herself once with Mend (5 MP, 14+2d6) at a
    quarter of max HP or less (30 // 4 = 7: the engine's tactic), up to 30 (7 + 23..26 is capped: 2d6 of 9 or
    more); then she and Bo (12 HP, vest) slug it out as in :func:`slugging_duel`, no bleeding, death at -6."""
    mend = {"name": "Mend", "cost": {"mp": 5}, "effect": {"kind": "heal", "damage": "14+2d6"}}
    ann = fighter("Ann", 7, abilities=[mend], STA=-5, MAG=1)
    ann = ann.model_copy(update={"current": ann.current.model_copy(update={"mp": 5})})
    hr = PhilsysHouseRules(critical_health_threshold=5, critical_margin=12, death_threshold=-6)
    sides = [[ann], [fighter("Bo", 12, VEST, AGI=4)]]
    if swap:  # the healer second in the list (and still first in the Turn Sequence)
        st = start(sides[::-1], hr, order=(1, 0), rnd=1, attack={"side0": "punch", "side1": "punch"})
    else:
        st = start(sides, hr, order=(0, 1), rnd=1)
    heal: dict[int, Fraction] = defaultdict(Fraction)
    for x, y in itertools.product(range(1, 7), repeat=2):
        heal[14 + x + y] += Fraction(1, 36)
    exact = brute_melee_duel(
        (7, 12),
        (9, 10),
        (8, 9),
        (0, 1),
        {(0, 1): 1},
        threshold=5,
        margin=12,
        death=-6,
        bleed=0,
        cap=99,
        top=(30, 65),
        heal=(5, 5, 7, heal),
    )
    if swap:
        exact = {
            "win": exact["win"][::-1],
            "draw": exact["draw"],
            "rounds": exact["rounds"],
            "ends": exact["ends"][::-1],
        }
    return st, exact


@pytest.mark.parametrize("swap", [False, True])
def test_a_heal_capped_at_max_hp_by_brute_force(swap):
    st, exact = healing_duel(swap)
    f = SYSTEM.forecast(st, method="exact")
    check_exact(f, exact)
    assert exact["ends"][int(swap)]["unhurt"] > 0.01  # healed to 30 and never hit again
    n = 20_000
    check_simulation(SYSTEM.forecast(st, method="simulate", samples=n, seed=8), exact, n)


# --- the chain's parts: reachable MP/TP, HP bands, the size bounds -----------------------------


MEND = {"name": "Mend", "cost": {"mp": 4}, "effect": {"kind": "heal", "damage": "2+1d4"}}
BOLT = {"name": "Bolt", "cost": {"mp": 5}, "effect": {"kind": "attack", "damage": "3+1d4"}}
BASH = {"name": "Bash", "cost": {"tp": 4, "hp": 1}, "effect": {"kind": "attack", "damage": "2+1d6", "magical": False}}


def caster(hp: int = 20, mp: int = 9, tp: int = 4, abilities=(MEND, BOLT, BASH), **stats) -> Character:
    c = fighter("Ann", hp, abilities=list(abilities), **({"STA": -5, "MAG": 1} | stats))
    return c.model_copy(update={"current": c.current.model_copy(update={"mp": mp, "tp": tp})})


def duel_of(a: Character, b: Character, hr: PhilsysHouseRules | None = None, **options) -> fc._Duel:
    st = SYSTEM.combat.start([[a], [b]], house_rules=hr or PhilsysHouseRules(), options=options)
    return fc._Duel(fc._plan(st))


def test_reachable_mp_and_tp_by_hand():
    """Mend (4 MP) heals; Bolt (5 MP) before Bash (4 TP and 1 HP: same mean 5.5, listed later). The automatic
    choice takes the first heal, and the first attack, it affords: from (9, 4) Mend -> (5, 4) or Bolt -> (4, 4)
    (both affordable at any HP: nothing after them is ever picked there); from (5, 4): Mend -> (1, 4), Bolt ->
    (0, 4); from (4, 4): Mend -> (0, 4), Bolt out of reach, so Bash -> (4, 0); from (4, 0): Mend -> (0, 0); from
    (1, 4) and (0, 4): Bash -> (1, 0), (0, 0)."""
    d = duel_of(caster(), fighter("Bo", 12))
    mp_tp = [(mp, tp) for mp, tp, heavy, broken in d.states[0]]
    assert mp_tp[0] == (9, 4)
    assert sorted(mp_tp) == sorted([(9, 4), (5, 4), (4, 4), (1, 4), (0, 4), (4, 0), (1, 0), (0, 0)])
    assert all(not heavy and not broken for _, _, heavy, broken in d.states[0])
    # Bo: no abilities, nothing to spend of his full MP (INT 1 * 5 = 5) and TP (10 + 3 * (STA 2 + COU 2) = 22)
    assert d.states[1] == [(5, 22, False, False)]
    # under tactics melee nothing is ever spent
    d = duel_of(caster(), fighter("Bo", 12), tactics={"side0": "melee"})
    assert d.states[0] == [(9, 4, False, False)]


def test_heavy_wounds_and_breaking_shields_double_the_states_only_under_their_house_rules():
    shielded = fighter("Bo", 12).model_copy(
        update={
            "equipment": Character.model_validate(
                {"name": "x", "equipment": {"shield": {"name": "Buckler", "ac": 6, "pa": 1}}}
            ).equipment
        }
    )
    plain = duel_of(caster(mp=0, tp=0), shielded)
    assert plain.states == [[(0, 0, False, False)], [(5, 22, False, False)]]
    hr = PhilsysHouseRules(heavy_wound_penalty=4, shield_breaks=True)
    both = duel_of(caster(mp=0, tp=0), shielded, hr)
    assert both.states[0] == [(0, 0, False, False), (0, 0, True, False)]  # no shield: none to break
    assert sorted(both.states[1]) == sorted((5, 22, h, b) for h in (False, True) for b in (False, True))
    assert both.states[1][0] == (5, 22, False, False)  # the current state first
    # a saved heavy wound counts under any penalty, 1 too
    st1 = SYSTEM.combat.start([[caster(mp=0, tp=0)], [shielded]], house_rules=PhilsysHouseRules(heavy_wound_penalty=1))
    heavy = (st1.fighters[0], st1.fighters[1].model_copy(update={"heavy_wound": True}))
    assert fc._Duel(fc._plan(st1.model_copy(update={"fighters": heavy}))).states[1] == [(5, 22, True, False)]
    only_heavy = duel_of(caster(mp=0, tp=0), shielded, PhilsysHouseRules(heavy_wound_penalty=4))
    assert only_heavy.states[1] == [(5, 22, False, False), (5, 22, True, False)]
    # a saved state already heavily wounded with its shield broken: nothing else to come to
    st = SYSTEM.combat.start([[caster(mp=0, tp=0)], [shielded]], house_rules=hr)
    fs = (st.fighters[0], st.fighters[1].model_copy(update={"heavy_wound": True, "shield_broken": True}))
    d = fc._Duel(fc._plan(st.model_copy(update={"fighters": fs})))
    assert d.states[1] == [(5, 22, True, True)]
    # ... unless the house rules no longer have them: a heavy wound without its penalty is none
    st = SYSTEM.combat.start([[caster(mp=0, tp=0)], [shielded]], house_rules=PhilsysHouseRules())
    d = fc._Duel(fc._plan(st.model_copy(update={"fighters": fs})))
    assert d.states[1] == [(5, 22, False, True)]


def test_the_chains_hp_bands_by_hand():
    """Max HP 30 (STA -5), critical health at 5 or less: a defender's AT/PA penalty changes between 5 and 6 (HP
    1 to 5, 6 up to max). An attacker also heals itself at 30 // 4 = 7 or less and affords Bash (1 HP) only above
    1 HP: bands [1, 2), [2, 6), [6, 8), [8, 31)."""
    for hr in (
        PhilsysHouseRules(critical_health_threshold=5),
        PhilsysHouseRules(critical_health_threshold=5, critical_health_missile=True),
    ):
        d = duel_of(caster(), fighter("Bo", 12), hr)
        assert d.size[0] == 31 and d.size[1] == 66
        assert d.bands(0, False) == [(1, 6), (6, 31)]
        assert d.bands(0, True) == [(1, 2), (2, 6), (6, 8), (8, 31)]
        # Bo: max HP 65, no abilities: heals nobody (65 // 4 = 16), so only the critical health band and the rest
        assert d.bands(1, False) == [(1, 6), (6, 66)]
        assert d.bands(1, True) == [(1, 6), (6, 17), (17, 66)]


def test_the_resource_states_bound():
    """Up to 400 (MP, TP) combinations a fighter: a caster with 399 MP and a 1-MP spell has 400 (399 ... 0), one
    with 400 MP has 401 and is refused."""
    spark = {"name": "Spark", "cost": {"mp": 1}, "effect": {"kind": "attack", "damage": "1d4"}}
    assert len(duel_of(caster(mp=399, abilities=[spark]), fighter("Bo", 12)).states[0]) == 400
    with pytest.raises(OddsError, match="too many MP/TP states") as e:
        duel_of(caster(mp=400, abilities=[spark]), fighter("Bo", 12))
    assert "simulate" in (e.value.hint or "")


def test_the_cells_bound_at_fifty_million():
    """4 lost-turn pairs x the fighters' states x (max HP + 1) each: Ann (40 MP states, max HP 65 + 34 = 99)
    against Bo (25 MP states, 65 + 59 = 124): 4 * 40 * 25 * 100 * 125 = 50,000,000, allowed; one more HP on
    either side is over."""
    spark = {"name": "Spark", "cost": {"mp": 1}, "effect": {"kind": "attack", "damage": "1d4"}}

    def pair(gain_a: int, gain_b: int):
        a = caster(mp=39, abilities=[spark], STA=2).model_copy(update={"hp_gained": gain_a})
        b = caster(mp=24, abilities=[spark], STA=2).model_copy(update={"hp_gained": gain_b, "name": "Bo"})
        return a, b

    d = duel_of(*pair(34, 59))
    assert [len(x) for x in d.states] == [40, 25] and d.size == [100, 125]
    for gains, cells in (((35, 59), "50,500,000"), ((34, 60), "50,400,000")):
        with pytest.raises(OddsError, match=f"the duel has {cells} states: too many") as e:
            duel_of(*pair(*gains))
        assert "simulate" in (e.value.hint or "")
    # the forecast: refused for exact, simulated under auto
    st = SYSTEM.combat.start([list(pair(35, 59))[:1], list(pair(35, 59))[1:]], house_rules=PhilsysHouseRules())
    with pytest.raises(OddsError, match="too many"):
        SYSTEM.forecast(st, method="exact")
    assert SYSTEM.forecast(st, samples=200, seed=1).method == "simulated"


# --- the rest of the entry point --------------------------------------------------------------


def test_a_finished_fight_is_told_as_it_ended():
    st = berserkers(order=(0, 1))
    fs = (st.fighters[0], st.fighters[1].model_copy(update={"hp": -3, "unconscious": True}))
    won = st.model_copy(update={"fighters": fs, "over": True, "winner": 0, "round": 1})
    f = SYSTEM.forecast(won, method="simulate")
    assert f.method == "exact" and f.p_win == (1.0, 0.0) and f.p_draw == 0.0 and f.error == 0.0
    assert f.rounds == {0: 1.0} and f.notes == ("the fight is already over",)
    assert [dict(c.end_states) for c in f.combatants] == [{"critical health": 1.0}, {"unconscious": 1.0}]
    drawn = st.model_copy(update={"over": True, "winner": None, "round": 100})
    f = SYSTEM.forecast(drawn)
    assert f.p_win == (0.0, 0.0) and f.p_draw == 1.0 and f.error == 0.0


def test_the_refusals():
    with pytest.raises(OddsError, match="not a philsys fight state") as e:
        SYSTEM.forecast(object())  # type: ignore[arg-type]
    assert "SYSTEM.combat.start" in (e.value.hint or "")
    three = start([[fighter("Ann", 5)], [fighter("Bo", 5)], [fighter("Cy", 5)]], PhilsysHouseRules())
    assert fc.exact_problem(three) == "3 combatants (the exact forecast covers one against one)"
    assert not fc.exact_fits(three) and fc.exact_fits(berserkers())
    # a saved state edited down to one fighter is no duel either (the chain covers exactly one against one)
    lone = berserkers().model_copy(update={"fighters": berserkers().fighters[:1]})
    assert fc.exact_problem(lone) == "1 combatants (the exact forecast covers one against one)"
    with pytest.raises(OddsError, match="no exact forecast for this fight: 3 combatants") as e:
        SYSTEM.forecast(three, method="exact")
    assert "simulate" in (e.value.hint or "")
    # the method as a front end hands it over (a string built at run time, not the program's constant)
    with pytest.raises(OddsError, match="no exact forecast for this fight"):
        SYSTEM.forecast(three, method="".join(["ex", "act"]))
    assert SYSTEM.forecast(berserkers(), method="".join(["au", "to"])).method == "exact"
    with pytest.raises(OddsError, match="unknown forecast method 'chain'"):
        SYSTEM.forecast(three, method="chain")
    assert SYSTEM.forecast(three, samples=100).method == "simulated"  # auto: the chain covers duels only
    assert SYSTEM.forecast(berserkers()).method == "exact"


def test_the_tactics_as_the_output_states_them():
    hr = PhilsysHouseRules()
    bow = {"missile": {"name": "Bow", "accuracy": 8, "damage": "1d6+1"}}
    archer = Character.model_validate({"name": "Cy", "stats": {"AGI": 4}, "equipment": bow})
    st = SYSTEM.combat.start(
        [[fighter("Ann", 5), archer], [fighter("Bo", 5), fighter("Di", 5)]],
        house_rules=hr,
        options={
            "tactics": {"Ann": "melee", "Cy": "missile"},
            "attack": {"Ann": "kick"},
            "aim": {"Ann": "head", "Cy": "head"},
        },
    )
    assert fc.tactics_text(st) == {
        "A": "Ann: melee [attack kick]; Cy: missile (heal, else shoot) [aim head]",  # Ann's aim: she has no missile
        "B": "auto (heal at 1/4 HP, else spell/tech, else missile, else melee)",  # both alike: said once
    }
    st = SYSTEM.combat.start(
        [[fighter("Ann", 5)], [fighter("Bo", 5)]], house_rules=hr, options={"tactics": {"side1": "magic"}}
    )
    assert fc.tactics_text(st) == {
        "A": "auto (heal at 1/4 HP, else spell/tech, else missile, else melee)",
        "B": "magic (heal, else spell/tech, else melee)",
    }
    f = SYSTEM.forecast(st, method="simulate", samples=100)
    assert dict(f.tactics) == fc.tactics_text(st)
    assert (
        f.sides == (("Ann",), ("Bo",))
        and f.draw_meaning == "draw (both sides still standing at the round cap, round 100)"
    )


def test_end_states_in_the_books_words():
    """Full HP unhurt, above the critical-health threshold wounded, at it or below critical health; unconscious
    and dead whatever the HP (dead first)."""
    hr = PhilsysHouseRules(critical_health_threshold=5)
    cases = [
        ((30, False, False), "unhurt"),
        ((29, False, False), "wounded"),
        ((6, False, False), "wounded"),
        ((5, False, False), "critical health"),
        ((0, False, False), "critical health"),
        ((31, True, False), "unconscious"),
        ((-3, True, True), "dead"),
        ((30, False, True), "dead"),
    ]
    for (hp, unc, dead), want in cases:
        assert fc.END_STATES[fc.end_code(hp, unc, dead, 30, hr)] == want, (hp, unc, dead)
    st = berserkers(order=(0, 1))
    fs = (st.fighters[0], st.fighters[1].model_copy(update={"hp": -12, "unconscious": True, "dead": True}))
    assert fc.end_states(st.model_copy(update={"fighters": fs})) == {"Ann": "critical health", "Bo": "dead"}


# --- the simulation's dice ------------------------------------------------------------------


def test_the_simulations_dice_are_the_books():
    """A d20 is 1..20 and a damage expression its totals, each at its chance: 200,000 seeded draws, every
    face's frequency within five standard errors (6 + 1d6: 7..12 alike; 2d6: 1/36 ... 6/36 ... 1/36)."""
    import numpy as np

    from storymaster.systems.philsys.twins import GeneratorDice

    n = 200_000
    dice = GeneratorDice(np.random.default_rng(4))
    rows = np.arange(n)
    for sides in (20, 6):
        faces = dice.d(sides, rows, "attack")
        assert faces.min() == 1 and faces.max() == sides and faces.shape == (n,)
        for v in range(1, sides + 1):
            assert close(float((faces == v).mean()), 1 / sides, n), (sides, v)
    for expression, pmf in (("6+1d6", PUNCH), ("2d6", two_d6())):
        values = dice.roll(expression, rows, "amount")
        assert values.shape == (n,) and set(values.tolist()) == set(pmf)
        for v, p in pmf.items():
            assert close(float((values == v).mean()), float(p), n), (expression, v)
    assert set(dice.roll("3", rows[:50], "amount").tolist()) == {3}


# --- the array turn (twins.py): a spell's odds, a saved unconscious ally, a wounded caster -------------


def test_a_spell_against_resistance_in_the_simulation_by_hand():
    """Mia (INT 1, WIS 1, MAG 6: MAttack 8, less 3 at critical health: 5) casts Zap (5 MP, her last; 20 damage)
    first; Bo resists with 10 + COU * 2 + INT = 10 - 4 - 1 = 5 + d20. A tie is resisted: she hits on d20 > d20,
    190/400, and Bo (1 HP) falls dead (-19); else Bo's sure punch (AT 3 against her rags' PA -19) puts her down,
    dead on 11 or 12."""
    zap = {"name": "Zap", "cost": {"mp": 5}, "effect": {"kind": "attack", "damage": "20"}}
    mia = fighter("Mia", 1, RAGS, abilities=[zap], INT=1, WIS=1, MAG=6, STR=0)
    mia = mia.model_copy(update={"current": mia.current.model_copy(update={"mp": 5})})
    bo = fighter("Bo", 1, RAGS, COU=-2, INT=-1)
    st = start([[mia], [bo]], PhilsysHouseRules(critical_margin=100), order=(0, 1), rnd=1)
    p = Fraction(190, 400)
    odds = {
        "win": (p, 1 - p),
        "rounds": {1: Fraction(1)},
        "ends": [
            {"critical health": p, "dead": (1 - p) * Fraction(2, 6), "unconscious": (1 - p) * Fraction(4, 6)},
            {"critical health": 1 - p, "dead": p},
        ],
    }
    check_exact(SYSTEM.forecast(st, method="exact"), odds)
    n = 40_000  # a d19 for the resistance would make it 190/380 = 0.5: 2 x 5 standard errors (0.0125) away
    check_simulation(SYSTEM.forecast(st, method="simulate", samples=n, seed=13), odds, n)


def test_a_saved_unconscious_ally_healed_in_the_simulation_stays_down_for_10_minus_sta_rounds():
    """Ann (1 HP, Mend 4 MP: +3..6) heals Cy, saved unconscious at -2 HP (no waking counted yet), to 1..4 HP:
    he comes round only after 10 - STA 2 = 8 rounds. Bo (sure blows) then puts Ann down: side B wins round 1, Cy
    still unconscious."""
    mend = {"name": "Mend", "cost": {"mp": 4}, "effect": {"kind": "heal", "damage": "2+1d4"}}
    ann = fighter("Ann", 1, RAGS, abilities=[mend], MAG=1)
    hr = PhilsysHouseRules(critical_margin=100)
    st = start([[ann, fighter("Cy", 5, RAGS)], [fighter("Bo", 1, RAGS, AGI=4)]], hr, order=(0, 1, 2))
    cy = st.fighters[1].model_copy(update={"hp": -2, "unconscious": True, "wake_in": None})
    st = st.model_copy(update={"fighters": (st.fighters[0], cy, st.fighters[2]), "round": 1})
    odds = {
        "win": (0, 1),
        "rounds": {1: 1},
        "ends": [
            {"dead": Fraction(2, 6), "unconscious": Fraction(4, 6)},
            {"unconscious": 1},
            {"critical health": 1},
        ],
    }
    check_simulation(SYSTEM.forecast(st, method="simulate", samples=2000, seed=1), odds, 2000)


def test_a_wounded_caster_casts_with_the_penalty_in_both_turns():
    """The twin and the round's turn with the same dice, every pair of d20s: a caster at critical health (18 HP,
    threshold 20; not hurt enough to heal at 60 // 4 = 15) casting Bolt, with and without a heavy wound (-4 more)."""
    from test_turn_twin import CASTER, KNIGHT, _compare, _setup

    from storymaster.systems.philsys.round import CAST, MELEE, Body

    hr = PhilsysHouseRules(critical_health_threshold=20, heavy_wound_penalty=4)
    su = _setup([[CASTER], [KNIGHT]], hr, tactics={"side0": "magic"})
    rows = [(Body(18, 4, 0, heavy_wound=heavy), Body(su.specs[1].top, 0, 0)) for heavy in (False, True)]
    faces = list(itertools.product(range(1, 21), range(1, 21), (13,), (6,)))
    assert _compare(su, rows, faces, (0,)) == {(0, CAST)}
    assert MELEE != CAST


def test_a_tech_against_the_parry_in_the_simulation_by_hand():
    """Tia's Smash (4 TP, 20 damage, not magical) is resolved like a melee blow against the parry: her AT 9 less
    3 at critical health (1 HP) against Bo's PA 8 + 1 (his padded jerkin) less 3: 6 against 6, a tie to the
    defender, so she hits on d20 > d20 (190/400) and Bo (1 HP, nothing stopped) falls dead; else Bo's sure punch
    (AT 6 against her rags' PA 8 - 19 - 3 = -14) puts her down, dead on 11 or 12."""
    smash = {"name": "Smash", "cost": {"tp": 4}, "effect": {"kind": "attack", "damage": "20", "magical": False}}
    tia = fighter("Tia", 1, {"name": "Rags", "ac": 0, "pa": -19}, abilities=[smash])
    bo = fighter("Bo", 1, {"name": "Jerkin", "ac": 0, "pa": 1})
    st = start([[tia], [bo]], PhilsysHouseRules(critical_margin=100), order=(0, 1), rnd=1)
    p = Fraction(190, 400)
    odds = {
        "win": (p, 1 - p),
        "rounds": {1: Fraction(1)},
        "ends": [
            {"critical health": p, "dead": (1 - p) * Fraction(2, 6), "unconscious": (1 - p) * Fraction(4, 6)},
            {"critical health": 1 - p, "dead": p},
        ],
    }
    check_exact(SYSTEM.forecast(st, method="exact"), odds)
    n = 40_000  # a d21 for the parry would make it 190/420 = 0.452: 2 x 5 standard errors (0.0125) away
    check_simulation(SYSTEM.forecast(st, method="simulate", samples=n, seed=14), odds, n)


@pytest.mark.parametrize("aim", ["abdomen", "head"])
def test_a_shot_from_the_second_fighter_by_hand(aim):
    """Bo (fighter 1, 1 HP, max HP 30) shoots first with a sling (accuracy 8, no skill, 1d6+1) at Ann (65 max HP,
    1 HP), who defends with AGI + COU = 5 (small, medium range: +0) and d20; a tie to the defender. No wound
    penalty on a shot by the book (ruling P-L1), though Bo is at critical health. At the abdomen (+0) he hits on
    d20 + 8 > d20 + 5: 1 - 153/400 = 247/400, for 2..7: Ann unconscious, never dead. At the head (-8): d20 > d20 + 5
    (105/400), and she is dead: killed outright on a d6 of 1-5, else 12..27 damage. If he misses, Ann's sure punch
    (no criticals) puts him down, dead on 11 or 12."""
    sling = {"name": "Sling", "accuracy": 8, "damage": "1d6+1"}
    bo = Character.model_validate(
        fighter("Bo", 1, RAGS, STA=-5).model_dump() | {"equipment": {"armor": RAGS, "missile": sling}}
    )
    st = start([[fighter("Ann", 1, RAGS)], [bo]], PhilsysHouseRules(critical_margin=100), order=(1, 0), rnd=1)
    st = st.model_copy(update={"options": st.options.model_copy(update={"aim": {"side1": aim}})})
    p = Fraction(247 if aim == "abdomen" else 105, 400)
    ann_down = {"unconscious": p} if aim == "abdomen" else {"dead": p}
    odds = {
        "win": (1 - p, p),
        "rounds": {1: Fraction(1)},
        "ends": [
            {"critical health": 1 - p} | ann_down,
            {"critical health": p, "dead": (1 - p) * Fraction(2, 6), "unconscious": (1 - p) * Fraction(4, 6)},
        ],
    }
    check_exact(SYSTEM.forecast(st, method="exact"), odds)
    n = 40_000  # a d19 or d21 for the shot would move the head's 105/400 by 0.023: 2 x 5 standard errors (0.011)
    check_simulation(SYSTEM.forecast(st, method="simulate", samples=n, seed=15), odds, n)


def test_a_saved_fight_read_from_json_keeps_its_forced_attack():
    """A state read back from JSON (its strings are new objects, not the program's constants) is simulated with
    its forced punches; the module's own defaults are the protocol's (100,000 fights from seed 0)."""
    st = FightState.model_validate_json(berserkers(order=(0, 1)).model_dump_json())
    f = fc.forecast(state=st, method="simulate")
    assert f.samples == 100_000 and f.seed == 0
    with pytest.raises(TypeError):  # all but the state by keyword only
        fc.forecast(st, "simulate")  # type: ignore[misc]
    check_simulation(f, berserker_odds(Fraction(1)), 100_000)


def test_an_hp_cost_does_not_hide_the_abilities_after_it():
    """Blast (2 MP and 1 HP; best) is picked only above 1 HP, so at 1 HP Bolt (5 MP) still is: from 7 MP, Blast
    -> 5 or Bolt -> 2; from 5: 3 or 0; from 3: 1; from 2: 0. MP 4 and 6 are never reached."""
    blast = {"name": "Blast", "cost": {"mp": 2, "hp": 1}, "effect": {"kind": "attack", "damage": "10+1d6"}}
    d = duel_of(caster(mp=7, tp=0, abilities=[blast, BOLT]), fighter("Bo", 12))
    assert d.states[0][0] == (7, 0, False, False)
    assert sorted(mp for mp, *_ in d.states[0]) == [0, 1, 2, 3, 5, 7]


def test_a_simulation_of_one_fight():
    """One fight simulated is that fight played out: the first in line wins it in round 1."""
    f = SYSTEM.forecast(berserkers(order=(0, 1)), method="simulate", samples=1, seed=3)
    assert f.samples == 1 and f.p_win == (1.0, 0.0) and f.rounds == {1: 1.0}


def test_the_first_affordable_of_three_spells_by_hand():
    """Nova (9 MP, 30), Bolt (2 MP, 10), Spark (1 MP, 5), best first: the automatic choice casts the first it
    affords, Nova from 9 MP, Bolt from 2 to 8, Spark at 1, and punches at 0; the array choice alike."""
    import numpy as np
    from test_turn_twin import _fights

    from storymaster.systems.philsys.round import CAST, MELEE, Body, choose
    from storymaster.systems.philsys.twins import choose_v

    spells = [
        {"name": name, "cost": {"mp": mp}, "effect": {"kind": "attack", "damage": dmg}}
        for name, mp, dmg in (("Spark", 1, "5"), ("Nova", 9, "30"), ("Bolt", 2, "10"))
    ]
    st = SYSTEM.combat.start([[caster(abilities=spells)], [fighter("Bo", 12)]], house_rules=PhilsysHouseRules())
    su = setup(st)
    rows = [(Body(20, mp, 0), Body(12, 0, 0)) for mp in range(11)]
    what, q, _ = choose_v(_fights(su, rows, None), 0, np.arange(len(rows)))
    names = [su.specs[0].spells[i].ability.name if w == CAST else "punch" for w, i in zip(what, q, strict=True)]
    assert names == ["punch", "Spark", *["Bolt"] * 7, "Nova", "Nova"]
    for n, bodies in enumerate(rows):
        w, _, a = choose(su, bodies, 0)
        assert (w, a.ability.name if a else "punch") == (what[n], names[n]) and (w == MELEE) == (n == 0)


def test_a_healer_on_the_second_side_heals_its_own_side_only():
    """The twin and the round's turn with the same dice: Cass (side B) heals her ally Kay (at a quarter of max HP,
    65 // 4 = 16, or less; unconscious ones too) with the fewest HP, never the enemy Ken however hurt (2 HP); an
    unconscious ally healed above 0 HP counts 10 - STA rounds to wake, unless a count is already running (saved
    at 2, or at 0 rounds left: kept)."""
    from test_turn_twin import CASTER, KNIGHT, _compare, _setup

    from storymaster.systems.philsys.round import CAST, HEAL, SHOOT, Body

    def knight(name: str) -> dict:
        return KNIGHT | {"name": name}

    su = _setup([[knight("Ken")], [CASTER | {"name": "Cass"}, knight("Kay")]], PhilsysHouseRules())
    top = su.specs[0].top
    rows = [
        (Body(ken, 0, 0), Body(40, 6, 0), Body(kay, 0, 0, unconscious=kay <= 0, wake_in=wake))
        for ken, kay, wake in itertools.product((2, top), (-3, 1, 10, top), (None, 0, 2))
    ]
    faces = list(itertools.product((1, 20), (1, 20), (0, 5), (6,)))
    assert _compare(su, rows, faces, (1,)) == {(1, HEAL), (1, CAST)}
    assert SHOOT not in (HEAL, CAST)


def test_a_forced_medium_blow_under_light_medium_heavy_by_hand():
    """Under ``melee_damage: light_medium_heavy`` bare hands deal base 0 + rank 1 + k * STR 2 + kd6 (ruling 2):
    the forced medium blow is 5 + 2d6 at -2 (the berserkers' blows still all land). Bo's padded rags stop 1: he
    dies (1 - 10 or less) on 2d6 >= 7 (21/36); Ann, unarmoured, on 2d6 >= 6 (26/36). Ann first: 435/1296."""
    hr = PhilsysHouseRules(critical_margin=100, melee_damage="light_medium_heavy")
    st = start(
        [[fighter("Ann", 1, RAGS)], [fighter("Bo", 1, PADDED_RAGS, AGI=4)]],
        hr,
        attack={"side0": "medium", "side1": "medium"},
    )
    ann = Fraction(435, 1296)
    bo = 1 - ann
    odds = {
        "win": (ann, bo),
        "rounds": {1: Fraction(1)},
        "ends": [
            {"critical health": ann, "dead": bo * Fraction(26, 36), "unconscious": bo * Fraction(10, 36)},
            {"critical health": bo, "dead": ann * Fraction(21, 36), "unconscious": ann * Fraction(15, 36)},
        ],
    }
    check_exact(SYSTEM.forecast(st, method="exact"), odds)
    n = 20_000
    check_simulation(SYSTEM.forecast(st, method="simulate", samples=n, seed=16), odds, n)


def test_a_head_shot_that_does_not_kill_outright_by_hand():
    """Bo's sling at Ann's head (hit: 105/400, as above) kills her outright on a d6 of 1-5; on a 6 it deals
    1d6 + 1 + 10 + 1d10 (12..27) to her 30 HP: 3..18 left, critical health at 15 or less. If he has not killed
    her, her sure punch puts him (1 HP) down, dead on 11 or 12."""
    sling = {"name": "Sling", "accuracy": 8, "damage": "1d6+1"}
    bo = Character.model_validate(
        fighter("Bo", 1, RAGS, STA=-5).model_dump() | {"equipment": {"armor": RAGS, "missile": sling}}
    )
    st = start([[fighter("Ann", 30, RAGS)], [bo]], PhilsysHouseRules(critical_margin=100), order=(1, 0), rnd=1)
    st = st.model_copy(update={"options": st.options.model_copy(update={"aim": {"side1": "head"}})})
    hit = Fraction(105, 400)
    killed = hit * Fraction(5, 6)
    damage: dict[int, Fraction] = defaultdict(Fraction)
    for a, b in itertools.product(range(1, 7), range(1, 11)):
        damage[a + 1 + 10 + b] += Fraction(1, 60)
    critical = hit / 6 * sum((p for d, p in damage.items() if 30 - d <= 15), Fraction(0))
    ann_wins = 1 - killed
    odds = {
        "win": (ann_wins, killed),
        "rounds": {1: Fraction(1)},
        "ends": [
            {"dead": killed, "critical health": critical, "wounded": ann_wins - critical},
            {"critical health": killed, "dead": ann_wins * Fraction(2, 6), "unconscious": ann_wins * Fraction(4, 6)},
        ],
    }
    check_exact(SYSTEM.forecast(st, method="exact"), odds)
    n = 40_000  # a d7 for the d6 would kill on 5/7: Ann dead 0.1875 for 0.21875, 3 x 5 standard errors (0.010)
    check_simulation(SYSTEM.forecast(st, method="simulate", samples=n, seed=17), odds, n)


def test_kicks_forced():
    """Forced kicks ((STR 2 + rank 1) * 3 + 2d6 = 11..21 at -3; the blows still all land): Bo (rags stopping 1) dies
    on 12 or more (35/36), Ann (nothing stopped) on any kick."""
    st = start(
        [[fighter("Ann", 1, RAGS)], [fighter("Bo", 1, PADDED_RAGS, AGI=4)]],
        PhilsysHouseRules(critical_margin=100),
        attack={"side0": "kick", "side1": "kick"},
    )
    ann = Fraction(435, 1296)
    odds = {
        "win": (ann, 1 - ann),
        "rounds": {1: Fraction(1)},
        "ends": [
            {"critical health": ann, "dead": 1 - ann},
            {"critical health": 1 - ann, "dead": ann * Fraction(35, 36), "unconscious": ann * Fraction(1, 36)},
        ],
    }
    check_exact(SYSTEM.forecast(st, method="exact"), odds)
    check_simulation(SYSTEM.forecast(st, method="simulate", samples=4000, seed=18), odds, 4000)


def test_a_shot_that_rolls_below_zero_deals_nothing():
    """A sling of 1d4-2 (-1..2; below 0 deals nothing) at Ann's abdomen (hit 247/400, as above): she (1 HP) goes
    down on a 1 or 2, half the hits; else her sure punch puts Bo down."""
    sling = {"name": "Sling", "accuracy": 8, "damage": "1d4-2"}
    bo = Character.model_validate(
        fighter("Bo", 1, RAGS, STA=-5).model_dump() | {"equipment": {"armor": RAGS, "missile": sling}}
    )
    st = start([[fighter("Ann", 1, RAGS)], [bo]], PhilsysHouseRules(critical_margin=100), order=(1, 0), rnd=1)
    down = Fraction(247, 400) / 2
    odds = {
        "win": (1 - down, down),
        "rounds": {1: Fraction(1)},
        "ends": [
            {"critical health": 1 - down, "unconscious": down},
            {"critical health": down, "dead": (1 - down) * Fraction(2, 6), "unconscious": (1 - down) * Fraction(4, 6)},
        ],
    }
    check_exact(SYSTEM.forecast(st, method="exact"), odds)
    n = 20_000
    check_simulation(SYSTEM.forecast(st, method="simulate", samples=n, seed=19), odds, n)


def test_the_first_affordable_of_two_heals_by_hand():
    """Big Mend (9 MP, 20) before Mend (2 MP, 5): at 4 HP (a quarter of 30 is 7) from 2 to 8 MP she heals with Mend,
    from 9 with Big Mend; the array choice alike."""
    import numpy as np
    from test_turn_twin import _fights

    from storymaster.systems.philsys.round import HEAL, Body, choose
    from storymaster.systems.philsys.twins import choose_v

    heals = [
        {"name": name, "cost": {"mp": mp}, "effect": {"kind": "heal", "damage": dmg}}
        for name, mp, dmg in (("Mend", 2, "5"), ("Big Mend", 9, "20"))
    ]
    st = SYSTEM.combat.start([[caster(abilities=heals)], [fighter("Bo", 12)]], house_rules=PhilsysHouseRules())
    su = setup(st)
    rows = [(Body(4, mp, 0), Body(12, 0, 0)) for mp in range(11)]
    what, q, _ = choose_v(_fights(su, rows, None), 0, np.arange(len(rows)))
    names = [su.specs[0].heals[i].ability.name if w == HEAL else "punch" for w, i in zip(what, q, strict=True)]
    assert names == ["punch", "punch", *["Mend"] * 7, "Big Mend", "Big Mend"]
    for n, bodies in enumerate(rows):
        w, _, a = choose(su, bodies, 0)
        assert (w, a.ability.name if a else "punch") == (what[n], names[n])


def test_critical_health_up_to_max_hp_leaves_no_one_wounded():
    """A critical-health threshold of 64 for max HP 65: every HP but the full 65 is critical health, none is
    'wounded'. The berserkers' winner (1 HP) is at critical health, as before."""
    check_exact(
        SYSTEM.forecast(berserkers(critical_health_threshold=64), method="exact"), berserker_odds(Fraction(435, 1296))
    )
