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
    FightState,
    Fighter,
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

__all__ = ["detailed_round", "minimum_to_hit"]


def minimum_to_hit(attacker_scale: int, target_scale: int) -> int:
    """The least result that hits, by Scale (Specific rules for Detailed Combats; ruling K15)."""
    gap = attacker_scale - target_scale
    table_ = COMBAT["minimum_to_hit"]
    if gap < 0:
        return parse_level(table_["smaller"])
    return parse_level(table_[str(min(gap, 4))])



def detailed_round(state: FightState, rng: DiceRng) -> tuple[FightState, list[Event]]:
    rnd = state.round + 1
    hr = state.house_rules
    fs = [state.sides[0][0], state.sides[1][0]]
    notes: list[str] = []
    mods = [wound_penalty(f, state, notes) for f in fs]
    can_attack = [True, True]
    reach = [reach_rank(f) for f in fs]
    reach_penalty = state.reach_penalty
    inside = state.inside_reach
    close_vs_long = hr.detailed_reach and sorted(reach) == [0, 2] and not state.ranged
    if hr.detailed_reach and reach[0] != reach[1] and not state.ranged:
        shorter = 0 if reach[0] < reach[1] else 1
        if close_vs_long and not inside:
            can_attack[shorter] = False
            notes.append(f"{fs[shorter].name}'s close weapon cannot reach {fs[1 - shorter].name}'s long one: dodge only")
        else:
            who = shorter if reach_penalty is None and rnd == 1 else reach_penalty
            if who is not None:
                mods[who] -= 1
                notes.append(f"{fs[who].name} has the worse of the reach: -1")
                reach_penalty = who
    for i, f in enumerate(fs):
        foe = fs[1 - i]
        if hr.detailed_all_out and f.tactics.stance != "normal":
            b = int(COMBAT["stance_bonus"][f.tactics.stance])
            mods[i] += b
            notes.append(f"{f.name} {f.tactics.stance.replace('_', '-')}: {b:+d}")
        if hr.detailed_aimed_blows and f.tactics.aim != "none":
            mods[i] += int(COMBAT["aimed_penalty"])
            notes.append(f"{f.name} aims at a small target: {int(COMBAT['aimed_penalty']):+d}")
        if hr.detailed_shields:
            sv = shield_value(foe.character, ranged=state.ranged)
            if sv:
                mods[i] -= sv
                notes.append(f"{foe.name}'s {foe.character.shield} shield: {f.name} {-sv:+d}")
        if hr.detailed_weapon_size and not state.ranged:
            mine = weapon_damage(f.character) + shield_value(f.character)
            theirs = weapon_damage(foe.character) + shield_value(foe.character)
            if theirs - mine >= int(COMBAT["weapon_size_gap"]):
                mods[i] += int(COMBAT["weapon_size_penalty"])
                notes.append(f"{f.name}'s weapon is outsized: {int(COMBAT['weapon_size_penalty']):+d}")
        if state.scope_penalty[i]:
            mods[i] += state.scope_penalty[i]
            notes.append(f"{f.name} is out-manoeuvred: {state.scope_penalty[i]:+d}")
    results, rolls, lines, dice_totals = [], [], [], []
    for i, f in enumerate(fs):
        res, recs, text = roll_fighter(f, mods[i], rng, f.name)
        results.append(res)
        rolls += recs
        lines.append(text)
        dice_totals.append(recs[0].total if recs else None)
    a, b = results
    winner: int | None = 0 if a > b else 1 if b > a else None
    bonus = [0, 0]
    if hr.detailed_all_out:
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
    events: list[Event] = []
    head = "; ".join(notes + lines)
    new_fs = list(fs)
    loser = None if winner is None else 1 - winner
    hit = False
    if winner is None:
        text = f"{head}. Stand-off: nobody is hurt."
        kind = "standoff"
    else:
        w, l = fs[winner], fs[loser]
        need = minimum_to_hit(w.character.scale, l.character.scale) if hr.detailed_minimum_to_hit else -99
        aimed_part = False
        if hr.detailed_aimed_blows and w.tactics.aim != "none":
            aim_level = parse_level("Good" if w.tactics.aim == "good" else "Great")
            aimed_part = results[winner] >= aim_level
            need = max(need, aim_level if w.tactics.aim == "good" else aim_level - 1)
        margin = results[winner] - results[loser]
        if not can_attack[winner]:
            text = f"{head}. {w.name} dodges but cannot strike back this round."
            kind = "dodge"
        elif results[winner] < need:
            text = f"{head}. {w.name} wins but a {level_name(results[winner])} is below the {level_name(need)} needed to hit: stand-off."
            kind = "standoff"
        elif hr.detailed_all_out and w.tactics.stance == "all_out_defence" and not is_critical(hr, dice_totals[winner], margin):
            text = f"{head}. {w.name} fends off the attack from an all-out defence but cannot harm without a critical."
            kind = "defended"
        else:
            hit = True
            kind = "hit"
            text = f"{head}. {w.name} wins by {margin} and hits {l.name}" + (
                " in the part aimed at" if aimed_part else " (not where aimed)" if w.tactics.aim != "none" and hr.detailed_aimed_blows else ""
            ) + "."
    events.append(
        Event(
            kind,
            text,
            rnd,
            data={"results": [level_name(x) for x in results], "modifiers": list(mods), "winner": winner, "hit": hit, "notes": notes},
            rolls=tuple(rolls),
        )
    )
    app = fs[0].tactics.approach + fs[1].tactics.approach
    if hit and winner is not None:
        w, l = fs[winner], fs[loser]
        pts = _detailed_points(results[winner] - results[loser], w, l, app + bonus[winner], state)
        new_fs[loser], ev = wound_fighter(l, halve_for_detailed(pts), state, rnd, f"damage to {l.name} ({pts} halved, rounding up)")
        events += ev
        if hr.detailed_winner_takes_damage:
            pts_w = _detailed_points(results[loser] - results[winner], l, w, app + bonus[loser], state)
            new_fs[winner], ev = wound_fighter(w, halve_for_detailed(pts_w), state, rnd, f"damage to {w.name} ({pts_w} halved)")
            events += ev
    # reach bookkeeping for the next round
    next_inside = inside
    if close_vs_long and not inside:
        shorter = 0 if reach[0] < reach[1] else 1
        if loser != shorter:
            next_inside = True
            reach_penalty = 1 - shorter
            events.append(Event("reach", f"{fs[shorter].name} ducks inside the long weapon's reach: {fs[1 - shorter].name} is at -1 next round", rnd))
        else:
            reach_penalty = None
    elif hr.detailed_reach and reach[0] != reach[1] and loser is not None:
        reach_penalty = loser
    # all-out defence follow-up
    scope = [0, 0]
    if hr.detailed_all_out and hr.detailed_scope_out:
        for i, f in enumerate(fs):
            if f.tactics.stance == "all_out_defence" and loser != i and not is_out(new_fs[i], state.track):
                lvl_p, _ = ability_level(f.character, "Perception")
                lvl_t, _ = ability_level(f.character, "Tactics")
                try:
                    wmod, _ = wound_modifier(new_fs[i].character, state.track, hr)
                except CheckError:
                    wmod = 0
                r = AbilityRoll(ability=lvl_p, second=lvl_t, combine="best", modifier=wmod)
                res, recs, txt = roll_ability(r, rng, f"{f.name} (Perception/Tactics)")
                ok = res >= hr.scope_out_difficulty
                if ok:
                    scope[1 - i] = int(COMBAT["scope_out_penalty"])
                events.append(
                    Event(
                        "scope",
                        f"{txt}: {'success' if ok else 'failure'} against {level_name(hr.scope_out_difficulty)}"
                        + (f"; {fs[1 - i].name} is at -1 next round" if ok else ""),
                        rnd,
                        f.name,
                        rolls=tuple(recs),
                    )
                )
    # withdrawals and the end
    over, win = False, None
    for i, f in enumerate(new_fs):
        if status_of(f, state.track) >= DEFEATED:
            over, win = True, 1 - i
            break
    if not over:
        for i, f in enumerate(new_fs):
            wa = f.tactics.withdraw_at
            if wa is not None and status_of(f, state.track) >= wa:
                new_fs[i] = f.model_copy(update={"withdrawn": True})
                events.append(Event("withdraw", f"{f.name} is {severity_name(status_of(f, state.track))} and admits defeat", rnd, f.name))
                over, win = True, 1 - i
                break
    if not over and rnd >= state.max_rounds:
        over = True
        events.append(Event("draw", f"No result after {rnd} rounds: called a draw.", rnd))
    if over:
        sides = ((new_fs[0],), (new_fs[1],))
        events.append(Event("over", over_text(win, sides), rnd, data={"winner": win}))
    new = state.model_copy(
        update={
            "round": rnd,
            "sides": ((new_fs[0],), (new_fs[1],)),
            "over": over,
            "winner": win,
            "last_loser": loser,
            "reach_penalty": reach_penalty,
            "inside_reach": next_inside,
            "scope_penalty": tuple(scope),
        }
    )
    return new, events


def _detailed_points(margin: int, w: Fighter, l: Fighter, extra: int, state: FightState) -> int:
    pts = margin + damage_bonus(w.character) - damage_reduction(l.character) + extra
    if state.track == "physical":
        pts += weapon_damage(w.character) - armour_value(l.character)
    return pts


