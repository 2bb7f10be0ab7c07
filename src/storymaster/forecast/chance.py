"""One round, written once: the engine runs it with dice, the exact chain enumerates it (issue 14).

A system writes its round as a plain function of the fight's state and a :class:`Chance`. Everything
random the round needs is an :class:`Event`, asked of the chance with :meth:`Chance.draw`:

* the engine plays the round with :class:`Rolled`, which rolls the real dice (``Event.sample``), so a
  fight at a given seed draws the same faces in the same order as it always did and the log can show them;
* the exact chain calls :func:`branches`, which runs the same function once per branch of its draws,
  handing each draw one of the event's distinct outcomes (``Event.outcomes``) and multiplying their
  probabilities, then merges equal results. Nothing of the rules is stated twice: the chain is
  ``absorb(start, lambda s: branches(lambda ch: round(s, ch)), is_terminal)``.

This is the way icepool states a transition once and lets its engine compute the distribution; the
difference is that a round here may decide what to roll next from what it rolled before (only a hit rolls
damage), so :func:`branches` explores the round as a tree, replaying the earlier draws of a branch to reach
the next one. An event should be as coarse as the round allows: if the round only needs "how many
successes", its outcomes are the pmf of the named rule that counts them, not every face of every die.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar, runtime_checkable

from ..dice import DiceRng
from ..errors import OddsError

__all__ = ["BRANCH_LIMIT", "Chance", "Event", "Rolled", "Scripted", "Table", "branches"]

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
R = TypeVar("R", bound=Hashable)

#: leaves one call of :func:`branches` may run before the round is refused as too big to enumerate
BRANCH_LIMIT = 1_000_000


@runtime_checkable
class Event(Protocol[T_co]):
    """Something random a round needs: rolled for real by the engine, enumerated by the chain."""

    def sample(self, rng: DiceRng) -> T_co:
        """Roll the real dice; the value may carry the faces for the log."""
        ...

    def outcomes(self) -> Sequence[tuple[float, T_co]]:
        """Every outcome the round can tell apart, with its exact probability (each above 0, summing to 1)."""
        ...


@dataclass(frozen=True, slots=True)
class Table(Generic[T]):
    """An event given by its distribution and a way to roll it.

    ``pmf`` is ``((probability, value), ...)``; ``roll(rng)`` rolls the real dice and must give one of
    the values (or a value the round treats as one of them).
    """

    pmf: tuple[tuple[float, T], ...]
    roll: Callable[[DiceRng], T]

    def sample(self, rng: DiceRng) -> T:
        """Roll the real dice with ``roll``."""
        return self.roll(rng)

    def outcomes(self) -> Sequence[tuple[float, T]]:
        """The distribution as given."""
        return self.pmf


class Chance(Protocol):
    """Where a round gets what is random. ``narrate`` says whether anyone will read the log."""

    narrate: bool

    def draw(self, event: Event[T]) -> T:
        """The outcome of ``event`` on this branch (or this roll of the dice)."""
        ...


class Rolled:
    """The engine's chance: every event is rolled with the fight's dice generator."""

    __slots__ = ("narrate", "rng")

    def __init__(self, rng: DiceRng, *, narrate: bool = True) -> None:
        self.rng = rng
        self.narrate = narrate

    def draw(self, event: Event[T]) -> T:
        """Roll ``event`` with the fight's generator."""
        return event.sample(self.rng)


class Scripted:
    """A chance for tests: hands out the given values, in order, whatever the event."""

    __slots__ = ("narrate", "values")

    def __init__(self, values: Iterable[object], *, narrate: bool = True) -> None:
        self.values = list(values)
        self.narrate = narrate

    def draw(self, event: Event[T]) -> T:
        """The next value of the script (an AssertionError when it has run out)."""
        if not self.values:
            raise AssertionError(f"the round drew more than the script holds (next event: {event!r})")
        return self.values.pop(0)  # type: ignore[return-value]


class _Branch:
    """One walk down the tree of a round's draws: follow ``path``, then take the first outcome."""

    __slots__ = ("depth", "narrate", "path", "probability", "widths")

    def __init__(self, path: list[int]) -> None:
        self.path = path
        self.widths: list[int] = []
        self.depth = 0
        self.probability = 1.0
        self.narrate = False

    def draw(self, event: Event[T]) -> T:
        outcomes = event.outcomes()
        if not outcomes:
            raise ValueError(f"{event!r} has no outcomes")
        d = self.depth
        if d == len(self.path):
            self.path.append(0)
        index = self.path[d]
        self.widths.append(len(outcomes))
        self.depth = d + 1
        p, value = outcomes[index]
        self.probability *= p
        return value


def branches(play: Callable[[Chance], R], *, limit: int = BRANCH_LIMIT) -> list[tuple[float, R]]:
    """Every result of ``play`` with its probability: one run per branch of its draws, equal results merged.

    ``play`` must draw the same events in the same order when given the same outcomes (a round is a
    function of the state and the dice). Results are merged in the order first seen. Raises
    :class:`~storymaster.errors.OddsError` past ``limit`` branches.
    """
    merged: dict[R, float] = {}
    path: list[int] = []
    leaves = 0
    while True:
        branch = _Branch(path)
        result = play(branch)
        leaves += 1
        if leaves > limit:
            raise OddsError(
                f"one round has more than {limit} chance branches: too big to enumerate exactly",
                hint="forecast it by simulation instead",
            )
        if branch.probability > 0:
            merged[result] = merged.get(result, 0.0) + branch.probability
        # the next branch: the deepest draw that has an outcome left moves on, the draws below it restart
        del path[branch.depth :]
        widths = branch.widths
        while path and path[-1] + 1 >= widths[len(path) - 1]:
            path.pop()
        if not path:
            return [(p, r) for r, p in merged.items()]
        path[-1] += 1
