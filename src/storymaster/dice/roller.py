"""Rolling: an expression and a generator give an audited :class:`RollRecord`.

Expressions are compiled once into small closures (cached by their text), so
a repeated roll costs little more than its dice. An exploding die's chain
counts as one die for keep/drop (the same model the exact odds use):
``4d6!kh3`` keeps the three highest chains.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from ..errors import DiceLimitError, DiceSyntaxError, VerificationError
from .ast import BinOp, Const, Dice, Expr, Neg
from .limits import DEFAULT_LIMITS, Limits
from .parser import parse
from .record import DieRoll, RollRecord
from .rng import RNG_VERSION, DiceRng

__all__ = ["replay", "roll", "roll_pool", "verify", "worst_case_dice"]

# a compiled node: (rng, dice-out-list) -> value
_Fn = Callable[[DiceRng, list[DieRoll]], int]


def worst_case_dice(node: Expr) -> int:
    """The most dice an expression can throw, explosions at full depth included."""
    if isinstance(node, Dice):
        return node.count * (1 + node.explode)
    if isinstance(node, BinOp):
        return worst_case_dice(node.left) + worst_case_dice(node.right)
    if isinstance(node, Neg):
        return worst_case_dice(node.operand)
    return 0


def _compile_dice(node: Dice, term: int) -> _Fn:
    count, explode, keep, fudge = node.count, node.explode, node.keep, node.fudge
    sides = node.faces
    shown: int | str = "F" if fudge else sides
    make = DieRoll

    if fudge and keep is None:

        def run_fudge(rng: DiceRng, out: list[DieRoll]) -> int:
            total = 0
            for _ in range(count):
                face = rng.die(3) - 2
                out.append(make(shown, face, True, False, term))
                total += face
            return total

        return run_fudge

    if not explode and keep is None:

        def run_plain(rng: DiceRng, out: list[DieRoll]) -> int:
            total = 0
            die = rng.die
            for _ in range(count):
                face = die(sides)
                out.append(make(shown, face, True, False, term))
                total += face
            return total

        return run_plain

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
        for chain, value, k in zip(chains, values, kept, strict=True):
            for j, face in enumerate(chain):
                out.append(make(shown, face, k, j > 0, term))
            if k:
                total += value
        return total

    return run


def _compile(node: Expr, counter: list[int]) -> _Fn:
    if isinstance(node, Const):
        value = node.value
        return lambda rng, out: value
    if isinstance(node, Dice):
        if node.fudge and node.explode:
            raise DiceSyntaxError(
                "Fudge dice cannot explode",
                expression=str(node),
                position=len(str(node)) - 1,
                hint="drop the '!': a Fudge die's faces are -1, 0 and +1",
            )
        term = counter[0]
        counter[0] += 1
        return _compile_dice(node, term)
    if isinstance(node, Neg):
        inner = _compile(node.operand, counter)
        return lambda rng, out: -inner(rng, out)
    left, right = _compile(node.left, counter), _compile(node.right, counter)
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
    return lambda rng, out: left(rng, out) * right(rng, out)


@lru_cache(maxsize=4096)
def _plan_for_node(node: Expr, limits: Limits) -> tuple[_Fn, str]:
    worst = worst_case_dice(node)
    if worst > limits.max_rolled:
        raise DiceLimitError(
            f"'{node}' could throw up to {worst} dice; the limit is {limits.max_rolled}",
            hint="roll fewer dice, or cap explosions with a depth such as d6!(3)",
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
            f"the roll {record.expression!r} does not replay: recorded total {record.total}, the dice give "
            f"{again.total}",
            hint="the record was changed after it was rolled, or comes from another seed",
        )
