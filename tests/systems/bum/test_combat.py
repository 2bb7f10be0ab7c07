"""Combat: the Example of Play's fight through the engine, the four levels, turn order, reloading, ranges."""

from __future__ import annotations

import json
from fractions import Fraction
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from storymaster.dice import DiceRng
from storymaster.errors import CombatError
from storymaster.rules import CombatEngine
from storymaster.systems.bum import SYSTEM, BumCharacter, BumHouseRules, FightState
from storymaster.systems.bum.combat import apply_hazard, attack_odds, exchange_odds, simple_bonus, switch_level

engine = SYSTEM.combat


def fighter(name="F", stats=(2, 2, 3, 3), weapons=None, npc=True, **kw) -> BumCharacter:
    s = dict(zip(("STR", "DEX", "INT", "SOC"), stats, strict=True))
    return BumCharacter.model_validate({"name": name, "npc": npc, "stats": s, "weapons": weapons or {}, **kw})


def kinds(events):
    return [e.kind for e in events]


def test_engine_satisfies_protocol():
    assert isinstance(engine, CombatEngine)


def test_example_of_play_fight(card, scripted):
    """Part Eight: Player 1 hits (9 vs 8), the thief hits (10 vs 8), Player 2 hits (10 vs 7) and the thief falls."""
    p1, p2, thief = card("player1"), card("player2"), card("thief")
    state = engine.start([[p1, p2], [thief]], options={"order": ["Player 1", "Thief", "Player 2"]})
    rng = scripted([2, 5, 6, 2, 4, 4])
    state, events = engine.step(state, rng)
    attacks = [e for e in events if e.kind == "attack"]
    assert [(e.actor, e.data["target"], e.data["totals"][-1], e.data["hit"]) for e in attacks] == [
        ("Player 1", "Thief", (9, 8), True),
        ("Thief", "Player 1", (10, 8), True),
        ("Player 2", "Thief", (10, 7), True),
    ]
    assert attacks[2].data["weapon"] == "Dagger"  # the crossbow is spent: he draws his dagger
    assert state.fighter("Player 1").hp == 2  # 'marks one wound out of his total of 3'
    assert state.fighter("Thief").hp == 0 and "down" in kinds(events)
    assert engine.is_over(state) and engine.winner(state) == 0
    assert rng.faces == []


def test_state_is_json_and_replays(card):
    state = engine.start([[card("victor-mordox")], [card("player1")]], options={"level": 4})
    again = FightState.model_validate_json(state.model_dump_json())
    assert again == state
    s1, e1 = engine.run(state, DiceRng(9))
    s2, e2 = engine.run(again, DiceRng(9))
    assert s1 == s2 and [e.text for e in e1] == [e.text for e in e2]
    json.dumps(s1.model_dump(mode="json"))


# -- levels ----------------------------------------------------------------------------------


def test_level1_roll_against_dc(card, scripted):
    """Part Four: at the simple levels every bonus is added: Player 1's sword 7 (STR 3, Sword 2, +2),
    maille +2 and small shield +2 make d6+11; DC 14 needs a 3 (the attack total alone would need a 7)."""
    p1, thief = card("player1"), card("thief")
    s = engine.start([[p1], [thief]], options={"level": 1, "dc": 14})
    s2, ev = engine.step(s, scripted([3]))  # 3 + 11 = 14: wins
    assert s2.fighter("Thief").hp == 0 and engine.winner(s2) == 0
    assert [e.data["bonus"] for e in ev if e.kind == "fight-roll"] == [11]
    s3, _ = engine.step(s, scripted([2]))  # 13: loses
    assert s3.fighter("Player 1").hp == 0 and engine.winner(s3) == 1
    # by house rule only the attack total counts (the advanced rules' split): 3 + 7 = 10 loses at DC 14
    hr = BumHouseRules(simple_combat_bonuses="attack")
    s4, _ = engine.step(engine.start([[p1], [thief]], house_rules=hr, options={"level": 1, "dc": 14}), scripted([3]))
    assert s4.fighter("Player 1").hp == 0


def test_level1_loss_as_a_wound_by_house_rule(card, scripted):
    s = engine.start(
        [[card("player1")], [card("thief")]],
        house_rules=BumHouseRules(loser_fate="wound"),
        options={"level": 1, "dc": 14},
    )
    s2, _ = engine.step(s, scripted([2]))
    assert s2.fighter("Player 1").hp == 2 and not engine.is_over(s2)


# Part Four, every bonus added at levels 2-3: Player 2 d6+8 (DEX 3, Crossbow 2, heavy crossbow +2, leather +1),
# the thief d6+5 (DEX 2, Knife fighting 1, dagger +1, leather +1).


def test_level2_one_opposed_roll_decides(card, scripted):
    s = engine.start([[card("player2")], [card("thief")]], options={"level": 2})
    s2, ev = engine.step(s, scripted([1, 6]))  # 1+8=9 vs 6+5=11
    assert engine.winner(s2) == 1 and s2.fighter("Player 2").hp == 0
    assert ev[-1].kind == "end"


def test_level3_loser_loses_a_hit_point(card, scripted):
    s = engine.start([[card("player2")], [card("thief")]], options={"level": 3})
    s, _ = engine.step(s, scripted([1, 6]))
    assert (s.fighter("Player 2").hp, s.fighter("Thief").hp) == (1, 2)
    s, ev = engine.step(s, scripted([3, 6, 4, 4]))  # 11 vs 11: a tie, rolled again: 12 vs 9
    assert (s.fighter("Player 2").hp, s.fighter("Thief").hp) == (1, 1)
    assert ev[0].data["totals"] == [(11, 11), (12, 9)]


def test_switch_levels_mid_fight(card):
    s = engine.start([[card("player1")], [card("victor-mordox")]], options={"level": 3, "switch": {2: 4}})
    s, ev1 = engine.step(s, DiceRng(5))
    assert s.level == 3 and "exchange" in kinds(ev1) and not engine.is_over(s)  # one exchange cannot end 3 HP vs 3 HP
    s, ev2 = engine.step(s, DiceRng(6))
    assert s.level == 4 and ev2[0].kind == "level" and "attack" in kinds(ev2)
    s2, ev = switch_level(s, 2)
    assert s2.level == 2 and ev[0].data == {"from": 4, "to": 2}
    with pytest.raises(CombatError):
        switch_level(s, 5)


@cache
def _level3_forecast(p: Fraction, a: int, b: int) -> Fraction:
    """Exact chance that side A wins a level-3 duel from (a, b) hit points: the per-round transition."""
    if b == 0:
        return Fraction(1)
    if a == 0:
        return Fraction(0)
    return p * _level3_forecast(p, a, b - 1) + (1 - p) * _level3_forecast(p, a - 1, b)


def test_level3_engine_agrees_with_markov_forecast(card):
    p2, thief = card("player2"), card("thief")
    p = exchange_odds(p2, thief)
    assert p == Fraction(sum(1 for x in range(1, 7) for y in range(1, 7) if x + 8 > y + 5), 36) / (
        1 - Fraction(sum(1 for x in range(1, 7) for y in range(1, 7) if x + 8 == y + 5), 36)
    )
    exact = float(_level3_forecast(p, 2, 2))
    n, wins = 600, 0
    rng = DiceRng("markov")
    start = engine.start([[p2], [thief]], options={"level": 3})
    for _ in range(n):
        end, _ = engine.run(start, rng)
        wins += engine.winner(end) == 0
    sd = (exact * (1 - exact) / n) ** 0.5
    assert abs(wins / n - exact) < 4 * sd + 1e-9


def test_attack_odds_exact():
    assert attack_odds(7, 3) == Fraction(sum(1 for x in range(1, 7) for y in range(1, 7) if x + 7 > y + 3), 36) / (
        1 - Fraction(sum(1 for x in range(1, 7) for y in range(1, 7) if x + 7 == y + 3), 36)
    )
    assert attack_odds(3, 3, BumHouseRules(opposed_ties="defender")) == Fraction(15, 36)


def test_simple_bonus_adds_every_bonus_at_the_simple_levels(card):
    """Part Four: "In the simple combat rules, just add all these bonuses to the stat and skill".

    Appendix B's Victor Mordox: best attack total 7 plus (melee defence total 6 - DEX 3) = 10.
    """
    v = card("victor-mordox")
    assert simple_bonus(v) == 7 + (6 - 3) == 10
    assert simple_bonus(v, BumHouseRules(simple_combat_bonuses="attack")) == 7
    assert simple_bonus(fighter()) == 2  # bare STR, nothing worn
    # a weapon's own defence bonus counts too: a quarterstaff (+1/+2) with STR 2 and no skill: 2 + 1 + 2
    staff = fighter(weapons={"primary": {"name": "Quarterstaff"}})
    assert simple_bonus(staff) == 5 and simple_bonus(staff, BumHouseRules(simple_combat_bonuses="attack")) == 3
    # the best weapon is chosen by the whole sum: a sword (+2/0) against a quarterstaff (+1/+2)
    both = fighter(weapons={"primary": {"name": "Sword"}, "backup": {"name": "Quarterstaff"}})
    assert simple_bonus(both) == 5 and simple_bonus(both, BumHouseRules(simple_combat_bonuses="attack")) == 4
    # unarmed in armour: STR 2 + leather +1
    assert simple_bonus(fighter(armour={"name": "Leather armor"})) == 3


# -- turn order ---------------------------------------------------------------------------------


def test_longer_reach_first_in_melee():
    """Turn Sequence: crossbow, then spear, then axe."""
    axe = fighter("Axe", weapons={"primary": {"name": "Battleaxe"}})
    spear = fighter("Spear", weapons={"primary": {"name": "Spear"}})
    bow = fighter("Bow", weapons={"ranged": {"name": "Small crossbow"}, "backup": {"name": "Dagger"}})
    s = engine.start([[axe], [spear], [bow]])
    s, ev = engine.step(s, DiceRng(1))
    assert s.order == ("Bow", "Spear", "Axe")
    opening = next(e for e in ev if e.kind == "attack")
    assert opening.actor == "Bow" and opening.data["ranged"] and opening.data["weapon"] == "Small crossbow"
    assert s.fighter("Bow").readiness == "unready"  # and next round he draws his dagger


def test_reach_counts_only_when_the_fight_starts_in_melee_reach():
    """Ruling 15, Turn Sequence: 'if a combat begins ... in range for melee attacks, give longer-range weapons higher
    turn order'. Two turns apart the spear has no such claim: the initiating side (the axe's) goes first."""
    axe = fighter("Axe", weapons={"primary": {"name": "Battleaxe"}})
    spear = fighter("Spear", weapons={"primary": {"name": "Spear"}})
    s, _ = engine.step(engine.start([[axe], [spear]], options={"distance": 2}), DiceRng(1))
    assert s.order == ("Axe", "Spear")
    s, _ = engine.step(engine.start([[axe], [spear]]), DiceRng(1))
    assert s.order == ("Spear", "Axe")


def test_only_a_ready_missile_weapon_goes_first():
    """Ruling 15: a missile weapon ranks first only if it is ready to shoot; an unready crossbow's owner ranks by
    the dagger in his hand (no reach): after the spear, and after the initiating side's axe."""
    axe = fighter("Axe", weapons={"primary": {"name": "Battleaxe"}})
    spear = fighter("Spear", weapons={"primary": {"name": "Spear"}})
    bow = fighter(
        "Bow", weapons={"ranged": {"name": "Small crossbow", "readiness": "unready"}, "backup": {"name": "Dagger"}}
    )
    s, _ = engine.step(engine.start([[axe], [spear], [bow]]), DiceRng(1))
    assert s.order == ("Spear", "Axe", "Bow")


def test_initiator_first_otherwise():
    a, b = fighter("A", weapons={"primary": {"name": "Sword"}}), fighter("B", weapons={"primary": {"name": "Sword"}})
    s, _ = engine.step(engine.start([[a], [b]], options={"initiator": 1}), DiceRng(1))
    assert s.order == ("B", "A")


def test_rolled_initiative_dex_with_tie_reroll(scripted):
    a = fighter("A", stats=(2, 3, 3, 2), weapons={"primary": {"name": "Sword"}})
    b = fighter("B", stats=(2, 2, 3, 3), weapons={"primary": {"name": "Sword"}})
    c = fighter("C", stats=(2, 4, 2, 2), weapons={"primary": {"name": "Sword"}})
    # A 3+3=6, B 4+2=6, C 1+4=5: A and B tie and roll again: A 1+3=4, B 6+2=8
    rng = scripted([3, 4, 1, 1, 6] + [6, 1] * 40)
    s, ev = engine.step(engine.start([[a, b], [c]], options={"initiative": "dex"}), rng)
    assert s.order == ("B", "A", "C")
    assert len(ev[0].rolls) == 5


def test_rolled_initiative_reroll_adds_the_stat_again(scripted):
    """Ruling 16: the tied roll their DEX again (d6 + DEX, as the first time), so a re-roll can tie again.
    A 3+3=6, B 4+2=6: tie; again A 4+3=7, B 5+2=7: tie (on the dice alone B would be ahead); again A 6+3=9,
    B 1+2=3: A first. Six dice in all."""
    a = fighter("A", stats=(2, 3, 3, 2), weapons={"primary": {"name": "Sword"}})
    b = fighter("B", stats=(2, 2, 3, 3), weapons={"primary": {"name": "Sword"}})
    rng = scripted([3, 4, 4, 5, 6, 1] + [6, 1] * 40)
    s, ev = engine.step(engine.start([[a], [b]], options={"initiative": "dex"}), rng)
    assert s.order == ("A", "B")
    assert len(ev[0].rolls) == 6


def test_delay_on_first_turn_then_fixed():
    a, b, c = (fighter(n, stats=(4, 2, 2, 2), weapons={"primary": {"name": "Sword"}}) for n in "ABC")
    s = engine.start([[a, b], [c]], options={"delay": {"A": "C"}, "order": ["A", "B", "C"]})
    s, ev = engine.step(s, DiceRng(2))
    assert s.order == ("B", "C", "A") and "delay" in kinds(ev)
    assert not engine.is_over(s)  # C has 4 HP and takes at most 2 wounds in a round
    s, _ = engine.step(s, DiceRng(3))
    assert s.order == ("B", "C", "A")


# -- ranged combat, movement, reloading ---------------------------------------------------------------


def _shots_and_reloads(weapon: dict, rounds: int, hr: BumHouseRules | None = None, tactic: str = "auto") -> list[str]:
    archer = fighter("Archer", stats=(2, 4, 2, 2), weapons={"ranged": weapon})
    rock = fighter("Rock", stats=(9, 0, 1, 1), armour={"name": "Tower", "defence": 9})  # never hit, never closes
    s = engine.start(
        [[archer], [rock]], house_rules=hr, options={"distance": 50, "tactics": {"Rock": "hold", "Archer": tactic}}
    )
    log = []
    rng = DiceRng(4)
    for _ in range(rounds):
        s, ev = engine.step(s, rng)
        log += [e.kind for e in ev if e.actor == "Archer" and e.kind in ("attack", "reload")]
    return log


def test_bow_fires_every_other_round():
    assert _shots_and_reloads({"name": "Longbow"}, 5) == ["attack", "reload", "attack", "reload", "attack"]


def test_crossbow_fires_every_fourth_round():
    assert _shots_and_reloads({"name": "Heavy crossbow"}, 6) == [
        "attack",
        "reload",
        "reload",
        "reload",
        "attack",
        "reload",
    ]


def test_cocked_crossbow_needs_one_action():
    assert _shots_and_reloads({"name": "Heavy crossbow", "readiness": "cocked"}, 2) == ["reload", "attack"]


def test_muzzleloader_reload_takes_many_rounds():
    log = _shots_and_reloads({"name": "Musket"}, 14, BumHouseRules(muzzleloader_reload_actions=12), tactic="ranged")
    assert log == ["attack"] + ["reload"] * 12 + ["attack"]
    # left to himself ('auto'), a musketeer does not stand reloading: he fights on
    assert _shots_and_reloads({"name": "Musket"}, 3) == ["attack"]


def test_thrown_weapons_are_always_ready_but_reach_two_turns():
    thrower = fighter("T", stats=(2, 4, 2, 2), weapons={"ranged": {"name": "Javelin"}, "primary": {"name": "Sword"}})
    target = fighter("Rock", stats=(9, 0, 1, 1), armour={"name": "Tower", "defence": 9})
    s = engine.start([[thrower], [target]], options={"distance": 3, "tactics": {"Rock": "hold"}})
    s, ev = engine.step(s, DiceRng(1))
    assert [e.kind for e in ev if e.actor == "T"] == ["move"]  # 3 turns: too far to throw, so he closes
    s, ev = engine.step(s, DiceRng(2))
    att = [e for e in ev if e.actor == "T" and e.kind == "attack"]
    assert att and att[0].data["ranged"] and ("range", -1) in [tuple(p) for p in att[0].data["attack_parts"]]


def test_ranged_attack_uses_ranged_defence_and_range_penalty(card):
    v = card("victor-mordox")
    q = fighter("Staff", stats=(2, 3, 3, 2), weapons={"primary": {"name": "Quarterstaff"}})
    s = engine.start([[v], [q]], options={"distance": 3, "tactics": {"Staff": "ranged"}})
    s, ev = engine.step(s, DiceRng(3))
    shot = next(e for e in ev if e.kind == "attack" and e.actor == "Victor Mordox")
    assert shot.data["attack"] == 7 - 2 and shot.data["defence"] == 3  # no quarterstaff parry against missiles


def test_melee_fighter_closes_distance_then_attacks():
    a = fighter("A", weapons={"primary": {"name": "Sword"}})
    b = fighter("B", weapons={"primary": {"name": "Sword"}})
    s = engine.start([[a], [b]], options={"distance": 3})
    s, ev = engine.step(s, DiceRng(1))
    assert [e.kind for e in ev if e.kind in ("move", "attack")][:2] == ["move", "move"] and s.distance == 1
    s, ev = engine.step(s, DiceRng(2))
    assert [e.kind for e in ev if e.actor == "A"][:2] == ["move", "attack"] and s.distance == 0


def test_double_move_house_rule():
    a = fighter("A", weapons={"primary": {"name": "Sword"}})
    b = fighter("B", weapons={"primary": {"name": "Sword"}})
    s = engine.start(
        [[a], [b]], house_rules=BumHouseRules(double_move=True), options={"distance": 5, "order": ["A", "B"]}
    )
    s, ev = engine.step(s, DiceRng(1))
    assert s.distance == 1 and all("double move" in e.text for e in ev if e.kind == "move")


def test_bow_put_down_for_melee_becomes_unready_crossbow_stays_cocked():
    bow = fighter("Bow", weapons={"ranged": {"name": "Longbow"}, "backup": {"name": "Dagger"}})
    xb = fighter("Xb", weapons={"ranged": {"name": "Small crossbow"}, "backup": {"name": "Dagger"}})
    foe = fighter("Foe", stats=(9, 0, 1, 1), armour={"name": "Tower", "defence": 9})
    s = engine.start([[bow, xb], [foe]], options={"tactics": {"Bow": "melee", "Xb": "melee"}})
    assert s.fighter("Bow").wielding == "ranged" and s.fighter("Xb").wielding == "ranged"
    s, _ = engine.step(s, DiceRng(1))  # both put their missile weapons down and draw daggers
    assert s.fighter("Bow").wielding == "backup" and s.fighter("Bow").readiness == "unready"
    assert s.fighter("Xb").wielding == "backup" and s.fighter("Xb").readiness == "cocked"


def test_pistol_works_in_melee():
    gun = fighter("Gun", stats=(2, 4, 2, 2), weapons={"ranged": {"name": "Pistol"}, "primary": {"name": "Sword"}})
    foe = fighter("Foe", weapons={"primary": {"name": "Sword"}})
    s = engine.start([[gun], [foe]], options={"order": ["Gun", "Foe"]})
    s, ev = engine.step(s, DiceRng(1))
    first = next(e for e in ev if e.actor == "Gun")
    assert first.data["weapon"] == "Pistol" and s.fighter("Gun").readiness == "empty"


def test_musket_deals_two_wounds(scripted):
    gun = fighter("Gun", stats=(2, 4, 2, 2), weapons={"ranged": {"name": "Musket"}})
    foe = fighter("Foe", stats=(3, 1, 3, 3), weapons={"primary": {"name": "Sword"}})
    s = engine.start([[gun], [foe]], options={"distance": 2, "order": ["Gun", "Foe"]})
    s, _ev = engine.step(s, scripted([6, 1]))
    assert s.fighter("Foe").hp == 1


def test_longspear_first_strike_option(scripted):
    spear = fighter("Spear", weapons={"primary": {"name": "Longspear"}})
    axe = fighter("Axe", weapons={"primary": {"name": "Battleaxe"}})
    hr = BumHouseRules(longspear_first_strike=True)
    s = engine.start([[axe], [spear]], house_rules=hr, options={"order": ["Axe", "Spear"]})
    s, ev = engine.step(s, scripted([6, 1, 6, 1]))
    attacks = [e.actor for e in ev if e.kind == "attack"]
    assert attacks == ["Spear", "Axe"] and "longspear" in kinds(ev)  # the spear strikes first and not again
    s0 = engine.start([[axe], [spear]], options={"order": ["Axe", "Spear"]})
    _, ev0 = engine.step(s0, scripted([1, 6, 1, 6]))
    assert [e.actor for e in ev0 if e.kind == "attack"] == ["Axe", "Spear"]


def test_hazard_in_fight_and_stun():
    a, b = fighter("A", weapons={"primary": {"name": "Sword"}}), fighter("B", weapons={"primary": {"name": "Sword"}})
    s = engine.start([[a], [b]], options={"order": ["A", "B"]})
    s, ev = apply_hazard(s, "A", stun_rounds=1, wounds=1, cause="a shock")
    assert s.fighter("A").hp == 1 and s.fighter("A").stunned == 1
    s, ev = engine.step(s, DiceRng(1))
    assert "stunned" in kinds(ev) and not any(e.actor == "A" and e.kind == "attack" for e in ev)


def test_start_errors():
    a = fighter("A")
    with pytest.raises(CombatError):
        engine.start([[a]])
    with pytest.raises(CombatError):
        engine.start([[a], [fighter("B")]], options={"level": 5})
    with pytest.raises(CombatError):
        engine.start([[a], [fighter("B")]], options={"distance": -1})
    with pytest.raises(CombatError):
        engine.start([[a], [fighter("B")]], options={"speed": 3})
    with pytest.raises(CombatError):
        engine.start([[a], [fighter("B")]], options={"order": ["A"]})


def test_same_names_get_numbered(card):
    t = card("thief")
    s = engine.start([[card("player1")], [t, t]])
    assert [f.name for f in s.fighters] == ["Player 1", "Thief", "Thief 2"]


def test_unhittable_fighters_stand_off():
    a = fighter("A", stats=(1, 9, 1, 1), armour={"name": "Wall", "defence": 9})
    b = fighter("B", stats=(1, 9, 1, 1), armour={"name": "Wall", "defence": 9})
    s, ev = engine.run(engine.start([[a], [b]], options={"max_rounds": 5}), DiceRng(1))
    assert engine.is_over(s) and engine.winner(s) is None and "stand-off" in ev[-1].text


@settings(max_examples=25)
@given(st.sampled_from([1, 2, 3, 4]), st.integers(0, 3), st.integers(0, 10**6), st.booleans())
def test_fights_end_with_a_standing_winner(level, distance, seed, double):
    from pathlib import Path

    from storymaster.rules import load_model

    ex = Path(__file__).resolve().parents[3] / "examples" / "bum"
    v = load_model(ex / "victor-mordox.yaml", BumCharacter)
    p1 = load_model(ex / "player1.yaml", BumCharacter)
    th = load_model(ex / "thief.yaml", BumCharacter)
    s = engine.start(
        [[v], [p1, th]], house_rules=BumHouseRules(double_move=double), options={"level": level, "distance": distance}
    )
    s, _events = engine.run(s, DiceRng(seed))
    assert engine.is_over(s)
    assert all(f.hp >= 0 for f in s.fighters)
    w = engine.winner(s)
    if w is not None:
        assert any(f.standing for f in s.fighters if f.side == w)
        assert not any(f.standing for f in s.fighters if f.side != w)


def test_knock_down_unreadies_crossbow_but_keeps_it_cocked():
    from storymaster.systems.bum.combat import knock_down

    xb = fighter("Xb", weapons={"ranged": {"name": "Heavy crossbow"}})
    bow = fighter("Bow", weapons={"ranged": {"name": "Longbow"}})
    s = engine.start([[xb, bow], [fighter("Foe")]], options={"distance": 3})
    s, ev = knock_down(s, "Xb")
    assert s.fighter("Xb").readiness == "cocked" and "no longer ready" in ev[0].text
    s, _ = knock_down(s, "Bow")
    assert s.fighter("Bow").readiness == "ready"
    s, _ = knock_down(s, "Bow", bow_too=True)
    assert s.fighter("Bow").readiness == "unready"


def test_example_of_play_sneak_shot_through_the_engine(card, scripted):
    """Player 2 shoots the unaware thief in the head: DC 6, -4 for the head (the GM's DC 10), rolls a 3: 3+7-4 = 6."""
    p2 = card("player2").model_copy(
        update={"weapons": card("player2").weapons.model_copy(update={"ranged": card("victor-mordox").weapons.ranged})}
    )
    thief = card("thief")
    s = engine.start(
        [[p2], [thief]],
        options={
            "surprised": ["Thief"],
            "sneak_dc": 6,
            "sneak_headshot": True,
            "distance": 1,
            "order": ["Player 2", "Thief"],
        },
    )
    s, ev = engine.step(s, scripted([3]))
    sneak = next(e for e in ev if e.kind == "sneak")
    assert sneak.data["hit"] and sneak.data["headshot"] and "3+3=6 against DC 6" in sneak.text
    assert s.fighter("Thief").hp == 0 and engine.winner(s) == 0


def test_melee_sneak_attack_needs_no_roll(card, scripted):
    s = engine.start(
        [[card("player1")], [card("thief")]], options={"surprised": ["Thief"], "order": ["Player 1", "Thief"]}
    )
    s, ev = engine.step(s, scripted([]))
    sneak = next(e for e in ev if e.kind == "sneak")
    assert s.fighter("Thief").hp == 0 and sneak.actor == "Player 1" and sneak.rolls == ()


def test_surprised_fighter_does_nothing_in_round_one(card, scripted):
    s = engine.start(
        [[card("player1")], [card("thief")]], options={"surprised": ["Player 1"], "order": ["Player 1", "Thief"]}
    )
    s, ev = engine.step(s, scripted([]))
    assert "surprised" in kinds(ev) and s.fighter("Player 1").hp == 0  # the thief's knife needs no roll either


def test_unarmed_fighter_uses_str(scripted):
    brawler = fighter("Brawler", stats=(4, 2, 2, 2))
    foe = fighter("Foe", stats=(1, 2, 4, 3))
    s = engine.start([[brawler], [foe]], options={"order": ["Brawler", "Foe"]})
    s, ev = engine.step(s, scripted([3, 3, 1, 6]))
    punch = next(e for e in ev if e.kind == "attack")
    assert punch.data["attack"] == 4 and punch.data["defence"] == 2 and punch.data["hit"]
    assert engine.winner(s) == 0
    s2 = engine.start([[brawler], [foe]], options={"order": ["Brawler", "Foe"], "surprised": ["Foe"]})
    s2, ev2 = engine.step(s2, scripted([]))
    assert s2.fighter("Foe").hp == 0 and any(e.kind == "sneak" for e in ev2)


def test_modern_guns_ignore_armour_option(scripted):
    gun = fighter(
        "Gun",
        stats=(2, 4, 2, 2),
        weapons={"ranged": {"name": "Rifle", "attack": 1, "ranged": True, "modern": True, "rifle": True}},
    )
    knight = fighter("Knight", stats=(3, 2, 3, 2), armour={"name": "Light plate"}, shield={"name": "Tower shield"})
    for hr, expected in ((BumHouseRules(), 2 + 3 + 3), (BumHouseRules(modern_guns_ignore_armour=True), 2)):
        s = engine.start(
            [[gun], [knight]],
            house_rules=hr,
            options={"distance": 3, "order": ["Gun", "Knight"], "tactics": {"Knight": "hold"}},
        )
        s, ev = engine.step(s, scripted([6, 1]))
        shot = next(e for e in ev if e.kind == "attack")
        assert shot.data["defence"] == expected
        assert ("range", -1) in [tuple(p) for p in shot.data["attack_parts"]]  # a rifle at 3 turns: half rate


@settings(max_examples=10)
@given(st.sampled_from([3, 4]), st.integers(0, 2), st.integers(0, 10**6))
def test_every_state_survives_json_and_replays(level, distance, seed):
    """A play-by-post server stores each state as JSON and continues later: the fight goes on identically."""
    from pathlib import Path

    from storymaster.rules import load_model

    ex = Path(__file__).resolve().parents[3] / "examples" / "bum"
    v = load_model(ex / "victor-mordox.yaml", BumCharacter)
    p2 = load_model(ex / "player2.yaml", BumCharacter)
    s = engine.start([[v], [p2]], options={"level": level, "distance": distance})
    while not engine.is_over(s):
        stored = FightState.model_validate_json(s.model_dump_json())
        assert stored == s
        rng_a, rng_b = DiceRng(seed, f"r{s.round}"), DiceRng(seed, f"r{s.round}")
        s, ev = engine.step(s, rng_a)
        s2, ev2 = engine.step(stored, rng_b)
        assert s == s2 and [e.to_json() for e in ev] == [e.to_json() for e in ev2]


def test_tactics_per_side_or_per_fighter(card):
    v, t = card("victor-mordox"), card("thief")
    s = engine.start([[v], [t, t]], options={"tactics": {1: "hold", "Thief 2": "melee"}})
    assert [f.tactic for f in s.fighters] == ["auto", "hold", "melee"]
    with pytest.raises(CombatError):
        engine.start([[v], [t]], options={"tactics": {0: "dance"}})


def test_ammunition_runs_out():
    def shots(weapon: dict, rounds: int, distance: int = 30) -> tuple[list[str], FightState]:
        archer = fighter("Archer", stats=(2, 4, 2, 2), weapons={"ranged": weapon, "backup": {"name": "Dagger"}})
        rock = fighter("Rock", stats=(9, 0, 1, 1), armour={"name": "Tower", "defence": 9})
        s = engine.start(
            [[archer], [rock]], options={"distance": distance, "tactics": {"Rock": "hold", "Archer": "ranged"}}
        )
        log: list[str] = []
        for i in range(rounds):
            s, ev = engine.step(s, DiceRng(i))
            log += [e.kind for e in ev if e.actor == "Archer"]
        return log, s

    log, s = shots({"name": "Javelin", "ammo": 2}, 3, distance=2)
    assert log == ["attack", "attack", "move"] and s.fighter("Archer").ammo == 0  # out of javelins: he closes in
    log, _ = shots({"name": "Longbow", "ammo": 2}, 5)
    assert log == ["attack", "reload", "attack", "move", "move"]  # two arrows, then he must close in
    log, s = shots({"name": "Pistol", "ammo": 3}, 4)  # a brace of three loaded pistols
    assert log[:3] == ["attack"] * 3 and s.fighter("Archer").readiness in ("empty", "ready")
    assert log[3] == "reload" and s.fighter("Archer").ammo == 0
