"""The ``fuzzy`` rule system object: the plugin protocol's one entry point."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pydantic import BaseModel, TypeAdapter

from ...dice import DiceRng
from ...errors import AdvancementError, CharacterError, Problem
from ...forecast import Forecast
from ...rules import Check, Event, HouseRules, Outcome, OutcomeOdds
from .advancement import AdvanceRequest, advance
from .character import FuzzyCharacter, validate
from .checks import AbilityCheck, ContestCheck, KarmaRoll, Lottery, check_odds, resolve_check
from .combat import FuzzyCombat
from .options import FuzzyHouseRules

__all__ = ["SYSTEM", "FuzzySystem"]

_REQUEST = TypeAdapter(AdvanceRequest)


def _house(house_rules: HouseRules | None) -> FuzzyHouseRules:
    if house_rules is None:
        return FuzzyHouseRules()
    if not isinstance(house_rules, FuzzyHouseRules):
        raise CharacterError([Problem("house_rules", f"expected fuzzy house rules, not {type(house_rules).__name__}")])
    return house_rules


class FuzzySystem:
    """A Loose and Fuzzy Game System."""

    name = "fuzzy"
    title = "A Loose and Fuzzy Game System"
    version = "2003 (Tom deMayo, flark.org Soul Engine pages)"
    character_model = FuzzyCharacter
    house_rules_model = FuzzyHouseRules
    check_types: Mapping[str, type[Check]] = {
        "ability": AbilityCheck,
        "contest": ContestCheck,
        "karma": KarmaRoll,
        "lottery": Lottery,
    }

    def __init__(self) -> None:
        self.combat = FuzzyCombat()

    def validate_character(self, character: BaseModel, house_rules: HouseRules | None = None) -> list[Problem]:
        if not isinstance(character, FuzzyCharacter):
            return [Problem("", f"not a fuzzy character ({type(character).__name__})")]
        return validate(character, _house(house_rules))

    def resolve(self, check: Check, rng: DiceRng, house_rules: HouseRules | None = None) -> Outcome:
        return resolve_check(check, rng, _house(house_rules))

    def odds(self, check: Check, house_rules: HouseRules | None = None) -> OutcomeOdds:
        return check_odds(check, _house(house_rules))

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
        return advance(character, request, rng, _house(house_rules))  # type: ignore[arg-type]


SYSTEM = FuzzySystem()
