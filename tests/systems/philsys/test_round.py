"""The Philsys round written once (issue 14): scripted draws, every branch of a round, the Turn Sequence's odds."""

from __future__ import annotations

from fractions import Fraction

import pytest

from storymaster.dice import DiceRng
from storymaster.forecast.chance import Rolled, Scripted, branches
from storymaster.systems.philsys import SYSTEM
from storymaster.systems.philsys.character import Character, at_pa
from storymaster.systems.philsys.checks import MeleeAttack, check_odds
from storymaster.systems.philsys.combat import body, setup
from storymaster.systems.philsys.options import PhilsysHouseRules
from storymaster.systems.philsys.round import Bout, Contest, Die, initiative_pmf, play_round


def brawler(name: str, hp: int, **stats: int) -> Character:
    base = {"COU": 2, "AGI": 3, "INT": 1, "STR": 2, "STA": 2}
    base.update(stats)
    return Character.model_validate(
        {
            "name": name,
            "stats": base,
            "skills": [{"name": "Unarmed Combat", "category": "unarmed", "rank": 1}],
            "current": {"hp": hp},
            "equipment": {"armor": {"name": "Vest", "ac": 6}},
        }
    )


def duel(hp_a: int, hp_b: int, hr: PhilsysHouseRules | None = None):
    hr = hr or PhilsysHouseRules(critical_margin=100)
    st = SYSTEM.combat.start(
        [[brawler("Ann", hp_a)], [brawler("Bo", hp_b, AGI=5, STR=0)]],
        house_rules=hr,
        options={"attack": {"side0": "punch", "side1": "punch"}},
    )
    st = st.model_copy(update={"order": (0, 1), "round": 1})
    return st, setup(st), Bout(st.order, tuple(body(f) for f in st.fighters))


def test_scripted_critical_hit_doubles_before_armour():
    """Ann's punch is a critical hit rolling 5: doubled to 10, the vest (AC 6) stops 2; Bo misses back."""
    _, su, bout = duel(30, 30)
    after = play_round(su, bout, Scripted([Contest("critical hit"), Die(5), Contest("miss")]))
    assert after.bodies[1].hp == 30 - (10 - 2)
    assert after.bodies[0].hp == 30
    assert after.bodies[1].parried and after.bodies[0].parried  # each used the round's parry roll


def test_scripted_critical_failure_loses_the_next_turn():
    _, su, bout = duel(30, 30)
    after = play_round(su, bout, Scripted([Contest("critical failure"), Contest("miss")]))
    assert after.bodies[0].lose_turn
    again = play_round(su, after, Scripted([Contest("miss")]))  # Ann sits out; only Bo's attack is drawn
    assert not again.bodies[0].lose_turn


def test_every_branch_of_a_one_hit_round():
    """1 HP each, no criticals: Ann (first) wins the round with her chance to hit, Bo with his after her
    miss; otherwise the fight goes on. The chances from the melee check's odds, by hand."""
    st, su, bout = duel(1, 1)
    hr = st.house_rules
    a, b = (f.character for f in st.fighters)
    ha = float(check_odds(MeleeAttack(at=at_pa(a, hr)[0], pa=at_pa(b, hr)[1]), hr).probability("hit"))
    hb = float(check_odds(MeleeAttack(at=at_pa(b, hr)[0], pa=at_pa(a, hr)[1]), hr).probability("hit"))
    down = {0: 0.0, 1: 0.0, None: 0.0}
    for p, after in branches(lambda ch: play_round(su, bout, ch)):
        standing = [k for k, x in enumerate(after.bodies) if x.active]
        down[standing[0] if len(standing) == 1 else None] += p
    assert down[0] == pytest.approx(ha, abs=1e-12)
    assert down[1] == pytest.approx((1 - ha) * hb, abs=1e-12)
    assert down[None] == pytest.approx((1 - ha) * (1 - hb), abs=1e-12)


def test_the_engine_step_is_the_round_with_the_dice():
    st, su, bout = duel(30, 30, PhilsysHouseRules())
    new, events = SYSTEM.combat.step(st, DiceRng("r", "x"))
    log: list = []
    after = play_round(su, bout, Rolled(DiceRng("r", "x")), 2, log)
    assert tuple(body(f) for f in new.fighters) == after.bodies
    assert [e.text for e in events if e.kind != "end"] == [e.text for e in log]


def test_initiative_odds_by_hand():
    """2d6 + bonus each; ties to the higher modifier, equal keys re-rolled (even odds between them)."""
    hr = PhilsysHouseRules()
    two = {s: Fraction(6 - abs(s - 7), 36) for s in range(2, 13)}
    first = sum((px * py for x, px in two.items() for y, py in two.items() if (x + 4, 4) > (y + 6, 6)), Fraction(0))
    odds = {ini.order: p for p, ini in initiative_pmf((4, 6), hr)}
    assert odds[(0, 1)] == pytest.approx(float(first), abs=1e-15)
    assert odds[(1, 0)] == pytest.approx(1 - float(first), abs=1e-15)
    same = {ini.order: p for p, ini in initiative_pmf((3, 3, 3), hr)}
    assert len(same) == 6 and all(p == pytest.approx(1 / 6, abs=1e-12) for p in same.values())
    rr = PhilsysHouseRules(initiative_ties="reroll")
    # 'reroll': equal totals are re-rolled whatever the modifiers (half each), not won by the higher one
    ahead = sum((px * py for x, px in two.items() for y, py in two.items() if x + 4 > y + 6), Fraction(0))
    tied = sum((px * py for x, px in two.items() for y, py in two.items() if x + 4 == y + 6), Fraction(0))
    odds = {ini.order: p for p, ini in initiative_pmf((4, 6), rr)}
    assert odds[(0, 1)] == pytest.approx(float(ahead + tied / 2), abs=1e-15)
