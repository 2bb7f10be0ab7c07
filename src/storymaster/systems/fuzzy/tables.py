"""The book's tables, loaded once from ``data/*.yaml`` (importlib.resources)."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Any

import yaml

__all__ = ["combat_table", "difficulties", "discworld_body", "fit_modifiers", "wound_levels"]


@cache
def _load(name: str) -> Any:
    return yaml.safe_load(files(__package__).joinpath("data").joinpath(name).read_text(encoding="utf-8"))


def difficulties() -> dict[str, int]:
    """Named difficulties and their targets ("Dice-Rolling": easy 4 ... nigh-impossible 18)."""
    return {row["name"]: int(row["target"]) for row in _load("difficulties.yaml")["difficulties"]}


def difficulty_dice() -> dict[str, int]:
    """How many dice average each named difficulty ("the average roll of 3 dice is 10.5, so ... 11")."""
    return {row["name"]: int(row["dice"]) for row in _load("difficulties.yaml")["difficulties"]}


def fit_modifiers() -> dict[str, int]:
    """Target modifiers for an ability that fits the task poorly ("Some suggested modifiers for tasks")."""
    return {str(k): int(v) for k, v in _load("difficulties.yaml")["fit"].items()}


def wound_levels() -> list[dict[str, Any]]:
    """Wound levels by multiple of the Defence Total, least first ("Combat Rules")."""
    return list(_load("wounds.yaml")["levels"])


def combat_table(name: str) -> dict[str, int | None]:
    """One table of combat modifiers: encumbrance, appropriateness, opponents, weapon, armour, stance, intent."""
    return dict(_load("combat.yaml")[name])


def discworld_body() -> dict[int, dict[str, Any]]:
    """The Discworld Body guide by level ("For The Tucson Discworld game")."""
    return {int(k): v for k, v in _load("discworld_body.yaml")["levels"].items()}
