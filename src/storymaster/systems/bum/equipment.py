"""Appendix A as data: weapons, shields and armour with their attack and defence bonuses.

The table lives in ``data/equipment.yaml``; this module loads it once and
finds rows by the names a player writes on a card ("Battle Axe", "Heavy
Crossbow", "Round Shield").
"""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files
from typing import Literal

import yaml

from ...errors import CharacterError, Problem
from ...rules import Model

__all__ = ["Category", "Gear", "ReloadKind", "all_gear", "find_gear", "gear_by_id"]

Category = Literal["hand", "shield", "ranged", "armour"]
ReloadKind = Literal["bow", "crossbow", "muzzleloader", "thrown"]


class Gear(Model):
    """One row of Appendix A."""

    id: str
    category: Category
    names: tuple[str, ...]
    attack: int
    defence: int | None = 0
    hands: Literal[1, 2, "either"] = 1
    one_handed: dict[str, int] | None = None
    ranged: bool = False
    reload: ReloadKind | None = None
    wounds: int = 1
    reach: int = 0
    longspear: bool = False
    melee_usable: bool = False

    @property
    def title(self) -> str:
        return self.names[0]


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


@cache
def all_gear() -> tuple[Gear, ...]:
    """Every row of Appendix A (``data/equipment.yaml``)."""
    text = files(__package__).joinpath("data/equipment.yaml").read_text(encoding="utf-8")
    raw = yaml.safe_load(text)
    out = []
    for category, rows in raw.items():
        for row in rows:
            out.append(Gear(category=category, **{k: (tuple(v) if k == "names" else v) for k, v in row.items()}))
    return tuple(out)


@cache
def _index() -> dict[str, Gear]:
    index: dict[str, Gear] = {}
    for g in all_gear():
        index[_key(g.id)] = g
        for n in g.names:
            index.setdefault(_key(n), g)
    return index


def gear_by_id(gear_id: str) -> Gear:
    for g in all_gear():
        if g.id == gear_id:
            return g
    raise KeyError(gear_id)


def find_gear(name: str, category: Category | tuple[Category, ...] | None = None) -> Gear | None:
    """The Appendix A row a name refers to ("Heavy Crossbow" -> large crossbow), or None."""
    g = _index().get(_key(name))
    if g is None:
        return None
    if category is not None:
        cats = (category,) if isinstance(category, str) else category
        if g.category not in cats:
            return None
    return g


def require_gear(name: str, category: Category | tuple[Category, ...], where: str) -> Gear:
    g = find_gear(name, category)
    if g is None:
        cats = (category,) if isinstance(category, str) else category
        known = ", ".join(n for x in all_gear() if x.category in cats for n in x.names[:2])
        raise CharacterError(
            [Problem(where, f"{name!r} is not in Appendix A", "Appendix A")],
            hint=f"use a listed kind ({known}) or give 'attack' and 'defence' for a home-made item",
        )
    return g
