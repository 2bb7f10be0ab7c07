"""Detailed contests, round by round, with the optional detailed-combat rules (Kalyr RPG ch. 3:
Detailed Contests; Specific rules for Detailed Combats)."""

from __future__ import annotations

from ...dice import DiceRng
from ...errors import CheckError
from ...rules.protocol import Event
from .abilities import ability_level, wound_modifier
from .character import armour_value, damage_bonus, damage_reduction, shield_value, weapon_damage
from .checks import AbilityRoll, roll_ability
from .damage import halve_for_detailed
from .fight_state import (
    COMBAT,
    Fighter,
    FightState,
    is_critical,
    is_out,
    over_text,
    reach_rank,
    roll_fighter,
    status_of,
    wound_fighter,
    wound_penalty,
)
from .ladder import level_name, parse_level
from .wounds import DEFEATED, severity_name

__all__ = ["detailed_round", "minimum_to_hit", "shield_modifier", "stance_modifier", "weapon_size_modifier"]


def minimum_to_hit(attacker_scale: int, target_scale: int) -> int:
    """The least result that hits, by Scale (Specific rules for Detailed Combats; ruling K15)."""
    gap = attacker_scale - target_scale
    rows = COMBAT["minimum_to_hit"]
    if gap < 0:
        return parse_level(rows["smaller"])
    return parse_level(rows[str(min(gap, 4))])


def stance_modifier(f: Fighter) -> int:
    """All-out offence +1, all-out defence +2 to the combat skill (Specific rules for Detailed Combats)."""
    return int(COMBAT["stance_bonus"][f.tactics.stance])


def shield_modifier(foe: Fighter, *, ranged: bool) -> int:
    """The foe's shield value comes off your weapon skill (Specific rules for Detailed Combats)."""
    return -shield_value(foe.character, ranged=ranged)


def weapon_size_modifier(f: Fighter, foe: Fighter) -> int:
    """-1 when the foe's weapon + shield value is 2 or more above yours (Specific rules for Detailed Combats)."""
    mine = weapon_damage(f.character) + shield_value(f.character)
    theirs = weapon_damage(foe.character) + shield_value(foe.character)
    return int(COMBAT["weapon_size_penalty"]) if theirs - mine >= int(COMBAT["weapon_size_gap"]) else 0


def _reach(
    state: FightState, fs: list[Fighter], mods: list[int], notes: list[str]
) -> tuple[list[bool], int | None, bool]:
    """Reach (Specific rules for Detailed Combats; ruling K19): -1 to the shorter weapon in round 1,
    then to the previous round's loser; Close against Long cannot attack until it has dodged.
    Returns who can attack, who carries the -1, and whether this is Close against Long."""
    hr = state.house_rules
    can_attack = [True, True]
    reach = [reach_rank(f) for f in fs]
    penalty = state.reach_penalty
    if not hr.detailed_reach or state.ranged or reach[0] == reach[1]:
        return can_attack, penalty, False
    shorter = 0 if reach[0] < reach[1] else 1
    close_vs_long = sorted(reach) == [0, 2]
    if close_vs_long and not state.inside_reach:
        can_attack[shorter] = False
        notes.append(f"{fs[shorter].name}'s close weapon cannot reach {fs[1 - shorter].name}'s long one: dodge only")
        return can_attack, penalty, True
    who = shorter if penalty is None and state.round == 0 else penalty
    if who is not None:
        mods[who] -= 1
        notes.append(f"{fs[who].name} has the worse of the reach: -1")
    return can_attack, who, close_vs_long


def _modifiers(
    state: FightState, fs: list[Fighter], notes: list[str]
) -> tuple[list[int], list[bool], int | None, bool]:
    """Every modifier on both fighters' combat skill this round, with the reasons in ``notes``."""
    hr = state.house_rules
    mods = [wound_penalty(f, state, notes) for f in fs]
    can_attack, reach_penalty, close_vs_long = _reach(state, fs, mods, notes)
    for i, f in enumerate(fs):
        foe = fs[1 - i]
        parts: list[tuple[str, int]] = []
        if hr.detailed_all_out and f.tactics.stance != "normal":
            parts.append((f"{f.name} {f.tactics.stance.replace('_', '-')}", stance_modifier(f)))
        if hr.detailed_aimed_blows and f.tactics.aim != "none":
            parts.append((f"{f.name} aims at a small target", int(COMBAT["aimed_penalty"])))
        if hr.detailed_shields:
            parts.append(
                (
                    f"{foe.name}'s {foe.character.shield} shield against {f.name}",
                    shield_modifier(foe, ranged=state.ranged),
                )
            )
        if hr.detailed_weapon_size and not state.ranged:
            parts.append((f"{f.name}'s weapon is outsized", weapon_size_modifier(f, foe)))
        parts.append((f"{f.name} is out-manoeuvred", state.scope_penalty[i]))
        for why, value in parts:
            if value:
                mods[i] += value
                notes.append(f"{why}: {value:+d}")
    return mods, can_attack, reach_penalty, close_vs_long


def _all_out_offence(fs: list[Fighter], winner: int | None, notes: list[str]) -> tuple[int | None, list[int]]:
    """All-out offence: +1 damage on a win; a tie or loss hands the foe the win and +2 damage
    (Specific rules for Detailed Combats; ruling K21 for both attacking all-out)."""
    bonus = [0, 0]
    aoo = [f.tactics.stance == "all_out_offence" for f in fs]
    if aoo[0] != aoo[1]:
        attacker = 0 if aoo[0] else 1
        if winner != attacker:
            winner = 1 - attacker
            bonus[winner] += int(COMBAT["all_out_offence_punished"])
            notes.append(f"{fs[attacker].name}'s all-out attack fails: {fs[winner].name} wins and gets +2 damage")
        else:
            bonus[attacker] += int(COMBAT["all_out_offence_damage"])
    elif aoo[0] and aoo[1] and winner is not None:
        bonus[winner] += int(COMBAT["all_out_offence_damage"])
    return winner, bonus


def _does_it_hit(
    state: FightState,
    fs: list[Fighter],
    winner: int,
    results: list[int],
    dice: list[int | None],
    can_attack: list[bool],
) -> tuple[str, str]:
    """Whether the round's winner lands a blow: reach, minimum to hit (Scale, aimed blows) and
    all-out defence (harms only on a critical). Returns (event kind, sentence)."""
    hr = state.house_rules
    w, lo = fs[winner], fs[1 - winner]
    margin = results[winner] - results[1 - winner]
    need = minimum_to_hit(w.character.scale, lo.character.scale) if hr.detailed_minimum_to_hit else None
    aiming = hr.detailed_aimed_blows and w.tactics.aim != "none"
    aimed_part = False
    if aiming:
        aim_level = parse_level("Good" if w.tactics.aim == "good" else "Great")
        aimed_part = results[winner] >= aim_level
        floor = aim_level if w.tactics.aim == "good" else aim_level - 1
        need = floor if need is None else max(need, floor)
    if not can_attack[winner]:
        return "dodge", f"{w.name} dodges but cannot strike back this round."
    if need is not None and results[winner] < need:
        return (
            "standoff",
            f"{w.name} wins but a {level_name(results[winner])} is below the {level_name(need)} needed to hit: "
            "stand-off.",
        )
    if hr.detailed_all_out and w.tactics.stance == "all_out_defence" and not is_critical(hr, dice[winner], margin):
        return "defended", f"{w.name} fends off the attack from an all-out defence but cannot harm without a critical."
    where = " in the part aimed at" if aimed_part else " (not where aimed)" if aiming else ""
    return "hit", f"{w.name} wins by {margin} and hits {lo.name}{where}."


def _scope_out(
    state: FightState, fs: list[Fighter], loser: int | None, rng: DiceRng, rnd: int
) -> tuple[list[int], list[Event]]:
    """A successful all-out defence plus a Perception or Tactics roll puts the foe at -1 next round
    (Specific rules for Detailed Combats; ruling K13)."""
    hr = state.house_rules
    scope, events = [0, 0], []
    if not (hr.detailed_all_out and hr.detailed_scope_out):
        return scope, events
    for i, f in enumerate(fs):
        if f.tactics.stance != "all_out_defence" or loser == i or is_out(f, state.track):
            continue
        try:
            wmod, _ = wound_modifier(f.character, state.track, hr)
        except CheckError:
            wmod = 0
        r = AbilityRoll(
            ability=ability_level(f.character, "Perception")[0],
            second=ability_level(f.character, "Tactics")[0],
            combine="best",
            modifier=wmod,
        )
        res, recs, txt = roll_ability(r, rng, f"{f.name} (Perception/Tactics)")
        ok = res >= hr.scope_out_difficulty
        if ok:
            scope[1 - i] = int(COMBAT["scope_out_penalty"])
        text = f"{txt}: {'success' if ok else 'failure'} against {level_name(hr.scope_out_difficulty)}"
        events.append(
            Event(
                "scope",
                text + (f"; {fs[1 - i].name} is at -1 next round" if ok else ""),
                rnd,
                f.name,
                rolls=tuple(recs),
            )
        )
    return scope, events


def _ending(state: FightState, fs: list[Fighter], rnd: int) -> tuple[list[Fighter], bool, int | None, list[Event]]:
    """The contest ends when one party is Defeated or admits defeat (withdraws), or at the round limit."""
    for i, f in enumerate(fs):
        if status_of(f, state.track) >= DEFEATED:
            return fs, True, 1 - i, []
    for i, f in enumerate(fs):
        wa = f.tactics.withdraw_at
        if wa is not None and status_of(f, state.track) >= wa:
            fs = list(fs)
            fs[i] = f.model_copy(update={"withdrawn": True})
            text = f"{f.name} is {severity_name(status_of(f, state.track))} and admits defeat"
            return fs, True, 1 - i, [Event("withdraw", text, rnd, f.name)]
    if rnd >= state.max_rounds:
        return fs, True, None, [Event("draw", f"No result after {rnd} rounds: called a draw.", rnd)]
    return fs, False, None, []


def detailed_round(state: FightState, rng: DiceRng) -> tuple[FightState, list[Event]]:
    """One round of a detailed contest: an opposed roll; on a hit, damage halved rounding up
    (Detailed Contests)."""
    rnd = state.round + 1
    hr = state.house_rules
    fs = [state.sides[0][0], state.sides[1][0]]
    notes: list[str] = []
    mods, can_attack, reach_penalty, close_vs_long = _modifiers(state, fs, notes)
    results, rolls, lines, dice = [], [], [], []
    for i, f in enumerate(fs):
        res, recs, text = roll_fighter(f, mods[i], rng, f.name)
        results.append(res)
        rolls += recs
        lines.append(text)
        dice.append(recs[0].total if recs else None)
    winner: int | None = 0 if results[0] > results[1] else 1 if results[1] > results[0] else None
    bonus = [0, 0]
    if hr.detailed_all_out:
        winner, bonus = _all_out_offence(fs, winner, notes)
    loser = None if winner is None else 1 - winner
    if winner is None:
        kind, sentence = "standoff", "Stand-off: nobody is hurt."
    else:
        kind, sentence = _does_it_hit(state, fs, winner, results, dice, can_attack)
    hit = kind == "hit"
    data = {
        "results": [level_name(x) for x in results],
        "modifiers": list(mods),
        "winner": winner,
        "hit": hit,
        "notes": notes,
    }
    events = [Event(kind, "; ".join(notes + lines) + ". " + sentence, rnd, data=data, rolls=tuple(rolls))]
    new_fs = list(fs)
    if hit and winner is not None and loser is not None:
        app = fs[0].tactics.approach + fs[1].tactics.approach
        w, lo = fs[winner], fs[loser]
        pts = _detailed_points(results[winner] - results[loser], w, lo, app + bonus[winner], state)
        new_fs[loser], ev = wound_fighter(
            lo, halve_for_detailed(pts), state, rnd, f"damage to {lo.name} ({pts} halved, rounding up)"
        )
        events += ev
        if hr.detailed_winner_takes_damage:
            pts_w = _detailed_points(results[loser] - results[winner], lo, w, app + bonus[loser], state)
            new_fs[winner], ev = wound_fighter(
                w, halve_for_detailed(pts_w), state, rnd, f"damage to {w.name} ({pts_w} halved)"
            )
            events += ev
    inside = state.inside_reach
    if close_vs_long and not inside:
        shorter = 0 if reach_rank(fs[0]) < reach_rank(fs[1]) else 1
        if loser != shorter:
            inside, reach_penalty = True, 1 - shorter
            text = (
                f"{fs[shorter].name} ducks inside the long weapon's reach: {fs[1 - shorter].name} is at -1 next round"
            )
            events.append(Event("reach", text, rnd))
        else:
            reach_penalty = None
    elif hr.detailed_reach and loser is not None and reach_rank(fs[0]) != reach_rank(fs[1]):
        reach_penalty = loser
    scope, ev = _scope_out(state, new_fs, loser, rng, rnd)
    events += ev
    new_fs, over, win, ev = _ending(state, new_fs, rnd)
    events += ev
    if over:
        events.append(Event("over", over_text(win, [[new_fs[0]], [new_fs[1]]]), rnd, data={"winner": win}))
    new = state.model_copy(
        update={
            "round": rnd,
            "sides": ((new_fs[0],), (new_fs[1],)),
            "over": over,
            "winner": win,
            "last_loser": loser,
            "reach_penalty": reach_penalty,
            "inside_reach": inside,
            "scope_penalty": tuple(scope),
        }
    )
    return new, events


def _detailed_points(margin: int, w: Fighter, lo: Fighter, extra: int, state: FightState) -> int:
    """Damage as in simple contests: margin, weapon, gifts, armour and approaches (Damage)."""
    pts = margin + damage_bonus(w.character) - damage_reduction(lo.character) + extra
    if state.track == "physical":
        pts += weapon_damage(w.character) - armour_value(lo.character)
    return pts
