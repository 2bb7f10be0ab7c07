"""Rolling: an expression and a generator give an audited :class:`RollRecord`.

Expressions are compiled once into small closures (cached by their text), so
a repeated roll costs little more than its dice. An exploding die's chain
counts as one die for keep/drop (the same model the exact odds use):
``4d6!kh3`` keeps the three highest chains.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache, partial
from typing import Any

from ..errors import DiceLimitError, DiceSyntaxError, VerificationError
from .ast import Compare, Const, Dice, Expr, Func, Group, Label, Neg, children, compare, round_value
from .limits import DEFAULT_LIMITS, Limits
from .parser import parse
from .record import DieRoll, RollRecord
from .rng import RNG_VERSION, DiceRng

__all__ = ["replay", "roll", "roll_pool", "verify", "worst_case_dice"]

# a compiled node: (rng, dice-out-list) -> value
_Fn = Callable[[DiceRng, list[DieRoll]], Any]


def worst_case_dice(node: Expr) -> int:
    """The most dice an expression can throw, explosions and rerolls at full depth included."""
    if isinstance(node, Dice):
        return node.count * (1 + node.explode) * (1 + node.reroll_depth)
    return sum(worst_case_dice(c) for c in children(node))


_new_tuple = tuple.__new__


def _compile_dice(node: Dice, term: int) -> _Fn:
    count, explode, keep, fudge = node.count, node.explode, node.keep, node.fudge
    sides = node.faces
    shown: int | str = "F" if fudge else sides
    new = _new_tuple  # DieRoll's fields in order, without NamedTuple's slower __new__

    if fudge and node.plain:

        def run_fudge(rng: DiceRng, out: list[DieRoll]) -> int:
            total = 0
            for _ in range(count):
                face = rng.die(3) - 2
                out.append(new(DieRoll, (shown, face, True, False, term, False)))
                total += face
            return total

        return run_fudge

    if node.plain:

        def run_plain(rng: DiceRng, out: list[DieRoll]) -> int:
            total = 0
            die = rng.die
            for _ in range(count):
                face = die(sides)
                out.append(new(DieRoll, (shown, face, True, False, term, False)))
                total += face
            return total

        return run_plain

    if node.per_die_only and keep is not None and not explode and not fudge:
        return _compile_keep(node, term)
    if node.per_die_only:
        return _compile_per_die(node, term)

    if (
        not explode
        and keep is None
        and node.keep_if is None
        and node.success is None
        and (node.reroll is not None or node.min_face is not None or node.max_face is not None)
    ):
        return _compile_reroll_clamp(node, term)
    return _compile_modified(node, term)


def _compile_per_die(node: Dice, term: int) -> _Fn:
    """The old modifiers: explode on the top face, keep highest/lowest (the general way)."""
    count, explode, keep, fudge = node.count, node.explode, node.keep, node.fudge
    sides = node.faces
    shown: int | str = "F" if fudge else sides
    new = _new_tuple

    def run(rng: DiceRng, out: list[DieRoll]) -> int:
        chains: list[list[int]] = []
        for _ in range(count):
            face = rng.die(sides)
            chain = [face - 2 if fudge else face]
            depth = 0
            while explode and face == sides and depth < explode:
                face = rng.die(sides)
                chain.append(face)
                depth += 1
            chains.append(chain)
        values = [sum(c) for c in chains]
        kept = [True] * count
        if keep is not None:
            mode, n = keep
            order = sorted(range(count), key=values.__getitem__, reverse=(mode == "h"))
            keep_set = set(order[:n])
            kept = [i in keep_set for i in range(count)]
        total = 0
        for chain, value, k in zip(chains, values, kept, strict=False):
            for j, face in enumerate(chain):
                out.append(new(DieRoll, (shown, face, k, j > 0, term, False)))
            if k:
                total += value
        return total

    return run


def _compile_keep(node: Dice, term: int) -> _Fn:
    """Keep highest/lowest without explosions (``4d6kh3``): :func:`_compile_per_die`'s dice, unrolled."""
    count, sides = node.count, node.faces
    mode, n = node.keep  # type: ignore[misc]
    high = mode == "h"
    new = _new_tuple

    def run(rng: DiceRng, out: list[DieRoll]) -> int:
        die = rng.die
        faces = [die(sides) for _ in range(count)]
        keep_set = set(sorted(range(count), key=faces.__getitem__, reverse=high)[:n])
        total = 0
        for i, face in enumerate(faces):
            if i in keep_set:
                out.append(new(DieRoll, (sides, face, True, False, term, False)))
                total += face
            else:
                out.append(new(DieRoll, (sides, face, False, False, term, False)))
        return total

    return run


def _compile_reroll_clamp(node: Dice, term: int) -> _Fn:
    """Rerolls and minimum/maximum only (``2d6ro<3``, ``4d6rr1``, ``8d6mi2``): the general path, unrolled.

    The dice recorded are the same, in the same order, as :func:`_compile_modified` records them
    (each rerolled throw, not kept and marked rerolled, before the throw that replaced it).
    """
    count, sides, fudge = node.count, node.faces, node.fudge
    shown: int | str = "F" if fudge else sides
    offset = -2 if fudge else 0
    faces = range(1 + offset, sides + 1 + offset)
    rerolls = frozenset(f for f in faces if node.reroll is not None and node.reroll.test(f))
    depth = node.reroll_depth if rerolls else 0
    value = {f: node.clamp(f) for f in faces}
    new = _new_tuple  # DieRoll's fields in order, without NamedTuple's slower __new__

    def run(rng: DiceRng, out: list[DieRoll]) -> int:
        die = rng.die
        total = 0
        for _ in range(count):
            face = die(sides) + offset
            r = 0
            while r < depth and face in rerolls:
                out.append(new(DieRoll, (shown, face, False, False, term, True)))
                face = die(sides) + offset
                r += 1
            out.append(new(DieRoll, (shown, face, True, False, term, False)))
            total += value[face]
        return total

    return run


def _compile_modified(node: Dice, term: int) -> _Fn:
    """Any dice term: rerolls, minimum/maximum, explosions on a compare point, keep/drop, success counting."""
    count, explode, keep, keep_if = node.count, node.explode, node.keep, node.keep_if
    fudge, sides = node.fudge, node.faces
    shown: int | str = "F" if fudge else sides
    offset = -2 if fudge else 0
    reroll, reroll_depth = node.reroll, node.reroll_depth
    clamp, explodes_on = node.clamp, node.explodes_on
    pen = 1 if node.explode_kind == "!p" else 0
    per_throw = node.explode_kind in ("!", "!p")
    success, failure = node.success, node.failure
    new = _new_tuple  # DieRoll's fields in order, without NamedTuple's slower __new__

    def score(v: int) -> int:
        s = 1 if success.test(v) else 0  # type: ignore[union-attr]
        if failure is not None and failure.test(v):
            s -= 1
        return s

    def run(rng: DiceRng, out: list[DieRoll]) -> int:
        die = rng.die
        chains: list[list[tuple[int, int]]] = []  # per chain: (face shown, rerolled?) ... faces as thrown
        values: list[int] = []
        counts: list[int] = []
        for _ in range(count):
            chain: list[tuple[int, int]] = []
            value = 0
            hits = 0
            j = 0
            while True:
                face = die(sides) + offset
                r = 0
                while reroll is not None and r < reroll_depth and reroll.test(face):
                    chain.append((face, 1 if j == 0 else 3))  # 1: rerolled; 3: rerolled and exploded
                    face = die(sides) + offset
                    r += 1
                chain.append((face, 0 if j == 0 else 2))  # 2: exploded
                v = clamp(face)
                shown_value = v - pen if j else v
                value += shown_value
                if success is not None and per_throw:
                    hits += score(shown_value)
                if j < explode and explodes_on(v):
                    j += 1
                    continue
                break
            chains.append(chain)
            values.append(value)
            if success is not None:
                counts.append(hits if per_throw and explode else score(value))
        if keep is not None:
            mode, n = keep
            order = sorted(range(count), key=values.__getitem__, reverse=(mode == "h"))
            keep_set = set(order[:n])
            kept = [i in keep_set for i in range(count)]
        elif keep_if is not None:
            want = keep_if[0] == "k"
            cmp = keep_if[1]
            kept = [cmp.test(v) == want for v in values]
        else:
            kept = [True] * count
        total = 0
        for i, chain in enumerate(chains):
            k = kept[i]
            for face, flag in chain:
                if flag & 1:
                    out.append(new(DieRoll, (shown, face, False, flag == 3, term, True)))
                else:
                    out.append(new(DieRoll, (shown, face, k, flag == 2, term, False)))
            if k:
                total += counts[i] if success is not None else values[i]
        return total

    return run


def _compile(node: Expr, counter: list[int], exact: bool = False) -> _Fn:
    if isinstance(node, Const):
        value = node.value
        return lambda rng, out: value
    if isinstance(node, Dice):
        term = counter[0]
        counter[0] += 1
        return _compile_dice(node, term)
    if isinstance(node, Neg):
        inner = _compile(node.operand, counter, exact)
        return lambda rng, out: -inner(rng, out)
    if isinstance(node, Label):
        return _compile(node.operand, counter, exact)
    if isinstance(node, Func):
        arg = _compile(node.arg, counter, True)
        name = node.name
        return lambda rng, out: round_value(name, arg(rng, out))
    if isinstance(node, Compare):
        a, b = _compile(node.left, counter, exact), _compile(node.right, counter, exact)
        test = partial(compare, node.op)
        return lambda rng, out: 1 if test(a(rng, out), b(rng, out)) else 0
    if isinstance(node, Group):
        return _compile_group(node, counter)
    left, right = _compile(node.left, counter, exact), _compile(node.right, counter, exact)
    if isinstance(node.right, Const):  # the common "dice + modifier" shape
        c = node.right.value
        if node.op == "+":
            return lambda rng, out: left(rng, out) + c
        if node.op == "-":
            return lambda rng, out: left(rng, out) - c
    if node.op == "+":
        return lambda rng, out: left(rng, out) + right(rng, out)
    if node.op == "-":
        return lambda rng, out: left(rng, out) - right(rng, out)
    if node.op == "/":
        if exact:
            return lambda rng, out: Fraction(left(rng, out)) / right(rng, out)
        return lambda rng, out: left(rng, out) // right(rng, out)
    return lambda rng, out: left(rng, out) * right(rng, out)


def _compile_group(node: Group, counter: list[int]) -> _Fn:
    items = [_compile(i, counter) for i in node.items]  # a set's items are whole totals
    keep, keep_if, success, failure = node.keep, node.keep_if, node.success, node.failure

    def run(rng: DiceRng, out: list[DieRoll]) -> int:
        values = []
        spans = []
        for item in items:
            start = len(out)
            values.append(item(rng, out))
            spans.append((start, len(out)))
        n = len(values)
        if keep is not None:
            mode, k = keep
            order = sorted(range(n), key=values.__getitem__, reverse=(mode == "h"))
            keep_set = set(order[:k])
            kept = [i in keep_set for i in range(n)]
        elif keep_if is not None:
            want = keep_if[0] == "k"
            kept = [keep_if[1].test(v) == want for v in values]
        else:
            kept = [True] * n
        total = 0
        for i, v in enumerate(values):
            if not kept[i]:
                a, b = spans[i]
                for j in range(a, b):
                    out[j] = out[j]._replace(kept=False)
                continue
            if success is not None:
                total += (1 if success.test(v) else 0) - (1 if failure is not None and failure.test(v) else 0)
            else:
                total += v
        return total

    return run


@lru_cache(maxsize=4096)
def _plan_for_node(node: Expr, limits: Limits) -> tuple[_Fn, str]:
    worst = worst_case_dice(node)
    if worst > limits.max_rolled:
        raise DiceLimitError(
            f"'{node}' could throw up to {worst} dice; the limit is {limits.max_rolled}",
            hint="roll fewer dice, or cap explosions and rerolls with a depth such as d6!(3) or d6r(3)1",
            expression=str(node),
            position=0,
        )
    return _compile(node, [0]), str(node)


_PLANS: dict[str, tuple[_Fn, str]] = {}


def _plan(expression: str | Expr, limits: Limits) -> tuple[_Fn, str]:
    if isinstance(expression, str):
        if limits is DEFAULT_LIMITS:
            plan = _PLANS.get(expression)
            if plan is None:
                plan = _plan_for_node(parse(expression, limits), limits)
                if len(_PLANS) < 4096:
                    _PLANS[expression] = plan
            return plan
        return _plan_for_node(parse(expression, limits), limits)
    return _plan_for_node(expression, limits)


def roll(
    expression: str | Expr,
    /,
    rng: DiceRng | None = None,
    *,
    seed: str | int | None = None,
    label: str = "",
    limits: Limits = DEFAULT_LIMITS,
) -> RollRecord:
    """Roll dice notation (or a parsed tree) and return its audited record.

    Pass a :class:`DiceRng` to continue a stream (the usual case inside a rule
    system), or a ``seed`` for a fresh stream; with neither, a new random seed
    is drawn and kept in the record.
    """
    fn, canonical = _plan(expression, limits)
    if rng is None:
        rng = DiceRng(seed)
    elif seed is not None:
        raise TypeError("pass either rng or seed, not both")
    start = rng.counter
    dice: list[DieRoll] = []
    total = fn(rng, dice)
    return RollRecord(
        canonical, total, tuple(dice), rng.seed, rng.stream, start, rng.counter - start, RNG_VERSION, label
    )


def roll_pool(sides: tuple[int, ...] | list[int], /, rng: DiceRng, *, label: str = "") -> RollRecord:
    """Throw a pool of separate dice (e.g. BLYSS's ``d12+d4``); read them from ``record.dice``."""
    if not sides:
        raise DiceSyntaxError("a die pool needs at least one die", expression="", position=0)
    return roll("+".join(f"1d{int(s)}" for s in sides), rng, label=label)


def replay(record: RollRecord) -> RollRecord:
    """Roll the record's expression again from its seed, stream and counter."""
    if record.rng_version != RNG_VERSION:
        raise VerificationError(
            f"the record uses dice derivation v{record.rng_version}; this Storymaster knows v{RNG_VERSION}"
        )
    return roll(record.expression, DiceRng(record.seed, record.stream, record.counter), label=record.label)


def verify(record: RollRecord) -> None:
    """Raise :class:`VerificationError` unless replaying the record gives the same dice and total."""
    again = replay(record)
    if again.dice != record.dice or again.total != record.total or again.draws != record.draws:
        raise VerificationError(
            f"the roll {record.expression!r} does not replay: "
            f"recorded total {record.total}, the dice give {again.total}",
            hint="the record was changed after it was rolled, or comes from another seed",
        )
