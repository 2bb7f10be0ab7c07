"""Fuzzy combat edges the mutation run (issue 14) found untested: the round a wound is dealt in, the words of a
non-lethal wound, who counts as the larger side, the end's winner named, a foreign state refused.

Each expected value is worked out by hand from the book's combat rules (the staged faces say how)."""

from __future__ import annotations

import pytest
from fuzzy_helpers import ScriptedRng

from storymaster.errors import CombatError
from storymaster.systems.fuzzy import SYSTEM
from storymaster.systems.fuzzy.character import CombatProfile, FuzzyCharacter, RequiredAbilities
from storymaster.systems.fuzzy.combat import FightState, pairings

ENGINE = SYSTEM.combat


def fighter(name: str, body: int = 2, tenacity: int = 2) -> FuzzyCharacter:
    return FuzzyCharacter(
        name=name,
        required=RequiredAbilities(body=body, tenacity=tenacity),
        combat=CombatProfile(weapon="sword", weapon_lethality="normal"),
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
