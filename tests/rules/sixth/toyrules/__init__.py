"""Toy Dice: a sixth rule system from "another package", for the protocol's tests.

It lives outside ``storymaster`` and reaches the core only through the public protocol
(``storymaster.rules``); it registers through the ``storymaster.systems`` entry point of a
tiny installed distribution the test builds (``toyrules-1.0.dist-info``). A character has
Might and Wits (1..6) and hit points; a *roll* is d6 + stat against a target; a *duel* is
d6 + stat against an opponent's d6 + bonus (ties to the defender). Fights: both sides roll a
duel each round; the loser loses a hit point.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from itertools import product
from typing import Any, Literal

from pydantic import Field

from storymaster.dice import DiceRng, roll
from storymaster.errors import Problem
from storymaster.rules import (
    Check,
    CheckEntry,
    CheckKind,
    Event,
    HouseRules,
    Model,
    Outcome,
    OutcomeOdds,
    RuleSystemBase,
    SheetSection,
    section,
    value,
)

STATS = ("might", "wits")


class ToyCharacter(Model):
    """A Toy Dice character."""

    name: str = Field(min_length=1, max_length=80)
    might: int = Field(3, ge=1, le=6)
    wits: int = Field(3, ge=1, le=6)
    hp: int = Field(5, ge=0, le=20)
    wounds: int = Field(0, ge=0, le=20)


class ToyRules(HouseRules):
    points: int = Field(7, ge=2, le=12, description="Might + Wits at creation (Toy Dice, p. 1).")
    ties_to_attacker: bool = Field(False, description="A duel's tie goes to the attacker (p. 2).")


class ToyRoll(Check):
    """d6 + bonus must reach the target."""

    bonus: int = Field(ge=-10, le=10)
    target: int = Field(ge=1, le=30)
    label: str = ""

    def describe(self) -> str:
        return self.label or f"d6{self.bonus:+d} vs {self.target}"


class ToyDuel(Check):
    """d6 + bonus against the opponent's d6 + vs."""

    bonus: int = Field(ge=-10, le=10)
    vs: int = Field(ge=-10, le=10)
    label: str = ""

    def describe(self) -> str:
        return self.label or f"d6{self.bonus:+d} vs d6{self.vs:+d}"


def roll_odds(check: ToyRoll, hr: ToyRules) -> OutcomeOdds:
    hit = sum(1 for f in range(1, 7) if f + check.bonus >= check.target)
    probs = {"success": Fraction(hit, 6), "failure": Fraction(6 - hit, 6)}
    return OutcomeOdds(
        "toy",
        check.describe(),
        {k: v for k, v in probs.items() if v},
        frozenset({"success"} & {k for k, v in probs.items() if v}),
    )


def resolve_roll(check: ToyRoll, rng: DiceRng, hr: ToyRules) -> Outcome:
    r = roll("1d6", rng, label=check.label or "roll")
    ok = r.total + check.bonus >= check.target
    return Outcome(
        "toy",
        check.describe(),
        "success" if ok else "failure",
        ok,
        f"{r.total}{check.bonus:+d} against {check.target}",
        (r,),
    )


def _duel_wins(a: int, b: int, hr: ToyRules) -> bool:
    return a > b or (a == b and hr.ties_to_attacker)


def duel_odds(check: ToyDuel, hr: ToyRules) -> OutcomeOdds:
    wins = sum(1 for x, y in product(range(1, 7), repeat=2) if _duel_wins(x + check.bonus, y + check.vs, hr))
    probs = {"win": Fraction(wins, 36), "lose": Fraction(36 - wins, 36)}
    probs = {k: v for k, v in probs.items() if v}
    return OutcomeOdds("toy", check.describe(), probs, frozenset({"win"} & set(probs)))


def resolve_duel(check: ToyDuel, rng: DiceRng, hr: ToyRules) -> Outcome:
    a, b = roll("1d6", rng, label="you"), roll("1d6", rng, label="them")
    ok = _duel_wins(a.total + check.bonus, b.total + check.vs, hr)
    return Outcome(
        "toy",
        check.describe(),
        "win" if ok else "lose",
        ok,
        f"{a.total + check.bonus} against {b.total + check.vs}",
        (a, b),
    )


class ToyFight(Model):
    names: tuple[str, ...]
    sides: tuple[int, ...]
    might: tuple[int, ...]
    hp: tuple[int, ...]
    round: int = 0


class ToyCombat:
    def start(
        self, sides: Sequence[Sequence[Any]], *, house_rules: Any = None, options: Mapping[str, Any] | None = None
    ) -> ToyFight:
        fighters = [(i, c) for i, team in enumerate(sides) for c in team]
        return ToyFight(
            names=tuple(c.name for _, c in fighters),
            sides=tuple(i for i, _ in fighters),
            might=tuple(c.might for _, c in fighters),
            hp=tuple(c.hp - c.wounds for _, c in fighters),
        )

    def step(self, state: ToyFight, rng: DiceRng) -> tuple[ToyFight, list[Event]]:
        alive = [i for i, h in enumerate(state.hp) if h > 0]
        a = next(i for i in alive if state.sides[i] == 0)
        b = next(i for i in alive if state.sides[i] == 1)
        ra, rb = roll("1d6", rng, label=state.names[a]), roll("1d6", rng, label=state.names[b])
        loser = b if ra.total + state.might[a] > rb.total + state.might[b] else a
        hp = list(state.hp)
        hp[loser] -= 1
        new = state.model_copy(update={"hp": tuple(hp), "round": state.round + 1})
        return new, [
            Event("hit", f"{state.names[loser]} loses a hit point", new.round, state.names[loser], rolls=(ra, rb))
        ]

    def _standing(self, state: ToyFight) -> set[int]:
        return {state.sides[i] for i, h in enumerate(state.hp) if h > 0}

    def is_over(self, state: ToyFight) -> bool:
        return len(self._standing(state)) < 2

    def winner(self, state: ToyFight) -> int | None:
        s = self._standing(state)
        return next(iter(s)) if len(s) == 1 else None


KINDS = (
    CheckKind("roll", ToyRoll, resolve_roll, roll_odds, title="Roll", difficulty="target", example={"target": 5}),
    CheckKind(
        "duel", ToyDuel, resolve_duel, duel_odds, title="Duel", opponent="vs", example={"vs": 2}, group="contest"
    ),
)


class ToySystem(RuleSystemBase):
    name = "toy"
    title = "Toy Dice"
    version = "1"
    display_name = "Toy Dice"
    character_model = ToyCharacter
    house_rules_model = ToyRules
    check_kinds = KINDS
    combat = ToyCombat()

    def character_problems(self, c: ToyCharacter, hr: ToyRules) -> list[Problem]:
        spent = c.might + c.wits
        if spent != hr.points:
            return [Problem("might", f"Might + Wits is {spent}, not {hr.points}", "Toy Dice p. 1")]
        return []

    def character_checks(self, c: ToyCharacter, hr: ToyRules) -> list[CheckEntry]:
        out = []
        for stat in STATS:
            v = getattr(c, stat)
            out.append(
                KINDS[0].entry(
                    stat.capitalize(),
                    "stat",
                    {"bonus": v, "label": f"{stat.capitalize()} roll"},
                    label=f"{stat.capitalize()} roll",
                )
            )
            out.append(KINDS[1].entry(stat.capitalize(), "stat", {"bonus": v}, label=f"{stat.capitalize()} duel"))
        return out

    def sheet_sections(self, c: ToyCharacter, hr: ToyRules) -> list[SheetSection]:
        return [
            section(
                "stats", "Stats", "stats", [value("Might", c.might, key="might"), value("Wits", c.wits, key="wits")]
            ),
            section("hp", "Health", "condition", [value("Toy hit points", c.hp - c.wounds, key="hp", maximum=c.hp)]),
        ]

    def advance(self, character: Any, request: Any, rng: DiceRng, house_rules: Any = None) -> tuple[Any, list[Event]]:
        return character, []


SYSTEM = ToySystem()
KIND: Literal["toy"] = "toy"
