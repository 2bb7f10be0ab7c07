"""Batch rolling at numpy speed, for simulations where no audit is needed.

``roll_batch("3d6", 1_000_000, seed=1)`` returns a numpy array of totals. The
same seed gives the same array with the same numpy version; unlike
:func:`~storymaster.dice.roll`, batch results are not replayable across numpy
versions and carry no records. Semantics match the single roller: an
exploding chain counts as one die for keep/drop.
"""

from __future__ import annotations

import numpy as np

from ..errors import DiceLimitError
from .ast import Const, Dice, Expr, Neg
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


def _eval(node: Expr, n: int, gen: np.random.Generator) -> np.ndarray | int:
    if isinstance(node, Const):
        return node.value
    if isinstance(node, Dice):
        return _dice(node, n, gen)
    if isinstance(node, Neg):
        return -_eval(node.operand, n, gen)
    a, b = _eval(node.left, n, gen), _eval(node.right, n, gen)
    if node.op == "+":
        return a + b
    if node.op == "-":
        return a - b
    return a * b


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
    per = max(1, node.count if isinstance(node, Dice) else worst)
    chunk = max(1, _CHUNK_CELLS // per)
    out = np.empty(n, dtype=np.int64)
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        out[start : start + m] = _eval(node, m, gen)
    return out
