"""Fight forecasts: the odds of a whole fight, exact (Markov chains) or simulated (numpy), for every system.

Each system exposes ``SYSTEM.forecast(state, ...) -> Forecast`` (see
:class:`Forecaster`), choosing an exact chain where its state space allows
and a vectorised simulation where it does not.
"""

from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel

from .chance import Chance, Event, Rolled, Scripted, Table, branches
from .engine import fight_by_fight, play_out
from .markov import Absorbed, absorb
from .result import CombatantForecast, Forecast, side_label, wilson_interval
from .simulate import Batch, run_simulation


@runtime_checkable
class Forecaster(Protocol):
    """What a system offers when it can forecast a fight (an optional part of a RuleSystem)."""

    def forecast(
        self,
        state: BaseModel,
        *,
        method: str = "auto",
        samples: int = 100_000,
        seed: int = 0,
        progress: Any = None,
    ) -> Forecast:
        """The odds of the fight from ``state``: exact where the system can, else simulated.

        A simulation plays ``samples`` fights from ``seed``; ``progress(done, total)`` is told how far it got.
        """
        ...


__all__ = [
    "Absorbed",
    "Batch",
    "Chance",
    "CombatantForecast",
    "Event",
    "Forecast",
    "Forecaster",
    "Rolled",
    "Scripted",
    "Table",
    "absorb",
    "branches",
    "fight_by_fight",
    "play_out",
    "run_simulation",
    "side_label",
    "wilson_interval",
]
