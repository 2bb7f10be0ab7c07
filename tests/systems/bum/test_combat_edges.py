"""The B.U.M. engine's edges (combat.py): what start() takes and refuses, the GM's tools between rounds (level
switch, hazards, knock-downs), the end of a fight in words. Each expected value is worked out by hand from the
book passage named (Part Five, Part Seven, Appendix A) or from the option's documented meaning."""

from __future__ import annotations

import pytest

from storymaster.dice import DiceRng
from storymaster.errors import CombatError
from storymaster.systems.bum import SYSTEM, BumCharacter, BumHouseRules
from storymaster.systems.bum.combat import BumCombat, apply_hazard, knock_down, switch_level

engine = SYSTEM.combat


def fighter(name="F", stats=(2, 2, 3, 3), weapons=None, npc=True, **kw) -> BumCharacter:
    s = dict(zip(("STR", "DEX", "INT", "SOC"), stats, strict=True))
    return BumCharacter.model_validate({"name": name, "npc": npc, "stats": s, "weapons": weapons or {}, **kw})


def sword(name: str, strength: int = 2) -> BumCharacter:
    return fighter(name, stats=(strength, 2, 2, 2), weapons={"primary": {"name": "Sword"}})


def duel(**options):
    return engine.start([[sword("A")], [sword("B")]], options=options)


# -- start: what it takes ------------------------------------------------------------------------


def test_start_defaults_are_the_books():
    """Level 4 (the full rules), melee reach, the GM's order, side A starts, DC 6 (Part Two: 'The "standard"
    difficulty is 6'), a round cap of 100 (docs/systems/bum.md: '--max-rounds, default 100'), nobody surprised,
    sneak DC 6, no head shot."""
    s = duel()
    assert (s.level, s.distance, s.initiative, s.initiator, s.dc, s.max_rounds) == (4, 0, "gm", 0, 6, 100)
    assert (s.surprised, s.sneak_dc, s.sneak_headshot, s.order, s.delay, s.switch) == ((), 6, False, (), (), ())
    assert [f.hp for f in s.fighters] == [2, 2]  # hit points = STR (Part Five, Wounds)
    assert [f.side for f in s.fighters] == [0, 1]


def test_start_takes_every_option():
    a, b, c = sword("A"), sword("B"), sword("C")
    s = engine.start(
        [[a, b], [c]],
        options={
            "level": 3,
            "distance": 2,
            "order": ["C", "A", "B"],
            "delay": {"A": "B"},
            "switch": {"3": "4", 2: 1},
            "initiative": "int",
            "initiator": 1,
            "dc": 1,
            "max_rounds": 7,
            "surprised": ["B"],
            "sneak_dc": 1,
            "sneak_headshot": 1,
        },
    )
    assert (s.level, s.distance, s.order, s.delay) == (3, 2, ("C", "A", "B"), (("A", "B"),))
    assert s.switch == ((2, 1), (3, 4))  # by round, whatever order they were given in
    assert (s.initiative, s.initiator, s.dc, s.max_rounds) == ("int", 1, 1, 7)
    assert (s.surprised, s.sneak_dc, s.sneak_headshot) == (("B",), 1, True)
    for level in (1, 2, 3, 4):
        assert duel(level=level).level == level
    assert duel(initiative="dex").initiative == "dex" and duel(initiative="gm").initiative == "gm"
    assert duel(switch={1: 2}).switch == ((1, 2),)  # round 1 is the first a switch can name
    assert duel(switch={4: 3}).switch == ((4, 3),)
    s = engine.start(sides=[[a], [c]], house_rules=BumHouseRules(), options={})  # every parameter can be named
    assert [f.name for f in s.fighters] == ["A", "C"]
    s = BumCombat().start(sides=[[a], [c]], house_rules=BumHouseRules(), options={})  # the engine class itself
    assert [f.name for f in s.fighters] == ["A", "C"]


@pytest.mark.parametrize(
    "options",
    [
        {"level": 0},
        {"level": 5},
        {"distance": -1},
        {"order": ["A"]},
        {"order": ["A", "A"]},
        {"order": ["A", "B", "C"]},
        {"delay": {"A": "Z"}},
        {"delay": {"Z": "A"}},
        {"switch": {0: 3}},
        {"switch": {2: 0}},
        {"switch": {2: 5}},
        {"initiative": "str"},
        {"dc": 0},
        {"surprised": ["Z"]},
        {"sneak_dc": 0},
        {"speed": 3},
    ],
)
def test_start_refuses_what_is_not_a_fight(options):
    with pytest.raises(CombatError):
        duel(**options)


def test_start_refuses_lone_sides_other_systems_and_other_house_rules():
    from storymaster.rules import HouseRules

    with pytest.raises(CombatError, match="two sides"):
        engine.start([[sword("A")], []])
    with pytest.raises(CombatError, match="two sides"):
        engine.start([[], [sword("A")], []])
    assert len(engine.start([[sword("A")], [], [sword("B")]]).fighters) == 2  # an empty side is no side
    with pytest.raises(CombatError, match=r"B\.U\.M\. house rules"):
        engine.start([[sword("A")], [sword("B")]], house_rules=HouseRules())
    with pytest.raises(CombatError, match="side 2 has a"):
        engine.start([[sword("A")], [object()]])  # type: ignore[list-item]


def test_same_names_are_numbered_from_the_second():
    s = engine.start([[sword("T")], [sword("T"), sword("T"), sword("U")]])
    assert [f.name for f in s.fighters] == ["T", "T 2", "T 3", "U"]


def test_a_ready_bow_or_crossbow_starts_in_hand():
    """Appendix A, Partially Loaded Weapons: bows and crossbows 'cannot be set down with an arrow or bolt ready to
    fire', so a ready one is in his hands; a firearm, a thrown weapon or an unready bow is not."""

    def wielding(ranged: dict) -> str | None:
        s = engine.start([[fighter("R", weapons={"ranged": ranged})], [sword("B")]])
        return s.fighter("R").wielding

    assert wielding({"name": "Longbow"}) == "ranged"
    assert wielding({"name": "Small crossbow"}) == "ranged"
    assert wielding({"name": "Longbow", "readiness": "unready"}) is None
    assert wielding({"name": "Small crossbow", "readiness": "cocked"}) is None
    assert wielding({"name": "Pistol"}) is None
    assert wielding({"name": "Javelin"}) is None
    s = engine.start(
        [[fighter("R", weapons={"ranged": {"name": "Pistol", "readiness": "empty", "ammo": 3}})], [sword("B")]]
    )
    assert (s.fighter("R").readiness, s.fighter("R").ammo) == ("empty", 3)
    assert (s.fighter("B").readiness, s.fighter("B").ammo, s.fighter("B").wielding) == ("ready", None, None)


def test_tactics_by_name_then_card_name_then_side():
    t = sword("T")
    s = engine.start([[sword("A")], [t, t]], options={"tactics": {"1": "hold", "T": "melee", "T 2": "ranged"}})
    assert [f.tactic for f in s.fighters] == ["auto", "melee", "ranged"]
    s = engine.start([[sword("A")], [t, t]], options={"tactics": {1: "hold", "T": "ranged"}})
    assert [f.tactic for f in s.fighters] == ["auto", "ranged", "ranged"]  # the card's name before the side
    s = engine.start([[sword("A")], [t, t]], options={"tactics": {"1": "hold", 0: "melee"}})
    assert [f.tactic for f in s.fighters] == ["melee", "hold", "hold"]
    with pytest.raises(CombatError, match="'dance'"):
        engine.start([[sword("A")], [t]], options={"tactics": {"T": "dance"}})


def test_targets_by_name_or_card_name():
    t = sword("T")
    s = engine.start([[sword("A"), sword("A")], [t]], options={"targets": {"A": "T", "A 2": "T"}})
    assert [f.target for f in s.fighters] == ["T", "T", None]
    s = engine.start([[sword("A"), sword("A")], [t]], options={"targets": {"A": "T"}})
    assert [f.target for f in s.fighters] == ["T", "T", None]  # 'A 2' has the card name 'A'


# -- the GM's tools between rounds ----------------------------------------------------------------


def test_switch_level_to_each_level_and_no_other():
    s, _ = engine.step(duel(level=3), DiceRng(1))  # after round 1
    for level in (1, 2, 3, 4):
        s2, ev = switch_level(s, level)
        assert s2.level == level and ev[0].kind == "level"
        assert ev[0].round == 2  # it takes effect as round 2 starts
        assert ev[0].data == {"from": 3, "to": level}
    for level in (0, 5):
        with pytest.raises(CombatError):
            switch_level(s, level)


def test_hazard_wounds_and_stun_add_up_and_stop_at_zero():
    """Part Seven: a hazard deals wounds and electricity stuns for some rounds; hit points stop at 0."""
    s = engine.start([[sword("Al")], [sword("Bo")]])
    s, _ = apply_hazard(s, "".join(["A", "l"]), wounds=1)  # a name typed in (an equal string, another object)
    assert [f.hp for f in s.fighters] == [1, 2]
    s = duel()
    s, ev = apply_hazard(s, "A", wounds=1, stun_rounds=2, cause="a shock")
    assert (s.fighter("A").hp, s.fighter("A").stunned) == (1, 2)
    assert ev[0].data == {"wounds": 1, "stun": 2} and ev[0].actor == "A" and ev[0].round == 0
    assert "a shock" in ev[0].text and "1 HP left" in ev[0].text
    s, ev = apply_hazard(s, "A", stun_rounds=3)
    assert (s.fighter("A").hp, s.fighter("A").stunned) == (1, 5) and "a hazard" in ev[0].text
    s, _ = apply_hazard(s, "A", wounds=4)
    assert s.fighter("A").hp == 0 and s.fighter("B").hp == 2 and s.fighter("A").stunned == 5
    s2, _ = apply_hazard(duel(), "B", wounds=0, stun_rounds=0)
    assert s2 == duel()
    for kw in ({"wounds": -1}, {"stun_rounds": -1}):
        with pytest.raises(CombatError):
            apply_hazard(duel(), "A", **kw)


def test_knock_down_only_unreadies_a_ready_missile():
    """Appendix A, Partially Loaded Weapons: a fitted bolt falls out (the crossbow stays cocked), a nocked arrow
    only if the GM says so; a weapon that was not ready stays as it was; the reload starts again."""
    xb = fighter("Xb", weapons={"ranged": {"name": "Heavy crossbow", "readiness": "unready"}})
    gun = fighter("Gun", weapons={"ranged": {"name": "Pistol"}})
    plain = sword("S")
    s = engine.start([[xb, gun, plain], [sword("Foe")]], options={"distance": 3})
    s2, ev = knock_down(s, "Xb")
    assert s2.fighter("Xb").readiness == "unready" and ev[0].text == "Xb is knocked over."
    s2, ev = knock_down(s, "Xb", bow_too=True)
    assert s2.fighter("Xb").readiness == "unready"
    s2, ev = knock_down(s, "Gun", bow_too=True)
    assert s2.fighter("Gun").readiness == "ready" and ev[0].data == {"readiness": "ready"}
    assert s2.fighter("Xb") == s.fighter("Xb") and s2.fighter("S") == s.fighter("S")  # only he falls
    s2, _ = knock_down(s, "".join(["G", "un"]))  # a name typed in (an equal string, another object)
    assert s2.fighter("Gun").reload_progress == 0 and s2.fighter("Xb") == s.fighter("Xb")
    s2, ev = knock_down(state=s, name="S", bow_too=True)  # every parameter can be named
    assert s2.fighter("S").readiness == "ready" and ev[0].kind == "knocked-down" and ev[0].actor == "S"
    # a crossbow half reloaded starts again: its reload steps are lost with the bolt
    s3 = s.model_copy(
        update={
            "fighters": tuple(
                f.model_copy(update={"readiness": "ready", "reload_progress": 2}) if f.name == "Xb" else f
                for f in s.fighters
            )
        }
    )
    s4, ev = knock_down(s3, "Xb")
    assert (s4.fighter("Xb").readiness, s4.fighter("Xb").reload_progress) == ("cocked", 0)
    assert "Heavy crossbow is no longer ready (cocked)" in ev[0].text
    assert s4.fighter("Gun") == s3.fighter("Gun")
    s5, _ = knock_down(s3, "".join(["X", "b"]))
    assert (s5.fighter("Xb").readiness, s5.fighter("Xb").reload_progress) == ("cocked", 0)
    # a ready longbow dropped at the GM's word: the arrow is lost
    bow = fighter("Bow", weapons={"ranged": {"name": "Longbow"}})
    s6, ev = knock_down(engine.start([[bow], [sword("Foe")]]), "Bow", bow_too=True)
    assert s6.fighter("Bow").readiness == "unready" and "Longbow is no longer ready (unready)" in ev[0].text
    # nothing loaded, nothing to fall out: an empty crossbow or bow stays as it is
    for name in ("Heavy crossbow", "Longbow"):
        empty = fighter("E", weapons={"ranged": {"name": name, "readiness": "empty"}})
        s7, ev = knock_down(engine.start([[empty], [sword("Foe")]]), "E", bow_too=True)
        assert s7.fighter("E").readiness == "empty" and ev[0].text == "E is knocked over."


# -- the end of a fight ---------------------------------------------------------------------------


def test_the_winners_named_in_the_end_line(scripted):
    """Level 2: one opposed roll decides (Part Five). Two on side A against one: the end line names the
    standing winners; 'win' for two, 'wins' for one."""
    s = engine.start([[sword("A", 3), sword("B", 3)], [sword("C", 3)]], options={"level": 2})
    # A (d6+5: STR 3, Sword +2) against C (d6+5): 6+5 against 1+5, A wins and C is out
    s2, ev = engine.step(s, scripted([6, 1]))
    assert ev[-1].kind == "end" and ev[-1].text == "A and B (side A) win the fight."
    assert ev[-1].data == {"winner": 0} and s2.ended and engine.winner(s2) == 0
    s = engine.start([[sword("A", 3)], [sword("C", 3)]], options={"level": 2})
    _, ev = engine.step(s, scripted([1, 6]))
    assert ev[-1].text == "C (side B) wins the fight." and ev[-1].data == {"winner": 1}


def test_the_winners_named_are_those_standing(scripted):
    """B is already down (a hazard); A beats C at level 2: only A is named, the side's fallen are not."""
    s = engine.start([[sword("A", 3), sword("B", 3)], [sword("C", 3)]], options={"level": 2})
    s, _ = apply_hazard(s, "B", wounds=3)
    _, ev = engine.step(s, scripted([6, 1]))
    assert ev[-1].text == "A (side A) wins the fight."


def test_three_sides_fight_on_while_two_stand(scripted):
    """Level 3 (Part Five): each loser of a roll loses a hit point; three sides at 2 HP each: after one round
    nobody is out, and the fight goes on (it ends when one side is left). GM order A, B, C: A rolls against B
    (6+4 vs 1+4: B loses 1), C against A, the first foe in order who has not rolled (6+4 vs 1+4: A loses 1)."""
    s = engine.start([[sword("A")], [sword("B")], [sword("C")]], options={"level": 3})
    s2, ev = engine.step(s, scripted([6, 1, 6, 1]))
    assert [f.hp for f in s2.fighters] == [1, 1, 2]
    assert not s2.ended and not engine.is_over(s2) and all(e.kind != "end" for e in ev)


def test_a_stand_off_at_the_round_cap(scripted):
    """Level 3 with a cap of 1 round: one exchange cannot take 3 HP off anyone, so the fight stops undecided."""
    s = engine.start([[sword("A", 3)], [sword("C", 3)]], options={"level": 3, "max_rounds": 1})
    s2, ev = engine.step(s, scripted([6, 1]))
    assert ev[-1].kind == "end" and ev[-1].text == "After 1 rounds the fight is a stand-off."
    assert ev[-1].data == {"winner": None} and s2.ended and s2.round == 1
    assert engine.is_over(s2) and engine.winner(s2) is None
    with pytest.raises(CombatError, match="over"):
        engine.step(s2, scripted([]))
    # a saved fight continued with a lower cap than its round stops at once; a long fight stops at its cap
    later = s.model_copy(update={"round": 2, "order": ("A", "C"), "max_rounds": 1})
    s3, ev = engine.step(later, scripted([6, 1]))
    assert s3.ended and ev[-1].text == "After 3 rounds the fight is a stand-off."
    long = s.model_copy(update={"round": 299, "order": ("A", "C"), "max_rounds": int("300")})
    s3, ev = engine.step(long, scripted([6, 1]))
    assert s3.ended and ev[-1].text == "After 300 rounds the fight is a stand-off."
    s = engine.start([[sword("A", 3)], [sword("C", 3)]], options={"level": 3, "max_rounds": 2})
    s2, ev = engine.step(s, scripted([6, 1]))
    assert not s2.ended and not engine.is_over(s2) and engine.winner(s2) is None
    assert all(e.kind != "end" for e in ev)


def test_winner_only_once_over():
    s = duel()
    assert not engine.is_over(s) and engine.winner(s) is None
    down = s.model_copy(update={"fighters": (s.fighters[0], s.fighters[1].model_copy(update={"hp": 0}))})
    assert engine.is_over(down) and engine.winner(down) == 0
    both = s.model_copy(update={"fighters": tuple(f.model_copy(update={"hp": 0}) for f in s.fighters)})
    assert engine.is_over(both) and engine.winner(both) is None


def test_the_engine_refuses_other_states():
    from pydantic import BaseModel

    class Other(BaseModel):
        x: int = 0

    for call in (engine.step, lambda st, _rng: engine.initiative_order(st), lambda st, _rng: engine.tracker(st)):
        with pytest.raises(CombatError, match=r"not a B\.U\.M\. fight state"):
            call(Other(), DiceRng(1))


def test_run_plays_to_the_end(scripted):
    """Level 3, STR 1 each (1 HP): the first exchange decides; run stops there and returns its events."""
    s = engine.start([[sword("A", 1)], [sword("C", 1)]], options={"level": 3})
    s2, ev = engine.run(s, scripted([6, 1]))
    assert s2.round == 1 and engine.winner(s2) == 0 and ev[-1].kind == "end"
    assert [e.kind for e in ev].count("end") == 1
