"""Fights as a pure state machine (Kalyr RPG ch. 3: Using Simple Contests for Fights, Simple Group
Contests, Damage, Detailed Contests, Specific rules for Detailed Combats).

``mode="simple"``: one opposed roll (or group roll) settles the contest; both parties can take
damage; a tie leaves it unresolved (roll again or call it a draw). ``mode="detailed"``: one-on-one
rounds with halved damage until someone is Defeated or withdraws. Every choice a fighter makes
comes from their :class:`Tactics`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from ...dice import DiceRng
from ...errors import CombatError
from ...rules.models import HouseRules
from ...rules.protocol import CombatantStatus, Event
from .character import Character
from .detailed import detailed_round, minimum_to_hit
from .fight_state import MAX_ROUNDS, Fighter, FightState, Tactics, is_out, make_fighter
from .options import KalyrHouseRules
from .simple import simple_round
from .tracker import fight_order, fight_tracker

__all__ = ["MAX_ROUNDS", "FightState", "Fighter", "KalyrCombat", "Tactics", "minimum_to_hit"]


class KalyrCombat:
    """The Kalyr fight engine (satisfies :class:`storymaster.rules.CombatEngine`)."""

    def start(
        self,
        sides: Sequence[Sequence[BaseModel]],
        *,
        house_rules: HouseRules | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> FightState:
        """A fresh fight. ``options``: mode (simple/detailed), track, ranged, on_tie (reroll/draw),
        stakes (a wound level), tactics (one mapping per side), abilities (fighter name -> the
        ability that fighter uses, over the side's tactics), max_rounds."""
        opts = dict(options or {})
        hr = house_rules if isinstance(house_rules, KalyrHouseRules) else KalyrHouseRules()
        if house_rules is not None and not isinstance(house_rules, KalyrHouseRules):
            raise CombatError("kalyr fights take KalyrHouseRules")
        if len(sides) != 2 or any(len(s) == 0 for s in sides):
            raise CombatError("a Kalyr contest has two sides, each with at least one character")
        mode = opts.get("mode", "simple")
        track = opts.get("track", "physical")
        tactics_in = opts.get("tactics") or [{}, {}]
        if len(tactics_in) != 2:
            raise CombatError("give one tactics mapping per side")
        try:
            tactics = [t if isinstance(t, Tactics) else Tactics.model_validate(t) for t in tactics_in]
        except ValidationError as exc:
            raise CombatError(f"bad tactics: {exc.errors()[0]['msg']} at {exc.errors()[0]['loc']}") from None
        if mode == "detailed" and any(len(s) != 1 for s in sides):
            raise CombatError(
                "a detailed contest is fought one-on-one",
                hint="use a simple group contest (mode 'simple') for several on a side",
            )
        chosen = opts.get("abilities") or {}
        if not isinstance(chosen, Mapping) or not all(isinstance(v, str) and v for v in chosen.values()):
            raise CombatError("option 'abilities' maps a fighter's name to the ability they fight with")
        names = {c.name for side in sides for c in side if isinstance(c, Character)}
        unknown = sorted(set(chosen) - names)
        if unknown:
            raise CombatError(
                f"abilities chosen for {', '.join(map(repr, unknown))}, who is not in the fight",
                hint=f"fighters: {', '.join(sorted(names))}",
            )
        built = []
        for i, side in enumerate(sides):
            members = []
            for c in side:
                if not isinstance(c, Character):
                    raise CombatError(f"side {i + 1}: {type(c).__name__} is not a Kalyr character")
                own = tactics[i].model_copy(update={"ability": chosen[c.name]}) if c.name in chosen else tactics[i]
                members.append(make_fighter(c, own, track, ranged=bool(opts.get("ranged", False))))
            built.append(tuple(members))
        try:
            state = FightState(
                mode=mode,
                track=track,
                ranged=bool(opts.get("ranged", False)),
                on_tie=opts.get("on_tie", "reroll"),
                stakes=opts.get("stakes"),
                sides=tuple(built),
                house_rules=hr,
                max_rounds=int(opts.get("max_rounds", MAX_ROUNDS)),
            )
        except ValidationError as exc:
            err = exc.errors()[0]
            raise CombatError(f"bad fight option {'.'.join(map(str, err['loc']))}: {err['msg']}") from None
        for i, side in enumerate(state.sides):
            if all(is_out(f, track) for f in side):
                raise CombatError(f"side {i + 1} is already Defeated on the {track} track and cannot fight")
        return state

    def is_over(self, state: BaseModel) -> bool:
        return bool(state.over)  # type: ignore[attr-defined]

    def winner(self, state: BaseModel) -> int | None:
        return state.winner  # type: ignore[attr-defined]

    # --- the GM's tracker (rules.FightTracker) ---
    def initiative_order(self, state: BaseModel) -> list[str]:
        """Always empty: both sides roll together, so a contest has no acting order."""
        if not isinstance(state, FightState):
            raise CombatError("not a Kalyr fight state")
        return fight_order(state)

    def tracker(self, state: BaseModel) -> list[CombatantStatus]:
        """Each fighter's level on the contest's track ('Hurt (physical)'), all three tracks, Defeated or withdrawn."""
        if not isinstance(state, FightState):
            raise CombatError("not a Kalyr fight state")
        return fight_tracker(state)

    def step(self, state: BaseModel, rng: DiceRng) -> tuple[FightState, list[Event]]:
        if not isinstance(state, FightState):
            raise CombatError("not a Kalyr fight state")
        if state.over:
            raise CombatError("the contest is already over")
        if state.mode == "detailed":
            return detailed_round(state, rng)
        return simple_round(state, rng)
