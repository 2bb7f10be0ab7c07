"""Bounds on the value of an expression: a lowest and a highest total (never tighter than the truth).

Used to refuse a division that could divide by zero, and by the batch roller to
size its arrays; the bounds may be loose (wider than the true range) but never
too narrow.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

from .ast import BinOp, Compare, Const, Dice, Expr, Func, Group, Label, Neg

__all__ = ["bounds", "chain_range", "throw_range"]


def throw_range(node: Dice) -> tuple[int, int]:
    """The values one throw of the die can show (after clamping)."""
    faces = node.face_values
    return node.clamp(faces[0]), node.clamp(faces[-1])


def chain_range(node: Dice) -> tuple[int, int]:
    """The values one die (its whole explosion chain) can come to."""
    lo, hi = throw_range(node)
    if not node.explode:
        return lo, hi
    pen = 1 if node.explode_kind == "!p" else 0
    return lo + node.explode * min(0, lo - pen), hi + node.explode * max(0, hi - pen)


@lru_cache(maxsize=4096)
def bounds(node: Expr) -> tuple[int, int]:
    if isinstance(node, Const):
        return node.value, node.value
    if isinstance(node, Dice):
        n = node.count
        if node.success is not None:
            per = 1 + node.explode if node.explode_kind in ("!", "!p") else 1
            return (-n * per if node.failure is not None else 0), n * per
        lo, hi = chain_range(node)
        if node.keep is not None:
            k = node.keep[1]
            return k * lo, k * hi
        if node.keep_if is not None:
            return n * min(0, lo), n * max(0, hi)
        return n * lo, n * hi
    if isinstance(node, Neg):
        lo, hi = bounds(node.operand)
        return -hi, -lo
    if isinstance(node, Label):
        return bounds(node.operand)
    if isinstance(node, Compare):
        return 0, 1
    if isinstance(node, Func):
        flo, fhi = _exact_bounds(node.arg)
        return math.floor(flo), math.ceil(fhi)
    if isinstance(node, Group):
        parts = [bounds(i) for i in node.items]
        k = len(parts)
        if node.success is not None:
            return (-k if node.failure is not None else 0), k
        if node.keep is not None:
            n = node.keep[1]
            return sum(sorted(p[0] for p in parts)[:n]), sum(sorted((p[1] for p in parts), reverse=True)[:n])
        if node.keep_if is not None:
            return sum(min(0, p[0]) for p in parts), sum(max(0, p[1]) for p in parts)
        return sum(p[0] for p in parts), sum(p[1] for p in parts)
    assert isinstance(node, BinOp)
    (a, b), (c, d) = bounds(node.left), bounds(node.right)
    if node.op == "+":
        return a + c, b + d
    if node.op == "-":
        return a - d, b - c
    if node.op == "*":
        corners = (a * c, a * d, b * c, b * d)
        return min(corners), max(corners)
    qlo, qhi = _div_corners(a, b, c, d)
    return math.floor(qlo), math.floor(qhi)


def _div_corners(
    a: Fraction | int, b: Fraction | int, c: Fraction | int, d: Fraction | int
) -> tuple[Fraction, Fraction]:
    fa, fb, fc, fd = Fraction(a), Fraction(b), Fraction(c), Fraction(d)
    if fc <= 0 <= fd:  # the parser refuses these; stay safe if called on a hand-built tree
        big = max(abs(fa), abs(fb))
        return -big, big
    corners = [x / y for x in (fa, fb) for y in (fc, fd)]
    return min(corners), max(corners)


def _exact_bounds(node: Expr) -> tuple[Fraction, Fraction]:
    """Bounds where '/' is exact (inside floor/ceil/round)."""
    if isinstance(node, BinOp):
        (a, b), (c, d) = _exact_bounds(node.left), _exact_bounds(node.right)
        if node.op == "+":
            return a + c, b + d
        if node.op == "-":
            return a - d, b - c
        if node.op == "*":
            fcorners = (a * c, a * d, b * c, b * d)
            return min(fcorners), max(fcorners)
        return _div_corners(a, b, c, d)
    if isinstance(node, Neg):
        elo, ehi = _exact_bounds(node.operand)
        return -ehi, -elo
    if isinstance(node, Label):
        return _exact_bounds(node.operand)
    ilo, ihi = bounds(node)
    return Fraction(ilo), Fraction(ihi)
