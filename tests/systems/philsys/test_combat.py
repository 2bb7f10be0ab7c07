"""The fight engine: initiative, parries, criticals, missiles, magic, wounds, death and durations."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from philsys_helpers import example
from pydantic import ValidationError

from storymaster.dice import DiceRng
from storymaster.errors import CombatError
from storymaster.systems.philsys import SYSTEM
from storymaster.systems.philsys import damage as dmg
from storymaster.systems.philsys.character import Character, Stats, Weapon, hp_max
from storymaster.systems.philsys.combat import FightState, _at_pa, roll_initiative
from storymaster.systems.philsys.options import PhilsysHouseRules

ENGINE = SYSTEM.combat


def run(sides, seed="fight", hr=None, options=None, rounds=200):
    state = ENGINE.start(sides, house_rules=hr, options=options)
    rng = DiceRng(seed, "t")
    events = []
    while not ENGINE.is_over(state) and rounds:
        state, evs = ENGINE.step(state, rng)
        events += evs
        rounds -= 1
    return state, events


def brute(name="Brute", at=0, pa=0, hp=None, **stats):
    return Character(
        name=name,
        stats=Stats(**stats),
        current={"hp": hp},
        equipment={"weapon": Weapon(name="Club", damage=(6, 8, 10), at=at, pa=pa)},
    )


def test_fight_runs_to_a_winner_and_is_reproducible():
    a, b = example("knight"), example("guard")
    s1, e1 = run([[a], [b]], seed=7)
    _s2, e2 = run([[a], [b]], seed=7)
    assert [e.text for e in e1] == [e.text for e in e2]
    assert ENGINE.is_over(s1) and ENGINE.winner(s1) in (0, 1)
    loser = 1 - ENGINE.winner(s1)
    assert all(not f.active for f in s1.fighters if f.side == loser)
    assert e1[0].kind == "initiative" and e1[-1].kind == "end"


def test_state_is_json_serialisable_and_frozen():
    state = ENGINE.start([[example("aya")], [example("guard")]])
    state, _ = ENGINE.step(state, DiceRng(1))
    again = FightState.model_validate_json(state.model_dump_json())
    assert again == state
    with pytest.raises(ValidationError):
        state.round = 5  # type: ignore[misc]
    # stepping from the restored state gives the same round as from the original
    a, ea = ENGINE.step(state, DiceRng(2))
    b, eb = ENGINE.step(again, DiceRng(2))
    assert a == b and [e.text for e in ea] == [e.text for e in eb]


def test_initiative_is_rolled_once_and_order_is_highest_first():
    state, events = run([[example("aya")], [example("guard")]], seed=3)
    inits = [e for e in events if e.kind == "initiative"]
    assert len(inits) == 1
    totals = inits[0].data["totals"]
    order = [f.name for f in sorted(state.fighters, key=lambda f: -f.initiative)]
    assert inits[0].data["order"][0] == order[0]
    assert max(totals) == max(f.initiative for f in state.fighters)


def test_initiative_ties_go_to_the_higher_modifier():
    hr = PhilsysHouseRules()
    for seed in range(400):
        totals, order, rolls = roll_initiative([5, 3], DiceRng(seed, "init"), hr)
        if totals[0] == totals[1]:
            assert order == [0, 1]
            assert len(rolls) == 2  # no re-roll needed
            break
    else:
        pytest.fail("no tie found")


def test_initiative_ties_with_equal_modifiers_reroll():
    hr = PhilsysHouseRules()
    for seed in range(400):
        totals, order, rolls = roll_initiative([4, 4], DiceRng(seed, "init"), hr)
        if totals[0] == totals[1]:
            assert len(rolls) >= 4 and any("re-roll" in r.label for r in rolls)
            a, b = rolls[-2].total, rolls[-1].total
            assert a != b and order == ([0, 1] if a > b else [1, 0])
            break
    else:
        pytest.fail("no tie found")
    # the walkthrough's roll-off ignores the modifier
    roll_hr = PhilsysHouseRules(initiative_ties="reroll")
    for seed in range(400):
        totals, order, rolls = roll_initiative([5, 3], DiceRng(seed, "init"), roll_hr)
        if totals[0] == totals[1]:
            assert any("re-roll" in r.label for r in rolls)
            break


def test_one_parry_roll_per_defender_per_round():
    aya = example("aya")
    g1, g2 = example("guard"), example("guard")
    state = ENGINE.start([[g1, g2], [aya]], options={"tactics": {"side1": "melee"}})
    state, events = ENGINE.step(state, DiceRng("parry", "t"))
    on_aya = [e for e in events if e.kind == "melee" and e.data["target"] == "Aya du Mythril"]
    assert len(on_aya) == 2
    parry_rolls = [[r for r in e.rolls if "parry" in r.label] for e in on_aya]
    assert [len(p) for p in parry_rolls] == [1, 0]
    assert "used this round's parry" in on_aya[1].text
    _, pa = _at_pa(state.fighters[2].model_copy(update={"hp": 60}), state.house_rules)
    assert on_aya[1].data["defence_total"] == pa


def test_critical_failure_loses_the_next_turn():
    clumsy = brute("Clumsy", at=-40, STA=10)
    wall = brute("Wall", pa=40, at=-40, STA=10)
    state = ENGINE.start([[clumsy], [wall]], options={"tactics": {"side0": "melee", "side1": "melee"}})
    state, ev1 = ENGINE.step(state, DiceRng(1))
    assert any("Critical failure" in e.text for e in ev1)
    state, ev2 = ENGINE.step(state, DiceRng(2))
    assert any(e.kind == "recover" for e in ev2)
    hr = PhilsysHouseRules(critical_failure_effect="none")
    state = ENGINE.start([[clumsy], [wall]], house_rules=hr)
    state, _ = ENGINE.step(state, DiceRng(1))
    state, ev = ENGINE.step(state, DiceRng(2))
    assert not any(e.kind == "recover" for e in ev)


def test_stalemate_ends_in_a_draw_at_max_rounds():
    hr = PhilsysHouseRules(max_rounds=5, critical_failure_effect="none")
    a = brute("A", at=-40, pa=40)
    b = brute("B", at=-40, pa=40)
    state, _events = run([[a], [b]], hr=hr)
    assert state.over and state.winner is None and state.round == 5


def test_unconscious_at_zero_and_death_at_the_threshold():
    assert dmg.is_unconscious(0) and not dmg.is_unconscious(1)
    assert dmg.is_dead(-10) and not dmg.is_dead(-9)
    assert dmg.is_dead(-3, PhilsysHouseRules(death_threshold=-3))
    state, _events = run([[example("knight")], [example("guard")]], seed=3)
    loser = next(f for f in state.fighters if f.side != state.winner)
    assert loser.hp <= 0 and loser.unconscious
    assert loser.dead == (loser.hp <= -10)


def test_bleeding_option():
    hurt = brute("Hurt", hp=-5, STA=0)
    ally = brute("Ally", STA=10, pa=40, at=-40)
    foe = brute("Foe", STA=10, pa=40, at=-40)
    hr = PhilsysHouseRules(bleeding=True, bleeding_rate=2, critical_failure_effect="none")
    state = ENGINE.start([[hurt, ally], [foe]], house_rules=hr)
    state, events = ENGINE.step(state, DiceRng(1))
    assert state.fighters[0].hp == -7
    assert any(e.kind == "bleeding" for e in events)
    state = ENGINE.start([[hurt, ally], [foe]])
    state, events = ENGINE.step(state, DiceRng(1))
    assert state.fighters[0].hp == -5


def test_healing_wakes_an_unconscious_ally_after_10_minus_sta_rounds():
    hak = example("hakaril")
    down = brute("Down", hp=-2, STA=7)
    foe = brute("Foe", STA=10, pa=40, at=-40)
    hr = PhilsysHouseRules(critical_failure_effect="none")
    state = ENGINE.start([[hak, down], [foe]], house_rules=hr, options={"tactics": {"Hakaril Silvar": "magic"}})
    rng = DiceRng("heal")
    state, events = ENGINE.step(state, rng)
    heal = [e for e in events if e.kind == "heal"]
    assert heal and heal[0].data["target"] == "Down"
    assert state.fighters[0].mp == 100 - 6  # no roll for a willing target; MP paid
    f = state.fighters[1]
    assert f.hp > 0 and f.unconscious and f.wake_in == dmg.wake_delay(7) - 1
    woke = None
    for rnd in range(2, 8):
        state, events = ENGINE.step(state, rng)
        if any(e.kind == "wake" for e in events):
            woke = rnd
            break
    assert woke == 3  # healed in round 1, 10-7 = 3 rounds: awake at the end of round 3
    assert dmg.wake_delay(12) == 0


def test_aya_casts_flare_arrow_and_pays_mp():
    state = ENGINE.start([[example("aya")], [example("guard")]])
    state, events = ENGINE.step(state, DiceRng(4))
    casts = [e for e in events if e.kind == "ability"]
    assert casts and casts[0].data["ability"] == "Flare Arrow"
    assert state.fighters[0].mp == 80 - 14
    labels = [r.label for r in casts[0].rolls]
    assert "Aya du Mythril spell d20" in labels and "Guard resist d20" in labels


def test_missile_fight_uses_agi_cou_defence():
    state = ENGINE.start([[example("chandler")], [example("guard")]])
    state, events = ENGINE.step(state, DiceRng(5))
    shot = next(e for e in events if e.kind == "missile")
    d20 = next(r for r in shot.rolls if "defence d20" in r.label).total
    assert shot.data["defence_total"] == d20 + 8


@settings(max_examples=25)
@given(st.integers(0, 10_000))
def test_head_shots_kill_on_one_to_five_or_add_damage(seed):
    opts = {"aim": {"Chandler Sablemech": "head"}}
    state = ENGINE.start([[example("chandler")], [example("guard")]], options=opts)
    state, events = ENGINE.step(state, DiceRng(seed))
    shot = next(e for e in events if e.kind == "missile")
    if shot.data["result"] == "miss":
        return
    d6 = next(r for r in shot.rolls if r.label.startswith("head shot")).total
    if d6 <= 5:
        assert state.fighters[1].dead and shot.data["killed"]
    else:
        assert "+10+1d10" in shot.text


def test_limb_shots_may_disable():
    disabled = 0
    for seed in range(40):
        state = ENGINE.start([[example("chandler")], [example("guard")]], options={"aim": {"side0": "limb"}})
        state, events = ENGINE.step(state, DiceRng(seed))
        shot = next(e for e in events if e.kind == "missile")
        if shot.data["result"] == "hit":
            d6 = next(r for r in shot.rolls if r.label.startswith("limb")).total
            assert (state.fighters[1].disabled_limbs == 1) == (d6 >= 5)
            disabled += d6 >= 5
    assert disabled > 0


def test_critical_health_penalty_applies_to_at_and_pa():
    hr = PhilsysHouseRules()
    state = ENGINE.start([[example("knight")], [example("guard")]])
    f = state.fighters[0]
    full = _at_pa(f, hr)
    low = _at_pa(f.model_copy(update={"hp": 15}), hr)
    assert low == (full[0] - 3, full[1] - 3)
    assert _at_pa(f.model_copy(update={"hp": 16}), hr) == full
    hr6 = PhilsysHouseRules(critical_health_penalty=6, critical_health_threshold=10)
    assert _at_pa(f.model_copy(update={"hp": 10}), hr6) == (full[0] - 6, full[1] - 6)
    assert dmg.wound_penalty(5, hr, heavy_wound=True) == 3
    assert dmg.wound_penalty(50, PhilsysHouseRules(heavy_wound_penalty=4), heavy_wound=True) == 4
    assert dmg.is_heavy_wound(65, example("knight")) and not dmg.is_heavy_wound(60, example("knight"))


def test_shield_breaks_only_under_the_house_rule():
    hr = PhilsysHouseRules(shield_breaks=True)
    state, events = run([[example("guard")], [example("knight")]], seed=11, hr=hr)
    broke = [e for e in events if "shield breaks" in e.text]
    if broke:
        assert state.fighters[1].shield_broken
    state, events = run([[example("guard")], [example("knight")]], seed=11)
    assert not state.fighters[1].shield_broken


def test_light_medium_heavy_scheme_in_a_fight():
    hr = PhilsysHouseRules(melee_damage="light_medium_heavy")
    _state, events = run([[example("guard")], [brute("Target", STA=10)]], hr=hr, options={"attack": {"Guard": "heavy"}})
    hits = [e for e in events if e.kind == "melee" and "damage" in e.data]
    assert hits and all(e.data["attack"] == "heavy" for e in hits)
    assert any("+3d6" in r.expression for e in hits for r in e.rolls)


def test_bad_choices_are_refused():
    with pytest.raises(CombatError):
        ENGINE.start([[example("aya")]])
    # refused when the fight starts, not when (or if) the Guard first swings
    with pytest.raises(CombatError, match="Guard cannot make a 'kick' attack"):
        ENGINE.start([[example("guard")], [example("aya")]], options={"attack": {"Guard": "kick"}})
    with pytest.raises(CombatError, match="'Nobody' is not in this fight"):
        ENGINE.start([[example("guard")], [example("aya")]], options={"tactics": {"Nobody": "melee"}})
    with pytest.raises(CombatError, match="'side2' is not in this fight"):
        ENGINE.start([[example("guard")], [example("aya")]], options={"aim": {"side2": "head"}})
    ENGINE.start([[example("guard")], [example("aya")]], options={"tactics": {"side1": "magic", "Guard": "melee"}})
    state, _ = run([[example("knight")], [example("guard")]])
    with pytest.raises(CombatError):
        ENGINE.step(state, DiceRng(1))


def test_durations_run_from_the_turn_they_began():
    """Turn Sequence: cast on turn 2 of round 1 for 3 rounds: on in round 3 turn 1, gone at round 3 turn 2."""
    assert dmg.effect_active(1, 1, 3, 3, 0)
    assert not dmg.effect_active(1, 1, 3, 3, 1)
    assert dmg.effect_active(1, 1, 3, 1, 1) and not dmg.effect_active(1, 1, 3, 1, 0)
    assert dmg.effect_active(1, 1, 1, 2, 0) and not dmg.effect_active(1, 1, 1, 2, 1)


def test_resurrection_and_zombies():
    for seed in range(30):
        hours, rec = dmg.resurrection_hours(3, DiceRng(seed))
        assert hours == max(2, 4 + rec.total - 3) and hours >= 2
    assert dmg.revival_possible(48) and not dmg.revival_possible(48.5)
    z = dmg.zombie(example("aya"))
    assert z.skills == [] and z.abilities == [] and z.stats.INT == -5 and z.stats.WIS == -5
    assert z.stats.STR == example("aya").stats.STR


@settings(max_examples=15)
@given(st.integers(0, 100_000))
def test_fights_always_end_and_hp_never_exceeds_max(seed):
    state, events = run([[example("knight"), example("aya")], [example("guard"), example("chandler")]], seed=seed)
    assert state.over
    for f in state.fighters:
        assert f.hp <= hp_max(f.character)
        assert f.mp >= 0 and f.tp >= 0
    for e in events:
        assert all(r.label for r in e.rolls)
    assert FightState.model_validate_json(state.model_dump_json()) == state


def test_turn_actions():
    from storymaster.systems.philsys.actions import turn_problems

    assert turn_problems(["move", "attack", "free", "free"]) == []
    assert turn_problems(["double_move", "free"]) == []
    assert turn_problems(["long"]) == []
    assert turn_problems(["double_move", "attack"]) == ["a double move replaces both the move and the attack"]
    assert turn_problems(["attack", "attack"]) == ["only one attack per turn"]
    assert turn_problems(["long", "move"]) == ["a long action takes the whole turn (free actions aside)"]
    assert turn_problems(["teleport"]) == ["unknown action 'teleport'"]


@pytest.mark.parametrize("house", [{}, {"critical_health_missile": True}])
def test_critical_health_takes_nothing_off_a_shot_unless_the_house_rule_says(house):
    """Ruling P-L1 in fights as at the table: the book's critical-health penalty names AT/PA and spellcasting,
    so a wounded archer shoots as well as a fresh one; ``critical_health_missile`` (an addition) takes it off."""
    hr = PhilsysHouseRules(**house)

    def shot_modifier(hp: int | None, seed: int) -> int | None:
        state = ENGINE.start([[example("chandler")], [example("guard")]], house_rules=hr)
        if hp is not None:
            fighters = list(state.fighters)
            fighters[0] = fighters[0].model_copy(update={"hp": hp})
            state = state.model_copy(update={"fighters": tuple(fighters)})
        _, events = ENGINE.step(state, DiceRng(seed))
        shot = next((e for e in events if e.kind == "missile"), None)
        if shot is None:  # the guard struck first and put the wounded archer down
            return None
        d20 = next(r for r in shot.rolls if "missile d20" in r.label).total
        return int(shot.data["attack_total"]) - d20

    pairs = [(shot_modifier(None, seed), shot_modifier(10, seed)) for seed in range(12)]
    pairs = [(f, w) for f, w in pairs if f is not None and w is not None]
    assert pairs  # 10 HP is critical health (threshold 15)
    expected = hr.critical_health_penalty if hr.critical_health_missile else 0
    assert {f - w for f, w in pairs} == {expected}
