"""Dice: notation, auditable rolling, pools and batch rolling.

>>> from storymaster.dice import roll
>>> roll("2d6+3", seed=7).total
9
"""

from typing import Any

from .ast import BinOp, Const, Dice, Expr, Neg
from .limits import DEFAULT_LIMITS, Limits
from .parser import parse, parse_pool
from .record import DieRoll, RollRecord
from .rng import RNG_VERSION, DiceRng, derive_face, new_seed
from .roller import replay, roll, roll_pool, verify, worst_case_dice


def __getattr__(name: str) -> Any:
    # the batch roller needs numpy: imported when first asked for, so parsing and
    # audited rolls (``storymaster roll d20``) never load it
    if name == "roll_batch":
        from .batch import roll_batch

        return roll_batch
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_LIMITS",
    "RNG_VERSION",
    "BinOp",
    "Const",
    "Dice",
    "DiceRng",
    "DieRoll",
    "Expr",
    "Limits",
    "Neg",
    "RollRecord",
    "derive_face",
    "new_seed",
    "parse",
    "parse_pool",
    "replay",
    "roll",
    "roll_batch",
    "roll_pool",
    "verify",
    "worst_case_dice",
]
