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
from ...rules.models import Check, HouseRules
from ...rules.outcome import Outcome, OutcomeOdds
from ...rules.protocol import Event
from .advancement import LevelUp, XpAward, award_xp, level_up
from .character import Character, validate
from .checks import CHECK_TYPES, check_odds, resolve_check
from .combat import PhilsysCombat
from .options import PhilsysHouseRules

__all__ = ["SYSTEM", "PhilsysSystem"]


def _hr(house_rules: HouseRules | None) -> PhilsysHouseRules:
    if house_rules is None:
        return PhilsysHouseRules()
    if isinstance(house_rules, PhilsysHouseRules):
        return house_rules
    return PhilsysHouseRules.model_validate(house_rules.model_dump())


class PhilsysSystem:
    """The Philsys rule system."""

    name = "philsys"
    title = "Philsys (RPGWW wiki)"
    version = "2006-03-21"
    character_model = Character
    house_rules_model = PhilsysHouseRules
    check_types = CHECK_TYPES

    def __init__(self) -> None:
        self.combat = PhilsysCombat()

    def validate_character(self, character: BaseModel, house_rules: HouseRules | None = None) -> list[Problem]:
        if not isinstance(character, Character):
            return [Problem("", f"not a philsys character: {type(character).__name__}")]
        return validate(character, _hr(house_rules))

    def resolve(self, check: Check, rng: DiceRng, house_rules: HouseRules | None = None) -> Outcome:
        return resolve_check(check, rng, _hr(house_rules))

    def odds(self, check: Check, house_rules: HouseRules | None = None) -> OutcomeOdds:
        return check_odds(check, _hr(house_rules))

    def advance(
        self, character: BaseModel, request: BaseModel, rng: DiceRng, house_rules: HouseRules | None = None
    ) -> tuple[BaseModel, Sequence[Event]]:
        if not isinstance(character, Character):
            raise AdvancementError(f"not a philsys character: {type(character).__name__}")
        if isinstance(request, XpAward):
            return award_xp(character, request.amount)
        if isinstance(request, LevelUp):
            return level_up(character, request, rng, _hr(house_rules))
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
