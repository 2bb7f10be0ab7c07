"""Storymaster: dice, exact odds and rules for five tabletop role-playing systems.

Start here::

    import storymaster
    from storymaster import DiceRng, Fight

    system, hero = storymaster.load_character("examples/blyss/warrior.yaml")
    entry = system.find_check(hero, "strength", check="test")
    check = system.make_check(entry, {"td": 3})
    print(system.odds(check))               # the exact chances
    print(system.resolve(check, DiceRng(7)))  # a roll, explained

Values are immutable: records, distributions, outcomes, characters and fight
states are frozen; a change returns a new one. Randomness comes only from a
:class:`~storymaster.dice.DiceRng` passed in.

The names below are imported on first use, so ``import storymaster.dice`` stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .api import LoadedCharacter, load_character
    from .dice import DiceRng
    from .forecast import Forecast
    from .rules import Fight, Outcome, OutcomeOdds, RuleSystem, all_systems, get_system, side_label

__version__ = "0.1.0"

__all__ = [
    "DiceRng",
    "Fight",
    "Forecast",
    "LoadedCharacter",
    "Outcome",
    "OutcomeOdds",
    "RuleSystem",
    "__version__",
    "all_systems",
    "get_system",
    "load_character",
    "side_label",
]

_LAZY = {
    "LoadedCharacter": ".api",
    "load_character": ".api",
    "DiceRng": ".dice",
    "Forecast": ".forecast",
    "Fight": ".rules",
    "Outcome": ".rules",
    "OutcomeOdds": ".rules",
    "RuleSystem": ".rules",
    "all_systems": ".rules",
    "get_system": ".rules",
    "side_label": ".rules",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'storymaster' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
