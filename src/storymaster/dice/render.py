"""Rendering a roll for people: the expression with each die shown, e.g. ``2d6[3, 5] + 1 = 9``.

A stringifier kept apart from the maths: the parsed expression is compiled once
(per canonical text) into a small function that takes the record's dice term by
term; dropped dice are shown between tildes, explosions with ``!``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from .ast import BinOp, Const, Dice, Expr, Neg
from .parser import parse
from .record import DieRoll, RollRecord

__all__ = ["render"]

# a compiled renderer: dice grouped by term -> text
_Render = Callable[[Sequence[Sequence[DieRoll]]], str]
_FUDGE_FACES = {1: "+", 0: "0", -1: "-"}


def _dice_text(head: str, dice: Sequence[DieRoll]) -> str:
    if not any(d.exploded or not d.kept or d.sides == "F" for d in dice):
        return f"{head}[{', '.join([str(d.face) for d in dice])}]"
    chains: list[list[DieRoll]] = []
    for d in dice:
        if d.exploded and chains:
            chains[-1].append(d)
        else:
            chains.append([d])
    parts = []
    for chain in chains:
        text = "+".join(
            (_FUDGE_FACES[d.face] if d.sides == "F" else str(d.face)) + ("!" if i < len(chain) - 1 else "")
            for i, d in enumerate(chain)
        )
        parts.append(text if chain[0].kept else f"~{text}~")
    return f"{head}[{', '.join(parts)}]"


def _compile(node: Expr, terms: list[int]) -> _Render:
    if isinstance(node, Const):
        text = str(node.value)
        return lambda groups: text
    if isinstance(node, Dice):
        index, head = len(terms), str(node)
        terms.append(index)
        return lambda groups: _dice_text(head, groups[index] if index < len(groups) else ())
    if isinstance(node, Neg):
        inner = _compile(node.operand, terms)
        if isinstance(node.operand, BinOp):
            return lambda groups: f"-({inner(groups)})"
        return lambda groups: f"-{inner(groups)}"
    left, right = _compile(node.left, terms), _compile(node.right, terms)
    wrap_left = node.op == "*" and isinstance(node.left, BinOp) and node.left.op != "*"
    wrap_right = node.op in "*-" and isinstance(node.right, BinOp) and node.right.op != "*"
    sep = "*" if node.op == "*" else f" {node.op} "

    def binop(groups: Sequence[Sequence[DieRoll]]) -> str:
        a, b = left(groups), right(groups)
        return f"{f'({a})' if wrap_left else a}{sep}{f'({b})' if wrap_right else b}"

    return binop


@lru_cache(maxsize=4096)
def _renderer(expression: str) -> tuple[_Render, int]:
    terms: list[int] = []
    fn = _compile(parse(expression), terms)
    return fn, len(terms)


def render(record: RollRecord) -> str:
    fn, count = _renderer(record.expression)
    groups: list[list[DieRoll]] = [[] for _ in range(count)]
    for d in record.dice:
        if d.term < count:
            groups[d.term].append(d)
    return f"{fn(groups)} = {record.total}"
