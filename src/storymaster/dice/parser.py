"""Dice notation: text -> syntax tree, with the position of any fault.

Grammar (whitespace is ignored between tokens; letters are case-insensitive)::

    expr    := sum [compare sum]                   a comparison gives 1 or 0
    compare := "==" | "=" | ">=" | "<=" | ">" | "<"
    sum     := term (("+" | "-") term)*
    term    := unary (("*" | "/") unary)*          "/" rounds down
    unary   := "-" unary | atom
    atom    := (NUMBER | dice | group | func | "(" expr ")") [label]
    dice    := [NUMBER] "d" (NUMBER | "%" | "F") modifier*
    group   := "{" expr ("," expr)* "}" setmod*  |  "(" expr "," [expr ("," expr)*] ")" setmod*
    func    := ("floor" | "ceil" | "round") "(" expr ")"
    label   := "[" text "]"
    cmp     := ["=" | ">=" | "<=" | ">" | "<"] NUMBER   a bare number means "equal to"

Dice modifiers (each at most once per term; they act in the order given in
:mod:`storymaster.dice.ast`, whatever order they are written in)::

    adv | dis                     1d20adv = 2d20kh1, 1d20dis = 2d20kl1
    ro cmp | r cmp | rr cmp       reroll once / until it no longer matches (depth-capped); bare r = the lowest face
    mi N | min N | ma N | max N   each throw at least / at most N
    ! | !! | !p [cmp] ["(" N ")"] explode (on the top face, or on cmp), compound, penetrate; e cmp, x [cmp], xo
    kh [N] | kl [N] | k [N]       keep the N highest / lowest (N = 1 when left out)
    dh [N] | dl [N] | d [N]       drop the N highest / lowest
    k cmp | d cmp | p cmp         keep / drop the dice matching (cmp needs an operator after k and d)
    cmp | cs cmp                  count successes: the term's value is the number of kept dice matching
    f cmp | df cmp                subtract the failures matching (after a success target)

``>`` and ``<`` are strict, as in Foundry and d20 (Roll20 reads them as
``>=`` and ``<=``). ``d%`` is a d100; ``dF`` a Fudge die (-1, 0, +1).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from ..errors import DiceLimitError, DiceSyntaxError
from .ast import BinOp, Cmp, Compare, Const, Dice, Expr, Func, Group, Label, Neg
from .limits import DEFAULT_LIMITS, Limits

__all__ = ["parse", "parse_pool"]

_DIGITS = "0123456789"
_FUNCS = ("floor", "ceil", "round")

# modifiers of other dice roller that Storymaster does not take, and why (checked longest first)
_UNSUPPORTED = {
    "ra": "d20's reroll-and-add (ra) is not supported; an explosion on a compare point (e.g. !=1) is the nearest",
    "sa": "sorting (Roll20's sa/sd) only changes the order dice are shown in; Storymaster shows them as thrown",
    "sd": "sorting (Roll20's sa/sd) only changes the order dice are shown in; Storymaster shows them as thrown",
    "mt": "matching dice (Roll20's m/mt) is not supported",
    "ms": "margin of success (Foundry's ms) is not supported; subtract the target instead, e.g. 1d20+5-15",
    "cf": "counting failures alone (Foundry's cf) is not supported; give a success target with f, e.g. 6d10>=8f1",
    "sf": "Foundry's subtract-failures (sf) is not supported; use f after a success target, e.g. 6d10>=8f1",
    "even": "counting even faces (Foundry's even) is not supported",
    "odd": "counting odd faces (Foundry's odd) is not supported",
}


class _Parser:
    __slots__ = ("count_at", "depth", "limits", "pos", "text")

    def __init__(self, text: str, limits: Limits) -> None:
        self.text = text
        self.pos = 0
        self.limits = limits
        self.depth = 0
        # where a dice term may take a bare compare point as its success target: only the
        # term that opens a sum (6d10>=8); after an operator it compares totals (1d20+1d4 >= 15)
        self.count_at = -1

    # -- helpers -----------------------------------------------------------
    def error(self, message: str, pos: int | None = None, hint: str | None = None) -> DiceSyntaxError:
        return DiceSyntaxError(message, expression=self.text, position=self.pos if pos is None else pos, hint=hint)

    def limit(self, message: str, pos: int, hint: str | None = None) -> DiceLimitError:
        return DiceLimitError(message, hint=hint, expression=self.text, position=pos)

    def skip(self) -> None:
        text, pos = self.text, self.pos
        while pos < len(text) and text[pos] in " \t":
            pos += 1
        self.pos = pos

    def peek(self) -> str:
        self.skip()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def peek_word(self, word: str) -> bool:
        """Whether the text at the cursor starts with ``word`` (case-insensitive), without moving."""
        self.skip()
        return self.text[self.pos : self.pos + len(word)].lower() == word

    def take(self, word: str) -> bool:
        if self.peek_word(word):
            self.pos += len(word)
            return True
        return False

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
        if (
            self.pos < len(self.text)
            and self.text[self.pos] == "."
            and self.text[self.pos + 1 : self.pos + 2].isdigit()
        ):
            raise self.error(
                "decimal numbers are not supported", pos=start, hint="dice totals are whole numbers; divide with '/'"
            )
        value = int(self.text[start : self.pos])
        if value > self.limits.max_literal:
            raise self.limit(
                f"the number {value} at position {start + 1} is larger than {self.limits.max_literal}",
                start,
                hint="dice expressions are for dice; use smaller numbers",
            )
        return value

    def cmp_op(self) -> str | None:
        """A comparison operator at the cursor (consumed), or None."""
        self.skip()
        for op in ("==", ">=", "<=", "=", ">", "<"):
            if self.text.startswith(op, self.pos):
                self.pos += len(op)
                return "=" if op == "==" else op
        return None

    def cmp(self, what: str, *, bare: bool = True) -> Cmp:
        """A compare point; ``bare`` allows a number alone (meaning equal to)."""
        at = self.pos
        op = self.cmp_op()
        if op is None:
            if not bare:
                raise self.error(f"expected a compare point for {what} (such as >=5)", pos=at)
            op = "="
        value = self.number(f"a number to compare with for {what}")
        return Cmp(op, value)  # type: ignore[arg-type]

    def enter(self) -> None:
        self.depth += 1
        if self.depth > self.limits.max_nesting:
            raise self.limit(
                f"the expression nests deeper than {self.limits.max_nesting} levels at position {self.pos + 1}",
                self.pos,
                hint="remove redundant parentheses or minus signs",
            )

    # -- grammar -----------------------------------------------------------
    def expr(self) -> Expr:
        node = self.sum()
        op = self.cmp_op()
        if op is not None:
            right = self.sum()
            node = Compare(op, node, right)  # type: ignore[arg-type]
            self.skip()
            at = self.pos
            if self.cmp_op() is not None:
                raise self.error("comparisons do not chain", pos=at, hint="compare two things, e.g. 1d20+5 >= 15")
        return node

    def sum(self) -> Expr:
        self.skip()
        self.count_at = self.pos
        node = self.term()
        self.count_at = -1
        while (c := self.peek()) in ("+", "-") and c:
            self.pos += 1
            node = BinOp(c, node, self.term())  # type: ignore[arg-type]
        return node

    def term(self) -> Expr:
        node = self.unary()
        while (c := self.peek()) in ("*", "/") and c:
            if c == "*" and self.text.startswith("**", self.pos):
                raise self.error("exponents (**) are not supported", hint="multiply with '*'")
            if c == "/" and self.text.startswith("//", self.pos):
                raise self.error("'//' is not an operator here", hint="'/' already rounds down: write 8d6/2")
            self.pos += 1
            node = BinOp(c, node, self.unary())  # type: ignore[arg-type]
        return node

    def unary(self) -> Expr:
        if self.peek() == "-":
            self.pos += 1
            self.enter()
            node = Neg(self.unary())
            self.depth -= 1
            return node
        if self.peek() == "+":  # a unary plus changes nothing (d20 allows it)
            self.pos += 1
            return self.unary()
        return self.atom()

    def atom(self) -> Expr:
        node = self.primary()
        while self.peek() == "[":
            node = Label(node, self.label())
        return node

    def label(self) -> str:
        start = self.pos
        self.pos += 1
        end = self.text.find("]", self.pos)
        if end < 0:
            raise self.error("a label's '[' is never closed", pos=start, hint="write labels like 3d6[fire]")
        text = self.text[self.pos : end].strip()
        if not text:
            raise self.error("a label is empty", pos=start)
        if len(text) > self.limits.max_label:
            raise self.limit(
                f"a label of {len(text)} characters is longer than the limit of {self.limits.max_label}", start
            )
        bad = next((ch for ch in text if not (ch.isprintable()) or ch in "[]{}"), None)
        if bad is not None:
            raise self.error(f"a label may not contain {bad!r}", pos=start)
        self.pos = end + 1
        return " ".join(text.split())

    def primary(self) -> Expr:
        c = self.peek()
        if c == "(":
            open_at = self.pos
            self.pos += 1
            if self.peek() == ")":
                raise self.error("an empty set '()' has nothing to roll", pos=open_at, hint="write (1d20, 1d20)kh1")
            self.enter()
            items = [self.expr()]
            is_set = False
            while self.peek() == ",":
                is_set = True
                self.pos += 1
                if self.peek() == ")":
                    break
                items.append(self.expr())
            self.depth -= 1
            if self.peek() != ")":
                if self.pos >= len(self.text):
                    raise self.error("missing ')'", hint=f"the '(' at position {open_at + 1} is never closed")
                raise self.error(f"expected ')' or an operator, found {self.text[self.pos]!r}")
            self.pos += 1
            if is_set:
                return self.group(items, open_at)
            return items[0]
        if c == "{":
            open_at = self.pos
            self.pos += 1
            self.enter()
            items = [self.expr()]
            while self.peek() == ",":
                self.pos += 1
                items.append(self.expr())
            self.depth -= 1
            if self.peek() != "}":
                if self.pos >= len(self.text):
                    raise self.error("missing '}'", hint=f"the '{{' at position {open_at + 1} is never closed")
                raise self.error(f"expected ',' or '}}', found {self.text[self.pos]!r}")
            self.pos += 1
            return self.group(items, open_at)
        if c in ("d", "D"):
            return self.dice(1, self.pos)
        if c and c in _DIGITS:
            start = self.pos
            value = self.number("a number")
            if self.peek() in ("d", "D"):
                return self.dice(value, start)
            return Const(value)
        if c.isalpha():
            at = self.pos
            for name in _FUNCS:
                if self.take(name):
                    if self.peek() != "(":
                        raise self.error(f"expected '(' after {name}", hint=f"write {name}(1d6/2)")
                    self.pos += 1
                    self.enter()
                    arg = self.expr()
                    self.depth -= 1
                    if self.peek() != ")":
                        raise self.error(f"expected ')' to close {name}(")
                    self.pos += 1
                    return Func(name, arg)  # type: ignore[arg-type]
            word = ""
            while at + len(word) < len(self.text) and self.text[at + len(word)].isalpha():
                word += self.text[at + len(word)]
            if word.lower() in ("abs", "min", "max", "sqrt"):
                raise self.error(
                    f"the function {word}() is not supported",
                    pos=at,
                    hint="the functions are floor(), ceil() and round()",
                )
        if not c:
            raise self.error("expected a number, a die or '(', found the end", hint="the expression stops too early")
        raise self.error(f"expected a number, a die or '(', found {c!r}", hint=_hint_for(c))

    # -- sets ---------------------------------------------------------------
    def group(self, items: list[Expr], open_at: int) -> Expr:
        if len(items) > self.limits.max_set:
            raise self.limit(
                f"a set of {len(items)} items is more than the limit of {self.limits.max_set}",
                open_at,
                hint="split it into several rolls",
            )
        mods = self.set_modifiers(len(items))
        if len(items) == 1 and isinstance(items[0], Dice):
            # Roll20's rule: a set holding one dice term applies its modifiers to that term's dice
            # ({5d6!!}>8 counts the compounded dice of 8 or more)
            dice = items[0]
            merged = {}
            for key, value in mods.items():
                if value is None:
                    continue
                if getattr(dice, key) is not None:
                    raise self.error(f"the set and its dice both give a {key.replace('_', ' ')}", pos=open_at)
                merged[key] = value
            if not merged:
                return dice
            node = _replace(dice, **merged)
            self.check_dice(node, open_at)
            return node
        if len(items) == 1 and all(v is None for v in mods.values()):
            return items[0]
        return Group(tuple(items), **mods)

    def set_modifiers(self, size: int) -> dict[str, Any]:
        mods: dict[str, Any] = {"keep": None, "keep_if": None, "success": None, "failure": None}
        while True:
            at = self.pos
            c = self.peek().lower()
            if c in ("k", "d", "p") and not self.peek_word("df"):
                self.keep_mod(mods, size, at)
            elif c in ("<", ">", "=") or self.peek_word("cs"):
                if mods["success"] is not None:
                    raise self.error("a success target is given twice", pos=at)
                self.take("cs")
                mods["success"] = self.cmp("counting successes", bare=True)
            elif c == "f" or self.peek_word("df"):
                self.failure_mod(mods, at)
            else:
                return mods

    # -- dice terms -----------------------------------------------------------
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
        if count > limits.max_dice:
            raise self.limit(
                f"{count} dice at position {start + 1} is more than the limit of {limits.max_dice}",
                start,
                hint="roll fewer dice, or use the batch API for simulations",
            )
        if sides != "F" and sides > limits.max_sides:  # type: ignore[operator]
            raise self.limit(
                f"a d{sides} at position {sides_at + 1} has more than the limit of {limits.max_sides} sides", sides_at
            )
        faces = range(-1, 2) if sides == "F" else range(1, int(sides) + 1)
        m: dict[str, Any] = {
            "explode": 0,
            "keep": None,
            "explode_on": None,
            "explode_kind": "!",
            "reroll": None,
            "reroll_depth": 0,
            "min_face": None,
            "max_face": None,
            "keep_if": None,
            "success": None,
            "failure": None,
        }
        seen: set[str] = set()

        def once(kind: str, at: int) -> None:
            if kind in seen:
                raise self.error(f"a dice term takes one {kind} rule", pos=at, hint=_ONE_HINT.get(kind))
            seen.add(kind)

        while True:
            self.skip()
            at = self.pos
            low = self.text[at : at + 4].lower()
            if not low:
                break
            bad = next((w for w in sorted(_UNSUPPORTED, key=len, reverse=True) if low.startswith(w)), None)
            if bad is not None:
                raise self.error(f"the modifier '{bad}' is not supported", pos=at, hint=_UNSUPPORTED[bad])
            if low.startswith(("adv", "dis")):
                if count != 1 or seen:
                    raise self.error(
                        f"'{low[:3]}' rolls one die twice: write it right after a single die, e.g. d20{low[:3]}", pos=at
                    )
                self.pos += 3
                count = 2
                m["keep"] = ("h" if low.startswith("adv") else "l", 1)
                seen.add("keep")
            elif low[0] == "r":
                once("reroll", at)
                if low.startswith("ro"):
                    self.pos += 2
                    depth = 1
                else:
                    self.pos += 2 if low.startswith("rr") else 1
                    depth = limits.reroll_depth
                    if self.peek() == "(":
                        self.pos += 1
                        depth = self.number("a reroll depth")
                        if self.peek() != ")":
                            raise self.error("expected ')' after the reroll depth")
                        self.pos += 1
                        if depth < 1:
                            raise self.error("a reroll depth must be at least 1", pos=at)
                        if depth > limits.max_reroll_depth:
                            raise self.limit(
                                f"reroll depth {depth} at position {at + 1} is more than "
                                f"the limit of {limits.max_reroll_depth}",
                                at,
                            )
                self.skip()
                nxt = self.peek()
                if nxt and (nxt in _DIGITS or nxt in "<>="):
                    m["reroll"] = self.cmp("a reroll")
                    if self.text.startswith("=", self.pos) and not self.text.startswith("==", self.pos):
                        raise self.error(
                            "Foundry's limited reroll (r1=1: reroll at most that many dice) is not supported",
                            pos=at,
                            hint="every matching die is rerolled here: write r1",
                        )
                else:  # a bare r rerolls the lowest face (Foundry)
                    m["reroll"] = Cmp("=", faces[0])
                m["reroll_depth"] = depth
                if all(m["reroll"].test(f) for f in faces):
                    raise self.error(
                        "this reroll matches every face: it would never stop", pos=at, hint="reroll fewer faces"
                    )
            elif low.startswith(("mi", "ma")):
                which = "min_face" if low.startswith("mi") else "max_face"
                once("minimum" if which == "min_face" else "maximum", at)
                self.pos += 3 if low.startswith(("min", "max")) else 2
                value = self.number("a face value")
                if sides == "F":
                    raise self.error("Fudge dice take no minimum or maximum", pos=at)
                if not 1 <= value <= int(sides):
                    raise self.error(f"a d{sides} has no face {value}", pos=at)
                m[which] = value
            elif low[0] in ("!", "e", "x"):
                if low.startswith("!="):
                    raise self.error(
                        "'!=' is ambiguous: d20 reads it as 'not equal', Roll20 as 'explode on'",
                        pos=at,
                        hint="write !5 to explode on a 5; there is no 'not equal' comparison",
                    )
                once("explosion", at)
                if sides == "F":
                    raise self.error(
                        "Fudge dice cannot explode", pos=at, hint="drop the '!': a Fudge die's faces are -1, 0 and +1"
                    )
                kind = "!"
                depth = limits.explode_depth
                need_cmp = False
                if low.startswith("!!"):
                    kind, self.pos = "!!", self.pos + 2
                elif low.startswith("!p"):
                    kind, self.pos = "!p", self.pos + 2
                elif low.startswith("xo"):
                    self.pos += 2
                    depth = 1
                elif low[0] == "e":  # d20: e6, e>4
                    self.pos += 1
                    need_cmp = True
                else:
                    self.pos += 1
                self.skip()
                nxt = self.peek()
                if nxt and (nxt in _DIGITS or nxt in "<>=") and not self.text.startswith("==", self.pos):
                    m["explode_on"] = self.cmp("an explosion")
                elif need_cmp:
                    raise self.error("expected the face to explode on after 'e'", hint="write e6 or e>4")
                if self.peek() == "(":
                    self.pos += 1
                    depth = self.number("an explosion depth")
                    if self.peek() != ")":
                        raise self.error("expected ')' after the explosion depth")
                    self.pos += 1
                    if depth < 1:
                        raise self.error("an explosion depth must be at least 1", pos=at)
                    if depth > limits.max_explode_depth:
                        raise self.limit(
                            f"explosion depth {depth} at position {at + 1} is more than "
                            f"the limit of {limits.max_explode_depth}",
                            at,
                        )
                if m["explode_on"] is not None and m["explode_on"] == Cmp("=", faces[-1]):
                    m["explode_on"] = None  # the top face is the default
                m["explode"], m["explode_kind"] = depth, kind
                if sides == 1 and m["explode_on"] is None:
                    raise self.error("a d1 cannot explode: it would never stop", pos=at)
            elif low[0] in ("k", "d", "p") and not low.startswith("df"):
                self.keep_mod(m, count, at, once=once)
            elif (low[0] in "<>=" and start == self.count_at and not self.dice_follows()) or low.startswith("cs"):
                once("success target", at)
                self.take("cs")
                m["success"] = self.cmp("counting successes")
            elif low[0] == "f" or low.startswith("df"):
                self.failure_mod(m, at)
            else:
                break
        if m["failure"] is not None and m["success"] is None:
            raise self.error(
                "failures (f) are subtracted from successes: give a success target first",
                pos=start,
                hint="e.g. 5d10>=7f1",
            )
        node = Dice(count, sides, **m)  # type: ignore[arg-type]
        self.check_dice(node, start)
        return node

    def dice_follows(self) -> bool:
        """Whether the comparison at the cursor has dice on its right (``1d6 == 1d6``): then it compares totals."""
        save = self.pos
        try:
            self.cmp_op()
            self.skip()
            while self.pos < len(self.text) and self.text[self.pos] in _DIGITS:
                self.pos += 1
            return self.pos < len(self.text) and self.text[self.pos] in "dD("
        finally:
            self.pos = save

    def keep_mod(self, m: dict[str, Any], count: int, at: int, once: Callable[[str, int], None] | None = None) -> None:
        if m["keep"] is not None or m["keep_if"] is not None:
            raise self.error("a term takes one keep or drop rule", pos=at, hint="e.g. 4d6kh3 or 4d6dl1")
        if once is not None:
            once("keep", at)
        c = self.text[self.pos].lower()
        self.pos += 1
        mode = self.text[self.pos].lower() if self.pos < len(self.text) else ""
        if c == "p" and mode not in ("h", "l"):  # d20's drop: p<3, p=1, p1 (a literal face)
            m["keep_if"] = ("d", self.cmp("dropping"))
            return
        if mode in ("h", "l"):
            self.pos += 1
            n = self.number("how many") if self.peek() in tuple(_DIGITS) and self.peek() else 1
        else:
            nxt = self.peek()
            if nxt and nxt in "<>=":
                m["keep_if"] = ("k" if c == "k" else "d", self.cmp("keeping", bare=False))
                return
            if nxt and nxt in _DIGITS:
                n = self.number("how many")
            else:
                n = 1
            mode = "h" if c == "k" else "l"
        what = "keep" if c == "k" else "drop"
        if n > count:
            raise self.error(f"cannot {what} {n} of {count} dice", pos=at)
        if c == "k":
            m["keep"] = (mode, n)
        else:  # drop n highest == keep count-n lowest
            m["keep"] = ("l" if mode == "h" else "h", count - n)

    def failure_mod(self, m: dict[str, Any], at: int) -> None:
        if m["failure"] is not None:
            raise self.error("failures are given twice", pos=at)
        if not self.take("df"):
            self.pos += 1
        m["failure"] = self.cmp("counting failures")

    def check_dice(self, node: Dice, at: int) -> None:
        faces = node.face_values
        if node.explode and node.explode_on is not None:
            values: Iterable[int] = faces
            if node.min_face is not None or node.max_face is not None:
                values = {node.clamp(f) for f in faces}
            if all(node.explode_on.test(f) for f in values):
                raise self.error("this explosion matches every face: it would never stop", pos=at)
        if (
            node.success is not None
            and node.explode_kind in ("!", "!p")
            and node.explode
            and (node.keep is not None or node.keep_if is not None)
        ):
            raise self.error(
                "keep/drop with success counting on '!' dice is not supported",
                pos=at,
                hint="keep/drop treats a chain as one die but counting counts each throw; use '!!' to count chains",
            )


_ONE_HINT = {
    "reroll": "one compare point covers several faces: r<3 rerolls 1s and 2s",
    "explosion": "one compare point covers several faces: !>=5 explodes on 5 and 6",
}


def _replace(node: Dice, **changes: Any) -> Dice:
    from dataclasses import replace

    return replace(node, **changes)


def _hint_for(c: str) -> str | None:
    if c == "%":
        return "the modulo operator (%) is not supported; d% is a d100"
    if c == "!":
        return "'!=' (not equal) is not supported; compare with ==, <, <=, > or >="
    if c == "×":
        return "multiply with '*'"
    if c in "<>=":
        return "a comparison needs something on each side, e.g. 1d20+5 >= 15"
    if c == "@" or c == "?":
        return "Roll20's attributes and queries belong to its character sheets; write the number itself"
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
        if c in "<>=":
            hint = "comparisons do not chain; compare two things, e.g. 1d20+5 >= 15"
        if c.isalpha():
            word = ""
            while p.pos + len(word) < len(text) and text[p.pos + len(word)].isalpha():
                word += text[p.pos + len(word)]
            raise p.error(f"unknown modifier or word {word!r}", hint=hint)
        if c == "%":
            raise p.error(
                "the modulo operator (%) is not supported", hint="d% is a d100; there is no remainder operator"
            )
        raise p.error(f"unexpected {c!r}", hint=hint)
    _check_division(node, text)
    return node


def _check_division(node: Expr, text: str) -> None:
    from .ast import walk
    from .bounds import bounds

    for n in walk(node):
        if isinstance(n, BinOp) and n.op == "/":
            lo, hi = bounds(n.right)
            if lo <= 0 <= hi:
                raise DiceSyntaxError(
                    f"'{n.right}' can be 0, and nothing can be divided by 0",
                    expression=text,
                    position=max(0, text.find("/")),
                    hint="divide by a number or by dice that cannot total 0",
                )


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
        if not isinstance(node, Dice) or not node.plain or node.fudge:
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
