"""Detailed contests, round by round, with the optional detailed-combat rules (Kalyr RPG ch. 3:
Detailed Contests; Specific rules for Detailed Combats)."""

from __future__ import annotations

from dataclasses import dataclass

from ...forecast.chance import Chance
from ...rules.protocol import Event
from .abilities import ability_level
from .character import shield_value, weapon_damage
from .checks import AbilityRoll, CheckRoll, FudgeRolls, roll_line
from .damage import halve_for_detailed
from .fight_state import (
    COMBAT,
    Bout,
    Contest,
    Exchange,
    Exchanging,
    Fighter,
    FightState,
    Played,
    contest_wound,
    is_critical,
    over_text,
    reach_rank,
)
from .ladder import level_name, parse_level
from .options import KalyrHouseRules
from .simple import group_winner
from .wounds import DEFEATED, severity_for_damage, severity_name

__all__ = [
    "Standing",
    "all_out_offence",
    "beaten",
    "blow",
    "detailed_round",
    "exchange",
    "minimum_to_hit",
    "reach_after",
    "reach_before",
    "shield_modifier",
    "stance_modifier",
    "standing",
    "weapon_size_modifier",
]


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


@dataclass(frozen=True)
class Standing:
    """What a detailed contest's optional rules fix for the whole fight, read once (Specific rules for
    Detailed Combats): each fighter's standing modifiers with their reasons, the least result that hits
    when they win (Scale, aimed blows), the level an aimed blow needs, stances, reach, the follow-up roll."""

    parts: tuple[tuple[tuple[str, int], ...], ...]
    need: tuple[int | None, ...]
    aim: tuple[int | None, ...]
    aoo: tuple[bool, bool]
    aod: tuple[bool, bool]
    rank: tuple[int, int]
    reach_live: bool
    close_vs_long: bool
    shorter: int
    dice: FudgeRolls
    scope_levels: tuple[tuple[int, int] | None, ...]


def standing(state: FightState, fs: tuple[Fighter, ...]) -> Standing:
    hr = state.house_rules
    parts, need, aim, scope = [], [], [], []
    for i, f in enumerate(fs):
        foe = fs[1 - i]
        ps: list[tuple[str, int]] = []
        if hr.detailed_all_out and f.tactics.stance != "normal":
            ps.append((f"{f.name} {f.tactics.stance.replace('_', '-')}", stance_modifier(f)))
        if hr.detailed_aimed_blows and f.tactics.aim != "none":
            ps.append((f"{f.name} aims at a small target", int(COMBAT["aimed_penalty"])))
        if hr.detailed_shields:
            ps.append(
                (
                    f"{foe.name}'s {foe.character.shield} shield against {f.name}",
                    shield_modifier(foe, ranged=state.ranged),
                )
            )
        if hr.detailed_weapon_size and not state.ranged:
            ps.append((f"{f.name}'s weapon is outsized", weapon_size_modifier(f, foe)))
        parts.append(tuple(p for p in ps if p[1]))
        least = minimum_to_hit(f.character.scale, foe.character.scale) if hr.detailed_minimum_to_hit else None
        aim_level = None
        if hr.detailed_aimed_blows and f.tactics.aim != "none":
            aim_level = parse_level("Good" if f.tactics.aim == "good" else "Great")
            floor = aim_level if f.tactics.aim == "good" else aim_level - 1
            least = floor if least is None else max(least, floor)
        need.append(least)
        aim.append(aim_level)
        if hr.detailed_all_out and hr.detailed_scope_out and f.tactics.stance == "all_out_defence":
            scope.append((ability_level(f.character, "Perception")[0], ability_level(f.character, "Tactics")[0]))
        else:
            scope.append(None)
    rank = (reach_rank(fs[0]), reach_rank(fs[1]))
    return Standing(
        parts=tuple(parts),
        need=tuple(need),
        aim=tuple(aim),
        aoo=(fs[0].tactics.stance == "all_out_offence", fs[1].tactics.stance == "all_out_offence"),
        aod=tuple(hr.detailed_all_out and f.tactics.stance == "all_out_defence" for f in fs),  # type: ignore[arg-type]
        rank=rank,
        reach_live=hr.detailed_reach and not state.ranged and rank[0] != rank[1],
        close_vs_long=sorted(rank) == [0, 2],
        shorter=0 if rank[0] < rank[1] else 1,
        dice=FudgeRolls((fs[0].name, fs[1].name), relative=False),
        scope_levels=tuple(scope),
    )


def all_out_offence(aoo: tuple[bool, bool], winner: int | None) -> tuple[int | None, tuple[int, int]]:
    """All-out offence: +1 damage on a win; a tie or loss hands the foe the win and +2 damage
    (Specific rules for Detailed Combats; ruling K21 for both attacking all-out). The round's winner
    and each side's extra damage."""
    if aoo[0] != aoo[1]:
        attacker = 0 if aoo[0] else 1
        if winner != attacker:
            punished = int(COMBAT["all_out_offence_punished"])
            return 1 - attacker, (punished, 0) if attacker == 1 else (0, punished)
        gain = int(COMBAT["all_out_offence_damage"])
        return winner, (gain, 0) if attacker == 0 else (0, gain)
    if aoo[0] and aoo[1] and winner is not None:
        gain = int(COMBAT["all_out_offence_damage"])
        return winner, (gain, 0) if winner == 0 else (0, gain)
    return winner, (0, 0)


def blow(
    sd: Standing,
    hr: KalyrHouseRules,
    winner: int,
    results: list[int],
    dice: tuple[int, ...],
    can_attack: list[bool],
) -> str:
    """Whether the round's winner lands a blow: "dodge" (reach: cannot strike back), "standoff" (below
    the minimum to hit: Scale, aimed blows), "defended" (all-out defence harms only on a critical) or "hit"."""
    if not can_attack[winner]:
        return "dodge"
    need = sd.need[winner]
    if need is not None and results[winner] < need:
        return "standoff"
    if sd.aod[winner] and not is_critical(hr, dice[winner], results[winner] - results[1 - winner]):
        return "defended"
    return "hit"


def reach_before(
    sd: Standing, reach: int | None, inside: bool, first: bool
) -> tuple[int | None, int | None, int | None, bool]:
    """Reach before the roll (Specific rules for Detailed Combats; ruling K19): who cannot attack (a
    Close weapon against a Long one, until it has ducked inside), who is at -1 (the shorter weapon in
    round 1, then the previous round's loser), the -1 carried on, and whether this is Close against Long."""
    if not sd.reach_live:
        return None, None, reach, False
    if sd.close_vs_long and not inside:
        return sd.shorter, None, reach, True
    who = sd.shorter if reach is None and first else reach
    return None, who, who, sd.close_vs_long


def reach_after(
    sd: Standing, detailed_reach: bool, carried: int | None, inside: bool, close_vs_long: bool, loser: int | None
) -> tuple[bool, int | None]:
    """Reach after the roll (ruling K19): a Close weapon that did not lose ducks inside the Long one's
    reach (the Long one at -1 next round), one that lost stays out; otherwise the loser carries the -1.
    Whether inside, and who carries the -1."""
    if close_vs_long and not inside:
        return (True, 1 - sd.shorter) if loser != sd.shorter else (False, None)
    if detailed_reach and loser is not None and sd.rank[0] != sd.rank[1]:
        return inside, loser
    return inside, carried


def beaten(status: tuple[int, int], withdraw: tuple[int | None, ...]) -> tuple[int | None, bool]:
    """Who loses the contest after this round (Detailed Contests): the first party Defeated or worse,
    else the first whose wounds reached their ``withdraw_at`` and admits defeat; whether by withdrawal."""
    for i in (0, 1):
        if status[i] >= DEFEATED:
            return i, False
    for i in (0, 1):
        wa = withdraw[i]
        if wa is not None and status[i] >= wa:
            return i, True
    return None, False


def _sentence(c: Contest, kind: str, winner: int | None, results: list[int]) -> str:
    if winner is None:
        return "Stand-off: nobody is hurt."
    sd: Standing = c.detailed
    w, lo = c.fighters[winner], c.fighters[1 - winner]
    if kind == "dodge":
        return f"{w.name} dodges but cannot strike back this round."
    if kind == "standoff":
        need = level_name(sd.need[winner])  # type: ignore[arg-type]
        return f"{w.name} wins but a {level_name(results[winner])} is below the {need} needed to hit: stand-off."
    if kind == "defended":
        return f"{w.name} fends off the attack from an all-out defence but cannot harm without a critical."
    aim = sd.aim[winner]
    where = "" if aim is None else " in the part aimed at" if results[winner] >= aim else " (not where aimed)"
    return f"{w.name} wins by {results[winner] - results[1 - winner]} and hits {lo.name}{where}."


def _before_the_roll(c: Contest, b: Bout) -> tuple[list[int], list[bool], int | None, bool, list[str]]:
    """Every modifier on both fighters' combat skill this round, with the reasons; who can attack
    (reach: Close against Long cannot until it has dodged, ruling K19), who carries the reach -1
    (the shorter weapon in round 1, then the previous round's loser), and whether this is Close against Long."""
    sd: Standing = c.detailed
    notes: list[str] = []
    mods = []
    for i in (0, 1):
        w, why = c.penalty(i, b.fighters[i].status)
        if w:
            notes.append(f"{c.fighters[i].name} wounds {w:+d} ({why})")
        mods.append(w)
    dodger, minus, penalty, close_vs_long = reach_before(sd, b.reach, b.inside, b.first)
    can_attack = [dodger != 0, dodger != 1]
    if dodger is not None:
        short, long = c.fighters[dodger].name, c.fighters[1 - dodger].name
        notes.append(f"{short}'s close weapon cannot reach {long}'s long one: dodge only")
    if minus is not None:
        mods[minus] -= 1
        notes.append(f"{c.fighters[minus].name} has the worse of the reach: -1")
    for i in (0, 1):
        parts = (*sd.parts[i], (f"{c.fighters[i].name} is out-manoeuvred", b.scope[i]))
        for why, value in parts:
            if value:
                mods[i] += value
                notes.append(f"{why}: {value:+d}")
    return mods, can_attack, penalty, close_vs_long, notes


def _scope_roll(c: Contest, i: int, wound: int) -> CheckRoll:
    """The Perception or Tactics roll (the better) after a successful all-out defence (ruling K13)."""
    key = ("scope", i, wound)
    ev = c.memo.get(key)
    if ev is None:
        perception, tactics = c.detailed.scope_levels[i]
        r = AbilityRoll(ability=perception, second=tactics, combine="best", modifier=wound)
        hr = c.state.house_rules
        ev = c.memo[key] = CheckRoll(r, hr.scope_out_difficulty, f"{c.fighters[i].name} (Perception/Tactics)")
    return ev


def exchange(
    c: Contest, mods: list[int], can_attack: list[bool], notes: list[str], rnd: int, chance: Chance
) -> Exchange:
    """The roll of a detailed round: an opposed roll, all-out offence, whether the winner lands a blow
    (:func:`blow`), and its damage halved rounding up (Detailed Contests; the winner's too under ruling
    K11's house rule)."""
    hr, sd = c.state.house_rules, c.detailed
    rolled = chance.draw(sd.dice)
    dice = rolled.totals
    results = [c.level[0] + mods[0] + dice[0], c.level[1] + mods[1] + dice[1]]
    winner = group_winner([results[0]], [results[1]])  # the better result (Resolving Contests)
    bonus = (0, 0)
    if hr.detailed_all_out:
        winner, bonus = all_out_offence(sd.aoo, winner)
    kind = "standoff" if winner is None else blow(sd, hr, winner, results, dice, can_attack)
    wounds: list[tuple[int, int]] = []
    points: list[int] = []
    if kind == "hit" and winner is not None:
        loser, app = 1 - winner, c.approach[0] + c.approach[1]
        points.append(results[winner] - results[loser] + c.dconst[winner][loser] + app + bonus[winner])
        wounds.append((loser, severity_for_damage(halve_for_detailed(points[0]))))
        if hr.detailed_winner_takes_damage:
            points.append(results[loser] - results[winner] + c.dconst[loser][winner] + app + bonus[loser])
            wounds.append((winner, severity_for_damage(halve_for_detailed(points[1]))))
    if not chance.narrate:
        return Exchange(winner, tuple(wounds))
    whys = [
        (f"damage to {c.fighters[j].name} ({pts} halved{', rounding up' if k == 0 else ''})", halve_for_detailed(pts))
        for k, ((j, _), pts) in enumerate(zip(wounds, points, strict=True))
    ]
    fs, notes = c.fighters, list(notes)
    if hr.detailed_all_out and sd.aoo[0] != sd.aoo[1] and winner != (0 if sd.aoo[0] else 1):
        attacker = fs[0 if sd.aoo[0] else 1].name
        notes.append(f"{attacker}'s all-out attack fails: {fs[winner].name} wins and gets +2 damage")  # type: ignore[index]
    lines = [roll_line(fs[i].name, c.level[i] + mods[i], rolled.records[i]) for i in (0, 1)]
    data = {
        "results": [level_name(x) for x in results],
        "modifiers": list(mods),
        "winner": winner,
        "hit": kind == "hit",
        "notes": notes,
    }
    text = "; ".join(notes + lines) + ". " + _sentence(c, kind, winner, results)
    return Exchange(winner, tuple(wounds), (Event(kind, text, rnd, data=data, rolls=rolled.records), tuple(whys)))


def detailed_round(c: Contest, b: Bout, chance: Chance) -> Played:
    """One round of a detailed contest: the roll (:func:`exchange`) and its wounds; reach won or lost;
    the out-manoeuvring roll after an all-out defence; the end when one party is Defeated or admits
    defeat (withdraws), or at the round limit."""
    st, hr, sd = c.state, c.state.house_rules, c.detailed
    rnd = b.played + 1
    pre = c.memo.get(b)
    if pre is None:
        mods, can_attack, reach, close_vs_long, notes = _before_the_roll(c, b)

        def play(chance: Chance) -> Exchange:
            return exchange(c, mods, can_attack, notes, rnd, chance)

        event = Exchanging(play, ("roll", tuple(mods), tuple(can_attack)), c.memo)
        pre = c.memo[b] = (reach, close_vs_long, event)
    reach, close_vs_long, event = pre
    ex = chance.draw(event)
    loser = None if ex.winner is None else 1 - ex.winner
    log: list[Event] | None = [ex.said[0]] if chance.narrate else None
    fs = c.fighters
    new = list(b.fighters)
    marks: list[tuple[int, int, int]] = []
    for k, (j, severity) in enumerate(ex.wounds):
        why, pts = ex.said[1][k] if log is not None else ("", None)
        contest_wound(c, new, j, severity, marks, log, rnd, why, pts)
    inside, reach = reach_after(sd, hr.detailed_reach, reach, b.inside, close_vs_long, loser)
    if inside and not b.inside and log is not None:
        short, long = fs[sd.shorter].name, fs[1 - sd.shorter].name
        log.append(Event("reach", f"{short} ducks inside the long weapon's reach: {long} is at -1 next round", rnd))
    scope = [0, 0]
    for i in (0, 1):
        if sd.scope_levels[i] is None or loser == i or new[i].out:
            continue
        got = chance.draw(_scope_roll(c, i, c.penalty(i, new[i].status)[0]))
        if got.ok:
            scope[1 - i] = int(COMBAT["scope_out_penalty"])
        if log is not None:
            text = f"{got.text}: {'success' if got.ok else 'failure'} against {level_name(hr.scope_out_difficulty)}"
            text += f"; {fs[1 - i].name} is at -1 next round" if got.ok else ""
            log.append(Event("scope", text, rnd, fs[i].name, rolls=got.records))
    lost, withdrew = beaten((new[0].status, new[1].status), c.withdraw)
    over, win = lost is not None, None if lost is None else 1 - lost
    if withdrew and lost is not None:
        new[lost] = new[lost]._replace(withdrawn=True)
        if log is not None:
            text = f"{fs[lost].name} is {severity_name(new[lost].status)} and admits defeat"
            log.append(Event("withdraw", text, rnd, fs[lost].name))
    if c.count and not over and rnd >= st.max_rounds:
        over = True
        if log is not None:
            log.append(Event("draw", f"No result after {rnd} rounds: called a draw.", rnd))
    if over and log is not None:
        log.append(Event("over", over_text(win, [[fs[0]], [fs[1]]]), rnd, data={"winner": win}))
    bout = Bout(tuple(new), False, reach, inside, (scope[0], scope[1]), over, win, rnd if c.count else 0)
    return Played(bout, log or [], marks, loser)
