"""The Philsys fight engine: a pure state machine over rounds.

``start`` rolls nothing; the first ``step`` rolls initiative (once, at the beginning of combat),
then every ``step`` plays one round: each conscious fighter, in initiative order, takes a turn
with automatic choices (tactics per fighter or side). Randomness only from the ``DiceRng`` passed in.
The round itself is :func:`.round.play_round`, played here with the dice (``Rolled``); the exact
forecast enumerates the same function.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from ...dice import DiceRng
from ...errors import CombatError
from ...forecast.chance import Rolled
from ...rules.models import Model
from ...rules.protocol import CombatantStatus, Event
from . import damage as dmg
from .character import Character, at_pa, hp_max, initiative_bonus, mp_max, tp_max, weapon_skill
from .options import PhilsysHouseRules
from .round import Body, Bout, Setup, best_attack, heal_threshold, modified_at_pa, play_round, roll_initiative, spec
from .tracker import fight_order, fight_tracker

__all__ = [
    "FightOptions",
    "FightState",
    "Fighter",
    "PhilsysCombat",
    "best_attack",
    "body",
    "heal_threshold",
    "roll_initiative",
    "setup",
]

Tactic = Literal["auto", "melee", "missile", "magic"]


class FightOptions(Model):
    """Automatic choices: tactics and attack type per fighter name (or 'side0', 'side1', ...), range, aim."""

    tactics: dict[str, Tactic] = Field(default_factory=dict)
    attack: dict[str, str] = Field(
        default_factory=dict, description="thrust/slash/chop, light/medium/heavy, punch/kick"
    )
    aim: dict[str, Literal["limb", "abdomen", "torso", "head"]] = Field(default_factory=dict)
    distance: Literal["medium", "long"] = "medium"


class Fighter(Model):
    """One combatant's running state."""

    name: str
    side: int
    character: Character
    hp: int
    mp: int
    tp: int
    initiative: int = 0
    init_mod: int = 0
    parried: bool = False
    lose_turn: bool = False
    unconscious: bool = False
    dead: bool = False
    wake_in: int | None = None
    heavy_wound: bool = False
    disabled_limbs: int = 0
    shield_broken: bool = False

    @property
    def active(self) -> bool:
        return not (self.unconscious or self.dead)


class FightState(Model):
    fighters: tuple[Fighter, ...]
    order: tuple[int, ...] = ()
    round: int = 0
    house_rules: PhilsysHouseRules = PhilsysHouseRules()
    options: FightOptions = FightOptions()
    over: bool = False
    winner: int | None = None


# --- the setup of a fight: what the round (.round) needs -------------------------------------


def _at_pa(f: Fighter, hr: PhilsysHouseRules) -> tuple[int, int]:
    """A fighter's AT/PA now: a broken shield's bonus gone, wound penalties taken off."""
    return modified_at_pa(
        at_pa(f.character, hr), f.character.equipment.shield, f.shield_broken, f.hp, f.heavy_wound, hr
    )


def body(f: Fighter) -> Body:
    """What a round reads and changes of a fighter."""
    return Body(
        f.hp,
        f.mp,
        f.tp,
        f.lose_turn,
        f.unconscious,
        f.dead,
        f.wake_in,
        f.heavy_wound,
        f.disabled_limbs,
        f.shield_broken,
        f.parried,
    )


def setup(state: FightState) -> Setup:
    """The fight's static facts (every fighter's :class:`~.round.Spec`), kept for the fight's next rounds."""
    opts, hr = state.options, state.house_rules
    # keyed by identity (the cache holds the objects, so an id is never reused while cached)
    key = (tuple((id(f.character), f.name, f.side) for f in state.fighters), id(hr), id(opts))
    hit = _SETUPS.get(key)
    if hit is not None:
        return hit[1]
    specs = []
    for f in state.fighters:
        c = f.character
        choices = tuple(melee_options(c, hr))
        forced = _pick(opts.attack, f)
        if forced and forced not in {a for a, _ in choices}:
            raise CombatError(
                f"{f.name} cannot make a {forced!r} attack", hint="choose one of " + ", ".join(a for a, _ in choices)
            )
        tactic = _pick(opts.tactics, f) or "auto"
        specs.append(spec(c, f.name, f.side, hr, tactic, forced, _pick(opts.aim, f), opts.distance, choices))
    made = Setup(tuple(specs), hr, opts.distance)
    if len(_SETUPS) >= 256:
        _SETUPS.pop(next(iter(_SETUPS)))
    _SETUPS[key] = ((*(f.character for f in state.fighters), hr, opts), made)
    return made


_SETUPS: dict[tuple[Any, ...], tuple[tuple[Any, ...], Setup]] = {}


def melee_options(c: Character, hr: PhilsysHouseRules) -> list[tuple[str, str]]:
    """Each attack the character can make in melee, with its damage notation."""
    w = c.equipment.weapon
    sk = weapon_skill(c)
    rank = sk.rank if sk else 0
    s = c.stats.STR
    if w is None:
        base = c.equipment.unarmed_base_damage
        if hr.melee_damage == "light_medium_heavy":
            return [(a, dmg.lmh_damage_expr(base, rank, s, a)) for a in ("light", "medium", "heavy")]
        return [(a, dmg.unarmed_damage_expr(s, rank, a, base)) for a in ("punch", "kick")]
    if hr.melee_damage == "light_medium_heavy":
        return [
            (a, dmg.lmh_damage_expr(w.damage[i], rank, s, a, w.two_handed))
            for i, a in enumerate(("light", "medium", "heavy"))
        ]
    return [(a, dmg.tsc_damage_expr(w.damage, a, s)) for a in ("thrust", "slash", "chop")]


def _check_options(fighters: Sequence[Fighter], opts: FightOptions, hr: PhilsysHouseRules) -> None:
    """Refuse a fight option that would be ignored: a name that is no fighter (nor 'side0', 'side1', ...),
    or a melee attack type that a fighter it applies to cannot make."""
    names = {f.name for f in fighters} | {f"side{f.side}" for f in fighters}
    known = ", ".join(sorted(names))
    for what, table in (("tactics", opts.tactics), ("attack", opts.attack), ("aim", opts.aim)):
        for key in table:
            if key not in names:
                raise CombatError(f"fight option {what}: {key!r} is not in this fight", hint=f"use one of {known}")
    for f in fighters:
        forced = _pick(opts.attack, f)
        if forced is None:
            continue
        choices = [a for a, _ in melee_options(f.character, hr)]
        if forced not in choices:
            raise CombatError(
                f"fight option attack: {f.name} cannot make a {forced!r} attack",
                hint="choose one of " + ", ".join(choices),
            )


def _pick(options: Mapping[str, Any], f: Fighter) -> Any:
    return options.get(f.name, options.get(f"side{f.side}"))


class PhilsysCombat:
    """The fight engine (satisfies ``storymaster.rules.CombatEngine``)."""

    def start(
        self,
        sides: Sequence[Sequence[BaseModel]],
        *,
        house_rules: PhilsysHouseRules | None = None,
        options: Mapping[str, Any] | FightOptions | None = None,
    ) -> FightState:
        hr = house_rules or PhilsysHouseRules()
        if not isinstance(hr, PhilsysHouseRules):
            raise CombatError("philsys fights need PhilsysHouseRules")
        try:
            opts = options if isinstance(options, FightOptions) else FightOptions.model_validate(dict(options or {}))
        except ValidationError as exc:
            raise CombatError(
                _explain(exc, "fight options"),
                hint="tactics: auto|melee|missile|magic; aim: limb|abdomen|torso|head; distance: medium|long",
            ) from None
        if len(sides) < 2 or any(len(s) == 0 for s in sides):
            raise CombatError("a fight needs at least two sides with at least one character each")
        fighters = []
        seen: dict[str, int] = {}
        for side_no, side in enumerate(sides):
            for c in side:
                if not isinstance(c, Character):
                    raise CombatError(f"not a philsys character: {type(c).__name__}")
                name = c.name
                seen[name] = seen.get(name, 0) + 1
                if seen[name] > 1:
                    name = f"{name} #{seen[name]}"
                cur = c.current
                hp = hp_max(c) if cur.hp is None else cur.hp
                fighters.append(
                    Fighter(
                        name=name,
                        side=side_no,
                        character=c,
                        hp=hp,
                        mp=mp_max(c) if cur.mp is None else cur.mp,
                        tp=tp_max(c) if cur.tp is None else cur.tp,
                        unconscious=dmg.is_unconscious(hp),
                        dead=dmg.is_dead(hp, hr),
                    )
                )
        _check_options(fighters, opts, hr)
        state = FightState(fighters=tuple(fighters), house_rules=hr, options=opts)
        return _settle(state)

    def is_over(self, state: FightState) -> bool:
        return state.over

    def winner(self, state: FightState) -> int | None:
        return state.winner

    # --- the GM's tracker (rules.FightTracker) ---
    def initiative_order(self, state: BaseModel) -> list[str]:
        """Fighter names in the Turn Sequence, highest initiative first; empty before round 1."""
        if not isinstance(state, FightState):
            raise CombatError("not a philsys fight state")
        return fight_order(state)

    def tracker(self, state: BaseModel) -> list[CombatantStatus]:
        """Each fighter's turn, HP/MP/TP and condition (critical health, unconscious, dead)."""
        if not isinstance(state, FightState):
            raise CombatError("not a philsys fight state")
        return fight_tracker(state)

    def step(self, state: FightState, rng: DiceRng) -> tuple[FightState, list[Event]]:
        """One round: the round of :mod:`.round`, played with the dice (``Rolled``), its log kept."""
        if state.over:
            raise CombatError("the fight is over", hint="start a new fight")
        events: list[Event] = []
        rnd = state.round + 1
        bout = Bout(state.order, tuple(body(f) for f in state.fighters))
        after = play_round(setup(state), bout, Rolled(rng), rnd, events)
        fs = [f.model_copy(update=b._asdict()) for f, b in zip(state.fighters, after.bodies, strict=True)]
        if not state.order:  # initiative was rolled: keep each fighter's total and modifier
            totals = events[0].data["totals"]
            for i, f in enumerate(fs):
                fs[i] = f.model_copy(
                    update={"initiative": totals[i], "init_mod": initiative_bonus(f.character, state.house_rules)}
                )
        new = state.model_copy(update={"fighters": tuple(fs), "order": after.order, "round": rnd})
        new = _settle(new)
        if new.over:
            who = (
                "nobody"
                if new.winner is None
                else "side "
                + str(new.winner)
                + " ("
                + ", ".join(f.name for f in new.fighters if f.side == new.winner and f.active)
                + ")"
            )
            text = f"The fight is over after {rnd} round(s); winner: {who}."
            events.append(Event("end", text, rnd, data={"winner": new.winner}))
        return new, events


def _active_sides(fs: Sequence[Fighter]) -> set[int]:
    return {f.side for f in fs if f.active}


def _settle(state: FightState) -> FightState:
    sides = _active_sides(state.fighters)
    if len(sides) <= 1:
        return state.model_copy(update={"over": True, "winner": next(iter(sides)) if sides else None})
    if state.round >= state.house_rules.max_rounds:
        return state.model_copy(update={"over": True, "winner": None})
    return state


def _explain(exc: ValidationError, what: str) -> str:
    """A pydantic error as one line per bad value."""
    parts = [f"{'.'.join(str(x) for x in e['loc']) or what}: {e['msg']}" for e in exc.errors()]
    return f"bad {what}: " + "; ".join(parts)
