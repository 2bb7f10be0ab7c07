"""Character Point costs (BLYSS 3.5, Building the Character; Tables 1-02 to 1-05)."""

from __future__ import annotations

from typing import Literal

from .tables import table

__all__ = ["Kind", "cp_to_rank", "cumulative_cost", "extra_cost", "rank_cost", "specialisation_cost"]

Kind = Literal["attribute", "skill", "talent", "natural"]


def _base(kind: Kind) -> int:
    try:
        return int(table("costs")[kind]["base"])
    except KeyError:
        raise ValueError(f"no cost table for {kind!r}") from None


def rank_cost(kind: Kind, rank: int, /) -> int:
    """CP to raise a statistic from ``rank - 1`` to ``rank`` (the tables' 'each rank' column).

    BLYSS 3.5, Attributes: the base cost for each rank up to and including Average (3), then the
    base is added to the last cost for every rank after (Attributes 8, Skills 4, Talents 6, Naturals 8).
    """
    if rank <= 0:
        return 0
    return _base(kind) * max(1, rank - 2)


def cumulative_cost(kind: Kind, rank: int, /) -> int:
    """CP to buy a statistic from rank 0 to ``rank`` (the 'Cumulative' column; the rule beats the
    printed Skill 'Very good 49', which the per-rank column makes 48)."""
    return sum(rank_cost(kind, r) for r in range(1, rank + 1))


def cp_to_rank(kind: Kind, cp: int, /) -> tuple[int, int]:
    """The rank that ``cp`` CP buy, and the CP left over towards the next rank (Building the Character:
    'CP can be put towards increasing a rank even if they don't finish buying the next rank')."""
    if cp < 0:
        raise ValueError("CP are 0 or more")
    rank = 0
    while cp >= rank_cost(kind, rank + 1):
        cp -= rank_cost(kind, rank + 1)
        rank += 1
    return rank, cp


def specialisation_cost(levels: int, /, scheme: Literal["flat", "rising"] = "flat") -> int:
    """CP for ``levels`` levels of Specialisation (BLYSS 3.5, Specialisation: 'a single CP ... for each
    level'). 'rising' (house rule) makes the n-th level cost n CP."""
    if scheme == "rising":
        return levels * (levels + 1) // 2
    return levels


def extra_cost(which: Literal["dodges", "flesh_wounds", "health"], count: int, /) -> int:
    """CP for extra Dodges (4 each), Flesh Wounds (3 each) or Health (2 each) (Derived Attributes)."""
    return count * int(table("costs")["extras"][which]["cost"])
