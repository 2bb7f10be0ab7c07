"""The BLYSS round (round.py) played with scripted draws: what each event asks the dice (pool, TD, label) and what the
round makes of the answers, against the book's numbers worked by hand (issue 14's mutation survivors).

Characters here are built in code; their derived figures, by the book (Derived Attributes): Melee Attack =
(Strength + Agility) / 2, Defence = Initiative = (Agility + Wits) / 2, rounded down; Dodges = Agility, Flesh
Wounds = Stamina, Health = Stamina x 6; Strength adds (rank - 3) to damage (Attributes: Strength)."""

from __future__ import annotations

from typing import Any

from storymaster.systems.blyss.character import Armour, Attributes, Character, Trait, Weapon
from storymaster.systems.blyss.combat import BlyssCombat, FightState
from storymaster.systems.blyss.dicepool import Judgement
from storymaster.systems.blyss.options import BlyssHouseRules
from storymaster.systems.blyss.round import (
    ArmourRoll,
    Damage,
    DamageRoll,
    InitiativeRoll,
    Judged,
    Order,
    PoolRoll,
    Roster,
    Soak,
    from_state,
    play_round,
    to_state,
)


class _CodeBuiltEngine(BlyssCombat):
    def start(self, sides, *, house_rules=None, options=None):  # type: ignore[override]
        return super().start(sides, house_rules=house_rules, options={"allow_illegal": True, **dict(options or {})})


ENG = _CodeBuiltEngine()


class Recorder:
    """Hands out the scripted values in order and keeps every event the round drew."""

    def __init__(self, values: list[object], *, narrate: bool = True) -> None:
        self.values = list(values)
        self.events: list[Any] = []
        self.narrate = narrate

    def draw(self, event: Any) -> Any:
        self.events.append(event)
        assert self.values, f"the round drew more than the script holds (next event: {event!r})"
        return self.values.pop(0)


def play(state: FightState, values: list[object], *, narrate: bool = True) -> tuple[FightState, list, list]:
    ch = Recorder(values, narrate=narrate)
    st, ev = play_round(to_state(state), Roster(state), ch)
    assert not ch.values, "the round drew fewer values than scripted"
    return from_state(st, state), ev, ch.events


AXE = Weapon(name="Axe", damage="d6", skill="Armed Combat")
CLUB = Weapon(name="Club", damage="d4", skill="Armed Combat", blunt=True)
FAIL = Judged("failure")


def hit(successes: int = 1, best: int = 9) -> Judged:
    """A hit as the engine reads a rolled attack: its kind and best face, with the real judgement for the log."""
    return Judged("success", best=best, judgement=Judgement("success", successes, 0, 0, 0))


def ann(**kw: Any) -> Character:
    """Melee Attack (4 + 4) / 2 = 4 (d10) + Armed Combat 3 (d8); Initiative (4 + 3) / 2 = 3 (d8); Strength 4:
    +1 damage; Dodges 4, Flesh Wounds 3, Health 18."""
    return Character(
        name="Ann",
        attributes=Attributes(strength=4, agility=4),
        traits=(Trait(name="Armed Combat", rank=3),),
        weapons=kw.pop("weapons", (AXE,)),
        **kw,
    )


def bo(**kw: Any) -> Character:
    """Melee Attack 3 (d8) + Armed Combat 2 (d6); Defence (3 + 3) / 2 = 3; Initiative 3 (d8); Strength 3: no
    damage bonus; Dodges 3, Flesh Wounds 3, Health 18."""
    return Character(
        name="Bo",
        attributes=Attributes(),
        traits=(Trait(name="Armed Combat", rank=2),),
        weapons=kw.pop("weapons", (CLUB,)),
        **kw,
    )


def test_a_first_round_asks_the_dice_what_the_book_says() -> None:
    """Round 1: Initiative (Ann d8, Bo d8); Ann ahead, so Bo (slower) declares and acts first (The Declaration
    Round; The Action Round). Bo's attack: d8 + d6 against TD 8, a miss. Ann's: d10 + d8 against TD 8, a hit; the
    Axe's d6 shows 4, +1 for Strength 4: 5 damage, 3 Dodges then 2 Flesh Wounds (Wounds)."""
    st = ENG.start([[ann()], [bo()]])
    st, ev, drawn = play(st, [Order((0, 1)), FAIL, hit(), Damage(4)])
    kinds = [type(e) for e in drawn]
    assert kinds == [InitiativeRoll, PoolRoll, PoolRoll, DamageRoll]
    init, bo_attack, ann_attack, dmg = drawn
    assert init.names == ("Ann", "Bo") and [p.ranks for p in init.pools] == [(3,), (3,)]
    assert (bo_attack.dice, bo_attack.td, bo_attack.label) == ((8, 6), 8, "Bo attack")
    assert (ann_attack.dice, ann_attack.td, ann_attack.label) == ((10, 8), 8, "Ann attack")
    assert bo_attack.also == () and ann_attack.die_modifier == 0
    assert (dmg.expr, dmg.label) == ("d6", "Ann damage")
    b = st.get("Bo").vitals
    assert (b.dodges, b.flesh_wounds, b.health) == (0, 1, 18)
    assert [e.text for e in ev if e.kind == "declare"] == ["Bo declares: attack on Ann.", "Ann declares: attack on Bo."]
    assert [e.text for e in ev if e.kind == "attack"] == [
        "Bo attacks Ann with Club: pool d8+d6 vs TD 8 -> failure.",
        "Ann attacks Bo with Axe: pool d10+d8 vs TD 8 -> success x1.",
    ]
    assert [e.text for e in ev if e.kind == "damage"] == [
        "Axe deals 4 +1 Strength = 5 damage to Bo (3 dodges, 2 flesh wounds). Bo is now at Flesh Wounds."
    ]
    assert st.round == 1 and not st.over and st.order == ("Ann", "Bo")


def dying(state: FightState, fid: str, checks: int, *, blunt: bool = False) -> FightState:
    """``fid`` below 0 Health, so unconscious and dying (Unconsciousness; Dying), ``checks`` dying checks failed."""
    fs = []
    for f in state.fighters:
        if f.id == fid:
            v = f.vitals.model_copy(
                update={"dodges": 0, "flesh_wounds": 0, "health": -2, "dying": True, "unconscious": True}
            )
            f = f.model_copy(update={"vitals": v.model_copy(update={"dying_checks": checks}), "last_blow_blunt": blunt})
        fs.append(f)
    return state.model_copy(update={"fighters": tuple(fs)})


def test_a_dying_check_that_passes_stabilises() -> None:
    """Dying: 'in the next turn' a Stamina check against TD 6 (Bo's Stamina 3: a d8), before Initiative; success
    stabilises. Nobody on Bo's side stands: Ann's side wins the fight at the round's end."""
    st = dying(ENG.start([[ann()], [bo()]]), "Bo", 0)
    st, ev, drawn = play(st, [Judged("success"), Order((0, 1))])
    check = drawn[0]
    assert (type(check), check.dice, check.td, check.label) == (PoolRoll, (8,), 6, "dying check")
    assert type(drawn[1]) is InitiativeRoll
    v = st.get("Bo").vitals
    assert v.stabilised and not v.dying and not v.dead
    assert next((e.kind, e.text) for e in ev if e.actor == "Bo") == ("dying", "Bo stabilises (Stamina rank 3).")
    assert st.over and st.winner == 0
    assert ev[-1].text == "The fight is over: side A (Ann) wins."


def test_a_dying_check_that_fails_adds_to_the_penalty() -> None:
    """Dying: a failed check leaves the character dying, the next with 'a cumulative -1 penalty to their rank':
    Stamina 3 less one failure is rank 2, a d6."""
    st = dying(ENG.start([[ann()], [bo()]]), "Bo", 1)
    st, ev, drawn = play(st, [FAIL, Order((0, 1))])
    assert drawn[0].dice == (6,)
    v = st.get("Bo").vitals
    assert v.dying and v.dying_checks == 2 and not v.stabilised
    assert ("dying", "Bo fails to stabilise (Stamina rank 2).") in [(e.kind, e.text) for e in ev]


def test_a_dying_fighter_out_of_checks_dies_or_falls_into_a_coma() -> None:
    """Death: when the cumulative penalty has brought Stamina to rank 0 the character dies (no roll); the house
    rule coma_instead_of_death: 'always', or 'blunt' when the last blow was from a blunt weapon."""
    base = ENG.start([[ann()], [bo()]])
    st, ev, drawn = play(dying(base, "Bo", 3), [Order((0, 1))])
    assert [type(e) for e in drawn] == [InitiativeRoll]
    assert st.get("Bo").vitals.dead and not st.get("Bo").vitals.dying
    assert ("death", "Bo dies.") in [(e.kind, e.text) for e in ev]
    for rule, blunt, coma in (("always", False, True), ("blunt", True, True), ("blunt", False, False)):
        hr = BlyssHouseRules(coma_instead_of_death=rule)
        start = ENG.start([[ann()], [bo()]], house_rules=hr)
        st, ev, _ = play(dying(start, "Bo", 3, blunt=blunt), [Order((0, 1))])
        v = st.get("Bo").vitals
        assert (v.coma, v.dead, v.dying) == (coma, not coma, False), (rule, blunt)
        if coma:
            assert ("dying", "Bo falls into a coma.") in [(e.kind, e.text) for e in ev]


def test_a_defence_is_a_contest_and_a_won_defence_gives_a_counterattack() -> None:
    """Bo (defensive) is faster, so he declares after Ann's attack on him and Defends (Defending): Defence 3 +
    Armed Combat 2 (d8 + d6) against Ann's rank (4 + 3 = 7); Ann's attack meets TD 8 and is judged against Bo's
    rank (3 + 2 = 5) too. Bo's two successes best Ann's one: no hit, and Bo may counterattack at TD 8 - 2 = 6
    (Counterattacking), which he does next round; having defended, he does not also attack this round."""
    st = ENG.start([[ann()], [bo()]], options={"tactic": {"Bo": "defensive"}})
    ann_hit = Judged("success", best=9, also=((True, 1),), judgement=Judgement("success", 1, 0, 0, 0))
    st, ev, drawn = play(st, [Order((1, 0)), ann_hit, Judged("success", 2)])
    _, attack, defence = drawn
    assert (attack.dice, attack.td, attack.also) == ((10, 8), 8, (5,))
    assert (defence.dice, defence.td, defence.label) == ((8, 6), 7, "Bo defend")
    assert [e.text for e in ev if e.kind == "declare"] == ["Ann declares: attack on Bo.", "Bo declares: defend on Ann."]
    assert [e.text for e in ev if e.kind == "attack"] == [
        "Ann attacks Bo with Axe: pool d10+d8 vs TD 8 -> success x1. Bo defends successfully (success x2 vs TD 7 "
        "against 1 attack success(es) vs TD 5). Bo may counterattack at TD -2."
    ]
    assert st.get("Bo").counter_ready and st.get("Bo").vitals.dodges == 3
    # round 2: Ann (slower) attacks first and misses; Bo counterattacks at TD 6
    st, ev, drawn = play(st, [FAIL, FAIL])
    assert [d.td for d in drawn] == [8, 6] and drawn[1].label == "Bo attack"
    assert "Bo attacks Ann with Club: pool d8+d6 vs TD 6 (counterattack TD -2) -> failure." in [e.text for e in ev]
    assert not st.get("Bo").counter_ready


def test_a_defence_bested_lets_the_blow_through() -> None:
    """The attacker bests the defender in the Contest (two successes to one) and met the Attack TD: it hits."""
    st = ENG.start([[ann()], [bo()]], options={"tactic": {"Bo": "defensive"}})
    ann_hit = Judged("success", best=9, also=((True, 2),), judgement=Judgement("success", 2, 0, 0, 0))
    st, ev, _ = play(st, [Order((1, 0)), ann_hit, Judged("success", 1), Damage(2)])
    text = next(e.text for e in ev if e.kind == "attack")
    assert text.endswith("Bo defends (success x1 vs TD 7) but is bested (2 to 1).")
    assert st.get("Bo").vitals.dodges == 0 and not st.get("Bo").counter_ready  # 2 + 1 = 3 damage: 3 Dodges


def test_a_blow_the_armour_soaks_keeps_the_armour_roll() -> None:
    """Armour Rating: Ann's Mail (AR 4: a d10) against Bo's best attack die 7; its 9 beats it and soaks the blow;
    the armour's roll is kept with the event."""
    from storymaster.dice import DiceRng, roll_pool

    mail = Armour(name="Mail", cover=("T",), armour_rating=4)
    st = ENG.start([[ann(armour=(mail,))], [bo()]])
    rec = roll_pool((10,), DiceRng(0), label="Ann armour")
    st, ev, drawn = play(st, [Order((0, 1)), hit(best=7), Damage(2), Soak(True, 9, rec), FAIL])
    armour = drawn[3]
    assert (type(armour), armour.dice, armour.against, armour.label) == (ArmourRoll, (10,), 7, "Ann armour")
    e = next(e for e in ev if e.kind == "armour")
    assert e.text == "Ann: Club deals 2 = 2 damage; Mail (AR 4) rolls 9 against 7 and soaks it all."
    assert e.rolls == (rec,) and e.data == {"soaked": True, "damage": 2}
    assert st.get("Ann").vitals.dodges == 4


def test_a_knockout_weapon_rolls_its_chance_after_the_blow() -> None:
    """Unconsciousness: a knockout chance (the Cosh's rank 3: a d8) rolled against TD 6 after a blow that leaves
    the target standing; its success knocks them out."""
    cosh = Weapon(name="Cosh", damage="d4", skill="Armed Combat", blunt=True, knockout_rank=3)
    st = ENG.start([[ann()], [bo(weapons=(cosh,))]])
    st, ev, drawn = play(st, [Order((0, 1)), hit(best=8), Damage(1), Judged("success")])
    ko = drawn[-1]
    assert (ko.dice, ko.td, ko.label) == ((8,), 6, "Bo knockout")
    assert st.get("Ann").vitals.unconscious and st.get("Ann").last_blow_blunt
    assert "Knockout chance (3) vs TD 6: Ann is knocked out." in [e.text for e in ev]
    assert st.over and st.winner == 1  # Ann, out cold, cannot act: Bo's side is the one standing


def test_an_unarmed_defender_evades() -> None:
    """Evading: 'can be made without a weapon'; the pool is Agility (3: a d8) and an appropriate trait (none
    here), against Ann's rank 7. An armed defender Defends instead (above)."""
    st = ENG.start([[ann()], [bo(weapons=())]], options={"tactic": {"Bo": "defensive"}})
    ann_hit = Judged("success", best=9, also=((True, 1),), judgement=Judgement("success", 1, 0, 0, 0))
    st, ev, drawn = play(st, [Order((1, 0)), ann_hit, FAIL, Damage(1)])
    assert [e.text for e in ev if e.kind == "declare"][1] == "Bo declares: evade on Ann."
    assert st.get("Bo").vitals.dodges == 1  # the evasion failed: 1 + 1 (Strength 4) damage
    assert (drawn[2].dice, drawn[2].td, drawn[2].label) == ((8,), 7, "Bo evade")
    assert drawn[1].also == (3,)  # Ann's attack is judged against Bo's Agility rank too


def test_aiming_then_attacking_with_the_aim() -> None:
    """Aiming: Dexterity + Intelligence (3 + 3: d8 + d8) at TD 8; each success is a rank on next round's Attack:
    Melee Attack 4 + 2 = 6 (d12 + d4) with Armed Combat 3 (d8). The aim is used up by the attack."""
    st = ENG.start([[ann()], [bo()]], options={"tactic": {"Ann": "aim"}})
    st, ev, drawn = play(st, [Order((0, 1)), FAIL, Judged("success", 2)])
    aim = drawn[2]
    assert (aim.dice, aim.td, aim.label) == ((8, 8), 8, "Ann aim")
    assert "Ann takes aim at Bo: 2 success(es) on Dexterity + Intelligence vs TD 8 (+2 rank(s) next round)." in [
        e.text for e in ev
    ]
    assert st.get("Ann").aim_bonus == 2 and st.get("Ann").aimed_this_round == 0
    st, ev, drawn = play(st, [FAIL, FAIL])
    assert (drawn[1].dice, drawn[1].td) == ((12, 4, 8), 8)
    assert "Ann attacks Bo with Axe: pool d12+d4+d8 vs TD 8 (aim +2 rank(s)) -> failure." in [e.text for e in ev]
    assert st.get("Ann").aim_bonus == 0


def test_an_aim_that_gains_nothing_is_tried_again() -> None:
    st = ENG.start([[ann()], [bo()]], options={"tactic": {"Ann": "aim"}})
    st, ev, _ = play(st, [Order((0, 1)), FAIL, FAIL])
    assert "Ann takes aim at Bo: 0 success(es) on Dexterity + Intelligence vs TD 8 - nothing gained." in [
        e.text for e in ev
    ]
    st, ev, drawn = play(st, [FAIL, FAIL])
    assert drawn[1].label == "Ann aim"


def test_an_aimed_called_shot() -> None:
    """Aiming at a location is a Called Shot: aiming at the head is TD 12, and the aimed attack at the head is TD
    12 too (Aiming); without aim it would be 14 (Attacking)."""
    st = ENG.start([[ann()], [bo()]], options={"tactic": {"Ann": "aim"}, "called_shot": {"Ann": "head"}})
    st, ev, drawn = play(st, [Order((0, 1)), FAIL, Judged("success", 1)])
    assert drawn[2].td == 12 and st.get("Ann").aim_called
    st, ev, drawn = play(st, [FAIL, FAIL])
    assert drawn[1].td == 12 and drawn[1].label == "Ann attack"
    assert any(e.text.startswith("Ann attacks Bo (head) with Axe:") for e in ev)


def test_closing_the_distance() -> None:
    """Movement: 30 ft at Average Agility (Bo, 3), +3 ft a rank above (Ann, 4: 33 ft). Neither has a ranged weapon,
    so both move; slower first: 40 - 30 = 10 ft, then 10 - 33: 0 ft apart."""
    st = ENG.start([[ann()], [bo()]], options={"distance": 40})
    st, ev, _drawn = play(st, [Order((0, 1))])
    assert [e.text for e in ev if e.kind == "move"] == [
        "Bo moves 30 ft; the sides are now 10 ft apart.",
        "Ann moves 33 ft; the sides are now 0 ft apart.",
    ]
    assert st.distance == 0 and [e.data for e in ev if e.kind == "move"] == [{"distance": 10}, {"distance": 0}]
    assert ev[0].text.startswith("Initiative: Ann > Bo") and ev[0].data == {"order": ["Ann", "Bo"]}


def test_recovering_a_dropped_weapon_takes_the_action() -> None:
    """Equipment Use: a round to ready a dropped weapon; Bo declares it and spends his action on it."""
    st = ENG.start([[ann()], [bo()]])
    st = st.model_copy(
        update={"fighters": (st.fighters[0], st.fighters[1].model_copy(update={"weapon_dropped": True}))}
    )
    st, ev, drawn = play(st, [Order((0, 1)), FAIL])
    assert [type(d) for d in drawn] == [InitiativeRoll, PoolRoll] and drawn[1].label == "Ann attack"
    assert "Bo recovers their Club (Equipment Use: a round to ready it)." in [e.text for e in ev]
    assert not st.get("Bo").weapon_dropped and st.get("Bo").acted


def test_a_stand_off_at_the_round_cap_and_nobody_left_standing() -> None:
    st = ENG.start([[ann()], [bo()]], house_rules=BlyssHouseRules(max_rounds=1))
    st, ev, _ = play(st, [Order((0, 1)), FAIL, FAIL])
    assert st.over and st.winner is None
    assert ev[-1].text == "No winner after 1 rounds: a stand-off." and ev[-1].data == {"winner": None}
    # both dying, both out of checks: both die at the round's start
    both = dying(dying(ENG.start([[ann()], [bo()]]), "Ann", 3), "Bo", 3)
    st, ev, _ = play(both, [Order((0, 1))])
    assert st.over and st.winner is None and ev[-1].text == "The fight is over: nobody is left standing."
    assert [e.text for e in ev if e.kind == "declare"] == []


def test_the_light_state_round_trips() -> None:
    """The round's light state holds everything that changes in a fight: written back, the engine's state is the
    same, mid-fight declarations and targets included."""
    st = ENG.start([[ann()], [bo()]], options={"tactic": {"Bo": "defensive"}})
    ann_hit = Judged("success", best=9, also=((True, 1),), judgement=Judgement("success", 1, 0, 0, 0))
    st, _, _ = play(st, [Order((1, 0)), ann_hit, Judged("success", 2)])
    assert from_state(to_state(st), st) == st
    assert st.get("Bo").declared.kind == "defend" and st.get("Bo").declared.target == "Ann"


def test_a_beat_that_leaves_nobody_to_act_ends_the_round() -> None:
    """play_beat: one fighter's action, the round's end in the same beat when nobody after them can act. Bo
    (slower) acts first and drops Ann (25 points: 4 Dodges, 3 Flesh Wounds, 18 Health) with 40 damage: the first
    beat is the round's last, and side B wins."""
    from storymaster.systems.blyss.round import play_beat

    st = ENG.start([[ann()], [bo()]])
    ch = Recorder([Order((0, 1)), hit(best=4), Damage(40)])
    ev: list = []
    rs, cursor = play_beat(to_state(st), 0, Roster(st), ch, ev)
    assert cursor == 0 and rs.over and rs.winner == 1 and not ch.values
    assert ev[-1].text == "The fight is over: side B (Bo) wins." and ev[-1].data == {"winner": 1}
    ann_now = rs.fighters[0]
    assert ann_now.health == 18 - 33 and ann_now.dying and ann_now.unconscious
    assert ann_now.last_blow_blunt  # the Club is blunt


def test_a_drawn_defence_goes_to_the_defender_unless_rolled_again() -> None:
    """Defending turns the attack into a Contest; equal successes are a draw, which stops the attack (house rule
    defence_draw 'defender', the default) or is rolled again, both pools ('reroll'): Ann's d10 + d8 against Bo's
    rank 5, Bo's d8 + d6 against Ann's rank 7."""
    ann_hit = Judged("success", best=9, also=((True, 1),), judgement=Judgement("success", 1, 0, 0, 0))
    st = ENG.start([[ann()], [bo()]], options={"tactic": {"Bo": "defensive"}})
    st2, _, drawn = play(st, [Order((1, 0)), ann_hit, Judged("success", 1)])
    assert len(drawn) == 3 and st2.get("Bo").vitals.dodges == 3 and st2.get("Bo").counter_ready
    hr = BlyssHouseRules(defence_draw="reroll")
    st = ENG.start([[ann()], [bo()]], options={"tactic": {"Bo": "defensive"}}, house_rules=hr)
    again = [Judged("success", 2), Judged("success", 1)]
    st2, _ev, drawn = play(st, [Order((1, 0)), ann_hit, Judged("success", 1), *again, Damage(1)])
    a2, d2 = drawn[3], drawn[4]
    assert (a2.dice, a2.td, a2.label) == ((10, 8), 5, "Ann contest re-roll")
    assert (d2.dice, d2.td, d2.label) == ((8, 6), 7, "Bo contest re-roll")
    assert st2.get("Bo").vitals.dodges == 1  # Ann's 2 successes to 1: the blow lands, 1 + 1 damage


def test_a_screw_up_event_says_whether_the_weapon_is_lost() -> None:
    for kind, lost in (("screw-up", False), ("critical screw-up", True)):
        st = ENG.start([[ann()], [bo()]])
        _, ev, _ = play(st, [Order((0, 1)), Judged(kind, screw_ups=1), FAIL])
        e = next(e for e in ev if e.kind == "screw-up")
        assert e.data == {"outcome": kind, "weapon_lost": lost} and e.actor == "Bo"


def test_armour_that_fails_to_soak_and_a_body_blow_by_choice() -> None:
    """Armour Rating: Ann's Mail (AR 4, a d10) rolls 3 against Bo's 7: not enough. With armour_choice 'body' the
    blow goes to her body (4 Dodges, then Flesh Wounds, then Health) although it is more than her Dodges; with
    'auto' the armour takes a blow bigger than the Dodges left and loses a life."""
    mail = Armour(name="Mail", cover=("T",), armour_rating=4)
    script = [Order((0, 1)), hit(best=7), Damage(10), Soak(False, 3), FAIL]
    st = ENG.start([[ann(armour=(mail,))], [bo()]], options={"armour_choice": {"Ann": "body"}})
    st2, ev, _ = play(st, script)
    v = st2.get("Ann").vitals
    assert (v.dodges, v.flesh_wounds, v.health) == (0, 0, 15) and st2.get("Ann").armour_lives == (3,)
    assert next(e.text for e in ev if e.kind == "damage") == (
        "Club deals 10 = 10 damage; Mail (AR 4) rolls 3 against 7, not enough to soak; it hits Ann (4 dodges, "
        "3 flesh wounds, 3 health). Ann is now at Flesh Wounds."
    )
    st = ENG.start([[ann(armour=(mail,))], [bo()]])
    st2, ev, _ = play(st, script)
    assert st2.get("Ann").armour_lives == (2,) and st2.get("Ann").vitals.dodges == 4
    assert next(e.text for e in ev if e.kind == "armour") == (
        "Ann: Club deals 10 = 10 damage; Mail (AR 4) rolls 3 against 7, not enough to soak; the armour takes the "
        "blow and is damaged (2/3 lives left)."
    )


def test_initiative_certain_for_the_higher_rank() -> None:
    """Initiative rank breaks every tie (ruling 7): rank 10 (d12 + d12) against rank 0 (d0, no dice) always goes
    first, so the only outcome is that order, with a positive chance."""
    from storymaster.systems.blyss.checks import Pool

    ev = InitiativeRoll(
        ("A", "B"), (Pool(ranks=(10,)), Pool(ranks=(0,))), BlyssHouseRules(initiative_final_tie="sm_order")
    )
    out = ev.outcomes()
    assert [o.order for _, o in out] == [(0, 1)] and all(p > 0 for p, _ in out)


def hurt(state: FightState, fid: str, **vitals: int) -> FightState:
    fs = tuple(
        f.model_copy(update={"vitals": f.vitals.model_copy(update=vitals)}) if f.id == fid else f
        for f in state.fighters
    )
    return state.model_copy(update={"fighters": fs})


def test_a_wounded_attacker_rolls_with_the_wound_levels_penalty() -> None:
    """Table 2-03: Flesh Wounds, -1 to all rolls (each die); Light Wounds (a third of Health lost, rounded up: 6
    of 18), -1 rank: Ann's Melee Attack 4 and Armed Combat 3 lose the rank from the highest first (3 + 3: d8 +
    d8). The attack's log line names the level."""
    st = hurt(ENG.start([[ann()], [bo()]]), "Ann", dodges=0, flesh_wounds=1)
    _, ev, drawn = play(st, [Order((0, 1)), FAIL, FAIL])
    assert (drawn[2].dice, drawn[2].die_modifier) == ((10, 8), -1)
    assert "Ann attacks Bo with Axe: pool d10+d8 vs TD 8 (Flesh Wounds -1 per die) -> failure." in [e.text for e in ev]
    st = hurt(ENG.start([[ann()], [bo()]]), "Ann", dodges=0, flesh_wounds=0, health=12)
    _, ev, drawn = play(st, [Order((0, 1)), FAIL, FAIL])
    assert (drawn[2].dice, drawn[2].die_modifier) == ((8, 8), 0)
    assert "Ann attacks Bo with Axe: pool d8+d8 vs TD 8 (Light Wounds -1 rank(s)) -> failure." in [e.text for e in ev]


def test_the_knockout_roll_is_kept_with_its_event() -> None:
    from storymaster.dice import DiceRng, roll_pool

    cosh = Weapon(name="Cosh", damage="d4", skill="Armed Combat", blunt=True, knockout_rank=3)
    st = ENG.start([[ann()], [bo(weapons=(cosh,))]])
    rec = roll_pool((8,), DiceRng(0), label="Bo knockout")
    _, ev, _ = play(st, [Order((0, 1)), hit(best=8), Damage(1), Judged("failure", record=rec), FAIL])
    ko = next(e for e in ev if e.kind == "knockout")
    assert ko.rolls == (rec,) and ko.data == {"knocked_out": False}
    assert ko.text == "Knockout chance (3) vs TD 6: Ann stays up."


def test_a_heavy_blow_takes_two_lives_from_the_armour() -> None:
    """House rule armour_heavy_blow 5: a blow of 5 damage or more takes two of the armour's lives, a smaller one
    takes one (Armour Rating: one life a blow by the book)."""
    mail = Armour(name="Mail", cover=("T",), armour_rating=4)
    hr = BlyssHouseRules(armour_heavy_blow=5)
    for damage, lives in ((4, 2), (5, 1), (6, 1)):
        st = ENG.start([[ann(armour=(mail,))], [bo()]], options={"armour_choice": {"Ann": "armour"}}, house_rules=hr)
        st, _, _ = play(st, [Order((0, 1)), hit(best=7), Damage(damage), Soak(False, 3), FAIL])
        assert st.get("Ann").armour_lives == (lives,), damage
