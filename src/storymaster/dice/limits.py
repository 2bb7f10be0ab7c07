"""Safety limits for dice expressions: part of the domain, not an afterthought.

No expression may hang the process or exhaust memory. The limits are checked
while parsing (length, nesting, counts, sides, depth) and while rolling (the
total number of dice a roll may throw, explosions and rerolls at full depth
included).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_LIMITS", "Limits"]


@dataclass(frozen=True, slots=True)
class Limits:
    #: characters in one expression
    max_length: int = 500
    #: dice in one term (the N of NdX)
    max_dice: int = 1_000
    #: faces on one die
    max_sides: int = 1_000_000
    #: how many times one die may explode (the depth cap); the book's default when unset
    explode_depth: int = 10
    #: the largest explosion depth a caller may ask for
    max_explode_depth: int = 100
    #: how many times one throw may be rerolled by ``r``/``rr`` (``ro`` rerolls once)
    reroll_depth: int = 10
    #: the largest reroll depth a caller may ask for
    max_reroll_depth: int = 100
    #: items in one set ``{a, b, ...}``
    max_set: int = 20
    #: characters in one label ``[fire]``
    max_label: int = 40
    #: dice thrown by one roll, explosions and rerolls included
    max_rolled: int = 10_000
    #: nesting of parentheses and unary minus
    max_nesting: int = 32
    #: largest integer literal
    max_literal: int = 1_000_000_000


DEFAULT_LIMITS = Limits()
