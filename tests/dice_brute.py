"""An independent brute-force reading of the dice language, for differential tests.

It shares no code with the engine: it walks every sequence of die faces the
rules could throw (each face 1/sides), straight from the README's description
of each modifier, and returns the exact distribution of the total as
``{value: Fraction}``. Only for small cases (a few dice, small depths).
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from fractions import Fraction

from storymaster.dice.ast import Compare, Const, Dice, Func, Group, Label, Neg


def _faces(node: Dice) -> list[int]:
    return [-1, 0, 1] if node.sides == "F" else list(range(1, int(node.sides) + 1))


def _cmp(c, x) -> bool:
    return {"=": x == c.value, ">=": x >= c.value, "<=": x <= c.value, ">": x > c.value, "<": x < c.value}[c.op]


def _throw(node: Dice) -> dict[int, Fraction]:
    """One throw: rerolled while it matches (at most reroll_depth times), then clamped."""
    faces = _faces(node)
    out: dict[int, Fraction] = defaultdict(Fraction)

    def go(p: Fraction, r: int) -> None:
        for f in faces:
            q = p / len(faces)
            if node.reroll is not None and r < node.reroll_depth and _cmp(node.reroll, f):
                go(q, r + 1)
            else:
                v = f
                if node.min_face is not None:
                    v = max(v, node.min_face)
                if node.max_face is not None:
                    v = min(v, node.max_face)
                out[v] += q

    go(Fraction(1), 0)
    return dict(out)


def _score(node, v: int) -> int:
    s = 1 if _cmp(node.success, v) else 0
    if node.failure is not None and _cmp(node.failure, v):
        s -= 1
    return s


def _chain(node: Dice) -> dict[tuple[int, int], Fraction]:
    """One die: (its value, its count of successes throw by throw) -> chance."""
    throw = _throw(node)
    top = max(_faces(node))
    pen = 1 if node.explode_kind == "!p" else 0
    out: dict[tuple[int, int], Fraction] = defaultdict(Fraction)

    def go(value: int, hits: int, p: Fraction, j: int) -> None:
        for x, q in throw.items():
            shown = x - pen if j else x
            h = hits + (_score(node, shown) if node.success is not None else 0)
            matches = node.explode and (x == top if node.explode_on is None else _cmp(node.explode_on, x))
            if matches and j < node.explode:
                go(value + shown, h, p * q, j + 1)
            else:
                out[(value + shown, h)] += p * q

    go(0, 0, Fraction(1), 0)
    return dict(out)


def _dice(node: Dice) -> dict[int, Fraction]:
    one = list(_chain(node).items())
    out: dict[int, Fraction] = defaultdict(Fraction)
    for combo in itertools.product(one, repeat=node.count):
        p = Fraction(1)
        for _, q in combo:
            p *= q
        chains = [c for c, _ in combo]  # (value, hits)
        if node.keep is not None:
            mode, n = node.keep
            chains = sorted(chains, key=lambda c: c[0], reverse=(mode == "h"))[:n]
        elif node.keep_if is not None:
            kind, c = node.keep_if
            chains = [ch for ch in chains if _cmp(c, ch[0]) == (kind == "k")]
        if node.success is None:
            total = sum(v for v, _ in chains)
        elif node.explode and node.explode_kind in ("!", "!p"):
            total = sum(h for _, h in chains)
        else:
            total = sum(_score(node, v) for v, _ in chains)
        out[total] += p
    return dict(out)


def _pair(a, b, fn):
    out: dict = defaultdict(Fraction)
    for (x, p), (y, q) in itertools.product(a.items(), b.items()):
        out[fn(x, y)] += p * q
    return dict(out)


def brute(node, exact: bool = False) -> dict:
    if isinstance(node, Const):
        return {node.value: Fraction(1)}
    if isinstance(node, Label):
        return brute(node.operand, exact)
    if isinstance(node, Neg):
        return {-k: v for k, v in brute(node.operand, exact).items()}
    if isinstance(node, Dice):
        return _dice(node)
    if isinstance(node, Func):
        rounding = {
            "floor": math.floor,
            "ceil": math.ceil,
            "round": lambda x: math.floor(x + Fraction(1, 2)),
        }[node.name]
        out: dict = defaultdict(Fraction)
        for k, v in brute(node.arg, True).items():
            out[rounding(Fraction(k))] += v
        return dict(out)
    if isinstance(node, Group):
        items = [list(brute(i).items()) for i in node.items]
        out = defaultdict(Fraction)
        for combo in itertools.product(*items):
            p = Fraction(1)
            for _, q in combo:
                p *= q
            values = [v for v, _ in combo]
            if node.keep is not None:
                mode, n = node.keep
                values = sorted(values, reverse=(mode == "h"))[:n]
            elif node.keep_if is not None:
                kind, c = node.keep_if
                values = [v for v in values if _cmp(c, v) == (kind == "k")]
            total = sum(_score(node, v) for v in values) if node.success is not None else sum(values)
            out[total] += p
        return dict(out)
    a, b = brute(node.left, exact), brute(node.right, exact)
    if isinstance(node, Compare):
        from types import SimpleNamespace

        c = SimpleNamespace(op=node.op, value=None)

        def test(x, y):
            c.value = y
            return 1 if _cmp(c, x) else 0

        return _pair(a, b, test)
    ops = {
        "+": lambda x, y: x + y,
        "-": lambda x, y: x - y,
        "*": lambda x, y: x * y,
        "/": (lambda x, y: Fraction(x) / y) if exact else (lambda x, y: x // y),
    }
    return _pair(a, b, ops[node.op])
