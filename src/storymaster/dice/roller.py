"""Rolling: a syntax tree and a generator give an audited :class:`RollRecord`.

An exploding die's chain counts as one die for keep/drop (the same model the
exact odds use): ``4d6!kh3`` keeps the three highest chains.
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

__all__ = ["replay", "roll", "roll_pool", "verify"]

# a compiled node: (rng, dice-out-list) -> (value, rendered text)
_Fn = Callable[[DiceRng, list], tuple[int, str]]


def worst_case_dice(node: Expr) -> int:
    """The most dice an expression can throw, explosions at full depth included."""
    if isinstance(node, Dice):
        return node.count * (1 + node.explode)
    if isinstance(node, BinOp):
        return worst_case_dice(node.left) + worst_case_dice(node.right)
    if isinstance(node, Neg):
        return worst_case_dice(node.operand)
    return 0


def _fudge_text(face: int) -> str:
    return "+" if face > 0 else "-" if face < 0 else "0"


def _compile_dice(node: Dice, term: int) -> _Fn:
    count, explode, keep, fudge = node.count, node.explode, node.keep, node.fudge
    sides = node.faces
    label = str(node)
    shown_sides: int | str = "F" if fudge else sides

    def run(rng: DiceRng, out: list) -> tuple[int, str]:
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
        parts = []
        for chain, k in zip(chains, kept):
            for j, face in enumerate(chain):
                out.append(DieRoll(shown_sides, face, k, j > 0, term))
            text = "+".join(
                (_fudge_text(f) if fudge else str(f)) + ("!" if explode and j < len(chain) - 1 else "")
                for j, f in enumerate(chain)
            )
            parts.append(text if k else f"~{text}~")
        total = sum(v for v, k in zip(values, kept) if k)
        return total, f"{label}[{', '.join(parts)}]"

    return run


def _compile(node: Expr, counter: list[int]) -> _Fn:
    if isinstance(node, Const):
        value, text = node.value, str(node.value)
        return lambda rng, out: (value, text)
    if isinstance(node, Dice):
        if node.fudge and node.explode:
            raise DiceSyntaxError("Fudge dice cannot explode", expression=str(node), position=0)
        term = counter[0]
        counter[0] += 1
        return _compile_dice(node, term)
    if isinstance(node, Neg):
        inner = _compile(node.operand, counter)
        wrap = isinstance(node.operand, BinOp)

        def neg(rng: DiceRng, out: list) -> tuple[int, str]:
            v, t = inner(rng, out)
            return -v, f"-({t})" if wrap else f"-{t}"

        return neg
    left, right, op = _compile(node.left, counter), _compile(node.right, counter), node.op
    lwrap = op == "*" and isinstance(node.left, BinOp) and node.left.op != "*"
    rwrap = isinstance(node.right, BinOp) and (op != "+" or node.right.op != "*") and not (op == "*" and node.right.op == "*")

    def binop(rng: DiceRng, out: list) -> tuple[int, str]:
        a, at = left(rng, out)
        b, bt = right(rng, out)
        if lwrap:
            at = f"({at})"
        if rwrap:
            bt = f"({bt})"
        v = a + b if op == "+" else a - b if op == "-" else a * b
        sep = "*" if op == "*" else f" {op} "
        return v, f"{at}{sep}{bt}"

    return binop


@lru_cache(maxsize=4096)
def _compiled(node: Expr, limits: Limits) -> _Fn:
    worst = worst_case_dice(node)
    if worst > limits.max_rolled:
        raise DiceLimitError(
            f"'{node}' could throw up to {worst} dice; the limit is {limits.max_rolled}",
            hint="roll fewer dice, or cap explosions with a depth such as d6!(3)",
        )
    return _compile(node, [0])


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
    node = parse(expression, limits) if isinstance(expression, str) else expression
    fn = _compiled(node, limits)
    if rng is None:
        rng = DiceRng(seed)
    elif seed is not None:
        raise TypeError("pass either rng or seed, not both")
    start = rng.counter
    dice: list[DieRoll] = []
    total, text = fn(rng, dice)
    canonical = str(node)
    detail = f"{text} = {total}"
    return RollRecord(canonical, total, tuple(dice), detail, rng.seed, rng.stream, start, rng.counter - start, RNG_VERSION, label)


def roll_pool(sides: tuple[int, ...] | list[int], /, rng: DiceRng, *, label: str = "") -> RollRecord:
    """Throw a pool of separate dice (e.g. BLYSS's ``d12+d4``); read them from ``record.dice``."""
    if not sides:
        raise DiceSyntaxError("a die pool needs at least one die", expression="", position=0)
    return roll("+".join(f"1d{s}" for s in sides), rng, label=label)


def replay(record: RollRecord) -> RollRecord:
    """Roll the record's expression again from its seed, stream and counter."""
    if record.rng_version != RNG_VERSION:
        raise VerificationError(
            f"record uses dice derivation v{record.rng_version}; this Storymaster knows v{RNG_VERSION}"
        )
    return roll(record.expression, DiceRng(record.seed, record.stream, record.counter), label=record.label)


def verify(record: RollRecord) -> None:
    """Raise :class:`VerificationError` unless replaying the record gives the same dice and total."""
    again = replay(record)
    if again.dice != record.dice or again.total != record.total or again.draws != record.draws:
        raise VerificationError(
            f"roll {record.expression!r} does not replay: recorded total {record.total}, replay gives {again.total}",
            hint="the record was changed after it was rolled, or comes from another seed",
        )
