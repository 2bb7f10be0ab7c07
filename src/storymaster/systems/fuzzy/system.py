"""The ``fuzzy`` rule system object: the plugin protocol's one entry point."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic import BaseModel, TypeAdapter

from ...dice import DiceRng
from ...errors import AdvancementError, Problem
from ...forecast import Forecast
from ...rules import CheckEntry, Event, HouseRules, RuleSystemBase, SheetSection
from .advancement import AdvanceRequest, advance
from .character import FuzzyCharacter, validate
from .combat import FuzzyCombat
from .condition import CONDITION
from .options import FuzzyHouseRules
from .protocol import CHECK_KINDS, character_checks, sheet_sections

__all__ = ["SYSTEM", "FuzzySystem"]

_REQUEST = TypeAdapter(AdvanceRequest)


class FuzzySystem(RuleSystemBase):
    """A Loose and Fuzzy Game System."""

    name = "fuzzy"
    title = "A Loose and Fuzzy Game System"
    version = "2003 (Tom deMayo, flark.org Soul Engine pages)"
    display_name = "fuzzy"
    #: earned and changed in play (see RuleSystemBase.table_kept)
    table_kept = ("gm", "experience")
    character_model = FuzzyCharacter
    house_rules_model = FuzzyHouseRules
    check_kinds = CHECK_KINDS

    def __init__(self) -> None:
        self.combat = FuzzyCombat()
        self.condition = CONDITION

    def character_problems(self, character: FuzzyCharacter, house_rules: FuzzyHouseRules) -> list[Problem]:
        return validate(character, house_rules)

    def character_checks(self, character: FuzzyCharacter, house_rules: FuzzyHouseRules) -> list[CheckEntry]:
        return character_checks(character, house_rules)

    def sheet_sections(self, character: FuzzyCharacter, house_rules: FuzzyHouseRules) -> list[SheetSection]:
        return sheet_sections(character, house_rules)

    def forecast(
        self,
        state: BaseModel,
        *,
        method: str = "auto",
        samples: int = 100_000,
        seed: int = 0,
        progress: Callable[[int, int], None] | None = None,
    ) -> Forecast:
        """The odds of a whole fight from ``state`` (start or mid-fight): exact for duels, else simulated.

        See :mod:`storymaster.systems.fuzzy.forecast` for what is exact and what a draw means.
        """
        from dataclasses import replace

        from .forecast import STATE_NAMES, forecast

        result = forecast(state, method=method, samples=samples, seed=seed, progress=progress)  # type: ignore[arg-type]
        return replace(result, end_state_order=STATE_NAMES)

    def advance(
        self, character: BaseModel, request: BaseModel, rng: DiceRng, house_rules: HouseRules | None = None
    ) -> tuple[BaseModel, Sequence[Event]]:
        if not isinstance(character, FuzzyCharacter):
            raise AdvancementError(f"not a fuzzy character ({type(character).__name__})")
        if isinstance(request, dict):
            request = _REQUEST.validate_python(request)
        return advance(character, request, rng, self.coerce_house_rules(house_rules))  # type: ignore[arg-type]


SYSTEM = FuzzySystem()
