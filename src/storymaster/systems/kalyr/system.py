"""The Kalyr rule system object: the foundation's :class:`~storymaster.rules.RuleSystem` protocol."""

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
from .advancement import advance as _advance
from .character import Character
from .combat import KalyrCombat
from .condition import CONDITION
from .options import KalyrHouseRules
from .protocol import CHECK_KINDS, character_checks, character_problems, sheet_sections

__all__ = ["SYSTEM", "KalyrSystem"]


class KalyrSystem(RuleSystemBase):
    name = "kalyr"
    title = "The Kalyr RPG, Chapter 3: Playing the Game"
    version = "ch3"
    display_name = "Kalyr"
    #: earned and changed in play (see RuleSystemBase.table_kept)
    table_kept = ("experience", "levels_gained", "keys_due", "raised_this_scene", "damage")
    character_model = Character
    house_rules_model = KalyrHouseRules
    check_kinds = CHECK_KINDS
    combat = KalyrCombat()
    condition = CONDITION
    #: ch. 3, Posts and Threads: after a deadline "the GM will assume actions for the PC who's player
    #: hasn't responded": the table's turn-based scenes default to the GM acting (play.scene.deadline_default)
    on_deadline_default = "gm_acts"

    def character_problems(self, character: Character, house_rules: KalyrHouseRules) -> list[Problem]:
        return character_problems(character, house_rules)

    def character_checks(self, character: Character, house_rules: KalyrHouseRules) -> list[CheckEntry]:
        return character_checks(character, house_rules)

    def sheet_sections(self, character: Character, house_rules: KalyrHouseRules) -> list[SheetSection]:
        return sheet_sections(character, house_rules)

    def advance(
        self, character: BaseModel, request: BaseModel, rng: DiceRng, house_rules: HouseRules | None = None
    ) -> tuple[BaseModel, Sequence[Event]]:
        """Kalyr advancement uses no dice; ``rng`` is accepted for the protocol."""
        if not isinstance(character, Character):
            raise AdvancementError(f"not a Kalyr character: {type(character).__name__}")
        return _advance(character, request, self.coerce_house_rules(house_rules))

    def forecast(
        self, state: BaseModel, *, method: str = "auto", samples: int = 100_000, seed: int = 0, progress: Any = None
    ) -> Forecast:
        """The odds of a whole contest from any fight state: exact (Markov chain) or simulated (see .forecast)."""
        from dataclasses import replace

        from .forecast import END_STATES, forecast

        result = forecast(state, method=method, samples=samples, seed=seed, progress=progress)  # type: ignore[arg-type]
        return replace(result, end_state_order=END_STATES)


SYSTEM = KalyrSystem()
