"""The plugin registry: a third party adds a system through an entry point, without touching the core."""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from fractions import Fraction
from importlib.metadata import EntryPoint
from typing import ClassVar

import pytest
from pydantic import Field, ValidationError

from storymaster.dice import DiceRng, roll
from storymaster.errors import PluginError, Problem
from storymaster.rules import (
    Check,
    CheckKind,
    HouseRules,
    Model,
    Outcome,
    OutcomeOdds,
    RuleSystem,
    RuleSystemBase,
    describe_house_rules,
    registry,
)


class CoinCheck(Check):
    heads_needed: int = 1

    def describe(self) -> str:
        return f"need {self.heads_needed} head(s) on one coin"


class CoinRules(HouseRules):
    weighted: bool = Field(False, description="Coins land heads more often (Coin Book, p. 1).")


class Sheet(Model):
    name: str


class CoinEngine:
    def start(self, sides, *, house_rules=None, options=None):
        return Sheet(name="fight")

    def step(self, state, rng):
        return state, []

    def is_over(self, state):
        return True

    def winner(self, state):
        return None


def flip(check, rng, house_rules):
    r = roll("d2", rng, label="coin")
    ok = r.total == 2
    return Outcome("coin", check.describe(), "heads" if ok else "tails", ok, "the coin fell", (r,))


def flip_odds(check, house_rules):
    return OutcomeOdds(
        "coin", check.describe(), {"heads": Fraction(1, 2), "tails": Fraction(1, 2)}, frozenset({"heads"})
    )


class CoinSystem(RuleSystemBase):
    name = "coin"
    title = "Coin Flipping"
    version = "1"
    character_model = Sheet
    house_rules_model = CoinRules
    check_kinds = (CheckKind("coin", CoinCheck, flip, flip_odds),)
    combat = CoinEngine()

    def character_problems(self, character, house_rules):
        return [] if character.name else [Problem("name", "a character needs a name")]

    def advance(self, character, request, rng, house_rules=None):
        return character, []


class ThinSystem:
    """A system written for the old, thin protocol: refused with what it lacks."""

    name = "thin"
    title = "Thin"
    version = "1"
    character_model = Sheet
    house_rules_model = CoinRules
    check_types: ClassVar[dict] = {"coin": CoinCheck}
    combat = CoinEngine()

    def validate_character(self, character, house_rules=None):
        return []


SYSTEM = CoinSystem()
THIN = ThinSystem()
NOT_A_SYSTEM = object()


@pytest.fixture
def fake_entry_points(monkeypatch):
    def install(*eps: EntryPoint) -> None:
        monkeypatch.setattr(registry, "entry_points", lambda group: [e for e in eps if e.group == group])
        registry._load.cache_clear()

    yield install
    registry._load.cache_clear()


def ep(name: str, value: str) -> EntryPoint:
    return EntryPoint(name=name, value=value, group=registry.SYSTEMS_GROUP)


def test_third_party_system_registers_through_an_entry_point(fake_entry_points) -> None:
    fake_entry_points(ep("coin", f"{__name__}:SYSTEM"))
    system = registry.get_system("coin")
    assert isinstance(system, RuleSystem)
    outcome = system.resolve(CoinCheck(), DiceRng("x"))
    assert outcome.result in {"heads", "tails"} and outcome.rolls[0].label == "coin"
    assert system.odds(CoinCheck()).p_success == Fraction(1, 2)


def test_broken_plugins_are_reported_not_fatal(fake_entry_points) -> None:
    fake_entry_points(
        ep("coin", f"{__name__}:SYSTEM"),
        ep("gone", "no_such_module_anywhere:SYSTEM"),
        ep("odd", f"{__name__}:NOT_A_SYSTEM"),
        ep("thin", f"{__name__}:THIN"),
    )
    assert list(registry.all_systems()) == ["coin"]
    failed = registry.load_failures()
    assert "ModuleNotFoundError" in failed["gone"]
    assert "does not satisfy the RuleSystem protocol" in failed["odd"]
    assert "missing: check_kinds, coerce_house_rules, coerce_character, sheet" in failed["thin"]
    assert "RuleSystemBase" in failed["thin"]
    with pytest.raises(PluginError, match="failed to load"):
        registry.get_system("gone")
    with pytest.raises(PluginError, match="installed systems: coin"):
        registry.get_system("nosuch")


def test_house_rules_describe_themselves() -> None:
    rows = describe_house_rules(CoinRules)
    assert rows == [
        {"name": "weighted", "default": False, "description": "Coins land heads more often (Coin Book, p. 1)."}
    ]
    with pytest.raises(ValidationError, match="unknown\n  Extra inputs are not permitted"):
        CoinRules(unknown=True)  # extra options are refused


def test_outcome_odds_must_sum_to_one() -> None:
    with pytest.raises(ValueError, match="sum to"):
        OutcomeOdds("x", "x", {"a": Fraction(1, 3)})
    with pytest.raises(ValueError, match="not outcomes"):
        OutcomeOdds("x", "x", {"a": Fraction(1)}, frozenset({"b"}))
    odds = OutcomeOdds(
        "x", "x", {"a": Fraction(1, 3), "b": Fraction(2, 3)}, frozenset({"b"}), extra={"p_win": Fraction(1, 3)}
    )
    data = odds.to_json()
    assert (
        data["p_success"] == pytest.approx(2 / 3)
        and data["exact"]["p_success"] == "2/3"
        and data["p_win"] == pytest.approx(1 / 3)
    )


def test_outcome_is_frozen_and_serialises(rng) -> None:
    r = roll("d6", rng)
    out = Outcome("x", "a check", "success", True, "because", (r,), margin=2, details={"td": Fraction(1, 2)})
    with pytest.raises(FrozenInstanceError, match="cannot assign to field 'result'"):
        out.result = "failure"  # type: ignore[misc]
    with pytest.raises(TypeError):
        out.details["td"] = 3  # type: ignore[index]
    data = out.to_json()
    assert data["details"] == {"td": 0.5} and data["rolls"][0]["total"] == r.total
