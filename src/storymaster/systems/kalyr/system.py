"""The Kalyr rule system object: the foundation's :class:`~storymaster.rules.RuleSystem` protocol."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from ...dice import DiceRng
from ...errors import AdvancementError, CheckError, Problem
from ...forecast import Forecast
from ...rules.models import Check, HouseRules
from ...rules.outcome import Outcome, OutcomeOdds
from ...rules.protocol import Event
from .advancement import advance as _advance
from .character import Character, validate
from .checks import CHECK_TYPES, check_odds, resolve_check
from .combat import KalyrCombat
from .options import KalyrHouseRules

__all__ = ["SYSTEM", "KalyrSystem"]


def _hr(house_rules: HouseRules | None) -> KalyrHouseRules:
    if house_rules is None:
        return KalyrHouseRules()
    if not isinstance(house_rules, KalyrHouseRules):
        raise CheckError(f"kalyr takes KalyrHouseRules, not {type(house_rules).__name__}")
    return house_rules


class KalyrSystem:
    name = "kalyr"
    title = "The Kalyr RPG, Chapter 3: Playing the Game"
    version = "ch3"
    character_model: type[BaseModel] = Character
    house_rules_model: type[HouseRules] = KalyrHouseRules
    check_types: Mapping[str, type[Check]] = CHECK_TYPES
    combat = KalyrCombat()
    #: ch. 3, Posts and Threads: after a deadline "the GM will assume actions for the PC who's player
    #: hasn't responded": the table's turn-based scenes default to the GM acting (play.scene.deadline_default)
    on_deadline_default = "gm_acts"

    def validate_character(self, character: BaseModel, house_rules: HouseRules | None = None) -> list[Problem]:
        if not isinstance(character, Character):
            return [Problem("", f"not a Kalyr character: {type(character).__name__}")]
        return validate(character)

    def resolve(self, check: Check, rng: DiceRng, house_rules: HouseRules | None = None) -> Outcome:
        return resolve_check(check, rng, _hr(house_rules))

    def odds(self, check: Check, house_rules: HouseRules | None = None) -> OutcomeOdds:
        return check_odds(check, _hr(house_rules))

    def advance(
        self, character: BaseModel, request: BaseModel, rng: DiceRng, house_rules: HouseRules | None = None
    ) -> tuple[BaseModel, Sequence[Event]]:
        """Kalyr advancement uses no dice; ``rng`` is accepted for the protocol."""
        if not isinstance(character, Character):
            raise AdvancementError(f"not a Kalyr character: {type(character).__name__}")
        return _advance(character, request, _hr(house_rules))

    def forecast(
        self, state: BaseModel, *, method: str = "auto", samples: int = 100_000, seed: int = 0, progress: Any = None
    ) -> Forecast:
        """The odds of a whole contest from any fight state: exact (Markov chain) or simulated (see .forecast)."""
        from dataclasses import replace

        from .forecast import END_STATES, forecast

        result = forecast(state, method=method, samples=samples, seed=seed, progress=progress)  # type: ignore[arg-type]
        return replace(result, end_state_order=END_STATES)


SYSTEM = KalyrSystem()
