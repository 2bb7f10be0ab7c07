"""B.U.M. (Basic - Universal - Modular), by Everett Baudean, as a Storymaster rule system.

One d6 plus stat, skill and items against a difficulty or another roll; four
stats from 10 points; wounds equal to STR; four levels of combat. Every value
is frozen; a change returns a new one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from ...dice import DiceRng
from ...errors import AdvancementError, Problem
from ...forecast import Forecast
from ...rules import CheckEntry, Event, HouseRules, RuleSystemBase, SheetSection
from .advancement import AdvanceRequest, AwardPoints, BuySkill, BuyStat, advance
from .character import BumCharacter, validate
from .checks import FixedCheck, OpposedCheck, RecheckCheck, SneakAttackCheck
from .combat import BumCombat, FightState
from .condition import CONDITION
from .options import BumHouseRules
from .protocol import CHECK_KINDS, character_checks, sheet_sections

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


class BumSystem(RuleSystemBase):
    """B.U.M. on the Storymaster protocol."""

    name = "bum"
    title = "B.U.M. (Basic - Universal - Modular)"
    version = "core rulebook (Severely Awesome Games)"
    display_name = "B.U.M."
    #: earned and changed in play (see RuleSystemBase.table_kept)
    table_kept = ("skill_points_earned", "banked_skill_points", "raised_stats", "session_skills_used", "wounds")
    character_model = BumCharacter
    house_rules_model = BumHouseRules
    check_kinds = CHECK_KINDS

    condition = CONDITION

    def __init__(self) -> None:
        self.combat = BumCombat()

    def character_problems(self, character: BumCharacter, house_rules: BumHouseRules) -> list[Problem]:
        return validate(character, house_rules)

    def character_checks(self, character: BumCharacter, house_rules: BumHouseRules) -> list[CheckEntry]:
        return character_checks(character, house_rules)

    def sheet_sections(self, character: BumCharacter, house_rules: BumHouseRules) -> list[SheetSection]:
        return sheet_sections(character, house_rules)

    def advance(
        self, character: BaseModel, request: BaseModel, rng: DiceRng, house_rules: HouseRules | None = None
    ) -> tuple[BaseModel, Sequence[Event]]:
        if not isinstance(character, BumCharacter):
            raise AdvancementError(f"not a B.U.M. character ({type(character).__name__})")
        if not isinstance(request, (AwardPoints, BuySkill, BuyStat)):
            raise AdvancementError(f"B.U.M. advances by award, skill or stat, not {type(request).__name__}")
        return advance(character, request, self.coerce_house_rules(house_rules))

    def forecast(
        self, state: BaseModel, *, method: str = "auto", samples: int = 100_000, seed: int = 0, progress: Any = None
    ) -> Forecast:
        """The odds of the whole fight from ``state``: exact where the chain applies, else simulated (see .forecast)."""
        from dataclasses import replace

        from .forecast import end_state_order, forecast

        result = forecast(state, method=method, samples=samples, seed=seed, progress=progress)  # type: ignore[arg-type]
        return replace(result, end_state_order=end_state_order(result))


SYSTEM = BumSystem()
