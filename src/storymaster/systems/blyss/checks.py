"""Tests, Contests, Combined Tests and Initiative, rolled and explained, with exact odds.

BLYSS 3.5, Rules & Mechanics: Tests (Die Pools, Character Tests, Character Contests,
Combined Tests, Combined Contests, Screw-Ups, Golden Rolls) and Combat: Initiative.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from pydantic import Field, ValidationError, field_validator

from ...dice import DiceRng, RollRecord, parse_pool, roll_pool
from ...errors import CheckError, DiceError
from ...rules.models import Check
from ...rules.outcome import Outcome, OutcomeOdds
from .dicepool import Counts, Judgement, count_distribution, counts_of, judge, outcome_order
from .options import BlyssHouseRules
from .scale import (
    apply_rank_bonus,
    apply_rank_penalty,
    challenge_name,
    minimum_rank_for_td,
    pool_for_ranks,
    pool_rank,
    pool_text,
    rank_for_pool,
)

__all__ = [
    "BlyssContest",
    "BlyssTest",
    "CombinedContest",
    "CombinedTest",
    "Pool",
    "combined_contest_odds",
    "combined_odds",
    "contest_odds",
    "initiative_order",
    "make_pool",
    "pool_dice",
    "pool_from_text",
    "resolve_combined",
    "resolve_combined_contest",
    "resolve_contest",
    "resolve_test",
    "roll_initiative",
    "test_odds",
]

SYSTEM_NAME = "blyss"
#: the most dice one pool may roll (rank 10 is two dice; this leaves room for help and big pools)
MAX_POOL_DICE = 40


class Pool(Check):
    """The statistics behind a Die Pool and what modifies them.

    ``ranks``: the ranks of the positive statistics combined (Attribute + Trait ...);
    ``dice``: further dice given directly (a pool written as dice, e.g. from the command line);
    ``negative_ranks``: ranks of negative Traits, deducted highest ranked first;
    ``penalty_ranks``: rank penalties (wounds, weapon and armour modifiers, range);
    ``bonus_ranks``: ranks added (help from a Combined Test, aiming), divided equally;
    ``die_modifier``: added to every die's value against the TD (Flesh Wounds: -1).
    """

    name: str = ""
    ranks: tuple[int, ...] = ()
    dice: tuple[int, ...] = ()
    negative_ranks: int = Field(0, ge=0, le=500)
    penalty_ranks: int = Field(0, ge=0, le=500)
    bonus_ranks: int = Field(0, ge=0, le=200)
    die_modifier: int = Field(0, ge=-100, le=100)

    @field_validator("ranks")
    @classmethod
    def _ranks(cls, v: tuple[int, ...]) -> tuple[int, ...]:
        if any(r < 0 or r > 50 for r in v):
            raise ValueError("ranks are 0 to 50")
        if len(v) > 12:
            raise ValueError("at most 12 statistics in one pool")
        return v

    @field_validator("dice")
    @classmethod
    def _dice(cls, v: tuple[int, ...]) -> tuple[int, ...]:
        if any(s < 2 or s > 100 for s in v):
            raise ValueError("dice have 2 to 100 sides")
        return v

    def effective_ranks(self, hr: BlyssHouseRules | None = None) -> tuple[int, ...]:
        """The statistics' ranks after bonuses, then negative Traits and penalties (highest ranked first)."""
        hr = hr or BlyssHouseRules()
        ranks = apply_rank_bonus(self.ranks, self.bonus_ranks)
        return apply_rank_penalty(ranks, self.negative_ranks + self.penalty_ranks, spread=hr.penalty_spread)

    def rank_total(self, hr: BlyssHouseRules | None = None) -> int:
        return sum(self.effective_ranks(hr)) + pool_rank(self.dice)

    def describe(self) -> str:
        parts = []
        if self.ranks:
            parts.append("ranks " + "+".join(map(str, self.ranks)))
        if self.dice:
            parts.append(pool_text(self.dice))
        for label, v in (
            ("negative", self.negative_ranks),
            ("penalty", self.penalty_ranks),
            ("bonus", self.bonus_ranks),
        ):
            if v:
                parts.append(f"{label} {v}")
        if self.die_modifier:
            parts.append(f"{self.die_modifier:+d} per die")
        return (self.name + ": " if self.name else "") + ", ".join(parts)


SCALE_DICE = (4, 6, 8, 10, 12)


def pool_from_text(text: str, /, *, name: str = "", **modifiers: int) -> Pool:
    """A Die Pool written as dice, one statistic per comma: 'd12+d4,d10'; 'd0' is a statistic at rank 0
    ("Non-existant", Table 2-01). Only the Ability Scale's dice (d4 ... d12) make up a statistic; a group that
    is no single rank's pool is rolled as loose dice. Every refusal is a :class:`CheckError` naming the part."""
    ranks: list[int] = []
    dice: list[int] = []
    for group in text.split(","):
        part = group.strip()
        if part.lower() in ("d0", "0d0"):
            ranks.append(0)
            continue
        try:
            sides = parse_pool(part)
        except DiceError as exc:
            raise CheckError(
                f"the pool {text!r}: {exc.message}", hint="write it like 'd12+d4,d10' (d0 for rank 0)"
            ) from None
        odd = [s for s in sides if s not in SCALE_DICE]
        if odd:
            raise CheckError(
                f"the pool {text!r}: d{odd[0]} is not a die of the Ability Scale",
                hint="BLYSS pools are made of d4, d6, d8, d10 and d12 (Table 2-01); a statistic at rank 0 is d0",
            )
        r = rank_for_pool(sides)
        if r is None:
            dice.extend(sides)
        else:
            ranks.append(r)
    return make_pool(name=name, ranks=tuple(ranks), dice=tuple(dice), **modifiers)


def make_pool(**fields: object) -> Pool:
    """A :class:`Pool`, with a bad field (13 statistics, a rank of 60 ...) reported as a :class:`CheckError`."""
    try:
        return Pool(**fields)  # type: ignore[arg-type]
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        msg = str(err["msg"]).removeprefix("Value error, ")
        raise CheckError(f"a Die Pool's {where}: {msg}", hint="BLYSS pools combine at most 12 statistics") from None


def pool_dice(pool: Pool, hr: BlyssHouseRules | None = None) -> tuple[int, ...]:
    """The dice a pool rolls (Die Pools; Table 2-01), after every rank change."""
    if (pool.negative_ranks or pool.penalty_ranks or pool.bonus_ranks) and not pool.ranks:
        raise CheckError(
            "rank penalties, negative Traits and bonuses need the statistics' ranks, not bare dice",
            hint="give the pool as statistics separated by commas, e.g. 'd12+d4,d10', or use --ranks 6,4",
        )
    dice = pool_for_ranks(pool.effective_ranks(hr)) + tuple(pool.dice)
    if len(dice) > MAX_POOL_DICE:
        raise CheckError(
            f"a pool of {len(dice)} dice is more than the limit of {MAX_POOL_DICE}", hint="BLYSS pools are a few dice"
        )
    return dice


class BlyssTest(Pool):
    """A Character Test: roll the pool; each die that equals or beats the TD is a success."""

    td: int = Field(..., ge=0, le=100)
    golden: bool | None = None
    extra_screw_ups: int = Field(0, ge=0)
    sm_allows: bool = False

    def describe(self) -> str:
        return f"Test {super().describe()} vs TD {self.td}"


class BlyssContest(Check):
    """A Character Contest between two pools; each side's TD is the other side's rank (Character Contests)."""

    a: Pool
    b: Pool
    draw_allowed: bool = True
    golden: bool | None = None

    def describe(self) -> str:
        return f"Contest {self.a.name or 'A'} vs {self.b.name or 'B'}"


class CombinedTest(Check):
    """A Combined Test: helpers roll first; their successes become ranks for the assisted character."""

    assisted: Pool
    helpers: tuple[Pool, ...] = Field(..., min_length=1, max_length=6)
    td: int = Field(..., ge=0, le=100)
    golden: bool | None = None
    sm_allows: bool = False

    def describe(self) -> str:
        return f"Combined Test for {self.assisted.name or 'the assisted character'} vs TD {self.td}"


# ---------------------------------------------------------------- minimum die pool
def check_minimum_pool(pool: Pool, td: int, hr: BlyssHouseRules, *, sm_allows: bool = False) -> None:
    """Refuse a Test the pool cannot attempt (Table 2-02: The TD Scale, Minimum Die Pool).

    Ruling: compared with the combined pool's total rank (or the best single statistic, by house rule).
    The SM may allow it anyway ('unless in exceptional circumstances at the SM's discretion').
    """
    if sm_allows or hr.minimum_pool == "off":
        return
    need = minimum_rank_for_td(td)
    eff = pool.effective_ranks(hr)
    if hr.minimum_pool == "best_statistic":
        have = max([*eff, *(pool_rank((d,)) for d in pool.dice)], default=0)
    else:
        have = sum(eff) + pool_rank(pool.dice)
    if have < need:
        raise CheckError(
            f"TD {td} ({challenge_name(td)}) needs a Minimum Die Pool of rank {need} "
            f"({pool_text(pool_for_ranks([need]))}); this pool has rank {have}",
            hint="the character cannot attempt this Test unless the SM allows it (--sm-allows)",
        )


def _golden(flag: bool | None, hr: BlyssHouseRules) -> bool:
    return hr.golden_rolls if flag is None else flag


# ---------------------------------------------------------------- a single Test
@dataclass(frozen=True, slots=True)
class RolledPool:
    """One rolled pool: its record, counts and judgement."""

    record: RollRecord
    dice: tuple[int, ...]
    td: int
    counts: Counts
    judgement: Judgement


def roll_against(
    dice: Sequence[int],
    td: int,
    rng: DiceRng,
    hr: BlyssHouseRules,
    *,
    die_modifier: int = 0,
    golden: bool = False,
    extra_screw_ups: int = 0,
    label: str = "",
) -> RolledPool | None:
    """Roll a pool against a TD and judge it; None for an empty pool (d0), which cannot succeed."""
    dice = tuple(dice)
    if not dice:
        return None
    rec = roll_pool(dice, rng, label=label)
    faces = rec.faces
    c = counts_of(
        faces,
        dice,
        td,
        die_modifier=die_modifier,
        golden=golden,
        strict=hr.critical_needs_strict_beat,
        literal_ones=hr.literal_ones,
    )
    return RolledPool(rec, dice, td, c, judge(c, extra_screw_ups=extra_screw_ups))


_EMPTY = Judgement("failure", 0, 0, 0, 0)


def explain_pool(rp: RolledPool | None, *, die_modifier: int = 0, golden: bool = False, who: str = "") -> str:
    """Plain words: which dice met the TD, which were 1s, what cancelled what, and the result."""
    prefix = f"{who}: " if who else ""
    if rp is None:
        return f"{prefix}no dice to roll (d0): the Test fails."
    faces = rp.record.faces
    shown = ", ".join(f"d{s}={f}" for s, f in zip(rp.dice, faces, strict=True))
    mod = f" ({die_modifier:+d} to each die)" if die_modifier else ""
    c, j = rp.counts, rp.judgement
    parts = [f"{prefix}rolled {shown}{mod} against TD {rp.td}."]
    met = c.hit + c.gold_hit
    parts.append(f"{met} {'die meets' if met == 1 else 'dice meet'} the TD; {c.ones} rolled a 1.")
    if golden and (c.gold_hit or c.gold_miss):
        parts.append(
            f"Golden Rolls: {c.gold_hit + c.gold_miss} (of which {c.gold_miss} below the TD count as automatic "
            "successes)."
        )
    if j.kind == "critical screw-up":
        parts.append("Every die shows 1: a critical Screw-Up, with no chance of recovery.")
    elif j.kind == "screw-up":
        parts.append(
            f"The 1s cancel every success and {j.screw_ups} are left over: a Screw-Up of degree {j.screw_ups}."
        )
    elif j.kind == "failure":
        why = "the 1s cancelled the successes" if j.cancelled else "no die met the TD"
        parts.append(f"No successes remain ({why}): a plain failure.")
    elif j.kind == "critical success":
        parts.append(
            f"Every die met the TD: a critical success with {j.successes} success{'es' if j.successes != 1 else ''}."
        )
    else:
        canc = f" after {j.cancelled} cancelled by 1s" if j.cancelled else ""
        parts.append(f"Success with {j.successes} success{'es' if j.successes != 1 else ''}{canc}.")
    return " ".join(parts)


def resolve_test(check: BlyssTest, rng: DiceRng, hr: BlyssHouseRules | None = None) -> Outcome:
    """Roll a Character Test and explain it (BLYSS 3.5, Character Tests; Screw-Ups; Golden Rolls)."""
    hr = hr or BlyssHouseRules()
    check_minimum_pool(check, check.td, hr, sm_allows=check.sm_allows)
    dice = pool_dice(check, hr)
    golden = _golden(check.golden, hr)
    rp = roll_against(
        dice,
        check.td,
        rng,
        hr,
        die_modifier=check.die_modifier,
        golden=golden,
        extra_screw_ups=check.extra_screw_ups,
        label=check.name or "test",
    )
    j = rp.judgement if rp else _EMPTY
    text = f"Pool {pool_text(dice)} (ranks {'+'.join(map(str, check.effective_ranks(hr))) or '-'}). "
    text += explain_pool(rp, die_modifier=check.die_modifier, golden=golden)
    if check.extra_screw_ups:
        text += f" ({check.extra_screw_ups} Screw-Ups were carried over from helpers.)"
    return Outcome(
        SYSTEM_NAME,
        check.describe(),
        j.key,  # the odds' own name for it ("success x2"), so every result is one the odds list
        j.succeeded,
        text,
        rolls=(rp.record,) if rp else (),
        margin=j.successes if j.successes else -j.screw_ups,
        details={
            "successes": j.successes,
            "screw_ups": j.screw_ups,
            "outcome": j.key,
            "dice": list(dice),
            "td": check.td,
        },
    )


def judgement_distribution(
    dice: Sequence[int],
    td: int,
    hr: BlyssHouseRules,
    *,
    die_modifier: int = 0,
    golden: bool = False,
    extra_screw_ups: int = 0,
) -> dict[Judgement, Fraction]:
    """The exact distribution of a pool's judgement."""
    if not dice:
        return {_EMPTY: Fraction(1)}
    return dict(
        _judgement_distribution(
            tuple(dice), td, die_modifier, golden, extra_screw_ups, hr.critical_needs_strict_beat, hr.literal_ones
        )
    )


@lru_cache(maxsize=2048)
def _judgement_distribution(
    dice: tuple[int, ...],
    td: int,
    die_modifier: int,
    golden: bool,
    extra_screw_ups: int,
    strict: bool,
    literal_ones: bool = False,
) -> tuple[tuple[Judgement, Fraction], ...]:
    out: dict[Judgement, Fraction] = {}
    dist = count_distribution(
        dice, td, die_modifier=die_modifier, golden=golden, strict=strict, literal_ones=literal_ones
    )
    for c, p in dist.items():
        j = judge(c, extra_screw_ups=extra_screw_ups)
        j = Judgement(j.kind, j.successes, j.screw_ups, 0, 0)  # odds group by result, not by how it came about
        out[j] = out.get(j, Fraction(0)) + p
    return tuple(out.items())


def _odds_from(dist: dict[Judgement, Fraction], check_name: str, note: str = "") -> OutcomeOdds:
    probs: dict[str, Fraction] = {}
    for j, p in dist.items():
        probs[j.key] = probs.get(j.key, Fraction(0)) + p
    ordered = dict(sorted(probs.items(), key=lambda kv: outcome_order(kv[0])))
    success = frozenset(k for k in ordered if k.startswith("success") or k == "critical success")
    extra = {
        "p_critical_success": ordered.get("critical success", Fraction(0)),
        "p_screw_up": sum((p for k, p in ordered.items() if "screw-up" in k), Fraction(0)),
        "p_critical_screw_up": ordered.get("critical screw-up", Fraction(0)),
    }
    mean = sum((j.successes * p for j, p in dist.items()), Fraction(0))
    note = (note + "; " if note else "") + f"expected successes {float(mean):.3f} (exactly {mean})"
    return OutcomeOdds(SYSTEM_NAME, check_name, ordered, success, extra=extra, note=note)


def test_odds(check: BlyssTest, hr: BlyssHouseRules | None = None) -> OutcomeOdds:
    """The exact chance of every outcome of a Test, before it is rolled."""
    hr = hr or BlyssHouseRules()
    check_minimum_pool(check, check.td, hr, sm_allows=check.sm_allows)
    dice = pool_dice(check, hr)
    dist = judgement_distribution(
        dice,
        check.td,
        hr,
        die_modifier=check.die_modifier,
        golden=_golden(check.golden, hr),
        extra_screw_ups=check.extra_screw_ups,
    )
    return _odds_from(
        dist, check.describe(), note=f"pool {pool_text(dice)} vs TD {check.td} ({challenge_name(check.td)})"
    )


test_odds.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


# ---------------------------------------------------------------- Contests
def contest_tds(check: BlyssContest, hr: BlyssHouseRules) -> tuple[int, int]:
    """Each side's TD: the opposing side's rank (Character Contests). Ruling: the total (or highest) rank of its
    pool.
    """

    def rank(p: Pool) -> int:
        eff = list(p.effective_ranks(hr)) + [pool_rank((d,)) for d in p.dice]
        return sum(eff) if hr.contest_td == "rank_total" else max(eff, default=0)

    return rank(check.b), rank(check.a)


def contest_winner(ja: Judgement, jb: Judgement) -> int | None:
    """0 if A wins, 1 if B wins, None for a draw (Character Contests: whoever succeeds; then most successes)."""
    if ja.succeeded and not jb.succeeded:
        return 0
    if jb.succeeded and not ja.succeeded:
        return 1
    if not ja.succeeded:
        return None
    if ja.successes != jb.successes:
        return 0 if ja.successes > jb.successes else 1
    return None


def _no_contest(check: BlyssContest, hr: BlyssHouseRules) -> int | None:
    if hr.no_contest_rank_gap is None:
        return None
    ta, tb = contest_tds(check, hr)  # ta = B's rank, tb = A's rank
    if tb - ta >= hr.no_contest_rank_gap:
        return 0
    if ta - tb >= hr.no_contest_rank_gap:
        return 1
    return None


def resolve_contest(check: BlyssContest, rng: DiceRng, hr: BlyssHouseRules | None = None) -> Outcome:
    """Roll a Character Contest; draws stand, or are rolled again when a draw is impossible."""
    hr = hr or BlyssHouseRules()
    na, nb = check.a.name or "A", check.b.name or "B"
    free = _no_contest(check, hr)
    if free is not None:
        who = (na, nb)[free]
        return Outcome(
            SYSTEM_NAME,
            check.describe(),
            f"{who} wins",
            free == 0,
            f"{who} outranks the other by {hr.no_contest_rank_gap} or more: no real contest (house rule).",
            details={"winner": who, "rolled": False},
        )
    td_a, td_b = contest_tds(check, hr)
    golden = _golden(check.golden, hr)
    da, db = pool_dice(check.a, hr), pool_dice(check.b, hr)
    records: list[RollRecord] = []
    lines: list[str] = []
    for attempt in range(1, 101):  # noqa: B007 - read after the loop (the re-roll count)
        ra = roll_against(da, td_a, rng, hr, die_modifier=check.a.die_modifier, golden=golden, label=f"{na} (contest)")
        rb = roll_against(db, td_b, rng, hr, die_modifier=check.b.die_modifier, golden=golden, label=f"{nb} (contest)")
        records += [r.record for r in (ra, rb) if r]
        ja, jb = (ra.judgement if ra else _EMPTY), (rb.judgement if rb else _EMPTY)
        lines.append(explain_pool(ra, die_modifier=check.a.die_modifier, golden=golden, who=f"{na} (TD {td_a})"))
        lines.append(explain_pool(rb, die_modifier=check.b.die_modifier, golden=golden, who=f"{nb} (TD {td_b})"))
        w = contest_winner(ja, jb)
        if w is not None or check.draw_allowed:
            break
        lines.append("A draw is impossible here, so both roll again.")
    if w is None:
        result, text = "draw", "Neither side comes out ahead: a draw."
    else:
        result = f"{(na, nb)[w]} wins"
        text = f"{(na, nb)[w]} wins the Contest."
    return Outcome(
        SYSTEM_NAME,
        check.describe(),
        result,
        None if w is None else w == 0,
        " ".join([*lines, text]),
        rolls=tuple(records),
        margin=(ja.successes - jb.successes),
        details={"winner": None if w is None else (na, nb)[w], "td_a": td_a, "td_b": td_b, "rerolls": attempt - 1},
    )


def contest_odds(check: BlyssContest, hr: BlyssHouseRules | None = None) -> OutcomeOdds:
    """Exact chances that A wins, B wins, or they draw (a draw that cannot stand is rolled again)."""
    hr = hr or BlyssHouseRules()
    na, nb = check.a.name or "A", check.b.name or "B"
    free = _no_contest(check, hr)
    if free is not None:
        probs = {f"{na} wins": Fraction(int(free == 0)), f"{nb} wins": Fraction(int(free == 1)), "draw": Fraction(0)}
        return OutcomeOdds(
            SYSTEM_NAME, check.describe(), probs, frozenset({f"{na} wins"}), note="no real contest (house rule)"
        )
    td_a, td_b = contest_tds(check, hr)
    golden = _golden(check.golden, hr)
    dist_a = judgement_distribution(pool_dice(check.a, hr), td_a, hr, die_modifier=check.a.die_modifier, golden=golden)
    dist_b = judgement_distribution(pool_dice(check.b, hr), td_b, hr, die_modifier=check.b.die_modifier, golden=golden)
    win = [Fraction(0), Fraction(0)]
    draw = Fraction(0)
    for ja, pa in dist_a.items():
        for jb, pb in dist_b.items():
            w = contest_winner(ja, jb)
            if w is None:
                draw += pa * pb
            else:
                win[w] += pa * pb
    note = f"{na} rolls against TD {td_a}, {nb} against TD {td_b}"
    if not check.draw_allowed:
        if draw == 1:
            raise CheckError("neither side can ever win this Contest, so rolling again would never end")
        win = [w / (1 - draw) for w in win]
        draw = Fraction(0)
        note += "; draws are rolled again"
    probs = {f"{na} wins": win[0], "draw": draw, f"{nb} wins": win[1]}
    return OutcomeOdds(
        SYSTEM_NAME,
        check.describe(),
        probs,
        frozenset({f"{na} wins"}),
        extra={"p_win": win[0], "p_draw": draw, "p_lose": win[1]},
        note=note,
    )


# ---------------------------------------------------------------- Combined Tests
def _helpers_total(helpers: Sequence[tuple[Judgement, ...]]) -> tuple[int, int, bool]:
    succ = sum(j.successes for j in helpers)
    screw = sum(j.screw_ups for j in helpers if j.kind == "screw-up")
    crit = any(j.kind == "critical screw-up" for j in helpers)
    return succ, screw, crit


def _check_combined(check: CombinedTest, hr: BlyssHouseRules) -> None:
    if not check.assisted.ranks:
        raise CheckError(
            "the assisted character's pool must be given as statistics' ranks, so help can be added to them"
        )
    for h in check.helpers:
        check_minimum_pool(h, check.td, hr, sm_allows=check.sm_allows)


def resolve_combined(check: CombinedTest, rng: DiceRng, hr: BlyssHouseRules | None = None) -> Outcome:
    """Roll a Combined Test (BLYSS 3.5, Combined Tests).

    Each helper rolls against the same TD. Their successes become ranks divided equally between the
    assisted character's statistics; their uncancelled Screw-Ups carry over to the assisted Test; a
    helper's critical Screw-Up voids the whole effort.
    """
    hr = hr or BlyssHouseRules()
    _check_combined(check, hr)
    golden = _golden(check.golden, hr)
    lines: list[str] = []
    records: list[RollRecord] = []
    js: list[Judgement] = []
    for i, h in enumerate(check.helpers):
        who = h.name or f"helper {i + 1}"
        rp = roll_against(pool_dice(h, hr), check.td, rng, hr, die_modifier=h.die_modifier, golden=golden, label=who)
        if rp:
            records.append(rp.record)
        js.append(rp.judgement if rp else _EMPTY)
        lines.append(explain_pool(rp, die_modifier=h.die_modifier, golden=golden, who=who))
    succ, screw, crit = _helpers_total(js)
    if crit:
        lines.append(
            "A helper critically screwed up: the whole effort is void, and the critical Screw-Up's effects are felt."
        )
        return Outcome(
            SYSTEM_NAME,
            check.describe(),
            "critical screw-up",
            False,
            " ".join(lines),
            rolls=tuple(records),
            margin=0,
            details={"helper_successes": succ, "carried_screw_ups": screw, "voided": True},
        )
    assisted = check.assisted.model_copy(update={"bonus_ranks": check.assisted.bonus_ranks + succ})
    lines.append(f"The helpers' {succ} successes become {succ} extra ranks; {screw} Screw-Ups carry over.")
    test = BlyssTest(**assisted.model_dump(), td=check.td, golden=golden, extra_screw_ups=screw, sm_allows=True)
    out = resolve_test(test, rng, hr)
    return Outcome(
        SYSTEM_NAME,
        check.describe(),
        out.result,
        out.success,
        " ".join(lines) + " " + out.explanation,
        rolls=tuple(records) + out.rolls,
        margin=out.margin,
        details={**out.details, "helper_successes": succ, "carried_screw_ups": screw, "voided": False},
    )


def combined_odds(check: CombinedTest, hr: BlyssHouseRules | None = None) -> OutcomeOdds:
    """Exact odds of a Combined Test: summed over every way the helpers' rolls can go."""
    hr = hr or BlyssHouseRules()
    _check_combined(check, hr)
    total = team_distribution(check.assisted, check.helpers, check.td, hr, _golden(check.golden, hr))
    return _odds_from(
        total, check.describe(), note="helpers' successes become ranks; a helper's critical Screw-Up voids the effort"
    )


def team_distribution(
    assisted: Pool, helpers: Sequence[Pool], td: int, hr: BlyssHouseRules, golden: bool
) -> dict[Judgement, Fraction]:
    """The exact distribution of the assisted character's result after the helpers' Combined Test."""
    check = CombinedTest(assisted=assisted, helpers=tuple(helpers), td=td, sm_allows=True)
    helper_state: dict[tuple[int, int, bool], Fraction] = {(0, 0, False): Fraction(1)}
    for h in check.helpers:
        dist = judgement_distribution(pool_dice(h, hr), check.td, hr, die_modifier=h.die_modifier, golden=golden)
        new: dict[tuple[int, int, bool], Fraction] = {}
        for (s, u, c), p in helper_state.items():
            for j, q in dist.items():
                ds, du, dc = _helpers_total([j])
                key = (s + ds, u + du, c or dc)
                new[key] = new.get(key, Fraction(0)) + p * q
        helper_state = new
    total: dict[Judgement, Fraction] = {}
    voided = Judgement("critical screw-up", 0, 0, 0, 0)
    for (s, u, c), p in helper_state.items():
        if c:
            total[voided] = total.get(voided, Fraction(0)) + p
            continue
        assisted = check.assisted.model_copy(update={"bonus_ranks": check.assisted.bonus_ranks + s})
        dist = judgement_distribution(
            pool_dice(assisted, hr), check.td, hr, die_modifier=assisted.die_modifier, golden=golden, extra_screw_ups=u
        )
        for j, q in dist.items():
            key = Judgement("critical screw-up", 0, 0, 0, 0) if j.kind == "critical screw-up" else j
            total[key] = total.get(key, Fraction(0)) + p * q
    return total


class CombinedContest(Check):
    """Two teams each make a Combined Test, then their assisted characters hold a Contest (Combined Contests).

    Ruling: every roll on a team is against the opposing assisted character's own rank (its pool before help)."""

    a: Pool
    a_helpers: tuple[Pool, ...] = Field((), max_length=6)
    b: Pool
    b_helpers: tuple[Pool, ...] = Field((), max_length=6)
    draw_allowed: bool = True
    golden: bool | None = None

    def describe(self) -> str:
        return f"Combined Contest: {self.a.name or 'team A'} vs {self.b.name or 'team B'}"


def _team_roll(
    assisted: Pool, helpers: Sequence[Pool], td: int, rng: DiceRng, hr: BlyssHouseRules, golden: bool, team: str
) -> tuple[Judgement, list[RollRecord], list[str]]:
    recs: list[RollRecord] = []
    lines: list[str] = []
    js: list[Judgement] = []
    for i, h in enumerate(helpers):
        who = h.name or f"{team} helper {i + 1}"
        rp = roll_against(pool_dice(h, hr), td, rng, hr, die_modifier=h.die_modifier, golden=golden, label=who)
        if rp:
            recs.append(rp.record)
        js.append(rp.judgement if rp else _EMPTY)
        lines.append(explain_pool(rp, die_modifier=h.die_modifier, golden=golden, who=who))
    succ, screw, crit = _helpers_total(js)
    if crit:
        lines.append(f"{team}: a helper's critical Screw-Up voids the effort.")
        return Judgement("critical screw-up", 0, 0, 0, 0), recs, lines
    boosted = assisted.model_copy(update={"bonus_ranks": assisted.bonus_ranks + succ})
    who = assisted.name or team
    rp = roll_against(
        pool_dice(boosted, hr),
        td,
        rng,
        hr,
        die_modifier=assisted.die_modifier,
        golden=golden,
        extra_screw_ups=screw,
        label=who,
    )
    if rp:
        recs.append(rp.record)
    lines.append(f"{team}: {succ} rank(s) of help, {screw} Screw-Up(s) carried.")
    lines.append(explain_pool(rp, die_modifier=assisted.die_modifier, golden=golden, who=who))
    return (rp.judgement if rp else _EMPTY), recs, lines


def resolve_combined_contest(check: CombinedContest, rng: DiceRng, hr: BlyssHouseRules | None = None) -> Outcome:
    """Roll a Combined Contest (BLYSS 3.5, Combined Contests)."""
    hr = hr or BlyssHouseRules()
    na, nb = check.a.name or "team A", check.b.name or "team B"
    td_a, td_b = contest_tds(BlyssContest(a=check.a, b=check.b), hr)
    golden = _golden(check.golden, hr)
    recs: list[RollRecord] = []
    lines: list[str] = []
    for _ in range(100):
        ja, ra, la = _team_roll(check.a, check.a_helpers, td_a, rng, hr, golden, na)
        jb, rb, lb = _team_roll(check.b, check.b_helpers, td_b, rng, hr, golden, nb)
        recs += ra + rb
        lines += la + lb
        w = contest_winner(ja, jb)
        if w is not None or check.draw_allowed:
            break
        lines.append("A draw is impossible here: both teams roll again.")
    result = "draw" if w is None else f"{(na, nb)[w]} wins"
    return Outcome(
        SYSTEM_NAME,
        check.describe(),
        result,
        None if w is None else w == 0,
        " ".join([*lines, result + "."]),
        rolls=tuple(recs),
        margin=ja.successes - jb.successes,
        details={"winner": None if w is None else (na, nb)[w]},
    )


def combined_contest_odds(check: CombinedContest, hr: BlyssHouseRules | None = None) -> OutcomeOdds:
    """Exact odds of a Combined Contest."""
    hr = hr or BlyssHouseRules()
    na, nb = check.a.name or "team A", check.b.name or "team B"
    td_a, td_b = contest_tds(BlyssContest(a=check.a, b=check.b), hr)
    golden = _golden(check.golden, hr)
    da = (
        team_distribution(check.a, check.a_helpers, td_a, hr, golden)
        if check.a_helpers
        else judgement_distribution(pool_dice(check.a, hr), td_a, hr, die_modifier=check.a.die_modifier, golden=golden)
    )
    db = (
        team_distribution(check.b, check.b_helpers, td_b, hr, golden)
        if check.b_helpers
        else judgement_distribution(pool_dice(check.b, hr), td_b, hr, die_modifier=check.b.die_modifier, golden=golden)
    )
    win = [Fraction(0), Fraction(0)]
    draw = Fraction(0)
    for ja, pa in da.items():
        for jb, pb in db.items():
            w = contest_winner(ja, jb)
            if w is None:
                draw += pa * pb
            else:
                win[w] += pa * pb
    if not check.draw_allowed:
        if draw == 1:
            raise CheckError("neither team can ever win this Contest, so rolling again would never end")
        win = [x / (1 - draw) for x in win]
        draw = Fraction(0)
    return OutcomeOdds(
        SYSTEM_NAME,
        check.describe(),
        {f"{na} wins": win[0], "draw": draw, f"{nb} wins": win[1]},
        frozenset({f"{na} wins"}),
        extra={"p_win": win[0], "p_draw": draw, "p_lose": win[1]},
    )


# ---------------------------------------------------------------- Initiative
@dataclass(frozen=True, slots=True)
class InitiativeRoll:
    """One combatant's Initiative: net successes, their total value, and the Initiative rank."""

    name: str
    successes: int
    value: int
    rank: int
    tiebreak: int
    record: RollRecord | None
    rolloff: RollRecord | None = None


def roll_initiative(
    entries: Sequence[tuple[str, Pool]], rng: DiceRng, hr: BlyssHouseRules | None = None
) -> tuple[list[InitiativeRoll], str]:
    """Roll Initiative and order the combatants, highest first (BLYSS 3.5, Combat Mechanics: Initiative).

    Order by net successes against the Initiative TD (ruling: 6), then the total value of the dice
    that succeeded, then Initiative rank; a last tie is rolled off (a d100 each) or left in listing
    order, by house rule.
    """
    hr = hr or BlyssHouseRules()
    rolls: list[InitiativeRoll] = []
    lines: list[str] = []
    for i, (name, pool) in enumerate(entries):
        rp = roll_against(
            pool_dice(pool, hr), hr.initiative_td, rng, hr, die_modifier=pool.die_modifier, label=f"{name} initiative"
        )
        j = rp.judgement if rp else _EMPTY
        value = rp.counts.value if rp else 0
        rank = sum(pool.effective_ranks(hr))
        rolls.append(InitiativeRoll(name, j.successes, value, rank, -i, rp.record if rp else None))
        lines.append(
            f"{name}: {j.successes} success{'es' if j.successes != 1 else ''} (value {value}, Initiative rank {rank})"
        )
    keyf = lambda r: (r.successes, r.value, r.rank)  # noqa: E731
    if hr.initiative_final_tie == "roll_off":
        groups: dict[tuple[int, int, int], list[int]] = {}
        for i, r in enumerate(rolls):
            groups.setdefault(keyf(r), []).append(i)
        for idxs in groups.values():
            if len(idxs) > 1:
                for i in idxs:
                    rec = roll_pool((100,), rng, label=f"{rolls[i].name} initiative roll-off")
                    rolls[i] = InitiativeRoll(
                        rolls[i].name,
                        rolls[i].successes,
                        rolls[i].value,
                        rolls[i].rank,
                        rec.total * 1000 - i,
                        rolls[i].record,
                        rec,
                    )
                lines.append("tie between " + ", ".join(rolls[i].name for i in idxs) + ": rolled off")
    return initiative_order(rolls), "; ".join(lines)


def initiative_order(rolls: Sequence[InitiativeRoll]) -> list[InitiativeRoll]:
    """Initiative order, fastest first (Combat Mechanics: Initiative): net successes, then the value of the dice
    that met the TD, then Initiative rank, then the tie-break (the roll-off's, or listing order)."""
    return sorted(rolls, key=lambda r: (r.successes, r.value, r.rank, r.tiebreak), reverse=True)
