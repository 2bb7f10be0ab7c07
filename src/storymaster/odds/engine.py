"""Exact distributions without icepool: every construct of the dice language in plain integers.

A distribution is ``(lo, weights)``: ``weights[i]`` is the weight of the value ``lo + i``
(the probability is the weight over their sum), or, where values are fractions (inside
``floor()``/``ceil()``/``round()``), a dict ``{value: weight}``. One die is built from its
faces (rerolls, clamps, explosion chains as weighted mixtures), a term from ``n`` copies
(convolution by repeated doubling, or the keep/drop programme), and the rest by pairing
independent values. Each step's cost is counted by :func:`cost` in the same units
(about a tenth of a microsecond each on the project's machine; bench/run.py measures it),
so the work bound is the work actually done.

icepool is used only for what this module does not do: keeping the highest or lowest
several items of a set of different expressions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from functools import partial
from typing import Any

from ..dice.ast import Cmp, Compare, Const, Dice, Expr, Func, Group, Label, Neg, compare, round_value

__all__ = ["Dense", "NeedsIcepool", "cost", "evaluate"]

Dense = tuple[int, list[int]]


class NeedsIcepool(Exception):
    """Raised for the one shape this engine leaves to icepool."""


# ---------------------------------------------------------------- dense integer distributions
def convolve(a: Dense, b: Dense) -> Dense:
    (lo_a, qa), (lo_b, qb) = a, b
    if len(qa) < len(qb):
        qa, qb = qb, qa
    out = [0] * (len(qa) + len(qb) - 1)
    for j, y in enumerate(qb):
        if y:
            for i, x in enumerate(qa):
                if x:
                    out[i + j] += x * y
    return lo_a + lo_b, out


def power_sum(one: Dense, n: int) -> Dense:
    """n independent copies summed, by repeated doubling."""
    acc: Dense = (0, [1])
    while n:
        if n & 1:
            acc = convolve(acc, one)
        n >>= 1
        if n:
            one = convolve(one, one)
    return acc


def from_pairs(pairs: dict[int, int]) -> Dense:
    lo, hi = min(pairs), max(pairs)
    out = [0] * (hi - lo + 1)
    for v, w in pairs.items():
        out[v - lo] += w
    return lo, out


def items(d: Dense | dict[Any, int]) -> list[tuple[Any, int]]:
    if isinstance(d, dict):
        return [(v, w) for v, w in d.items() if w]
    lo, q = d
    return [(lo + i, w) for i, w in enumerate(q) if w]


def total(d: Dense | dict[Any, int]) -> int:
    return sum(d.values()) if isinstance(d, dict) else sum(d[1])


def mapped(d: Dense | dict[Any, int], fn: Callable[[Any], Any]) -> Any:
    out: dict[Any, int] = {}
    for v, w in items(d):
        k = fn(v)
        out[k] = out.get(k, 0) + w
    return _tidy(out)


def _tidy(out: dict[Any, int]) -> Any:
    if all(isinstance(k, int) or (isinstance(k, Fraction) and k.denominator == 1) for k in out):
        return from_pairs({int(k): w for k, w in out.items()})
    return out


def pair(a: Any, b: Any, fn: Callable[[Any, Any], Any]) -> Any:
    out: dict[Any, int] = {}
    ib = items(b)
    for x, p in items(a):
        for y, q in ib:
            k = fn(x, y)
            out[k] = out.get(k, 0) + p * q
    return _tidy(out)


def add(a: Any, b: Any, sign: int = 1) -> Any:
    if isinstance(a, dict) or isinstance(b, dict):
        return pair(a, b, (lambda x, y: x + y) if sign > 0 else (lambda x, y: x - y))
    if sign < 0:
        lo, q = b
        b = (-(lo + len(q) - 1), q[::-1])
    return convolve(a, b)


# ---------------------------------------------------------------- one die
def throw(node: Dice) -> Dense:
    """One throw: rerolled while it matches (at most ``reroll_depth`` times), then clamped."""
    faces = list(node.face_values)
    s = len(faces)
    weights = dict.fromkeys(faces, 1)
    if node.reroll is not None:
        matching = [f for f in faces if node.reroll.test(f)]
        r = len(matching)
        # after at most R rerolls: a non-matching face f has weight sum_j r^j s^(R-j) (over s^(R+1));
        # a matching face stands only when every throw matched: r^R (over s^(R+1))
        depth = node.reroll_depth
        keep_w = sum(r**j * s ** (depth - j) for j in range(depth + 1))
        weights = {f: (r**depth if node.reroll.test(f) else keep_w) for f in faces}
    out: dict[int, int] = {}
    for f, w in weights.items():
        v = node.clamp(f)
        out[v] = out.get(v, 0) + w
    return from_pairs(out)


def chain(node: Dice, value: Callable[[int], int] | None = None) -> Dense:
    """One die's chain: its value, or with ``value`` the sum of ``value`` over each throw's shown value."""
    t = items(throw(node))
    val = value or (lambda v: v)
    if not node.explode:
        out: Dense = mapped(throw(node), val)
        return out
    pen = 1 if node.explode_kind == "!p" else 0
    matches = node.explodes_on

    def level(first: bool, after: Dense | None) -> Dense:
        off = 0 if first else pen
        out: Dense = (0, [0])
        parts: dict[int, int] = {}
        scale = total(after) if after is not None else 1
        for x, w in t:
            if after is not None and matches(x):
                lo, q = after
                shifted = (lo + val(x - off), [w * y for y in q])
                out = _merge(out, shifted)
            else:
                k = val(x - off)
                parts[k] = parts.get(k, 0) + w * scale
        if parts:
            out = _merge(out, from_pairs(parts))
        return out

    tail: Dense | None = None
    for _ in range(node.explode):
        tail = level(False, tail)
    return level(True, tail)


def _merge(a: Dense, b: Dense) -> Dense:
    (la, qa), (lb, qb) = a, b
    if not any(qa):
        return b
    lo = min(la, lb)
    hi = max(la + len(qa), lb + len(qb))
    out = [0] * (hi - lo)
    for i, w in enumerate(qa):
        out[la - lo + i] += w
    for i, w in enumerate(qb):
        out[lb - lo + i] += w
    return lo, out


# ---------------------------------------------------------------- keep highest / lowest of identical dice
def kept(one: Dense, n: int, k: int, highest: bool, gain: Callable[[int], int] | None = None) -> Dense:
    """The sum of the k highest (lowest) of n independent copies of ``one`` (any weights).

    Outcomes are taken best first. While fewer than k dice are placed every placed die is
    kept, so a state is (dice placed, their sum). When an outcome completes the kept set,
    the unplaced dice can only show worse outcomes: ``worse_weight ** unplaced`` ways,
    summed over how many show this outcome in closed form. With ``gain`` the kept dice
    are still chosen by value but what is summed is ``gain(value)`` (success counting).
    """
    outcomes = items(one)
    if highest:
        outcomes.reverse()
    worse_total = [0] * len(outcomes)
    acc = 0
    for i in range(len(outcomes) - 1, -1, -1):
        worse_total[i] = acc
        acc += outcomes[i][1]
    comb = math.comb
    states: dict[tuple[int, int], int] = {(0, 0): 1}
    sums: dict[int, int] = {}
    for i, (value, fw) in enumerate(outcomes):
        face = gain(value) if gain is not None else value
        worse = worse_total[i]
        power = [1]
        for _ in range(n):
            power.append(power[-1] * worse)
        fpow = [1]
        for _ in range(k):
            fpow.append(fpow[-1] * fw)
        nxt: dict[tuple[int, int], int] = {}
        for (j, s), ways in states.items():
            left, need = n - j, k - j
            below = 0
            for c in range(need):
                b = comb(left, c) * fpow[c]
                below += b * power[left - c]
                if worse:
                    key = (j + c, s + c * face)
                    nxt[key] = nxt.get(key, 0) + ways * b
            done = (worse + fw) ** left - below
            if done:
                closed = s + need * face
                sums[closed] = sums.get(closed, 0) + ways * done
        states = nxt
    return from_pairs(sums)


def kept_work(n: int, k: int, m: int, wbits: int = 0) -> int:
    """Steps of :func:`kept`: outcomes x states x choices, and the power tables, with the size of
    their big integers (they grow with the dice)."""
    states = k * (k - 1) * (m - 1) // 2 + k  # (dice placed j < k, their sum up to j * (m - 1))
    bits = 1 + (n * max(wbits, m.bit_length())) // 64
    # one step per state and choice (the 2x of the first estimate was double counting: measured by
    # bench/run.py, the keep questions ran at a third to a half of the time it predicted)
    return m * states * (k + 1) * bits + m * n * (1 + bits // 16)


def power_cost(m: int, n: int, wbits: int) -> int:
    """Steps of :func:`power_sum` for n copies of a distribution of m values (total weight 2**wbits):
    each convolution a x b multiply-adds on integers that grow with the copies summed."""
    work, acc_size, acc_n, p_size, p_n = 0, 1, 0, m, 1
    while n:
        if n & 1:
            work += acc_size * p_size * (1 + (acc_n + p_n) * wbits // 64)
            acc_size, acc_n = acc_size + p_size - 1, acc_n + p_n
        n >>= 1
        if n:
            work += p_size * p_size * (1 + 2 * p_n * wbits // 64)
            p_size, p_n = 2 * p_size - 1, 2 * p_n
    return work + m


# ---------------------------------------------------------------- the tree
def _score(success: Cmp, failure: Cmp | None) -> Callable[[Any], int]:
    def score(v: Any) -> int:
        s = 1 if success.test(v) else 0
        if failure is not None and failure.test(v):
            s -= 1
        return s

    return score


def dice(node: Dice) -> Dense:
    if node.count == 0 or (node.keep is not None and node.keep[1] == 0):
        return (0, [1])
    one = chain(node)
    n = node.count
    if node.success is not None:
        score = _score(node.success, node.failure)
        if node.keep is not None:
            mode, k = node.keep
            return kept(one, n, k, mode == "h", score)  # chosen by value, counted by score
        if node.keep_if is not None:
            want, cmp = node.keep_if[0] == "k", node.keep_if[1]
            per = mapped(one, lambda v: score(v) if cmp.test(v) == want else 0)
        elif node.explode and node.explode_kind in ("!", "!p"):
            per = chain(node, score)  # each throw of the chain counts on its own
        else:
            per = mapped(one, score)
        return power_sum(per, n)
    if node.keep is not None:
        mode, k = node.keep
        if k == n:
            return power_sum(one, n)
        return kept(one, n, k, mode == "h")
    if node.keep_if is not None:
        want, cmp = node.keep_if[0] == "k", node.keep_if[1]
        return power_sum(mapped(one, lambda v: v if cmp.test(v) == want else 0), n)
    return power_sum(one, n)


def evaluate(node: Expr, exact: bool = False) -> Any:
    if isinstance(node, Const):
        return (node.value, [1])
    if isinstance(node, Dice):
        return dice(node)
    if isinstance(node, Neg):
        d = evaluate(node.operand, exact)
        if isinstance(d, dict):
            return {-v: w for v, w in d.items()}
        lo, q = d
        return (-(lo + len(q) - 1), q[::-1])
    if isinstance(node, Label):
        return evaluate(node.operand, exact)
    if isinstance(node, Func):
        return mapped(evaluate(node.arg, True), partial(round_value, node.name))
    if isinstance(node, Compare):
        test = partial(compare, node.op)
        return pair(evaluate(node.left, exact), evaluate(node.right, exact), lambda a, b: 1 if test(a, b) else 0)
    if isinstance(node, Group):
        return _group(node)
    a, b = evaluate(node.left, exact), evaluate(node.right, exact)
    if node.op == "+":
        return add(a, b)
    if node.op == "-":
        return add(a, b, -1)
    if node.op == "*":
        return pair(a, b, lambda x, y: x * y)
    if exact:
        return pair(a, b, lambda x, y: Fraction(x) / y)
    return pair(a, b, lambda x, y: x // y)


def _group(node: Group) -> Any:
    parts = [evaluate(i) for i in node.items]
    score: Callable[[Any], int] | None = _score(node.success, node.failure) if node.success is not None else None
    if node.keep is not None:
        mode, k = node.keep
        if k == 0:
            return (0, [1])
        if k == len(parts):
            pass
        elif k == 1 and score is None:
            return _extreme(parts, mode == "h")
        else:
            raise NeedsIcepool
    elif node.keep_if is not None:
        want, cmp = node.keep_if[0] == "k", node.keep_if[1]
        if score is not None:
            sc = score
            parts = [mapped(p, lambda v: sc(v) if cmp.test(v) == want else 0) for p in parts]
        else:
            parts = [mapped(p, lambda v: v if cmp.test(v) == want else 0) for p in parts]
        score = None
    if score is not None:
        parts = [mapped(p, score) for p in parts]
    acc = parts[0]
    for p in parts[1:]:
        acc = add(acc, p)
    return acc


def _extreme(parts: list[Any], highest: bool) -> Dense:
    """The highest (lowest) of independent items, through the product of their distribution functions."""
    values = sorted({v for p in parts for v, _ in items(p)})
    totals = [total(p) for p in parts]
    cdfs = []
    for p in parts:
        acc, table = 0, {}
        for v, w in sorted(items(p)):
            acc += w
            table[v] = acc
        cdfs.append(table)
    out: dict[int, int] = {}
    prev = 0
    running = [0] * len(parts)
    for v in values:
        prod = 1
        for i, table in enumerate(cdfs):
            running[i] = table.get(v, running[i])
            prod *= running[i]
        if highest:
            out[v] = prod - prev
            prev = prod
        else:
            out[v] = prod  # filled below
    if highest:
        return from_pairs({v: w for v, w in out.items() if w})
    # lowest: P(min > v) = prod(1 - F_i(v)); weights over the product of totals
    full = math.prod(totals)
    surv_prev = full
    res: dict[int, int] = {}
    running = [0] * len(parts)
    for v in values:
        surv = 1
        for i, table in enumerate(cdfs):
            running[i] = table.get(v, running[i])
            surv *= totals[i] - running[i]
        res[v] = surv_prev - surv
        surv_prev = surv
    return from_pairs({v: w for v, w in res.items() if w})


# ---------------------------------------------------------------- cost, in the same steps
def cost(node: Expr, exact: bool = False) -> tuple[int, int]:
    """``(support, work)``: the number of distinct values, and the steps :func:`evaluate` takes."""
    from ..dice.bounds import bounds, chain_range, throw_range

    if isinstance(node, Const):
        return 1, 1
    if isinstance(node, Dice):
        lo, hi = bounds(node)
        support = hi - lo + 1
        if node.count == 0:
            return 1, 1
        t_lo, t_hi = throw_range(node)
        t = t_hi - t_lo + 1
        c_lo, c_hi = chain_range(node)
        m = c_hi - c_lo + 1
        build = node.faces * (4 + node.reroll_depth) + (node.explode * (node.explode + 1) // 2) * t * t
        n = node.count
        # the bits of a chain's weights: a throw's reroll weights have faces ** (depth + 1) as denominator,
        # and a chain multiplies (1 + explode) throws (with rerolls inside explosions, ten times what
        # faces ** (1 + explode) alone says: 10d10r1k5x>=8 ran at 8x its prediction before this)
        throw_bits = node.faces.bit_length() * (1 + (node.reroll_depth if node.reroll is not None else 0))
        wbits = max(1, throw_bits * (1 + node.explode))
        if node.keep is not None and node.keep[1] not in (0, n):
            return support, build + kept_work(n, node.keep[1], m, wbits)
        per = (1 + node.explode) * 2 + 1 if node.success is not None else m
        return support, build + power_cost(per, n, wbits)
    if isinstance(node, (Neg, Label)):
        return cost(node.operand, exact)
    if isinstance(node, Func):
        s, w = cost(node.arg, True)
        return s, w + 4 * s
    if isinstance(node, Group):
        parts = [cost(i) for i in node.items]
        lo, hi = bounds(node)
        work = sum(w for _, w in parts)
        if node.keep is not None and 1 < node.keep[1] < len(parts):
            # several items kept from a set: icepool's pool algorithm, about (k + 1) ** items states per
            # outcome of the items, each step about ten of ours, and a fixed cost of about a millisecond
            # (calibrated by bench/run.py on {10d6, 10d6, 10d6, 10d6}kh2 and three-item sets)
            outcomes = max(s for s, _ in parts)
            return hi - lo + 1, work + 10_000 + 10 * outcomes * len(parts) * (node.keep[1] + 1) ** len(parts)
        acc = 1
        for s, _ in parts:
            work += acc * s
            acc += s
        return hi - lo + 1, work + 10 * sum(s for s, _ in parts) * len(parts)
    (a, wa), (b, wb) = cost(node.left, exact), cost(node.right, exact)
    if isinstance(node, Compare) or node.op in "*/":
        lo, hi = bounds(node)
        return min(a * b, hi - lo + 1), wa + wb + 6 * a * b
    return a + b - 1, wa + wb + a * b


#: seconds one step of :func:`cost` takes, and the fixed cost of a question, on the project's
#: 2-core machine when it is not shared (bench/run.py prints measured/predicted for a suite)
STEP_SECONDS = 1e-7
OVERHEAD_SECONDS = 5e-5


def predicted_seconds(work: int) -> float:
    """The time the work bound predicts for a new question."""
    return OVERHEAD_SECONDS + work * STEP_SECONDS
