"""BLYSS 3.5 Basic Rules on Storymaster: characters, die-pool Tests with exact odds, combat,
Rules for Living, Experience.

``SYSTEM`` satisfies :class:`storymaster.rules.RuleSystem`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, TypeAdapter

from ...dice import DiceRng
from ...errors import CheckError, Problem
from ...forecast import Forecast
from ...rules.models import Check, HouseRules
from ...rules.outcome import Outcome, OutcomeOdds
from ...rules.protocol import Event
from .advancement import Advancement, advance
from .character import Character, validate_character
from .checks import (
    BlyssContest,
    BlyssTest,
    CombinedContest,
    CombinedTest,
    combined_contest_odds,
    combined_odds,
    contest_odds,
    resolve_combined,
    resolve_combined_contest,
    resolve_contest,
    resolve_test,
    test_odds,
)
from .combat import BlyssCombat
from .options import BlyssHouseRules

__all__ = ["SYSTEM", "BlyssSystem"]

_ADV = TypeAdapter(Advancement)


def _hr(house_rules: HouseRules | None) -> BlyssHouseRules:
    if house_rules is None:
        return BlyssHouseRules()
    if isinstance(house_rules, BlyssHouseRules):
        return house_rules
    raise CheckError(f"BLYSS takes BLYSS house rules, not {type(house_rules).__name__}")


class BlyssSystem:
    """BLYSS 3.5 Basic Rules."""

    name = "blyss"
    title = "BLYSS 3.5 Basic Rules"
    version = "3.5"
    character_model: type[BaseModel] = Character
    house_rules_model: type[HouseRules] = BlyssHouseRules
    check_types: Mapping[str, type[Check]] = {
        "test": BlyssTest,
        "contest": BlyssContest,
        "combined": CombinedTest,
        "combined-contest": CombinedContest,
    }
    combat = BlyssCombat()

    def validate_character(self, character: BaseModel, house_rules: HouseRules | None = None) -> list[Problem]:
        if not isinstance(character, Character):
            return [Problem("", f"not a BLYSS character ({type(character).__name__})")]
        return validate_character(character, _hr(house_rules))

    def resolve(self, check: Check, rng: DiceRng, house_rules: HouseRules | None = None) -> Outcome:
        hr = _hr(house_rules)
        if isinstance(check, BlyssTest):
            return resolve_test(check, rng, hr)
        if isinstance(check, BlyssContest):
            return resolve_contest(check, rng, hr)
        if isinstance(check, CombinedTest):
            return resolve_combined(check, rng, hr)
        if isinstance(check, CombinedContest):
            return resolve_combined_contest(check, rng, hr)
        raise CheckError(
            f"BLYSS cannot resolve a {type(check).__name__}", hint=f"check types: {', '.join(self.check_types)}"
        )

    def odds(self, check: Check, house_rules: HouseRules | None = None) -> OutcomeOdds:
        hr = _hr(house_rules)
        if isinstance(check, BlyssTest):
            return test_odds(check, hr)
        if isinstance(check, BlyssContest):
            return contest_odds(check, hr)
        if isinstance(check, CombinedTest):
            return combined_odds(check, hr)
        if isinstance(check, CombinedContest):
            return combined_contest_odds(check, hr)
        raise CheckError(f"BLYSS has no odds for a {type(check).__name__}")

    def advance(
        self, character: BaseModel, request: BaseModel, rng: DiceRng, house_rules: HouseRules | None = None
    ) -> tuple[BaseModel, list[Event]]:
        if not isinstance(character, Character):
            raise CheckError("not a BLYSS character")
        if isinstance(request, BaseModel) and not hasattr(request, "kind"):
            raise CheckError("not a BLYSS advancement")
        req = request if hasattr(request, "kind") else _ADV.validate_python(request)
        return advance(character, req, _hr(house_rules))

    def forecast(
        self, state: BaseModel, *, method: str = "auto", samples: int = 100_000, seed: int = 0, progress: Any = None
    ) -> Forecast:
        """The odds of a whole fight from any engine state (see :mod:`.forecast`): exact for a duel in which
        both fighters attack every round, simulated (numpy, many fights at once) otherwise."""
        from dataclasses import replace

        from .forecast import END_STATES, blyss_forecast

        result = blyss_forecast(state, method=method, samples=samples, seed=seed, progress=progress)
        return replace(result, end_state_order=END_STATES)


SYSTEM = BlyssSystem()
