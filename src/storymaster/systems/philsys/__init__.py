"""Philsys (RPGWW wiki article, revision of 21 March 2006) as a Storymaster rule system.

>>> from storymaster.systems.philsys import SYSTEM
>>> SYSTEM.name
'philsys'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from ...dice import DiceRng
from ...errors import AdvancementError, Problem
from ...forecast import Forecast
from ...rules.base import RuleSystemBase
from ...rules.catalogue import CheckEntry
from ...rules.models import HouseRules
from ...rules.protocol import Event
from ...rules.sheet import SheetSection
from .advancement import LevelUp, XpAward, award_xp, level_up
from .character import Character, validate
from .combat import PhilsysCombat
from .condition import CONDITION
from .options import PhilsysHouseRules
from .protocol import CHECK_KINDS, character_checks, sheet_sections

__all__ = ["SYSTEM", "PhilsysSystem"]


class PhilsysSystem(RuleSystemBase):
    """The Philsys rule system."""

    name = "philsys"
    title = "Philsys (RPGWW wiki)"
    version = "2006-03-21"
    display_name = "philsys"
    #: earned and changed in play (see RuleSystemBase.table_kept)
    table_kept = ("level", "xp", "hp_gained", "mp_gained", "tp_gained", "stat_raises", "current")
    character_model = Character
    house_rules_model = PhilsysHouseRules
    check_kinds = CHECK_KINDS

    condition = CONDITION

    def __init__(self) -> None:
        self.combat = PhilsysCombat()

    def character_problems(self, character: Character, house_rules: PhilsysHouseRules) -> list[Problem]:
        return validate(character, house_rules)

    def character_checks(self, character: Character, house_rules: PhilsysHouseRules) -> list[CheckEntry]:
        return character_checks(character, house_rules)

    def sheet_sections(self, character: Character, house_rules: PhilsysHouseRules) -> list[SheetSection]:
        return sheet_sections(character, house_rules)

    def advance(
        self, character: BaseModel, request: BaseModel, rng: DiceRng, house_rules: HouseRules | None = None
    ) -> tuple[BaseModel, Sequence[Event]]:
        if not isinstance(character, Character):
            raise AdvancementError(f"not a philsys character: {type(character).__name__}")
        if isinstance(request, XpAward):
            return award_xp(character, request.amount)
        if isinstance(request, LevelUp):
            return level_up(character, request, rng, self.coerce_house_rules(house_rules))
        raise AdvancementError(
            f"philsys does not know the advancement {type(request).__name__}", hint="use XpAward or LevelUp"
        )

    def forecast(
        self, state: BaseModel, *, method: str = "auto", samples: int = 100_000, seed: int = 0, progress: Any = None
    ) -> Forecast:
        """The odds of the whole fight from an engine state (start or mid-fight): exact for a duel, else simulated."""
        from dataclasses import replace

        from .forecast import END_STATES, forecast

        result = forecast(state, method=method, samples=samples, seed=seed, progress=progress)  # type: ignore[arg-type]
        return replace(result, end_state_order=END_STATES)


SYSTEM = PhilsysSystem()
