"""Ability checks and contests (Kalyr RPG ch. 3, Resolving Contests), with exact odds.

Four Fudge dice shift an ability along the Trait Ladder. A check is unopposed (against a
difficulty), open-ended (no difficulty: the result says how well it went), opposed (best result
wins, a tie leaves it unresolved) or a simple group contest (best average wins).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from itertools import product
from typing import Literal

from pydantic import Field, model_validator

from ...dice import DiceRng, RollRecord, roll
from ...errors import CheckError
from ...odds import distribution
from ...rules.models import Check, Model
from ...rules.outcome import Outcome, OutcomeOdds
from .ladder import FAIR, Level, level_name
from .modifiers import (
    Quality,
    RaceStanding,
    equipment_modifier,
    race_penalty,
    rank_modifier_for_gap,
    similar_ability_modifier,
    situation_modifier,
)
from .options import KalyrHouseRules

__all__ = [
    "AbilityRoll",
    "CheckRoll",
    "Checked",
    "FudgeRoll",
    "FudgeRolls",
    "FudgeTotals",
    "GroupCheck",
    "OpenCheck",
    "OpposedCheck",
    "UnopposedCheck",
    "check_odds",
    "dice_text",
    "group_margins",
    "judge",
    "outnumbering_penalties",
    "resolve_check",
    "retro_shift",
    "roll_line",
    "roll_pmf",
]

SYSTEM_NAME = "kalyr"
FOUR_DF = "4dF"


class AbilityRoll(Model):
    """One character's side of a check: an ability (or two), the total modifier, and how to combine.

    ``second`` with ``combine="best"``: two relevant abilities, keep the better roll (only when
    both are Fair or better, else only the better ability is rolled - ruling K7).
    ``combine="worst"``: an action needing both abilities, keep the worse roll.
    ``automatic``: a Fudge point spent before rolling for an automatic +2 instead of the dice.
    """

    ability: Level
    modifier: int = Field(0, ge=-10, le=10)
    second: Level | None = None
    combine: Literal["best", "worst"] = "best"
    automatic: bool = False
    name: str = ""
    equipment: Quality = Field("normal", description="very good equipment +1, very poor or improvised -1 (Modifiers)")
    situation: int = Field(0, ge=-2, le=2, description="a situational advantage of +1 or even +2 (Modifiers)")
    similar: int = Field(
        0, ge=-3, le=0, description="a similar ability used instead, at -1 or -2 (Deciding What Ability to Use)"
    )
    race: RaceStanding = Field(
        "same", description="persuading someone of another race -1, a Very Intolerant one -2 (Modifiers)"
    )
    rank_gap: int = Field(
        0,
        ge=-6,
        le=6,
        description="persuading: levels the target's highest connection is above yours (-1 each); "
        "below yours: +1 (Modifiers)",
    )

    @property
    def named_modifiers(self) -> list[tuple[str, int]]:
        """The Modifiers section's named modifiers on this roll, each from its rule function."""
        parts = [
            ("equipment", equipment_modifier(self.equipment)),
            ("situation", situation_modifier(self.situation)),
            ("similar ability", similar_ability_modifier(self.similar)),
            ("other race", race_penalty(self.race)),
            ("social rank", rank_modifier_for_gap(self.rank_gap)),
        ]
        return [(what, v) for what, v in parts if v]

    @property
    def total_modifier(self) -> int:
        """The free ``modifier`` plus every named modifier."""
        return self.modifier + sum(v for _, v in self.named_modifiers)

    @property
    def effective(self) -> int:
        return self.ability + self.total_modifier

    def rolls_two(self) -> bool:
        """Whether two dice rolls are made (Deciding What Ability to Use)."""
        if self.second is None:
            return False
        if self.combine == "worst":
            return True
        return self.ability >= FAIR and self.second >= FAIR

    def levels(self) -> tuple[int, ...]:
        """The effective level of each ability rolled."""
        if self.second is None:
            return (self.effective,)
        if self.rolls_two():
            return (self.effective, self.second + self.total_modifier)
        return (max(self.ability, self.second) + self.total_modifier,)

    def who(self, default: str) -> str:
        return self.name or default


class UnopposedCheck(Check):
    """Against a force of nature: meet or beat the difficulty. ``partial`` is a lower mark the GM
    may set for a partial success (Some Examples: Marlith, Luanu)."""

    kind: Literal["unopposed"] = "unopposed"
    actor: AbilityRoll
    difficulty: Level = FAIR
    partial: Level | None = None

    @model_validator(mode="after")
    def _partial_below(self) -> UnopposedCheck:
        if self.partial is not None and self.partial >= self.difficulty:
            raise ValueError("the partial-success mark must be below the difficulty")
        return self

    def describe(self) -> str:
        return f"{_describe_roll(self.actor)} against {level_name(self.difficulty)}"


class OpenCheck(Check):
    """No difficulty set in advance: the result says how well it went (research, art, performance)."""

    kind: Literal["open"] = "open"
    actor: AbilityRoll

    def describe(self) -> str:
        return f"{_describe_roll(self.actor)}, open-ended"


class OpposedCheck(Check):
    """Against another character: the better result wins; a tie leaves the contest unresolved."""

    kind: Literal["opposed"] = "opposed"
    actor: AbilityRoll
    opponent: AbilityRoll

    def describe(self) -> str:
        return f"{_describe_roll(self.actor)} vs {_describe_roll(self.opponent)}"


class GroupCheck(Check):
    """A simple group contest: every participant rolls, the side with the better average wins.

    With ``outnumbering`` the smaller side's penalties are added automatically (Simple Group Contests).
    """

    kind: Literal["group"] = "group"
    side: tuple[AbilityRoll, ...] = Field(min_length=1)
    opposition: tuple[AbilityRoll, ...] = Field(min_length=1)
    outnumbering: bool = True

    def describe(self) -> str:
        return f"group contest, {len(self.side)} against {len(self.opposition)}"


AnyCheck = UnopposedCheck | OpenCheck | OpposedCheck | GroupCheck

CHECK_TYPES: dict[str, type[Check]] = {
    "unopposed": UnopposedCheck,
    "open": OpenCheck,
    "opposed": OpposedCheck,
    "group": GroupCheck,
}


def _describe_roll(r: AbilityRoll) -> str:
    text = level_name(r.ability)
    if r.second is not None:
        text += f" {'or' if r.combine == 'best' else 'and'} {level_name(r.second)}"
    if r.modifier:
        text += f" {r.modifier:+d}"
    for what, v in r.named_modifiers:
        text += f" {v:+d} ({what})"
    return (r.name + " " if r.name else "") + text


# ---- the dice --------------------------------------------------------------------------------


def dice_text(record: RollRecord) -> str:
    """Fudge dice as the book writes them: [+][-][ ]."""
    return "".join("[+]" if d.face > 0 else "[-]" if d.face < 0 else "[ ]" for d in record.dice)


def shift_result(level: int, dice_total: int) -> int:
    """Each [+] moves one step up the ladder, each [-] one step down (Ability Checks)."""
    return level + dice_total


def _verb(who: str, verb: str = "roll") -> str:
    return verb if who == "You" else f"{verb}s"


def roll_ability(r: AbilityRoll, rng: DiceRng, who: str) -> tuple[int, list[RollRecord], str]:
    """Roll one side: its result, the dice records, and a plain-words line."""
    if r.automatic:
        result = max(r.levels()) + 2 if r.combine == "best" else min(r.levels()) + 2
        spends = f"{who} {_verb(who, 'spend')} a Fudge point"
        return result, [], f"{spends} for an automatic +2 instead of rolling: {level_name(result)}"
    results, records, parts = [], [], []
    for i, level in enumerate(r.levels()):
        rec = roll(FOUR_DF, rng, label=f"{who}" + (f" (ability {i + 1})" if len(r.levels()) > 1 else ""))
        res = shift_result(level, rec.total)
        results.append(res)
        records.append(rec)
        parts.append(_dice_words(rec, level))
    if len(results) == 1:
        text = f"{who} {_verb(who)} " + parts[0]
        if r.second is not None and not r.rolls_two():
            text += " (only the better ability is rolled: both must be Fair or better to roll twice)"
        return results[0], records, text
    pick = max(results) if r.combine == "best" else min(results)
    how = "the better" if r.combine == "best" else "the worse"
    return pick, records, f"{who} {_verb(who)} " + "; and ".join(parts) + f"; {how} counts: {level_name(pick)}"


def _dice_words(rec: RollRecord, level: int) -> str:
    return (
        f"{dice_text(rec)} ({rec.total:+d}) on {level_name(level)} gives {level_name(shift_result(level, rec.total))}"
    )


def roll_line(who: str, level: int, rec: RollRecord) -> str:
    """The plain-words line of one 4dF roll on a level, as :func:`roll_ability` writes it."""
    return f"{who} {_verb(who)} " + _dice_words(rec, level)


# ---- the dice as events of a round (storymaster.forecast.chance) ------------------------------


@dataclass(frozen=True, slots=True)
class FudgeTotals:
    """What a round reads of 4dF rolls: the totals, and (from the engine) the dice for the log."""

    totals: tuple[int, ...]
    records: tuple[RollRecord, ...] = field(default=(), compare=False)


@cache
def _total_outcomes() -> tuple[tuple[float, FudgeTotals], ...]:
    return tuple((float(p), FudgeTotals((t,))) for t, p in sorted(_four_df().items()))


@cache
def _four_df_counts() -> tuple[tuple[int, int], ...]:
    """Each 4dF total with the number of its 81 ways."""
    return tuple((t, int(p * 81)) for t, p in sorted(_four_df().items()))


@cache
def _relative_outcomes(k: int) -> tuple[tuple[float, FudgeTotals], ...]:
    """The pmf of :func:`relative_totals` over ``k`` independent 4dF totals (counted in integers)."""
    ways: dict[tuple[int, ...], int] = {}
    for combo in product(_four_df_counts(), repeat=k):
        key = relative_totals(tuple(t for t, _ in combo))
        ways[key] = ways.get(key, 0) + math.prod(n for _, n in combo)
    return tuple((n / 81**k, FudgeTotals(key)) for key, n in ways.items())


@cache
def _joint_outcomes(k: int) -> tuple[tuple[float, FudgeTotals], ...]:
    return tuple(
        (math.prod(n for _, n in combo) / 81**k, FudgeTotals(tuple(t for t, _ in combo)))
        for combo in product(_four_df_counts(), repeat=k)
    )


def relative_totals(totals: tuple[int, ...]) -> tuple[int, ...]:
    """Each total less the last one: all a contest that compares results reads of its dice."""
    return tuple(t - totals[-1] for t in totals)


@dataclass(frozen=True, slots=True)
class FudgeRoll:
    """One roller's 4dF: the engine rolls the four dice; the chain sees the nine totals."""

    label: str = ""

    def sample(self, rng: DiceRng) -> FudgeTotals:
        rec = roll(FOUR_DF, rng, label=self.label)
        return FudgeTotals((rec.total,), (rec,))

    def outcomes(self) -> Sequence[tuple[float, FudgeTotals]]:
        return _total_outcomes()


@dataclass(frozen=True, slots=True)
class FudgeRolls:
    """Several rollers' 4dF, one after the other.

    The engine rolls every die (the real totals). With ``relative`` (a contest that only compares
    results) the chain is handed each total less the last roller's (:func:`relative_totals`): the
    round gives the same answer for both, and two rollers have 17 outcomes instead of 81, three 217
    instead of 729. Without it, every combination of the totals.
    """

    labels: tuple[str, ...]
    relative: bool = True

    def sample(self, rng: DiceRng) -> FudgeTotals:
        recs = tuple(roll(FOUR_DF, rng, label=label) for label in self.labels)
        return FudgeTotals(tuple(r.total for r in recs), recs)

    def outcomes(self) -> Sequence[tuple[float, FudgeTotals]]:
        return _relative_outcomes(len(self.labels)) if self.relative else _joint_outcomes(len(self.labels))


@dataclass(frozen=True, slots=True)
class Checked:
    """A check against a difficulty: whether it succeeded, and (from the engine) the dice and the line."""

    ok: bool
    records: tuple[RollRecord, ...] = field(default=(), compare=False)
    text: str = field(default="", compare=False)


@cache
def _check_outcomes(r: AbilityRoll, difficulty: int) -> tuple[tuple[float, Checked], ...]:
    p = sum((q for v, q in roll_pmf(r).items() if v >= difficulty), Fraction(0))
    return tuple((float(q), Checked(ok)) for q, ok in ((p, True), (1 - p, False)) if q > 0)


@dataclass(frozen=True)
class CheckRoll:
    """A roll against a difficulty when the round needs only success or failure."""

    roll: AbilityRoll
    difficulty: int
    who: str

    def sample(self, rng: DiceRng) -> Checked:
        res, recs, text = roll_ability(self.roll, rng, self.who)
        return Checked(res >= self.difficulty, tuple(recs), text)

    def outcomes(self) -> Sequence[tuple[float, Checked]]:
        return _check_outcomes(self.roll, self.difficulty)


# ---- exact odds ------------------------------------------------------------------------------


def _four_df() -> dict[int, Fraction]:
    return distribution(FOUR_DF).pmf()


def roll_pmf(r: AbilityRoll) -> dict[int, Fraction]:
    """Exact distribution of a side's result."""
    if r.automatic:
        levels = r.levels()
        return {(max(levels) if r.combine == "best" else min(levels)) + 2: Fraction(1)}
    dice = _four_df()
    levels = r.levels()
    if len(levels) == 1:
        return {levels[0] + d: p for d, p in dice.items()}
    out: dict[int, Fraction] = {}
    for d1, p1 in dice.items():
        for d2, p2 in dice.items():
            a, b = levels[0] + d1, levels[1] + d2
            v = max(a, b) if r.combine == "best" else min(a, b)
            out[v] = out.get(v, Fraction(0)) + p1 * p2
    return dict(sorted(out.items()))


def _sum_pmf(pmfs: Sequence[dict[int, Fraction]]) -> dict[int, Fraction]:
    total: dict[int, Fraction] = {0: Fraction(1)}
    for pmf in pmfs:
        nxt: dict[int, Fraction] = {}
        for a, pa in total.items():
            for b, pb in pmf.items():
                nxt[a + b] = nxt.get(a + b, Fraction(0)) + pa * pb
        total = nxt
    return total


def _compare(
    pa: dict[int, Fraction], pb: dict[int, Fraction], na: int = 1, nb: int = 1
) -> tuple[Fraction, Fraction, Fraction]:
    """P(a/na > b/nb), P(equal), P(less), exactly."""
    win = tie = lose = Fraction(0)
    for a, x in pa.items():
        for b, y in pb.items():
            lhs, rhs = a * nb, b * na
            if lhs > rhs:
                win += x * y
            elif lhs == rhs:
                tie += x * y
            else:
                lose += x * y
    return win, tie, lose


def check_odds(check: Check, house_rules: KalyrHouseRules | None = None) -> OutcomeOdds:
    """The exact chance of every outcome of a check."""
    hr = house_rules or KalyrHouseRules()
    if isinstance(check, UnopposedCheck):
        pmf = roll_pmf(check.actor)
        probs = {level_name(v): p for v, p in pmf.items()}
        success = {level_name(v) for v in pmf if v >= check.difficulty}
        extra = {"p_fail": sum((p for v, p in pmf.items() if v < check.difficulty), Fraction(0))}
        if check.partial is not None:
            extra["p_partial"] = sum((p for v, p in pmf.items() if check.partial <= v < check.difficulty), Fraction(0))
        return OutcomeOdds(SYSTEM_NAME, check.describe(), probs, frozenset(success), extra)
    if isinstance(check, OpenCheck):
        pmf = roll_pmf(check.actor)
        return OutcomeOdds(
            SYSTEM_NAME,
            check.describe(),
            {level_name(v): p for v, p in pmf.items()},
            frozenset(),
            note="open-ended: no difficulty, the result says how well it went",
        )
    if isinstance(check, OpposedCheck):
        win, tie, lose = _compare(roll_pmf(check.actor), roll_pmf(check.opponent))
        return _wtl(check.describe(), win, tie, lose)
    if isinstance(check, GroupCheck):
        side, opp = group_sides(check, hr)
        win, tie, lose = _compare(
            _sum_pmf([roll_pmf(r) for r in side]), _sum_pmf([roll_pmf(r) for r in opp]), len(side), len(opp)
        )
        return _wtl(check.describe(), win, tie, lose)
    raise CheckError(f"kalyr cannot give odds for a {type(check).__name__}")


def _wtl(name: str, win: Fraction, tie: Fraction, lose: Fraction) -> OutcomeOdds:
    probs = {"win": win, "tie": tie, "lose": lose}
    return OutcomeOdds(SYSTEM_NAME, name, probs, frozenset({"win"}), {"p_win": win, "p_tie": tie, "p_lose": lose})


# ---- group contests --------------------------------------------------------------------------


def outnumbering_penalties(levels: Sequence[int], foes: int, max_penalty: int | None = None) -> list[int]:
    """Penalties for each member of the outnumbered side (Simple Group Contests).

    The foes gang up as evenly as they can, the spare ones on whoever has the highest ability;
    facing k foes costs -(k-1): 2:1 is -1, 3:1 is -2, and seven against three gives the best of
    the three -2 and the others -1 (ruling K6).
    """
    n = len(levels)
    if foes <= n:
        return [0] * n
    base, spare = divmod(foes, n)
    order = sorted(range(n), key=lambda i: -levels[i])
    out = [0] * n
    for rank, i in enumerate(order):
        k = base + (1 if rank < spare else 0)
        pen = max(k - 1, 0)
        if max_penalty is not None:
            pen = min(pen, max_penalty)
        out[i] = -pen
    return out


def group_sides(check: GroupCheck, hr: KalyrHouseRules) -> tuple[list[AbilityRoll], list[AbilityRoll]]:
    """Both sides with outnumbering penalties applied to the smaller one."""
    side, opp = list(check.side), list(check.opposition)
    if not check.outnumbering or len(side) == len(opp):
        return side, opp
    small, big = (side, opp) if len(side) < len(opp) else (opp, side)
    pens = outnumbering_penalties([r.effective for r in small], len(big), hr.outnumbering_max_penalty)
    small = [r.model_copy(update={"modifier": r.modifier + p}) if p else r for r, p in zip(small, pens, strict=True)]
    return (small, big) if len(side) < len(opp) else (big, small)


def group_margins(own: Sequence[int], other: Sequence[int]) -> list[int]:
    """Each character's margin for damage: the other side's average roll minus theirs, rounded down
    (positive for a loser). Kalyr RPG ch. 3, Damage: group contests."""
    total, n = sum(other), len(other)
    return [(total - r * n) // n for r in own]


# ---- judging and resolving -------------------------------------------------------------------


def judge(
    check: Check, results: Sequence[int], hr: KalyrHouseRules | None = None
) -> tuple[str, bool | None, int | None, dict]:
    """Read rolled results (one per roller, in order) as the check's outcome."""
    hr = hr or KalyrHouseRules()
    if isinstance(check, UnopposedCheck):
        r = results[0]
        grade = (
            "success"
            if r >= check.difficulty
            else "partial success"
            if check.partial is not None and r >= check.partial
            else "failure"
        )
        return (
            level_name(r),
            r >= check.difficulty,
            r - check.difficulty,
            {"grade": grade, "result": level_name(r), "difficulty": level_name(check.difficulty)},
        )
    if isinstance(check, OpenCheck):
        return level_name(results[0]), None, None, {"result": level_name(results[0])}
    if isinstance(check, OpposedCheck):
        a, b = results
        res = "win" if a > b else "tie" if a == b else "lose"
        return res, a > b, a - b, {"result": level_name(a), "opponent_result": level_name(b)}
    if isinstance(check, GroupCheck):
        n = len(check.side)
        own, other = list(results[:n]), list(results[n:])
        avg_a, avg_b = Fraction(sum(own), len(own)), Fraction(sum(other), len(other))
        res = "win" if avg_a > avg_b else "tie" if avg_a == avg_b else "lose"
        return (
            res,
            avg_a > avg_b,
            None,
            {
                "side_results": [level_name(x) for x in own],
                "opposition_results": [level_name(x) for x in other],
                "side_average": avg_a,
                "opposition_average": avg_b,
                "side_margins": group_margins(own, other),
                "opposition_margins": group_margins(other, own),
                "results": list(results),
            },
        )
    raise CheckError(f"kalyr cannot resolve a {type(check).__name__}")


def _rollers(check: Check, hr: KalyrHouseRules) -> list[tuple[AbilityRoll, str]]:
    if isinstance(check, (UnopposedCheck, OpenCheck)):
        return [(check.actor, check.actor.who("You"))]
    if isinstance(check, OpposedCheck):
        return [(check.actor, check.actor.who("You")), (check.opponent, check.opponent.who("The opponent"))]
    if isinstance(check, GroupCheck):
        side, opp = group_sides(check, hr)
        return [(r, r.who(f"side A #{i + 1}")) for i, r in enumerate(side)] + [
            (r, r.who(f"side B #{i + 1}")) for i, r in enumerate(opp)
        ]
    raise CheckError(
        f"kalyr cannot resolve a {type(check).__name__}", hint="use an unopposed, open, opposed or group check"
    )


def resolve_check(check: Check, rng: DiceRng, house_rules: KalyrHouseRules | None = None) -> Outcome:
    """Roll the check and explain, in plain words, how the dice made the result."""
    hr = house_rules or KalyrHouseRules()
    results, records, lines = [], [], []
    for r, who in _rollers(check, hr):
        res, recs, text = roll_ability(r, rng, who)
        results.append(res)
        records += recs
        lines.append(text)
    return _outcome(check, results, records, lines, hr)


def _outcome(
    check: Check, results: list[int], records: list[RollRecord], lines: list[str], hr: KalyrHouseRules
) -> Outcome:
    name, success, margin, details = judge(check, results, hr)
    details = {**details, "results": list(results)}
    lines = list(lines)
    if isinstance(check, UnopposedCheck):
        if details["grade"] == "success":
            lines.append(f"{name} meets or beats the difficulty {level_name(check.difficulty)}: success.")
        elif details["grade"] == "partial success":
            lines.append(
                f"{name} falls short of {level_name(check.difficulty)} but reaches {level_name(check.partial)}: "
                "partial success."
            )
        else:
            lines.append(f"{name} is below the difficulty {level_name(check.difficulty)}: failure.")
    elif isinstance(check, OpenCheck):
        lines.append(f"No difficulty was set: a {name} result says how well it went; the GM interprets it.")
    elif isinstance(check, OpposedCheck):
        if name == "tie":
            lines.append(
                "Both results are equal: the contest is unresolved (roll again, or call it an honourable draw)."
            )
        else:
            lines.append(
                f"The {'first' if name == 'win' else 'second'} side has the better result and wins by "
                f"{abs(margin or 0)}."
            )
            if hr.winner_narrates:
                lines.append("The winner narrates the outcome (the GM always narrates information-gathering).")
    elif isinstance(check, GroupCheck):
        a, b = details["side_average"], details["opposition_average"]
        verdict = (
            "side A wins"
            if name == "win"
            else "side B wins"
            if name == "lose"
            else "the averages are equal: unresolved"
        )
        lines.append(f"Average results: side A {float(a):.2f}, side B {float(b):.2f}; {verdict}.")
    return Outcome(SYSTEM_NAME, check.describe(), name, success, "\n".join(lines), tuple(records), margin, details)


def retro_shift(
    check: Check, outcome: Outcome, shifts: Sequence[int], house_rules: KalyrHouseRules | None = None
) -> Outcome:
    """Fudge Points: alter rolled results after the fact by +1 or -1 each (one entry per roller).

    The dice stay as rolled; only the results move. Use :mod:`.fudge` to pay for the shifts.
    """
    hr = house_rules or KalyrHouseRules()
    results = list(outcome.details["results"])
    if len(shifts) != len(results):
        raise CheckError(f"give one shift per roller ({len(results)}), e.g. [1, 0]")
    for s in shifts:
        if abs(s) > hr.max_retro_shifts_per_roll:
            raise CheckError(
                f"a Fudge point shifts a roll by +1 or -1; {s:+d} needs more than the "
                f"{hr.max_retro_shifts_per_roll} allowed per roll",
            )
    new = [r + s for r, s in zip(results, shifts, strict=True)]
    lines = [outcome.explanation, "Fudge points shift the results by " + ", ".join(f"{s:+d}" for s in shifts) + "."]
    out = _outcome(check, new, list(outcome.rolls), lines, hr)
    return out
