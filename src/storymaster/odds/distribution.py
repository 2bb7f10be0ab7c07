"""Exact distributions of dice expressions, cached by their canonical form.

The arithmetic is exact integers in :mod:`storymaster.odds.engine` (every construct of
the language; its cost model is the work bound), with icepool (pinned to the 2.1 line)
for the one shape the engine leaves to it, and as an independent construction the
tests compare against (:func:`to_icepool`). This module bounds the work, reports the
probability mass that explosion and reroll depth caps cut off, and caches every answer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache, partial
from typing import Any

from ..dice import DEFAULT_LIMITS, Const, Dice, Expr, Limits, Neg, parse
from ..dice.ast import Compare, Func, Group, Label, compare, round_value, walk
from ..errors import OddsError
from . import engine

__all__ = ["Distribution", "distribution", "to_icepool", "truncated_mass"]

#: the most outcomes an exact distribution may have (support size)
MAX_SUPPORT = 100_000
#: the most steps (see :func:`storymaster.odds.engine.cost`; about a tenth of a microsecond each)
#: an exact answer may take: about a second
MAX_WORK = 10_000_000


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
    def from_icepool(cls, die: Any, expression: str, truncated: Fraction = Fraction(0)) -> Distribution:
        """The distribution of an icepool die (as the independent construction the tests compare against)."""
        items = sorted(die.items())
        outcomes = tuple(int(o) for o, _ in items)
        quantities = tuple(int(q) for _, q in items)
        return cls(expression, outcomes, quantities, sum(quantities), truncated)

    def __repr__(self) -> str:
        cut = f", truncated {float(self.truncated):.3g}" if self.truncated else ""
        return (
            f"<Distribution {self.expression}: {self.min}..{self.max}, mean {_num(self.mean)}, sd {self.sd:.3f}{cut}>"
        )

    def __str__(self) -> str:
        """The expression, its range, mean and spread, then a row per total (chance, at least, at most)."""
        head = f"{self.expression}: {self.min}..{self.max}, mean {_num(self.mean)}, sd {self.sd:.3f}"
        if len(self.outcomes) > 40:
            return head + f" ({len(self.outcomes)} totals; .pmf() has them all)"
        ge, le = self._tails
        d = self.denominator
        w = max(len("total"), *(len(str(o)) for o in self.outcomes))
        rows = [head, f"  {'total':>{w}}   chance  at least  at most"]
        for o, q, g, v in zip(self.outcomes, self.quantities, ge, le, strict=True):
            rows.append(f"  {o:>{w}}  {q / d * 100:6.2f}%  {g / d * 100:7.2f}%  {v / d * 100:6.2f}%")
        return "\n".join(rows)

    # -- exact values ------------------------------------------------------
    def probability(self, outcome: int) -> Fraction:
        """The exact chance of the total ``outcome`` (0 when it cannot happen)."""
        try:
            i = self.outcomes.index(outcome)
        except ValueError:
            return Fraction(0)
        return Fraction(self.quantities[i], self.denominator)

    def pmf(self) -> dict[int, Fraction]:
        """Every total and its exact chance."""
        d = self.denominator
        return {o: Fraction(q, d) for o, q in zip(self.outcomes, self.quantities, strict=False)}

    @cached_property
    def mean(self) -> Fraction:
        """The exact mean."""
        return Fraction(sum(o * q for o, q in zip(self.outcomes, self.quantities, strict=False)), self.denominator)

    @cached_property
    def variance(self) -> Fraction:
        """The exact variance."""
        m = self.mean
        return sum(
            (
                Fraction(q, self.denominator) * (o - m) ** 2
                for o, q in zip(self.outcomes, self.quantities, strict=False)
            ),
            Fraction(0),
        )

    @property
    def sd(self) -> float:
        """The standard deviation."""
        return math.sqrt(self.variance)

    @property
    def min(self) -> int:
        """The lowest total."""
        return self.outcomes[0]

    @property
    def max(self) -> int:
        """The highest total."""
        return self.outcomes[-1]

    def at_least(self, value: int) -> Fraction:
        """The exact chance of a total of ``value`` or more."""
        return Fraction(
            sum(q for o, q in zip(self.outcomes, self.quantities, strict=False) if o >= value), self.denominator
        )

    def at_most(self, value: int) -> Fraction:
        """The exact chance of a total of ``value`` or less."""
        return Fraction(
            sum(q for o, q in zip(self.outcomes, self.quantities, strict=False) if o <= value), self.denominator
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
        """Every total and the exact chance of it or more."""
        ge, _ = self._tails
        return {o: Fraction(g, self.denominator) for o, g in zip(self.outcomes, ge, strict=False)}

    def at_most_table(self) -> dict[int, Fraction]:
        """Every total and the exact chance of it or less."""
        _, le = self._tails
        return {o: Fraction(v, self.denominator) for o, v in zip(self.outcomes, le, strict=False)}

    def to_json(self) -> dict[str, Any]:
        """The distribution as JSON (floats; exact quantities and mean as text)."""
        d = self.denominator
        ge, le = self._tails
        out: dict[str, Any] = {
            "expression": self.expression,
            "mean": float(self.mean),
            "sd": self.sd,
            "min": self.min,
            "max": self.max,
            "denominator": d,
            "distribution": {str(o): q / d for o, q in zip(self.outcomes, self.quantities, strict=False)},
            "quantities": {str(o): q for o, q in zip(self.outcomes, self.quantities, strict=False)},
            "at_least": {str(o): g / d for o, g in zip(self.outcomes, ge, strict=False)},
            "at_most": {str(o): v / d for o, v in zip(self.outcomes, le, strict=False)},
            "exact_mean": f"{self.mean.numerator}/{self.mean.denominator}",
        }
        if self.truncated:
            out["truncated"] = float(self.truncated)
        return out


def _num(f: Fraction) -> str:
    return str(f.numerator) if f.denominator == 1 else f"{float(f):.4g}"


def _check_work(node: Expr) -> None:
    support, work = engine.cost(node)
    if support > MAX_SUPPORT or work > MAX_WORK:
        raise OddsError(
            f"the exact odds of {node} would take too long to compute "
            f"(about {work:,} steps; the limit is {MAX_WORK:,})",
            hint="ask about fewer or smaller dice, or simulate with the batch roller (storymaster.dice.batch)",
        )


_DIRECT_SUM = 256


def _icepool() -> Any:
    import icepool  # imported on first use: plain sums never need it, and `storymaster roll` stays light

    return icepool


def _throw(node: Dice) -> Any:
    """One throw of the die: rerolled, then clamped."""
    icepool = _icepool()
    faces = list(node.face_values)
    die = icepool.Die(faces)
    if node.reroll is not None:
        matching = [f for f in faces if node.reroll.test(f)]
        if matching:
            die = die.reroll(matching, depth=node.reroll_depth)
    if node.min_face is not None or node.max_face is not None:
        die = die.map(node.clamp)
    return die


def _chain(node: Dice, throw: Any, score: Any = None) -> Any:
    """One die's chain: its value (or, with ``score``, the sum of the score of each throw)."""
    pen = 1 if node.explode_kind == "!p" else 0
    value = score if score is not None else (lambda v: v)
    if not node.explode:
        return throw.map(value)
    matches = node.explodes_on

    def step(first: bool, after: Any) -> Any:
        off = 0 if first else pen
        if after is None:
            return lambda x: value(x - off)
        return lambda x: value(x - off) + after if matches(x) else value(x - off)

    # the chain after a throw that exploded, with k explosions left: penalised throws
    tail = throw.map(step(False, None))
    for _ in range(node.explode - 1):
        tail = throw.map(step(False, tail))
    return throw.map(step(True, tail))


def _score(success: Any, failure: Any) -> Any:
    def score(v: Any) -> int:
        s = 1 if success.test(v) else 0
        if failure is not None and failure.test(v):
            s -= 1
        return s

    return score


def _dice_to_icepool(node: Dice) -> Any:
    icepool = _icepool()
    if node.count == 0:
        return icepool.Die([0])
    throw = _throw(node)
    chain = _chain(node, throw)
    n = node.count
    if node.success is not None:
        score = _score(node.success, node.failure)
        if node.keep is not None:
            mode, k = node.keep
            if k == 0:
                return icepool.Die([0])
            pool = chain.pool(n)
            return (pool.highest(k) if mode == "h" else pool.lowest(k)).sum(map=score)
        if node.keep_if is not None:
            want, cmp = node.keep_if[0] == "k", node.keep_if[1]
            one = chain.map(lambda v: score(v) if cmp.test(v) == want else 0)
        elif node.explode and node.explode_kind in ("!", "!p"):
            one = _chain(node, throw, score)  # each throw of the chain counts on its own
        else:
            one = chain.map(score)
        return _sum_of(one, n)
    if node.keep is not None:
        mode, k = node.keep
        if k == 0:
            return icepool.Die([0])
        pool = chain.pool(n)
        return (pool.highest(k) if mode == "h" else pool.lowest(k)).sum()
    if node.keep_if is not None:
        want, cmp = node.keep_if[0] == "k", node.keep_if[1]
        return _sum_of(chain.map(lambda v: v if cmp.test(v) == want else 0), n)
    return _sum_of(chain, n)


def to_icepool(node: Expr, exact: bool = False) -> Any:
    """The icepool die for a syntax tree (an exploding chain is one die for keep/drop, as when rolling)."""
    icepool = _icepool()
    if isinstance(node, Const):
        return icepool.Die([node.value])
    if isinstance(node, Dice):
        return _dice_to_icepool(node)
    if isinstance(node, Neg):
        return -to_icepool(node.operand, exact)
    if isinstance(node, Label):
        return to_icepool(node.operand, exact)
    if isinstance(node, Func):
        return to_icepool(node.arg, True).map(partial(round_value, node.name))
    if isinstance(node, Compare):
        test = partial(compare, node.op)
        return icepool.map(
            lambda a, b: 1 if test(a, b) else 0, to_icepool(node.left, exact), to_icepool(node.right, exact)
        )
    if isinstance(node, Group):
        items = [to_icepool(i) for i in node.items]  # a set's items are whole totals
        score = _score(node.success, node.failure) if node.success is not None else None
        if node.keep is not None:
            mode, k = node.keep
            if k == 0:
                return icepool.Die([0])
            pool = icepool.Pool(items)
            kept = pool.highest(k) if mode == "h" else pool.lowest(k)
            return kept.sum(map=score) if score is not None else kept.sum()
        if node.keep_if is not None:
            want, cmp = node.keep_if[0] == "k", node.keep_if[1]
            if score is not None:
                items = [d.map(lambda v: score(v) if cmp.test(v) == want else 0) for d in items]
            else:
                items = [d.map(lambda v: v if cmp.test(v) == want else 0) for d in items]
        elif score is not None:
            items = [d.map(score) for d in items]
        total = items[0]
        for d in items[1:]:
            total = total + d
        return total
    left, right = to_icepool(node.left, exact), to_icepool(node.right, exact)
    if node.op == "+":
        return left + right
    if node.op == "-":
        return left - right
    if node.op == "/":
        if exact:
            return icepool.map(lambda a, b: Fraction(a) / b, left, right)
        return icepool.map(lambda a, b: a // b, left, right)
    return left * right


def _sum_of(die: Any, n: int) -> Any:
    """n independent copies of ``die`` summed: icepool's own ``@`` (fast, cached) up to
    :data:`_DIRECT_SUM` copies; beyond that by repeated doubling, because ``@`` recurses
    once per copy and hits Python's recursion limit near a thousand."""
    if n <= _DIRECT_SUM:
        return n @ die
    result = None
    while n:
        if n & 1:
            result = die if result is None else result + die
        n >>= 1
        if n:
            die = die + die
    assert result is not None
    return result


def _no_truncation(node: Dice) -> Fraction:
    """The chance one die of the term reaches no depth cap (reroll or explosion) still matching."""
    faces = list(node.face_values)
    s = len(faces)
    if node.reroll is not None:
        pr = Fraction(sum(1 for f in faces if node.reroll.test(f)), s)
        spread = sum((pr**j for j in range(node.reroll_depth + 1)), Fraction(0))
    else:
        pr, spread = Fraction(0), Fraction(1)
    u = w = Fraction(0)  # a throw that explodes / stops, reaching no reroll cap
    for f in faces:
        if node.reroll is not None and node.reroll.test(f):
            continue
        p = spread / s
        if node.explodes_on(node.clamp(f)):
            u += p
        else:
            w += p
    if not node.explode:
        return w + u  # u is 0 here
    return w * sum((u**k for k in range(node.explode + 1)), Fraction(0))


def truncated_mass(node: Expr) -> Fraction:
    """Probability that some die hit a depth cap (explosion or reroll) while its rule still matched."""
    keep = Fraction(1)
    for n in walk(node):
        if isinstance(n, Dice) and (n.explode or n.reroll is not None) and n.count:
            keep *= _no_truncation(n) ** n.count
    return 1 - keep


@lru_cache(maxsize=2048)
def _distribution(node: Expr) -> Distribution:
    _check_work(node)
    try:
        d = engine.evaluate(node)
    except engine.NeedsIcepool:  # keeping several of a set's different items: icepool's pool algorithm
        return Distribution.from_icepool(to_icepool(node), str(node), truncated_mass(node))
    pairs = engine.items(d)
    pairs.sort()
    g = math.gcd(*(w for _, w in pairs))
    return Distribution(
        str(node),
        tuple(int(v) for v, _ in pairs),
        tuple(w // g for _, w in pairs),
        sum(w for _, w in pairs) // g,
        truncated_mass(node),
    )


def distribution(expression: str | Expr, /, limits: Limits = DEFAULT_LIMITS) -> Distribution:
    """The exact distribution of a dice expression (cached by its text, and by its canonical form)."""
    if isinstance(expression, str):
        return _by_text(expression, limits)
    return _of_node(expression)


@lru_cache(maxsize=4096)
def _by_text(expression: str, limits: Limits) -> Distribution:
    """A question asked again in the same words is answered without parsing it again."""
    return _of_node(parse(expression, limits))


def clear_caches() -> None:
    """Forget every distribution computed (for measuring a new question; the answers never change)."""
    _by_text.cache_clear()
    _distribution.cache_clear()


def _of_node(node: Expr) -> Distribution:
    for n in walk(node):
        if isinstance(n, Dice) and n.fudge and n.explode:
            raise OddsError("Fudge dice cannot explode")
    return _distribution(node)
