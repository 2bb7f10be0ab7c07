"""The Philsys round written once (issue 14): scripted draws, every branch of a round, the Turn Sequence's odds."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

import pytest

from storymaster.dice import DiceRng
from storymaster.forecast import absorb
from storymaster.forecast.chance import Rolled, Scripted, branches
from storymaster.systems.philsys import SYSTEM
from storymaster.systems.philsys.character import Character, at_pa
from storymaster.systems.philsys.checks import MeleeAttack, check_odds
from storymaster.systems.philsys.combat import body, setup
from storymaster.systems.philsys.forecast import END_STATES, end_code
from storymaster.systems.philsys.options import PhilsysHouseRules
from storymaster.systems.philsys.round import Bout, Contest, Die, decided, initiative_pmf, play_round


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


# --- the exact chain against the round itself, state by state --------------------------------


def literal_chain(state):
    """The duel as ``absorb(start, lambda s: branches(lambda ch: play_round(s, ch)))``: every state a node
    (the parry flags, reset at each round's start, and the disabled-limb count, which no rule reads, left out)."""
    su = setup(state)
    hr = state.house_rules

    def key(b: Bout):
        if decided(b.bodies, su.specs):
            standing = [s.side for x, s in zip(b.bodies, su.specs, strict=True) if x.active]
            labels = tuple(
                END_STATES[end_code(x.hp, x.unconscious, x.dead, s.top, hr)]
                for x, s in zip(b.bodies, su.specs, strict=True)
            )
            return ("end", standing[0] if standing else None, *labels)
        return Bout(b.order, tuple(x._replace(parried=False, disabled_limbs=0) for x in b.bodies))

    start = Bout(state.order, tuple(body(f) for f in state.fighters))
    return absorb(
        start,
        lambda s: branches(lambda ch: key(play_round(su, s, ch))),
        lambda s: s[0] == "end",
        max_rounds=hr.max_rounds - state.round,
    )


def mage(name: str, hp: int, mp: int = 9, **extra) -> Character:
    data = {
        "name": name,
        "stats": {"COU": 2, "AGI": 3, "INT": 2, "WIS": 2, "STR": 1, "STA": -5, "MAG": 3},
        "skills": [{"name": "Melee Weapon (Swords)", "category": "melee", "rank": 2, "at_ranks": 1}],
        "abilities": [
            {"name": "Mend", "cost": {"mp": 4}, "effect": {"kind": "heal", "damage": "2+1d4"}},
            {"name": "Bolt", "cost": {"mp": 5}, "effect": {"kind": "attack", "damage": "3+1d4"}},
            {
                "name": "Bash",
                "cost": {"tp": 4, "hp": 1},
                "effect": {"kind": "attack", "damage": "2+1d6", "magical": False},
            },
        ],
        "current": {"hp": hp, "mp": mp, "tp": 4},
        "equipment": {
            "weapon": {"name": "Sword", "damage": [3, 5, 6], "skill": "Melee Weapon (Swords)"},
            "shield": {"name": "Buckler", "ac": 6, "pa": 2, "at": -1},
            "armor": {"name": "Vest", "ac": 4},
        },
    }
    data.update(extra)
    return Character.model_validate(data)


def archer(name: str, hp: int) -> Character:
    return Character.model_validate(
        {
            "name": name,
            "stats": {"COU": 1, "AGI": 4, "INT": 1, "STR": 2, "STA": 2},
            "current": {"hp": hp},
            "equipment": {"missile": {"name": "Bow", "accuracy": 8, "damage": "1d6+1"}},
        }
    )


LITERAL_DUELS = {
    "heal or spell, tech with an HP cost, breaking shields, near misses, bleeding": (
        lambda: SYSTEM.combat.start(
            [[mage("Ann", 12, mp=5)], [brawler("Bo", 10, AGI=4, STR=1)]],
            house_rules=PhilsysHouseRules(
                critical_health_threshold=5,
                heavy_wound_penalty=3,
                shield_breaks=True,
                bleeding=True,
                bleeding_rate=2,
                death_threshold=-6,
                near_miss_half_damage=True,
                critical_margin=10,
                max_rounds=10,
            ),
        )
    ),
    "head shots, unparried blows, no lost turns, a round cap": (
        lambda: SYSTEM.combat.start(
            [[archer("Cy", 12)], [mage("Di", 12)]],
            house_rules=PhilsysHouseRules(
                critical_health_threshold=4,
                unparried_attacks_hit_automatically=True,
                critical_failure_effect="none",
                max_rounds=5,
            ),
            options={"aim": {"side0": "head"}, "tactics": {"side1": "melee"}},
        )
    ),
    "limb shots, mid-fight with a lost turn to sit out": (
        lambda: (
            lambda st: st.model_copy(
                update={
                    "fighters": (st.fighters[0], st.fighters[1].model_copy(update={"lose_turn": True})),
                    "order": (1, 0),
                    "round": 2,
                }
            )
        )(
            SYSTEM.combat.start(
                [[archer("Cy", 10)], [brawler("Bo", 11)]],
                house_rules=PhilsysHouseRules(critical_health_threshold=4),
                options={"aim": {"side0": "limb"}},
            )
        )
    ),
}


@pytest.mark.parametrize("name", list(LITERAL_DUELS))
def test_exact_chain_is_the_round_enumerated(name):
    """The forecast's banded chain against the round enumerated state by state (no second statement of the
    rules on either side): wins, draws, rounds and end states to 1e-10."""
    st = LITERAL_DUELS[name]()
    res = literal_chain(st)
    f = SYSTEM.forecast(st, method="exact")
    capped = st.house_rules.max_rounds < 100
    assert (res.unresolved < 1e-12) or capped
    win = [0.0, 0.0]
    draw = 0.0
    ends: list[dict[str, float]] = [defaultdict(float), defaultdict(float)]
    for (_, who, l0, l1), p in res.terminal.items():
        if who is None:
            draw += p
        else:
            win[who] += p
        ends[0][l0] += p
        ends[1][l1] += p
    rounds = dict(res.rounds)
    for s, p in res.live.items():  # still going at the round cap: the draw
        draw += p
        rounds[st.house_rules.max_rounds - st.round] = rounds.get(st.house_rules.max_rounds - st.round, 0.0) + p
        for k, x in enumerate(s.bodies):
            top = setup(st).specs[k].top
            ends[k][END_STATES[end_code(x.hp, x.unconscious, x.dead, top, st.house_rules)]] += p
    assert f.p_win == pytest.approx(tuple(win), abs=1e-10)
    assert f.p_draw == pytest.approx(draw, abs=1e-10)
    for r in set(f.rounds) | set(rounds):
        assert f.rounds.get(r, 0.0) == pytest.approx(rounds.get(r, 0.0), abs=1e-10), r
    for k, c in enumerate(f.combatants):
        for lab in set(c.end_states) | set(ends[k]):
            assert c.end_states.get(lab, 0.0) == pytest.approx(ends[k].get(lab, 0.0), abs=1e-10), (c.name, lab)
