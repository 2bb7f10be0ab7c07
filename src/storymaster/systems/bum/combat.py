"""B.U.M. combat (Part Five) as a pure state machine over rounds, at any of the four levels.

* Level 1: each player-side fighter rolls his best attack total against the GM's DC.
* Level 2: opposed rolls; the loser of a roll loses the fight (or a wound: ``loser_fate``).
* Level 3: opposed rolls; the loser of each roll loses a hit point; 0 HP is out.
* Level 4: turns in order; each attack is rolled against the target's defence
  (melee or ranged); a hit deals the weapon's wounds (1, the musket 2).

The level can change between rounds (``switch_level`` or the ``switch``
option); Part Five: 'Feel free to switch between these methods during a big fight'.

The state (:mod:`.fighters`) is small on purpose; one round is :func:`.rounds.play_round`;
a forecast reads the per-exchange chances from :func:`exchange_odds` and
:func:`attack_odds` (see :mod:`.forecast`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from ...dice import DiceRng
from ...errors import CombatError
from ...rules import CombatantStatus, Event, HouseRules, side_label
from .character import BumCharacter, current_hp, profile
from .fighters import (
    UNARMED,
    Fighter,
    FightState,
    attack_odds,
    exchange_odds,
    gm_order,
    in_hand,
    melee_slot,
    missile_of,
    simple_bonus,
)
from .options import BumHouseRules
from .rounds import level_event, play_round, sides_left
from .tracker import fight_order, fight_tracker

__all__ = [
    "UNARMED",
    "BumCombat",
    "FightState",
    "Fighter",
    "apply_hazard",
    "attack_odds",
    "exchange_odds",
    "gm_order",
    "in_hand",
    "knock_down",
    "melee_slot",
    "missile_of",
    "simple_bonus",
    "switch_level",
]


def switch_level(state: FightState, level: int) -> tuple[FightState, list[Event]]:
    """Part Five: change the combat level between rounds (e.g. a quicker level for the goons)."""
    if level not in (1, 2, 3, 4):
        raise CombatError(f"there is no combat level {level}", hint="B.U.M. has levels 1, 2, 3 and 4")
    return state.model_copy(update={"level": level}), [level_event(state.round, state.level, level)]


def apply_hazard(
    state: FightState, name: str, *, wounds: int = 0, stun_rounds: int = 0, cause: str = ""
) -> tuple[FightState, list[Event]]:
    """Part Seven in a fight: wounds from a fall, fire, explosion or acid, or stun from electricity."""
    if wounds < 0 or stun_rounds < 0:
        raise CombatError("wounds and stun rounds cannot be negative")
    f = state.fighter(name)
    hp = max(0, f.hp - wounds)
    new_f = f.model_copy(update={"hp": hp, "stunned": f.stunned + stun_rounds})
    text = f"{name} suffers {cause or 'a hazard'}: {wounds} wound(s), stunned {stun_rounds} round(s); {hp} HP left."
    events = [Event("hazard", text, state.round, name, {"wounds": wounds, "stun": stun_rounds})]
    fighters = tuple(new_f if x.name == name else x for x in state.fighters)
    return state.model_copy(update={"fighters": fighters}), events


def knock_down(state: FightState, name: str, *, bow_too: bool = False) -> tuple[FightState, list[Event]]:
    """Appendix A, Partially Loaded Weapons: knocked over or thrown from a horse, a fitted crossbow bolt falls out
    (the string stays cocked); a nocked arrow is lost only if the GM says so (``bow_too``)."""
    f = state.fighter(name)
    kind = (missile_of(f) or UNARMED).reload
    new = f.readiness
    if f.readiness == "ready" and kind == "crossbow":
        new = "cocked"
    elif f.readiness == "ready" and kind == "bow" and bow_too:
        new = "unready"
    text = f"{name} is knocked over" + (
        f": his {(missile_of(f) or UNARMED).name} is no longer ready ({new})." if new != f.readiness else "."
    )
    fighters = tuple(
        x.model_copy(update={"readiness": new, "reload_progress": 0}) if x.name == name else x for x in state.fighters
    )
    return state.model_copy(update={"fighters": fighters}), [
        Event("knocked-down", text, state.round, name, {"readiness": new})
    ]


def _tactic_for(tactics: Mapping[Any, str], name: str, card_name: str, side: int) -> Any:
    """A fighter's tactic: given for him by name, else for his side (by index), else 'auto'."""
    for key in (name, card_name, side, str(side)):
        if key in tactics:
            tactic = tactics[key]
            if tactic not in ("auto", "melee", "ranged", "hold"):
                raise CombatError(f"{name}: tactic {tactic!r} is not auto, melee, ranged or hold")
            return tactic
    return "auto"


class BumCombat:
    """The B.U.M. fight engine (satisfies :class:`storymaster.rules.CombatEngine`)."""

    def start(
        self,
        sides: Sequence[Sequence[BaseModel]],
        *,
        house_rules: HouseRules | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> FightState:
        """Options: level (1-4, default 4), distance (turns), initiative ('gm'|'dex'|'int'), initiator (side),
        dc (level 1), order (names), delay ({name: after}), switch ({round: level}),
        tactics ({name or side index: auto|melee|ranged|hold}),
        targets ({name: target}), surprised (names caught unaware in round 1), sneak_dc, sneak_headshot, max_rounds."""
        opts = dict(options or {})
        hr = house_rules if house_rules is not None else BumHouseRules()
        if not isinstance(hr, BumHouseRules):
            raise CombatError("B.U.M. fights take B.U.M. house rules")
        if len([s for s in sides if s]) < 2:
            raise CombatError("a fight needs at least two sides with someone on them")
        level = int(opts.pop("level", 4))
        if level not in (1, 2, 3, 4):
            raise CombatError(f"there is no combat level {level}", hint="B.U.M. has levels 1, 2, 3 and 4")
        tactics: Mapping[str, str] = opts.pop("tactics", {}) or {}
        targets: Mapping[str, str] = opts.pop("targets", {}) or {}
        fighters: list[Fighter] = []
        seen: dict[str, int] = {}
        for side_no, side in enumerate(sides):
            for c in side:
                if not isinstance(c, BumCharacter):
                    raise CombatError(f"side {side_no + 1} has a {type(c).__name__}, not a B.U.M. character")
                seen[c.name] = seen.get(c.name, 0) + 1
                name = c.name if seen[c.name] == 1 else f"{c.name} {seen[c.name]}"
                ranged = c.weapons.ranged
                missile = profile(c, "ranged")
                # a bow or crossbow ready to shoot is in his hands (Appendix A, Partially Loaded Weapons)
                holding = (
                    ranged is not None
                    and missile is not None
                    and ranged.readiness == "ready"
                    and missile.reload in ("bow", "crossbow")
                )
                fighters.append(
                    Fighter(
                        name=name,
                        side=side_no,
                        character=c,
                        hp=current_hp(c),
                        wielding="ranged" if holding else None,
                        readiness=ranged.readiness if ranged else "ready",
                        ammo=ranged.ammo if ranged else None,
                        tactic=_tactic_for(tactics, name, c.name, side_no),
                        target=targets.get(name, targets.get(c.name)),
                    )
                )
        names = {f.name for f in fighters}
        distance = int(opts.pop("distance", 0))
        if distance < 0:
            raise CombatError(f"distance {distance} is negative", hint="give the distance in turns: 0 for melee reach")
        order = tuple(opts.pop("order", ()) or ())
        if order and sorted(order) != sorted(names):
            raise CombatError(f"the turn order {list(order)} must name every fighter once: {sorted(names)}")
        delay = tuple((str(k), str(v)) for k, v in (opts.pop("delay", {}) or {}).items())
        for who, after in delay:
            if who not in names or after not in names:
                raise CombatError(f"delay {who!r} after {after!r}: both must be fighters in this fight")
        switch = tuple(sorted((int(k), int(v)) for k, v in (opts.pop("switch", {}) or {}).items()))
        for rnd, lvl in switch:
            if lvl not in (1, 2, 3, 4) or rnd < 1:
                raise CombatError(
                    f"cannot switch to level {lvl} at round {rnd}", hint="rounds count from 1; levels are 1-4"
                )
        initiative = opts.pop("initiative", "gm")
        if initiative not in ("gm", "dex", "int"):
            raise CombatError(f"initiative {initiative!r} is not gm, dex or int")
        initiator = int(opts.pop("initiator", 0))
        dc = int(opts.pop("dc", 6))
        if dc < 1:
            raise CombatError(f"a difficulty of {dc} is not possible", hint="the GM picks a DC from 1 up (standard 6)")
        max_rounds = int(opts.pop("max_rounds", 100))
        surprised = tuple(str(n) for n in (opts.pop("surprised", ()) or ()))
        for n in surprised:
            if n not in names:
                raise CombatError(f"surprised fighter {n!r} is not in this fight")
        sneak_dc = int(opts.pop("sneak_dc", 6))
        opts_headshot = opts.pop("sneak_headshot", False)
        if sneak_dc < 1:
            raise CombatError(f"a sneak-attack difficulty of {sneak_dc} is not possible")
        if opts:
            raise CombatError(f"unknown fight option(s): {', '.join(sorted(opts))}")
        return FightState(
            level=level,
            distance=distance,
            order=order,
            fighters=tuple(fighters),
            initiative=initiative,
            initiator=initiator,
            dc=dc,
            delay=delay,
            switch=switch,
            max_rounds=max_rounds,
            house_rules=hr,
            surprised=surprised,
            sneak_dc=sneak_dc,
            sneak_headshot=bool(opts_headshot),
        )

    def step(self, state: BaseModel, rng: DiceRng) -> tuple[FightState, list[Event]]:
        """Play one round at the current level; return the new state and what happened."""
        if not isinstance(state, FightState):
            raise CombatError("not a B.U.M. fight state")
        if self.is_over(state):
            raise CombatError("the fight is over", hint="start a new fight")
        new, events = play_round(state, rng, [])  # a level switch due now is part of the round
        if len(sides_left(new.fighters)) < 2:
            new = new.model_copy(update={"ended": True})
            w = self.winner(new)
            names = " and ".join(f.name for f in new.fighters if f.side == w and f.standing)
            text = (
                f"{names} (side {side_label(w)}) win{'s' if ' and ' not in names else ''} the fight."
                if w is not None
                else "Nobody is left standing."
            )
            events.append(Event("end", text, new.round, data={"winner": w}))
        elif new.round >= new.max_rounds:
            new = new.model_copy(update={"ended": True})
            events.append(
                Event("end", f"After {new.round} rounds the fight is a stand-off.", new.round, data={"winner": None})
            )
        return new, events

    def is_over(self, state: BaseModel) -> bool:
        assert isinstance(state, FightState)
        return state.ended or len(sides_left(state.fighters)) < 2

    def winner(self, state: BaseModel) -> int | None:
        assert isinstance(state, FightState)
        left = sides_left(state.fighters)
        if len(left) == 1 and self.is_over(state):
            return next(iter(left))
        return None

    # --- the GM's tracker (rules.FightTracker) ---
    def initiative_order(self, state: BaseModel) -> list[str]:
        """Fighter names in turn order (Part Five, Turn Sequence); empty before a DEX/INT roll."""
        if not isinstance(state, FightState):
            raise CombatError("not a B.U.M. fight state")
        return fight_order(state)

    def tracker(self, state: BaseModel) -> list[CombatantStatus]:
        """Each fighter's turn, hit points left and whether he is down."""
        if not isinstance(state, FightState):
            raise CombatError("not a B.U.M. fight state")
        return fight_tracker(state, self.is_over(state))

    def run(self, state: FightState, rng: DiceRng) -> tuple[FightState, list[Event]]:
        """Step until the fight is over; all the events in order."""
        events: list[Event] = []
        while not self.is_over(state):
            state, evs = self.step(state, rng)
            events += evs
        return state, events
