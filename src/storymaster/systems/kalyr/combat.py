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
from ...forecast.chance import Chance, Rolled
from ...rules.models import HouseRules
from ...rules.protocol import CombatantStatus, Event
from .character import Character, armour_value, damage_bonus, damage_reduction, weapon_damage
from .damage import contest_damage, take_wound
from .detailed import detailed_round, minimum_to_hit, standing
from .fight_state import (
    MAX_ROUNDS,
    Bout,
    Contest,
    Fighter,
    Fighting,
    FightState,
    Played,
    Tactics,
    fudge_limit,
    is_out,
    make_fighter,
)
from .options import KalyrHouseRules
from .simple import simple_round
from .tracker import fight_order, fight_tracker

__all__ = [
    "MAX_ROUNDS",
    "FightState",
    "Fighter",
    "KalyrCombat",
    "Tactics",
    "bout_of",
    "contest_of",
    "contest_round",
    "minimum_to_hit",
    "play_round",
]


def contest_of(state: FightState, *, count: bool = True) -> Contest:
    """What stays the same through the fight, read once from its state (``count``: count the rounds
    and stop at the round cap, as the engine does; the exact chain counts none)."""
    fighters = tuple(f for s in state.sides for f in s)
    side = tuple(i for i, s in enumerate(state.sides) for _ in s)
    phys = state.track == "physical"

    def damage(a: Fighter, b: Fighter) -> int:  # what a adds to the margin against b (Damage)
        weapon = weapon_damage(a.character) if phys else 0
        armour = armour_value(b.character) if phys else 0
        gift, reduction = damage_bonus(a.character), damage_reduction(b.character)
        return contest_damage(0, weapon=weapon, gift=gift, armour=armour, reduction=reduction)

    return Contest(
        state=state,
        fighters=fighters,
        side=side,
        members=(tuple(j for j, s in enumerate(side) if s == 0), tuple(j for j, s in enumerate(side) if s == 1)),
        level=tuple(f.level for f in fighters),
        approach=tuple(f.tactics.approach for f in fighters),
        flimit=tuple(fudge_limit(f) for f in fighters),
        withdraw=tuple(f.tactics.withdraw_at for f in fighters),
        dconst=tuple(
            tuple(damage(a, b) if side[i] != side[j] else 0 for j, b in enumerate(fighters))
            for i, a in enumerate(fighters)
        ),
        count=count,
        detailed=standing(state, fighters) if state.mode == "detailed" else None,
    )


def bout_of(c: Contest, state: FightState) -> Bout:
    """The part of the fight's state a round changes."""
    track = state.track
    return Bout(
        fighters=tuple(
            Fighting(f.character.damage.track(track).boxes_used(), f.character.fudge_points, f.withdrawn)
            for side in state.sides
            for f in side
        ),
        first=state.round == 0,
        reach=state.reach_penalty,
        inside=state.inside_reach,
        scope=(state.scope_penalty[0], state.scope_penalty[1]),
        over=state.over,
        winner=state.winner,
        played=state.round if c.count else 0,
    )


def contest_round(c: Contest, b: Bout, chance: Chance) -> Played:
    """One round of the contest, written once: the engine plays it with the dice, the exact forecast
    enumerates it (:func:`storymaster.forecast.chance.branches`)."""
    return (detailed_round if c.state.mode == "detailed" else simple_round)(c, b, chance)


_CONTESTS: dict[tuple[Any, ...], Contest] = {}


def _engine_contest(state: FightState) -> Contest:
    """The contest of a fight the engine steps, read once per fight: nothing a round changes goes into it,
    so a later state of the same fight (the same house rules, tactics, equipment and ability objects, the
    other damage tracks untouched) reuses it. Object identities are safe keys here: the cached contest
    holds its first state, so those objects stay alive and no new object can take their ids."""
    others = [t for t in ("physical", "mental", "social") if t != state.track]
    key: tuple[Any, ...] = (id(state.house_rules), state.mode, state.track, state.ranged, state.on_tie)
    key += (state.stakes, state.max_rounds)
    for side in state.sides:
        for f in side:
            ch = f.character
            key += (len(side), f.name, f.ability, f.level, id(f.tactics), id(ch.weapon), id(ch.armour), ch.shield)
            key += (ch.scale, id(ch.gifts), id(ch.abilities), id(ch.incompetences))
            key += tuple(id(getattr(ch.damage, t)) for t in others)
    c = _CONTESTS.get(key)
    if c is None:
        if len(_CONTESTS) >= 32:
            _CONTESTS.pop(next(iter(_CONTESTS)))
        c = _CONTESTS[key] = contest_of(state)
    return c


def play_round(state: FightState, chance: Chance) -> tuple[FightState, list[Event]]:
    """The engine's step: the round on the fight's state, the wounds marked on the characters."""
    c = _engine_contest(state)
    played = contest_round(c, bout_of(c, state), chance)
    hr, bout = state.house_rules, played.bout
    fighters = [f for side in state.sides for f in side]
    for j, severity, reduce in played.marks:
        f = fighters[j]
        character, _ = take_wound(f.character, state.track, severity, fudge_reduce=reduce, advancement=hr.advancement)
        fighters[j] = f.model_copy(update={"character": character})
    for j, now in enumerate(bout.fighters):
        if now.withdrawn and not fighters[j].withdrawn:
            fighters[j] = fighters[j].model_copy(update={"withdrawn": True})
    sides = tuple(tuple(fighters[j] for j in c.members[s]) for s in (0, 1))
    update = {"round": state.round + 1, "sides": sides, "over": bout.over, "winner": bout.winner}
    if state.mode == "detailed":
        update |= {
            "last_loser": played.loser,
            "reach_penalty": bout.reach,
            "inside_reach": bout.inside,
            "scope_penalty": bout.scope,
        }
    return state.model_copy(update=update), played.events


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
            if all(is_out(f, track) for f in members):
                raise CombatError(f"side {i + 1} is already Defeated on the {track} track and cannot fight")
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
        return play_round(state, Rolled(rng))
