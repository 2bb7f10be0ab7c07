"""The fight engine and the round at their edges (issue 14's mutation survivors of combat.py and round.py).

Every expected value is worked out by hand from the book (Combat Mechanics, Resolving Melee Attacks,
Initiative) or from the house rule's description, never read off the program's output.
"""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from storymaster.dice import DiceRng, RollRecord
from storymaster.errors import CombatError
from storymaster.odds import distribution
from storymaster.systems.philsys import SYSTEM, combat
from storymaster.systems.philsys.character import Character, Stats, Weapon
from storymaster.systems.philsys.checks import MeleeAttack
from storymaster.systems.philsys.combat import Fighter, FightOptions, PhilsysCombat, body, melee_options, setup
from storymaster.systems.philsys.options import PhilsysHouseRules
from storymaster.systems.philsys.round import (
    Body,
    Bout,
    Contest,
    Die,
    Opposed,
    Roll,
    best_attack,
    choose,
    decided,
    end_of_round,
    end_of_round_v,
    initiative_pmf,
    play_round,
    play_turn,
    roll_initiative,
)

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
    engine = PhilsysCombat()
    state = engine.start(sides=[[brute("A")], [brute("B")]], house_rules=PhilsysHouseRules(max_rounds=3))
    assert state.house_rules.max_rounds == 3
    with pytest.raises(TypeError):
        engine.start([[brute("A")], [brute("B")]], PhilsysHouseRules())  # type: ignore[misc]


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


def test_the_setup_is_kept_for_the_fights_next_rounds(monkeypatch):
    """Another fight's setup in between does not push this fight's out; the first fight of a fresh process
    (nothing kept yet) too."""
    monkeypatch.setattr(combat, "_SETUPS", {})
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


# --- the round (round.py), played with scripted draws -----------------------------------------


class Script:
    """A chance that hands out the given values in order and keeps every event drawn."""

    def __init__(self, values, *, narrate: bool = False) -> None:
        self.values = list(values)
        self.events: list = []
        self.narrate = narrate

    def draw(self, event):
        self.events.append(event)
        return self.values.pop(0)


def rec(total: int, label: str = "") -> RollRecord:
    return RollRecord("1d20", total, (), "script", "edges", 0, 1, 1, label)


def fighter(name: str, hp: int, **extra) -> Character:
    """No weapon, Unarmed Combat 1, a vest of AC 6 (stops 2); STR 2."""
    data = {
        "name": name,
        "stats": {"COU": 2, "AGI": 3, "INT": 1, "STR": 2, "STA": 2},
        "skills": [{"name": "Unarmed Combat", "category": "unarmed", "rank": 1}],
        "current": {"hp": hp},
        "equipment": {"armor": {"name": "Vest", "ac": 6}},
    }
    data.update(extra)
    return Character.model_validate(data)


def caster(name: str, hp: int = 30, mp: int = 9, **extra) -> Character:
    """MAG 3; Mend (heal 2+1d4, 4 MP), Bolt (spell 3+1d4, 5 MP), Bash (tech 2+1d6, 4 TP and 1 HP); a buckler
    of AC 6; STA 7 (an unconscious ally of this build wakes 10-7 = 3 rounds after being healed)."""
    data = {
        "name": name,
        "stats": {"COU": 2, "AGI": 3, "INT": 2, "WIS": 2, "STR": 1, "STA": 7, "MAG": 3},
        "abilities": [
            {"name": "Mend", "cost": {"mp": 4}, "effect": {"kind": "heal", "damage": "2+1d4"}},
            {"name": "Bolt", "cost": {"mp": 5}, "effect": {"kind": "attack", "damage": "3+1d4"}},
            {
                "name": "Bash",
                "cost": {"tp": 4, "hp": 1},
                "effect": {"kind": "attack", "damage": "2+1d6", "magical": False},
            },
        ],
        "current": {"hp": hp, "mp": mp, "tp": 4},
        "equipment": {"shield": {"name": "Buckler", "ac": 6, "pa": 2, "at": -1}},
    }
    data.update(extra)
    return Character.model_validate(data)


def fight(sides, hr: PhilsysHouseRules | None = None, options=None, order=None):
    st = ENGINE.start(sides, house_rules=hr or PhilsysHouseRules(), options=options)
    st = st.model_copy(update={"order": tuple(order or range(len(st.fighters))), "round": 1})
    return setup(st), Bout(st.order, tuple(body(f) for f in st.fighters))


def _faces(expression: str) -> list[int]:
    """Every equally likely total of 'K+NdS' (or 'NdS'), by brute force."""
    const, _, dice = expression.rpartition("+")
    n, s = (int(x) for x in dice.split("d"))
    return [int(const or 0) + sum(f) for f in product(range(1, s + 1), repeat=n)]


def test_best_attack_is_the_best_expected_damage_after_armour_by_brute_force():
    """Every d20 pair (or the attacker's d20 against the bare PA when the parry is used up) and every face
    of the damage dice: a hit deals damage - armour, a critical hit (margin >= the critical margin) twice the
    damage - armour (Resolving Melee Attacks). Every face here exceeds the armour, so no blow is stopped."""
    choices = [("thrust", "8+1d6"), ("slash", "10+1d6"), ("chop", "8+2d6")]
    pen = {"thrust": 0, "slash": -3, "chop": -6}  # Resolving Melee Attacks: slash -3, chop -6
    red = 4
    picks = set()
    for hr in (PhilsysHouseRules(), PhilsysHouseRules(critical_margin=1), PhilsysHouseRules(critical_margin=8)):
        cm = hr.critical_margin
        for at, pa, parry in product((0, 6, 14), (2, 8), (True, False)):
            worth = []
            for attack, expression in choices:
                faces = _faces(expression)
                mean_blow = Fraction(sum(faces), len(faces))
                total = Fraction(0)
                for a in range(1, 21):
                    for d in range(1, 21) if parry else [None]:
                        margin = a + at + pen[attack] - (pa + (d or 0))
                        p = Fraction(1, 400 if parry else 20)
                        if margin >= cm:
                            total += p * (2 * mean_blow - red)
                        elif margin > 0:
                            total += p * (mean_blow - red)
                worth.append(total)
            best = choices[worth.index(max(worth))]  # the first on ties
            assert best_attack(choices, at, pa, parry, red, hr) == best, (hr.critical_margin, at, pa, parry)
            picks.add(best[0])
    assert picks == {"thrust", "slash", "chop"}  # every choice is the best somewhere: the cases tell them apart


def test_an_unparried_blow_rolls_only_the_attackers_die():
    """The parry roll used up: AT+d20 against the bare PA. AT 20, PA 10: margin d20+10, a critical hit from a
    margin of 15 (d20 >= 5), a hit below."""
    hr = PhilsysHouseRules()
    for seed in range(30):
        c = Opposed(MeleeAttack(at=20, pa=10, parry=False), hr, ("a", "d"), False).sample(DiceRng(seed, "unparried"))
        assert c.defence is None
        assert c.result == ("critical hit" if c.attack.total + 10 >= 15 else "hit"), c.attack.total


def test_initiative_sums_come_from_2d6_only():
    """2d6 gives 2..12: with bonuses 0 and 11 the first fighter's best (12) never reaches the second's worst
    (13), so the second always goes first, even when every tie is re-rolled."""
    for hr in (PhilsysHouseRules(), PhilsysHouseRules(initiative_ties="reroll")):
        odds = {ini.order: p for p, ini in initiative_pmf((0, 11), hr)}
        assert odds == {(1, 0): pytest.approx(1.0, abs=1e-15)}


def test_initiative_needs_a_name_per_fighter():
    with pytest.raises(ValueError):
        roll_initiative([1, 2], DiceRng(1), PhilsysHouseRules(), ["Only one"])


def test_a_healer_on_melee_tactics_does_not_heal():
    """Tactics 'melee': the healer attacks even with an ally at a quarter of max HP or less."""
    su, bout = fight([[caster("Ann"), fighter("Cy", 1)], [fighter("Bo", 30)]], options={"tactics": {"Ann": "melee"}})
    ch = Script([Contest("miss")])
    play_turn(su, bout.bodies, 0, ch)
    assert len(ch.events) == 1 and isinstance(ch.events[0].check, MeleeAttack)


def test_a_healed_ally_comes_round_after_10_minus_sta_rounds():
    """Taking Damage: healed to positive HP, an unconscious character waits 10-STA rounds (STA 7: 3). Mend
    rolls 5 on Dee at -2 HP: 3 HP, awake after 3 rounds; the log says so."""
    su, bout = fight(
        [[caster("Ann"), caster("Dee", hp=-2)], [fighter("Bo", 30, stats={"AGI": -40})]],
        hr=PhilsysHouseRules(critical_failure_effect="none"),
    )
    log: list = []
    ch = Script([Die(5, rec(5)), Contest("critical failure", rec(1), rec(20))], narrate=True)
    after = play_round(su, bout, ch, 1, log)
    dee = after.bodies[1]
    # round 1 itself is the first of the 3 (test_combat: healed in round 1, awake at the end of round 3)
    assert (dee.hp, dee.unconscious, dee.wake_in, after.bodies[0].mp) == (3, True, 2, 9 - 4)
    heal = next(e for e in log if e.kind == "heal")
    assert "Dee will come round in 3 round(s)." in heal.text
    # a conscious ally healed gets no such sentence
    su, bout = fight([[caster("Ann"), fighter("Dee", 5)], [fighter("Bo", 30)]])
    log = []
    misses = [Contest("miss", rec(1), rec(20)), Contest("miss", rec(1), rec(20))]
    play_round(su, bout, Script([Die(3, rec(3)), *misses], narrate=True), 1, log)
    heal = next(e for e in log if e.kind == "heal")
    assert heal.text.endswith("+3 HP, now 8.")


def test_a_plain_hit_is_told_without_trailing_notes():
    """Ann's punch (STR 2 + Unarmed 1: (2+1)*2+1d6) rolls 9; Bo's vest (AC 6) stops 6//3 = 2: Bo takes 7 and
    nothing else happens to him (30 -> 23 HP, far above critical health)."""
    su, bout = fight(
        [[fighter("Ann", 30)], [fighter("Bo", 30)]], options={"attack": {"side0": "punch", "side1": "punch"}}
    )
    log: list = []
    ch = Script([Contest("hit", rec(15), rec(3)), Die(9, rec(9)), Contest("miss", rec(2), rec(19))], narrate=True)
    after = play_round(su, bout, ch, 1, log)
    assert after.bodies[1].hp == 23
    blow = next(e for e in log if e.kind == "melee" and e.actor == "Ann")
    assert blow.text.endswith(", armour stops 2, Bo takes 7.")
    assert blow.data["damage"] == 7 and blow.data["raw_damage"] == 9 and blow.data["hp"] == 23


def test_a_forced_attack_read_from_json_is_made():
    """Fight options arrive from JSON (the CLI, the web): the forced punch is the punch (STR 2 + rank 1)*2+1d6."""
    options = json.loads('{"attack": {"side0": "punch", "side1": "kick"}}')
    su, bout = fight([[fighter("Ann", 30)], [fighter("Bo", 30)]], options=options)
    ch = Script([Contest("hit"), Die(4)])
    after = play_turn(su, bout.bodies, 0, ch)
    assert sorted(_faces(ch.events[1].expression)) == [6 + f for f in range(1, 7)]
    assert after[1].hp == 30 - (4 - 2)


def test_a_shield_breaks_only_when_a_blow_exceeds_its_ac():
    """Equipment: a shield whose AC is exceeded by a blow's damage breaks (house rule shield_breaks). The
    buckler has AC 6: a raw 6 leaves it whole, a raw 7 breaks it."""
    hr = PhilsysHouseRules(shield_breaks=True)
    opts = {"attack": {"side0": "punch"}, "tactics": {"side1": "melee"}}
    for raw, broken in ((6, False), (7, True)):
        su, bout = fight([[fighter("Ann", 30)], [caster("Dee", mp=0)]], hr=hr, options=opts)
        after = play_turn(su, bout.bodies, 0, Script([Contest("hit"), Die(raw)]))
        assert after[1].shield_broken is broken and after[1].hp == 30 - raw


def test_a_tech_hits_on_a_won_roll_and_does_nothing_on_a_lost_one():
    """Ann has no MP, so her best affordable attack is the tech Bash (4 TP, 1 HP): it costs what it says, and
    only a won opposed roll rolls its damage (2+1d6), less Bo's armour (2)."""
    for result, bo_hp in (("success", 30 - (6 - 2)), ("failure", 30)):
        su, bout = fight([[caster("Ann", mp=0)], [fighter("Bo", 30)]])
        ch = Script([Contest(result), Die(6)] if result == "success" else [Contest(result)])
        after = play_turn(su, bout.bodies, 0, ch)
        assert not ch.values
        assert after[1].hp == bo_hp and (after[0].hp, after[0].tp) == (29, 0)


def test_a_resisted_spell_does_nothing_and_a_hit_deals_its_damage():
    """Bolt (5 MP, 3+1d4) on Bo: resisted, nothing but the MP paid; a hit rolling 6 takes 6 (a vest stops no
    spell)."""
    for result, bo_hp in (("resisted", 30), ("hit", 24)):
        su, bout = fight([[caster("Ann", mp=5)], [fighter("Bo", 30)]])
        ch = Script([Contest(result), Die(6)] if result == "hit" else [Contest(result)])
        after = play_turn(su, bout.bodies, 0, ch)
        assert not ch.values
        assert after[1].hp == bo_hp and after[0].mp == 0


def test_a_told_spell_needs_both_dice():
    su, bout = fight([[caster("Ann", mp=5)], [fighter("Bo", 30)]])
    with pytest.raises(AssertionError):
        play_round(su, bout, Script([Contest("resisted", rec(5), None)], narrate=True), 1, [])


def test_the_static_facts_cannot_be_changed():
    su, _ = fight([[caster("Ann")], [fighter("Bo", 30)]])
    with pytest.raises(dataclasses.FrozenInstanceError):
        su.specs[0].heals[0].mp = 0  # type: ignore[misc]


def test_the_log_tells_each_blow_as_the_book_classes_its_margin():
    """Resolving Melee Attacks: AT+d20 > PA+d20 hits (a tie goes to the defender); beaten by 15 or more, a
    critical hit (twice the damage) or a critical failure. The margin is the log's own two totals."""
    seen = set()
    for seed in range(8):
        state = ENGINE.start([[brute("A", at=6, STA=10)], [brute("B", pa=-6, STA=10)]])
        rng = DiceRng(seed, "told")
        for _ in range(3):
            if state.over:
                break
            state, events = ENGINE.step(state, rng)
            for e in events:
                if e.kind != "melee":
                    continue
                margin = e.data["attack_total"] - e.data["defence_total"]
                assert e.data["margin"] == margin
                if margin >= 15:
                    kind = "critical hit"
                    assert " Critical hit: " in e.text and f" doubled to {e.data['raw_damage']}," in e.text
                    assert e.data["raw_damage"] == 2 * e.rolls[-1].total
                elif margin > 0:
                    kind = "hit"
                    assert " Hit: " in e.text and "doubled" not in e.text
                elif margin <= -15:
                    kind = "critical failure"
                    assert "Critical failure!" in e.text
                else:
                    kind = "miss"
                    assert e.text.endswith(" Miss." if margin < 0 else " A tie goes to the defender: miss.")
                assert e.data["result"] == kind
                seen.add(kind)
    assert {"critical hit", "hit", "miss"} <= seen


def test_every_round_gives_a_defender_a_fresh_parry_roll():
    """Resolving Melee Attacks: one PA roll per defender per round, so a new round brings a new one."""
    su, bout = fight([[fighter("Ann", 30)], [fighter("Bo", 30)]], hr=PhilsysHouseRules(critical_failure_effect="none"))
    for _ in range(2):
        ch = Script([Contest("miss"), Contest("miss")])
        bout = play_round(su, bout, ch)
        assert [e.defender_rolls for e in ch.events] == [True, True]
        assert all(b.parried for b in bout.bodies)


def test_a_blow_into_critical_health_is_told():
    """Taking Damage: at 15 HP or less (the default threshold) a fighter is at critical health, -3/-3. A punch
    rolling 17 takes Bo from 30 to 15 through the vest (17 - 2)."""
    su, bout = fight([[fighter("Ann", 30)], [fighter("Bo", 30)]], options={"attack": {"side0": "punch"}})
    log: list = []
    ch = Script([Contest("hit", rec(15), rec(3)), Die(17, rec(17)), Contest("miss", rec(2), rec(19))], narrate=True)
    after = play_round(su, bout, ch, 1, log)
    assert after.bodies[1].hp == 15
    blow = next(e for e in log if e.kind == "melee" and e.actor == "Ann")
    assert blow.text.endswith("Bo takes 15. Bo is at critical health (-3/-3).")


def test_a_spell_is_told_as_a_hit_or_as_half_damage():
    """Bolt rolls 7 on Bo (no armour stops a spell): a hit takes 7; a near miss under the optional rule takes
    half, 3 (rounded down)."""
    hr = PhilsysHouseRules(near_miss_half_damage=True, critical_failure_effect="none")
    for result, verdict, taken in (("hit", "It hits", 7), ("half damage", "Half damage", 3)):
        su, bout = fight([[caster("Ann", mp=5)], [fighter("Bo", 30)]], hr=hr)
        log: list = []
        ch = Script([Contest(result, rec(12), rec(3)), Die(7, rec(7)), Contest("miss", rec(2), rec(19))], narrate=True)
        after = play_round(su, bout, ch, 1, log)
        assert after.bodies[1].hp == 30 - taken
        cast = next(e for e in log if e.kind == "ability")
        assert f" {verdict}: 3+1d4 rolls 7, Bo takes {taken}." in cast.text
        # MAttack INT+WIS+MAG = 2+2+3 = 7 against resistance 10 + COU*2 + INT = 10+4+1 = 15 (Magic Attacks)
        assert (cast.data["attack_total"], cast.data["resist_total"]) == (12 + 7, 3 + 15)


def test_an_attack_spell_that_can_deal_no_damage_is_never_chosen():
    """The automatic choice: an attack ability whose mean damage is 0 is not worth its cost; one dealing a
    sure 1 is."""
    for damage, chosen in (("0", ()), ("1", ("Spark",))):
        spark = {"name": "Spark", "cost": {"mp": 1}, "effect": {"kind": "attack", "damage": damage}}
        su, _ = fight([[caster("Ann", abilities=[spark])], [fighter("Bo", 30)]])
        assert tuple(m.ability.name for m in su.specs[0].spells) == chosen


def test_a_blow_rolling_below_zero_deals_nothing():
    """A punch at STR -5 (Unarmed 1: (-5+1)*2+1d6) can roll below 0: no damage, never healing."""
    weak = fighter("Ann", 30, stats={"STR": -5})
    bare = fighter("Bo", 30, equipment={})
    for total in (-3, 0):
        su, bout = fight([[weak], [bare]], options={"attack": {"side0": "punch"}})
        after = play_turn(su, bout.bodies, 0, Script([Contest("hit"), Die(total)]))
        assert after[1].hp == 30


def test_bleeding_goes_on_past_a_dead_fighter():
    """Taking Damage, optional rule: below 0 HP a fighter loses HP each round. A dead fighter first in the
    list does not stop the others bleeding."""
    hr = PhilsysHouseRules(bleeding=True, bleeding_rate=2)
    su, _ = fight([[fighter("Ann", 30)], [fighter("Bo", 30)]], hr=hr)
    dead = Body(-12, 0, 0, unconscious=True, dead=True)
    down = Body(-3, 0, 0, unconscious=True)
    assert end_of_round(su, (dead, down))[1].hp == -5


def test_a_fight_with_nobody_standing_is_decided():
    """Both sides down at once (a double knock-out, or both bleeding out at the end of a round): over."""
    su, _ = fight([[fighter("Ann", 30)], [fighter("Bo", 30)]])
    down = (Body(0, 0, 0, unconscious=True), Body(-12, 0, 0, unconscious=True, dead=True))
    assert decided(down, su.specs)
    assert not decided((Body(30, 0, 0), Body(30, 0, 0)), su.specs)
    assert decided((Body(30, 0, 0), down[1]), su.specs)


def archer(name: str, hp: int) -> Character:
    return Character.model_validate(
        {
            "name": name,
            "stats": {"COU": 1, "AGI": 4, "INT": 1, "STR": 2, "STA": 2},
            "current": {"hp": hp},
            "equipment": {"missile": {"name": "Bow", "accuracy": 8, "damage": "1d6+1"}},
        }
    )


def test_a_limb_shot_tells_whether_the_limb_is_disabled():
    """Resolving Ranged Attacks: a limb hit rolls a d6, 5 or 6 disables the limb."""
    for d6, words, disabled in ((5, "is disabled", 1), (4, "still works", 0)):
        su, bout = fight([[archer("Cy", 20)], [fighter("Bo", 30)]], options={"aim": {"side0": "limb"}})
        log: list = []
        ch = Script(
            [Contest("hit", rec(15), rec(3)), Die(4, rec(4)), Die(d6, rec(d6)), Contest("miss", rec(2), rec(19))],
            narrate=True,
        )
        after = play_round(su, bout, ch, 1, log)
        assert after.bodies[1].disabled_limbs == disabled
        shot = next(e for e in log if e.kind == "missile")
        assert f"The limb d6 shows {d6}: the limb {words}." in shot.text


def test_attack_spells_are_tried_best_first():
    """The automatic choice casts the affordable attack with the best mean damage: Strong (3+1d4, 5.5)
    before Weak (1d4, 2.5), whatever order the sheet lists them in."""
    weak = {"name": "Weak", "cost": {"mp": 1}, "effect": {"kind": "attack", "damage": "1d4"}}
    strong = {"name": "Strong", "cost": {"mp": 1}, "effect": {"kind": "attack", "damage": "3+1d4"}}
    su, _ = fight([[caster("Ann", abilities=[weak, strong])], [fighter("Bo", 30)]])
    assert tuple(m.ability.name for m in su.specs[0].spells) == ("Strong", "Weak")
    mend = {"name": "Mend", "cost": {"mp": 1}, "effect": {"kind": "heal", "damage": "1d4"}}
    cure = {"name": "Cure", "cost": {"mp": 1}, "effect": {"kind": "heal", "damage": "3+1d4"}}
    su, _ = fight([[caster("Ann", abilities=[mend, cure])], [fighter("Bo", 30)]])
    assert tuple(m.ability.name for m in su.specs[0].heals) == ("Cure", "Mend")


def test_armour_that_stops_every_blow_leaves_the_first_choice():
    """Every choice worth nothing (AC/3 = 100 stops even a doubled blow): the first listed is kept."""
    choices = [("chop", "8+2d6"), ("slash", "10+1d6"), ("thrust", "8+1d6")]
    for hr in (PhilsysHouseRules(), PhilsysHouseRules(critical_margin=1)):
        for at, pa, parry in product((0, 14), (2, 8), (True, False)):
            assert best_attack(choices, at, pa, parry, 100, hr) == choices[0]


def test_a_critical_hit_rolling_below_zero_deals_nothing():
    """Doubling a blow that rolled below 0 doubles nothing: 0 raw damage, 0 taken."""
    weak = fighter("Ann", 30, stats={"STR": -5})
    su, bout = fight([[weak], [fighter("Bo", 30, equipment={})]], options={"attack": {"side0": "punch"}})
    log: list = []
    ch = Script(
        [Contest("critical hit", rec(20), rec(1)), Die(-3, rec(-3)), Contest("miss", rec(2), rec(19))], narrate=True
    )
    after = play_round(su, bout, ch, 1, log)
    blow = next(e for e in log if e.kind == "melee" and e.actor == "Ann")
    assert (blow.data["raw_damage"], blow.data["damage"], after.bodies[1].hp) == (0, 0, 30)


def test_the_choice_needs_a_body_per_fighter():
    su, bout = fight([[caster("Ann"), fighter("Cy", 1)], [fighter("Bo", 30)]])
    with pytest.raises(ValueError):
        choose(su, bout.bodies[:2], 0)


def test_a_blow_over_the_shields_ac_breaks_it_or_dents_it_as_the_house_rule_says():
    """Equipment: a shield whose AC a blow exceeds 'may be damaged or even destroyed': destroyed under
    shield_breaks, dented (and kept) by default. A punch rolling 9 exceeds the buckler's AC 6."""
    for breaks, word in ((True, "breaks"), (False, "is dented")):
        hr = PhilsysHouseRules(shield_breaks=breaks, critical_failure_effect="none")
        opts = {"attack": {"side0": "punch"}, "tactics": {"side1": "melee"}}
        su, bout = fight([[fighter("Ann", 30)], [caster("Dee", mp=0)]], hr=hr, options=opts)
        log: list = []
        script = [Contest("hit", rec(15), rec(3)), Die(9, rec(9)), Contest("miss", rec(2), rec(19))]
        after = play_round(su, bout, Script(script, narrate=True), 1, log)
        blow = next(e for e in log if e.kind == "melee" and e.actor == "Ann")
        assert f"The blow exceeds Buckler's AC 6: the shield {word}." in blow.text
        assert after.bodies[1].shield_broken is breaks


# --- session 5: the round's survivors of the last pass ------------------------------------------


def test_a_missile_rolling_below_zero_deals_nothing_and_the_log_says_what_armour_stopped():
    """Resolving Ranged Attacks: the hit's damage, less what armour stops (Equipment: AC/3), never below 0.
    The vest (AC 6) stops 6//3 = 2: a roll of 5 takes 3 ('armour stops 2'); a roll of -3 (a weakened bow)
    is no damage at all ('armour stops 0, ... takes 0'). Bare (no armour), the same -3 still takes 0."""
    for total, target, stopped, taken in ((5, fighter("Bo", 30), 2, 3), (-3, fighter("Bo", 30), 0, 0)):
        su, bout = fight([[archer("Cy", 20)], [target]])  # aim: abdomen by default (no extra damage, no d6)
        log: list = []
        ch = Script(
            [Contest("hit", rec(15), rec(3)), Die(total, rec(total)), Contest("miss", rec(2), rec(19))], narrate=True
        )
        after = play_round(su, bout, ch, 1, log)
        shot = next(e for e in log if e.kind == "missile")
        assert f" rolls {total}, armour stops {stopped}, Bo takes {taken}." in shot.text
        assert after.bodies[1].hp == 30 - taken and shot.data["damage"] == taken
    su, bout = fight([[archer("Cy", 20)], [fighter("Bo", 30, equipment={})]])
    after = play_turn(su, bout.bodies, 0, Script([Contest("hit"), Die(-3)]))
    assert after[1].hp == 30


def test_a_tech_is_told_with_the_users_attack_total():
    """A tech is resolved like a melee blow: the user's AT + d20 against the target's PA + d20.
    Ann (caster): base AT = AGI+INT+STR+COU = 3+2+1+2 = 8, no weapon skill, buckler AT -1: AT 7.
    Bo (fighter): base 3+1+2+2 = 8, Unarmed Combat 1 splits 1/0 (the odd rank to AT): PA 8.
    Ann's d20 12 -> 12+7 = 19; Bo's d20 3 -> 3+8 = 11."""
    su, bout = fight([[caster("Ann", mp=0)], [fighter("Bo", 30)]], hr=PhilsysHouseRules(critical_failure_effect="none"))
    log: list = []
    ch = Script([Contest("success", rec(12), rec(3)), Die(6, rec(6)), Contest("miss", rec(2), rec(19))], narrate=True)
    play_round(su, bout, ch, 1, log)
    tech = next(e for e in log if e.kind == "ability")
    assert (tech.data["attack_total"], tech.data["defence_total"]) == (19, 11)
    assert "12+7 = 19 vs 11." in tech.text


def test_bleeding_starts_below_zero_hp():
    """Taking Damage, optional rule: 'below 0 HP' a character bleeds (rate 2 here). At -1 HP: -3; at 0 HP
    (unconscious, not below 0): no bleeding."""
    hr = PhilsysHouseRules(bleeding=True, bleeding_rate=2)
    su, _ = fight([[fighter("Ann", 30)], [fighter("Bo", 30)]], hr=hr)
    up = Body(30, 0, 0)
    assert end_of_round(su, (up, Body(-1, 0, 0, unconscious=True)))[1].hp == -3
    assert end_of_round(su, (up, Body(0, 0, 0, unconscious=True)))[1].hp == 0


def test_the_bleeding_twin_leaves_zero_hp_alone_whatever_the_death_threshold():
    """end_of_round_v is end_of_round over arrays on every input: at exactly 0 HP nobody bleeds (the rule
    says below 0), so nobody dies of it even where the death threshold is 0 (a legal house rule, le=0)."""
    hr = PhilsysHouseRules(bleeding=True, bleeding_rate=1, death_threshold=0)
    su, _ = fight([[fighter("Ann", 30)], [fighter("Bo", 30)]], hr=hr)
    hp, unc, dead, wake = np.array([0, -1, 2]), np.array([True, True, True]), np.zeros(3, bool), np.array([-1, -1, 1])
    got = end_of_round_v(hp, unc, dead, wake, hr)
    for n in range(3):
        b = Body(int(hp[n]), 0, 0, unconscious=True, wake_in=None if wake[n] < 0 else int(wake[n]))
        after = end_of_round(su, (Body(30, 0, 0), b))[1]
        want = (after.hp, after.unconscious, after.dead, -1 if after.wake_in is None else after.wake_in)
        assert tuple(v[n].item() for v in got) == want, n
    # by hand: 0 stays 0 and alive; -1 bleeds to -2 (dead at <= 0); 2 HP wakes (1 round left)
    assert got[0].tolist() == [0, -2, 2] and got[2].tolist() == [False, True, False]
    # the flags stay flags, as the scalar's are bools (an int array's ~ would turn 1 into -2, still true)
    assert got[1].dtype == bool and got[2].dtype == bool


def test_an_ability_without_effect_does_not_hide_the_ones_after_it():
    """A sheet's abilities with no effect (utility spells) are passed over, not the end of the list: Bolt,
    listed after one, is still among the attack spells; Mend after it among the heals."""
    sense = {"name": "Sense", "cost": {"mp": 1}}
    bolt = {"name": "Bolt", "cost": {"mp": 5}, "effect": {"kind": "attack", "damage": "3+1d4"}}
    mend = {"name": "Mend", "cost": {"mp": 4}, "effect": {"kind": "heal", "damage": "2+1d4"}}
    su, _ = fight([[caster("Ann", abilities=[sense, bolt, sense | {"name": "Glow"}, mend])], [fighter("Bo", 30)]])
    assert [m.ability.name for m in su.specs[0].spells] == ["Bolt"]
    assert [m.ability.name for m in su.specs[0].heals] == ["Mend"]


def test_without_magical_aptitude_spells_are_not_cast_but_techs_are_used():
    """Stats: MAG 0 'cannot cast magic' ('Magical Aptitude cannot be negative': a sheet at MAG -1, which the
    book forbids, casts nothing either, as the table's check list offers it no spell). A spell (it costs MP) is
    left out of the choices at MAG 0 or below, a tech (TP, no MP) is not; at MAG 1 and 3 both are there, in
    the sheet's order (equal means: Bolt 3+1d4 = 3+2.5, Bash 2+1d6 = 2+3.5, both 5.5)."""
    bolt = {"name": "Bolt", "cost": {"mp": 5}, "effect": {"kind": "attack", "damage": "3+1d4"}}
    bash = {"name": "Bash", "cost": {"tp": 4}, "effect": {"kind": "attack", "damage": "2+1d6", "magical": False}}
    for mag, names in ((0, ["Bash"]), (-1, ["Bash"]), (1, ["Bolt", "Bash"]), (3, ["Bolt", "Bash"])):
        c = caster("Ann", abilities=[bolt, bash], stats={"COU": 2, "AGI": 3, "INT": 2, "WIS": 2, "STA": 7, "MAG": mag})
        su, _ = fight([[c], [fighter("Bo", 30)]])
        assert [m.ability.name for m in su.specs[0].spells] == names, mag


def test_heals_of_equal_mean_keep_the_sheets_order():
    """Two heals with the same mean (2+1d4 and 1d4+2: 4.5 each): the first listed is tried first; a
    better one (3+1d4, 5.5) goes before both wherever it is listed."""
    a = {"name": "A", "cost": {"mp": 1}, "effect": {"kind": "heal", "damage": "2+1d4"}}
    b = {"name": "B", "cost": {"mp": 1}, "effect": {"kind": "heal", "damage": "2+1d4"}}
    c = {"name": "C", "cost": {"mp": 1}, "effect": {"kind": "heal", "damage": "3+1d4"}}
    d = {"name": "D", "cost": {"mp": 2}, "effect": {"kind": "heal", "damage": "2+1d4"}}  # another cost, same mean
    for sheet, want in (([a, b], ["A", "B"]), ([b, a], ["B", "A"]), ([a, b, c], ["C", "A", "B"]), ([d, a], ["D", "A"])):
        su, _ = fight([[caster("Ann", abilities=sheet)], [fighter("Bo", 30)]])
        assert [m.ability.name for m in su.specs[0].heals] == want


def test_the_automatic_melee_choice_when_every_blow_is_worth_less_than_one_point():
    """AT 0 against PA 14 with a parry roll: AT+d20 > PA+d20 needs d20a - d20d >= 15 (thrust: 15 of the
    400 pairs: d 1..5 with a 16..20 ... 20), >= 18 slashing (-3: 3 pairs), >= 21 chopping (-6: none); no
    critical hit (margin >= 15 would need a difference of 29). Armour 4: thrust 8+1d6 is worth
    15/400 * (11.5-4) = 0.28, slash 10+1d6 3/400 * (13.5-4) = 0.07, chop 0. Thrust is the best though it is
    not listed first, and though no choice is worth a whole point."""
    hr = PhilsysHouseRules()
    choices = [("slash", "10+1d6"), ("thrust", "8+1d6"), ("chop", "8+2d6")]
    pairs = {k: sum(1 for a in range(1, 21) for d in range(1, 21) if a - d >= k) for k in (15, 18, 21)}
    assert pairs == {15: 15, 18: 3, 21: 0}
    assert best_attack(choices, 0, 14, True, 4, hr) == ("thrust", "8+1d6")


def test_an_opposed_rolls_outcomes_are_its_exact_pmf():
    """The exact chain's view of a blow: every result with its chance over the 400 d20 pairs (Resolving
    Melee Attacks: margin AT+d20a - PA-d20d; > 0 hits, >= 15 critical hit, <= -15 critical failure, else a
    miss). AT 3 against PA 1; and a sure thing (AT 40 against PA 0: every margin >= 21) is one outcome."""
    hr = PhilsysHouseRules()
    want: dict[str, Fraction] = {}
    for a, d in product(range(1, 21), repeat=2):
        m = 3 + a - (1 + d)
        k = "critical hit" if m >= 15 else "hit" if m > 0 else "critical failure" if m <= -15 else "miss"
        want[k] = want.get(k, Fraction(0)) + Fraction(1, 400)
    got = Opposed(MeleeAttack(at=3, pa=1, parry=True), hr, ("a", "d")).outcomes()
    assert {c.result: p for p, c in got} == pytest.approx({k: float(v) for k, v in want.items()})
    assert len(got) == len(want) == 4
    sure = Opposed(MeleeAttack(at=40, pa=0, parry=True), hr, ("a", "d")).outcomes()
    assert [(p, c.result) for p, c in sure] == [(1.0, "critical hit")]


def test_bare_hands_under_light_medium_heavy_attack_light_medium_or_heavy():
    """Resolving Melee Attacks: 'If a character is using no weapon, treat the base damage as zero': light
    0 + rank 1 + STR 2 + 1d6 (mean 6.5), medium 0+1+4+2d6 (12), heavy 0+1+6+3d6 (17.5). Under the default
    thrust/slash/chop scheme bare hands punch or kick instead."""
    c = fighter("Ann", 30)
    got = {a: mean(e) for a, e in melee_options(c, PhilsysHouseRules(melee_damage="light_medium_heavy"))}
    assert got == {"light": 6.5, "medium": 12.0, "heavy": 17.5}
    assert [a for a, _ in melee_options(c, PhilsysHouseRules())] == ["punch", "kick"]


def test_a_fight_of_three_sides_starts_and_is_played():
    """A fight needs at least two sides; three (a free-for-all) are a fight too, each side its own number."""
    state = ENGINE.start([[brute("A")], [brute("B")], [brute("C")]])
    assert [f.side for f in state.fighters] == [0, 1, 2] and not state.over
    state, events = ENGINE.step(state, DiceRng("three", "edges"))
    assert events[0].kind == "initiative" and len(events[0].data["order"]) == 3


def test_a_single_melee_choice_is_the_choice():
    """Nothing to weigh: one attack (a creature's only blow) is chosen whatever it is worth."""
    for red in (0, 100):
        assert best_attack([("punch", "6+1d6")], 5, 5, True, red, PhilsysHouseRules()) == ("punch", "6+1d6")


def test_an_ability_of_another_kind_is_neither_a_heal_nor_an_attack():
    """An effect of kind 'other' (a light, a ward) is no automatic choice: neither tried as a heal nor cast."""
    glow = {"name": "Glow", "cost": {"mp": 1}, "effect": {"kind": "other", "damage": "2+1d4"}}
    su, _ = fight([[caster("Ann", abilities=[glow])], [fighter("Bo", 30)]])
    assert su.specs[0].heals == () and su.specs[0].spells == ()


def test_a_body_starts_unhurt_and_unspent():
    """A fighter's running state given only HP, MP and TP: no lost turn, conscious, alive, no wake count, no
    heavy wound, no disabled limb, the shield whole, the parry roll not used."""
    assert Body(30, 5, 4) == Body(30, 5, 4, False, False, False, None, False, 0, False, False)
    assert Body(30, 5, 4).active


def test_a_told_shot_needs_both_dice():
    """Narrated, a missile's opposed roll must carry both d20s (the attacker's and the defender's)."""
    su, bout = fight([[archer("Cy", 20)], [fighter("Bo", 30)]])
    with pytest.raises(AssertionError):
        play_round(su, bout, Script([Contest("miss", rec(5), None)], narrate=True), 1, [])


def test_a_torso_shot_adds_its_damage_and_rolls_no_limb_die():
    """Resolving Ranged Attacks: torso -2 to hit and 1d6+1d4 more damage; only a limb hit rolls the limb d6.
    The bow's 1d6+1 plus 1d6+1d4 runs from 1+1+1+1 = 4 to 6+1+6+4 = 17; a roll of 9 less the vest's 2: 7."""
    su, bout = fight([[archer("Cy", 20)], [fighter("Bo", 30)]], options={"aim": {"side0": "torso"}})
    ch = Script([Contest("hit"), Die(9)])
    after = play_turn(su, bout.bodies, 0, ch)
    assert len(ch.events) == 2 and not ch.values
    totals = distribution(ch.events[1].expression).outcomes
    assert (min(totals), max(totals)) == (4, 17)
    assert after[1].hp == 30 - 7 and after[1].disabled_limbs == 0


def test_a_head_shot_on_a_six_is_survived_and_told():
    """Resolving Ranged Attacks: a head hit kills on anything but a 6; a 6 is survived, with 10+1d10 more
    damage. Narrated, the log says so."""
    su, bout = fight([[archer("Cy", 20)], [fighter("Bo", 40)]], options={"aim": {"side0": "head"}})
    log: list = []
    ch = Script(
        [Contest("hit", rec(20), rec(1)), Die(6, rec(6)), Die(16, rec(16)), Contest("miss", rec(2), rec(19))],
        narrate=True,
    )
    after = play_round(su, bout, ch, 1, log)
    shot = next(e for e in log if e.kind == "missile")
    assert " Head shot, the d6 shows 6: Bo survives." in shot.text
    assert after.bodies[1].hp == 40 - (16 - 2) and not after.bodies[1].dead


def test_a_shot_without_the_weapons_skill_adds_rank_zero():
    """Missile accuracy = the weapon's accuracy + skill rank + location (abdomen 0); no skill is rank 0. The
    bow's accuracy 8, the d20 15: 23. Bo defends with AGI+COU = 3+2 and size +0 at medium range: d20 3 -> 8."""
    su, bout = fight([[archer("Cy", 20)], [fighter("Bo", 30)]])
    log: list = []
    ch = Script([Contest("miss", rec(15), rec(3)), Contest("miss", rec(2), rec(19))], narrate=True)
    play_round(su, bout, ch, 1, log)
    shot = next(e for e in log if e.kind == "missile")
    assert (shot.data["attack_total"], shot.data["defence_total"]) == (23, 8)


def test_critical_health_is_told_when_a_blow_first_brings_a_fighter_into_it():
    """Taking Damage: critical health at 15 HP or less. Bo at 30 takes a punch rolling 22 (20 through the
    vest): 10 HP, well inside it, told; a roll of 31 (29 taken) leaves 1 HP, still above 0: told. Bo at 15
    (already in it) taking 5 more is not told again, nor Bo at 12 taking 2."""
    for start, roll, want in ((30, 22, True), (30, 31, True), (15, 7, False), (12, 4, False)):
        su, bout = fight([[fighter("Ann", 30)], [fighter("Bo", start)]], options={"attack": {"side0": "punch"}})
        log: list = []
        ch = Script(
            [Contest("hit", rec(15), rec(3)), Die(roll, rec(roll)), Contest("miss", rec(2), rec(19))], narrate=True
        )
        after = play_round(su, bout, ch, 1, log)
        taken = roll - 2
        assert after.bodies[1].hp == start - taken
        blow = next(e for e in log if e.kind == "melee" and e.actor == "Ann")
        told = " Bo is at critical health (-3/-3)." if want else ""
        assert blow.text.endswith(f"Bo takes {taken}.{told}")


def test_a_critical_failure_is_told_with_the_lost_turn():
    """Resolving Melee Attacks: beaten by 15 or more, a critical failure; under the default house rule the
    attacker loses the next turn, and the log says so."""
    su, bout = fight([[fighter("Ann", 30)], [fighter("Bo", 30)]], options={"attack": {"side0": "punch"}})
    log: list = []
    ch = Script([Contest("critical failure", rec(1), rec(20)), Contest("miss", rec(2), rec(19))], narrate=True)
    after = play_round(su, bout, ch, 1, log)
    blow = next(e for e in log if e.kind == "melee" and e.actor == "Ann")
    assert blow.text.endswith(" Critical failure! Ann loses the next turn.") and after.bodies[0].lose_turn


def test_the_sides_standing_need_a_body_per_fighter():
    su, bout = fight([[fighter("Ann", 30)], [fighter("Bo", 30)]])
    with pytest.raises(ValueError):
        decided(bout.bodies[:1], su.specs)
    su, bout = fight([[fighter("Ann", 30)], [fighter("Bo", 30), fighter("Cy", 30)]])
    with pytest.raises(ValueError):  # a fighter with no heal: the choice of target needs every body too
        choose(su, bout.bodies[:2], 0)


def test_a_fights_setup_and_its_dice_events_are_frozen():
    """The static facts and the events the chance draws are values: not changed once made, and hashable (a
    chance may key on them)."""
    su, _ = fight([[fighter("Ann", 30)], [fighter("Bo", 30)]])
    with pytest.raises(dataclasses.FrozenInstanceError):
        su.distance = "long"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        su.specs[0].tactic = "magic"  # type: ignore[misc]
    damage = Roll("2+1d6", "Ann damage 2+1d6")
    with pytest.raises(dataclasses.FrozenInstanceError):
        damage.expression = "1d6"  # type: ignore[misc]
    assert hash(damage) == hash(Roll("2+1d6", "Ann damage 2+1d6"))
    blow = Opposed(MeleeAttack(at=3, pa=1, parry=True), PhilsysHouseRules(), ("a", "d"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        blow.defender_rolls = False  # type: ignore[misc]
    assert hash(blow) == hash(Opposed(MeleeAttack(at=3, pa=1, parry=True), PhilsysHouseRules(), ("a", "d")))


def test_a_round_stops_once_the_fight_is_decided():
    """Bo is down before Ann's turn: nobody of side 1 stands, so the round stops there; Cy, after Ann in the
    order and sitting out a turn after a critical failure, is not reached (his lost turn is still owed)."""
    su, bout = fight([[fighter("Ann", 30), fighter("Cy", 30)], [fighter("Bo", 30)]], order=(0, 2, 1))
    a, c, b = bout.bodies
    bodies = (a, c._replace(lose_turn=True), b._replace(hp=0, unconscious=True))
    ch = Script([])
    after = play_round(su, Bout((0, 1, 2), bodies), ch)
    assert ch.events == [] and after.bodies[1].lose_turn


def test_a_spell_cast_at_critical_health_takes_the_penalty():
    """Taking Damage: critical health (15 HP or less) gives -3 to AT/PA and spellcasting. Ann at 10 HP:
    MAttack INT+WIS+MAG = 7, less 3: the d20 12 makes 16. (Bolt only: with Mend she would heal herself.)"""
    bolt = {"name": "Bolt", "cost": {"mp": 5}, "effect": {"kind": "attack", "damage": "3+1d4"}}
    su, bout = fight(
        [[caster("Ann", hp=10, mp=5, abilities=[bolt])], [fighter("Bo", 30)]],
        hr=PhilsysHouseRules(critical_failure_effect="none"),
    )
    log: list = []
    ch = Script([Contest("resisted", rec(12), rec(3)), Contest("miss", rec(2), rec(19))], narrate=True)
    play_round(su, bout, ch, 1, log)
    cast = next(e for e in log if e.kind == "ability")
    assert cast.data["attack_total"] == 12 + 7 - 3
