"""The BLYSS round (round.py) at its edges: what the re-run of its mutation sample on the current source left alive
(issue 14). Rounds are played with scripted draws; every expected figure is worked here by hand from the book's
Derived Attributes (Melee Attack = (Strength + Agility) / 2 rounded down; a rank's die: 1 d4, 2 d6, 3 d8, 4 d10,
5 d12, 6 d12 + d4) and the rules named in each test."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from blyss_helpers import ENG

from storymaster.systems.blyss.character import Armour, Attributes, Character, Trait, Weapon
from storymaster.systems.blyss.checks import Pool
from storymaster.systems.blyss.combat import FightState
from storymaster.systems.blyss.options import BlyssHouseRules
from storymaster.systems.blyss.round import (
    Damage,
    InitiativeRoll,
    Judged,
    Order,
    PoolRoll,
    Roster,
    Soak,
    armour_takes_blow,
    covering_piece,
    from_state,
    play_beat,
    play_round,
    play_turn,
    to_state,
)

FAIL = Judged("failure")
AXE = Weapon(name="Axe", damage="d6", skill="Armed Combat")
MAUL = Weapon(name="Maul", damage="d8", skill="Armed Combat")


class Recorder:
    """Hands out the scripted values in order and keeps every event the round drew."""

    def __init__(self, values: list[object]) -> None:
        self.values = list(values)
        self.events: list[Any] = []
        self.narrate = True

    def draw(self, event: Any) -> Any:
        self.events.append(event)
        assert self.values, f"the round drew more than the script holds (next event: {event!r})"
        return self.values.pop(0)


def play(state: FightState, values: list[object]) -> tuple[FightState, list, list]:
    ch = Recorder(values)
    st, ev = play_round(to_state(state), Roster(state), ch)
    assert not ch.values, "the round drew fewer values than scripted"
    return from_state(st, state), ev, ch.events


def person(name: str, strength: int = 3, agility: int = 3, **kw: Any) -> Character:
    attrs = {"strength": strength, "agility": agility, **kw.pop("attributes", {})}
    return Character(
        name=name,
        attributes=Attributes(**attrs),
        traits=kw.pop("traits", (Trait(name="Armed Combat", rank=3),)),
        weapons=kw.pop("weapons", (AXE,)),
        **kw,
    )


def test_the_roster_takes_cap_by_keyword_only() -> None:
    st = ENG.start([[person("Ann")], [person("Bo")]])
    assert Roster(st).cap is True and Roster(st, cap=False).cap is False
    with pytest.raises(TypeError):
        Roster(st, False)  # type: ignore[misc]


def test_an_attack_uses_up_the_aim_at_once() -> None:
    """Aiming: the successes are ranks on the next Attack, used up by it. Ann (aim tactic, slower) aims in round 1
    (2 successes) while Bo misses; in round 2 Ann, still the slower, acts first: after her attack, in the middle of
    the round (before Bo acts), her aim bonus is already 0."""
    st = ENG.start([[person("Ann", strength=4, agility=4)], [person("Bo")]], options={"tactic": {"Ann": "aim"}})
    st, _, drawn = play(st, [Order((1, 0)), Judged("success", 2), FAIL])
    assert drawn[1].label == "Ann aim" and st.get("Ann").aim_bonus == 2
    ch = Recorder([FAIL])
    ev: list = []
    mid, cursor = play_beat(to_state(st), 0, Roster(st), ch, ev)
    assert cursor == 1 and not ch.values and ch.events[0].label == "Ann attack"
    assert ch.events[0].dice == (12, 4, 8)  # Melee Attack 4 + 2 aim = 6 (d12 + d4), Armed Combat 3 (d8)
    assert from_state(mid, st).get("Ann").aim_bonus == 0


def test_a_defensive_fighter_defends_only_against_an_attack_on_themselves() -> None:
    """Attacking / Defending: a defensive fighter declares a Defence against a foe who declared an attack on them.
    Cy (slowest, declares first) attacks Bo, the weaker of Ann and Bo (the lowest Dodges + Flesh Wounds + Health);
    Ann (defensive, fastest, declares last) is attacked by nobody, so she attacks Cy: three attacks are rolled."""
    st = ENG.start([[person("Ann"), person("Bo")], [person("Cy")]], options={"tactic": {"Ann": "defensive"}})
    fs = tuple(
        f.model_copy(update={"vitals": f.vitals.model_copy(update={"dodges": 0})}) if f.id == "Bo" else f
        for f in st.fighters
    )
    st = st.model_copy(update={"fighters": fs})
    _, ev, drawn = play(st, [Order((0, 1, 2)), FAIL, FAIL, FAIL])
    assert [e.text for e in ev if e.kind == "declare"] == [
        "Cy declares: attack on Bo.",
        "Bo declares: attack on Cy.",
        "Ann declares: attack on Cy.",
    ]
    assert [d.label for d in drawn[1:]] == ["Cy attack", "Bo attack", "Ann attack"]


def test_a_disarm_met_by_a_switch_to_defend_says_so() -> None:
    """Disarming is resisted with Strength, and a defensive target who has not yet acted may switch to Defend
    (Attacking). Ann is faster and acts first (house rule action_order 'initiative'); Bo, slower, declared an attack
    first, then switches to defend against her disarm: the line names the defence he switched to."""
    hr = BlyssHouseRules(action_order="initiative")
    st = ENG.start(
        [[person("Ann")], [person("Bo")]], options={"tactic": {"Ann": "disarm", "Bo": "defensive"}}, house_rules=hr
    )
    st, ev, drawn = play(st, [Order((0, 1)), FAIL])
    assert drawn[1].label == "Ann disarm"
    line = next(e.text for e in ev if e.kind == "disarm")
    assert line.endswith("-> failure. Bo gives up their declared attack to defend."), line
    assert st.get("Bo").acted


def test_the_round_cap_holds_past_the_small_integers() -> None:
    """House rule max_rounds: a fight with no winner after that many rounds is a stand-off, 300 as well as 1 (the
    round count reaches 300 by adding 1 to 299)."""
    hr = BlyssHouseRules(max_rounds=300)
    st = ENG.start([[person("Ann")], [person("Bo")]], house_rules=hr)
    st, _, _ = play(st, [Order((0, 1)), FAIL, FAIL])
    st = st.model_copy(update={"round": 299})
    st, ev, _ = play(st, [FAIL, FAIL])
    assert st.round == 300 and st.over and st.winner is None
    assert ev[-1].text == "No winner after 300 rounds: a stand-off."


def test_destroyed_armour_hampers_no_attack_in_the_round() -> None:
    """Armour: its Action Modifier takes ranks from physical actions while it has lives; a piece with no lives
    left is gone. Ann: Melee Attack (4 + 4) / 2 = 4 (d10), Armed Combat 3 (d8); a Breastplate of Action Modifier
    -1 takes the highest rank down by one: 3 + 3 (d8 + d8); with 0 lives, nothing: d10 + d8."""
    for lives, dice in ((3, (8, 8)), (1, (8, 8)), (0, (10, 8))):  # one life left still hampers
        plate = Armour(name="Breastplate", action_modifier=-1, armour_rating=4, lives=lives)
        st = ENG.start([[person("Ann", strength=4, agility=4, armour=(plate,))], [person("Bo")]])
        _, _, drawn = play(st, [Order((0, 1)), FAIL, FAIL])
        assert drawn[2].label == "Ann attack" and drawn[2].dice == dice, lives


@pytest.mark.parametrize(("lives", "dice"), [(3, (8, 6)), (1, (8, 6)), (0, (8, 8))])
def test_destroyed_armour_hampers_no_defence(lives: int, dice: tuple[int, ...]) -> None:
    """Defending: Defence (3 + 3) / 2 = 3 (d8) + Armed Combat 3 (d8); Bo's Breastplate (Action Modifier -1) takes
    one rank while it has lives (3 + 2: d8 + d6), none when it has none. Bo (defensive, faster) declares his
    Defence after Ann's attack on him."""
    plate = Armour(name="Breastplate", action_modifier=-1, armour_rating=4, lives=lives)
    st = ENG.start([[person("Ann")], [person("Bo", armour=(plate,))]], options={"tactic": {"Bo": "defensive"}})
    ann_hit = Judged("success", best=7, also=((True, 1),))
    _, _, drawn = play(st, [Order((1, 0)), ann_hit, FAIL, *([Damage(1)] if lives == 0 else [Damage(1), Soak(True, 4)])])
    assert drawn[2].label == "Bo defend" and sorted(drawn[2].dice) == sorted(dice)  # equal ranks: either loses it


def brute(name: str, lives: int) -> Character:
    """Melee Attack (2 + 3) / 2 = 2 (d6) + Armed Combat 4 (d10) with a Maul, in Plate of Action Modifier -2: while
    the plate has lives, two ranks off the highest first (4 -> 3 -> 2): d6 + d6, which never meets the Attack TD
    8 (Character Tests: a die must equal or beat the TD); with the plate gone, the d10 can."""
    plate = Armour(name="Plate", action_modifier=-2, armour_rating=6, lives=lives)
    return person(
        name, strength=2, agility=3, traits=(Trait(name="Armed Combat", rank=4),), weapons=(MAUL,), armour=(plate,)
    )


@pytest.mark.parametrize(("lives", "stand_off"), [(3, True), (1, True), (0, False), (-1, False)])  # -1: hand-edited
def test_a_stand_off_reads_the_armour_that_still_has_lives(lives: int, stand_off: bool) -> None:
    st = ENG.start([[brute("Ann", 0)], [brute("Bo", 0)]])  # a fight nobody can win is refused at its start
    st = st.model_copy(update={"fighters": tuple(f.model_copy(update={"armour_lives": (lives,)}) for f in st.fighters)})
    assert Roster(st).stand_off(to_state(st)) is stand_off


def aimer(dexterity: int, might: int = 4) -> Character:
    """Ann aiming a called shot at the head: Aim Test Dexterity + Intelligence at the aimed Called Shot's TD 12
    (Aiming); the aimed attack at the head is TD 12, unaimed 14 (Attacking). Melee Attack (4 + 4) / 2 = 4, Armed
    Combat 3."""
    return person("Ann", strength=might, agility=might, attributes={"dexterity": dexterity, "intelligence": dexterity})


@pytest.mark.parametrize(("dexterity", "might", "can_hit"), [(5, 4, True), (3, 4, False), (3, 5, False)])
def test_an_aimed_called_shot_can_hit_only_through_its_aim(dexterity: int, might: int, can_hit: bool) -> None:
    """Dexterity and Intelligence 5 (d12 + d12): each can meet TD 12, so two aim ranks: Melee Attack 6 (d12 + d4)
    and Armed Combat 3 (d8), whose d12 can meet the aimed TD 12: she can hit. Dexterity and Intelligence 3 (d8 +
    d8) never meet 12: no aim, and d10 + d8 never meet the unaimed TD 14: she can never hit. With Strength and
    Agility 5 her Melee Attack is 5 (d12), which could meet the aimed 12 but not the unaimed 14: no aim, no hit."""
    st = ENG.start(
        [[aimer(dexterity, might)], [person("Bo")]], options={"tactic": {"Ann": "aim"}, "called_shot": {"Ann": "head"}}
    )
    R, rs = Roster(st), to_state(st)
    f = rs.fighters[0]
    assert R.can_ever_hit(0, R.level(0, f), (), f.weapon, False) is can_hit


def test_a_pool_roll_without_a_die_modifier_reads_the_faces_as_they_are() -> None:
    """Character Tests: a d8 against TD 8 succeeds on an 8 only: 1/8."""
    p = sum(pr for pr, j in PoolRoll((8,), 8, BlyssHouseRules()).outcomes() if j.succeeded)
    assert p == pytest.approx(1 / 8)


def test_initiative_events_are_frozen_values() -> None:
    """The round's events are values shared between the chain's branches: equal ones hash alike, none changes."""
    a = InitiativeRoll(("A", "B"), (Pool(ranks=(3,)), Pool(ranks=(2,))), BlyssHouseRules())
    b = InitiativeRoll(("A", "B"), (Pool(ranks=(3,)), Pool(ranks=(2,))), BlyssHouseRules())
    assert a == b and hash(a) == hash(b) and a.outcomes() == b.outcomes()  # (outcomes: so the test runs round.py)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.names = ("B", "A")  # type: ignore[misc]


def test_covering_piece_refuses_lives_that_do_not_match_the_armour() -> None:
    """Armour: each piece has its lives; a list of lives longer or shorter than the armour is no state to read."""
    assert covering_piece((("T",), ("H",)), (0, 2), "H") == 1
    assert covering_piece((("T",), ("H",)), (0, 2), "T") is None
    with pytest.raises(ValueError):
        covering_piece((("T",),), (0, 3), "H")


def test_an_attack_roll_asks_only_what_the_round_reads() -> None:
    """The round reads of an attack roll whether it hit, its best die and the successes against the defender's
    rank (``also``), never its own count of successes: the event asks no detail (so the exact chain does not
    split it by successes); an Aim Test's successes are its ranks, so the aim asks for them."""
    st = ENG.start([[person("Ann")], [person("Bo")]], options={"tactic": {"Ann": "aim"}})
    _, _, drawn = play(st, [Order((0, 1)), FAIL, Judged("success", 1)])
    attack, aim = drawn[1], drawn[2]
    assert (attack.label, attack.detail) == ("Bo attack", False)
    assert (aim.label, aim.detail) == ("Ann aim", True)


def test_a_called_shot_without_aim_ranks_keeps_its_td() -> None:
    """Aiming lowers a Called Shot's TD only for an aimed attack (an aim that gained ranks): a state showing an aim
    at the head but no aim ranks (hand-made: the engine clears aim_called at the round's end when the aim gained
    nothing) attacks the head at the unaimed TD 14 (Attacking)."""
    st = ENG.start([[person("Ann")], [person("Bo")]], options={"called_shot": {"Ann": "head"}})
    fs = tuple(f.model_copy(update={"aim_called": True, "aim_bonus": 0}) if f.id == "Ann" else f for f in st.fighters)
    _, _, drawn = play(st.model_copy(update={"fighters": fs}), [Order((0, 1)), FAIL, FAIL])
    assert drawn[2].label == "Ann attack" and drawn[2].td == 14


def test_the_armour_choice_is_read_by_value() -> None:
    """armour_choice 'auto' (Armour Rating): the armour takes a blow bigger than the Dodges left, whatever string
    object spells 'auto' (one read from a file is not the program's own constant)."""
    auto = "".join(["au", "to"])
    assert armour_takes_blow(auto, 5, 2) and not armour_takes_blow(auto, 2, 2)
    assert armour_takes_blow("".join(["arm", "our"]), 1, 9)
    assert armour_takes_blow("armour", 1, 9) and not armour_takes_blow("body", 9, 1)


def test_the_attack_event_keeps_its_roll() -> None:
    """The log keeps every roll with the event it decided (issue 14's audit trail): the attack's own dice."""
    from storymaster.dice import DiceRng, roll_pool

    rec = roll_pool((10, 8), DiceRng(0), label="Ann attack")
    st = ENG.start([[person("Ann", strength=4, agility=4)], [person("Bo")]])
    _, ev, _ = play(st, [Order((0, 1)), FAIL, Judged("failure", record=rec)])
    attack = [e for e in ev if e.kind == "attack"]
    assert [e.rolls for e in attack] == [(), (rec,)]  # Bo's scripted roll has no record; Ann's keeps hers


def test_armour_of_rating_0_is_never_rolled() -> None:
    """Armour Rating: the rank whose die pool soaks blows; rank 0 is no dice (d0), which can beat no attack die, so
    the round rolls nothing for it and the blow goes on: Bo's 2 damage takes 2 of Ann's 4 Dodges."""
    padding = Armour(name="Padding", cover=("T",), armour_rating=0)
    st = ENG.start(
        [[person("Ann", agility=4, armour=(padding,))], [person("Bo")]], options={"armour_choice": {"Ann": "body"}}
    )
    st, _, drawn = play(st, [Order((0, 1)), Judged("success", best=7), Damage(2), FAIL])
    assert [type(d).__name__ for d in drawn] == ["InitiativeRoll", "PoolRoll", "DamageRoll", "PoolRoll"]
    assert st.get("Ann").vitals.dodges == 2


def test_strength_adds_to_melee_damage_only() -> None:
    """Weapons: Damage and Attributes: Strength: Strength 5 adds 5 - 3 = +2 to a melee weapon's damage; a ranged
    weapon (unless it says otherwise) and a weapon that says Strength does not apply get no bonus, 0."""
    bow = Weapon(name="Bow", damage="d6", skill="Ranged Combat", ranged=True)
    sling = Weapon(name="Sling", damage="d4", skill="Armed Combat", strength_applies=False)
    st = ENG.start([[person("Ann", strength=5, weapons=(AXE, bow, sling))], [person("Bo")]])
    R = Roster(st)
    assert [R.damage_bonus(0, w) for w in (AXE, bow, sling)] == [2, 0, 0]


def _mid_round(st: FightState, **decl: Any) -> FightState:
    """Round 1 under way (Initiative rolled: the listing order, fastest first), with the declarations given."""

    fs = tuple(f.model_copy(update={"declared": decl.get(f.id)}) for f in st.fighters)
    return st.model_copy(update={"round": 1, "order": tuple(f.id for f in st.fighters), "fighters": fs})


def test_a_declared_target_is_kept_while_they_stand() -> None:
    """The Declaration Round: the action taken is the one declared. Ann declared an attack on Cy; when she acts,
    Bo is the weaker foe (hurt), but Cy still stands, so she attacks Cy."""
    from storymaster.systems.blyss.combat import Action

    st = ENG.start([[person("Ann")], [person("Bo"), person("Cy")]])
    fs = tuple(
        f.model_copy(update={"vitals": f.vitals.model_copy(update={"dodges": 0})}) if f.id == "Bo" else f
        for f in st.fighters
    )
    st = _mid_round(st.model_copy(update={"fighters": fs}), Ann=Action(kind="attack", target="Cy"))
    ch = Recorder([FAIL])
    ev: list = []
    play_turn(to_state(st), 0, Roster(st), ch, ev)
    assert next(e.text for e in ev if e.kind == "attack").startswith("Ann attacks Cy with Axe")


def test_a_fighter_who_could_not_act_keeps_no_declaration_into_the_next_round() -> None:
    """The Declaration Round: declarations are made each round. Bo declared an attack in round 1 and was knocked
    out before acting (unconscious, so he declares nothing in round 2): his round-1 declaration is gone, and Ann's
    and Cy's attacks are the round's only actions."""
    from storymaster.systems.blyss.combat import Action

    st = ENG.start([[person("Ann")], [person("Bo"), person("Cy")]])
    st = _mid_round(st, Bo=Action(kind="attack", target="Ann"))
    fs = tuple(
        f.model_copy(update={"vitals": f.vitals.model_copy(update={"unconscious": True})}) if f.id == "Bo" else f
        for f in st.fighters
    )
    st, _, drawn = play(st.model_copy(update={"fighters": fs}), [FAIL, FAIL])
    assert st.round == 2 and st.get("Bo").declared is None
    assert [d.label for d in drawn] == ["Cy attack", "Ann attack"]
