"""Part Three's illustrative tables: what a stat score or a skill level means in words (``data/levels.yaml``)."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Any

import yaml

__all__ = ["skill_label", "stat_label"]


@cache
def _levels() -> dict[str, Any]:
    return yaml.safe_load(files(__package__).joinpath("data/levels.yaml").read_text(encoding="utf-8"))


def stat_label(stat: str, value: int) -> str:
    """'Average' for 2, and so on; beyond the table (superhuman, or 0) says so."""
    table = _levels()["stats"][stat]
    if value in table:
        return str(table[value])
    return "beyond the human scale" if value > 4 else "none at all"


def skill_label(points: int) -> str:
    """Familiar (1), Proficient (2), Expert (3), Master (4)."""
    table = _levels()["skills"]
    if points in table:
        return str(table[points])
    return "untrained" if points <= 0 else "beyond mastery"
