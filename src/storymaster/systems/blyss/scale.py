"""The Ability Scale, Die Pools and the TD Scale (BLYSS 3.5, Rules & Mechanics: Tests)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from .tables import table

__all__ = [
    "ability_name",
    "apply_rank_bonus",
    "apply_rank_penalty",
    "challenge_name",
    "die_rank",
    "minimum_rank_for_td",
    "pool_for_rank",
    "pool_for_ranks",
    "pool_rank",
    "pool_text",
    "rank_for_pool",
]

_DIE_FOR_REMAINDER = (0, 4, 6, 8, 10)


def pool_for_rank(rank: int, /) -> tuple[int, ...]:
    """The dice a rank grants (Table 2-01: The Ability Scale).

    Ranks beyond 10 are not in the book; by ruling the pattern carries on: every five
    ranks give a d12 and the remainder adds d4/d6/d8/d10 (rank 11 = d12+d12+d4).
    """
    if rank < 0:
        raise ValueError("a rank is 0 or more")
    twelves, rest = divmod(rank, 5)
    return (12,) * twelves + ((_DIE_FOR_REMAINDER[rest],) if rest else ())


def pool_for_ranks(ranks: Sequence[int], /) -> tuple[int, ...]:
    """A combined Die Pool: the dice of each statistic, one after another (Die Pools)."""
    out: list[int] = []
    for r in ranks:
        out.extend(pool_for_rank(r))
    return tuple(out)


def die_rank(sides: int, /) -> int:
    """The rank a single die stands for on the Ability Scale (d4 = 1 ... d12 = 5)."""
    return max(0, (sides - 2) // 2)


def pool_rank(dice: Sequence[int], /) -> int:
    """The total rank of a pool (d12+d4 = 5+1 = 6): additive over its dice, matching Table 2-01."""
    return sum(die_rank(s) for s in dice)


def rank_for_pool(dice: Sequence[int], /) -> int | None:
    """The single rank whose pool is exactly these dice (any order), or None if there is none."""
    r = pool_rank(dice)
    return r if sorted(pool_for_rank(r)) == sorted(dice) else None


def ability_name(rank: int, /) -> str:
    """The Ability Scale's name for a rank (Table 1-01); beyond 10, 'beyond the scale'."""
    rows = table("scale")["ability_scale"]
    return rows[rank]["ability"] if 0 <= rank < len(rows) else "Beyond the scale"


def pool_text(dice: Sequence[int], /) -> str:
    """A pool as the book writes it: 'd12 + d4'; an empty pool is 'd0'."""
    return " + ".join(f"d{s}" for s in dice) if dice else "d0"


def minimum_rank_for_td(td: int, /) -> int:
    """The rank of Table 2-02's Minimum Die Pool for a TD.

    Odd TDs use the row below; TDs past 20 go on one rank per 2 TD (ruling: the table's last steps).
    """
    rows = table("scale")["td_scale"]
    if td <= 0:
        return 0
    if td > rows[-1]["td"]:
        return rows[-1]["minimum_rank"] + (td - rows[-1]["td"]) // 2
    best = 0
    for row in rows:
        if row["td"] <= td:
            best = row["minimum_rank"]
    return best


def challenge_name(td: int, /) -> str:
    """Table 2-02's Challenge Level for a TD (odd TDs: the level below)."""
    rows = table("scale")["td_scale"]
    name = rows[0]["challenge"]
    for row in rows:
        if row["td"] <= td:
            name = row["challenge"]
    return name


def apply_rank_penalty(
    ranks: Sequence[int], penalty: int, /, *, spread: Literal["level", "highest_whole"] = "level"
) -> tuple[int, ...]:
    """Take ``penalty`` ranks off a pool's statistics, highest ranked first.

    BLYSS 3.5, Table 2-03 note ('Rank penalties are shared between dice, highest ranked first') and
    Negative Traits ('spreading the ranks between statistics, starting with the highest ranked').
    'level': one rank at a time from whichever statistic is highest now (ties: the first listed);
    'highest_whole': the highest statistic loses ranks down to 0 before the next is touched.
    A statistic never goes below 0; a penalty larger than the pool leaves every statistic at 0.
    """
    out = list(ranks)
    if penalty <= 0:
        return tuple(out)
    if spread == "highest_whole":
        order = sorted(range(len(out)), key=lambda i: (-out[i], i))
        left = penalty
        for i in order:
            take = min(left, out[i])
            out[i] -= take
            left -= take
        return tuple(out)
    for _ in range(penalty):
        i = max(range(len(out)), key=lambda j: (out[j], -j), default=None)
        if i is None or out[i] == 0:
            break
        out[i] -= 1
    return tuple(out)


def apply_rank_bonus(ranks: Sequence[int], bonus: int, /) -> tuple[int, ...]:
    """Add ``bonus`` ranks divided equally between the statistics; the remainder goes highest ranked first.

    BLYSS 3.5, Combined Tests ('divided equally between all the statistics'); the remainder's
    placement is a ruling mirroring the penalty rule.
    """
    out = list(ranks)
    if bonus <= 0 or not out:
        return tuple(out)
    each, rest = divmod(bonus, len(out))
    order = sorted(range(len(out)), key=lambda i: (-out[i], i))
    for i in range(len(out)):
        out[i] += each
    for i in order[:rest]:
        out[i] += 1
    return tuple(out)
