"""Fuzzy combat edges the mutation run (issue 14) found untested: the round a wound is dealt in, the words of a
non-lethal wound, who counts as the larger side, the end's winner named, a foreign state refused.

Each expected value is worked out by hand from the book's combat rules (the staged faces say how)."""

from __future__ import annotations

import pytest
from fuzzy_helpers import ScriptedRng

from storymaster.errors import CombatError
from storymaster.systems.fuzzy import SYSTEM
from storymaster.systems.fuzzy.character import CombatProfile, FuzzyCharacter, RequiredAbilities
from storymaster.systems.fuzzy.combat import (
    Fighter,
    FightState,
    blow_outcome,
    engagements,
    exchange_dice,
    level_multiple,
    opponents_penalty,
    pairings,
)
from storymaster.systems.fuzzy.options import FuzzyHouseRules

ENGINE = SYSTEM.combat


def fighter(name: str, body: int = 2, tenacity: int = 2, lethality: str = "normal") -> FuzzyCharacter:
    return FuzzyCharacter(
        name=name,
        required=RequiredAbilities(body=body, tenacity=tenacity),
        combat=CombatProfile(weapon="sword", weapon_lethality=lethality),
    )


def start(sides, tactics=None) -> FightState:
    return ENGINE.start(sides, options={"tactics": tactics or [{}, {}]})


def test_a_wound_dealt_in_the_first_round_is_dated_round_one_and_so_is_every_line_of_it():
    # A 5+4 = 9, B 2+3 = 5: 4 Advantage Points against a Defence Total of 2 (Body 2): 2x, serious
    st1, ev = ENGINE.step(start([[fighter("A")], [fighter("B")]]), ScriptedRng([5, 4, 2, 3, 5]))
    (wound,) = st1.fighter("B").wounds
    assert (wound.level, wound.by, wound.round) == ("serious", "A", 1)
    assert {e.kind for e in ev} >= {"exchange", "spend", "wound", "tenacity", "end"}
    assert {e.round for e in ev} == {1}


def test_a_second_round_is_dated_two():
    # round 1: A 9 vs B 5, 4 points kept (A waits for a killing blow: 4x Defence 2 = 8)
    tactics = [{"harm_at": "killed"}, {}]
    st1, _ = ENGINE.step(start([[fighter("A")], [fighter("B")]], tactics), ScriptedRng([5, 4, 2, 3]))
    # round 2: A 6+5 = 11 vs B 2+3 = 5: 6 more, 10 points >= 8: the killing blow
    st2, ev = ENGINE.step(st1, ScriptedRng([6, 5, 2, 3]))
    assert st2.fighter("B").status == "dead"
    assert {e.round for e in ev} == {2}


def test_only_a_non_lethal_wound_is_told_as_stunned_or_bruised():
    # the book: "If you weren't hitting them to kill, they are merely stunned or bruised or whatever and will
    # recover in a few hours". Non-lethal: B's Defence Total 2 + 2 = 4; A 9 vs B 5: 4 points = 1x, moderate;
    # B's Tenacity 2 dice - 1 = 1 die: 5 < 7, incapacitated
    st1, ev = ENGINE.step(
        start([[fighter("A")], [fighter("B")]], [{"intent": "non-lethal"}, {}]), ScriptedRng([5, 4, 2, 3, 5])
    )
    (wound,) = st1.fighter("B").wounds
    assert (wound.level, wound.lethal) == ("moderate", False)
    (told,) = [e.text for e in ev if e.kind == "wound"]
    assert "non-lethal" in told and "stunned or bruised" in told
    # the same blow meant to kill (Defence Total 2: 4 points = 2x, serious): no such words
    _, ev = ENGINE.step(start([[fighter("A")], [fighter("B")]]), ScriptedRng([5, 4, 2, 3, 5]))
    (told,) = [e.text for e in ev if e.kind == "wound"]
    assert "seriously wounded" in told and "non-lethal" not in told and "stunned" not in told


def test_the_end_names_the_winning_side():
    # A 9 vs B 5: a serious wound; B's Tenacity 1 die: 5 < 7, down: side 0 (A) wins
    st1, _ = ENGINE.step(start([[fighter("A")], [fighter("B")]]), ScriptedRng([5, 4, 2, 3, 5]))
    assert st1.winner == 0
    assert st1.reason.startswith("A won")
    # side 1 winning: the same faces with B first in the dice
    st1, _ = ENGINE.step(start([[fighter("A")], [fighter("B")]]), ScriptedRng([2, 3, 5, 4, 5]))
    assert st1.winner == 1 and st1.reason.startswith("B won")


def test_two_even_sides_pair_off_side_one_first_as_the_docstring_says():
    # pairings: "(a fighter of the larger side, his opponent) ... side 1 counts as the larger when equal"
    state = start([[fighter("A")], [fighter("B")]])
    assert [(f.key, g.key) for f, g in pairings(state)] == [("B", "A")]
    state = start([[fighter("A1"), fighter("A2")], [fighter("B1"), fighter("B2")]])
    assert [(f.key, g.key) for f, g in pairings(state)] == [("B1", "A1"), ("B2", "A2")]
    # three against two: the three are the larger side, sharing out the two in turn
    state = start([[fighter("A1"), fighter("A2"), fighter("A3")], [fighter("B1"), fighter("B2")]])
    assert [(f.key, g.key) for f, g in pairings(state)] == [("A1", "B1"), ("A2", "B2"), ("A3", "B1")]


class _NotAFuzzyFight:
    pass


@pytest.mark.parametrize("method", ["initiative_order", "tracker"])
def test_another_systems_state_is_refused(method):
    with pytest.raises(CombatError, match="not a fuzzy fight state"):
        getattr(ENGINE, method)(_NotAFuzzyFight())


@pytest.mark.parametrize("level,multiple", [("moderate", 1), ("serious", 2), ("mortal", 3), ("killed", 4)])
def test_each_wound_level_takes_its_multiple_of_the_defence_total(level, multiple):
    # the book: "At least 1x their Defense total ... 2x ... 3x ... At least 4x their Defense total: Killed"
    assert level_multiple(level) == multiple


def test_waiting_for_a_serious_wound_keeps_points_worth_only_a_moderate_one():
    # A waits for 2x; A 5+2 = 7 vs B 2+3 = 5: 2 points against a Defence Total of 2 is only 1x: kept
    st1, ev = ENGINE.step(
        start([[fighter("A")], [fighter("B")]], [{"harm_at": "serious"}, {}]), ScriptedRng([5, 2, 2, 3])
    )
    assert st1.fighter("B").wounds == ()
    assert [(p.holder, p.points) for p in st1.pools] == [("A", 2)]
    assert [e.kind for e in ev] == ["exchange", "carry"]


def test_one_die_against_two_opponents_is_never_below_one():
    # the book: "-1 die (down to a minimum of 1) if you are fighting multiple people": Body 1 - 1 = 0, so 1 die.
    # Faces: Hero 3 vs Thug 1+2 = 3, a stand-off; Hero 3 vs Thug #2 1+2 = 3, a stand-off
    state = ENGINE.start([[fighter("Hero", body=1)], [fighter("Thug"), fighter("Thug")]])
    _, ev = ENGINE.step(state, ScriptedRng([3, 1, 2, 3, 1, 2]))
    hero = [e.text for e in ev if e.kind == "exchange"]
    assert len(hero) == 2 and all("Hero [Body 1d6 (1 -1 for 2 opponents, never below 1)]" in t for t in hero)


def test_a_defence_total_of_zero_is_raised_to_one_and_says_so():
    # the book: "-1 point. If the attacker is using an especially damaging weapon" and "No Defense total can be
    # less than 1": B's Body 1 - 1 = 0, so 1. A 5+4 = 9 vs B 2: 7 points >= 4x 1: killed
    a, b = fighter("A", lethality="especially damaging"), fighter("B", body=1)
    st1, ev = ENGINE.step(start([[a], [b]]), ScriptedRng([5, 4, 2]))
    (spend,) = [e for e in ev if e.kind == "spend"]
    assert spend.data["defence"] == 1 and spend.data["points"] == 4
    assert "Defence Total 1:" in spend.text and "floor of 1" in spend.text
    assert st1.fighter("B").status == "dead"


@pytest.mark.parametrize(
    "rule,told",
    [
        ("keep", "B wins by 1, now 1"),
        ("offset", "B wins by 1; 1 cancel A's points, now 0"),
        ("lose", "B wins by 1; A loses 3 carried points, now 1"),
    ],
)
def test_the_advantage_on_loss_ruling_is_told_as_it_is_applied(rule, told):
    # round 1: A 5+3 = 8 vs B 2+3 = 5, A holds 3 (both wait for a killing blow); round 2: A 2+3 = 5 vs B 3+3 = 6:
    # B wins by 1. 'keep': A keeps 3, B has 1; 'offset': B's 1 cancels 1 of A's, B has 0; 'lose': A's 3 are gone
    house = FuzzyHouseRules(advantage_on_loss=rule)
    state = ENGINE.start(
        [[fighter("A")], [fighter("B")]],
        house_rules=house,
        options={"tactics": [{"harm_at": "killed"}, {"harm_at": "killed"}]},
    )
    st1, _ = ENGINE.step(state, ScriptedRng([5, 3, 2, 3]))
    _, ev = ENGINE.step(st1, ScriptedRng([2, 3, 3, 3]))
    (exchange,) = [e.text for e in ev if e.kind == "exchange"]
    assert told in exchange
    assert ("cancel" in exchange) == (rule == "offset") and ("carried points" in exchange) == (rule == "lose")


@pytest.mark.parametrize(
    "level,status", [("moderate", "incapacitated"), ("serious", "incapacitated"), ("mortal", "unconscious")]
)
def test_a_failed_tenacity_test_drops_the_wounded_as_the_book_says(level, status):
    # the book: moderate "or fall down incapacitated", serious "or fall down incapacitated", mortal "Otherwise,
    # they fall down unconscious"
    assert blow_outcome(level, True, False, FuzzyHouseRules())["status"] == status
    assert "status" not in blow_outcome(level, True, True, FuzzyHouseRules())


@pytest.mark.parametrize("crowd,dice", [("one", 0), ("multiple", 1), ("huge crowd", 2)])
def test_a_crowd_named_by_the_tactics_costs_what_the_book_says(crowd, dice):
    # the book: "-1 die ... if you are fighting multiple people. -2 dice if you are fighting a huge crowd"; one
    # opponent costs nothing, whatever the count of engagements
    assert opponents_penalty(3, FuzzyHouseRules(), crowd) == dice


def test_a_fighter_made_without_a_hindrance_rolls_all_its_dice():
    f = Fighter(
        key="A",
        name="A",
        side=0,
        ability="Body",
        dice=3,
        defence_ability="Body",
        defence_base=3,
        tenacity=2,
        body=3,
        weapon="sword",
        weapon_lethality="normal",
        armour="none",
        encumbrance="none",
    )
    assert exchange_dice(f, 1, FuzzyHouseRules()) == (3, 0)


def test_the_larger_side_zero_still_pairs_off_side_zero_first():
    state = start([[fighter("A1"), fighter("A2"), fighter("A3")], [fighter("B1"), fighter("B2")]])
    assert engagements(state) == [("A1", "B1"), ("A2", "B2"), ("A3", "B1")]
    state = start([[fighter("A1"), fighter("A2")], [fighter("B1"), fighter("B2"), fighter("B3")]])
    assert engagements(state) == [("A1", "B1"), ("A2", "B2"), ("A1", "B3")]


def test_a_fight_with_nobody_up_on_either_side_ends_with_no_winner():
    state = start([[fighter("A")], [fighter("B")]])
    down = tuple(f.model_copy(update={"status": "unconscious"}) for f in state.fighters)
    st1, ev = ENGINE.step(state.model_copy(update={"fighters": down}), ScriptedRng([]))
    assert st1.over and st1.winner is None and ENGINE.is_over(st1)
    assert [e.kind for e in ev] == ["end"]


def test_a_manoeuvre_with_no_bonus_stated_adds_nothing_to_later_rolls():
    # the book's manoeuvres (a corner, the high ground, a door) cost points; a bonus is only what the GM rules.
    # A 5+3 = 8 vs B 2+3 = 5: 3 points (A waits for a killing blow) buy the door for 2
    tactics = [{"harm_at": "killed", "manoeuvres": [{"name": "close the door"}]}, {}]
    st1, ev = ENGINE.step(start([[fighter("A")], [fighter("B")]], tactics), ScriptedRng([5, 3, 2, 3]))
    assert st1.fighter("A").bought == ("close the door",) and st1.fighter("A").roll_bonus == 0
    (bought,) = [e.text for e in ev if e.kind == "manoeuvre"]
    assert "later rolls" not in bought


def test_a_fight_already_past_the_round_limit_stops_after_its_next_round():
    # max_rounds: "A fight that lasts this many rounds stops as a stand-off": a fight resumed at round 5 under a
    # limit of 3 has lasted longer; its next round (a stand-off: 3+4 vs 5+2) ends it
    state = ENGINE.start([[fighter("A")], [fighter("B")]], house_rules=FuzzyHouseRules(max_rounds=3))
    st1, ev = ENGINE.step(state.model_copy(update={"round": 5}), ScriptedRng([3, 4, 5, 2]))
    assert st1.round == 6 and st1.over and st1.winner is None
    assert ev[-1].kind == "end"


def test_new_tactics_change_only_the_named_fighter():
    from storymaster.systems.fuzzy.combat import with_tactics

    state = start([[fighter("A")], [fighter("B")]])
    changed = with_tactics(state, "A", {"stance": "defensive"})
    assert changed.fighter("A").tactics.stance == "defensive"
    assert changed.fighter("B").tactics.stance == "normal"


def test_a_defence_total_of_one_unfloored_does_not_claim_the_floor():
    # B's Body 1, a normal sword: Defence Total 1 with nothing floored. A 5+4 = 9 vs B 2: 7 points >= 4x 1: killed
    st1, ev = ENGINE.step(start([[fighter("A")], [fighter("B", body=1)]]), ScriptedRng([5, 4, 2]))
    (spend,) = [e for e in ev if e.kind == "spend"]
    assert spend.data["defence"] == 1 and "floor of 1" not in spend.text
    assert st1.fighter("B").status == "dead"


def test_an_empty_side_is_named_counting_from_one():
    with pytest.raises(CombatError, match="side 2 has nobody"):
        ENGINE.start([[fighter("A")], []])


def test_the_exact_forecast_lumps_no_margins_of_a_fighter_who_cannot_hurt(monkeypatch):
    # the chain lumps the margins past a killing blow (nothing more can happen); a fighter who cannot hurt (all-out
    # defence) buys no killing blow, and his points still buy a costly way out: every margin is its own branch.
    # Against the chain with no lumping at all (killing_points None everywhere)
    from storymaster.systems.fuzzy import combat, forecast

    state = ENGINE.start(
        [[fighter("A", body=3)], [fighter("B", body=1)]],
        house_rules=FuzzyHouseRules(max_rounds=4),
        options={
            "tactics": [
                {"stance": "all-out defence", "manoeuvres": [{"name": "leg it", "cost": 9, "ends_fight": True}]},
                {},
            ]
        },
    )
    as_is = forecast.exact_forecast(state).to_json()
    with monkeypatch.context() as m:
        m.setattr(combat, "killing_points", lambda *args: None)
        unlumped = forecast.exact_forecast(state).to_json()
    assert as_is == unlumped


@pytest.mark.parametrize(
    "dice,hindrance,shown", [(1, 1, "1d6 (1 -1 hindered, never below 1)"), (3, 1, "2d6 (3 -1 hindered)")]
)
def test_a_hindered_fighter_is_never_below_one_die_and_the_log_says_so(dice, hindrance, shown):
    # the Clumsy spot rule takes its dice off the fighting dice "to a minimum of 1 Body dice": Body 1 hindered by 1
    # still rolls one die, and the log names the floor; Body 3 hindered by 1 rolls 2, no floor.
    # Faces: Hero's dice, then Thug's 2 dice; a stand-off either way (Hero 3 vs 1+2, Hero 1+2 vs 1+2)
    state = start([[fighter("Hero", body=dice)], [fighter("Thug")]])
    hero = state.fighters[0].model_copy(update={"hindrance": hindrance})
    state = state.model_copy(update={"fighters": (hero, state.fighters[1])})
    faces = [3, 1, 2] if dice - hindrance <= 1 else [1, 2, 1, 2]
    _, ev = ENGINE.step(state, ScriptedRng(faces))
    (text,) = [e.text for e in ev if e.kind == "exchange"]
    assert f"Hero [Body {shown}]" in text
