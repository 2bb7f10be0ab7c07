"""Rendering a roll for people: the expression with each die shown, e.g. ``2d6[3, 5] + 1 = 9``.

A stringifier kept apart from the maths: the parsed expression is compiled once
(per canonical text) into a small function that takes the record's dice term by
term. Dropped dice are shown between tildes, explosions with ``!``, a rerolled
throw with ``r`` before the throw that replaced it (``1r 4``), a clamped throw
as ``1→2``, a penetrating throw as ``(4-1)``, successes with ``*`` and failures
with ``f``; a label follows its part in brackets (``3d6[4, 1, 2] [fire]``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from .ast import _PREC, BinOp, Compare, Const, Dice, Expr, Func, Group, Label, Neg, _prec
from .parser import parse
from .record import DieRoll, RollRecord

__all__ = ["render"]

# a compiled renderer: dice grouped by term -> text
_Render = Callable[[Sequence[Sequence[DieRoll]]], str]
_FUDGE_FACES = {1: "+", 0: "0", -1: "-"}


def _dice_text(head: str, dice: Sequence[DieRoll]) -> str:
    """The old terms (plain, exploding on the top face, keep/drop): exactly as before."""
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


def _modified_text(node: Dice, head: str, dice: Sequence[DieRoll]) -> str:
    """Any dice term: rerolls, clamps, explosions on compare points, penetration, successes."""
    pen = 1 if node.explode_kind == "!p" else 0
    per_throw = node.explode_kind in ("!", "!p") and node.explode
    success, failure = node.success, node.failure

    def mark(value: int) -> str:
        if success is None:
            return ""
        if success.test(value):
            return "*"
        if failure is not None and failure.test(value):
            return "f"
        return ""

    # group the entries into chains of throws; a throw is (rerolled faces, face, exploded)
    chains: list[list[tuple[list[int], DieRoll]]] = []
    pending: list[int] = []
    for d in dice:
        if d.rerolled:
            if not d.exploded and not pending:
                chains.append([])
            pending.append(d.face)
            continue
        if not d.exploded and not (pending and chains and not chains[-1]):
            chains.append([])
        chains[-1].append((pending, d))
        pending = []
    parts = []
    for chain in chains:
        bits = []
        total = 0
        for j, (rerolled, d) in enumerate(chain):
            face = _FUDGE_FACES[d.face] if d.sides == "F" else str(d.face)
            value = node.clamp(d.face)
            text = "".join(f"{r}r " for r in rerolled)
            shown = face if value == d.face else f"{face}→{value}"
            if j and pen:
                shown = f"({shown}-{pen})"
                value -= pen
            total += value
            text += shown
            if j < len(chain) - 1:
                text += "!"
            if per_throw:
                text += mark(value)
            bits.append(text)
        text = "+".join(bits)
        if not per_throw:
            text += mark(total)
        kept = bool(chain) and chain[0][1].kept
        parts.append(text if kept else f"~{text}~")
    return f"{head}[{', '.join(parts)}]"


def _reroll_clamp_text(node: Dice, head: str, index: int) -> _Render:
    """Rerolls and minimum/maximum only: each throw a reroll replaced, ``1r 4``; a clamped face, ``1→2``.

    The same text as :func:`_modified_text` gives these terms, without its general machinery.
    """
    fudge = node.fudge
    shown = {f: (_FUDGE_FACES[f] if fudge else str(f)) for f in node.face_values}
    text = {f: (shown[f] if node.clamp(f) == f else f"{shown[f]}→{node.clamp(f)}") for f in node.face_values}

    def render_term(groups: Sequence[Sequence[DieRoll]]) -> str:
        parts = []
        rerolled = ""
        for d in groups[index] if index < len(groups) else ():
            if d[5]:  # rerolled
                rerolled += f"{d[1]}r "  # as the general path shows it (a number, Fudge too)
            else:
                parts.append(rerolled + text[d[1]])
                rerolled = ""
        return f"{head}[{', '.join(parts)}]"

    return render_term


def _compile(node: Expr, terms: list[int]) -> _Render:
    if isinstance(node, Const):
        text = str(node.value)
        return lambda groups: text
    if isinstance(node, Dice):
        index, head = len(terms), str(node)
        terms.append(index)
        if node.plain and not node.fudge:  # nothing to mark: the faces as thrown
            return lambda groups: f"{head}[{', '.join([str(d[1]) for d in groups[index]])}]"
        if node.per_die_only and not node.explode and not node.fudge:  # kept faces, dropped ones ~between~
            return lambda groups: f"{head}[{', '.join([str(d[1]) if d[2] else f'~{d[1]}~' for d in groups[index]])}]"
        if node.per_die_only:
            return lambda groups: _dice_text(head, groups[index] if index < len(groups) else ())
        if not node.explode and node.keep is None and node.keep_if is None and node.success is None:
            return _reroll_clamp_text(node, head, index)
        return lambda groups: _modified_text(node, head, groups[index] if index < len(groups) else ())
    if isinstance(node, Neg):
        inner = _compile(node.operand, terms)
        if isinstance(node.operand, (BinOp, Compare)):
            return lambda groups: f"-({inner(groups)})"
        return lambda groups: f"-{inner(groups)}"
    if isinstance(node, Label):
        inner = _compile(node.operand, terms)
        wrap = isinstance(node.operand, (BinOp, Compare, Neg))
        label = node.text
        if wrap:
            return lambda groups: f"({inner(groups)}) [{label}]"
        return lambda groups: f"{inner(groups)} [{label}]"
    if isinstance(node, Func):
        inner = _compile(node.arg, terms)
        name = node.name
        return lambda groups: f"{name}({inner(groups)})"
    if isinstance(node, Group):
        items = [_compile(i, terms) for i in node.items]
        tail = str(Group((Const(0),), node.keep, node.keep_if, node.success, node.failure))[3:]
        return lambda groups: "{" + ", ".join(i(groups) for i in items) + "}" + tail
    if isinstance(node, Compare):
        left, right = _compile(node.left, terms), _compile(node.right, terms)
        op = "==" if node.op == "=" else node.op
        return lambda groups: f"{left(groups)} {op} {right(groups)}"
    left, right = _compile(node.left, terms), _compile(node.right, terms)
    tight = node.op in "*/"
    p = _PREC[node.op]
    wrap_left = _prec(node.left) < p
    wrap_right = _prec(node.right) < p or (_prec(node.right) == p and isinstance(node.right, BinOp))
    sep = node.op if tight else f" {node.op} "

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
    if count == 1:
        groups: Sequence[Sequence[DieRoll]] = [[d for d in record.dice if d.term == 0]]
    else:
        lists: list[list[DieRoll]] = [[] for _ in range(count)]
        for d in record.dice:
            if d.term < count:
                lists[d.term].append(d)
        groups = lists
    return f"{fn(groups)} = {record.total}"
