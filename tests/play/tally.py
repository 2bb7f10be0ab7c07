"""A tiny rule system for the table's tests ("Tally"): the server must work with any system on the protocol.

Checks roll a d6 (+ skill + house-rule bonus) against a target; characters have
a name, a skill of 0-3 and hit points; fights trade d6 blows in initiative order.
"""

from __future__ import annotations

from fractions import Fraction

from pydantic import Field

from storymaster.dice import roll
from storymaster.errors import Problem
from storymaster.rules import (
    Check,
    CheckKind,
    CombatantStatus,
    Event,
    HouseRules,
    Model,
    Outcome,
    OutcomeOdds,
    RuleSystemBase,
)


class SkillCheck(Check):
    skill: int = Field(0, ge=0, le=3)
    target: int = Field(4, ge=1, le=12)

    def describe(self) -> str:
        return f"d6+{self.skill} vs {self.target}"


class BuggyCheck(Check):
    """A check the system has a bug in: the table must still answer with a clear 4xx."""


class TallyRules(HouseRules):
    bonus: int = Field(0, ge=0, le=3, description="Add this to every check (Tally Book, p. 2).")


class Sheet(Model):
    name: str = Field(min_length=1, max_length=50)
    skill: int = 0
    hp: int = 6


class Fighter(Model):
    name: str
    hp: int


class Fight(Model):
    sides: list[list[Fighter]]
    initiative_order: list[str]
    round: int = 0


class TallyCombat:
    def start(self, sides, *, house_rules=None, options=None):
        fighters = [[Fighter(name=c.name, hp=c.hp) for c in side] for side in sides]
        order = sorted((f.name for side in fighters for f in side), reverse=bool((options or {}).get("reverse")))
        return Fight(sides=fighters, initiative_order=order)

    def step(self, state, rng):
        sides = [list(side) for side in state.sides]
        events = []
        for i, side in enumerate(sides):
            target_side = sides[1 - i] if len(sides) == 2 else sides[(i + 1) % len(sides)]
            for j, f in enumerate(target_side):
                if f.hp <= 0:
                    continue
                r = roll("d6", rng, label="blow")
                target_side[j] = f.model_copy(update={"hp": f.hp - r.total})
                events.append(
                    Event("blow", f"{f.name} takes {r.total}", state.round + 1, side[0].name, {"damage": r.total}, (r,))
                )
                break
        return Fight(sides=sides, initiative_order=state.initiative_order, round=state.round + 1), events

    def is_over(self, state):
        return any(all(f.hp <= 0 for f in side) for side in state.sides)

    def winner(self, state):
        for i, side in enumerate(state.sides):
            if all(f.hp <= 0 for f in side):
                return 1 - i if len(state.sides) == 2 else None
        return None


class TrackedTallyCombat(TallyCombat):
    """Tally's fights with a GM's tracker (a FightTracker): the living act most hit points first, then
    by name, and the fallen last - deliberately not the state's ``initiative_order`` field, so a test
    can tell that the table asked the engine rather than guessing from the state."""

    def initiative_order(self, state):
        fighters = [f for side in state.sides for f in side]
        return [f.name for f in sorted(fighters, key=lambda f: (f.hp <= 0, -f.hp, f.name))]

    def tracker(self, state):
        order = self.initiative_order(state)
        first = next((f.name for side in state.sides for f in side if f.hp > 0 and f.name == order[0]), None)
        return [
            CombatantStatus(
                name=f.name,
                side=i,
                position=order.index(f.name),
                acting=f.name == first and not self.is_over(state),
                condition="down" if f.hp <= 0 else f"{f.hp} hp",
                details={"hp": f"{f.hp}/6"},
                out=f.hp <= 0,
            )
            for i, side in enumerate(state.sides)
            for f in side
        ]


def resolve_skill(check, rng, house_rules):
    if isinstance(check, BuggyCheck):
        raise ZeroDivisionError("division by zero")
    bonus = house_rules.bonus if house_rules else 0
    r = roll("d6", rng, label="skill")
    total = r.total + check.skill + bonus
    ok = total >= check.target
    return Outcome(
        "tally",
        check.describe(),
        "success" if ok else "failure",
        ok,
        f"{r.total}+{check.skill + bonus}={total}",
        (r,),
        margin=total - check.target,
    )


def skill_odds(check, house_rules):
    if isinstance(check, BuggyCheck):
        raise KeyError("missing table")
    bonus = house_rules.bonus if house_rules else 0
    wins = sum(1 for face in range(1, 7) if face + check.skill + bonus >= check.target)
    probs = {"success": Fraction(wins, 6), "failure": Fraction(6 - wins, 6)}
    probs = {k: v for k, v in probs.items() if v}
    return OutcomeOdds("tally", check.describe(), probs, frozenset({"success"} & probs.keys()))


class TallySystem(RuleSystemBase):
    name = "tally"
    title = "Tally: A Test System"
    version = "1"
    character_model = Sheet
    house_rules_model = TallyRules
    check_kinds = (
        CheckKind("skill", SkillCheck, resolve_skill, skill_odds, difficulty="target", example={"target": 4}),
        CheckKind("buggy", BuggyCheck, resolve_skill, skill_odds),
    )
    combat = TallyCombat()

    def character_problems(self, character, house_rules):
        if character.skill > 3:
            return [Problem("skill", "a skill is at most 3", "Tally Book, p. 1")]
        return []

    def advance(self, character, request, rng, house_rules=None):
        return character, []


SYSTEM = TallySystem()
