"""The Kalyr engine's glue around the round (combat.py, issue 14): what a contest reads once from a fight,
what a round changes, and how the engine marks what a round decided on the characters.

Rounds are scripted through :class:`storymaster.forecast.chance.Scripted`: the test hands the round the
exchange (winner, wounds) and any follow-up check; the expected states come from the book (Damage, Fudge
Points, Detailed Contests, Specific rules for Detailed Combats) and hand arithmetic.
"""

from __future__ import annotations

import pytest

from storymaster.dice import DiceRng
from storymaster.errors import CombatError
from storymaster.forecast.chance import Scripted
from storymaster.systems.kalyr import SYSTEM
from storymaster.systems.kalyr.character import Character
from storymaster.systems.kalyr.checks import Checked
from storymaster.systems.kalyr.combat import bout_of, contest_of, play_round
from storymaster.systems.kalyr.fight_state import Exchange
from storymaster.systems.kalyr.ladder import parse_level
from storymaster.systems.kalyr.options import KalyrHouseRules
from storymaster.systems.kalyr.wounds import DEFEATED, DESTROYED, HURT, SCRATCH, VERY_HURT

E = SYSTEM.combat
L = parse_level


def fighter(name, level="Fair", **kw):
    return Character(name=name, abilities=[{"name": "Melee", "level": level}], **kw)


def status(state, side, track="physical"):
    return state.sides[side][0].character.damage.track(track).status


# ---- what a contest reads once -----------------------------------------------------------------------


def test_contest_reads_the_example_of_damage(example):
    """Example of Damage: the bandit's mace +3 less Kylar's armour 2 = 1 against Kylar; Kylar's Narvork +3,
    Extra Damage +1, less the bandit's armour 1 = 3 against the bandit (the approaches are added per round)."""
    kylar, bandit = example("kylar"), example("bandit")
    state = E.start([[kylar], [bandit]], options={"tactics": [{"withdraw_at": "Very Hurt"}, {"approach": 2}]})
    c = contest_of(state)
    assert c.dconst == ((0, 3), (1, 0))
    assert c.level == (L("Great"), L("Great"))
    assert c.side == (0, 1) and c.members == ((0,), (1,))
    assert c.approach == (0, 2)
    assert c.withdraw == (VERY_HURT, None)
    assert c.flimit == (DESTROYED, DESTROYED)  # the default tactic: spend Fudge against Destroyed
    assert c.detailed is None and c.count
    assert contest_of(state, count=False).count is False
    detailed = contest_of(E.start([[kylar], [bandit]], options={"mode": "detailed"}))
    assert detailed.detailed is not None


def test_contest_of_a_group_pairs_only_foes():
    """Two against one: each of the pair adds their knife (+1) less the lone fighter's armour (1) = 0 ... so
    give the lone one no armour: +1; the lone one's mace +3 against each of the pair (no armour): +3; allies 0."""
    a, b = fighter("A", weapon={"name": "knife"}), fighter("B", "Good", weapon={"name": "knife"})
    lone = fighter("Lone", weapon={"name": "mace"})
    c = contest_of(E.start([[a, b], [lone]]))
    assert c.dconst == ((0, 0, 1), (0, 0, 1), (3, 3, 0))
    assert c.side == (0, 0, 1) and c.members == ((0, 1), (2,))
    assert c.level == (L("Fair"), L("Good"), L("Fair"))


def test_contest_on_the_social_track_reads_no_weapons_or_armour():
    a = Character(
        name="A",
        abilities=[{"name": "Debate", "level": "Fair", "track": "social"}],
        weapon={"name": "polearm"},
        armour={"name": "lightweight armour"},
    )
    b = Character(name="B", abilities=[{"name": "Debate", "level": "Fair", "track": "social"}], weapon={"name": "mace"})
    c = contest_of(E.start([[a], [b]], options={"track": "social"}))
    assert c.dconst == ((0, 0), (0, 0))
    phys = contest_of(E.start([[a], [b]]))
    assert phys.dconst == ((0, 4), (3 - 1, 0))


def test_bout_reads_what_a_round_changes():
    wounded = fighter("W", fudge_points=3, damage={"physical": {"wounds": [{"severity": "Hurt", "box": "Hurt"}]}})
    state = E.start([[wounded], [fighter("B", fudge_points=0)]], options={"on_tie": "reroll"})
    c = contest_of(state)
    b = bout_of(c, state)
    assert b.first and b.played == 0 and not b.over and b.winner is None
    assert b.fighters[0].used == (0, 1, 0, 0, 0) and b.fighters[0].fudge == 3
    assert b.fighters[1].used == (0, 0, 0, 0, 0) and b.fighters[1].fudge == 0
    later = state.model_copy(update={"round": 4, "reach_penalty": 1, "inside_reach": True, "scope_penalty": (0, -1)})
    b = bout_of(c, later)
    assert not b.first and b.played == 4
    assert (b.reach, b.inside, b.scope) == (1, True, (0, -1))
    assert bout_of(contest_of(later, count=False), later).played == 0  # the exact chain counts no rounds


# ---- the engine marks what the round decided -----------------------------------------------------------


def test_the_winner_of_a_simple_contest_wounds_the_loser():
    state = E.start([[fighter("A")], [fighter("B", fudge_points=0)]])
    new, events = play_round(state, Scripted([Exchange(0, ((1, HURT),))], narrate=False))
    assert events == []
    assert new.round == 1 and new.over and new.winner == 0
    assert status(new, 1) == HURT and status(new, 0) == 0
    assert new.sides[1][0].character.damage.physical.penalty == -1
    assert state.round == 0 and status(state, 1) == 0  # the old state is left as it was


def test_a_tie_hurts_both_and_is_rolled_again():
    """Damage (simple contests): both parties can take damage; a tie leaves the contest unresolved."""
    state = E.start([[fighter("A")], [fighter("B")]], options={"on_tie": "reroll"})
    new, _ = play_round(state, Scripted([Exchange(None, ((0, SCRATCH), (1, VERY_HURT)))], narrate=False))
    assert not new.over and new.winner is None and new.round == 1
    assert status(new, 0) == SCRATCH and status(new, 1) == VERY_HURT
    again, _ = play_round(new, Scripted([Exchange(1, ((0, SCRATCH),))], narrate=False))
    assert again.round == 2 and again.over and again.winner == 1
    assert [w.severity for w in again.sides[0][0].character.damage.physical.wounds] == [SCRATCH, SCRATCH]


def test_a_fudge_point_the_round_spends_is_marked_and_earns_experience():
    """Fudge Points: a wound reduced one level per point; every point spent earns an Experience Point
    (Character Advancement) unless advancement is off."""
    a, b = fighter("A"), fighter("B", fudge_points=2)
    state = E.start([[a], [b]], options={"tactics": [{}, {"fudge_reduce_at": "defeated"}]})
    new, _ = play_round(state, Scripted([Exchange(0, ((1, DEFEATED),))], narrate=False))
    ch = new.sides[1][0].character
    assert ch.damage.physical.status == VERY_HURT  # Defeated reduced by one point to Very Hurt
    assert ch.fudge_points == 1 and ch.experience == 1
    hr = KalyrHouseRules(advancement=False)
    state = E.start([[a], [b]], house_rules=hr, options={"tactics": [{}, {"fudge_reduce_at": "defeated"}]})
    new, _ = play_round(state, Scripted([Exchange(0, ((1, DEFEATED),))], narrate=False))
    ch = new.sides[1][0].character
    assert ch.damage.physical.status == VERY_HURT and ch.fudge_points == 1 and ch.experience == 0


def test_a_destroyed_wound_owes_a_key():
    """Damage: Destroyed ... (the Example of Damage: the bandit, Destroyed, owes a key)."""
    state = E.start([[fighter("A")], [fighter("B", fudge_points=0)]])
    new, _ = play_round(state, Scripted([Exchange(0, ((1, DESTROYED),))], narrate=False))
    assert status(new, 1) == DESTROYED and new.sides[1][0].character.keys_due == 1
    assert new.sides[0][0].character.keys_due == 0


def test_group_wounds_land_on_the_right_fighters():
    a, b, c = fighter("A"), fighter("B"), fighter("C", fudge_points=0)
    state = E.start([[a, b], [c]])
    new, _ = play_round(state, Scripted([Exchange(0, ((0, SCRATCH), (2, HURT)))], narrate=False))
    assert [f.character.damage.physical.status for f in new.sides[0]] == [SCRATCH, 0]
    assert new.sides[1][0].character.damage.physical.status == HURT
    assert new.over and new.winner == 0


def test_a_detailed_round_records_the_loser_reach_and_withdrawal():
    """Detailed Contests: a party admits defeat and withdraws (here at Hurt); Specific rules: the loser of a
    round carries the reach -1 (knife against mace: different reach)."""
    a = fighter("A", weapon={"name": "mace"})
    b = fighter("B", weapon={"name": "knife"}, fudge_points=0)
    state = E.start([[a], [b]], options={"mode": "detailed", "tactics": [{}, {"withdraw_at": "Very Hurt"}]})
    new, _ = play_round(state, Scripted([Exchange(0, ((1, HURT),))], narrate=False))
    assert not new.over and new.round == 1
    assert new.last_loser == 1 and new.reach_penalty == 1 and not new.inside_reach
    assert not new.sides[1][0].withdrawn
    new, _ = play_round(new, Scripted([Exchange(1, ((0, SCRATCH),))], narrate=False))
    assert new.last_loser == 0 and new.reach_penalty == 0 and not new.over
    new, _ = play_round(new, Scripted([Exchange(0, ((1, HURT),))], narrate=False))
    # two Hurts: the second goes to Very Hurt's box (Damage), B's withdraw_at: B admits defeat
    assert status(new, 1) == VERY_HURT
    assert new.over and new.winner == 0 and new.sides[1][0].withdrawn and not new.sides[0][0].withdrawn
    assert new.last_loser == 1 and new.round == 3


def test_close_against_long_ducks_inside():
    """Specific rules: a Close weapon against a Long one cannot attack in the first round; if he dodges (does
    not lose), he ducks inside the Long one's reach, and the positions are reversed (the Long one at -1)."""
    a = fighter("A", weapon={"name": "knife"})
    b = fighter("B", weapon={"name": "polearm"})
    state = E.start([[a], [b]], options={"mode": "detailed"})
    new, _ = play_round(state, Scripted([Exchange(None, ())], narrate=False))
    assert new.inside_reach and new.reach_penalty == 1 and new.last_loser is None


def test_a_successful_scope_out_after_all_out_defence_gives_the_foe_minus_one():
    """Specific rules: a successful all-out defence followed by a Perception or Tactics roll leaves the foe
    at -1 next round."""
    a = Character(
        name="A",
        abilities=[{"name": "Melee", "level": "Fair"}, {"name": "Perception", "level": "Good"}],
    )
    state = E.start([[a], [fighter("B")]], options={"mode": "detailed", "tactics": [{"stance": "all_out_defence"}, {}]})
    new, _ = play_round(state, Scripted([Exchange(0, ()), Checked(True)], narrate=False))
    assert new.scope_penalty == (0, -1) and new.last_loser == 1
    new, _ = play_round(state, Scripted([Exchange(0, ()), Checked(False)], narrate=False))
    assert new.scope_penalty == (0, 0)


def test_the_round_cap_ends_the_fight_as_a_draw():
    state = E.start([[fighter("A")], [fighter("B")]], options={"max_rounds": 2})
    new, _ = play_round(state, Scripted([Exchange(None, ())], narrate=False))
    assert not new.over
    new, _ = play_round(new, Scripted([Exchange(None, ())], narrate=False))
    assert new.over and new.winner is None and new.round == 2


def test_the_engine_cache_is_keyed_by_what_a_round_cannot_change():
    """Two fights of other fighters at the same point must not share a contest (levels, weapons)."""
    a, b = fighter("A"), fighter("B")
    s1 = E.start([[a], [b]])
    s2 = E.start([[fighter("A", "Great")], [b]])
    s3 = E.start([[a], [fighter("B", weapon={"name": "polearm"})]])
    for s, want in ((s1, [[0], [0]]), (s2, [[0], [0]]), (s3, None)):
        _, ev = E.step(s, DiceRng(7))
        if want is not None:
            assert ev[0].data["modifiers"] == want
    _, ev = E.step(s3, DiceRng(7))
    # the polearm (+4, Long) against bare hands (+0, Close): (4 + 0) // 2 = 2 for arms, +1 for reach
    assert ev[0].data["modifiers"] == [[0], [3]]


# ---- the engine's refusals and reports ------------------------------------------------------------------


def test_bad_starts_say_why():
    a, b = fighter("A"), fighter("B")
    with pytest.raises(CombatError, match="two sides"):
        E.start([[a], [b], [fighter("C")]])
    with pytest.raises(CombatError, match="two sides"):
        E.start([[a], []])
    with pytest.raises(CombatError, match="KalyrHouseRules"):
        from storymaster.systems.philsys.options import PhilsysHouseRules

        E.start([[a], [b]], house_rules=PhilsysHouseRules())
    with pytest.raises(CombatError, match="one tactics mapping per side"):
        E.start([[a], [b]], options={"tactics": [{}]})
    with pytest.raises(CombatError, match="one tactics mapping per side"):
        E.start([[a], [b]], options={"tactics": [{}, {}, {}]})
    with pytest.raises(CombatError, match="bad tactics"):
        E.start([[a], [b]], options={"tactics": [{}, {"approach": 5}]})
    # two bad tactics: the message names the first one's field, with that field's own complaint
    with pytest.raises(CombatError, match=r"bad tactics: .* at \('approach',\)$"):
        E.start([[a], [b]], options={"tactics": [{}, {"approach": 5, "stance": "wild"}]})
    with pytest.raises(CombatError, match="one-on-one"):
        E.start([[a], [b, fighter("C")]], options={"mode": "detailed"})
    with pytest.raises(CombatError, match="maps a fighter's name"):
        E.start([[a], [b]], options={"abilities": {"A": ""}})
    with pytest.raises(CombatError, match="maps a fighter's name"):
        E.start([[a], [b]], options={"abilities": ["A"]})
    with pytest.raises(CombatError, match="'Z', who is not in the fight"):
        E.start([[a], [b]], options={"abilities": {"Z": "Melee"}})
    with pytest.raises(CombatError, match=r"side 2: .* is not a Kalyr character"):
        E.start([[a], [object()]])
    with pytest.raises(CombatError, match="bad fight option mode"):  # not a mode, whatever the sides
        E.start([[a, b], [fighter("C")]], options={"mode": "brawl"})
    with pytest.raises(CombatError, match="bad fight option max_rounds"):
        E.start([[a], [b]], options={"max_rounds": 0})
    # two bad options: the first of the fight's fields is named (on_tie comes before max_rounds)
    with pytest.raises(CombatError, match="bad fight option on_tie"):
        E.start([[a], [b]], options={"on_tie": "maybe", "max_rounds": 0})
    down = fighter("Down", damage={"physical": {"wounds": [{"severity": "Defeated", "box": "Defeated"}]}})
    with pytest.raises(CombatError, match="side 1 is already Defeated on the physical track"):
        E.start([[down], [b]])
    # one of two still standing: the side can fight
    E.start([[down, a], [b]])


def test_a_saved_fight_with_a_side_out_of_it_but_not_over_is_refused_on_loading():
    """A state edited by hand: side 2's only fighter withdrawn (Detailed Contests: out of the contest) while the
    fight is not marked over. Reading it is refused, naming the side; before, the next round divided by zero
    (nobody to gang up on) and the CLI said "internal error". Marked over, the same state reads."""
    from pydantic import ValidationError

    from storymaster.systems.kalyr.fight_state import FightState

    st = E.start([[fighter("A")], [fighter("B")]])
    edited = st.model_dump(mode="json")
    edited["sides"][1][0]["withdrawn"] = True
    with pytest.raises(ValidationError, match="side 2 is already Defeated or withdrawn on the physical track"):
        FightState.model_validate(edited)
    edited["over"], edited["winner"] = True, 0
    assert FightState.model_validate(edited).over


def test_start_takes_its_options():
    a = Character(name="A", abilities=[{"name": "Melee", "level": "Fair"}, {"name": "Archery", "level": "Good"}])
    b = fighter("B")
    s = E.start(
        [[a], [b]],
        options={
            "mode": "detailed",
            "track": "physical",
            "ranged": True,
            "on_tie": "draw",
            "stakes": "Hurt",
            "max_rounds": 7,
            "abilities": {"A": "Archery"},
            "tactics": [{"approach": 1}, {"approach": -1}],
        },
    )
    assert (s.mode, s.ranged, s.on_tie, s.stakes, s.max_rounds) == ("detailed", True, "draw", HURT, 7)
    assert s.sides[0][0].ability == "Archery" and s.sides[0][0].level == L("Good")
    assert s.sides[0][0].tactics.approach == 1 and s.sides[1][0].tactics.approach == -1
    d = E.start([[a], [b]])
    assert (d.mode, d.track, d.ranged, d.on_tie, d.stakes) == ("simple", "physical", False, "reroll", None)
    assert d.round == 0 and not d.over


def test_engine_reports_refuse_other_states():
    for call in (E.initiative_order, E.tracker):
        with pytest.raises(CombatError, match="not a Kalyr fight state"):
            call(Character(name="X"))
    with pytest.raises(CombatError, match="not a Kalyr fight state"):
        E.step(Character(name="X"), DiceRng(1))
    s = E.start([[fighter("A")], [fighter("B")]])
    assert E.initiative_order(s) == []
    assert not E.is_over(s) and E.winner(s) is None
    assert [t.name for t in E.tracker(s)] == ["A", "B"]


def test_contest_on_the_mental_track_reads_no_weapons_or_armour():
    """Damage: weapons and armour count only for physical damage; on the mental track a mace (+3) and
    armour add nothing, so every constant is 0 (hand arithmetic: 0 + 0 - 0)."""
    a = Character(
        name="A",
        abilities=[{"name": "Willpower", "level": "Fair", "track": "mental"}],
        weapon={"name": "polearm"},
        armour={"name": "lightweight armour"},
    )
    b = Character(
        name="B", abilities=[{"name": "Willpower", "level": "Fair", "track": "mental"}], weapon={"name": "mace"}
    )
    c = contest_of(E.start([[a], [b]], options={"track": "mental"}))
    assert c.dconst == ((0, 0), (0, 0))


def test_a_simple_round_leaves_the_detailed_fields_alone():
    """Simple contests have no round loser's reach or scope-out (those are Specific rules for Detailed
    Combats): after A wins a simple round against a knife, last_loser and reach_penalty stay unset."""
    a = fighter("A", weapon={"name": "mace"})
    b = fighter("B", weapon={"name": "knife"})
    state = E.start([[a], [b]], options={"on_tie": "reroll"})
    new, _ = play_round(state, Scripted([Exchange(0, ((1, SCRATCH),))], narrate=False))
    assert new.last_loser is None and new.reach_penalty is None
    assert new.scope_penalty == state.scope_penalty
    # a saved simple fight carrying a stray last_loser (edited by hand): a simple round does not touch it
    stray = state.model_copy(update={"last_loser": 1})
    new, _ = play_round(stray, Scripted([Exchange(0, ((1, SCRATCH),))], narrate=False))
    assert new.last_loser == 1


def test_bad_tactics_name_the_first_fields_own_complaint():
    """Tactics: approach is -2..+2 (Field le=2); with approach 5 and a bad stance both wrong, the message
    gives the approach's complaint (<= 2), not the stance's."""
    with pytest.raises(CombatError, match=r"bad tactics: [^']*less than or equal to 2 at \('approach',\)$"):
        E.start([[fighter("A")], [fighter("B")]], options={"tactics": [{"approach": 5, "stance": "wild"}, {}]})
