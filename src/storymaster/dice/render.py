"""Rendering a roll for people: the expression with each die shown, e.g. ``2d6[3, 5] + 1 = 9``.

A stringifier kept apart from the maths: it walks the parsed expression and
takes the record's dice term by term.
"""

from __future__ import annotations

from collections.abc import Iterator

from .ast import BinOp, Const, Dice, Expr, Neg
from .parser import parse
from .record import DieRoll, RollRecord

__all__ = ["render"]


def _face(d: DieRoll) -> str:
    if d.sides == "F":
        return "+" if d.face > 0 else "-" if d.face < 0 else "0"
    return str(d.face)


def _dice_text(node: Dice, dice: list[DieRoll]) -> str:
    chains: list[list[DieRoll]] = []
    for d in dice:
        if d.exploded and chains:
            chains[-1].append(d)
        else:
            chains.append([d])
    parts = []
    for chain in chains:
        text = "+".join(_face(d) + ("!" if i < len(chain) - 1 else "") for i, d in enumerate(chain))
        parts.append(text if chain[0].kept else f"~{text}~")
    return f"{node}[{', '.join(parts)}]"


def _walk(node: Expr, by_term: Iterator[list[DieRoll]]) -> str:
    if isinstance(node, Const):
        return str(node.value)
    if isinstance(node, Dice):
        return _dice_text(node, next(by_term, []))
    if isinstance(node, Neg):
        inner = _walk(node.operand, by_term)
        return f"-({inner})" if isinstance(node.operand, BinOp) else f"-{inner}"
    left = _walk(node.left, by_term)
    right = _walk(node.right, by_term)
    if node.op == "*":
        if isinstance(node.left, BinOp) and node.left.op != "*":
            left = f"({left})"
        if isinstance(node.right, BinOp) and node.right.op != "*":
            right = f"({right})"
        return f"{left}*{right}"
    if node.op == "-" and isinstance(node.right, BinOp) and node.right.op != "*":
        right = f"({right})"
    return f"{left} {node.op} {right}"


def render(record: RollRecord) -> str:
    groups: dict[int, list[DieRoll]] = {}
    for d in record.dice:
        groups.setdefault(d.term, []).append(d)
    count = 1 + max(groups, default=-1)
    by_term = iter([groups.get(i, []) for i in range(count)])
    return f"{_walk(parse(record.expression), by_term)} = {record.total}"
