"""Exact distributions without icepool: every construct of the dice language in plain integers.

A distribution is ``(lo, weights)``: ``weights[i]`` is the weight of the value ``lo + i``
(the probability is the weight over their sum), or, where values are fractions (inside
``floor()``/``ceil()``/``round()``), a dict ``{value: weight}``. One die is built from its
faces (rerolls, clamps, explosion chains as weighted mixtures), a term from ``n`` copies
(convolution by repeated doubling, or the keep/drop programme), and the rest by pairing
independent values. :func:`cost` tallies the operations a question takes, by kind, and weighs
each kind by what it costs on the project's machine (in steps of about a tenth of a microsecond;
the weights fitted by tools/calibrate_work.py, checked by bench/run.py section (d)), so the work
bound predicts the time a new question takes.

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
from ..dice.bounds import bounds, chain_range, throw_range

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


# ---------------------------------------------------------------- cost: the work, tallied operation by operation
#
# The work bound follows :func:`evaluate` (and what :mod:`.distribution` does around it) through the
# question, counting its operations by kind: a multiply-add of a convolution, and what it adds for each
# pair of machine digits of its big integers; a state and a choice of the keep programme; a step of a
# mapping through a dict, one with fractions; a level of an explosion chain; the answer's values. Each
# kind has its weight in steps of about a tenth of a microsecond, fitted on a calibration set of
# questions (tools/calibrate_work.py: CPU time of a new question in a warm process, on the project's
# machine) and checked on the bench suite and on questions near the limit (bench/run.py, section (d)).

#: bits in one machine digit of a Python integer (a multiplication costs about digits x digits), and the
#: size from which CPython multiplies by Karatsuba's method
_DIGIT_BITS = 30
_KARATSUBA = 70

#: the weight of each kind of operation, in steps (STEP_SECONDS each), as tools/calibrate_work.py fitted them
#: (2026-11-24, 191 questions); a weight of 0 is a kind too cheap to tell apart from the others it comes with
WEIGHTS: dict[str, float] = {
    "question": 280.0,  # parse, check, build the answer: once per question
    "node": 71.0,  # one node of the expression
    "face": 11.0,  # one face of a throw (with its reroll weights)
    "chain": 0.6,  # one value moved while building an explosion chain
    "chain_d": 0.081,  # ... and per machine digit of its weight
    "trunc": 23.0,  # one face or level of the truncated-mass sum (fractions)
    "map": 0.56,  # one value mapped through a dict
    "fill": 0.94,  # one slot of a dense list filled
    "conv": 1.0,  # one multiply-add of a convolution
    "conv_dd": 0.0067,  # ... per product of the two weights' machine digits
    "conv_d": 0.0003,  # ... per machine digit of either weight
    "pair": 1.1,  # one pair of values combined through a dict (products, comparisons, floor division)
    "frac": 15.0,  # one pair of values combined in fractions (division inside floor/ceil/round)
    "frac_map": 15.0,  # one fraction rounded
    "extreme": 0.0,  # one value of one item, for the highest/lowest item of a set
    "k_inner": 4.4,  # keep programme: one state and one choice
    "k_inner_d": 0.0,  # ... per machine digit of the largest weight
    "k_inner_dd": 0.0,  # ... per squared machine digit (rerolls and explosions make weights of thousands of bits)
    "k_comb": 0.0,  # keep programme: one multiplication inside a binomial coefficient
    "k_comb_d": 0.012,  # ... per machine digit
    "k_state": 0.35,  # keep programme: one state (closing it in closed form)
    "k_state_dd": 0.0047,  # ... per squared machine digit (the power it raises)
    "k_mn": 0.29,  # keep programme: one entry of an outcome's table of powers
    "k_mn_d": 0.0032,  # ... per machine digit
    "out": 0.0,  # one value of the answer (sort, common divisor, reduce)
    "out_d": 0.0,  # ... per machine digit of its weight
    "pool": 0.49,  # icepool's pool algorithm: one running total of one count of one item at one outcome
    "pool_d": 0.098,  # ... per machine digit of the weights
    "pool_q": 19000.0,  # icepool's pool algorithm: once
}


#: operations by kind, every kind of WEIGHTS present (a plain dict: the bound is computed for every new question)
_Tally = dict[str, float]


def _digits(bits: float) -> float:
    return max(1.0, bits / _DIGIT_BITS)


def _mul(da: float, db: float) -> float:
    """Digit operations of one multiplication of da- by db-digit integers, as CPython does it: digit by
    digit up to 70 digits, Karatsuba above (three half-size products instead of four: n ** log2(3)),
    the longer number cut into pieces the size of the shorter."""
    small, big = min(da, db), max(da, db)
    if small <= _KARATSUBA:
        return small * big
    return big / small * _KARATSUBA * _KARATSUBA * float((small / _KARATSUBA) ** 1.585)


def _tally_convolve(t: _Tally, la: int, lb: int, bits_a: float, bits_b: float) -> None:
    da, db = _digits(bits_a), _digits(bits_b)
    steps = la * lb
    t["conv"] += steps
    t["conv_dd"] += steps * _mul(da, db)
    t["conv_d"] += steps * (da + db)


def _tally_power(t: _Tally, m: int, n: int, bits: float) -> int:
    """:func:`power_sum` of n copies of m values (total weight 2**bits each); returns the result's length."""
    acc_size, acc_n, p_size, p_n = 1, 0, m, 1
    while n:
        if n & 1:
            _tally_convolve(t, acc_size, p_size, acc_n * bits, p_n * bits)
            acc_size, acc_n = acc_size + p_size - 1, acc_n + p_n
        n >>= 1
        if n:
            _tally_convolve(t, p_size, p_size, p_n * bits, p_n * bits)
            p_size, p_n = 2 * p_size - 1, 2 * p_n
    return acc_size


def _tally_kept(t: _Tally, n: int, k: int, m: int, bits: float, gain_range: int | None = None) -> None:
    """:func:`kept`: at the i-th outcome, the states with j < k dice placed have at most
    ``j * min(i - 1, gain_range) + 1`` sums; each tries ``k - j`` choices."""
    g = m - 2 if gain_range is None else min(m - 2, gain_range)
    tri = (g * (g + 1)) // 2 + g * (m - 2 - g) if m >= 2 else 0  # sum over i of min(i - 1, g)
    states = m + tri * k * (k - 1) // 2 + (m - 1) * (k - 1)
    inner = m * k + tri * (k - 1) * k * (k + 1) // 6 + (m - 1) * k * (k - 1) // 2
    # each choice c of a state takes math.comb(left, c): quick while it fits in a machine word, else about
    # c multiplications of numbers of up to n bits (left is n - j, taken as n)
    first = next((c for c in range(n // 2 + 1) if math.comb(n, c) >> 63), None)
    if first is not None and k > first:
        combs = 0
        for j in range(k - first):
            need = k - j
            combs += (m if j == 0 else j * tri + m - 1) * (need * (need - 1) - first * (first - 1)) // 2
        t["k_comb"] += combs
        t["k_comb_d"] += combs * _digits(n)
    d = _digits(n * bits)
    t["k_inner"] += inner
    t["k_inner_d"] += inner * d
    t["k_inner_dd"] += inner * _mul(d, d)
    t["k_state"] += states
    t["k_state_dd"] += states * _mul(d, d)
    t["k_mn"] += m * n
    t["k_mn_d"] += m * n * d


def _count_matching(cmp: Cmp | None, lo: int, hi: int, default: int) -> int:
    """How many integers of lo..hi match a compare point (``None``: only ``default``)."""
    if hi < lo:
        return 0
    if cmp is None:
        return 1 if lo <= default <= hi else 0
    v, op = cmp.value, cmp.op
    inside = lo <= v <= hi
    if op == "=":
        return int(inside)
    if op in (">=", ">"):
        first = max(lo, v + (op == ">"))
        return max(0, hi - first + 1)
    last = min(hi, v - (op == "<"))
    return max(0, last - lo + 1)


def _tally_dice(node: Dice, t: _Tally) -> tuple[int, float]:
    """Steps of :func:`dice`; returns the result's length and the bits of its total weight."""
    lo, hi = bounds(node)
    n = node.count
    if n == 0 or (node.keep is not None and node.keep[1] == 0):
        return 1, 0.0
    t_lo, t_hi = throw_range(node)
    tsz = t_hi - t_lo + 1
    depth = node.reroll_depth if node.reroll is not None else 0
    throw_bits = (1 + depth) * math.log2(max(2, node.faces))
    t["face"] += node.faces * (2 if node.reroll is None else 4) + depth
    levels = node.explode
    if node.explode or node.reroll is not None:
        t["trunc"] += node.faces + levels + depth
    scores = 1 if node.failure is None else 2
    e = 0
    if levels:
        pen = 1 if node.explode_kind == "!p" else 0
        e = _count_matching(node.explode_on, t_lo, t_hi, node.faces)

        def size(level: int, step: int, base: int) -> int:
            return base + level * step

        up, base = max(0, t_hi - pen) - min(0, t_lo - pen), tsz
        chains = [(up, base)]
        if node.success is not None and node.explode_kind in ("!", "!p"):
            chains.append((scores, scores + 1))  # the chain again, counting each throw
        for up_, base_ in chains:
            for level in range(1, levels + 2):
                before = size(level - 2, up_, base_) if level > 1 else 0
                t["chain"] += e * (2 * before + size(level - 1, up_, base_)) + tsz
                t["chain_d"] += e * before * _digits(level * throw_bits)
    else:
        t["map"] += tsz
    c_lo, c_hi = chain_range(node)
    if levels and not e:  # no face explodes (d6!>=10): the chain keeps the throw's values
        c_lo, c_hi = t_lo, t_hi
    m = c_hi - c_lo + 1
    bits = (1 + levels) * throw_bits
    if node.success is not None:
        if node.keep is not None and node.keep[1] != n:
            _tally_kept(t, n, node.keep[1], m, bits, scores)
            return hi - lo + 1, n * bits
        per = scores + 1
        if node.explode and node.explode_kind in ("!", "!p"):
            per = (1 + levels) * scores + 1
        else:
            t["map"] += m
        return _tally_power(t, per, n, bits), n * bits
    if node.keep is not None and node.keep[1] != n:
        _tally_kept(t, n, node.keep[1], m, bits)
        return hi - lo + 1, n * bits
    if node.keep_if is not None:
        t["map"] += m
        m = max(c_hi, 0) - min(c_lo, 0) + 1
    return _tally_power(t, m, n, bits), n * bits


def _tally(node: Expr, t: _Tally, exact: bool = False) -> tuple[int, float, bool]:
    """Steps of :func:`evaluate`: returns the length of the result, the bits of its total weight,
    and whether its values are fractions (a dict, not a dense list)."""
    t["node"] += 1
    if isinstance(node, Const):
        return 1, 0.0, False
    if isinstance(node, Dice):
        size, bits = _tally_dice(node, t)
        return size, bits, False
    if isinstance(node, (Neg, Label)):
        size, bits, frac = _tally(node.operand, t, exact)
        t["fill"] += size
        return size, bits, frac
    if isinstance(node, Func):
        size, bits, frac = _tally(node.arg, t, True)
        t["frac_map" if frac else "map"] += size
        lo, hi = bounds(node)
        t["fill"] += hi - lo + 1
        return hi - lo + 1, bits, False
    if isinstance(node, Group):
        return _tally_group(node, t)
    (a, bits_a, frac_a), (b, bits_b, frac_b) = _tally(node.left, t, exact), _tally(node.right, t, exact)
    lo, hi = bounds(node)
    bits = bits_a + bits_b
    if not isinstance(node, Compare) and node.op in "+-" and not (frac_a or frac_b):
        _tally_convolve(t, a, b, bits_a, bits_b)
        return a + b - 1, bits, False
    frac = frac_a or frac_b or (exact and not isinstance(node, Compare) and node.op == "/")
    t["frac" if frac else "pair"] += a * b
    if isinstance(node, Compare):
        return 2, bits, False
    if frac:
        return a * b, bits, True  # as many fractions as pairs, at most
    t["fill"] += hi - lo + 1
    return min(a * b, hi - lo + 1), bits, False


def _tally_group(node: Group, t: _Tally) -> tuple[int, float, bool]:
    parts = [_tally(i, t) for i in node.items]
    lo, hi = bounds(node)
    if node.keep is not None:
        k = node.keep[1]
        if k == 0:
            return 1, 0.0, False
        if k == len(parts):
            pass
        elif k == 1 and node.success is None:
            t["extreme"] += (hi - lo + 1) * len(parts) + sum(s for s, _, _ in parts)
            return hi - lo + 1, sum(b for _, b, _ in parts), False
        else:
            # several items kept from a set: icepool builds the items again and runs its pool algorithm:
            # for each outcome of the items, each item and each count kept so far, about as many running
            # totals as outcomes (measured: it does not grow as (k + 1) ** items, not even for different items)
            for i in node.items:
                _tally(i, t)
            outcomes = max(s for s, _, _ in parts)
            t["pool_q"] += 1
            t["pool"] += outcomes * outcomes * len(parts) * (k + 1)
            t["pool_d"] += outcomes * outcomes * len(parts) * (k + 1) * _digits(sum(b for _, b, _ in parts))
            return hi - lo + 1, sum(b for _, b, _ in parts), False
    sizes = [s for s, _, _ in parts]
    if node.keep_if is not None or node.success is not None:
        t["map"] += sum(sizes)
        if node.success is not None:
            sizes = [3] * len(sizes)
    acc, acc_bits = sizes[0], parts[0][1]
    for s, (_, b, _) in zip(sizes[1:], parts[1:], strict=True):
        _tally_convolve(t, acc, s, acc_bits, b)
        acc, acc_bits = acc + s - 1, acc_bits + b
    return hi - lo + 1, acc_bits, False


def work_tally(node: Expr) -> tuple[int, dict[str, float]]:
    """``(support, tally)``: the number of distinct values of the answer, and the operations a new
    question takes, by kind (:data:`WEIGHTS`)."""
    t = dict.fromkeys(WEIGHTS, 0.0)
    _, bits, _ = _tally(node, t)
    lo, hi = bounds(node)
    support = hi - lo + 1
    t["question"] += 1
    t["out"] += support
    t["out_d"] += support * _digits(bits)
    return support, t


def cost(node: Expr) -> tuple[int, int]:
    """``(support, work)``: the number of distinct values, and the steps a new question takes."""
    support, tally = work_tally(node)
    return support, math.ceil(sum(WEIGHTS[k] * v for k, v in tally.items()))


#: seconds one step of :func:`cost` takes on the project's 2-core machine when it is not shared
#: (bench/run.py, section (d), prints measured/predicted for a suite and for questions near the limit)
STEP_SECONDS = 1e-7


def predicted_seconds(work: int) -> float:
    """The time the work bound predicts for a new question."""
    return work * STEP_SECONDS
