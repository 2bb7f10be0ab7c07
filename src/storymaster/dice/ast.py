"""The syntax tree of a dice expression: small, frozen, hashable nodes.

Hashable so that parsed expressions and their exact distributions can be
cached; ``str(node)`` gives the canonical notation, which is what records and
caches are keyed on (it parses back to the same tree).

A dice term's modifiers always act in one order, whatever order they are
written in: each throw is rerolled (``r``/``ro``), then clamped (``mi``/``ma``);
a throw matching the explosion rule adds another throw to its chain (``!``,
``!!``, ``!p``); then keep/drop chooses among the chains; then success and
failure counting (``>=8``, ``f1``) turns the kept dice into a count.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from .limits import DEFAULT_LIMITS

__all__ = ["BinOp", "Cmp", "Compare", "Const", "Dice", "Expr", "Func", "Group", "Label", "Neg"]

FUDGE = "F"
DEFAULT_EXPLODE_DEPTH = DEFAULT_LIMITS.explode_depth
DEFAULT_REROLL_DEPTH = DEFAULT_LIMITS.reroll_depth

CmpOp = Literal["=", ">", ">=", "<", "<="]
RoundName = Literal["floor", "ceil", "round"]


def compare(op: CmpOp, a: Any, b: Any) -> Any:
    """``a op b``: ``>`` and ``<`` strict, as in Foundry and d20. Plain operators, so numbers, fractions
    and numpy arrays alike (the roller, the batch roller and the exact odds all call this one rule)."""
    if op == "=":
        return a == b
    if op == ">=":
        return a >= b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    return a < b


def round_value(name: RoundName, value: Fraction | int) -> int:
    """``floor``, ``ceil`` or ``round`` of an exact value; ``round`` takes halves up (towards +infinity),
    as Roll20 does: round(5/2) = 3, round(-5/2) = -2."""
    if name == "floor":
        return math.floor(value)
    if name == "ceil":
        return math.ceil(value)
    return math.floor(value + Fraction(1, 2))


@dataclass(frozen=True, slots=True)
class Cmp:
    """A compare point: ``>=8`` matches 8 and up. ``>`` and ``<`` are strict (as in Foundry and d20)."""

    op: CmpOp
    value: int

    def test(self, x: Any) -> Any:
        return compare(self.op, x, self.value)

    def __str__(self) -> str:
        return f"{'' if self.op == '=' else self.op}{self.value}"


@dataclass(frozen=True, slots=True)
class Const:
    value: int

    def __str__(self) -> str:
        return str(self.value)


ExplodeKind = Literal["!", "!!", "!p"]


@dataclass(frozen=True, slots=True)
class Dice:
    """``count`` dice of ``sides`` faces (``"F"`` for Fudge dice: -1, 0, +1), and their modifiers.

    ``explode`` is the explosion depth (0 = no explosion): a throw matching
    ``explode_on`` (the highest face when ``None``) adds another throw, at most
    ``explode`` times in a chain; ``explode_kind`` is ``"!"`` (each throw a die of
    its own for success counting), ``"!!"`` (compounding: the chain is one die)
    or ``"!p"`` (penetrating: each added throw counts one less). For keep/drop a
    chain always counts as one die.
    ``keep`` is ``("h"|"l", n)`` to keep the n highest or lowest; ``keep_if`` is
    ``("k"|"d", cmp)`` to keep (or drop) the dice matching a compare point.
    ``reroll`` rerolls a throw matching it, at most ``reroll_depth`` times (1 = once).
    ``min_face``/``max_face`` clamp each throw. ``success``/``failure`` make the
    term a count: kept dice matching ``success`` minus those matching ``failure``.
    """

    count: int
    sides: int | Literal["F"]
    explode: int = 0
    keep: tuple[Literal["h", "l"], int] | None = None
    explode_on: Cmp | None = None
    explode_kind: ExplodeKind = "!"
    reroll: Cmp | None = None
    reroll_depth: int = 0
    min_face: int | None = None
    max_face: int | None = None
    keep_if: tuple[Literal["k", "d"], Cmp] | None = None
    success: Cmp | None = None
    failure: Cmp | None = None

    @property
    def fudge(self) -> bool:
        """True for Fudge dice (``dF``)."""
        return self.sides == FUDGE

    @property
    def faces(self) -> int:
        """Number of faces (3 for a Fudge die)."""
        return 3 if self.sides == FUDGE else int(self.sides)

    @property
    def face_values(self) -> range:
        """The faces a die can show (-1..1 for Fudge)."""
        return range(-1, 2) if self.sides == FUDGE else range(1, int(self.sides) + 1)

    @property
    def plain(self) -> bool:
        """No modifier at all: the dice are simply summed."""
        return (
            not self.explode
            and self.keep is None
            and self.keep_if is None
            and self.reroll is None
            and self.min_face is None
            and self.max_face is None
            and self.success is None
        )

    @property
    def per_die_only(self) -> bool:
        """Only the old modifiers (explode on the top face, keep highest/lowest)."""
        return (
            self.keep_if is None
            and self.reroll is None
            and self.min_face is None
            and self.max_face is None
            and self.success is None
            and self.explode_on is None
            and self.explode_kind == "!"
        )

    def explodes_on(self, x: int) -> bool:
        """True when a die showing ``x`` adds another die."""
        if not self.explode:
            return False
        return x == self.faces if self.explode_on is None else self.explode_on.test(x)

    def clamp(self, x: int) -> int:
        """``x`` within the term's minimum and maximum face modifiers."""
        if self.min_face is not None and x < self.min_face:
            x = self.min_face
        if self.max_face is not None and x > self.max_face:
            x = self.max_face
        return x

    def __str__(self) -> str:
        text = f"{self.count}d{self.sides}"
        if self.reroll is not None:
            if self.reroll_depth == 1:
                text += f"ro{self.reroll}"
            elif self.reroll_depth == DEFAULT_REROLL_DEPTH:
                text += f"r{self.reroll}"
            else:
                text += f"r({self.reroll_depth}){self.reroll}"
        if self.min_face is not None:
            text += f"mi{self.min_face}"
        if self.max_face is not None:
            text += f"ma{self.max_face}"
        bare_bang = False
        if self.explode:
            text += self.explode_kind
            if self.explode_on is not None:
                text += str(self.explode_on)
            else:
                bare_bang = True
            if self.explode != DEFAULT_EXPLODE_DEPTH:
                text += f"({self.explode})"
                bare_bang = False
        if self.keep is not None:
            kind, n = self.keep
            text += f"k{kind}{n}"
            bare_bang = False
        if self.keep_if is not None:
            which, cmp = self.keep_if
            # a bare number after k/d counts dice, so equality is written with '='
            text += f"{which}{'=' if cmp.op == '=' else ''}{cmp}"
            bare_bang = False
        if self.success is not None:
            if bare_bang or self.success.op == "=":
                text += f"cs{self.success}"
            else:
                text += str(self.success)
            if self.failure is not None:
                text += f"f{self.failure}"
        return text


@dataclass(frozen=True, slots=True)
class Group:
    """A set ``{a, b, c}``: each item is rolled to a total; keep/drop and counting act on the totals."""

    items: tuple[Expr, ...]
    keep: tuple[Literal["h", "l"], int] | None = None
    keep_if: tuple[Literal["k", "d"], Cmp] | None = None
    success: Cmp | None = None
    failure: Cmp | None = None

    def __str__(self) -> str:
        text = "{" + ", ".join(str(i) for i in self.items) + "}"
        if self.keep is not None:
            text += f"k{self.keep[0]}{self.keep[1]}"
        if self.keep_if is not None:
            which, cmp = self.keep_if
            text += f"{which}{'=' if cmp.op == '=' else ''}{cmp}"
        if self.success is not None:
            text += f"cs{self.success}" if self.success.op == "=" else str(self.success)
            if self.failure is not None:
                text += f"f{self.failure}"
        return text


@dataclass(frozen=True, slots=True)
class Neg:
    operand: Expr

    def __str__(self) -> str:
        if isinstance(self.operand, (BinOp, Compare)) or _counts_first(self.operand):
            return f"-({self.operand})"
        return f"-{self.operand}"


_PREC = {"+": 1, "-": 1, "*": 2, "/": 2}


@dataclass(frozen=True, slots=True)
class BinOp:
    """``+``, ``-``, ``*`` and ``/`` (division rounds down, except inside ``ceil()``/``round()``)."""

    op: Literal["+", "-", "*", "/"]
    left: Expr
    right: Expr

    def __str__(self) -> str:
        p = _PREC[self.op]
        left = f"({self.left})" if _prec(self.left) < p else str(self.left)
        rp = _prec(self.right)
        right = f"({self.right})" if rp < p or (rp == p and isinstance(self.right, BinOp)) else str(self.right)
        return f"{left}{self.op}{_wrap_unless_start(self.right, right)}"


@dataclass(frozen=True, slots=True)
class Compare:
    """``a >= b`` and friends: 1 when true, 0 when false."""

    op: CmpOp
    left: Expr
    right: Expr

    def __str__(self) -> str:
        wrap_left = isinstance(self.left, (Dice, Group, Compare)) or _counts_first(self.left)
        left = f"({self.left})" if wrap_left else str(self.left)
        right = f"({self.right})" if isinstance(self.right, Compare) or _counts_first(self.right) else str(self.right)
        return f"{left}{'==' if self.op == '=' else self.op}{right}"


@dataclass(frozen=True, slots=True)
class Func:
    """``floor(x)``, ``ceil(x)``, ``round(x)``: divisions inside are exact, then the result is rounded.

    ``round`` rounds halves up (towards +infinity), as Roll20 does: round(5/2) = 3, round(-5/2) = -2.
    """

    name: RoundName
    arg: Expr

    def __str__(self) -> str:
        return f"{self.name}({self.arg})"


@dataclass(frozen=True, slots=True)
class Label:
    """A label such as ``3d6[fire]``: kept in the record and shown; it does not change the value."""

    operand: Expr
    text: str

    def __str__(self) -> str:
        inner = f"({self.operand})" if isinstance(self.operand, (BinOp, Compare, Neg)) else str(self.operand)
        return f"{inner}[{self.text}]"


Expr = Const | Dice | Neg | BinOp | Compare | Func | Group | Label


def _counts_first(node: Expr) -> bool:
    """Whether the node's text opens with a dice term that counts successes with a bare compare point.

    Such a term reads as counting only where it opens a sum, so elsewhere it is put in parentheses.
    """
    while True:
        if isinstance(node, Dice):
            return node.success is not None
        if isinstance(node, Label):
            node = node.operand
        elif isinstance(node, BinOp) and _prec(node.left) >= _PREC[node.op]:
            node = node.left
        else:
            return False


def _wrap_unless_start(node: Expr, text: str) -> str:
    return f"({text})" if _counts_first(node) and not text.startswith("(") else text


def _prec(node: Expr) -> int:
    if isinstance(node, BinOp):
        return _PREC[node.op]
    if isinstance(node, Compare):
        return 0
    return 3


def children(node: Expr) -> tuple[Expr, ...]:
    """The direct sub-expressions of a node."""
    if isinstance(node, (BinOp, Compare)):
        return (node.left, node.right)
    if isinstance(node, Neg):
        return (node.operand,)
    if isinstance(node, Label):
        return (node.operand,)
    if isinstance(node, Func):
        return (node.arg,)
    if isinstance(node, Group):
        return node.items
    return ()


def walk(node: Expr) -> Iterator[Expr]:
    """Every node of the tree, depth first."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(children(n)))


def is_plain_arithmetic(node: Expr) -> bool:
    """Only plain dice, numbers, ``+``, ``-`` and ``*``: the shape older code (and some forecasts) can follow."""
    for n in walk(node):
        if isinstance(n, Dice):
            if not n.plain:
                return False
        elif isinstance(n, BinOp):
            if n.op == "/":
                return False
        elif not isinstance(n, (Const, Neg)):
            return False
    return True
