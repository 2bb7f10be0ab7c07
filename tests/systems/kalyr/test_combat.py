"""The fight engine: simple, group and detailed contests and the optional detailed-combat rules."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from storymaster.dice import DiceRng
from storymaster.errors import CombatError
from storymaster.rules import CombatEngine
from storymaster.systems.kalyr import SYSTEM
from storymaster.systems.kalyr.character import Character
from storymaster.systems.kalyr.combat import FightState, minimum_to_hit
from storymaster.systems.kalyr.ladder import parse_level
from storymaster.systems.kalyr.options import KalyrHouseRules
from storymaster.systems.kalyr.wounds import DEFEATED, DESTROYED, VERY_HURT

E = SYSTEM.combat
L = parse_level
BLANK4 = "[ ][ ][ ][ ]"


def fighter(name, level="Fair", **kw):
    return Character(name=name, abilities=[{"name": "Melee", "level": level}], **kw)


def run(state, rng):
    events = []
    while not E.is_over(state):
        state, ev = E.step(state, rng)
        events += ev
    return state, events


def test_engine_satisfies_the_protocol():
    assert isinstance(E, CombatEngine)


def test_kylar_against_the_bandit_simple_contest(example, seed_for):
    """Example of Damage as a fight: both Great; Kylar Very Hurt, the bandit Destroyed."""
    kylar, bandit = example("kylar"), example("bandit")
    state = E.start([[kylar], [bandit]], options={"tactics": [{}, {"approach": 2, "fudge_reduce_at": "never"}]})
    state, events = E.step(state, seed_for(BLANK4, BLANK4))
    wounds = {e.actor: e.data for e in events if e.kind == "wound"}
    assert wounds["Kylar"]["points"] == 3 and wounds["Kylar"]["severity"] == VERY_HURT
    assert wounds["Bandit heavy"]["points"] == 5 and wounds["Bandit heavy"]["severity"] == DESTROYED
    assert E.is_over(state) and E.winner(state) == 0
    assert state.sides[1][0].character.keys_due == 1


def test_simple_tie_reroll_or_draw(seed_for):
    a, b = fighter("A"), fighter("B")
    s = E.start([[a], [b]], options={"on_tie": "draw"})
    s, _ev = E.step(s, seed_for(BLANK4, BLANK4))
    assert E.is_over(s) and E.winner(s) is None
    s = E.start([[a], [b]], options={"on_tie": "reroll"})
    s, _ev = E.step(s, seed_for(BLANK4, BLANK4))
    assert not E.is_over(s) and s.round == 1


def test_stakes_fixed_damage_to_loser_only(seed_for):
    """Damage: 'A duel to first blood might result in the loser taking a physical Hurt'."""
    a, b = fighter("A"), fighter("B")
    s = E.start([[a], [b]], options={"stakes": "Hurt", "track": "physical"})
    s, _ev = E.step(s, seed_for("[+][+][+][+]", BLANK4))
    assert E.winner(s) == 0
    assert s.sides[1][0].character.damage.physical.status == 2
    assert s.sides[0][0].character.damage.physical.status == 0


def test_social_track_ignores_weapons(seed_for):
    a = Character(
        name="A", abilities=[{"name": "Debate", "level": "Fair", "track": "social"}], weapon={"name": "polearm"}
    )
    b = Character(name="B", abilities=[{"name": "Debate", "level": "Fair", "track": "social"}])
    s = E.start([[a], [b]], options={"track": "social"})
    s, ev = E.step(s, seed_for("[+][+][ ][ ]", BLANK4))
    w = {e.actor: e.data["points"] for e in ev if e.kind == "wound"}
    assert w == {"A": -2, "B": 2}
    assert s.sides[1][0].character.damage.social.status == 2


def test_group_contest_outnumbering_and_margins(seed_for):
    side = [fighter(f"A{i}") for i in range(3)]
    lone = fighter("Lone", "Great")
    s = E.start([side, [lone]])
    s, ev = E.step(s, seed_for(BLANK4, BLANK4, BLANK4, BLANK4))
    contest = ev[0]
    assert all(r.total == 0 for r in contest.rolls)
    assert contest.data["modifiers"][1] == [-2]  # three to one
    assert contest.data["averages"] == [0.0, 0.0]  # Fair x3 against Great -2 = Fair
    assert E.winner(s) is None


def test_detailed_halves_damage_and_ties_hurt_nobody(seed_for):
    a, b = fighter("A"), fighter("B")
    s = E.start([[a], [b]], options={"mode": "detailed"})
    s, ev = E.step(s, seed_for(BLANK4, BLANK4))
    assert ev[0].kind == "standoff" and not any(e.kind == "wound" for e in ev)
    s, ev = E.step(s, seed_for("[+][+][+][ ]", BLANK4, stream="r2"))
    wound = next(e for e in ev if e.kind == "wound")
    assert wound.data["points"] == 2  # margin 3 halved, rounding up
    assert s.sides[1][0].character.damage.physical.status == 2


def test_detailed_minimum_poor_to_hit(seed_for):
    a, b = fighter("A", "Poor"), fighter("B", "Poor")
    s = E.start([[a], [b]], options={"mode": "detailed"})
    s, ev = E.step(s, seed_for("[-][ ][ ][ ]", "[-][-][ ][ ]"))
    assert ev[0].kind == "standoff" and "below" in ev[0].text
    hr = KalyrHouseRules(detailed_minimum_to_hit=False)
    s = E.start([[a], [b]], house_rules=hr, options={"mode": "detailed"})
    s, ev = E.step(s, seed_for("[-][ ][ ][ ]", "[-][-][ ][ ]"))
    assert ev[0].kind == "hit"


def test_minimum_to_hit_by_scale():
    assert minimum_to_hit(0, 0) == L("Poor")
    assert minimum_to_hit(1, 0) == L("Mediocre")
    assert minimum_to_hit(2, 0) == L("Fair")
    assert minimum_to_hit(3, 0) == L("Good")
    assert minimum_to_hit(6, 0) == L("Great")
    assert minimum_to_hit(0, 2) == L("Terrible")


def test_reach_first_round_goes_to_the_shorter_weapon_then_to_the_loser(seed_for):
    a = fighter("Knife", weapon={"name": "knife"})
    b = fighter("Mace", weapon={"name": "mace"})
    hr = KalyrHouseRules(detailed_weapon_size=False)
    s = E.start([[a], [b]], house_rules=hr, options={"mode": "detailed"})
    s, ev = E.step(s, seed_for("[+][+][+][ ]", BLANK4))
    assert ev[0].data["modifiers"] == [-1, 0]
    s, ev = E.step(s, seed_for(BLANK4, BLANK4, stream="r2"))
    assert ev[0].data["modifiers"] == [0, -2]  # the mace lost round 1: reach -1, and its Hurt -1
    assert "Mace has the worse of the reach: -1" in ev[0].data["notes"]


def test_close_against_long_cannot_attack_until_it_dodges(seed_for):
    a = fighter("Knife", weapon={"name": "knife"})
    b = fighter("Pole", weapon={"name": "polearm"})
    hr = KalyrHouseRules(detailed_weapon_size=False)
    s = E.start([[a], [b]], house_rules=hr, options={"mode": "detailed"})
    s, ev = E.step(s, seed_for("[+][+][+][+]", BLANK4))
    assert ev[0].kind == "dodge" and not any(e.kind == "wound" for e in ev)
    assert s.inside_reach and any(e.kind == "reach" for e in ev)
    s, ev = E.step(s, seed_for(BLANK4, BLANK4, stream="r2"))
    assert ev[0].data["modifiers"] == [0, -1]


def test_shield_and_weapon_size(seed_for):
    """Two-handed sword (+4) against knife (+1) and medium shield (+1): the knife is at -1;
    the sword fighter subtracts the shield's +1 from his skill."""
    big = fighter("Sword", weapon={"name": "two-handed sword"})
    small = fighter("Knife", weapon={"name": "knife"}, shield="medium")
    hr = KalyrHouseRules(detailed_reach=False)
    s = E.start([[big], [small]], house_rules=hr, options={"mode": "detailed"})
    s, ev = E.step(s, seed_for(BLANK4, BLANK4))
    assert ev[0].data["modifiers"] == [-1, -1]
    off = KalyrHouseRules(detailed_reach=False, detailed_shields=False, detailed_weapon_size=False)
    s = E.start([[big], [small]], house_rules=off, options={"mode": "detailed"})
    s, ev = E.step(s, seed_for(BLANK4, BLANK4))
    assert ev[0].data["modifiers"] == [0, 0]


def test_ranged_uses_shields_ranged_value(seed_for):
    a = fighter("Archer")
    b = fighter("Buckler", shield="small")
    s = E.start([[a], [b]], options={"mode": "detailed", "ranged": True})
    s, ev = E.step(s, seed_for(BLANK4, BLANK4))
    assert ev[0].data["modifiers"] == [0, 0]  # a small shield is melee only


def test_aimed_blow_great_needed_good_hits_elsewhere(seed_for):
    a, b = fighter("Aimer", "Good"), fighter("B", "Poor")
    s = E.start([[a], [b]], options={"mode": "detailed", "tactics": [{"aim": "great"}, {}]})
    s, ev = E.step(s, seed_for("[+][ ][ ][ ]", BLANK4))  # Good -1 +1 = Good
    assert ev[0].kind == "hit" and "not where aimed" in ev[0].text
    assert ev[0].data["modifiers"][0] == -1
    s = E.start([[a], [b]], options={"mode": "detailed", "tactics": [{"aim": "great"}, {}]})
    s, ev = E.step(s, seed_for("[+][+][ ][ ]", BLANK4))
    assert "in the part aimed at" in ev[0].text


def test_all_out_offence_tie_gives_the_foe_the_win_and_plus_two(seed_for):
    a = fighter("Berserk", "Mediocre")
    b = fighter("Calm")
    s = E.start([[a], [b]], options={"mode": "detailed", "tactics": [{"stance": "all_out_offence"}, {}]})
    s, ev = E.step(s, seed_for(BLANK4, BLANK4))  # Mediocre +1 = Fair, ties Fair
    wound = next(e for e in ev if e.kind == "wound")
    assert wound.actor == "Berserk" and wound.data["points"] == 1  # margin 0 + 2, halved


def test_all_out_offence_win_adds_one_damage(seed_for):
    a, b = fighter("Berserk"), fighter("Calm")
    s = E.start([[a], [b]], options={"mode": "detailed", "tactics": [{"stance": "all_out_offence"}, {}]})
    s, ev = E.step(s, seed_for("[+][ ][ ][ ]", BLANK4))  # Fair+1+1 = Great vs Fair: margin 2, +1 = 3 -> 2
    wound = next(e for e in ev if e.kind == "wound")
    assert wound.actor == "Calm" and wound.data["points"] == 2


def test_all_out_defence_harms_only_on_a_critical(seed_for):
    a, b = fighter("Turtle"), fighter("B")
    tactics = [{"stance": "all_out_defence"}, {}]
    s = E.start([[a], [b]], options={"mode": "detailed", "tactics": tactics})
    s, ev = E.step(s, seed_for("[+][ ][ ][ ]", BLANK4, BLANK4))
    assert ev[0].kind == "defended" and not any(e.kind == "wound" for e in ev)
    s = E.start([[a], [b]], options={"mode": "detailed", "tactics": tactics})
    s, ev = E.step(s, seed_for("[+][+][+][+]", BLANK4, BLANK4))
    assert ev[0].kind == "hit"


def test_scope_out_after_all_out_defence(seed_for):
    a = Character(
        name="Scout", abilities=[{"name": "Melee", "level": "Fair"}, {"name": "Perception", "level": "Great"}]
    )
    b = fighter("B")
    tactics = [{"stance": "all_out_defence", "ability": "Melee"}, {}]
    s = E.start([[a], [b]], options={"mode": "detailed", "tactics": tactics})
    # round: Scout Fair+2 blank = Great vs Fair blank; then Perception Great (Tactics Poor: rolled once) blank = Great
    s, ev = E.step(s, seed_for(BLANK4, BLANK4, BLANK4))
    assert any(e.kind == "scope" and "success" in e.text for e in ev)
    assert s.scope_penalty == (0, -1)
    s, ev = E.step(s, seed_for(BLANK4, BLANK4, BLANK4, stream="r2"))
    assert ev[0].data["modifiers"][1] == -1


def test_withdrawal_ends_a_detailed_contest(seed_for):
    a, b = fighter("A"), fighter("B")
    s = E.start([[a], [b]], options={"mode": "detailed", "tactics": [{}, {"withdraw_at": "Hurt"}]})
    s, ev = E.step(s, seed_for("[+][+][+][ ]", BLANK4))
    assert E.is_over(s) and E.winner(s) == 0
    assert any(e.kind == "withdraw" for e in ev)


def test_fudge_point_spent_automatically_to_avoid_destroyed(seed_for):
    a = fighter("A", "Superb", weapon={"name": "polearm"})
    b = fighter("B", "Terrible")
    s = E.start([[a], [b]], house_rules=KalyrHouseRules(simple_armament_bonus=False))
    s, ev = E.step(s, seed_for(BLANK4, BLANK4))
    wound = next(e for e in ev if e.actor == "B")
    assert wound.data["fudge_spent"] == 1 and wound.data["severity"] == DEFEATED
    assert s.sides[1][0].character.fudge_points == 0 and s.sides[1][0].character.experience == 1


def test_bad_starts():
    a, b = fighter("A"), fighter("B")
    with pytest.raises(CombatError):
        E.start([[a]])
    with pytest.raises(CombatError):
        E.start([[a, b], [b]], options={"mode": "detailed"})
    with pytest.raises(CombatError):
        E.start([[a], [b]], options={"mode": "sword"})
    with pytest.raises(CombatError):
        E.start([[a], [b]], options={"tactics": [{"stance": "wild"}, {}]})
    down = fighter("Down", damage={"physical": {"wounds": [{"severity": "Defeated", "box": "Defeated"}]}})
    with pytest.raises(CombatError):
        E.start([[a], [down]])


def test_step_after_the_end_is_an_error(seed_for):
    s = E.start([[fighter("A")], [fighter("B")]], options={"on_tie": "draw"})
    s, _ = E.step(s, DiceRng(1))
    assert E.is_over(s)
    with pytest.raises(CombatError):
        E.step(s, DiceRng(1))


@settings(max_examples=25)
@given(
    seed=st.integers(0, 10**6),
    mode=st.sampled_from(["simple", "detailed"]),
    la=st.integers(-3, 3),
    lb=st.integers(-3, 3),
    stance=st.sampled_from(["normal", "all_out_offence", "all_out_defence"]),
    weapon=st.sampled_from(["knife", "mace", "polearm", "unarmed"]),
)
def test_fights_end_and_states_round_trip_through_json(seed, mode, la, lb, stance, weapon):
    a = fighter("A", la, weapon={"name": weapon})
    b = fighter("B", lb, weapon={"name": "mace"}, shield="small")
    s = E.start([[a], [b]], options={"mode": mode, "tactics": [{"stance": stance}, {}], "max_rounds": 60})
    rng = DiceRng(seed)
    while not E.is_over(s):
        s, events = E.step(s, rng)
        assert all(json.dumps(e.to_json()) for e in events)
        again = FightState.model_validate(json.loads(json.dumps(s.model_dump(mode="json"))))
        assert again == s
    w = E.winner(s)
    assert s.round <= 60
    if mode == "detailed" and w is not None:
        loser = s.sides[1 - w][0]
        assert loser.withdrawn or loser.character.damage.physical.status >= DEFEATED
    if mode == "detailed" and w is None:
        assert s.round == 60  # a detailed contest only ends undecided at the round limit


def test_simple_fight_bonuses_for_arms_and_much_longer_reach(seed_for):
    """Using Simple Contests for Fights: the better-armed fighter's bonus, and a bonus for a much longer reach."""
    pole = fighter("Pole", weapon={"name": "polearm"}, armour={"name": "lightweight armour"})
    knife = fighter("Knife", weapon={"name": "knife"})
    s = E.start([[pole], [knife]])
    s, ev = E.step(s, seed_for(BLANK4, BLANK4))
    assert ev[0].data["modifiers"] == [[2 + 1], [0]]  # (3 + 1) // 2 = 2 for arms, +1 for reach
    s = E.start([[pole], [knife]], house_rules=KalyrHouseRules(simple_armament_bonus=False, simple_reach_bonus=0))
    s, ev = E.step(s, seed_for(BLANK4, BLANK4))
    assert ev[0].data["modifiers"] == [[0], [0]]
