"""Simple contests as fights, one roll settling it (Kalyr RPG ch. 3: Simple Contests; Using Simple
Contests for Fights; Simple Group Contests; Damage)."""

from __future__ import annotations

from fractions import Fraction

from ...dice import DiceRng, RollRecord
from ...rules import side_label
from ...rules.protocol import Event
from .character import armour_value, damage_bonus, damage_reduction, weapon_damage
from .checks import group_margins, outnumbering_penalties
from .damage import armament_bonus
from .fight_state import (
    FightState,
    is_out,
    over_text,
    reach_rank,
    roll_fighter,
    wound_fighter,
    wound_fighter_by_severity,
    wound_penalty,
)
from .ladder import level_name

__all__ = ["simple_round"]


def simple_round(state: FightState, rng: DiceRng) -> tuple[FightState, list[Event]]:
    rnd = state.round + 1
    hr = state.house_rules
    sides = [list(s) for s in state.sides]
    active = [[f for f in s if not is_out(f, state.track)] for s in sides]
    notes: list[str] = []
    mods = [[wound_penalty(f, state, notes) for f in s] for s in active]
    one_on_one = len(active[0]) == 1 and len(active[1]) == 1
    if one_on_one and hr.simple_armament_bonus and state.track == "physical":
        ba, bb = armament_bonus(active[0][0].character, active[1][0].character)
        mods[0][0] += ba
        mods[1][0] += bb
        if ba or bb:
            notes.append(f"{(active[0] if ba else active[1])[0].name} is better armed: {max(ba, bb):+d}")
    if one_on_one and hr.simple_reach_bonus and state.track == "physical" and not state.ranged:
        reach = [reach_rank(active[0][0]), reach_rank(active[1][0])]
        if abs(reach[0] - reach[1]) >= 2:
            longer = 0 if reach[0] > reach[1] else 1
            mods[longer][0] += hr.simple_reach_bonus
            notes.append(f"{active[longer][0].name} has much the longer reach: {hr.simple_reach_bonus:+d}")
    if not one_on_one and len(active[0]) != len(active[1]):
        small = 0 if len(active[0]) < len(active[1]) else 1
        pens = outnumbering_penalties(
            [f.level + m for f, m in zip(active[small], mods[small], strict=True)],
            len(active[1 - small]),
            hr.outnumbering_max_penalty,
        )
        for i, p in enumerate(pens):
            mods[small][i] += p
            if p:
                notes.append(f"{active[small][i].name} is outnumbered: {p:+d}")
    results: list[list[int]] = [[], []]
    rolls: list[RollRecord] = []
    lines: list[str] = []
    for s in (0, 1):
        for f, m in zip(active[s], mods[s], strict=True):
            res, recs, text = roll_fighter(f, m, rng, f.name)
            results[s].append(res)
            rolls += recs
            lines.append(text)
    avg = [Fraction(sum(r), len(r)) for r in results]
    outcome = 0 if avg[0] > avg[1] else 1 if avg[1] > avg[0] else None
    events = [
        Event(
            "contest",
            "; ".join(notes + lines)
            + ". "
            + ("Tie: the contest is unresolved." if outcome is None else f"Side {side_label(outcome)} wins."),
            rnd,
            data={
                "results": [[level_name(x) for x in r] for r in results],
                "modifiers": mods,
                "averages": [float(a) for a in avg],
                "winner": outcome,
            },
            rolls=tuple(rolls),
        )
    ]
    # damage
    new_active = [list(a) for a in active]
    if state.stakes is not None:
        if outcome is not None:
            for i, f in enumerate(new_active[1 - outcome]):
                new_active[1 - outcome][i], ev = wound_fighter_by_severity(f, state.stakes, state, rnd, "stakes")
                events += ev
    else:
        for s in (0, 1):
            margins = group_margins(results[s], results[1 - s])
            for i, f in enumerate(new_active[s]):
                foe = active[1 - s][i % len(active[1 - s])]
                app = f.tactics.approach + foe.tactics.approach
                pts = margins[i] + damage_bonus(foe.character) - damage_reduction(f.character) + app
                if state.track == "physical":
                    pts += weapon_damage(foe.character) - armour_value(f.character)
                new_active[s][i], ev = wound_fighter(f, pts, state, rnd, f"damage to {f.name}")
                events += ev
    # write back
    for s in (0, 1):
        by_name = {id(a): b for a, b in zip(active[s], new_active[s], strict=True)}
        sides[s] = [by_name.get(id(f), f) for f in sides[s]]
    over, winner = False, None
    if outcome is not None:
        over, winner = True, outcome
    elif state.on_tie == "draw":
        over = True
        events.append(Event("draw", "The parties break off: an honourable draw.", rnd))
    for s in (0, 1):
        if all(is_out(f, state.track) for f in sides[s]) and not over:
            over, winner = True, 1 - s
    if not over and rnd >= state.max_rounds:
        over = True
        events.append(Event("draw", f"No result after {rnd} rolls: called a draw.", rnd))
    if over:
        events.append(Event("over", over_text(winner, sides), rnd, data={"winner": winner}))
    new = state.model_copy(
        update={"round": rnd, "sides": tuple(tuple(s) for s in sides), "over": over, "winner": winner}
    )
    return new, events
