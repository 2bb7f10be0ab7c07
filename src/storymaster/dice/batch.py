"""Batch rolling at numpy speed, for simulations where no audit is needed.

``roll_batch("3d6", 1_000_000, seed=1)`` returns a numpy array of totals. The
same seed gives the same array with the same numpy version; unlike
:func:`~storymaster.dice.roll`, batch results are not replayable across numpy
versions and carry no records. Semantics match the single roller (every
construct of the language, tested against it and against the exact odds): an
exploding chain counts as one die for keep/drop.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import DiceLimitError
from .ast import BinOp, Compare, Const, Dice, Expr, Func, Group, Label, Neg, compare, walk
from .limits import DEFAULT_LIMITS, Limits
from .parser import parse
from .roller import worst_case_dice

__all__ = ["MAX_BATCH", "roll_batch"]

#: the most rolls one call may make
MAX_BATCH = 100_000_000
#: die cells (rolls x dice) worked on at once; bounds memory to a few hundred MB
_CHUNK_CELLS = 4_000_000


def _dice(node: Dice, n: int, gen: np.random.Generator) -> np.ndarray:
    if node.count == 0:
        return np.zeros(n, dtype=np.int64)
    if node.fudge:
        lo, hi = -1, 2
    else:
        lo, hi = 1, node.faces + 1
    if node.count == 1 and not node.explode and node.keep is None:  # one die: a flat array, no reshaping
        return gen.integers(lo, hi, size=n, dtype=np.int64)
    faces = gen.integers(lo, hi, size=(n, node.count), dtype=np.int64)
    if node.explode:
        top = hi - 1
        live = faces == top
        depth = 0
        while depth < node.explode and live.any():
            extra = gen.integers(lo, hi, size=int(live.sum()), dtype=np.int64)
            faces[live] += extra
            still = np.zeros_like(live)
            still[live] = extra == top
            live = still
            depth += 1
    if node.keep is not None:
        mode, k = node.keep
        if k == 0:
            return np.zeros(n, dtype=np.int64)
        if k < node.count:
            faces.sort(axis=1)
            faces = faces[:, -k:] if mode == "h" else faces[:, :k]
    totals: np.ndarray = faces[:, 0] if faces.shape[1] == 1 else faces.sum(axis=1)
    return totals


def _score(node: Any, values: Any) -> Any:
    out = node.success.test(values).astype(np.int64)
    if node.failure is not None:
        out -= node.failure.test(values)
    return out


def _modified(node: Dice, n: int, gen: np.random.Generator) -> Any:
    """Any dice term, vectorised: the twin of the audited roller's ``_compile_modified``."""
    if node.count == 0:
        return np.zeros(n, dtype=np.int64)
    lo, hi = (-1, 2) if node.fudge else (1, node.faces + 1)
    reroll, depth = node.reroll, node.reroll_depth
    lo_clamp, hi_clamp = node.min_face, node.max_face

    def throw(size: Any) -> Any:
        faces = gen.integers(lo, hi, size=size, dtype=np.int64)
        if reroll is not None:
            for _ in range(depth):
                again = reroll.test(faces)
                m = int(again.sum())
                if not m:
                    break
                faces[again] = gen.integers(lo, hi, size=m, dtype=np.int64)
        if lo_clamp is not None or hi_clamp is not None:
            np.clip(faces, lo_clamp, hi_clamp, out=faces)
        return faces

    top = hi - 1
    explode_on = node.explode_on

    def explodes(x: Any) -> Any:
        return x == top if explode_on is None else explode_on.test(x)

    faces = throw((n, node.count))
    values = faces.copy()
    counting = node.success is not None
    per_throw = counting and node.explode and node.explode_kind in ("!", "!p")
    hits: Any = _score(node, faces) if per_throw else None
    if node.explode:
        pen = 1 if node.explode_kind == "!p" else 0
        live = explodes(faces)
        for _ in range(node.explode):
            m = int(live.sum())
            if not m:
                break
            extra = throw(m)
            values[live] += extra - pen
            if per_throw:
                hits[live] += _score(node, extra - pen)
            still = np.zeros_like(live)
            still[live] = explodes(extra)
            live = still
    if node.keep is not None:
        mode, k = node.keep
        if k == 0:
            return np.zeros(n, dtype=np.int64)
        if k < node.count:
            values.sort(axis=1)
            values = values[:, -k:] if mode == "h" else values[:, :k]
        return _score(node, values).sum(axis=1) if counting else values.sum(axis=1)
    if node.keep_if is not None:
        want = node.keep_if[0] == "k"
        mask = node.keep_if[1].test(values) == want
        return ((_score(node, values) if counting else values) * mask).sum(axis=1)
    if per_throw:
        return hits.sum(axis=1)
    if counting:
        return _score(node, values).sum(axis=1)
    return values.sum(axis=1)


def _group(node: Group, n: int, gen: np.random.Generator) -> Any:
    cols = [np.broadcast_to(np.asarray(_eval(i, n, gen), dtype=np.int64), (n,)) for i in node.items]
    counting = node.success is not None
    if node.keep is not None and node.keep[1] == 1 and not counting:  # the best (worst) item: no sorting
        pick = np.maximum if node.keep[0] == "h" else np.minimum
        best = cols[0]
        for col in cols[1:]:
            best = pick(best, col)
        return best if len(cols) > 1 else np.array(best)
    values = np.stack(cols, axis=1)
    if node.keep is not None:
        mode, k = node.keep
        if k == 0:
            return np.zeros(n, dtype=np.int64)
        values = np.sort(values, axis=1)
        values = values[:, -k:] if mode == "h" else values[:, :k]
    elif node.keep_if is not None:
        want = node.keep_if[0] == "k"
        mask = node.keep_if[1].test(values) == want
        return ((_score(node, values) if counting else values) * mask).sum(axis=1)
    return _score(node, values).sum(axis=1) if counting else values.sum(axis=1)


def _exact(node: Expr, n: int, gen: np.random.Generator) -> tuple[Any, Any]:
    """A value as an exact fraction (numerator, positive denominator): '/' inside floor/ceil/round."""
    if isinstance(node, BinOp):
        (a, b), (c, d) = _exact(node.left, n, gen), _exact(node.right, n, gen)
        if node.op == "+":
            return a * d + c * b, b * d
        if node.op == "-":
            return a * d - c * b, b * d
        if node.op == "*":
            return a * c, b * d
        num, den = a * d, b * c
        sign = np.where(np.asarray(den) < 0, -1, 1)
        return num * sign, den * sign
    if isinstance(node, Neg):
        a, b = _exact(node.operand, n, gen)
        return -a, b
    if isinstance(node, Label):
        return _exact(node.operand, n, gen)
    if isinstance(node, Compare):
        (a, b), (c, d) = _exact(node.left, n, gen), _exact(node.right, n, gen)
        return np.asarray(compare(node.op, a * d, c * b)).astype(np.int64), 1
    return _eval(node, n, gen), 1


def _eval(node: Expr, n: int, gen: np.random.Generator) -> Any:
    if isinstance(node, Const):
        return node.value
    if isinstance(node, Dice):
        return _dice(node, n, gen) if node.per_die_only else _modified(node, n, gen)
    if isinstance(node, Neg):
        return -_eval(node.operand, n, gen)
    if isinstance(node, Label):
        return _eval(node.operand, n, gen)
    if isinstance(node, Group):
        return _group(node, n, gen)
    if isinstance(node, Func):
        num, den = _exact(node.arg, n, gen)
        num = np.asarray(num, dtype=np.int64)
        if node.name == "floor":
            return num // den
        if node.name == "ceil":
            return -((-num) // den)
        return (2 * num + den) // (2 * np.asarray(den))
    a, b = _eval(node.left, n, gen), _eval(node.right, n, gen)
    if isinstance(node, Compare):
        return (
            compare(node.op, a, b).astype(np.int64)
            if isinstance(a, np.ndarray) or isinstance(b, np.ndarray)
            else int(compare(node.op, a, b))
        )
    if isinstance(a, np.ndarray) and a.flags.writeable and node.op in "+-*" and np.shape(b) in ((), a.shape):
        # ``a`` is this expression's own temporary: work in place rather than allocate another n values
        if node.op == "+":
            a += b
        elif node.op == "-":
            a -= b
        else:
            a *= b
        return a
    if node.op == "+":
        return a + b
    if node.op == "-":
        return a - b
    if node.op == "/":
        return a // b
    return a * b


def _cells(node: Expr) -> int:
    """Die cells one row needs at once (the first throws of every term)."""
    return sum(n.count for n in walk(node) if isinstance(n, Dice))


def roll_batch(
    expression: str | Expr, n: int, /, *, seed: int | None = None, limits: Limits = DEFAULT_LIMITS
) -> np.ndarray:
    """Roll ``expression`` ``n`` times; an int64 array of the totals."""
    node = parse(expression, limits) if isinstance(expression, str) else expression
    if not isinstance(n, (int, np.integer)) or n < 0:
        raise DiceLimitError(f"the number of rolls must be a whole number from 0, not {n!r}")
    if n > MAX_BATCH:
        raise DiceLimitError(
            f"{n} rolls is more than the batch limit of {MAX_BATCH}", hint="split it into several calls"
        )
    worst = worst_case_dice(node)
    if worst > limits.max_rolled:
        raise DiceLimitError(f"'{node}' could throw up to {worst} dice; the limit is {limits.max_rolled}")
    gen = np.random.default_rng(seed)
    per = max(1, _cells(node))
    chunk = max(1, _CHUNK_CELLS // per)
    if n <= chunk:  # one chunk: the result itself, not a copy of it
        whole = np.asarray(_eval(node, n, gen), dtype=np.int64)
        if whole.shape == (n,) and whole.flags.writeable and whole.flags.c_contiguous:
            return whole
        return np.array(np.broadcast_to(whole, (n,)))
    out = np.empty(n, dtype=np.int64)
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        out[start : start + m] = _eval(node, m, gen)
    return out
