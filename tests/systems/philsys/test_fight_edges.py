"""The fight engine and the round at their edges (issue 14's mutation survivors of combat.py and round.py).

Every expected value is worked out by hand from the book (Combat Mechanics, Resolving Melee Attacks,
Initiative) or from the house rule's description, never read off the program's output.
"""

from __future__ import annotations

import pytest

from storymaster.dice import DiceRng
from storymaster.errors import CombatError
from storymaster.odds import distribution
from storymaster.systems.philsys import SYSTEM
from storymaster.systems.philsys.character import Character, Stats, Weapon
from storymaster.systems.philsys.combat import Fighter, FightOptions, melee_options, setup
from storymaster.systems.philsys.options import PhilsysHouseRules

ENGINE = SYSTEM.combat


def brute(name: str = "Brute", at: int = 0, pa: int = 0, hp: int | None = None, **stats: int) -> Character:
    """A club (T/S/C 6/8/10) and no skill, no armour."""
    return Character(
        name=name,
        stats=Stats(**stats),
        current={"hp": hp},
        equipment={"weapon": Weapon(name="Club", damage=(6, 8, 10), at=at, pa=pa)},
    )


def mean(expression: str) -> float:
    return float(distribution(expression).mean)


# --- starting a fight -------------------------------------------------------------------------


def test_a_fresh_fight_has_rolled_nothing():
    """Initiative is rolled at the beginning of combat, i.e. by the first step: before it nobody has an
    initiative, nobody has parried, nobody is dead or sitting out a turn."""
    state = ENGINE.start([[brute("A")], [brute("B")]])
    assert state.order == () and state.round == 0 and not state.over
    for f in state.fighters:
        assert (f.initiative, f.init_mod) == (0, 0)
        assert not (f.parried or f.dead or f.unconscious or f.lose_turn)
    by_hand = Fighter(name="C", side=0, character=brute("C"), hp=5, mp=0, tp=0)
    assert by_hand.active and not (by_hand.dead or by_hand.parried) and by_hand.initiative == 0


def test_the_first_step_keeps_each_fighters_initiative_total_and_bonus():
    """Initiative = AGI+COU+2d6 (the walkthrough's formula, the default): the fighter keeps the total rolled
    and the bonus AGI+COU, worked out here from the stats."""
    a = brute("A", AGI=3, COU=2)
    b = brute("B", AGI=1, COU=-1)
    state, events = ENGINE.step(ENGINE.start([[a], [b]]), DiceRng("init", "edges"))
    ini = events[0]
    assert ini.kind == "initiative"
    dice = {r.label: r.total for r in ini.rolls}
    fa, fb = state.fighters
    assert (fa.init_mod, fb.init_mod) == (5, 0)
    assert fa.initiative == 5 + dice["initiative A"] and fb.initiative == 0 + dice["initiative B"]
    assert ini.data["totals"] == [fa.initiative, fb.initiative]


def test_sides_may_be_named_by_keyword_and_house_rules_only_by_keyword():
    """The CombatEngine protocol: start(sides, *, house_rules, options)."""
    state = ENGINE.start(sides=[[brute("A")], [brute("B")]], house_rules=PhilsysHouseRules(max_rounds=3))
    assert state.house_rules.max_rounds == 3
    with pytest.raises(TypeError):
        ENGINE.start([[brute("A")], [brute("B")]], PhilsysHouseRules())  # type: ignore[misc]


def test_an_empty_side_is_refused():
    with pytest.raises(CombatError, match="at least two sides with at least one character each"):
        ENGINE.start([[brute("A")], []])


def test_a_later_fighters_impossible_attack_is_refused_at_the_start():
    """The first fighter has no forced attack; the second cannot kick with a club in hand."""
    with pytest.raises(CombatError, match="B cannot make a 'kick' attack"):
        ENGINE.start([[brute("A")], [brute("B")]], options={"attack": {"B": "kick"}})


def test_bad_fight_options_are_explained_value_by_value():
    with pytest.raises(CombatError, match=r"^bad fight options: tactics\.B: ") as err:
        ENGINE.start([[brute("A")], [brute("B")]], options={"tactics": {"B": "berserk"}})
    assert "distance: medium|long" in (err.value.hint or "")
    with pytest.raises(CombatError, match=r"^bad fight options: ") as err:
        ENGINE.start([[brute("A")], [brute("B")]], options={"distance": "short", "aim": {"A": "nose"}})
    first_line = str(err.value).splitlines()[0]
    assert sorted(part.split(":")[0] for part in first_line.removeprefix("bad fight options: ").split("; ")) == [
        "aim.A",
        "distance",
    ]


def test_an_attack_forced_into_a_fight_state_is_refused_when_the_round_is_played():
    """Options swapped into a saved fight state (never checked by start) are refused by the next step."""
    state = ENGINE.start([[brute("A")], [brute("B")]])
    state = state.model_copy(update={"options": FightOptions(attack={"B": "kick"})})
    with pytest.raises(CombatError, match="B cannot make a 'kick' attack") as err:
        ENGINE.step(state, DiceRng(1))
    assert err.value.hint == "choose one of thrust, slash, chop"


def test_the_setup_is_kept_for_the_fights_next_rounds():
    """Another fight's setup in between does not push this fight's out."""
    one = ENGINE.start([[brute("A")], [brute("B")]])
    two = ENGINE.start([[brute("C")], [brute("D")]])
    first = setup(one)
    setup(two)
    assert setup(one) is first


# --- melee attacks in the light/medium/heavy scheme ------------------------------------------


def test_light_medium_heavy_without_the_weapons_skill_adds_rank_zero():
    """Resolving Melee Attacks: base + skill rank + STR*k + kd6; no skill is rank 0 (Skills: 'A rank of 0
    indicates no training'). Club bases 6/8/10, STR 2: light 6+0+2+1d6 (mean 11.5), medium 8+0+4+2d6 (19),
    heavy 10+0+6+3d6 (26.5)."""
    hr = PhilsysHouseRules(melee_damage="light_medium_heavy")
    got = {a: mean(e) for a, e in melee_options(brute("A", STR=2), hr)}
    assert got == {"light": 11.5, "medium": 19.0, "heavy": 26.5}
    skilled = Character(
        name="S",
        stats=Stats(STR=2),
        skills=[{"name": "Melee Weapon (Clubs)", "category": "melee", "rank": 3}],
        equipment={"weapon": Weapon(name="Club", damage=(6, 8, 10), skill="Melee Weapon (Clubs)")},
    )
    got = {a: mean(e) for a, e in melee_options(skilled, hr)}
    assert got == {"light": 14.5, "medium": 22.0, "heavy": 29.5}


# --- the end of a fight -----------------------------------------------------------------------


def test_the_end_names_only_the_winners_still_standing():
    """Champion (AT +40) cannot miss a foe at PA -40 on 1 HP: one blow ends the fight in round 1. The ally
    who started the fight unconscious is on the winning side but is not standing."""
    down = brute("Down", hp=-2)
    champ = brute("Champion", at=40)
    foe = brute("Foe", hp=1, at=-40, pa=-40)
    hr = PhilsysHouseRules(critical_failure_effect="none")
    state = ENGINE.start([[down, champ], [foe]], house_rules=hr, options={"tactics": {"side0": "melee"}})
    assert state.fighters[0].unconscious and not state.over
    state, events = ENGINE.step(state, DiceRng("end", "edges"))
    assert state.over and state.winner == 0
    assert events[-1].kind == "end"
    assert events[-1].text == "The fight is over after 1 round(s); winner: side 0 (Champion)."


def test_a_draw_at_the_round_cap_names_nobody():
    hr = PhilsysHouseRules(max_rounds=1, critical_failure_effect="none")
    state = ENGINE.start([[brute("A", at=-40, pa=40)], [brute("B", at=-40, pa=40)]], house_rules=hr)
    state, events = ENGINE.step(state, DiceRng(2))
    assert state.over and state.winner is None
    assert events[-1].text == "The fight is over after 1 round(s); winner: nobody."


def test_a_fight_with_everyone_down_is_over_with_no_winner():
    state = ENGINE.start([[brute("A", hp=0)], [brute("B", hp=-3)]])
    assert state.over and state.winner is None


def test_a_fight_resumed_past_its_round_cap_ends_at_the_next_step():
    """A saved fight at round 7 played on under a cap of 5 rounds stops (a draw) at its next step."""
    hr = PhilsysHouseRules(max_rounds=5, critical_failure_effect="none")
    state = ENGINE.start([[brute("A", at=-40, pa=40)], [brute("B", at=-40, pa=40)]])
    state = state.model_copy(update={"round": 7, "house_rules": hr})
    state, _ = ENGINE.step(state, DiceRng(3))
    assert state.over and state.winner is None and state.round == 8
