"""Exact distributions of dice expressions, computed by icepool and cached.

icepool (pinned to the 2.1 line, which supports Python 3.11) does the
arithmetic; this module maps our syntax tree onto it, bounds the work, reports
the probability mass that an explosion's depth cap cut off, and caches every
answer by the expression's canonical form.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import Any

import icepool

from ..dice import DEFAULT_LIMITS, BinOp, Const, Dice, Expr, Limits, Neg, parse
from ..errors import OddsError

__all__ = ["Distribution", "distribution", "to_icepool", "truncated_mass"]

#: the most outcomes an exact distribution may have (support size)
MAX_SUPPORT = 100_000
#: the most pairwise steps (a rough count of icepool's work, about a second) an exact answer may take
MAX_WORK = 5_000_000


@dataclass(frozen=True)
class Distribution:
    """An exact distribution over integer totals.

    ``quantities[i]/denominator`` is the probability of ``outcomes[i]``.
    ``truncated`` is the probability that some exploding die reached its
    depth cap while still showing its highest face: the chance the true,
    uncapped roll would have gone on. It is folded into the capped outcome.
    """

    expression: str
    outcomes: tuple[int, ...]
    quantities: tuple[int, ...]
    denominator: int
    truncated: Fraction = Fraction(0)

    @classmethod
    def from_icepool(cls, die: icepool.Die, expression: str, truncated: Fraction = Fraction(0)) -> Distribution:
        items = sorted(die.items())
        outcomes = tuple(int(o) for o, _ in items)
        quantities = tuple(int(q) for _, q in items)
        return cls(expression, outcomes, quantities, sum(quantities), truncated)

    # -- exact values ------------------------------------------------------
    def probability(self, outcome: int) -> Fraction:
        try:
            i = self.outcomes.index(outcome)
        except ValueError:
            return Fraction(0)
        return Fraction(self.quantities[i], self.denominator)

    def pmf(self) -> dict[int, Fraction]:
        d = self.denominator
        return {o: Fraction(q, d) for o, q in zip(self.outcomes, self.quantities, strict=True)}

    @cached_property
    def mean(self) -> Fraction:
        return Fraction(sum(o * q for o, q in zip(self.outcomes, self.quantities, strict=True)), self.denominator)

    @cached_property
    def variance(self) -> Fraction:
        m = self.mean
        return sum(
            (Fraction(q, self.denominator) * (o - m) ** 2 for o, q in zip(self.outcomes, self.quantities, strict=True)),
            Fraction(0),
        )

    @property
    def sd(self) -> float:
        return math.sqrt(self.variance)

    @property
    def min(self) -> int:
        return self.outcomes[0]

    @property
    def max(self) -> int:
        return self.outcomes[-1]

    def at_least(self, value: int) -> Fraction:
        return Fraction(
            sum(q for o, q in zip(self.outcomes, self.quantities, strict=True) if o >= value), self.denominator
        )

    def at_most(self, value: int) -> Fraction:
        return Fraction(
            sum(q for o, q in zip(self.outcomes, self.quantities, strict=True) if o <= value), self.denominator
        )

    @cached_property
    def _tails(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        ge, le = [], []
        running = 0
        for q in self.quantities:
            running += q
            le.append(running)
        total = running
        running = 0
        for q in reversed(self.quantities):
            running += q
            ge.append(running)
        ge.reverse()
        assert le[-1] == total
        return tuple(ge), tuple(le)

    def at_least_table(self) -> dict[int, Fraction]:
        ge, _ = self._tails
        return {o: Fraction(g, self.denominator) for o, g in zip(self.outcomes, ge, strict=True)}

    def at_most_table(self) -> dict[int, Fraction]:
        _, le = self._tails
        return {o: Fraction(v, self.denominator) for o, v in zip(self.outcomes, le, strict=True)}

    def to_json(self) -> dict[str, Any]:
        d = self.denominator
        ge, le = self._tails
        out: dict[str, Any] = {
            "expression": self.expression,
            "mean": float(self.mean),
            "sd": self.sd,
            "min": self.min,
            "max": self.max,
            "denominator": d,
            "distribution": {str(o): q / d for o, q in zip(self.outcomes, self.quantities, strict=True)},
            "quantities": {str(o): q for o, q in zip(self.outcomes, self.quantities, strict=True)},
            "at_least": {str(o): g / d for o, g in zip(self.outcomes, ge, strict=True)},
            "at_most": {str(o): v / d for o, v in zip(self.outcomes, le, strict=True)},
            "exact_mean": f"{self.mean.numerator}/{self.mean.denominator}",
        }
        if self.truncated:
            out["truncated"] = float(self.truncated)
        return out


def _cost(node: Expr) -> tuple[int, int]:
    """``(support, work)``: a bound on the distinct totals, and on the pairwise steps icepool will take."""
    if isinstance(node, Const):
        return 1, 0
    if isinstance(node, Dice):
        per_die = node.faces * (1 + node.explode)
        if node.keep is not None:
            n = node.keep[1]
            return n * (per_die - 1) + 1, node.count * per_die * max(n, 1) * 10
        support = node.count * (per_die - 1) + 1
        return support, support * support // 2
    if isinstance(node, Neg):
        return _cost(node.operand)
    (a, wa), (b, wb) = _cost(node.left), _cost(node.right)
    support = a * b if node.op == "*" else a + b - 1
    return support, wa + wb + a * b


def _check_work(node: Expr) -> None:
    support, work = _cost(node)
    if support > MAX_SUPPORT or work > MAX_WORK:
        raise OddsError(
            f"the exact odds of {node} would take too long to compute",
            hint="ask about fewer or smaller dice, or simulate with the batch roller (storymaster.dice.batch)",
        )


_FUDGE = icepool.Die([-1, 0, 1])
_DIRECT_SUM = 256


def to_icepool(node: Expr) -> icepool.Die:
    """The icepool die for a syntax tree (an exploding chain is one die, as when rolling)."""
    if isinstance(node, Const):
        return icepool.Die([node.value])
    if isinstance(node, Dice):
        if node.count == 0:
            return icepool.Die([0])
        base = _FUDGE if node.fudge else icepool.d(node.faces)
        if node.explode:
            base = base.explode(depth=node.explode)
        if node.keep is not None:
            mode, n = node.keep
            if n == 0:
                return icepool.Die([0])
            pool = base.pool(node.count)
            return (pool.highest(n) if mode == "h" else pool.lowest(n)).sum()
        return _sum_of(base, node.count)
    if isinstance(node, Neg):
        return -to_icepool(node.operand)
    left, right = to_icepool(node.left), to_icepool(node.right)
    if node.op == "+":
        return left + right
    if node.op == "-":
        return left - right
    return left * right


def _sum_of(die: icepool.Die, n: int) -> icepool.Die:
    """n independent copies of ``die`` summed: icepool's own ``@`` (fast, cached) up to
    :data:`_DIRECT_SUM` copies; beyond that by repeated doubling, because ``@`` recurses
    once per copy and hits Python's recursion limit near a thousand."""
    if n <= _DIRECT_SUM:
        return n @ die
    result: icepool.Die | None = None
    while n:
        if n & 1:
            result = die if result is None else result + die
        n >>= 1
        if n:
            die = die + die
    assert result is not None
    return result


def truncated_mass(node: Expr) -> Fraction:
    """Probability that at least one exploding die hit its depth cap still on its highest face."""
    keep = Fraction(1)
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Dice) and n.explode:
            p = Fraction(1, n.faces) ** (n.explode + 1)
            keep *= (1 - p) ** n.count
        elif isinstance(n, Neg):
            stack.append(n.operand)
        elif isinstance(n, BinOp):
            stack += [n.left, n.right]
    return 1 - keep


def _linear_terms(node: Expr, sign: int, terms: list[tuple[int, Dice | int]]) -> bool:
    """Collect ``node`` as signed plain dice and constants; False if it is anything else."""
    if isinstance(node, Const):
        terms.append((sign, node.value))
        return True
    if isinstance(node, Dice):
        if node.explode or (node.keep is not None and _kept_work(node) > MAX_KEPT_WORK):
            return False
        terms.append((sign, node))
        return True
    if isinstance(node, Neg):
        return _linear_terms(node.operand, -sign, terms)
    if node.op == "*":
        return False
    return _linear_terms(node.left, sign, terms) and _linear_terms(node.right, sign if node.op == "+" else -sign, terms)


def _convolve(a: tuple[int, list[int]], b: tuple[int, list[int]]) -> tuple[int, list[int]]:
    """Two distributions as (lowest outcome, quantities from there up), summed."""
    (lo_a, qa), (lo_b, qb) = a, b
    out = [0] * (len(qa) + len(qb) - 1)
    for i, x in enumerate(qa):
        if x:
            for j, y in enumerate(qb):
                out[i + j] += x * y
    return lo_a + lo_b, out


#: above this estimate the keep/drop dynamic programme is slower than icepool's pool algorithm
MAX_KEPT_WORK = 100_000


def _kept_work(node: Dice) -> int:
    """A bound on the keep/drop programme's work: faces x dice x kept x kept-sum range."""
    assert node.keep is not None
    k = node.keep[1]
    return node.faces * (node.count + 1) * (k + 1) * (k * (node.faces - 1) + 1)


def _kept(node: Dice) -> tuple[int, list[int]]:
    """Exact quantities of the kept dice's sum (keep highest/lowest n of identical dice).

    A dynamic programme over the face values, best first: how many of the remaining dice
    show this face (weighted by the binomial count of ways to pick them), how many of
    those are kept, and the running kept sum. Counting ways this way gives each
    multiset of faces its multinomial weight, so the totals are exact.
    """
    assert node.keep is not None
    mode, k = node.keep
    faces = list(range(-1, 2) if node.fudge else range(1, node.faces + 1))
    if mode == "h":
        faces.reverse()
    # state: (dice left to place, dice kept so far, kept sum) -> ways
    states: dict[tuple[int, int, int], int] = {(node.count, 0, 0): 1}
    for i, face in enumerate(faces):
        last = i == len(faces) - 1
        nxt: dict[tuple[int, int, int], int] = {}
        for (left, kept, total), ways in states.items():
            for c in [left] if last else range(left + 1):
                add = min(c, k - kept)
                key = (left - c, kept + add, total + add * face)
                nxt[key] = nxt.get(key, 0) + ways * math.comb(left, c)
        states = nxt
    sums: dict[int, int] = {}
    for (_, _, total), ways in states.items():
        sums[total] = sums.get(total, 0) + ways
    lo, hi = min(sums), max(sums)
    return lo, [sums.get(v, 0) for v in range(lo, hi + 1)]


def _plain_sum(terms: list[tuple[int, Dice | int]]) -> tuple[int, list[int]]:
    """Exact quantities of a sum of dice terms and constants, by integer convolution."""
    total: tuple[int, list[int]] = (0, [1])
    for sign, term in terms:
        if isinstance(term, int):
            total = (total[0] + sign * term, total[1])
            continue
        if term.keep is not None:
            if term.keep[1] == 0 or term.count == 0:
                continue
            lo, q = _kept(term)
            part = (lo, q) if sign > 0 else (-(lo + len(q) - 1), q[::-1])
            total = _convolve(total, part)
            continue
        lo = -1 if term.fudge else 1
        one = (lo, [1] * term.faces)
        if sign < 0:
            one = (-(lo + term.faces - 1), [1] * term.faces)
        n, power, acc = term.count, one, (0, [1])
        while n:  # repeated doubling
            if n & 1:
                acc = _convolve(acc, power)
            n >>= 1
            if n:
                power = _convolve(power, power)
        total = _convolve(total, acc)
    return total


@lru_cache(maxsize=2048)
def _distribution(node: Expr) -> Distribution:
    _check_work(node)
    terms: list[tuple[int, Dice | int]] = []
    if _linear_terms(node, 1, terms):
        # plain sums (the usual question) by exact integer convolution; icepool for the rest
        lo, quantities = _plain_sum(terms)
        pairs = [(lo + i, q) for i, q in enumerate(quantities) if q]
        return Distribution(str(node), tuple(o for o, _ in pairs), tuple(q for _, q in pairs), sum(quantities))
    return Distribution.from_icepool(to_icepool(node), str(node), truncated_mass(node))


def distribution(expression: str | Expr, /, limits: Limits = DEFAULT_LIMITS) -> Distribution:
    """The exact distribution of a dice expression (cached by its canonical form)."""
    node = parse(expression, limits) if isinstance(expression, str) else expression
    if isinstance(node, Dice) and node.fudge and node.explode:
        raise OddsError("Fudge dice cannot explode")
    return _distribution(node)
