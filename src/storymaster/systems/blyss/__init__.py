"""BLYSS 3.5 Basic Rules on Storymaster: characters, die-pool Tests with exact odds, combat,
Rules for Living, Experience.

``SYSTEM`` satisfies :class:`storymaster.rules.RuleSystem` (built on :class:`~storymaster.rules.RuleSystemBase`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, TypeAdapter

from ...dice import DiceRng
from ...errors import AdvancementError, Problem
from ...forecast import Forecast
from ...rules.base import RuleSystemBase
from ...rules.catalogue import CheckEntry
from ...rules.models import HouseRules
from ...rules.protocol import Event
from ...rules.sheet import SheetSection
from .advancement import Advancement, advance
from .character import Character, validate_character
from .combat import BlyssCombat
from .condition import CONDITION
from .options import BlyssHouseRules
from .protocol import CHECK_KINDS, character_checks, sheet_sections

__all__ = ["SYSTEM", "BlyssSystem"]

_ADV = TypeAdapter(Advancement)


class BlyssSystem(RuleSystemBase):
    """BLYSS 3.5 Basic Rules."""

    name = "blyss"
    title = "BLYSS 3.5 Basic Rules"
    version = "3.5"
    display_name = "BLYSS"
    #: earned and changed in play (see RuleSystemBase.table_kept)
    table_kept = ("cp_earned", "cp_lost")
    character_model = Character
    house_rules_model = BlyssHouseRules
    check_kinds = CHECK_KINDS
    combat = BlyssCombat()
    condition = CONDITION

    def character_problems(self, character: Character, house_rules: BlyssHouseRules) -> list[Problem]:
        return validate_character(character, house_rules)

    def character_checks(self, character: Character, house_rules: BlyssHouseRules) -> list[CheckEntry]:
        return character_checks(character, house_rules)

    def sheet_sections(self, character: Character, house_rules: BlyssHouseRules) -> list[SheetSection]:
        return sheet_sections(character, house_rules)

    def advance(
        self, character: BaseModel, request: BaseModel, rng: DiceRng, house_rules: HouseRules | None = None
    ) -> tuple[BaseModel, list[Event]]:
        if not isinstance(character, Character):
            raise AdvancementError("not a BLYSS character")
        if isinstance(request, BaseModel) and not hasattr(request, "kind"):
            raise AdvancementError("not a BLYSS advancement")
        req = request if hasattr(request, "kind") else _ADV.validate_python(request)
        return advance(character, req, self.coerce_house_rules(house_rules))

    def forecast(
        self, state: BaseModel, *, method: str = "auto", samples: int | None = None, seed: int = 0, progress: Any = None
    ) -> Forecast:
        """The odds of a whole fight from any engine state (see :mod:`.forecast`): exact for a duel in which
        both fighters attack every round, simulated (numpy, many fights at once) otherwise; with no
        ``samples``, simulated until every 95% interval is within ±1% (at most 100,000 fights)."""
        from dataclasses import replace

        from .forecast import END_STATES, blyss_forecast

        result = blyss_forecast(state, method=method, samples=samples, seed=seed, progress=progress)
        return replace(result, end_state_order=END_STATES)


SYSTEM = BlyssSystem()
