"""B.U.M. (Basic - Universal - Modular), by Everett Baudean, as a Storymaster rule system.

One d6 plus stat, skill and items against a difficulty or another roll; four
stats from 10 points; wounds equal to STR; four levels of combat. Every value
is frozen; a change returns a new one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from ...dice import DiceRng
from ...errors import AdvancementError, CheckError, Problem
from ...forecast import Forecast
from ...rules import Check, Event, HouseRules, Outcome, OutcomeOdds
from .advancement import AdvanceRequest, AwardPoints, BuySkill, BuyStat, advance
from .character import BumCharacter, validate
from .checks import (
    FixedCheck,
    OpposedCheck,
    RecheckCheck,
    SneakAttackCheck,
    odds_fixed,
    odds_opposed,
    odds_recheck,
    odds_sneak,
    resolve_fixed,
    resolve_opposed,
    resolve_recheck,
    resolve_sneak,
)
from .combat import BumCombat, FightState
from .options import BumHouseRules

__all__ = [
    "SYSTEM",
    "AdvanceRequest",
    "AwardPoints",
    "BumCharacter",
    "BumCombat",
    "BumHouseRules",
    "BumSystem",
    "BuySkill",
    "BuyStat",
    "FightState",
    "FixedCheck",
    "OpposedCheck",
    "RecheckCheck",
    "SneakAttackCheck",
]


def _hr(house_rules: HouseRules | None) -> BumHouseRules:
    if house_rules is None:
        return BumHouseRules()
    if not isinstance(house_rules, BumHouseRules):
        raise CheckError(f"B.U.M. needs B.U.M. house rules, not {type(house_rules).__name__}")
    return house_rules


class BumSystem:
    """B.U.M. on the Storymaster protocol."""

    name = "bum"
    title = "B.U.M. (Basic - Universal - Modular)"
    version = "core rulebook (Severely Awesome Games)"
    character_model: type[BaseModel] = BumCharacter
    house_rules_model: type[HouseRules] = BumHouseRules
    check_types: Mapping[str, type[Check]] = {
        "fixed": FixedCheck,
        "opposed": OpposedCheck,
        "recheck": RecheckCheck,
        "sneak": SneakAttackCheck,
    }

    def __init__(self) -> None:
        self.combat = BumCombat()

    def validate_character(self, character: BaseModel, house_rules: HouseRules | None = None) -> list[Problem]:
        if not isinstance(character, BumCharacter):
            return [Problem("", f"not a B.U.M. character ({type(character).__name__})")]
        return validate(character, _hr(house_rules))

    def resolve(self, check: Check, rng: DiceRng, house_rules: HouseRules | None = None) -> Outcome:
        hr = _hr(house_rules)
        if isinstance(check, FixedCheck):
            return resolve_fixed(check, rng)
        if isinstance(check, OpposedCheck):
            return resolve_opposed(check, rng, hr)
        if isinstance(check, SneakAttackCheck):
            return resolve_sneak(check, rng, hr)
        if isinstance(check, RecheckCheck):
            return resolve_recheck(check, rng)
        raise CheckError(f"B.U.M. has no check of type {type(check).__name__}", hint="fixed, opposed, recheck or sneak")

    def odds(self, check: Check, house_rules: HouseRules | None = None) -> OutcomeOdds:
        hr = _hr(house_rules)
        if isinstance(check, FixedCheck):
            return odds_fixed(check)
        if isinstance(check, OpposedCheck):
            return odds_opposed(check, hr)
        if isinstance(check, SneakAttackCheck):
            return odds_sneak(check, hr)
        if isinstance(check, RecheckCheck):
            return odds_recheck(check)
        raise CheckError(f"B.U.M. has no check of type {type(check).__name__}", hint="fixed, opposed, recheck or sneak")

    def advance(
        self, character: BaseModel, request: BaseModel, rng: DiceRng, house_rules: HouseRules | None = None
    ) -> tuple[BaseModel, Sequence[Event]]:
        if not isinstance(character, BumCharacter):
            raise AdvancementError(f"not a B.U.M. character ({type(character).__name__})")
        if not isinstance(request, (AwardPoints, BuySkill, BuyStat)):
            raise AdvancementError(f"B.U.M. advances by award, skill or stat, not {type(request).__name__}")
        return advance(character, request, _hr(house_rules))

    def forecast(
        self, state: BaseModel, *, method: str = "auto", samples: int = 100_000, seed: int = 0, progress: Any = None
    ) -> Forecast:
        """The odds of the whole fight from ``state``: exact where the chain applies, else simulated (see .forecast)."""
        from dataclasses import replace

        from .forecast import end_state_order, forecast

        result = forecast(state, method=method, samples=samples, seed=seed, progress=progress)  # type: ignore[arg-type]
        return replace(result, end_state_order=end_state_order(result))


SYSTEM = BumSystem()
