"""Simple contests as fights, one roll settling it (Kalyr RPG ch. 3: Simple Contests; Using Simple
Contests for Fights; Simple Group Contests; Damage)."""

from __future__ import annotations

from fractions import Fraction

from ...forecast.chance import Chance
from ...rules import side_label
from ...rules.protocol import Event
from .checks import FudgeRolls, group_margins, outnumbering_penalties, roll_line
from .damage import armament_bonus
from .fight_state import Bout, Contest, Exchange, Exchanging, Played, contest_wound, over_text, reach_rank
from .ladder import level_name
from .wounds import severity_for_damage

__all__ = ["contest_result", "group_winner", "one_on_one_bonus", "roll_off", "simple_round"]


def group_winner(own: list[int], other: list[int]) -> int | None:
    """The side with the better average result wins (0 or 1); equal averages: None (Simple Group Contests)."""
    a, b = sum(own) * len(other), sum(other) * len(own)
    return 0 if a > b else 1 if b > a else None


def contest_result(outcome: int | None, on_tie: str, gone: tuple[bool, bool]) -> tuple[bool, int | None]:
    """Whether a simple contest is over after a roll, and who won (Simple Contests; Using Simple Contests
    for Fights): the roll's winner wins; a tie is an honourable draw under ``on_tie="draw"``, else it is
    rolled again unless a side has nobody left in (``gone``), which loses."""
    if outcome is not None:
        return True, outcome
    if on_tie == "draw":
        return True, None
    for s in (0, 1):
        if gone[s]:
            return True, 1 - s
    return False, None


def one_on_one_bonus(c: Contest, a: int, b: int) -> tuple[tuple[int, int], list[str]]:
    """One against one in a physical contest (Using Simple Contests for Fights): the better-armed
    fighter's bonus (:func:`.damage.armament_bonus`), and the house rule's bonus for a much longer
    reach (two steps or more); fighter a's and b's, with the reasons."""
    st, hr = c.state, c.state.house_rules
    fa, fb = c.fighters[a], c.fighters[b]
    bonus, said = [0, 0], []
    if hr.simple_armament_bonus and st.track == "physical":
        ba, bb = armament_bonus(fa.character, fb.character)
        bonus = [ba, bb]
        if ba or bb:
            said.append(f"{(fa if ba else fb).name} is better armed: {max(ba, bb):+d}")
    if hr.simple_reach_bonus and st.track == "physical" and not st.ranged:
        reach = [reach_rank(fa), reach_rank(fb)]
        if abs(reach[0] - reach[1]) >= 2:
            longer = 0 if reach[0] > reach[1] else 1
            bonus[longer] += hr.simple_reach_bonus
            said.append(f"{(fa, fb)[longer].name} has much the longer reach: {hr.simple_reach_bonus:+d}")
    return (bonus[0], bonus[1]), said


def _before_the_roll(c: Contest, b: Bout) -> tuple[list[list[int]], Exchanging]:
    """Who rolls (fighters still in) and each roller's modifiers, with the reasons: the roll as an event."""
    hr = c.state.house_rules
    active = [[j for j in c.members[s] if not b.fighters[j].out] for s in (0, 1)]
    notes: list[str] = []
    mods = []
    for s in (0, 1):
        row = []
        for j in active[s]:
            w, why = c.penalty(j, b.fighters[j].status)
            if w:
                notes.append(f"{c.fighters[j].name} wounds {w:+d} ({why})")
            row.append(w)
        mods.append(row)
    one_on_one = len(active[0]) == 1 and len(active[1]) == 1
    if one_on_one:
        bonus, said = one_on_one_bonus(c, active[0][0], active[1][0])
        mods[0][0] += bonus[0]
        mods[1][0] += bonus[1]
        notes += said
    if not one_on_one and len(active[0]) != len(active[1]):
        small = 0 if len(active[0]) < len(active[1]) else 1
        levels = [c.level[j] + m for j, m in zip(active[small], mods[small], strict=True)]
        for i, p in enumerate(outnumbering_penalties(levels, len(active[1 - small]), hr.outnumbering_max_penalty)):
            mods[small][i] += p
            if p:
                notes.append(f"{c.fighters[active[small][i]].name} is outnumbered: {p:+d}")
    dice = FudgeRolls(tuple(c.fighters[j].name for j in active[0] + active[1]))
    rnd = b.played + 1
    effective = [[c.level[j] + m for j, m in zip(active[s], mods[s], strict=True)] for s in (0, 1)]
    extra = [  # what each fighter's damage adds to the margin: the foe's weapon and gifts, own armour, approaches
        [c.dconst[foe][j] + c.approach[j] + c.approach[foe] for j, foe in _paired(active[s], active[1 - s])]
        for s in (0, 1)
    ]

    def play(chance: Chance) -> Exchange:
        return roll_off(c, active, effective, extra, notes, dice, rnd, chance)

    key = ("roll", tuple(map(tuple, active)), tuple(map(tuple, mods)))
    return active, Exchanging(play, key, c.memo)


def _paired(own: list[int], foes: list[int]) -> list[tuple[int, int]]:
    """Each fighter with the foe whose side's average they are measured against for damage."""
    return [(j, foes[i % len(foes)]) for i, j in enumerate(own)]


def roll_off(
    c: Contest,
    active: list[list[int]],
    levels: list[list[int]],
    extra: list[list[int]],
    notes: list[str],
    dice: FudgeRolls,
    rnd: int,
    chance: Chance,
) -> Exchange:
    """The roll of a simple (or group) contest: every fighter still in rolls, the better average wins;
    without fixed stakes both sides can be hurt (margins from the other side's average, Damage), with
    stakes the losing side takes them. Reads results only through their differences
    (:class:`.checks.FudgeRolls`)."""
    st, narrate = c.state, chance.narrate
    rolled = chance.draw(dice)
    t, n0 = rolled.totals, len(levels[0])
    results = [[x + t[i] for i, x in enumerate(levels[0])], [x + t[n0 + i] for i, x in enumerate(levels[1])]]
    outcome = group_winner(results[0], results[1])
    wounds: list[tuple[int, int]] = []
    whys: list[tuple[str, int | None]] = []  # the log's reasons, when narrating
    if st.stakes is not None:
        if outcome is not None:
            wounds = [(j, st.stakes) for j in active[1 - outcome]]
            whys = [("stakes", None)] * len(wounds)
    else:
        for s in (0, 1):
            for j, margin, more in zip(active[s], group_margins(results[s], results[1 - s]), extra[s], strict=True):
                wounds.append((j, severity_for_damage(margin + more)))
                if narrate:
                    whys.append((f"damage to {c.fighters[j].name}", margin + more))
    if not narrate:
        return Exchange(outcome, tuple(wounds))
    names = [c.fighters[j].name for j in active[0] + active[1]]
    lines = [roll_line(*x) for x in zip(names, levels[0] + levels[1], rolled.records, strict=True)]
    avg = [Fraction(sum(r), len(r)) for r in results]
    verdict = "Tie: the contest is unresolved." if outcome is None else f"Side {side_label(outcome)} wins."
    data = {
        "results": [[level_name(x) for x in r] for r in results],
        "modifiers": [[x - c.level[j] for j, x in zip(active[s], levels[s], strict=True)] for s in (0, 1)],
        "averages": [float(a) for a in avg],
        "winner": outcome,
    }
    said = Event("contest", "; ".join(notes + lines) + ". " + verdict, rnd, data=data, rolls=rolled.records)
    return Exchange(outcome, tuple(wounds), (said, tuple(whys)))


def simple_round(c: Contest, b: Bout, chance: Chance) -> Played:
    """One roll of a simple (or group) contest (:func:`roll_off`), its wounds marked; the contest ends
    with a winner, or on a tie rolls again or is an honourable draw (``on_tie``), or at the round cap."""
    st = c.state
    rnd = b.played + 1
    pre = c.memo.get(b)
    if pre is None:
        pre = c.memo[b] = _before_the_roll(c, b)
    ex = chance.draw(pre[1])
    outcome = ex.winner
    log: list[Event] | None = [ex.said[0]] if chance.narrate else None
    fs = list(b.fighters)
    marks: list[tuple[int, int, int]] = []
    for k, (j, severity) in enumerate(ex.wounds):
        why, pts = ex.said[1][k] if log is not None else ("", None)
        contest_wound(c, fs, j, severity, marks, log, rnd, why, pts)
    gone = (all(fs[j].out for j in c.members[0]), all(fs[j].out for j in c.members[1]))
    over, winner = contest_result(outcome, st.on_tie, gone)
    if outcome is None and st.on_tie == "draw" and log is not None:
        log.append(Event("draw", "The parties break off: an honourable draw.", rnd))
    if c.count and not over and rnd >= st.max_rounds:
        over = True
        if log is not None:
            log.append(Event("draw", f"No result after {rnd} rolls: called a draw.", rnd))
    if over and log is not None:
        log.append(Event("over", over_text(winner, st.sides), rnd, data={"winner": winner}))
    new = b._replace(fighters=tuple(fs), first=False, over=over, winner=winner, played=rnd if c.count else 0)
    return Played(new, log or [], marks)
