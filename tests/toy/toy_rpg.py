"""Toy RPG: a sixth rule system defined only in the tests, to show what a new system gets for free.

Roll ``dice`` d6; the check succeeds if any die shows ``target`` or more. A character has a name
and Might (at most ``max_might`` under the house rules). A fight: each round every fighter hits
the first standing foe for one point of Might; a fighter at 0 is down. It implements the
``RuleSystem`` protocol and nothing else: no CLI module, no web code.
"""

from __future__ import annotations

from fractions import Fraction

from pydantic import Field

from storymaster.dice import roll
from storymaster.errors import Problem
from storymaster.rules import Check, CheckKind, Event, HouseRules, Outcome, OutcomeOdds, RuleSystemBase
from storymaster.rules.models import Model


class ToyCharacter(Model):
    name: str
    might: int = Field(2, ge=0, le=20, description="hits a fighter can take")


class ToyHouseRules(HouseRules):
    max_might: int = Field(5, ge=1, description="the highest Might a new character may have")


class ToyRoll(Check):
    dice: int = Field(1, ge=1, le=6)
    target: int = Field(4, ge=1, le=6)

    def describe(self) -> str:
        return f"{self.dice}d6 for a {self.target}+"


class Fighter(Model):
    name: str
    side: int
    might: int


class ToyFight(Model):
    round: int = 0
    fighters: tuple[Fighter, ...]


class ToyCombat:
    def start(self, sides, *, house_rules=None, options=None) -> ToyFight:  # the state a saved fight is read as
        return ToyFight(
            fighters=tuple(Fighter(name=c.name, side=i, might=c.might) for i, side in enumerate(sides) for c in side)
        )

    def step(self, state, rng):
        fighters = list(state.fighters)
        events = []
        for i in range(len(fighters)):
            f = fighters[i]  # read afresh: a fighter downed earlier this round does not act
            if f.might <= 0:
                continue
            foe = next((j for j, g in enumerate(fighters) if g.side != f.side and g.might > 0), None)
            if foe is None:
                break
            fighters[foe] = fighters[foe].model_copy(update={"might": fighters[foe].might - 1})
            events.append(Event("hit", f"{f.name} hits {fighters[foe].name}", round=state.round + 1, actor=f.name))
        return ToyFight(round=state.round + 1, fighters=tuple(fighters)), events

    def _standing(self, state):
        return {f.side for f in state.fighters if f.might > 0}

    def is_over(self, state):
        return len(self._standing(state)) <= 1

    def winner(self, state):
        standing = self._standing(state)
        return next(iter(standing)) if len(standing) == 1 else None


def resolve_roll(check, rng, house_rules):
    record = roll(f"{check.dice}d6", rng)
    ok = any(face >= check.target for face in record.faces)
    result = "success" if ok else "failure"
    return Outcome("toy", check.describe(), result, ok, f"a die of {check.target} or more: {result}", (record,))


def roll_odds(check, house_rules):
    miss = Fraction(check.target - 1, 6) ** check.dice
    return OutcomeOdds("toy", check.describe(), {"success": 1 - miss, "failure": miss}, frozenset({"success"}))


class ToySystem(RuleSystemBase):
    """Built on the shared base: it supplies its parts, the base gives the rest of the protocol."""

    name = "toy"
    title = "Toy RPG"
    version = "1"
    character_model = ToyCharacter
    house_rules_model = ToyHouseRules
    check_kinds = (CheckKind("roll", ToyRoll, resolve_roll, roll_odds, difficulty="target", example={"target": 4}),)
    combat = ToyCombat()

    def character_problems(self, character, house_rules):
        if character.might > house_rules.max_might:
            return [
                Problem("might", f"Might {character.might} is over the limit of {house_rules.max_might}", "Toy rules")
            ]
        return []

    def character_checks(self, character, house_rules):
        """One check a character can make: a roll of as many dice as its Might (1 to 6)."""
        if character.might < 1:
            return []
        return [self.check_kinds[0].entry("Might", "stat", {"dice": min(character.might, 6)})]

    def advance(self, character, request, rng, house_rules=None):
        return character, []


SYSTEM = ToySystem()
