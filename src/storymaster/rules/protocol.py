"""The one small interface every rule system implements.

A system is an object (conventionally ``SYSTEM`` in its package) that
satisfies :class:`RuleSystem`. It registers under the entry-point group
``storymaster.systems``; a third party adds a sixth system by publishing a
package with such an entry point, without touching the core::

    [project.entry-points."storymaster.systems"]
    mysystem = "my_package:SYSTEM"

Command-line sub-apps register separately, under ``storymaster.cli``, so the
core never imports CLI code.

Everything here is pure: randomness only from the :class:`~storymaster.dice.DiceRng`
passed in, no I/O, no clock. Fights are state machines: ``start`` builds a
frozen state, ``step`` returns the next state and the events that led there,
so a fight can be replayed, saved mid-way, forecast and served.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel

from ..dice import DiceRng, RollRecord
from ..errors import Problem
from .catalogue import CheckEntry, CheckKind
from .models import Check, HouseRules
from .outcome import Outcome, OutcomeOdds
from .sheet import Sheet

__all__ = ["CombatEngine", "CombatantStatus", "Event", "FightTracker", "RuleSystem"]


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened in a fight or an advancement: the unit of every log.

    ``kind`` is a short machine name ("attack", "wound", "initiative"), ``text``
    the line a person reads, ``data`` the figures, ``rolls`` the dice behind it.
    """

    kind: str
    text: str
    round: int = 0
    actor: str = ""
    data: Mapping[str, Any] = field(default_factory=dict)
    rolls: tuple[RollRecord, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "data", MappingProxyType(dict(self.data)))
        object.__setattr__(self, "rolls", tuple(self.rolls))

    def __str__(self) -> str:
        """The line a person reads."""
        return self.text

    def to_json(self) -> dict[str, Any]:
        """The event as JSON (its data made plain, every roll record included)."""
        from .outcome import _jsonable

        return {
            "kind": self.kind,
            "text": self.text,
            "round": self.round,
            "actor": self.actor,
            "data": _jsonable(self.data),
            "rolls": [r.to_json() for r in self.rolls],
        }


@runtime_checkable
class CombatEngine(Protocol):
    """A fight as a state machine over rounds."""

    def start(
        self,
        sides: Sequence[Sequence[BaseModel]],
        *,
        house_rules: HouseRules | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> BaseModel:
        """A fresh fight state: ``sides`` is a list of teams, each a list of characters."""
        ...

    def step(self, state: BaseModel, rng: DiceRng) -> tuple[BaseModel, Sequence[Event]]:
        """Play the next round (automatic choices where none are given); return the new state and its events."""
        ...

    def is_over(self, state: BaseModel) -> bool:
        """True once the fight has ended (a side won, a draw, a stand-off or the round cap)."""
        ...

    def winner(self, state: BaseModel) -> int | None:
        """Index of the winning side (0 is side A, see :func:`~storymaster.rules.side_label`), or None
        (draw, stand-off, or not over)."""
        ...


@dataclass(frozen=True, slots=True)
class CombatantStatus:
    """One row of a GM's fight tracker: where a combatant stands, in the system's own words.

    ``position`` is the 0-based place in the acting order (None where the system has no
    order, or none yet); ``acting`` marks whose turn it is, where the system takes turns
    within a round (engines play a whole round per step, so between steps it marks who
    opens the next round); ``condition`` is the book's word for the combatant's state
    ("Light Wounds", "Hurt (physical)", "2 HP left", "dead"); ``details`` holds the
    figures behind it ("hp": "7/12"); ``out`` is True once they are down or out of the fight.
    """

    name: str
    side: int
    position: int | None = None
    acting: bool = False
    condition: str = ""
    details: Mapping[str, str | int] = field(default_factory=dict)
    out: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "details", MappingProxyType(dict(self.details)))

    def __str__(self) -> str:
        """``Brenna (side A): Light Wounds [hp 7/12]``; ``(out)`` once down."""
        from .fight import side_label

        figures = ", ".join(f"{k} {v}" for k, v in self.details.items())
        return (
            f"{self.name} (side {side_label(self.side)}){': ' + self.condition if self.condition else ''}"
            + (f" [{figures}]" if figures else "")
            + (" (out)" if self.out else "")
        )

    def to_json(self) -> dict[str, Any]:
        """The row as JSON; ``side`` is the index (0 is side A)."""
        return {
            "name": self.name,
            "side": self.side,
            "position": self.position,
            "acting": self.acting,
            "condition": self.condition,
            "details": dict(self.details),
            "out": self.out,
        }


@runtime_checkable
class FightTracker(Protocol):
    """Optional: a combat engine that can tell a table who acts when and how everyone fares.

    Not part of :class:`CombatEngine`, so engines without it stay valid; a table checks
    ``isinstance(engine, FightTracker)`` and falls back to guessing otherwise.
    """

    def initiative_order(self, state: BaseModel) -> list[str]:
        """Combatant names in acting order for the current (or next) round; empty when there is none (yet)."""
        ...

    def tracker(self, state: BaseModel) -> list[CombatantStatus]:
        """One row per combatant, in the fight's own order of combatants."""
        ...


def place_in(order: Sequence[str], name: str) -> int | None:
    """``name``'s 0-based place in ``order``, or None when it is not there."""
    try:
        return list(order).index(name)
    except ValueError:
        return None


@runtime_checkable
class RuleSystem(Protocol):
    """What every rule system provides (build one on :class:`storymaster.rules.RuleSystemBase`).

    Every method that takes input a user wrote (a character, a check, house rules) raises
    :class:`~storymaster.errors.RulesInputError` (or a subclass) when it is wrong.
    ``house_rules`` everywhere may be None (the book), the system's model, a mapping or a file path.
    """

    #: short id used on the command line and in files ("blyss")
    name: str
    #: the book's title ("BLYSS 3.5 Basic Rules")
    title: str
    #: the version of the rules implemented (the book's edition)
    version: str
    #: the pydantic model of a character sheet
    character_model: type[BaseModel]
    #: the pydantic model of the system's optional rules, every field defaulting to the book
    house_rules_model: type[HouseRules]
    #: the check catalogue: every kind of check, with its typed parameters and functions
    check_kinds: Sequence[CheckKind]
    #: the kinds of check by name (the catalogue's models)
    check_types: Mapping[str, type[Check]]
    #: the fight engine
    combat: CombatEngine

    def coerce_house_rules(self, house_rules: Any = None, *, source: str = "house rules") -> HouseRules:
        """The system's house rules from None, the model, a mapping or a file path (HouseRulesError if wrong)."""
        ...

    def coerce_character(self, character: Any, *, source: str = "character") -> BaseModel:
        """The system's character model from the model, a mapping or a file path (RulesInputError if wrong)."""
        ...

    def validate_character(self, character: BaseModel, house_rules: Any = None) -> list[Problem]:
        """Every way the character breaks the creation rules under the house rules (empty when legal)."""
        ...

    def sheet(self, character: Any, house_rules: Any = None) -> Sheet:
        """The structured sheet: sections of values, derived values, resources and condition."""
        ...

    def check_kind(self, name: str) -> CheckKind:
        """The catalogue's kind called ``name`` (CheckError naming the choices if none)."""
        ...

    def checks_for(self, character: Any, house_rules: Any = None) -> list[CheckEntry]:
        """Every check the character can make, with what the character fills in."""
        ...

    def make_check(self, what: str | CheckKind | CheckEntry, params: Mapping[str, Any] | None = None) -> Check:
        """A check from a kind or a character's entry plus parameters (CheckError naming the field if wrong)."""
        ...

    def resolve(self, check: Check, rng: DiceRng, house_rules: Any = None) -> Outcome:
        """Roll the check and explain the result."""
        ...

    def odds(self, check: Check, house_rules: Any = None) -> OutcomeOdds:
        """The exact probability of every outcome of the check."""
        ...

    def advance(
        self, character: BaseModel, request: BaseModel, rng: DiceRng, house_rules: HouseRules | None = None
    ) -> tuple[BaseModel, Sequence[Event]]:
        """Apply an advancement (experience award, purchase, level-up): the new character and what happened."""
        ...
