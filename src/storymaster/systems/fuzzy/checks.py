"""Checks: ability rolls against a target, contests, Luck/Unluck rolls and the lottery; their exact odds.

"Dice-Rolling": roll the ability's dice, add them, meet or beat the target.
"If you are pitting your ability vs. someone else's the higher score wins."
"Karma Will Bite You in the Ass!": Luck and Unluck rolls and the lottery.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from itertools import combinations
from typing import Literal

from pydantic import Field, field_validator, model_validator

from ...dice import DiceRng, RollRecord
from ...errors import CheckError, OddsError
from ...rules import Check, Model, Outcome, OutcomeOdds
from .options import FuzzyHouseRules
from .rolls import (
    MAX_DICE,
    AbilityRoll,
    Critical,
    effective_dice,
    roll_ability,
    roll_distribution,
    total_distribution,
    truncated_mass,
)
from .tables import difficulties, fit_modifiers

__all__ = [
    "AbilityCheck",
    "ContestCheck",
    "KarmaRoll",
    "Lottery",
    "Side",
    "check_odds",
    "resolve_check",
    "target_number",
]

SYSTEM_NAME = "fuzzy"
#: the most entrants whose lottery odds are worked out exactly
MAX_LOTTERY_ODDS = 6

Fit = Literal["fits", "not quite", "barely"]

CRIT_SUCCESS = "critical success"
CRIT_SUCCESS_FAILED = "critical success (still failed)"
SUCCESS = "success"
FAILURE = "failure"
CRIT_FAILURE_SUCCEEDED = "critical failure (still succeeded)"
CRIT_FAILURE = "critical failure"
ABILITY_OUTCOMES = (CRIT_SUCCESS, SUCCESS, CRIT_FAILURE_SUCCEEDED, CRIT_SUCCESS_FAILED, FAILURE, CRIT_FAILURE)


class AbilityCheck(Check):
    """Roll an Ability's dice against a target the GM sets ("Dice-Rolling")."""

    kind: Literal["ability"] = "ability"
    ability: str = Field("", description="What is rolled (for the explanation).")
    dice: int = Field(ge=1, le=MAX_DICE, description="The Ability's rating: how many d6.")
    target: int | str = Field(description="A number, or easy / average / hard / really hard / nigh-impossible.")
    fit: Fit = Field(
        "fits", description="How well the Ability fits the task: +1 'not quite', +2 'barely' to the target."
    )
    target_modifier: int = Field(0, ge=-100, le=100, description="Any other change the GM makes to the target.")
    narrower_skill: int = Field(
        0, ge=0, le=100, description="'Some Spot Rules': the GM may lower the target for a more specific Ability."
    )
    roll_modifier: int = Field(0, ge=-100, le=100, description="Added to the roll.")
    penalty_dice: int = Field(
        0, ge=0, le=MAX_DICE, description="Dice lost to wounds, Clumsy and the like (never below 1 die)."
    )
    unluck_dice: int | None = Field(
        None, ge=0, le=MAX_DICE, description="On a critical failure, roll this many Unluck dice to see how bad it is."
    )
    disability: bool = Field(
        False,
        description="Rolling a Disability: a 'success' means the character feels its bad effects ('Disabilities').",
    )

    @field_validator("target")
    @classmethod
    def _target(cls, v: int | str) -> int | str:
        if isinstance(v, str):
            key = " ".join(v.lower().replace("_", " ").split())
            if key.isdigit():
                v = int(key)
            elif key not in difficulties():
                raise ValueError(f"unknown difficulty {v!r}; use a number or one of: {', '.join(difficulties())}")
            else:
                return key
        if v < 1:
            raise ValueError(f"a target is 1 or more, not {v}")
        if v > 1000:
            raise ValueError("a target above 1000 cannot be met")
        return v

    def describe(self) -> str:
        what = f"{self.ability} " if self.ability else ""
        return f"{what}{self.dice}d6 vs {target_number(self)}"


class Side(Model):
    """One side of a contest: a name, dice, a roll modifier and die penalties."""

    name: str = Field(min_length=1, max_length=80)
    dice: int = Field(ge=1, le=MAX_DICE)
    modifier: int = Field(0, ge=-100, le=100)
    penalty_dice: int = Field(0, ge=0, le=MAX_DICE)


class ContestCheck(Check):
    """Two Abilities pitted against each other: the higher score wins ("Dice-Rolling")."""

    kind: Literal["contest"] = "contest"
    first: Side
    second: Side

    @model_validator(mode="after")
    def _names(self) -> ContestCheck:
        if self.first.name == self.second.name:
            raise ValueError("the two sides of a contest need different names")
        return self

    def describe(self) -> str:
        return f"{_side_text(self.first)} vs {_side_text(self.second)}"


def _side_text(side: Side) -> str:
    text = f"{side.name} {side.dice}d6"
    if side.penalty_dice:
        text += f" (-{side.penalty_dice} dice)"
    return text + (f"{side.modifier:+d}" if side.modifier else "")


class KarmaRoll(Check):
    """A Luck or Unluck roll: against a target (does it happen?) or open (how good or bad?)."""

    kind: Literal["luck", "unluck"] = "luck"
    dice: int = Field(ge=1, le=MAX_DICE)
    target: int | None = Field(None, ge=1, le=1000)

    def describe(self) -> str:
        return f"{self.kind.capitalize()} {self.dice}d6" + (f" vs {self.target}" if self.target else "")


class Lottery(Check):
    """'The lottery': everybody rolls Luck (or Unluck); the event happens to whoever rolls highest."""

    kind: Literal["luck", "unluck"] = "luck"
    entrants: Mapping[str, int] = Field(description="Name -> Luck (or Unluck) dice.")

    @field_validator("entrants")
    @classmethod
    def _entrants(cls, v: Mapping[str, int]) -> Mapping[str, int]:
        if len(v) < 2:
            raise ValueError("a lottery needs at least two entrants")
        if len(v) > 12:
            raise ValueError("a lottery takes at most 12 entrants")
        for name, dice in v.items():
            if not 1 <= dice <= MAX_DICE:
                raise ValueError(f"{name} rolls {dice} dice; give 1 to {MAX_DICE}")
        return dict(v)

    def describe(self) -> str:
        return f"{self.kind.capitalize()} lottery among {', '.join(self.entrants)}"


# -- rules ------------------------------------------------------------------------------


def target_number(check: AbilityCheck) -> int:
    """The final target: the difficulty, plus the ability-fit modifier, plus the GM's change, minus a narrower skill.

    "Dice-Rolling" (easy 4, average 7, hard 11, really hard 14, nigh-impossible 18)
    and "Some suggested modifiers for tasks" (+1 doesn't quite fit, +2 barely relates).
    """
    base = difficulties()[check.target] if isinstance(check.target, str) else check.target
    return base + fit_modifiers()[check.fit] + check.target_modifier - check.narrower_skill


def ability_outcome(critical: Critical, succeeded: bool) -> str:
    """The outcome's name: a critical failure still succeeds if the total is high enough ("Fancy Shit")."""
    if critical == "success":
        return CRIT_SUCCESS if succeeded else CRIT_SUCCESS_FAILED
    if critical == "failure":
        return CRIT_FAILURE_SUCCEEDED if succeeded else CRIT_FAILURE
    return SUCCESS if succeeded else FAILURE


def _dice_phrase(base: int, penalty: int, rolled: int) -> str:
    noun = "die" if rolled == 1 else "dice"
    if not penalty:
        return f"{rolled} {noun}"
    floor = ", but never below one die" if base - penalty < 1 else ""
    return f"{rolled} {noun} ({base} less a penalty of {penalty}{floor})"


def resolve_ability(check: AbilityCheck, rng: DiceRng, house: FuzzyHouseRules) -> Outcome:
    dice = effective_dice(check.dice, check.penalty_dice)
    target = target_number(check)
    r = roll_ability(dice, rng, house, label=check.ability or "roll")
    score = r.total + check.roll_modifier
    ok = score >= target
    result = ability_outcome(r.critical, ok)
    rolls = list(r.records)
    parts = [
        f"{check.ability + ': ' if check.ability else ''}rolled "
        f"{_dice_phrase(check.dice, check.penalty_dice, dice)}: {r.describe()}."
    ]
    mod = f" {check.roll_modifier:+d} = {score}" if check.roll_modifier else ""
    parts.append(
        f"Score {r.total}{mod} against target {_target_text(check, target)}: "
        f"{'made it' if ok else 'missed'} by {abs(score - target)}."
    )
    if check.disability:
        parts.append(
            "This is a Disability: "
            f"{'success means its bad effects are felt' if ok else 'failure means it does not bite this time'}."
        )
    details: dict[str, object] = {
        "dice": dice,
        "score": score,
        "target": target,
        "critical": r.critical,
        "coloured": list(r.coloured),
        "others": list(r.others),
        "check_die": r.check_die,
        "bonus": list(r.bonus),
    }
    if r.critical == "failure":
        parts.append("Critical failure: something bad happens" + (" even though the roll succeeded." if ok else "."))
        if check.unluck_dice:
            u = roll_ability(check.unluck_dice, rng, house, label="Unluck")
            rolls += u.records
            details["unluck"] = u.total
            parts.append(f"Unluck roll ({check.unluck_dice} dice) to see how bad: {u.total}.")
    return Outcome(SYSTEM_NAME, check.describe(), result, ok, " ".join(parts), tuple(rolls), score - target, details)


def _target_text(check: AbilityCheck, target: int) -> str:
    bits = []
    if isinstance(check.target, str):
        bits.append(f"{check.target} {difficulties()[check.target]}")
    if check.fit != "fits":
        bits.append(f"ability fits '{check.fit}' {fit_modifiers()[check.fit]:+d}")
    if check.target_modifier:
        bits.append(f"GM {check.target_modifier:+d}")
    if check.narrower_skill:
        bits.append(f"narrower skill -{check.narrower_skill}")
    return f"{target}" + (f" ({', '.join(bits)})" if bits else "")


def ability_odds(check: AbilityCheck, house: FuzzyHouseRules) -> OutcomeOdds:
    dice = effective_dice(check.dice, check.penalty_dice)
    target = target_number(check)
    probs = {name: Fraction(0) for name in ABILITY_OUTCOMES}
    crit = {"success": Fraction(0), "failure": Fraction(0)}
    for (c, total), p in roll_distribution(dice, house).items():
        probs[ability_outcome(c, total + check.roll_modifier >= target)] += p
        if c is not None:
            crit[c] += p
    probs = {k: p for k, p in probs.items() if p}
    trunc = truncated_mass(dice, house)
    note = (
        f"the critical bonus die re-rolls on a 6 at most {house.critical_bonus_max_explosions} times "
        f"(the GM's limit); the chance the limit cut a chain short is {float(trunc):.3g} (exactly {trunc})"
    )
    return OutcomeOdds(
        SYSTEM_NAME,
        check.describe(),
        probs,
        frozenset({CRIT_SUCCESS, SUCCESS, CRIT_FAILURE_SUCCEEDED}) & probs.keys(),
        extra={
            "p_critical_success": crit["success"],
            "p_critical_failure": crit["failure"],
            "p_failure": sum(
                (probs.get(k, Fraction(0)) for k in (CRIT_SUCCESS_FAILED, FAILURE, CRIT_FAILURE)), Fraction(0)
            ),
        },
        truncated=trunc,
        note=note,
    )


# -- contests --------------------------------------------------------------------------------


def contest_winner(a: int, b: int, house: FuzzyHouseRules) -> int | None:
    """0 if the first side's score wins, 1 for the second, None for a tie left standing (ruling on ties)."""
    if a != b:
        return 0 if a > b else 1
    if house.contest_ties == "defender":
        return 1
    return None


def resolve_contest(check: ContestCheck, rng: DiceRng, house: FuzzyHouseRules) -> Outcome:
    rolls: list[RollRecord] = []
    lines = []
    rounds = 0
    while True:
        rounds += 1
        scores = []
        for side in (check.first, check.second):
            dice = effective_dice(side.dice, side.penalty_dice)
            r = roll_ability(dice, rng, house, label=side.name)
            rolls += r.records
            score = r.total + side.modifier
            scores.append(score)
            mod = f" {side.modifier:+d} = {score}" if side.modifier else ""
            lines.append(
                f"{side.name} rolled {_dice_phrase(side.dice, side.penalty_dice, dice)}: {r.describe()}; score "
                f"{r.total}{mod}."
            )
        win = contest_winner(scores[0], scores[1], house)
        if win is None and house.contest_ties == "reroll":
            if rounds >= 1000:
                raise CheckError("a contest tied 1000 times running")
            lines.append("A tie: both roll again.")
            continue
        break
    a, b = check.first.name, check.second.name
    margin = scores[0] - scores[1]
    if win is None:
        result = "stand-off"
        lines.append(f"A tie at {scores[0]}: a stand-off, nobody wins.")
    else:
        result = f"{(a, b)[win]} wins"
        extra = " (ties go to the second side)" if margin == 0 else f" by {abs(margin)}"
        lines.append(f"{(a, b)[win]} wins{extra}.")
    return Outcome(
        SYSTEM_NAME,
        check.describe(),
        result,
        None if win is None else win == 0,
        " ".join(lines),
        tuple(rolls),
        margin,
        {"scores": scores, "winner": win},
    )


def side_distribution(side: Side, house: FuzzyHouseRules) -> dict[int, Fraction]:
    """Exact distribution of one side's score (criticals' bonus dice included)."""
    dice = effective_dice(side.dice, side.penalty_dice)
    return {t + side.modifier: p for t, p in total_distribution(dice, house).items()}


def contest_odds(check: ContestCheck, house: FuzzyHouseRules) -> OutcomeOdds:
    da, db = side_distribution(check.first, house), side_distribution(check.second, house)
    win_a = tie = Fraction(0)
    cdf_b: dict[int, Fraction] = {}
    running = Fraction(0)
    keys_b = sorted(db)
    for v in keys_b:
        running += db[v]
        cdf_b[v] = running

    def below(v: int) -> Fraction:  # P(B < v)
        best = Fraction(0)
        for k in keys_b:
            if k < v:
                best = cdf_b[k]
            else:
                break
        return best

    for v, p in da.items():
        win_a += p * below(v)
        tie += p * db.get(v, Fraction(0))
    win_b = 1 - win_a - tie
    a, b = f"{check.first.name} wins", f"{check.second.name} wins"
    if house.contest_ties == "stand-off":
        probs = {a: win_a, "stand-off": tie, b: win_b}
    elif house.contest_ties == "defender":
        probs = {a: win_a, b: win_b + tie}
    else:
        if tie == 1:
            raise CheckError("this contest can only ever tie; re-rolling would never end")
        probs = {a: win_a / (1 - tie), b: win_b / (1 - tie)}
    trunc = truncated_mass(effective_dice(check.first.dice, check.first.penalty_dice), house) + truncated_mass(
        effective_dice(check.second.dice, check.second.penalty_dice), house
    )
    return OutcomeOdds(
        SYSTEM_NAME,
        check.describe(),
        probs,
        frozenset({a}),
        extra={"p_win": win_a, "p_tie": tie, "p_lose": win_b},
        truncated=trunc,
        note=f"ties: {house.contest_ties}",
    )


# -- Luck and Unluck -------------------------------------------------------------------------


def resolve_karma(check: KarmaRoll, rng: DiceRng, house: FuzzyHouseRules) -> Outcome:
    r: AbilityRoll = roll_ability(check.dice, rng, house, label=check.kind.capitalize())
    what = "good" if check.kind == "luck" else "bad"
    text = (
        f"{check.kind.capitalize()} roll of {check.dice} {'die' if check.dice == 1 else 'dice'}: "
        f"{r.describe()}; total {r.total}."
    )
    if check.target is None:
        text += f" The higher the total, the {'better' if what == 'good' else 'worse'} it is."
        return Outcome(
            SYSTEM_NAME,
            check.describe(),
            f"{r.total}",
            None,
            text,
            r.records,
            None,
            {"total": r.total, "critical": r.critical},
        )
    ok = r.total >= check.target
    text += f" Against {check.target}: the random {what} thing {'happens' if ok else 'does not happen'}."
    result = ability_outcome(r.critical, ok)
    return Outcome(
        SYSTEM_NAME,
        check.describe(),
        result,
        ok,
        text,
        r.records,
        r.total - check.target,
        {"total": r.total, "critical": r.critical},
    )


def karma_odds(check: KarmaRoll, house: FuzzyHouseRules) -> OutcomeOdds:
    if check.target is not None:
        return ability_odds(AbilityCheck(ability=check.kind.capitalize(), dice=check.dice, target=check.target), house)
    dist = total_distribution(check.dice, house)
    crit: dict[str, Fraction] = {"success": Fraction(0), "failure": Fraction(0)}
    for (c, _), p in roll_distribution(check.dice, house).items():
        if c is not None:
            crit[c] += p
    return OutcomeOdds(
        SYSTEM_NAME,
        check.describe(),
        {str(t): p for t, p in sorted(dist.items())},
        frozenset(),
        extra={"p_critical_success": crit["success"], "p_critical_failure": crit["failure"]},
        truncated=truncated_mass(check.dice, house),
    )


def resolve_lottery(check: Lottery, rng: DiceRng, house: FuzzyHouseRules) -> Outcome:
    """Everyone rolls; highest gets it; ties roll off among the tied (ruling) or all get it (option)."""
    rolls: list[RollRecord] = []
    lines = []
    pool = list(check.entrants)
    for attempt in range(1000):
        scores = {}
        for name in pool:
            r = roll_ability(check.entrants[name], rng, house, label=name)
            rolls += r.records
            scores[name] = r.total
        top = max(scores.values())
        winners = [n for n in pool if scores[n] == top]
        lines.append(("Roll-off: " if attempt else "") + ", ".join(f"{n} {s}" for n, s in scores.items()) + ".")
        if len(winners) == 1 or house.lottery_ties == "all":
            break
        lines.append(f"{' and '.join(winners)} tie at {top} and roll again.")
        pool = winners
    else:  # pragma: no cover - needs 1000 ties in a row
        raise CheckError("the lottery tied 1000 times running")
    event = "the good thing" if check.kind == "luck" else "the bad thing"
    lines.append(f"{' and '.join(winners)} rolled highest: {event} happens to them.")
    return Outcome(
        SYSTEM_NAME,
        check.describe(),
        _lottery_name(winners),
        None,
        " ".join(lines),
        tuple(rolls),
        None,
        {"winners": winners},
    )


def _lottery_name(winners: list[str]) -> str:
    return " and ".join(winners) + (" get it" if len(winners) > 1 else " gets it")


def _top_set_probabilities(
    dists: Mapping[str, Mapping[int, Fraction]], names: tuple[str, ...]
) -> dict[frozenset[str], Fraction]:
    """P(the set of entrants tied for the highest score is exactly T), for every T."""
    values = sorted({v for n in names for v in dists[n]})
    out: dict[frozenset[str], Fraction] = {}
    cdf: dict[str, dict[int, Fraction]] = {}
    for n in names:
        run = Fraction(0)
        c = {}
        for v in values:
            c[v] = run  # P(X < v)
            run += dists[n].get(v, Fraction(0))
        cdf[n] = c
    for v in values:
        at = {n: dists[n].get(v, Fraction(0)) for n in names}
        holders = [n for n in names if at[n]]
        for k in range(1, len(holders) + 1):
            for top in combinations(holders, k):
                p = Fraction(1)
                for n in names:
                    p *= at[n] if n in top else cdf[n][v]
                    if not p:
                        break
                if p:
                    key = frozenset(top)
                    out[key] = out.get(key, Fraction(0)) + p
    return out


def lottery_odds(check: Lottery, house: FuzzyHouseRules) -> OutcomeOdds:
    if len(check.entrants) > MAX_LOTTERY_ODDS:
        raise OddsError(
            f"exact lottery odds are given for up to {MAX_LOTTERY_ODDS} entrants, not {len(check.entrants)}",
            hint="roll it instead, or ask about fewer entrants",
        )
    dists = {n: total_distribution(d, house) for n, d in check.entrants.items()}
    names = tuple(check.entrants)
    if house.lottery_ties == "all":
        tops = _top_set_probabilities(dists, names)
        probs = {_lottery_name([n for n in names if n in t]): p for t, p in tops.items()}
        return OutcomeOdds(SYSTEM_NAME, check.describe(), probs, frozenset(), note="ties: all of the tied get it")
    memo: dict[frozenset[str], dict[str, Fraction]] = {}

    def wins(group: frozenset[str]) -> dict[str, Fraction]:
        if len(group) == 1:
            return {next(iter(group)): Fraction(1)}
        if group in memo:
            return memo[group]
        members = tuple(n for n in names if n in group)
        tops = _top_set_probabilities(dists, members)
        stay = tops.get(group, Fraction(0))
        res = {n: Fraction(0) for n in members}
        for t, p in tops.items():
            if t == group:
                continue
            for n, q in wins(t).items():
                res[n] += p * q
        res = {n: q / (1 - stay) for n, q in res.items()}
        memo[group] = res
        return res

    probs = {_lottery_name([n]): p for n, p in wins(frozenset(names)).items()}
    return OutcomeOdds(
        SYSTEM_NAME, check.describe(), probs, frozenset(), note="ties: the tied roll again among themselves"
    )


# -- dispatch ----------------------------------------------------------------------------------

_RESOLVE = {
    AbilityCheck: resolve_ability,
    ContestCheck: resolve_contest,
    KarmaRoll: resolve_karma,
    Lottery: resolve_lottery,
}
_ODDS = {AbilityCheck: ability_odds, ContestCheck: contest_odds, KarmaRoll: karma_odds, Lottery: lottery_odds}


def resolve_check(check: Check, rng: DiceRng, house: FuzzyHouseRules) -> Outcome:
    fn = _RESOLVE.get(type(check))
    if fn is None:
        raise CheckError(
            f"the fuzzy system cannot resolve a {type(check).__name__}",
            hint=f"use one of: {', '.join(c.__name__ for c in _RESOLVE)}",
        )
    return fn(check, rng, house)  # type: ignore[operator]


def check_odds(check: Check, house: FuzzyHouseRules) -> OutcomeOdds:
    fn = _ODDS.get(type(check))
    if fn is None:
        raise CheckError(
            f"the fuzzy system has no odds for a {type(check).__name__}",
            hint=f"use one of: {', '.join(c.__name__ for c in _ODDS)}",
        )
    return fn(check, house)  # type: ignore[operator]
