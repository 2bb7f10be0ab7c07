"""The book's tables, loaded once from ``data/*.yaml`` with importlib.resources."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Any

import yaml

__all__ = ["STAT_NAMES", "equipment", "tables"]


@cache
def tables() -> dict[str, Any]:
    """Philsys tables (stats, XP, attack types, locations, sizes, TDs)."""
    return yaml.safe_load(files(__package__).joinpath("data/tables.yaml").read_text(encoding="utf-8"))


@cache
def equipment() -> dict[str, Any]:
    """The gear the article names, with the values its examples give."""
    return yaml.safe_load(files(__package__).joinpath("data/equipment.yaml").read_text(encoding="utf-8"))


STAT_NAMES: tuple[str, ...] = ("COU", "WIS", "INT", "CHA", "AGI", "DEX", "STR", "STA", "MAG")
