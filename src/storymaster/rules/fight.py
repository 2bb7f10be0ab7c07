"""A fight you can hold in one hand: a system's combat engine, its state, and what has happened so far.

:class:`Fight` wraps any system's :class:`~storymaster.rules.CombatEngine` (the protocol's
``start``/``step``/``is_over``/``winner``) in one immutable object that prints readably,
names its sides the one way Storymaster names sides, and forecasts itself::

    fight = Fight.start(system, [a], [b])          # side A, side B
    fight = fight.run(DiceRng(7))                  # every round to the end
    fight.winner, fight.winner_side                # 0, "A"
    fight.forecast()                               # the odds from where it stands

**Naming sides** (one naming across fights, forecasts, the CLI and the web): in Python a
side is its 0-based index, in the order the sides were given (``CombatEngine.winner``,
``Forecast.p_win[i]``, ``CombatantStatus.side``, ``CombatantForecast.side``); wherever a
person or a JSON document reads it, the side is named by its letter, :func:`side_label`:
A, B, C ... ("side A wins"). The fight JSON of the CLI and the table's log keep the index
under ``winner`` (scripts and stored logs read it) and add the letter as ``winner_side``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from ..dice import DiceRng
from ..errors import RulesError
from .protocol import CombatantStatus, Event, FightTracker, RuleSystem

__all__ = ["Fight", "side_label"]


def side_label(index: int) -> str:
    """The name of side ``index`` (0-based, in the order given): ``"A"``, ``"B"``, ... ``"Z"``, then ``"S26"`` ...

    >>> side_label(0), side_label(1)
    ('A', 'B')
    """
    return chr(ord("A") + index) if 0 <= index < 26 else f"S{index}"


def _members(side: Any) -> list[Any]:
    if isinstance(side, (list, tuple)) and not hasattr(side, "character"):
        return list(side)
    return [side]


def _model(system: RuleSystem, who: Any) -> BaseModel:
    character = getattr(who, "character", who)  # a LoadedCharacter gives its character
    return system.coerce_character(character)


@dataclass(frozen=True)
class Fight:
    """A fight in progress (or over): the system, the engine's state and every event so far.

    Make one with :meth:`start`; :meth:`step` plays a round and :meth:`run` plays on to the
    end (or for a number of rounds), each returning a new :class:`Fight` (a fight is a value:
    keep the old one to replay from it). ``winner`` is the winning side's index, or None
    (not over, a draw or a stand-off); ``winner_side`` its letter.
    """

    system: RuleSystem = field(repr=False)
    state: BaseModel = field(repr=False)
    names: tuple[tuple[str, ...], ...] = ()
    rounds: int = 0
    events: tuple[Event, ...] = field(default=(), repr=False)
    #: the events of the last :meth:`step` or :meth:`run` only
    last: tuple[Event, ...] = field(default=(), repr=False)

    @classmethod
    def start(
        cls,
        system: RuleSystem,
        *sides: Any,
        house_rules: Any = None,
        options: Mapping[str, Any] | None = None,
    ) -> Fight:
        """Line up the sides and start the fight (nobody has acted yet).

        Each side is a character or a list of characters; a character may be the system's
        model, a mapping, a file path or a :class:`~storymaster.LoadedCharacter`. The first
        side is side A, the second side B. ``options`` are the engine's own (Kalyr's
        ``mode``, B.U.M.'s ``distance`` ...). The engine refuses an illegal character with a
        :class:`~storymaster.errors.CharacterError`.
        """
        if len(sides) < 2:
            raise RulesError("a fight needs at least two sides", hint="Fight.start(system, [a], [b])")
        teams = [[_model(system, who) for who in _members(side)] for side in sides]
        if any(not team for team in teams):
            raise RulesError("each side of a fight needs at least one character")
        hr = system.coerce_house_rules(house_rules)
        state = system.combat.start(teams, house_rules=hr, options=dict(options or {}))
        names = tuple(
            tuple(str(getattr(c, "name", "") or f"{side_label(i)}{j + 1}") for j, c in enumerate(t))
            for i, t in enumerate(teams)
        )
        return cls(system, state, names)

    # ------------------------------------------------------------------ where it stands

    @property
    def over(self) -> bool:
        """True once the engine says the fight has ended."""
        return bool(self.system.combat.is_over(self.state))

    @property
    def winner(self) -> int | None:
        """The winning side's index (0 is side A), or None: not over, a draw or a stand-off."""
        return self.system.combat.winner(self.state)

    @property
    def winner_side(self) -> str | None:
        """The winning side's letter ("A", "B" ...), or None."""
        w = self.winner
        return None if w is None else side_label(w)

    def result(self) -> str:
        """One line a person reads: who won, or that the fight goes on."""
        if not self.over:
            return "still going"
        w = self.winner
        if w is None:
            return "over: no winner"
        return f"side {side_label(w)} wins ({', '.join(self.names[w])})"

    def tracker(self) -> list[CombatantStatus]:
        """One row per combatant in the system's own words (empty when its engine keeps no tracker)."""
        engine = self.system.combat
        return list(engine.tracker(self.state)) if isinstance(engine, FightTracker) else []

    # ------------------------------------------------------------------ playing it

    def step(self, rng: DiceRng) -> Fight:
        """Play the next round with the engine's automatic choices; the fight after it."""
        if self.over:
            raise RulesError("the fight is over", hint="start a new one with Fight.start")
        state, events = self.system.combat.step(self.state, rng)
        new = tuple(events)
        return Fight(self.system, state, self.names, self.rounds + 1, self.events + new, new)

    def run(self, rng: DiceRng, *, rounds: int | None = None, max_rounds: int = 1_000) -> Fight:
        """Play ``rounds`` rounds, or on to the end (at most ``max_rounds``); the fight after them."""
        fight, played = self, 0
        new: list[Event] = []
        limit = max_rounds if rounds is None else min(rounds, max_rounds)
        while not fight.over and played < limit:
            fight = fight.step(rng)
            new += fight.last
            played += 1
        return Fight(fight.system, fight.state, fight.names, fight.rounds, fight.events, tuple(new))

    def forecast(self, *, method: str = "auto", samples: int | None = None, seed: int = 0, progress: Any = None) -> Any:
        """The odds of the fight from where it stands (a :class:`~storymaster.forecast.Forecast`).

        ``method`` is "auto" (exact where the system can, else simulated), "exact" or
        "simulate"; a simulation plays ``samples`` fights from ``seed`` (None: the system's
        default -- BLYSS simulates until its intervals are within ±1%, the others 100,000).
        """
        forecast = getattr(self.system, "forecast", None)
        if forecast is None:
            raise RulesError(f"{self.system.name} cannot forecast fights")
        sized = {} if samples is None else {"samples": samples}
        return forecast(self.state, method=method, seed=seed, progress=progress, **sized)

    # ------------------------------------------------------------------ reading it

    def to_json(self) -> dict[str, Any]:
        """The fight as JSON: sides by letter, the winner's index and letter, the rows and events."""
        return {
            "system": self.system.name,
            "sides": {side_label(i): list(n) for i, n in enumerate(self.names)},
            "rounds": self.rounds,
            "over": self.over,
            "winner": self.winner,
            "winner_side": self.winner_side,
            "result": self.result(),
            "tracker": [r.to_json() for r in self.tracker()],
            "events": [e.to_json() for e in self.events],
        }

    def __repr__(self) -> str:
        sides = " vs ".join(f"{side_label(i)}: {', '.join(n)}" for i, n in enumerate(self.names))
        return f"<Fight {self.system.name} round {self.rounds}, {sides}; {self.result()}>"

    def __str__(self) -> str:
        word = getattr(self.system, "display_name", "") or self.system.name
        lines = [f"{word} fight, round {self.rounds}: {self.result()}"]
        rows = self.tracker()
        if rows:
            for r in rows:
                lines.append(f"  {r}")
        else:
            for i, n in enumerate(self.names):
                lines.append(f"  side {side_label(i)}: {', '.join(n)}")
        return "\n".join(lines)


def side_names(names: Sequence[Sequence[str]]) -> dict[str, list[str]]:
    """Sides as JSON: ``{"A": [...], "B": [...]}``."""
    return {side_label(i): list(n) for i, n in enumerate(names)}
