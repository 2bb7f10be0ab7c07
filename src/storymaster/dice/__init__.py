"""Dice: notation, auditable rolling, pools and batch rolling.

>>> from storymaster.dice import roll
>>> roll("2d6+3", seed=7).total
9

The names are imported on first use: the exact odds need only the parser (no hashing, no
records), a plain roll no numpy (the batch roller loads it), so each pays only for what it uses.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .ast import BinOp, Const, Dice, Expr, Neg
    from .batch import roll_batch
    from .limits import DEFAULT_LIMITS, Limits
    from .parser import parse, parse_pool
    from .record import DieRoll, RollRecord
    from .rng import RNG_VERSION, DiceRng, derive_face, new_seed
    from .roller import replay, roll, roll_pool, verify, worst_case_dice

_LAZY = {
    "BinOp": ".ast",
    "Const": ".ast",
    "Dice": ".ast",
    "Expr": ".ast",
    "Neg": ".ast",
    "roll_batch": ".batch",
    "DEFAULT_LIMITS": ".limits",
    "Limits": ".limits",
    "parse": ".parser",
    "parse_pool": ".parser",
    "DieRoll": ".record",
    "RollRecord": ".record",
    "RNG_VERSION": ".rng",
    "DiceRng": ".rng",
    "derive_face": ".rng",
    "new_seed": ".rng",
    "replay": ".roller",
    "roll": ".roller",
    "roll_pool": ".roller",
    "verify": ".roller",
    "worst_case_dice": ".roller",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


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
