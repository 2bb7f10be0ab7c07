"""The syntax tree of a dice expression: small, frozen, hashable nodes.

Hashable so that parsed expressions and their exact distributions can be
cached; ``str(node)`` gives the canonical notation, which is what records and
caches are keyed on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .limits import DEFAULT_LIMITS

__all__ = ["BinOp", "Const", "Dice", "Expr", "Neg"]

FUDGE = "F"
DEFAULT_EXPLODE_DEPTH = DEFAULT_LIMITS.explode_depth


@dataclass(frozen=True, slots=True)
class Const:
    value: int

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True, slots=True)
class Dice:
    """``count`` dice of ``sides`` faces (``"F"`` for Fudge dice: -1, 0, +1).

    ``explode`` is the explosion depth (0 = no explosion): a die showing its
    highest face adds another die, at most ``explode`` times in a chain.
    ``keep`` is ``("h"|"l", n)`` to keep the n highest or lowest, or ``None``.
    """

    count: int
    sides: int | Literal["F"]
    explode: int = 0
    keep: tuple[Literal["h", "l"], int] | None = None

    @property
    def fudge(self) -> bool:
        return self.sides == FUDGE

    @property
    def faces(self) -> int:
        """Number of faces (3 for a Fudge die)."""
        return 3 if self.sides == FUDGE else int(self.sides)

    def __str__(self) -> str:
        text = f"{self.count}d{self.sides}"
        if self.explode:
            text += "!" if self.explode == DEFAULT_EXPLODE_DEPTH else f"!({self.explode})"
        if self.keep is not None:
            kind, n = self.keep
            text += f"k{kind}{n}"
        return text


@dataclass(frozen=True, slots=True)
class Neg:
    operand: Expr

    def __str__(self) -> str:
        return f"-({self.operand})" if isinstance(self.operand, BinOp) else f"-{self.operand}"


@dataclass(frozen=True, slots=True)
class BinOp:
    op: Literal["+", "-", "*"]
    left: Expr
    right: Expr

    def __str__(self) -> str:
        if self.op == "*":
            return f"{_wrap(self.left)}*{_wrap(self.right)}"
        right = _wrap(self.right) if isinstance(self.right, BinOp) and self.right.op != "*" else str(self.right)
        return f"{self.left}{self.op}{right}"


Expr = Const | Dice | Neg | BinOp


def _wrap(node: Expr) -> str:
    if isinstance(node, BinOp) and node.op != "*":
        return f"({node})"
    return str(node)
