"""Screw-Ups in a fight (issue 14): a Screw-Up on an attack drops the weapon (a round to recover it), a critical
one loses it for the fight (Screw-Ups: "end up worse off"; "dropping their weapon"; a critical Screw-Up allows
"no chance of recovery"). House rule ``combat_screw_up`` ('drop_weapon' by default, our ruling; 'none')."""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from storymaster.forecast import fight_by_fight
from storymaster.forecast.chance import Scripted
from storymaster.systems.blyss import SYSTEM
from storymaster.systems.blyss.character import Armour, Attributes, Character, Trait, Weapon
from storymaster.systems.blyss.combat import BlyssCombat, FightState
from storymaster.systems.blyss.dicepool import Counts, judge, judge_kind_v
from storymaster.systems.blyss.forecast import end_state
from storymaster.systems.blyss.options import BlyssHouseRules
from storymaster.systems.blyss.round import (
    Damage,
    Judged,
    Order,
    Roster,
    Soak,
    from_state,
    play_round,
    screw_up_weapon,
    to_state,
)


class _CodeBuiltEngine(BlyssCombat):
    """Stat blocks built in code to exercise one rule: the SM allows what creation would refuse."""

    def start(self, sides, *, house_rules=None, options=None):  # type: ignore[override]
        return super().start(sides, house_rules=house_rules, options={"allow_illegal": True, **dict(options or {})})


ENG = _CodeBuiltEngine()
MAUL = Weapon(name="Maul", damage="30", skill="Armed Combat")


def brute(name: str) -> Character:
    """Melee Attack 2 (d6, which never meets TD 8) + Armed Combat 4 (d10); 24 points to lose, so the Maul's
    30 - 1 (Strength 2) drops anyone in one blow; no Unarmed Combat, so fists (a d6) never hit."""
    return Character(
        name=name,
        attributes=Attributes(strength=2, agility=3),
        traits=(Trait(name="Armed Combat", rank=4),),
        weapons=(MAUL,),
    )


def play(state: FightState, values: list[object]) -> tuple[FightState, list]:
    """One round of the engine's own round function, its draws scripted."""
    chance = Scripted(values)
    st, ev = play_round(to_state(state), Roster(state), chance)
    assert not chance.values, "the round drew fewer values than scripted"
    return from_state(st, state), ev


FAIL = Judged("failure")


def test_a_screw_up_drops_the_weapon_and_recovering_it_takes_the_next_round() -> None:
    st = ENG.start([[brute("Ann")], [brute("Bo")]])
    # Ann wins Initiative; the slower (Bo) acts first and screws up; Ann misses
    st, ev = play(st, [Order((0, 1)), Judged("screw-up", screw_ups=1), FAIL])
    bo = st.get("Bo")
    assert bo.weapon_dropped and bo.weapon == 0 and not st.get("Ann").weapon_dropped
    lines = [e.text for e in ev if e.kind == "screw-up"]
    assert lines == ["Bo screws up and drops their Maul: a round to recover it (Screw-Ups; Equipment Use)."]
    assert any(e.kind == "attack" and "-> screw-up x1." in e.text for e in ev)
    # round 2: Bo spends it recovering (no attack roll of his); only Ann's attack is drawn
    st, ev = play(st, [FAIL])
    assert st.get("Bo").declared.kind == "recover" and not st.get("Bo").weapon_dropped
    assert [e.kind for e in ev if e.actor == "Bo"] == ["declare", "recover"]
    # round 3: Bo attacks with the Maul again
    st, ev = play(st, [FAIL, FAIL])
    assert any(e.kind == "attack" and e.actor == "Bo" and "with Maul" in e.text for e in ev)


def test_a_critical_screw_up_loses_the_weapon_for_the_rest_of_the_fight() -> None:
    st = ENG.start([[brute("Ann")], [brute("Bo")]])
    st, ev = play(st, [Order((0, 1)), Judged("critical screw-up", screw_ups=2), FAIL])
    bo = st.get("Bo")
    assert bo.weapon is None and not bo.weapon_dropped
    assert [e.text for e in ev if e.kind == "screw-up"] == [
        "Bo critically screws up: their Maul is lost for the rest of the fight (Screw-Ups: no chance of recovery); "
        "they fight on unarmed."
    ]
    for _ in range(3):  # no recovery: Bo never declares one, and fights with his fists
        st, ev = play(st, [FAIL, FAIL])
        assert st.get("Bo").declared.kind == "attack" and st.get("Bo").weapon is None
        assert any(e.kind == "attack" and e.actor == "Bo" and "with Unarmed" in e.text for e in ev)


def test_fists_cannot_be_dropped_and_the_house_rule_none_keeps_the_weapon() -> None:
    st = ENG.start([[brute("Ann")], [brute("Bo")]], house_rules=BlyssHouseRules(combat_screw_up="none"))
    st, ev = play(st, [Order((0, 1)), Judged("critical screw-up", screw_ups=2), Judged("screw-up", screw_ups=1)])
    assert [f.weapon for f in st.fighters] == [0, 0] and not any(f.weapon_dropped for f in st.fighters)
    assert not [e for e in ev if e.kind == "screw-up"]
    assert screw_up_weapon("critical screw-up", None, False, "drop_weapon") == (None, False)
    assert screw_up_weapon("screw-up", 0, True, "drop_weapon") == (0, True)  # already on the ground
    assert screw_up_weapon("failure", 1, False, "drop_weapon") == (1, False)
    assert screw_up_weapon("screw-up", 1, False, "drop_weapon") == (1, True)
    assert screw_up_weapon("critical screw-up", 1, False, "drop_weapon") == (None, False)


def test_judge_kind_twin_on_every_small_count() -> None:
    codes = {"failure": 0, "success": 1, "critical success": 1, "screw-up": 2, "critical screw-up": 3}
    rows = [(n, ones, hits) for n in range(7) for ones in range(n + 1) for hits in range(n - ones + 1)]
    n, ones, hits = (np.array(x) for x in zip(*rows, strict=True))
    got = judge_kind_v(n, ones, hits)
    for (nn, oo, hh), g in zip(rows, got, strict=True):
        assert g == codes[judge(Counts(nn, oo, 0, 0, hh, hh)).kind], (nn, oo, hh)


# ---------------------------------------------------------------- the exact chain, by hand
# One attack with (d6, d10) at TD 8, by hand: the d6 never meets 8, so it is a hit when the d10 shows 8-10 and
# the d6 is not a 1 (3/10 x 5/6); a Screw-Up when a 1 is left over: the d6 a 1 and the d10 2-7 (1/6 x 6/10),
# or the d10 a 1 and the d6 not (1/10 x 5/6); a critical Screw-Up when both show 1 (1/60); else nothing.
HIT, DROP, LOSE = Fraction(15, 60), Fraction(11, 60), Fraction(1, 60)
MISS = 1 - HIT - DROP - LOSE
# Initiative: a d8 each at TD 6; Ann (listed first) ahead with 18/64 and level with 28/64, a tie rolled off
# (d100 each, equal rolls keeping the listing order): 50.5%. The slower acts first in the Action Round.
ANN_FIRST = 1 - (Fraction(18, 64) + Fraction(505, 1000) * Fraction(28, 64))


def by_hand(rounds: int, drop: bool) -> tuple[Fraction, Fraction]:
    """(P first actor wins, P second wins) within ``rounds`` rounds, each fighter's weapon in hand, on the
    ground (recovered instead of attacking next round) or lost (fists that never hit)."""
    lose = LOSE if drop else 0
    dropp = DROP if drop else 0
    miss = 1 - HIT - dropp - lose

    def act(w: str) -> list[tuple[Fraction, str, bool]]:
        if w == "hand":
            return [(HIT, "hand", True), (dropp, "ground", False), (lose, "lost", False), (miss, "hand", False)]
        return [(Fraction(1), "hand" if w == "ground" else "lost", False)]

    @cache
    def go(x: str, y: str, left: int) -> tuple[Fraction, Fraction]:
        if left == 0:
            return Fraction(0), Fraction(0)
        first = second = Fraction(0)
        for px, x2, kill in act(x):
            if kill:
                first += px
                continue
            for py, y2, kill2 in act(y):
                if kill2:
                    second += px * py
                    continue
                a, b = go(x2, y2, left - 1)
                first += px * py * a
                second += px * py * b
        return first, second

    return go("hand", "hand", rounds)


@pytest.mark.parametrize("rounds", [3, 100])
@pytest.mark.parametrize("rule", ["drop_weapon", "none"])
def test_exact_forecast_with_screw_ups_worked_by_hand(rounds: int, rule: str) -> None:
    hr = BlyssHouseRules(combat_screw_up=rule, max_rounds=rounds)
    fc = SYSTEM.forecast(ENG.start([[brute("Ann")], [brute("Bo")]], house_rules=hr), method="exact")
    first, second = by_hand(rounds, rule == "drop_weapon")
    p_ann = ANN_FIRST * first + (1 - ANN_FIRST) * second
    p_bo = ANN_FIRST * second + (1 - ANN_FIRST) * first
    assert fc.p_win[0] == pytest.approx(float(p_ann), abs=1e-12)
    assert fc.p_win[1] == pytest.approx(float(p_bo), abs=1e-12)
    assert fc.p_draw == pytest.approx(float(1 - p_ann - p_bo), abs=1e-12)
    if rule == "drop_weapon":  # the rule bites: without it the duel ends sooner
        plain = by_hand(rounds, False)
        assert abs(float(first - plain[0])) > 1e-3


# ---------------------------------------------------------------- agreement with the engine and the simulation
def close(p: float, q: float, n: int, k: float = 4.0) -> bool:
    return abs(p - q) <= k * math.sqrt(max(p * (1 - p), 1e-4) / n) + 1e-3


MAIL = Armour(name="Mail", action_modifier=-1, cover=("T", "A"), armour_rating=4, lives=3)


def _clumsy(name: str, weapon: Weapon, **kw: object) -> Character:
    return Character(
        name=name,
        attributes=Attributes(strength=3, agility=3),
        traits=(Trait(name="Armed Combat", rank=2), Trait(name="Unarmed Combat", rank=1)),
        weapons=(weapon,),
        **kw,  # type: ignore[arg-type]
    )


def test_exact_and_simulated_forecasts_agree_with_the_engine_when_screw_ups_bite() -> None:
    """Small pools (d8 + d6) screw up often; armour, a blunt knockout weapon and fists after a lost weapon."""
    ann = _clumsy("Ann", Weapon(name="Axe", damage="d8+2", skill="Armed Combat"), armour=(MAIL,))
    bo = _clumsy("Bo", Weapon(name="Club", damage="d6+1", skill="Armed Combat", blunt=True, knockout_rank=2))
    st = ENG.start([[ann], [bo]])
    exact = SYSTEM.forecast(st, method="exact")
    n = 800
    eng = fight_by_fight(
        "blyss",
        ENG,
        st,
        samples=n,
        seed="screw-ups",
        sides=[["Ann"], ["Bo"]],
        end_state=lambda s: {f.id: end_state(f) for f in s.fighters},
    )
    sim = SYSTEM.forecast(st, method="simulate", samples=20_000, seed=3)
    for fc in (eng, sim):
        m = n if fc is eng else 20_000
        for p, q in zip(exact.p_win, fc.p_win, strict=True):
            assert close(p, q, m), (fc.method, p, q)
        assert close(exact.p_draw, fc.p_draw, m)
    # the same fight without the rule is another fight: the rule is not a no-op here
    plain = SYSTEM.forecast(
        ENG.start([[ann], [bo]], house_rules=BlyssHouseRules(combat_screw_up="none")), method="exact"
    )
    assert abs(plain.p_win[0] - exact.p_win[0]) > 0.005


def test_a_hit_the_armour_soaks_still_spoils_an_aim() -> None:
    """Aiming: an Aim Test "automatically fails if the character is interrupted, such as being hit by an attack";
    the armour soaking the damage does not undo the hit (the engine used to keep the aim then, while its log
    said it was spoilt)."""
    plate = Armour(name="Plate", cover=("T",), armour_rating=5)
    ann = Character(
        name="Ann",
        attributes=Attributes(dexterity=5, intelligence=5),
        traits=(Trait(name="Armed Combat", rank=3),),
        weapons=(MAUL,),
        armour=(plate,),
    )
    st = ENG.start([[ann], [brute("Bo")]], options={"tactic": ["aim", "attack"]})
    # Bo wins Initiative, so Ann (slower) acts first: she aims (2 successes); Bo hits; the Plate soaks it all
    script = [Order((1, 0)), Judged("success", successes=2), Judged("success", best=9), Damage(29), Soak(True, 12)]
    st, ev = play(st, script)
    assert any(e.kind == "aim" and "spoilt" in e.text for e in ev)
    assert any(e.kind == "armour" and e.data.get("soaked") for e in ev)
    ann_now = st.get("Ann")
    assert ann_now.aim_bonus == 0 and ann_now.vitals.health == ann_now.vitals.max_health
