"""Dice notation: text -> syntax tree, with the position of any fault.

Grammar (whitespace is ignored between tokens; letters are case-insensitive)::

    expr    := term (("+" | "-") term)*
    term    := unary ("*" unary)*
    unary   := "-" unary | atom
    atom    := NUMBER | dice | "(" expr ")"
    dice    := [NUMBER] "d" (NUMBER | "%" | "F") ["!" ["(" NUMBER ")"]] [keep]
    keep    := ("kh" | "k" | "kl" | "dh" | "dl") NUMBER

``d%`` is a d100; ``dF`` a Fudge die (-1, 0, +1); ``!`` explodes on the
highest face, at most ``Limits.explode_depth`` times in a chain unless a depth
is written, ``d6!(3)``; ``4d6kh3`` keeps the three highest, ``4d6dl1`` drops
the lowest (the same thing).
"""

from __future__ import annotations

from functools import lru_cache

from ..errors import DiceLimitError, DiceSyntaxError
from .ast import BinOp, Const, Dice, Expr, Neg
from .limits import DEFAULT_LIMITS, Limits

__all__ = ["parse", "parse_pool"]

_DIGITS = "0123456789"


class _Parser:
    __slots__ = ("depth", "limits", "pos", "text")

    def __init__(self, text: str, limits: Limits) -> None:
        self.text = text
        self.pos = 0
        self.limits = limits
        self.depth = 0

    # -- helpers -----------------------------------------------------------
    def error(self, message: str, pos: int | None = None, hint: str | None = None) -> DiceSyntaxError:
        return DiceSyntaxError(message, expression=self.text, position=self.pos if pos is None else pos, hint=hint)

    def skip(self) -> None:
        text, pos = self.text, self.pos
        while pos < len(text) and text[pos] in " \t":
            pos += 1
        self.pos = pos

    def peek(self) -> str:
        self.skip()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def number(self, what: str) -> int:
        self.skip()
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] in _DIGITS:
            self.pos += 1
        if start == self.pos:
            got = self.text[start] if start < len(self.text) else "the end"
            raise self.error(
                f"expected {what}, found {got!r}" if got != "the end" else f"expected {what}, found the end"
            )
        value = int(self.text[start : self.pos])
        if value > self.limits.max_literal:
            raise DiceLimitError(
                f"the number {value} at position {start + 1} is larger than {self.limits.max_literal}",
                hint="dice expressions are for dice; use smaller numbers",
            )
        return value

    # -- grammar -----------------------------------------------------------
    def expr(self) -> Expr:
        node = self.term()
        while (c := self.peek()) in ("+", "-") and c:
            self.pos += 1
            node = BinOp(c, node, self.term())  # type: ignore[arg-type]
        return node

    def term(self) -> Expr:
        node = self.unary()
        while self.peek() == "*":
            self.pos += 1
            node = BinOp("*", node, self.unary())
        return node

    def enter(self) -> None:
        self.depth += 1
        if self.depth > self.limits.max_nesting:
            raise DiceLimitError(
                f"the expression nests deeper than {self.limits.max_nesting} levels at position {self.pos + 1}",
                hint="remove redundant parentheses or minus signs",
            )

    def unary(self) -> Expr:
        if self.peek() == "-":
            self.pos += 1
            self.enter()
            node = Neg(self.unary())
            self.depth -= 1
            return node
        return self.atom()

    def atom(self) -> Expr:
        c = self.peek()
        if c == "(":
            open_at = self.pos
            self.pos += 1
            self.enter()
            node = self.expr()
            self.depth -= 1
            if self.peek() != ")":
                if self.pos >= len(self.text):
                    raise self.error("missing ')'", hint=f"the '(' at position {open_at + 1} is never closed")
                raise self.error(f"expected ')' or an operator, found {self.text[self.pos]!r}")
            self.pos += 1
            return node
        if c in ("d", "D"):
            return self.dice(1, self.pos)
        if c and c in _DIGITS:
            start = self.pos
            value = self.number("a number")
            if self.peek() in ("d", "D"):
                return self.dice(value, start)
            return Const(value)
        if not c:
            raise self.error("expected a number, a die or '(', found the end", hint="the expression stops too early")
        raise self.error(f"expected a number, a die or '(', found {c!r}", hint=_hint_for(c))

    def dice(self, count: int, start: int) -> Dice:
        limits = self.limits
        self.pos += 1  # the 'd'
        c = self.peek()
        sides: int | str
        sides_at = self.pos
        if c in ("f", "F"):
            self.pos += 1
            sides = "F"
        elif c == "%":
            self.pos += 1
            sides = 100
        else:
            sides = self.number("the number of sides after 'd'")
            if sides < 1:
                raise self.error("a die needs at least one side", pos=sides_at)
        # 0dX is allowed and rolls nothing
        if count > limits.max_dice:
            raise DiceLimitError(
                f"{count} dice at position {start + 1} is more than the limit of {limits.max_dice}",
                hint="roll fewer dice, or use the batch API for simulations",
            )
        if sides != "F" and sides > limits.max_sides:  # type: ignore[operator]
            raise DiceLimitError(
                f"a d{sides} at position {sides_at + 1} has more than the limit of {limits.max_sides} sides"
            )
        explode = 0
        if self.peek() == "!":
            bang = self.pos
            self.pos += 1
            explode = limits.explode_depth
            if self.peek() == "(":
                self.pos += 1
                explode = self.number("an explosion depth")
                if self.peek() != ")":
                    raise self.error("expected ')' after the explosion depth")
                self.pos += 1
                if explode < 1:
                    raise self.error("an explosion depth must be at least 1", pos=bang)
                if explode > limits.max_explode_depth:
                    raise DiceLimitError(
                        f"explosion depth {explode} at position {bang + 1} is more than the limit of "
                        f"{limits.max_explode_depth}"
                    )
            if sides == 1:
                raise self.error("a d1 cannot explode: it would never stop", pos=bang)
            if self.peek() in (">", "<", "="):
                raise self.error(
                    "compare points are not supported",
                    hint="'!' explodes on the highest face; write d6!(3) to cap the chain at 3 explosions",
                )
        keep = None
        c = self.peek().lower()
        if c in ("k", "d") and self.pos < len(self.text):
            kpos = self.pos
            self.pos += 1
            mode = self.text[self.pos].lower() if self.pos < len(self.text) else ""
            if c == "d" and mode not in ("h", "l"):
                raise self.error(
                    "expected 'dh' or 'dl' (drop highest/lowest)",
                    pos=kpos,
                    hint="two dice terms must be joined by '+' or '-', e.g. 'd6+d4'",
                )
            if mode in ("h", "l"):
                self.pos += 1
            else:
                mode = "h"
            n = self.number(f"how many dice to {'keep' if c == 'k' else 'drop'}")
            if n > count:
                raise self.error(f"cannot {'keep' if c == 'k' else 'drop'} {n} of {count} dice", pos=kpos)
            if c == "k":
                keep = (mode, n)
            else:  # drop n highest == keep count-n lowest
                keep = ("l" if mode == "h" else "h", count - n)
        return Dice(count, sides, explode, keep)  # type: ignore[arg-type]


def _hint_for(c: str) -> str | None:
    if c == "/":
        return "there is no division in dice notation; only '+', '-' and '*'"
    if c == "×":
        return "multiply with '*'"
    if c in "<>=":
        return "comparisons are made by the rule systems, not in dice notation"
    if c.isalpha():
        return "dice are written NdX (e.g. 3d6, d20, 4dF, d%)"
    return None


@lru_cache(maxsize=4096)
def _parse_cached(text: str, limits: Limits) -> Expr:
    if len(text) > limits.max_length:
        raise DiceLimitError(
            f"the expression is {len(text)} characters long; the limit is {limits.max_length}",
            hint="split it into several rolls",
        )
    p = _Parser(text, limits)
    if not text.strip():
        raise DiceSyntaxError("the expression is empty", expression=text, position=0, hint="try '2d6+3'")
    node = p.expr()
    p.skip()
    if p.pos != len(text):
        c = text[p.pos]
        hint = _hint_for(c) or ("two terms must be joined by '+', '-' or '*'" if c.isalnum() or c == "(" else None)
        if c == ")":
            hint = "there is a ')' without a matching '('"
        raise p.error(f"unexpected {c!r}", hint=hint)
    return node


def parse(text: str, /, limits: Limits = DEFAULT_LIMITS) -> Expr:
    """Parse dice notation into a syntax tree, or raise :class:`DiceSyntaxError`/:class:`DiceLimitError`."""
    if not isinstance(text, str):
        raise DiceSyntaxError(
            f"a dice expression must be text, not {type(text).__name__}", expression=repr(text), position=0
        )
    return _parse_cached(text, limits)


def parse_pool(text: str, /, limits: Limits = DEFAULT_LIMITS) -> tuple[int, ...]:
    """Parse a die pool such as ``d12+d4`` or ``2d10+d6`` into the sides of each die.

    A pool is a set of separate dice (BLYSS's heterogeneous pools), not a sum:
    only plain dice joined by ``+`` (or ``,``) are allowed.
    """
    dice: list[int] = []
    offset = 0
    for part in text.replace(",", "+").split("+"):
        try:
            node = parse(part, limits) if part.strip() else None
        except DiceSyntaxError as exc:  # report the position in the whole pool, not the fragment
            raise DiceSyntaxError(exc.message, expression=text, position=offset + exc.position, hint=exc.hint) from None
        if not isinstance(node, Dice) or node.explode or node.keep or node.fudge:
            raise DiceSyntaxError(
                "a die pool is plain dice joined by '+' or ','",
                expression=text,
                position=offset + len(part) - len(part.lstrip()),
                hint="write it like 'd12+d4' or '2d8,d6'",
            )
        dice.extend([int(node.sides)] * node.count)
        offset += len(part) + 1
    if len(dice) > limits.max_dice:
        raise DiceLimitError(f"a pool of {len(dice)} dice is more than the limit of {limits.max_dice}")
    return tuple(dice)
