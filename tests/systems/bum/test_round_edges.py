"""The round (rounds.py) through the engine with chosen dice, and its named rules on their own: every figure in a
log line and every state change is worked out by hand from the book (Part Two: opposed rolls, d6 + bonus; Part
Five: the four levels, turn sequence, movement, sneak attacks; Appendix A: the weapons' bonuses and reloading)."""

from __future__ import annotations

from fractions import Fraction
from itertools import pairwise, permutations, product

import pytest

from storymaster.forecast.chance import Scripted, branches
from storymaster.systems.bum import SYSTEM, BumCharacter, BumHouseRules
from storymaster.systems.bum.rounds import (
    Fixed,
    Opposed,
    Roll,
    RolledOrder,
    Setup,
    TurnOrder,
    advance,
    card,
    delayed,
    level_after_switch,
    next_state,
    p_ok,
    pick_target,
    reload_step,
    sides_left,
    tied_groups,
    uses_missile,
)

engine = SYSTEM.combat


def fighter(name: str, stats=(2, 2, 2, 2), npc=True, **kw) -> BumCharacter:
    s = dict(zip(("STR", "DEX", "INT", "SOC"), stats, strict=True))
    return BumCharacter.model_validate({"name": name, "npc": npc, "stats": s, **kw})


def sword(name: str, strength: int = 2, dex: int = 2) -> BumCharacter:
    return fighter(name, (strength, dex, 2, 2), weapons={"primary": {"name": "Sword"}})


def texts(events, kind: str) -> list[str]:
    return [e.text for e in events if e.kind == kind]


# -- level 4: attacks in words ----------------------------------------------------------------------


def test_level4_attack_lines(scripted):
    """Appendix A: a sword is +2 to attack, 0 to defence. A: STR 3 + 2 = 5 against B's DEX 2 + 0 = 2; B: STR 2 + 2 =
    4 against A's DEX 2. A rolls 1, B 6: 6 vs 8, B defends. B rolls 3, A 3: 7 vs 5, a hit: A 3 HP -> 2."""
    s = engine.start([[sword("A", 3)], [sword("B")]])
    s, ev = engine.step(s, scripted([1, 6, 3, 3]))
    assert texts(ev, "initiative") == ["Turn order (GM, initiator first, longer reach first): A, B"]
    assert texts(ev, "attack") == [
        "A attacks B with Sword (melee): 1+5=6 vs 6+2=8. B defends.",
        "B attacks A with Sword (melee): 3+4=7 vs 3+2=5. Hit: A takes 1 wound (2 HP left).",
    ]
    assert all(e.round == 1 for e in ev)
    a = [e for e in ev if e.kind == "attack"]
    assert (a[0].data["attack"], a[0].data["defence"], a[0].data["hit"]) == (5, 2, False)
    assert (a[1].data["attack"], a[1].data["defence"], a[1].data["hit"]) == (4, 2, True)
    assert a[1].data["totals"] == ((7, 5),) or list(a[1].data["totals"]) == [(7, 5)]


def test_a_tie_is_rolled_again_and_shown(scripted):
    """Part Two: 'In the case of a tie, both characters roll again.' 2+5=7 vs 5+2=7, again 4+5=9 vs 1+2=3."""
    s = engine.start([[sword("A", 3)], [sword("B", 1)]])
    s, ev = engine.step(s, scripted([2, 5, 4, 1]))
    assert texts(ev, "attack")[0] == (
        "A attacks B with Sword (melee): 2+5=7 vs 5+2=7; tie, again: 4+5=9 vs 1+2=3. Hit: B takes 1 wound (0 HP left)."
    )
    assert s.fighter("B").hp == 0 and [e.actor for e in ev if e.kind == "down"] == ["B"]
    assert "B is down at 0 HP" in texts(ev, "down")[0]
    assert next(e for e in ev if e.kind == "down").data["cause"] == "Sword of A"


def test_a_musket_deals_two_wounds_in_words(scripted):
    """Appendix A: 'All weapons deal one wound, with the exception of the musket, which should deal two.' The
    musket is +2 to attack, -1 at 2 turns: Gun DEX 4: 6 + 4 + 2 - 1 = 11 against Foe's ranged defence (DEX 1, no
    parry against missiles): 1 + 1 = 2; 3 HP -> 1."""
    gun = fighter("Gun", (2, 4, 2, 2), weapons={"ranged": {"name": "Musket"}})
    foe = fighter("Foe", (3, 1, 3, 3), weapons={"primary": {"name": "Sword"}})
    s = engine.start([[gun], [foe]], options={"distance": 2, "order": ["Gun", "Foe"]})
    s, ev = engine.step(s, scripted([6, 1]))
    shot = next(e for e in ev if e.kind == "attack")
    assert shot.text.startswith("Gun attacks Foe with Musket (ranged): 6+5=11 vs 1+1=2.")  # -1 for the 2nd turn
    assert shot.text.endswith("Hit: Foe takes 2 wounds (1 HP left).")
    assert shot.data["attack_parts"][-1] == ("range", -1)


def test_bare_hands_line(scripted):
    """No weapon: STR alone against the target's defence (DEX 2 + no weapon). 3+4=7 vs 3+2=5: a hit for one wound;
    Foe rolls 1 against Brawler's DEX 2: 1+1=2 vs 6+2=8, Brawler defends."""
    s = engine.start([[fighter("Brawler", (4, 2, 2, 2))], [fighter("Foe", (1, 2, 2, 2))]])
    s, ev = engine.step(s, scripted([3, 3]))
    assert texts(ev, "attack") == ["Brawler punches at Foe: 7 vs 5. Hit."]
    assert s.fighter("Foe").hp == 0
    s = engine.start([[fighter("Brawler", (4, 2, 2, 2))], [fighter("Foe", (2, 2, 2, 2))]])
    s, ev = engine.step(s, scripted([1, 6, 1, 6]))
    assert texts(ev, "attack") == [
        "Brawler punches at Foe: 5 vs 8. Foe defends.",
        "Foe punches at Brawler: 3 vs 8. Brawler defends.",
    ]
    assert [f.hp for f in s.fighters] == [4, 2]


# -- movement, reloading, stun, delays ----------------------------------------------------------------


def test_movement_lines():
    """Part Five, Movement: one turn closes one turn of distance, 5 squares each on a grid (the option's 5)."""
    s = engine.start([[sword("A")], [sword("B")]], options={"distance": 3, "tactics": {"B": "hold"}})
    from storymaster.dice import DiceRng

    s, ev = engine.step(s, DiceRng(1))
    assert texts(ev, "move") == ["A moves toward B; 2 turn(s) apart (about 10 squares)."]
    assert texts(ev, "hold") == ["B holds his ground."]
    s = engine.start(
        [[sword("A")], [sword("B")]],
        house_rules=BumHouseRules(double_move=True, grid_move=3),
        options={"distance": 3, "tactics": {"B": "hold"}},
    )
    s, ev = engine.step(s, DiceRng(1))
    assert texts(ev, "move") == ["A runs flat out toward B (double move); 1 turn(s) apart (about 3 squares)."]
    assert s.distance == 1
    s, ev = engine.step(s, DiceRng(1))  # one turn apart: a plain move, and he strikes
    assert texts(ev, "move") == ["A moves toward B; 0 turn(s) apart (about 0 squares)."]


def test_reload_lines():
    """Appendix A: a crossbow takes 3 actions to reload (brace, draw, fit); after the shot the first is 1/3."""
    from storymaster.dice import DiceRng

    xb = fighter("Xb", (2, 4, 2, 2), weapons={"ranged": {"name": "Heavy crossbow"}})
    rock = fighter("Rock", (9, 0, 1, 1), armour={"name": "Tower", "defence": 9})
    s = engine.start([[xb], [rock]], options={"distance": 50, "tactics": {"Rock": "hold"}})
    lines, steps = [], []
    for i in range(5):
        s, ev = engine.step(s, DiceRng(i))
        lines += texts(ev, "reload")
        steps.append((s.fighter("Xb").readiness, s.fighter("Xb").reload_progress))
    assert steps == [("unready", 0), ("unready", 1), ("cocked", 2), ("ready", 0), ("unready", 0)]
    assert lines == [
        "Xb works at reloading his Heavy crossbow (1/3).",
        "Xb works at reloading his Heavy crossbow (2/3).",
        "Xb readies his Heavy crossbow: it can fire next turn.",
    ]


def test_stun_lines(scripted):
    from storymaster.systems.bum.combat import apply_hazard

    s = engine.start([[sword("A")], [sword("B")]], options={"order": ["A", "B"]})
    s, _ = apply_hazard(s, "A", stun_rounds=2)
    s, ev = engine.step(s, scripted([1, 6]))  # A loses his turn; B attacks: 1+4 vs 6+2, A defends
    assert texts(ev, "stunned") == ["A is stunned and loses his turn (1 more)."]
    assert s.fighter("A").stunned == 1 and s.fighter("A").acted


def test_delay_line_and_order():
    """Turn Sequence: 'A player can choose on his first turn ... after which character he wishes to be placed'."""
    from storymaster.dice import DiceRng

    s = engine.start(
        [[sword("A"), sword("B")], [sword("C", 4)]], options={"order": ["A", "B", "C"], "delay": {"A": "C"}}
    )
    s, ev = engine.step(s, DiceRng(1))
    assert texts(ev, "delay") == ["A chooses to wait and acts after C from now on."]
    assert s.order == ("B", "C", "A")


def test_rolled_order_line(scripted):
    """A 3+3=6, B 4+2=6, C 1+4=5: A and B roll again: A 1+3=4, B 6+2=8 (the existing replay, in words)."""
    a = fighter("A", (2, 3, 3, 2), weapons={"primary": {"name": "Sword"}})
    b = fighter("B", (2, 2, 3, 3), weapons={"primary": {"name": "Sword"}})
    c = fighter("C", (2, 4, 2, 2), weapons={"primary": {"name": "Sword"}})
    _, ev = engine.step(
        engine.start([[a, b], [c]], options={"initiative": "dex"}), scripted([3, 4, 1, 1, 6] + [6, 1] * 40)
    )
    assert texts(ev, "initiative") == ["Turn order by DEX roll, highest first: B (6/8), A (6/4), C (5)"]
    assert ev[0].data["order"] == ["B", "A", "C"]
    # by INT: A 1+3=4, B 1+3=4, C 6+2=8; A and B again: A 5+3=8, B 2+3=5
    _, ev = engine.step(
        engine.start([[a, b], [c]], options={"initiative": "int"}), scripted([1, 1, 6, 5, 2] + [6, 1] * 40)
    )
    assert texts(ev, "initiative") == ["Turn order by INT roll, highest first: C (8), A (4/8), B (4/5)"]


# -- levels 1-3 in words ---------------------------------------------------------------------------------


def test_level1_line(scripted):
    """Level 1: STR 3 + sword 2 = +5 against DC 8: a 3 makes 8 (wins), a 2 makes 7 (loses)."""
    s = engine.start([[sword("A", 3)], [sword("B")]], options={"level": 1, "dc": 8})
    s2, ev = engine.step(s, scripted([3]))
    assert texts(ev, "fight-roll") == ["A rolls 3+5=8 against DC 8: wins against B."]
    assert s2.fighter("B").hp == 0
    s2, ev = engine.step(s, scripted([2]))
    assert texts(ev, "fight-roll") == ["A rolls 2+5=7 against DC 8: loses to B."]
    assert s2.fighter("A").hp == 0


def test_level1_only_side_a_rolls_and_each_beats_his_own_foe(scripted):
    """Level 1 is the players' roll against the GM's DC: side A's fighters roll in turn, side B's do not; each winner
    puts the first foe standing out. A and B (+4 each) against C and D at DC 7: A rolls 2 (6, loses), B rolls 6 (10,
    wins: C, the first foe standing, is out)."""
    s = engine.start([[sword("A"), sword("B")], [sword("C"), sword("D")]], options={"level": 1, "dc": 7})
    s2, ev = engine.step(s, scripted([2, 6]))
    assert [e.actor for e in ev if e.kind == "fight-roll"] == ["A", "B"]
    assert [f.hp for f in s2.fighters] == [0, 2, 0, 2]


def test_exchange_lines(scripted):
    """Levels 2-3: A (+5) against B (+4), 1+5=6 vs 1+4=5: A wins; at level 3 B loses a hit point, at level 2 the
    fight (by default) or a wound (house rule loser_fate='wound')."""
    for level, hr, cost, hp in (
        (3, BumHouseRules(), "loses a hit point", 1),
        (2, BumHouseRules(), "loses the fight", 0),
        (2, BumHouseRules(loser_fate="wound"), "loses a hit point", 1),
    ):
        s = engine.start([[sword("A", 3)], [sword("B")]], house_rules=hr, options={"level": level})
        s2, ev = engine.step(s, scripted([1, 1]))
        assert texts(ev, "exchange") == [f"A (+5) against B (+4): 6 vs 5. A wins the roll; B {cost}."]
        assert s2.fighter("B").hp == hp and s2.fighter("A").hp == 3
    s = engine.start([[sword("A", 1)], [sword("B", 3)]], options={"level": 3})
    s2, ev = engine.step(s, scripted([4, 1]))  # A +3, B +5: 4+3=7 vs 1+5=6, the weaker wins this one
    assert texts(ev, "exchange")[0] == "A (+3) against B (+5): 7 vs 6. A wins the roll; B loses a hit point."


# -- sneak attacks ------------------------------------------------------------------------------------


def test_sneak_attack_lines(scripted):
    """Part Five, Sneak Attacks: a melee one needs no roll; a ranged one rolls against the GM's DC without the
    target's DEX or shield: Longbow +1, DEX 3: d6 + 4; at 2 turns -1: d6 + 3 against DC 6."""
    s = engine.start([[sword("A")], [sword("B")]], options={"surprised": ["B"]})
    _, ev = engine.step(s, scripted([]))
    assert texts(ev, "sneak") == ["A falls on the unaware B with Sword: no roll needed."]
    bow = fighter("Bow", (2, 3, 2, 2), weapons={"ranged": {"name": "Longbow"}})
    s = engine.start([[bow], [sword("B")]], options={"surprised": ["B"], "distance": 2})
    _, ev = engine.step(s, scripted([3]))
    assert texts(ev, "sneak") == ["Bow attacks the unaware B with Longbow: 3+3=6 against DC 6. Hit: 1 wound(s)."]
    _, ev = engine.step(s, scripted([2]))
    assert texts(ev, "sneak") == ["Bow attacks the unaware B with Longbow: 2+3=5 against DC 6. Miss."]
    s = engine.start([[bow], [sword("B")]], options={"surprised": ["B"], "distance": 2, "sneak_headshot": True})
    s2, ev = engine.step(s, scripted([6]))  # 6 + 3 - 4 = 5 against 6: a miss
    assert texts(ev, "sneak") == ["Bow attacks the unaware B with Longbow: 6-1=5 against DC 6. Miss."]
    s = s.model_copy(update={"sneak_dc": 5})
    s2, ev = engine.step(s, scripted([6]))
    assert texts(ev, "sneak")[0].endswith("Hit in the head: he is killed or incapacitated.")
    assert s2.fighter("B").hp == 0
    parts = next(e for e in ev if e.kind == "sneak").data["attack_parts"]
    assert parts[-2:] == [("range", -1), ("aimed at the head", -4)]


def test_sneak_bare_hands_and_without_the_kill_rule(scripted):
    """Bare hands on an unaware foe: no roll. With sneak_melee_kills off, a melee sneak attack is rolled against the
    DC like a ranged one (sword: STR 2 + 2 = +4: a 2 makes 6 against DC 6) and deals the weapon's one wound."""
    s = engine.start([[fighter("P")], [sword("B")]], options={"surprised": ["B"]})
    _, ev = engine.step(s, scripted([]))
    assert texts(ev, "sneak") == ["P falls on the unaware B with bare hands: no roll needed."]
    hr = BumHouseRules(sneak_melee_kills=False)
    s = engine.start([[sword("A")], [sword("B")]], house_rules=hr, options={"surprised": ["B"], "order": ["A", "B"]})
    s2, ev = engine.step(s, scripted([2, 1, 6]))
    assert texts(ev, "sneak") == ["A attacks the unaware B with Sword: 2+4=6 against DC 6. Hit: 1 wound(s)."]
    assert s2.fighter("B").hp == 1


# -- the named rules on their own --------------------------------------------------------------------------


def test_level_after_switch():
    """A switch named for round r takes effect as round r starts (after r - 1 rounds played)."""
    assert level_after_switch([(3, 1)], 2, 4) == 1
    assert level_after_switch([(3, 1)], 1, 4) == 4
    assert level_after_switch([(3, 1)], 3, 4) == 4
    assert level_after_switch([(2, 3), (3, 1)], 2, 3) == 1


def test_delayed_in_turn():
    """Ruling 17: each waiter is moved after the one he named, one after the other; waiting for himself is nothing."""
    assert delayed((0, 1, 2), ((0, 2),)) == (1, 2, 0)
    assert delayed((0, 1, 2), ((0, 1), (2, 0))) == (1, 0, 2)
    assert delayed((0, 1, 2), ((1, 1),)) == (0, 1, 2)
    assert delayed((0, 1, 2, 3), ((3, 0),)) == (0, 3, 1, 2)


def test_pick_target_by_hand():
    """Ruling 20: his chosen target while he stands; else (levels 2-3) the first foe in turn order who has not rolled;
    else the first foe standing in turn order; -1 with no foe standing."""
    sides, order = (0, 1, 1, 1), (3, 0, 2, 1)
    assert pick_target(0, order, sides, (1, 1, 1, 1), -1, None) == 3
    assert pick_target(0, order, sides, (1, 1, 1, 0), -1, None) == 2
    assert pick_target(0, order, sides, (1, 1, 1, 1), 1, None) == 1
    assert pick_target(0, order, sides, (1, 0, 1, 1), 1, None) == 3
    assert pick_target(0, order, sides, (1, 1, 1, 1), -1, (False, False, False, True)) == 2
    assert pick_target(0, order, sides, (1, 1, 1, 1), -1, (False, True, True, True)) == 3
    assert pick_target(0, order, sides, (1, 0, 0, 0), -1, None) == -1
    assert pick_target(1, order, sides, (1, 1, 1, 1), 2, None) == 0  # his own side is never a target


def test_advance_and_reload_by_hand():
    """Movement: one turn closes 1 (reaching 0 he strikes); double move runs 2 when 2 or more apart and does not
    strike; hold stays. Reloading (Appendix A): a bow 1 action, a crossbow 3 (the third fits the bolt: cocked
    after 2), a cocked crossbow 1 more; a muzzle-loader the house rule's count."""
    hr, dbl = BumHouseRules(), BumHouseRules(double_move=True)
    assert [advance(d, "auto", hr) for d in range(4)] == [(0, True), (0, True), (1, False), (2, False)]
    assert [advance(d, "auto", dbl) for d in range(5)] == [(0, True), (0, True), (0, False), (1, False), (2, False)]
    assert [advance(d, "hold", hr) for d in range(3)] == [(0, True), (1, False), (2, False)]
    assert reload_step("bow", "unready", 0, hr) == ("ready", 0)
    assert reload_step("crossbow", "unready", 0, hr) == ("unready", 1)
    assert reload_step("crossbow", "unready", 1, hr) == ("cocked", 2)
    assert reload_step("crossbow", "cocked", 2, hr) == ("ready", 0)
    assert reload_step("crossbow", "cocked", 0, hr) == ("ready", 0)
    mz = BumHouseRules(muzzleloader_reload_actions=3)
    assert [reload_step("muzzleloader", "empty", p, mz) for p in range(3)] == [
        ("empty", 1),
        ("empty", 2),
        ("ready", 0),
    ]


def test_uses_missile_by_hand():
    """A ready bow shoots at range; in melee reach only in the first round (the opening shot) or a handgun; out of
    ammunition he closes in; a thrown weapon only within its reach; 'melee' never shoots; an unready musket on
    'auto' is not reloaded in the fight ('generally cannot be reloaded in combat')."""
    hr = BumHouseRules()
    bow = card(fighter("B", weapons={"ranged": {"name": "Longbow"}}), hr).missile
    pistol = card(fighter("P", weapons={"ranged": {"name": "Pistol"}}), hr).missile
    musket = card(fighter("M", weapons={"ranged": {"name": "Musket"}}), hr).missile
    javelin = card(fighter("J", weapons={"ranged": {"name": "Javelin"}}), hr).missile
    assert uses_missile(bow, "auto", "ready", None, 3, False, hr)
    assert uses_missile(bow, "auto", "unready", None, 3, False, hr)  # a reload
    assert not uses_missile(bow, "auto", "ready", None, 0, False, hr)
    assert uses_missile(bow, "auto", "ready", None, 0, True, hr)
    assert not uses_missile(bow, "auto", "unready", None, 0, True, hr)
    assert not uses_missile(bow, "melee", "ready", None, 3, False, hr)
    assert not uses_missile(bow, "auto", "ready", 0, 3, False, hr)
    assert uses_missile(bow, "auto", "ready", 1, 3, False, hr)
    assert uses_missile(pistol, "auto", "ready", None, 0, False, hr)
    assert uses_missile(pistol, "auto", "ready", 0, 0, False, hr)  # a loaded gun needs no spare ammunition
    assert not uses_missile(musket, "auto", "empty", None, 3, False, hr)
    assert uses_missile(musket, "ranged", "empty", None, 3, False, hr)
    assert uses_missile(javelin, "auto", "ready", None, 2, False, hr)
    assert not uses_missile(javelin, "auto", "ready", None, 3, False, hr)
    assert not uses_missile(None, "ranged", "ready", None, 3, False, hr)


def test_tied_groups_and_sides_left():
    assert tied_groups([5, 7, 5, 2]) == [[1], [0, 2], [3]]
    assert tied_groups([(6, 4), (6, 8), (5,)]) == [[1], [0], [2]]
    assert tied_groups([3, 3, 3]) == [[0, 1, 2]]
    s = engine.start([[sword("A")], [sword("B")], [sword("C")]])
    assert sides_left(s.fighters) == {0, 1, 2}


# -- the events' chances -------------------------------------------------------------------------------------


def _p_first_two(a: int, b: int) -> Fraction:
    """d6 + a against d6 + b, ties rolled again: wins / (36 - ties), counted."""
    wins = sum(1 for x, y in product(range(1, 7), repeat=2) if x + a > y + b)
    ties = sum(1 for x, y in product(range(1, 7), repeat=2) if x + a == y + b)
    return Fraction(wins, 36 - ties)


def test_rolled_order_chances_by_brute_force():
    """Ruling 16: d6 + stat, the tied roll again among themselves. Two fighters: the first ahead with wins / (36 -
    ties). Three equal stats: each of the 6 orders 1/6 (symmetry). A stat 6 above the others: always first."""
    for a, b in product(range(4), repeat=2):
        out = {o.order: p for p, o in RolledOrder((a, b), ("A", "B")).outcomes()}
        assert out.get((0, 1), 0.0) == pytest.approx(float(_p_first_two(a, b)))
        assert sum(out.values()) == pytest.approx(1.0)
    out = {o.order: p for p, o in RolledOrder((2, 2, 2), ("A", "B", "C")).outcomes()}
    assert set(out) == set(permutations(range(3))) and all(p == pytest.approx(1 / 6) for p in out.values())
    out = {o.order: p for p, o in RolledOrder((9, 2, 2), ("A", "B", "C")).outcomes()}
    assert out == {(0, 1, 2): pytest.approx(0.5), (0, 2, 1): pytest.approx(0.5)}
    # three fighters, stats (3, 1, 0): every order's chance against a direct count over the first roll's faces,
    # the tied pairs settled by the two-fighter chance and an all-tie rolled again
    stats = (3, 1, 0)
    want: dict[tuple[int, ...], Fraction] = {}
    all_tied = Fraction(0)
    for faces in product(range(1, 7), repeat=3):
        t = [f + s for f, s in zip(faces, stats, strict=True)]
        if t[0] == t[1] == t[2]:
            all_tied += Fraction(1, 216)
            continue
        for order in permutations(range(3)):
            p = Fraction(1, 216)
            for x, y in pairwise(order):
                if t[x] < t[y]:
                    p = Fraction(0)
                elif t[x] == t[y]:
                    p *= _p_first_two(stats[x], stats[y])
            want[order] = want.get(order, Fraction(0)) + p
    got = {o.order: p for p, o in RolledOrder(stats, ("A", "B", "C")).outcomes()}
    for order in permutations(range(3)):
        assert got.get(order, 0.0) == pytest.approx(float(want.get(order, Fraction(0)) / (1 - all_tied)), abs=1e-12)


def test_fixed_and_opposed_chances_by_count():
    """Part Two: a fixed roll meets or beats the DC; an opposed one must exceed (ties again)."""
    for bonus, dc in product(range(-2, 9), range(1, 12)):
        assert p_ok(Fixed(bonus, dc, "")) == pytest.approx(sum(1 for f in range(1, 7) if f + bonus >= dc) / 6)
    for a, b in product(range(9), repeat=2):
        assert p_ok(Opposed(a, b, None)) == pytest.approx(float(_p_first_two(a, b)))
    assert p_ok(Opposed(3, 3, "actor")) == pytest.approx(21 / 36)  # 15 wins and the 6 ties
    assert p_ok(Opposed(3, 3, "opponent")) == pytest.approx(15 / 36)


def test_the_round_over_a_scripted_chance():
    """Level 4 in reach, GM order A then B: A's attack drawn first, then B's. A hits (B 2 -> 1), B misses."""
    s = engine.start([[sword("A")], [sword("B")]])
    setup = Setup.of(s)
    x = setup.state(s)
    y = next_state(setup, x, Scripted([Roll(True), Roll(False)], narrate=False))
    assert y[0] == 1 and y[2] == (0, 1) and y[4] == (2, 1)
    # every branch with its chance: each attacks at +4 (STR 2, sword 2) against a defence of 2 (DEX 2, sword 0)
    p = float(_p_first_two(4, 2))
    out = {y[4]: q for q, y in branches(lambda ch: next_state(setup, x, ch))}
    assert out == {
        (2, 1): pytest.approx(p * (1 - p)),
        (1, 1): pytest.approx(p * p),
        (2, 2): pytest.approx((1 - p) ** 2),
        (1, 2): pytest.approx((1 - p) * p),
    }


def test_events_are_values():
    """A roll against a DC and a rolled turn order are plain values: equal when made alike, hashable, not changed
    in place (the exact chain and the engine share them)."""
    import dataclasses

    assert Fixed(3, 6, "x") == Fixed(3, 6, "x") and hash(Fixed(3, 6, "x")) == hash(Fixed(3, 6, "x"))
    order = RolledOrder((2, 3), ("A", "B"))
    assert order == RolledOrder((2, 3), ("A", "B")) and hash(order) == hash(RolledOrder((2, 3), ("A", "B")))
    with pytest.raises(dataclasses.FrozenInstanceError):
        order.stats = (1, 1)  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Fixed(3, 6, "x").dc = 5  # type: ignore[misc]


def test_a_level_switch_is_logged_as_the_next_rounds():
    """The switch named for round 2 is logged in round 2, as a whole round number (the log's JSON says 2)."""
    from storymaster.dice import DiceRng

    s = engine.start([[sword("A", 3)], [sword("B", 3)]], options={"level": 3, "switch": {2: 4}})
    s, _ = engine.step(s, DiceRng(1))
    s, ev = engine.step(s, DiceRng(2))
    level = next(e for e in ev if e.kind == "level")
    assert level.text == "The GM switches to combat level 4." and level.data == {"from": 3, "to": 4}
    assert level.round == 2 and type(level.round) is int


def test_two_wounds_on_one_hit_point_leave_zero(scripted):
    """Appendix A: the musket deals two wounds; on a fighter with 1 HP left he is at 0, not below (Wounds/Injury:
    0 HP is down). Gun DEX 4 + musket 2 - 1 (2 turns) = +5 against DEX 1: 6+5=11 vs 1+1=2."""
    from storymaster.systems.bum.combat import apply_hazard

    gun = fighter("Gun", (2, 4, 2, 2), weapons={"ranged": {"name": "Musket"}})
    foe = fighter("Foe", (3, 1, 3, 3), weapons={"primary": {"name": "Sword"}})
    s = engine.start([[gun], [foe]], options={"distance": 2, "order": ["Gun", "Foe"]})
    s, _ = apply_hazard(s, "Foe", wounds=2)
    s, ev = engine.step(s, scripted([6, 1]))
    assert s.fighter("Foe").hp == 0 and texts(ev, "attack")[0].endswith("Hit: Foe takes 2 wounds (0 HP left).")


def test_a_delay_after_someone_listed_earlier_is_logged():
    """C (listed last) waits for A (listed first): C acts right after A, and the log says so."""
    from storymaster.dice import DiceRng

    s = engine.start(
        [[sword("A", 4), sword("B", 4)], [sword("C", 4)]], options={"order": ["A", "B", "C"], "delay": {"C": "A"}}
    )
    s, ev = engine.step(s, DiceRng(1))
    assert texts(ev, "delay") == ["C chooses to wait and acts after A from now on."]
    assert s.order == ("A", "C", "B")


def test_a_setup_is_a_value_whatever_it_has_cached():
    """What no round changes (Setup) compares and hashes by the fight, not by the events it has made so far."""
    s = engine.start([[sword("A")], [sword("B")]])
    a, b = Setup.of(s), Setup.of(s)
    next_state(a, a.state(s), Scripted([Roll(True), Roll(False)], narrate=False))  # a makes and keeps its events
    assert a == b and hash(a) == hash(b)


def test_ties_at_levels_2_and_3_go_to_the_side_that_did_not_start(scripted):
    """Ruling 1 (docs/rulings/bum.md): at levels 2-3 the side that did not start the fight counts as the defender
    for the tie house rule. A (+4) and B (+4) tie 3 vs 3: with ties to the defender, A, who started, loses."""
    hr = BumHouseRules(opposed_ties="defender")
    s = engine.start([[sword("A")], [sword("B")]], house_rules=hr, options={"level": 2})
    s2, _ = engine.step(s, scripted([3, 3]))
    assert s2.fighter("A").hp == 0 and s2.fighter("B").hp == 2
    s = engine.start([[sword("A")], [sword("B")]], house_rules=hr, options={"level": 2, "initiator": 1})
    s2, _ = engine.step(s, scripted([3, 3]))  # now B started: A is the defender and wins the tie
    assert s2.fighter("B").hp == 0 and s2.fighter("A").hp == 2


def test_only_round_one_is_a_surprise(scripted):
    """Sneak Attacks: the unaware B does nothing in round 1 (with sneak_melee_kills off, A's sword rolls against DC 6:
    a 1 makes 5, a miss); in round 2 he is aware: A's attack is an ordinary one (1+4 vs 6+2) and B strikes back
    (6+4 vs 1+2: a hit)."""
    hr = BumHouseRules(sneak_melee_kills=False)
    s = engine.start([[sword("A")], [sword("B")]], house_rules=hr, options={"surprised": ["B"], "order": ["A", "B"]})
    s, ev = engine.step(s, scripted([1]))
    assert [e.kind for e in ev if e.actor == "B"] == ["surprised"]
    s, ev = engine.step(s, scripted([1, 6, 6, 1]))
    assert [e.kind for e in ev if e.kind in ("attack", "sneak")] == ["attack", "attack"]
    assert s.fighter("A").hp == 1 and s.fighter("B").hp == 2


def test_a_head_shot_is_for_missiles_only(scripted):
    """Sneak Attacks: the head shot (-4, incapacitates) is a ranged sneak attack's choice; a melee one rolled by
    house rule is d6 + 4 (sword) against the DC with no -4, and deals the sword's one wound."""
    hr = BumHouseRules(sneak_melee_kills=False)
    s = engine.start(
        [[sword("A")], [sword("B")]],
        house_rules=hr,
        options={"surprised": ["B"], "sneak_headshot": True, "order": ["A", "B"]},
    )
    s2, ev = engine.step(s, scripted([2]))
    assert texts(ev, "sneak") == ["A attacks the unaware B with Sword: 2+4=6 against DC 6. Hit: 1 wound(s)."]
    assert s2.fighter("B").hp == 1


def test_a_punch_after_a_tie_shows_the_last_roll(scripted):
    """Brawler STR 4 against Foe's DEX 2: 1+4=5 vs 3+2=5, a tie, rolled again: 6+4=10 vs 1+2=3, a hit."""
    s = engine.start([[fighter("Brawler", (4, 2, 2, 2))], [fighter("Foe", (1, 2, 2, 2))]])
    _, ev = engine.step(s, scripted([1, 3, 6, 1]))
    assert texts(ev, "attack") == ["Brawler punches at Foe: 10 vs 3. Hit."]


def test_the_fallen_take_no_turn(scripted):
    """A and B against C; B is down (a hazard): A attacks C (1+4 vs 6+2), B does nothing, C attacks A (1+4 vs
    6+2). Four dice in all."""
    from storymaster.systems.bum.combat import apply_hazard

    s = engine.start([[sword("A"), sword("B")], [sword("C")]], options={"order": ["A", "B", "C"]})
    s, _ = apply_hazard(s, "B", wounds=2)
    rng = scripted([1, 6, 1, 6])
    s, ev = engine.step(s, rng)
    assert [e.actor for e in ev if e.kind == "attack"] == ["A", "C"] and rng.faces == []


def test_a_longspear_that_fells_the_attacker_takes_his_attack(scripted):
    """Appendix A **: attacked, the longspear strikes first; Axe (1 HP) is hit (6+4 vs 1+2) and falls before he can
    swing: only the spear's attack is rolled."""
    from storymaster.systems.bum.combat import apply_hazard

    spear = fighter("Spear", weapons={"primary": {"name": "Longspear"}})
    axe = fighter("Axe", weapons={"primary": {"name": "Battleaxe"}})
    hr = BumHouseRules(longspear_first_strike=True)
    s = engine.start([[axe], [spear]], house_rules=hr, options={"order": ["Axe", "Spear"]})
    s, _ = apply_hazard(s, "Axe", wounds=1)
    rng = scripted([6, 1])
    s, ev = engine.step(s, rng)
    assert [e.actor for e in ev if e.kind == "attack"] == ["Spear"] and s.fighter("Axe").hp == 0
    assert rng.faces == []
    from storymaster.systems.bum.rounds import strikes_first

    lspear = card(spear, hr).in_hand(None)
    assert strikes_first(hr, lspear, False, 1, 0, False, 0)
    assert not strikes_first(hr, lspear, False, 0, 0, False, 0) and not strikes_first(
        hr, lspear, False, -1, 0, False, 0
    )


def test_level1_stops_when_no_foe_is_left(scripted):
    """Level 1: A wins (6 + 4 against DC 6) and C, the only foe, is out: B has nobody to roll against."""
    s = engine.start([[sword("A"), sword("B")], [sword("C")]], options={"level": 1})
    rng = scripted([6])
    s2, ev = engine.step(s, rng)
    assert [e.actor for e in ev if e.kind == "fight-roll"] == ["A"] and s2.fighter("C").hp == 0


def test_arrows_counted_and_guns_reloaded():
    """Appendix A: only so many missiles; a bow reloaded takes the next arrow, so three arrows are three shots.
    A muzzle-loader reloaded is one loaded gun (its count 1); an uncounted one stays uncounted."""
    from storymaster.dice import DiceRng

    def run(weapon: dict, rounds: int, hr=None):
        archer = fighter("Archer", (2, 4, 2, 2), weapons={"ranged": weapon, "backup": {"name": "Dagger"}})
        rock = fighter("Rock", (9, 0, 1, 1), armour={"name": "Tower", "defence": 9})
        s = engine.start(
            [[archer], [rock]],
            house_rules=hr,
            options={"distance": 30, "tactics": {"Rock": "hold", "Archer": "ranged"}},
        )
        log, ammo = [], []
        for i in range(rounds):
            s, ev = engine.step(s, DiceRng(i))
            log += [e.kind for e in ev if e.actor == "Archer"]
            ammo.append(s.fighter("Archer").ammo)
        return log, ammo

    log, _ = run({"name": "Longbow", "ammo": 3}, 6)
    assert log == ["attack", "reload", "attack", "reload", "attack", "move"]
    hr = BumHouseRules(muzzleloader_reload_actions=2)
    log, ammo = run({"name": "Pistol", "ammo": 1}, 4, hr)
    assert log == ["attack", "reload", "reload", "attack"] and ammo == [0, 0, 1, 0]
    log, ammo = run({"name": "Pistol"}, 4, hr)
    assert log == ["attack", "reload", "reload", "attack"] and ammo == [None] * 4
    # a loaded pistol and no spare: the shot leaves none (not fewer than none)
    log, ammo = run({"name": "Pistol", "ammo": 0}, 1, hr)
    assert log == ["attack"] and ammo == [0]


def test_a_target_not_in_the_fight_is_no_target():
    """A names a target who is not there: he attacks as if he had named none, the first foe in turn order (C)."""
    from storymaster.dice import DiceRng

    s = engine.start(
        [[sword("A")], [sword("B"), sword("C")]], options={"order": ["A", "C", "B"], "targets": {"A": "Zed"}}
    )
    _, ev = engine.step(s, DiceRng(1))
    assert next(e for e in ev if e.kind == "attack" and e.actor == "A").data["target"] == "C"


def test_named_rules_at_their_edges():
    """One fighter is first by himself; a foe below 0 HP (a state edited by hand) is no more standing than at 0."""
    assert RolledOrder((3,), ("A",)).outcomes() == ((1.0, TurnOrder((0,))),)
    assert pick_target(0, (0, 1, 2), (0, 1, 1), (1, -1, 1), -1, None) == 2
    assert pick_target(0, (0, 1), (0, 1), (1, -1), 1, None) == -1


def test_the_engines_round_writes_into_the_log_it_is_given():
    from storymaster.dice import DiceRng
    from storymaster.systems.bum.rounds import play_round

    s = engine.start([[sword("A")], [sword("B")]])
    log: list = []
    _, out = play_round(s, DiceRng(1), log)
    assert out is log and [e.kind for e in log][:2] == ["initiative", "attack"]


def test_an_unready_thrown_weapon_is_taken_up_in_one_action():
    """Appendix A: thrown weapons need no reloading; one marked unready is taken in hand with one action, and the
    count of javelins does not change (only a reloaded gun is counted as one loaded gun)."""
    from storymaster.dice import DiceRng

    thrower = fighter("T", (2, 4, 2, 2), weapons={"ranged": {"name": "Javelin", "ammo": 3, "readiness": "unready"}})
    rock = fighter("Rock", (9, 0, 1, 1), armour={"name": "Tower", "defence": 9})
    s = engine.start([[thrower], [rock]], options={"distance": 2, "tactics": {"Rock": "hold", "T": "ranged"}})
    s, ev = engine.step(s, DiceRng(1))
    assert [e.kind for e in ev if e.actor == "T"] == ["reload"]
    assert (s.fighter("T").readiness, s.fighter("T").ammo) == ("ready", 3)


def test_the_fallen_do_not_move_either():
    """Wounds/Injury: at 0 HP a fighter is 'too hurt to fight, run or cast'. Three turns apart, A closes one turn;
    B (down) does not move; C holds: two turns apart after the round."""
    from storymaster.dice import DiceRng
    from storymaster.systems.bum.combat import apply_hazard

    s = engine.start(
        [[sword("A"), sword("B")], [sword("C")]],
        options={"order": ["A", "B", "C"], "distance": 3, "tactics": {"C": "hold"}},
    )
    s, _ = apply_hazard(s, "B", wounds=2)
    s, ev = engine.step(s, DiceRng(1))
    assert s.distance == 2 and not [e for e in ev if e.actor == "B"]
