"""Fights as a pure state machine (Kalyr RPG ch. 3: Using Simple Contests for Fights, Simple Group
Contests, Damage, Detailed Contests, Specific rules for Detailed Combats).

``mode="simple"``: one opposed roll (or group roll) settles the contest; both parties can take
damage; a tie leaves it unresolved (roll again or call it a draw). ``mode="detailed"``: one-on-one
rounds with halved damage until someone is Defeated or withdraws. Every choice a fighter makes
comes from their :class:`Tactics`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from ...dice import DiceRng, RollRecord
from ...errors import CombatError, CheckError
from ...rules.models import HouseRules, Model
from ...rules.protocol import Event
from .abilities import ability_level, wound_modifier
from .character import (
    Character,
    armour_value,
    damage_bonus,
    damage_reduction,
    shield_value,
    weapon_damage,
    weapon_reach,
)
from .checks import AbilityRoll, group_margins, outnumbering_penalties, roll_ability
from .damage import armament_bonus, halve_for_detailed, take_wound
from .data_files import table
from .ladder import level_name, parse_level
from .options import KalyrHouseRules
from .wounds import DEFEATED, DESTROYED, Severity, TrackName, severity_for_damage, severity_name

__all__ = ["FightState", "Fighter", "KalyrCombat", "Tactics", "minimum_to_hit"]

_C = table("combat")
MAX_ROUNDS = 200


class Tactics(Model):
    """How a fighter fights; every automatic choice comes from here."""

    ability: str | None = Field(None, description="the ability to fight with (default: the best on the contest's track)")
    approach: int = Field(0, ge=-2, le=2, description="aggressive +1/+2, cautious -1/-2 (Damage)")
    stance: Literal["normal", "all_out_offence", "all_out_defence"] = "normal"
    aim: Literal["none", "good", "great"] = Field("none", description="aim at a small body part: needs Good or Great (detailed only)")
    withdraw_at: Severity | None = Field(None, description="admit defeat once this wound level is reached (detailed only)")
    fudge_reduce_at: Literal["never", "defeated", "destroyed"] = Field(
        "destroyed", description="spend Fudge points to reduce a wound that would leave you at this level or worse"
    )


class Fighter(Model):
    character: Character
    tactics: Tactics = Tactics()
    ability: str
    level: int
    withdrawn: bool = False

    @property
    def name(self) -> str:
        return self.character.name


class FightState(Model):
    """A fight in progress: frozen and JSON-serialisable."""

    mode: Literal["simple", "detailed"] = "simple"
    track: TrackName = "physical"
    ranged: bool = False
    on_tie: Literal["reroll", "draw"] = "reroll"
    stakes: Severity | None = Field(None, description="a fixed wound the loser takes instead of margin damage (simple contests)")
    round: int = 0
    sides: tuple[tuple[Fighter, ...], ...]
    house_rules: KalyrHouseRules = KalyrHouseRules()
    over: bool = False
    winner: int | None = None
    last_loser: int | None = None
    reach_penalty: int | None = Field(None, description="side index carrying the reach -1 this round")
    inside_reach: bool = False
    scope_penalty: tuple[int, int] = (0, 0)
    max_rounds: int = Field(MAX_ROUNDS, ge=1)


def minimum_to_hit(attacker_scale: int, target_scale: int) -> int:
    """The least result that hits, by Scale (Specific rules for Detailed Combats; ruling K15)."""
    gap = attacker_scale - target_scale
    table_ = _C["minimum_to_hit"]
    if gap < 0:
        return parse_level(table_["smaller"])
    return parse_level(table_[str(min(gap, 4))])


def _best_ability(character: Character, track: TrackName) -> str:
    on_track = [a for a in character.abilities if a.track == track]
    if not on_track:
        return "(none)"
    return max(on_track, key=lambda a: a.level).name


def _fighter(character: Character, tactics: Tactics, track: TrackName) -> Fighter:
    name = tactics.ability or _best_ability(character, track)
    level, _ = ability_level(character, name)
    return Fighter(character=character, tactics=tactics, ability=name, level=level)


def _status(f: Fighter, track: TrackName) -> int:
    return f.character.damage.track(track).status


def _out(f: Fighter, track: TrackName) -> bool:
    return f.withdrawn or _status(f, track) >= DEFEATED


class KalyrCombat:
    """The Kalyr fight engine (satisfies :class:`storymaster.rules.CombatEngine`)."""

    def start(
        self,
        sides: Sequence[Sequence[BaseModel]],
        *,
        house_rules: HouseRules | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> FightState:
        """A fresh fight. ``options``: mode (simple/detailed), track, ranged, on_tie (reroll/draw),
        stakes (a wound level), tactics (one mapping per side), max_rounds."""
        opts = dict(options or {})
        hr = house_rules if isinstance(house_rules, KalyrHouseRules) else KalyrHouseRules()
        if house_rules is not None and not isinstance(house_rules, KalyrHouseRules):
            raise CombatError("kalyr fights take KalyrHouseRules")
        if len(sides) != 2 or any(len(s) == 0 for s in sides):
            raise CombatError("a Kalyr contest has two sides, each with at least one character")
        mode = opts.get("mode", "simple")
        track = opts.get("track", "physical")
        tactics_in = opts.get("tactics") or [{}, {}]
        if len(tactics_in) != 2:
            raise CombatError("give one tactics mapping per side")
        try:
            tactics = [t if isinstance(t, Tactics) else Tactics.model_validate(t) for t in tactics_in]
        except ValidationError as exc:
            raise CombatError(f"bad tactics: {exc.errors()[0]['msg']} at {exc.errors()[0]['loc']}") from None
        if mode == "detailed" and any(len(s) != 1 for s in sides):
            raise CombatError(
                "a detailed contest is fought one-on-one", hint="use a simple group contest (mode 'simple') for several on a side"
            )
        built = []
        for i, side in enumerate(sides):
            members = []
            for c in side:
                if not isinstance(c, Character):
                    raise CombatError(f"side {i + 1}: {type(c).__name__} is not a Kalyr character")
                members.append(_fighter(c, tactics[i], track))
            built.append(tuple(members))
        try:
            state = FightState(
                mode=mode,
                track=track,
                ranged=bool(opts.get("ranged", False)),
                on_tie=opts.get("on_tie", "reroll"),
                stakes=opts.get("stakes"),
                sides=tuple(built),
                house_rules=hr,
                max_rounds=int(opts.get("max_rounds", MAX_ROUNDS)),
            )
        except ValidationError as exc:
            err = exc.errors()[0]
            raise CombatError(f"bad fight option {'.'.join(map(str, err['loc']))}: {err['msg']}") from None
        for i, side in enumerate(state.sides):
            if all(_out(f, track) for f in side):
                raise CombatError(f"side {i + 1} is already Defeated on the {track} track and cannot fight")
        return state

    def is_over(self, state: BaseModel) -> bool:
        return bool(state.over)  # type: ignore[attr-defined]

    def winner(self, state: BaseModel) -> int | None:
        return state.winner  # type: ignore[attr-defined]

    def step(self, state: BaseModel, rng: DiceRng) -> tuple[FightState, list[Event]]:
        if not isinstance(state, FightState):
            raise CombatError("not a Kalyr fight state")
        if state.over:
            raise CombatError("the contest is already over")
        if state.mode == "detailed":
            return _detailed_round(state, rng)
        return _simple_round(state, rng)


# ---- simple contests -----------------------------------------------------------------------


def _roll(f: Fighter, modifier: int, rng: DiceRng, label: str) -> tuple[int, list[RollRecord], str]:
    r = AbilityRoll(ability=f.level, modifier=modifier, name=label)
    return roll_ability(r, rng, label)


def _wound(f: Fighter, points: int, state: FightState, rnd: int, why: str) -> tuple[Fighter, list[Event]]:
    return _wound_severity(f, severity_for_damage(points), state, rnd, why, points)


def _wound_severity(f: Fighter, severity: int, state: FightState, rnd: int, why: str, points: int | None = None) -> tuple[Fighter, list[Event]]:
    track = state.track
    reduce = 0
    t = f.tactics.fudge_reduce_at
    if severity > 0 and t != "never":
        limit = DEFEATED if t == "defeated" else DESTROYED
        tr = f.character.damage.track(track)
        while reduce < f.character.fudge_points and severity - reduce > 0:
            box = tr.open_box(severity - reduce)
            if box is None or box < limit:
                break
            reduce += 1
    character, rep = take_wound(f.character, track, severity, fudge_reduce=reduce, advancement=state.house_rules.advancement)
    text = rep.text(f.name)
    if points is not None:
        text = f"{why}: {points} point(s). " + text
    events = [
        Event(
            "wound",
            text,
            rnd,
            f.name,
            {"points": points, "severity": rep.severity, "box": rep.box, "fudge_spent": rep.reduced, "key_due": rep.key_due},
        )
    ]
    return f.model_copy(update={"character": character}), events


def _modifier(f: Fighter, state: FightState, notes: list[str]) -> int:
    try:
        w, why = wound_modifier(f.character, state.track, state.house_rules)
    except CheckError:
        return 0
    if w:
        notes.append(f"{f.name} wounds {w:+d} ({why})")
    return w


def _simple_round(state: FightState, rng: DiceRng) -> tuple[FightState, list[Event]]:
    rnd = state.round + 1
    hr = state.house_rules
    sides = [list(s) for s in state.sides]
    active = [[f for f in s if not _out(f, state.track)] for s in sides]
    notes: list[str] = []
    mods = [[_modifier(f, state, notes) for f in s] for s in active]
    one_on_one = len(active[0]) == 1 and len(active[1]) == 1
    if one_on_one and hr.simple_armament_bonus and state.track == "physical":
        ba, bb = armament_bonus(active[0][0].character, active[1][0].character)
        mods[0][0] += ba
        mods[1][0] += bb
        if ba or bb:
            notes.append(f"{(active[0] if ba else active[1])[0].name} is better armed: {max(ba, bb):+d}")
    if one_on_one and hr.simple_reach_bonus and state.track == "physical" and not state.ranged:
        reach = [_reach_rank(active[0][0]), _reach_rank(active[1][0])]
        if abs(reach[0] - reach[1]) >= 2:
            longer = 0 if reach[0] > reach[1] else 1
            mods[longer][0] += hr.simple_reach_bonus
            notes.append(f"{active[longer][0].name} has much the longer reach: {hr.simple_reach_bonus:+d}")
    if not one_on_one and len(active[0]) != len(active[1]):
        small = 0 if len(active[0]) < len(active[1]) else 1
        pens = outnumbering_penalties([f.level + m for f, m in zip(active[small], mods[small])], len(active[1 - small]), hr.outnumbering_max_penalty)
        for i, p in enumerate(pens):
            mods[small][i] += p
            if p:
                notes.append(f"{active[small][i].name} is outnumbered: {p:+d}")
    results: list[list[int]] = [[], []]
    rolls: list[RollRecord] = []
    lines: list[str] = []
    for s in (0, 1):
        for f, m in zip(active[s], mods[s]):
            res, recs, text = _roll(f, m, rng, f.name)
            results[s].append(res)
            rolls += recs
            lines.append(text)
    avg = [Fraction(sum(r), len(r)) for r in results]
    outcome = 0 if avg[0] > avg[1] else 1 if avg[1] > avg[0] else None
    events = [
        Event(
            "contest",
            "; ".join(notes + lines) + ". " + ("Tie: the contest is unresolved." if outcome is None else f"Side {outcome + 1} wins."),
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
                new_active[1 - outcome][i], ev = _wound_severity(f, state.stakes, state, rnd, "stakes")
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
                new_active[s][i], ev = _wound(f, pts, state, rnd, f"damage to {f.name}")
                events += ev
    # write back
    for s in (0, 1):
        by_name = {id(a): b for a, b in zip(active[s], new_active[s])}
        sides[s] = [by_name.get(id(f), f) for f in sides[s]]
    over, winner = False, None
    if outcome is not None:
        over, winner = True, outcome
    elif state.on_tie == "draw":
        over = True
        events.append(Event("draw", "The parties break off: an honourable draw.", rnd))
    for s in (0, 1):
        if all(_out(f, state.track) for f in sides[s]) and not over:
            over, winner = True, 1 - s
    if not over and rnd >= state.max_rounds:
        over = True
        events.append(Event("draw", f"No result after {rnd} rolls: called a draw.", rnd))
    if over:
        events.append(Event("over", _over_text(winner, sides), rnd, data={"winner": winner}))
    new = state.model_copy(update={"round": rnd, "sides": tuple(tuple(s) for s in sides), "over": over, "winner": winner})
    return new, events


def _over_text(winner: int | None, sides: Sequence[Sequence[Fighter]]) -> str:
    if winner is None:
        return "The contest ends without a winner."
    names = " and ".join(f.name for f in sides[winner])
    return f"{names} win{'s' if len(sides[winner]) == 1 else ''} the contest."


# ---- detailed contests -----------------------------------------------------------------------


def _reach_rank(f: Fighter) -> int:
    return list(_C["reach_order"]).index(weapon_reach(f.character))


def _critical(hr: KalyrHouseRules, dice_total: int | None, margin: int) -> bool:
    if hr.critical_rule == "dice_plus_4":
        return dice_total == 4
    return margin >= 3


def _detailed_round(state: FightState, rng: DiceRng) -> tuple[FightState, list[Event]]:
    rnd = state.round + 1
    hr = state.house_rules
    fs = [state.sides[0][0], state.sides[1][0]]
    notes: list[str] = []
    mods = [_modifier(f, state, notes) for f in fs]
    can_attack = [True, True]
    reach = [_reach_rank(f) for f in fs]
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
            b = int(_C["stance_bonus"][f.tactics.stance])
            mods[i] += b
            notes.append(f"{f.name} {f.tactics.stance.replace('_', '-')}: {b:+d}")
        if hr.detailed_aimed_blows and f.tactics.aim != "none":
            mods[i] += int(_C["aimed_penalty"])
            notes.append(f"{f.name} aims at a small target: {int(_C['aimed_penalty']):+d}")
        if hr.detailed_shields:
            sv = shield_value(foe.character, ranged=state.ranged)
            if sv:
                mods[i] -= sv
                notes.append(f"{foe.name}'s {foe.character.shield} shield: {f.name} {-sv:+d}")
        if hr.detailed_weapon_size and not state.ranged:
            mine = weapon_damage(f.character) + shield_value(f.character)
            theirs = weapon_damage(foe.character) + shield_value(foe.character)
            if theirs - mine >= int(_C["weapon_size_gap"]):
                mods[i] += int(_C["weapon_size_penalty"])
                notes.append(f"{f.name}'s weapon is outsized: {int(_C['weapon_size_penalty']):+d}")
        if state.scope_penalty[i]:
            mods[i] += state.scope_penalty[i]
            notes.append(f"{f.name} is out-manoeuvred: {state.scope_penalty[i]:+d}")
    results, rolls, lines, dice_totals = [], [], [], []
    for i, f in enumerate(fs):
        res, recs, text = _roll(f, mods[i], rng, f.name)
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
                bonus[winner] += int(_C["all_out_offence_punished"])
                notes.append(f"{fs[attacker].name}'s all-out attack fails: {fs[winner].name} wins and gets +2 damage")
            else:
                bonus[attacker] += int(_C["all_out_offence_damage"])
        elif aoo[0] and aoo[1] and winner is not None:
            bonus[winner] += int(_C["all_out_offence_damage"])
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
        elif hr.detailed_all_out and w.tactics.stance == "all_out_defence" and not _critical(hr, dice_totals[winner], margin):
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
        new_fs[loser], ev = _wound(l, halve_for_detailed(pts), state, rnd, f"damage to {l.name} ({pts} halved, rounding up)")
        events += ev
        if hr.detailed_winner_takes_damage:
            pts_w = _detailed_points(results[loser] - results[winner], l, w, app + bonus[loser], state)
            new_fs[winner], ev = _wound(w, halve_for_detailed(pts_w), state, rnd, f"damage to {w.name} ({pts_w} halved)")
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
            if f.tactics.stance == "all_out_defence" and loser != i and not _out(new_fs[i], state.track):
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
                    scope[1 - i] = int(_C["scope_out_penalty"])
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
        if _status(f, state.track) >= DEFEATED:
            over, win = True, 1 - i
            break
    if not over:
        for i, f in enumerate(new_fs):
            wa = f.tactics.withdraw_at
            if wa is not None and _status(f, state.track) >= wa:
                new_fs[i] = f.model_copy(update={"withdrawn": True})
                events.append(Event("withdraw", f"{f.name} is {severity_name(_status(f, state.track))} and admits defeat", rnd, f.name))
                over, win = True, 1 - i
                break
    if not over and rnd >= state.max_rounds:
        over = True
        events.append(Event("draw", f"No result after {rnd} rounds: called a draw.", rnd))
    if over:
        sides = ((new_fs[0],), (new_fs[1],))
        events.append(Event("over", _over_text(win, sides), rnd, data={"winner": win}))
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


