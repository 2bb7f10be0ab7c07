"""Combat: Advantage Points, spending, Defence Totals, wounds, Tenacity tests, stances, several fighters."""

from __future__ import annotations

import pytest
from fuzzy_helpers import EXAMPLES, ScriptedRng
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from storymaster.dice import DiceRng, verify
from storymaster.errors import CombatError
from storymaster.rules import CombatEngine, load_model
from storymaster.systems.fuzzy import SYSTEM
from storymaster.systems.fuzzy.character import CombatProfile, FuzzyCharacter, RequiredAbilities
from storymaster.systems.fuzzy.combat import FightState, Wound, defence_total, engagements
from storymaster.systems.fuzzy.options import FuzzyHouseRules

ENGINE = SYSTEM.combat


def fighter(name: str, body: int = 2, tenacity: int = 2, **combat) -> FuzzyCharacter:
    profile = {"weapon": "sword", "weapon_lethality": "normal", **combat}
    return FuzzyCharacter(
        name=name, required=RequiredAbilities(body=body, tenacity=tenacity), combat=CombatProfile(**profile)
    )


def start(a, b, tactics=None, house=None) -> FightState:
    return ENGINE.start(
        [[a], [b]] if not isinstance(a, list) else [a, b], house_rules=house, options={"tactics": tactics or [{}, {}]}
    )


def texts(events):
    return "\n".join(e.text for e in events)


def test_engine_satisfies_the_protocol():
    assert isinstance(ENGINE, CombatEngine)


def test_winner_gains_the_margin_as_advantage_points_and_carries_them():
    st0 = start(fighter("A"), fighter("B"), [{"harm_at": "killed"}, {}])
    st1, ev = ENGINE.step(st0, ScriptedRng([5, 4, 2, 3]))
    assert [(p.holder, p.against, p.points) for p in st1.pools] == [("A", "B", 4)]
    assert "A wins by 4" in texts(ev) and "keeps 4 Advantage Points" in texts(ev)
    st2, ev = ENGINE.step(st1, ScriptedRng([4, 4, 2, 3]))
    assert st2.pools[0].points == 7


def test_spending_on_harm_and_the_tenacity_test_with_wound_penalties():
    st0 = start(fighter("A"), fighter("B"))
    st1, ev = ENGINE.step(st0, ScriptedRng([5, 4, 2, 3, 5]))
    b = st1.fighter("B")
    assert [w.level for w in b.wounds] == ["serious"]  # 4 points vs Defence 2 = 2x
    assert b.status == "incapacitated"  # Tenacity 2 dice - 2 = 1 die: 5 < 7
    assert "Tenacity (2 dice -2 for wounds = 1) vs 7" in texts(ev)
    assert st1.over and st1.winner == 0 and ENGINE.winner(st1) == 0 and ENGINE.is_over(st1)
    assert st1.pools == ()  # spent


def test_tenacity_success_keeps_the_fighter_up_with_the_penalty():
    st0 = start(fighter("A"), fighter("B", tenacity=4))
    st1, ev = ENGINE.step(st0, ScriptedRng([4, 3, 2, 3, 4, 5, 1]))  # A 7, B 5: 2 points = moderate; Tenacity 3 dice: 10
    b = st1.fighter("B")
    assert b.status == "fighting" and [w.level for w in b.wounds] == ["moderate"]
    assert "stays up" in texts(ev)
    # next round B rolls 1 die (2 - 1); A rolls 2
    _st2, ev = ENGINE.step(st1, ScriptedRng([2, 2, 5, 6]))  # A 4; B one die 5 (no check die)
    assert "Body 1d6 (2 -1 injury)" in texts(ev)
    assert "B wins by 1" in texts(ev)


def test_minimum_one_die_under_wound_penalties():
    st0 = start(fighter("A"), fighter("B", body=1, tenacity=1), [{"harm_at": "killed"}, {}])
    st0 = st0.model_copy(
        update={
            "fighters": (
                st0.fighters[0],
                st0.fighters[1].model_copy(update={"wounds": (Wound(level="mortal", by="A", round=0),)}),
            )
        }
    )
    _, ev = ENGINE.step(st0, ScriptedRng([2, 3, 4]))
    assert "Body 1d6 (1 -3 injury, never below 1)" in texts(ev)


def test_killed_at_four_times_without_a_tenacity_test():
    st0 = start(fighter("A"), fighter("B", body=1), [{"harm_at": "moderate"}, {}])
    st1, ev = ENGINE.step(st0, ScriptedRng([6, 5, 2]))  # A 11 vs B 2: 9 points vs Defence 1 -> killed (4x)
    assert st1.fighter("B").status == "dead"
    assert "killed (no Tenacity test)" in texts(ev)
    assert not any(e.kind == "tenacity" for e in ev)


def test_non_lethal_intent_raises_the_defence_and_knocks_out():
    st0 = start(fighter("A"), fighter("B", body=1), [{"intent": "non-lethal"}, {}])
    a, b = st0.fighters
    total, mods = defence_total(b, a)
    assert total == 3 and ("non-lethal", 2) in mods


def test_non_lethal_kill_is_a_knock_out():
    st0 = start(fighter("A", body=3), fighter("B", body=1), [{"intent": "non-lethal"}, {}])
    st1, ev = ENGINE.step(st0, ScriptedRng([6, 5, 5, 2]))  # 16 vs 2: 14 points vs Defence 3 -> 4x = 12
    b = st1.fighter("B")
    assert b.status == "unconscious" and b.knocked_out
    assert "knocked out" in texts(ev)


def test_non_lethal_with_a_deadly_weapon_is_plus_four():
    st0 = start(fighter("A", weapon_lethality="really deadly"), fighter("B"), [{"intent": "non-lethal"}, {}])
    a, b = st0.fighters
    total, mods = defence_total(b, a)
    assert ("attacker's sword is really deadly", -2) in mods and ("non-lethal with an unsuitable weapon", 4) in mods
    assert total == 2 - 2 + 4


def test_defence_total_lists_every_modifier_and_floors_at_one():
    d = fighter("D", body=1, armour="super-duper")
    a = fighter("A", weapon_lethality="really deadly")
    st0 = start(d, a, [{"stance": "all-out attack"}, {}])
    fd, fa = st0.fighters
    fd = fd.model_copy(update={"wounds": (Wound(level="serious", by="A", round=1),)})
    total, mods = defence_total(fd, fa)
    assert mods == [
        ("Body 1", 1),
        ("attacker's sword is really deadly", -2),
        ("super-duper", 2),
        ("injury", -2),
        ("fighting all-out attack", -2),
    ]
    assert total == 1  # 1 - 2 + 2 - 2 - 2 = -3, floored


@pytest.mark.parametrize(
    "stance,mod", [("normal", 0), ("defensive", 1), ("all-out defence", 2), ("offensive", -1), ("all-out attack", -2)]
)
def test_stance_changes_the_defenders_total(stance, mod):
    st0 = start(fighter("D", body=4), fighter("A"), [{"stance": stance}, {}])
    total, _ = defence_total(st0.fighters[0], st0.fighters[1])
    assert total == 4 + mod


@pytest.mark.parametrize(
    "lethality,mod",
    [
        ("terribly ineffective", 2),
        ("not-so-lethal", 1),
        ("normal", 0),
        ("especially damaging", -1),
        ("really deadly", -2),
    ],
)
def test_attackers_weapon_changes_the_defence_total(lethality, mod):
    st0 = start(fighter("D", body=4), fighter("A", weapon_lethality=lethality))
    assert defence_total(st0.fighters[0], st0.fighters[1])[0] == 4 + mod


def test_armour_changes_the_defence_total():
    for armour, mod in (("none", 0), ("armour", 1), ("super-duper", 2)):
        st0 = start(fighter("D", body=4, armour=armour), fighter("A"))
        assert defence_total(st0.fighters[0], st0.fighters[1])[0] == 4 + mod


def test_all_out_defence_may_not_spend_on_harm():
    st0 = start(fighter("A"), fighter("B"), [{"stance": "all-out defence"}, {}])
    st1, ev = ENGINE.step(st0, ScriptedRng([6, 5, 1, 2]))
    assert st1.fighter("B").wounds == () and st1.pools[0].points == 8
    assert "all-out defence cannot hurt" in texts(ev)


def test_all_out_attack_spends_everything():
    st0 = start(fighter("A"), fighter("B", body=2), [{"stance": "all-out attack", "harm_at": "killed"}, {}])
    st1, ev = ENGINE.step(st0, ScriptedRng([4, 3, 2, 3, 6, 5]))  # 7 vs 5: 2 points, all spent vs Defence 2
    assert "spends 2 Advantage Points" in texts(ev) and st1.pools == ()
    assert [w.level for w in st1.fighter("B").wounds] == ["moderate"]


def test_harmless_weapon_cannot_hurt():
    st0 = start(fighter("A", weapon_lethality="harmless"), fighter("B"))
    st1, ev = ENGINE.step(st0, ScriptedRng([6, 5, 1, 2]))
    assert st1.fighter("B").wounds == () and "cannot hurt anyone" in texts(ev)


def test_waits_for_the_chosen_wound_level_and_spends_the_least_that_reaches_it():
    st0 = start(fighter("A"), fighter("B"), [{"harm_at": "serious"}, {}])
    st1, ev = ENGINE.step(st0, ScriptedRng([4, 3, 2, 3]))  # 2 points: moderate only -> wait
    assert st1.pools[0].points == 2 and "waiting for 2x Defence Total 2" in texts(ev)
    st2, ev = ENGINE.step(st1, ScriptedRng([4, 4, 2, 3, 6, 5]))  # +3 = 5 points: 2x = 4 spent, 1 kept
    assert "spends 4 Advantage Points" in texts(ev)
    assert st2.pools[0].points == 1


def test_stand_off_round_gives_no_points():
    st1, ev = ENGINE.step(start(fighter("A"), fighter("B")), ScriptedRng([3, 4, 5, 2]))
    assert st1.pools == () and "stand-off" in texts(ev)


@pytest.mark.parametrize("rule,a_left,b_has", [("keep", 3, 1), ("offset", 2, 0), ("lose", 0, 1)])
def test_advantage_on_loss_rulings(rule, a_left, b_has):
    house = FuzzyHouseRules(advantage_on_loss=rule)
    st0 = start(fighter("A"), fighter("B"), [{"harm_at": "killed"}, {"harm_at": "killed"}], house)
    st1, _ = ENGINE.step(st0, ScriptedRng([5, 3, 2, 3]))  # A by 3
    st2, _ = ENGINE.step(st1, ScriptedRng([2, 3, 3, 3]))  # B by 1
    pools = {(p.holder, p.against): p.points for p in st2.pools}
    assert pools.get(("A", "B"), 0) == a_left and pools.get(("B", "A"), 0) == b_has


def test_mortal_wound_means_dying():
    st0 = start(fighter("A", body=3), fighter("B", tenacity=5), [{"harm_at": "mortal"}, {}])
    st1, ev = ENGINE.step(st0, ScriptedRng([6, 5, 1, 2, 3, 4, 4]))  # 12 vs 5 = 7 >= 3x2, < 4x2 -> mortal
    b = st1.fighter("B")
    assert [w.level for w in b.wounds] == ["mortal"]
    assert b.dying and "will die within minutes" in texts(ev)
    assert b.status == "fighting"  # passed Tenacity: 5 dice - 3 = 2 dice, 4+4 = 8 >= 7


def test_two_moderate_wounds_are_not_a_serious_wound_but_each_needs_a_test():
    st0 = start(fighter("A"), fighter("B", tenacity=6, armour="super-duper"))  # Defence 2 + 2 = 4
    s1, _ = ENGINE.step(
        st0, ScriptedRng([5, 4, 2, 3, 4, 4, 4, 4, 4])
    )  # 9 vs 5: 4 points = 1x -> moderate; Tenacity 5 dice: 20
    assert s1.fighter("B").status == "fighting"
    s2, ev = ENGINE.step(
        s1, ScriptedRng([3, 2, 2, 4, 4, 4, 4, 4])
    )  # 5 vs one die 2: 3 points vs Defence 4 - 1 = 3 -> moderate
    b = s2.fighter("B")
    assert "Defence Total 3: Body 2, super-duper +2, injury -1" in texts(ev)
    assert "tests Tenacity (6 dice -1 for wounds = 5)" in texts(ev)
    assert [w.level for w in b.wounds] == ["moderate", "moderate"]
    assert b.status == "fighting"


def test_nonlethal_body_test_option():
    house = FuzzyHouseRules(nonlethal_body_test=9)
    st0 = start(fighter("A"), fighter("B"), [{"intent": "non-lethal"}, {}], house)
    s, ev = ENGINE.step(
        st0, ScriptedRng([6, 5, 1, 2, 2, 3])
    )  # 11 vs 3: 8 points vs Defence 4 -> serious; Body test 5 < 9
    assert "does no harm" in texts(ev) and s.fighter("B").wounds == ()


def test_manoeuvres_cost_points_and_can_end_the_fight():
    tactics = [
        {
            "harm_at": "killed",
            "manoeuvres": [
                {"name": "high ground", "cost": 2, "roll_bonus": 1},
                {"name": "out the door", "cost": 4, "ends_fight": True},
            ],
        },
        {},
    ]
    st0 = start(fighter("A"), fighter("B"), tactics)
    s1, ev = ENGINE.step(st0, ScriptedRng([5, 3, 2, 3]))  # 3 points: buys the high ground for 2
    assert "manoeuvre: high ground (+1 to later rolls)" in texts(ev)
    assert s1.fighter("A").roll_bonus == 1 and s1.pools[0].points == 1
    s2, ev = ENGINE.step(s1, ScriptedRng([4, 3, 2, 3]))  # 7+1 vs 5: +3 = 4 points: out the door
    assert s2.fighter("A").status == "escaped" and s2.over and s2.winner == 1


def test_encumbrance_and_appropriateness_modify_rolls():
    st0 = start(fighter("A", encumbrance="really heavy"), fighter("B"), [{"appropriateness": 2}, {}])
    _, ev = ENGINE.step(st0, ScriptedRng([3, 4, 3, 4]))
    assert "-2 really heavy encumbrance" in texts(ev) and "+2 more appropriate Ability" in texts(ev)
    assert "stand-off" in texts(ev)


def test_clumsy_hinders_body_in_a_fight_when_the_profile_says_so():
    sven = load_model(EXAMPLES / "sven.yaml", FuzzyCharacter)
    hindered = sven.model_copy(update={"combat": sven.combat.model_copy(update={"hindered": True})})
    st0 = start(hindered, fighter("B"))
    assert st0.fighters[0].hindrance == 1
    _, ev = ENGINE.step(st0, DiceRng(1))
    assert "Body 3d6 (4 -1 hindered)" in texts(ev)


def test_several_opponents_cost_a_die_each_round():
    st0 = ENGINE.start([[fighter("Hero", body=4)], [fighter("Thug"), fighter("Thug")]])
    assert [f.key for f in st0.fighters] == ["Hero", "Thug", "Thug #2"]
    assert engagements(st0) == [("Hero", "Thug"), ("Hero", "Thug #2")]
    _, ev = ENGINE.step(st0, DiceRng(5))
    assert "Body 3d6 (4 -1 for 2 opponents)" in texts(ev)


def test_huge_crowd_costs_two_dice():
    crowd = [fighter("Mob") for _ in range(5)]
    st0 = ENGINE.start([[fighter("Hero", body=6)], crowd])
    _, ev = ENGINE.step(st0, DiceRng(5))
    assert "Body 4d6 (6 -2 for 5 opponents)" in texts(ev)


def test_state_is_json_round_trippable_and_frozen():
    a = load_model(EXAMPLES / "achmed.yaml", FuzzyCharacter)
    b = load_model(EXAMPLES / "sven.yaml", FuzzyCharacter)
    st0 = ENGINE.start([[a], [b]], options={"tactics": [{"appropriateness": 2}, {}]})
    s, _ = ENGINE.step(st0, DiceRng(9))
    assert FightState.model_validate_json(s.model_dump_json()) == s
    with pytest.raises(ValidationError, match="frozen"):
        s.round = 5  # type: ignore[misc]


def test_same_seed_same_fight_and_rolls_replay():
    a = load_model(EXAMPLES / "achmed.yaml", FuzzyCharacter)
    b = load_model(EXAMPLES / "sven.yaml", FuzzyCharacter)
    runs = []
    for _ in range(2):
        s, ev = ENGINE.run(ENGINE.start([[a], [b]]), DiceRng("same"))
        runs.append(([e.text for e in ev], s))
    assert runs[0] == runs[1]
    s, ev = ENGINE.run(ENGINE.start([[a], [b]]), DiceRng("same"))
    for e in ev:
        for r in e.rolls:
            verify(r)


def test_step_after_the_end_is_an_error():
    s, _ = ENGINE.run(start(fighter("A", body=5), fighter("B", body=1)), DiceRng(3))
    with pytest.raises(CombatError):
        ENGINE.step(s, DiceRng(3))


def test_bad_sides_are_refused():
    with pytest.raises(CombatError):
        ENGINE.start([[fighter("A")]])
    with pytest.raises(CombatError):
        ENGINE.start([[fighter("A")], []])


def test_max_rounds_stand_off():
    house = FuzzyHouseRules(max_rounds=3)
    s, _ev = ENGINE.run(
        start(fighter("A"), fighter("B"), [{"stance": "all-out defence"}, {"stance": "all-out defence"}], house),
        DiceRng(1),
    )
    assert s.over and s.winner is None and s.round == 3 and "stand-off" in s.reason


STANCES = st.sampled_from(["normal", "offensive", "defensive", "all-out attack"])


@settings(max_examples=25)
@given(
    seed=st.integers(0, 10**9),
    ba=st.integers(1, 5),
    bb=st.integers(1, 5),
    sa=STANCES,
    sb=STANCES,
    ha=st.sampled_from(["moderate", "serious", "mortal", "killed"]),
)
def test_fights_end_with_a_consistent_winner(seed, ba, bb, sa, sb, ha):
    s0 = start(
        fighter("A", body=ba, tenacity=ba),
        fighter("B", body=bb, tenacity=bb),
        [{"stance": sa, "harm_at": ha}, {"stance": sb}],
        FuzzyHouseRules(max_rounds=300),
    )
    s, _ev = ENGINE.run(s0, DiceRng(seed))
    assert s.over
    up = [any(f.up for f in s.fighters if f.side == i) for i in (0, 1)]
    if s.winner is not None:
        assert up[s.winner] and not up[1 - s.winner]
    for f in s.fighters:
        assert len(f.wounds) <= s.round
    assert all(p.points > 0 for p in s.pools)


def test_killing_blow_can_leave_the_foe_bleeding_to_death():
    house = FuzzyHouseRules(killing_blow_leaves_dying=True)
    st0 = start(fighter("A"), fighter("B", body=1), [{}, {}], house)
    st1, ev = ENGINE.step(st0, ScriptedRng([6, 5, 2]))  # 11 vs 2: 9 points vs Defence 1
    b = st1.fighter("B")
    assert (b.status, b.dying) == ("unconscious", True) and "bleeding to death" in texts(ev)


def test_many_moderate_wounds_never_add_up_to_death():
    """'if it does happen that some poor character suffers 47 moderate wounds and survives, just chalk it up as a
    fluke.'
    """
    st0 = start(fighter("A"), fighter("B"))
    b = st0.fighters[1].model_copy(
        update={"wounds": tuple(Wound(level="moderate", by="A", round=0) for _ in range(47))}
    )
    from storymaster.systems.fuzzy.combat import wound_penalty

    assert wound_penalty(b.wounds) == 1 and b.status == "fighting"


def test_exchange_margins_match_brute_force():
    from fractions import Fraction
    from itertools import product

    from storymaster.systems.fuzzy.combat import exchange_margins

    house = FuzzyHouseRules(critical_bonus_max_explosions=1)
    st0 = start(fighter("A", encumbrance="heavy"), fighter("B", body=1), [{"appropriateness": 2}, {}], house)

    # brute force: A rolls 2 coloured dice (+ bonus chain of at most 2 dice on double 6), B one die (+ check die)
    def a_scores():
        out = {}
        for c1, c2, b1, b2 in product(range(1, 7), repeat=4):
            bonus = (b1 + (b2 if b1 == 6 else 0)) if c1 == c2 == 6 else 0
            s = c1 + c2 + bonus - 1 + 2
            out[s] = out.get(s, 0) + Fraction(1, 6**4)
        return out

    def b_scores():
        out = {}
        for d, chk, b1, b2 in product(range(1, 7), repeat=4):
            bonus = (b1 + (b2 if b1 == 6 else 0)) if d == chk == 6 else 0
            out[d + bonus] = out.get(d + bonus, 0) + Fraction(1, 6**4)
        return out

    expected = {}
    for x, px in a_scores().items():
        for y, py in b_scores().items():
            expected[x - y] = expected.get(x - y, 0) + px * py
    assert exchange_margins(st0, "A", "B") == expected


EXCHANGE = start(fighter("A", body=3), fighter("B", body=2), [{"harm_at": "killed"}, {"harm_at": "killed"}])


@settings(max_examples=30)
@given(seed=st.integers(0, 10**9))
def test_every_engine_margin_is_possible_in_the_exact_exchange(seed):
    from storymaster.systems.fuzzy.combat import exchange_margins

    st0 = EXCHANGE
    dist = _margins_once(exchange_margins)
    _, ev = ENGINE.step(st0, DiceRng(seed))
    assert dist.get(ev[0].data["margin"], 0) > 0


_CACHE: dict = {}


def _margins_once(fn):
    if "m" not in _CACHE:
        _CACHE["m"] = fn(EXCHANGE, "A", "B")
    return _CACHE["m"]


def test_tactics_can_change_between_rounds():
    from storymaster.systems.fuzzy.combat import with_tactics

    st0 = start(fighter("A"), fighter("B"))
    st1 = with_tactics(st0, "A", {"stance": "all-out defence"})
    assert st1.fighter("A").tactics.stance == "all-out defence" and st0.fighter("A").tactics.stance == "normal"
    with pytest.raises(CombatError):
        with_tactics(st0, "Nobody", {})
