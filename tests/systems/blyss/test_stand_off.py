"""A fight in which nobody still standing can ever hit ends as a stand-off when it is reached (issue 14: "detected
and reported, not run to the round cap"), also when it is reached after weapons are lost to Screw-Ups (fists that
can never meet the Attack TD of 8: Character Tests, a die must equal or beat the TD)."""

from __future__ import annotations

import itertools

import numpy as np

from storymaster.forecast.chance import Scripted
from storymaster.systems.blyss import SYSTEM
from storymaster.systems.blyss.character import Attributes, Character, Trait, Weapon
from storymaster.systems.blyss.combat import BlyssCombat, FightState
from storymaster.systems.blyss.forecast import STANDING_AT_CAP, simulate_batch
from storymaster.systems.blyss.round import Judged, Order, Roster, from_state, play_round, to_state


class _CodeBuiltEngine(BlyssCombat):
    def start(self, sides, *, house_rules=None, options=None):  # type: ignore[override]
        return super().start(sides, house_rules=house_rules, options={"allow_illegal": True, **dict(options or {})})


ENG = _CodeBuiltEngine()
LOST = Judged("critical screw-up", screw_ups=2)
MISS = Judged("failure")


def brute(name: str, dexterity: int = 1) -> Character:
    """Melee Attack (2 + 3) / 2 = 2 (d6) + Armed Combat 4 (d10) with a Maul; no Unarmed Combat, so fists are a d6:
    never 8."""
    return Character(
        name=name,
        attributes=Attributes(strength=2, agility=3, dexterity=dexterity),
        traits=(Trait(name="Armed Combat", rank=4),),
        weapons=(Weapon(name="Maul", damage="30", skill="Armed Combat"),),
    )


def play(state: FightState, values: list[object]) -> tuple[FightState, list]:
    chance = Scripted(values)
    st, ev = play_round(to_state(state), Roster(state), chance)
    assert not chance.values, "the round drew fewer values than scripted"
    return from_state(st, state), ev


def test_both_mauls_lost_to_critical_screw_ups_is_a_stand_off_at_once() -> None:
    st = ENG.start([[brute("Ann")], [brute("Bo")]])
    st, ev = play(st, [Order((0, 1)), LOST, LOST])  # Bo (slower) acts first, then Ann: both lose their Mauls
    assert [f.weapon for f in st.fighters] == [None, None]
    assert st.over and st.winner is None and st.round == 1
    end = [e for e in ev if e.kind == "end"]
    assert len(end) == 1 and end[0].data["stand_off"] and "can ever hit" in end[0].text


def test_one_maul_left_or_on_the_ground_is_no_stand_off() -> None:
    st = ENG.start([[brute("Ann")], [brute("Bo")]])
    st, _ = play(st, [Order((0, 1)), MISS, LOST])  # only Ann loses hers: Bo may still hit
    assert not st.over
    st2 = ENG.start([[brute("Ann")], [brute("Bo")]])
    st2, _ = play(st2, [Order((0, 1)), Judged("screw-up", screw_ups=1), LOST])  # Bo's is on the ground: recovered
    assert [f.weapon for f in st2.fighters] == [None, 0] and st2.fighters[1].weapon_dropped
    assert not st2.over


def test_an_aimer_whose_aim_could_bring_a_hit_is_no_stand_off() -> None:
    """Fists (a d6) never meet 8, but an Aim Test of Dexterity + Intelligence (3 + 3: d8 + d8, each may meet TD 8)
    adds up to two ranks to Melee Attack: 4 is a d10, which can. With Dexterity 1 (d4 + d8) one rank: a d8, which
    can too; so neither is a stand-off, while the same fists without the aim are (first test)."""
    aimer = brute("Ann", dexterity=3)
    st = ENG.start([[aimer], [brute("Bo")]], options={"tactic": ["aim", "attack"]})
    st = st.model_copy(update={"fighters": tuple(f.model_copy(update={"weapon": None}) for f in st.fighters)})
    st, _ = play(st, [Order((0, 1)), MISS, Judged("failure")])  # Bo's fists miss; Ann aims and gains nothing
    assert not st.over


def test_a_dying_fighter_holds_the_stand_off_until_their_checks_end() -> None:
    """Dying: a Stamina check each round; the fight goes on while one is due, and ends as a stand-off after."""
    cy = brute("Cy")
    st = ENG.start([[brute("Ann"), cy], [brute("Bo")]])
    fs = list(st.fighters)
    fs[0] = fs[0].model_copy(update={"weapon": None})
    fs[2] = fs[2].model_copy(update={"weapon": None})
    fs[1] = fs[1].model_copy(
        update={"vitals": fs[1].vitals.model_copy(update={"health": -2, "unconscious": True, "dying": True})}
    )
    st = st.model_copy(update={"fighters": tuple(fs)})
    st, _ = play(st, [MISS, Order((0, 1, 2)), MISS, MISS])  # Cy fails the check; both fists miss
    assert not st.over and st.fighters[1].vitals.dying
    st, ev = play(st, [Judged("success", successes=1), MISS, MISS])  # Cy stabilises
    assert st.fighters[1].vitals.stabilised
    assert st.over and st.winner is None and st.round == 2 and ev[-1].data["stand_off"]


def test_the_exact_chain_and_the_simulation_end_the_fist_stand_offs_before_the_cap() -> None:
    """The Maul duel (one blow drops anyone; a critical Screw-Up loses the Maul, 1/60 an attack): every draw is the
    stand-off of two fists that never hit, so nothing is left standing at the round cap (before, 0.39% was)."""
    st = ENG.start([[brute("Ann")], [brute("Bo")]])
    exact = SYSTEM.forecast(st, method="exact")
    assert exact.p_draw > 0.003
    for c in exact.combatants:
        assert c.end_states.get(STANDING_AT_CAP, 0.0) < 1e-9
        assert abs(c.end_states["unhurt"] - exact.p_draw - exact.p_win[c.side]) < 1e-9  # unhurt: won or drew
    assert sum(p for r, p in exact.rounds.items() if r >= st.house_rules.max_rounds) < 1e-9
    batch = simulate_batch(st)(20_000, np.random.default_rng(5))
    draws = batch.winner < 0
    assert draws.sum() > 20 and batch.rounds[draws].max() < st.house_rules.max_rounds


def test_the_simulations_can_ever_hit_table_is_the_scalar_rule_on_every_situation() -> None:
    """The simulation asks `can_ever_hit` through a table filled as situations come up: every (Wound Level code,
    armour mask, weapon lost, attack pending) row must read what the scalar rule says, in any order and repeated."""
    from storymaster.systems.blyss.character import Armour
    from storymaster.systems.blyss.forecast import _Roster

    plate = Armour(name="Plate", armour_rating=6, cover=("T", "A"), lives=2)
    plated = brute("Cy").model_copy(update={"armour": (plate,)})
    st = ENG.start([[brute("Ann"), plated], [brute("Bo")]])
    R = _Roster(st)
    situations = list(itertools.product(range(6), range(1 << R.P), (False, True), (False, True)))
    rng = np.random.default_rng(3)
    seen = set()
    for k in range(R.K):
        order = [situations[i] for i in rng.permutation(len(situations))] * 2  # each asked twice, shuffled
        cols = [np.array(c) for c in zip(*order, strict=True)]
        got = R.can_ever_hit_v(k, cols[0], cols[1], cols[2], cols[3])
        want = [R.can_ever_hit(k, lv, m, int(lost), int(p)) for lv, m, lost, p in order]
        assert got.tolist() == want
        seen |= set(want)
    assert seen == {True, False}  # the domain has situations where a fighter can hit and where one cannot
