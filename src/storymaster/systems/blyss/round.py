"""The BLYSS round, stated once (issue 14): the engine plays it with dice, the exact chain enumerates it.

The round is written over a :class:`~storymaster.forecast.chance.Chance` and a light, hashable state
(:class:`RoundState`, :class:`Mover`: plain tuples, no pydantic), in the order of Combat Mechanics:
dying checks, Initiative, the Declaration Round (slowest first), the Action Round, the end of the round.
Everything random is an event drawn from the chance:

- :class:`PoolRoll`: a Die Pool against a TD (Character Tests), read by :func:`~.dicepool.judge`; its
  outcomes are the pmf of what the round reads of it (coarse: hit or not, Screw-Up or not, the highest
  face when the armour contest needs it, the same faces judged against a defender's rank);
- :class:`DamageRoll`: a weapon's damage (total, highest face);
- :class:`ArmourRoll`: the armour's pool against the best attack die (soaked or not, :func:`armour_soaks`);
- :class:`InitiativeRoll`: the Initiative order (:func:`~.checks.roll_initiative`).

``BlyssCombat.step`` (the engine) runs :func:`play_round` with ``Rolled(rng)``: every die is drawn in the
same order as the engine always drew them, so fights at a seed and stored logs are unchanged. The
forecast's exact chain runs the same functions beat by beat (:func:`play_beat`: one fighter's action;
the round's start is part of the first beat, its end part of the last) under
:func:`~storymaster.forecast.chance.branches`. The log is only built when ``chance.narrate`` is true.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

from ...dice import DiceRng, RollRecord, parse, roll, roll_pool
from ...dice.ast import BinOp, Const, Dice, Expr, Neg
from ...errors import OddsError
from ...forecast.chance import Rolled, branches
from ...rules import side_label
from ...rules.protocol import Event
from .character import (
    armour_soak_chance,
    armour_soaks,
    damaged_armour_rating,
    movement_feet,
    strength_damage_bonus,
)
from .checks import Pool, contest_winner, pool_dice, roll_initiative
from .dicepool import Counts, Judgement, counts_of, die_succeeds, judge
from .living import (
    WOUND_LEVELS,
    blow_flags,
    can_act,
    dying_result,
    spill_damage,
    vitals_left,
    wound_level_code,
    wound_penalty,
)
from .options import BlyssHouseRules
from .scale import pool_for_rank
from .tables import table

__all__ = [
    "ArmourRoll",
    "DamageRoll",
    "InitiativeRoll",
    "Mover",
    "PoolRoll",
    "Roster",
    "RoundState",
    "aim_td",
    "armour_lives_after",
    "armour_takes_blow",
    "attack_td",
    "covering_piece",
    "defence_of",
    "from_state",
    "play_beat",
    "play_round",
    "play_turn",
    "screw_up_weapon",
    "to_state",
]

LOCATION = {None: "T", "limb": "A", "head": "H", "eye": "F"}


# ---------------------------------------------------------------- the light state
class Mover(NamedTuple):
    """One fighter as the round sees them: everything about them that changes during a fight."""

    dodges: int
    flesh_wounds: int
    health: int
    unconscious: bool
    dying: bool
    stabilised: bool
    dead: bool
    coma: bool
    dying_checks: int
    armour_lives: tuple[int, ...]
    weapon: int | None
    weapon_dropped: bool
    aim_bonus: int
    aim_called: bool
    aimed_this_round: int
    counter_ready: bool
    last_blow_blunt: bool
    declared: tuple[str, int | None] | None  # (action, target's index)
    acted: bool

    @property
    def active(self) -> bool:
        return can_act(self.unconscious, self.dying, self.dead, self.coma)

    @property
    def total(self) -> int:
        return vitals_left(self.dodges, self.flesh_wounds, self.health)


_MOVER_INDEX = {name: i for i, name in enumerate(Mover._fields)}


def _fast_replace(index: dict[str, int]) -> Any:
    def _replace(self: Any, **changes: Any) -> Any:
        """NamedTuple's _replace, faster (the exact chain replays the round hundreds of thousands of times)."""
        values = list(self)
        for name, value in changes.items():
            values[index[name]] = value
        return tuple.__new__(type(self), values)

    return _replace


Mover._replace = _fast_replace(_MOVER_INDEX)  # type: ignore[method-assign]


class RoundState(NamedTuple):
    """The fight as the round sees it (the engine's FightState without what never changes)."""

    round: int
    fighters: tuple[Mover, ...]
    order: tuple[int, ...]  # Initiative order, fastest first (indices)
    distance: int
    over: bool
    winner: int | None


RoundState._replace = _fast_replace({name: i for i, name in enumerate(RoundState._fields)})  # type: ignore[method-assign]


def _put(st: RoundState, k: int, f: Mover) -> RoundState:
    fs = st.fighters
    if fs[k] is f:
        return st
    return tuple.__new__(RoundState, (st[0], (*fs[:k], f, *fs[k + 1 :]), *st[2:]))


# ---------------------------------------------------------------- what never changes in a fight
class Roster:
    """The fight's fixed facts (sheets, sides, tactics, house rules) and the fighters' pools, built by the
    engine's own helpers (``attack_pool``, ``defence_pool``) once per situation and cached.

    ``cap``: the round ends the fight at the house rule's round cap (the engine); the exact chain counts
    rounds itself and passes False."""

    def __init__(self, state: Any, *, cap: bool = True) -> None:
        self.state = state
        self.hr: BlyssHouseRules = state.house_rules
        self.cap = cap
        fs = state.fighters
        self.fighters = fs
        self.K = len(fs)
        self.ids = tuple(f.id for f in fs)
        self.index = {fid: k for k, f in enumerate(fs) for fid in (f.id,)}
        self.side = tuple(f.side for f in fs)
        self.tactic = tuple(f.tactic for f in fs)
        self.called = tuple(f.called_shot for f in fs)
        self.choice = tuple(f.armour_choice for f in fs)
        self.maxd = tuple(f.vitals.max_dodges for f in fs)
        self.maxf = tuple(f.vitals.max_flesh_wounds for f in fs)
        self.maxh = tuple(f.vitals.max_health for f in fs)
        self._pools: dict[tuple[Any, ...], tuple[Pool, tuple[int, ...], tuple[str, ...]]] = {}
        self.strikes: dict[tuple[Any, ...], tuple[tuple[float, Any], ...]] = {}
        self._hits: dict[tuple[Any, ...], bool] = {}

    def wielded(self, k: int, f: Mover) -> Any:
        return self.wielded_as(k, f.weapon, f.weapon_dropped)

    def wielded_as(self, k: int, weapon: int | None, dropped: bool) -> Any:
        if weapon is None or dropped:
            return _combat.UNARMED
        return self.fighters[k].character.weapons[weapon]

    def damage_bonus(self, k: int, w: Any) -> int:
        """Fighter k's Strength damage bonus with weapon ``w`` (Weapons: Damage; melee weapons unless the weapon
        says otherwise)."""
        applies = (not w.ranged) if w.strength_applies is None else w.strength_applies
        strength = _combat.attribute(self.fighters[k], "strength", self.hr, in_a_test=False)
        return strength_damage_bonus(strength) if applies else 0

    def can_ever_hit(self, k: int, level: int, mask: tuple[bool, ...], weapon: int | None, pending: bool) -> bool:
        """Whether fighter k could still hit anyone by their own attack (Character Tests: a die must meet the TD), at
        this Wound Level with this armour and weapon (on the ground: recovered), at melee reach: with an aim or a
        counterattack ``pending``, yes; else if a die of their attack pool can meet the Attack TD, aided, for a
        fighter with the tactic ``aim``, by every die of their Aim Test that can succeed. (A counterattack needs
        someone else to hit first; a pool only changes when someone hits.)"""
        if pending:
            return True
        key = (k, level, mask, weapon)
        hit = self._hits.get(key)
        if hit is None:
            aim = 0
            if self.tactic[k] == "aim":
                apool, adice, _ = self.pool("aim", k, level, mask)
                aim = sum(die_succeeds(s, aim_td(self.called[k]), apool.die_modifier) for s in adice)
            pool, dice, _ = self.pool("attack", k, level, mask, aim, weapon, False, 0)
            td = attack_td(self.called[k], aim > 0, False)
            hit = self._hits[key] = any(die_succeeds(s, td, pool.die_modifier) for s in dice)
        return hit

    def stand_off(self, st: RoundState) -> bool:
        """Nobody still standing can ever hit (:meth:`can_ever_hit`) and nobody is dying (their checks go on): the
        fight can no longer change, so it ends as a stand-off (issue 14: detected, not run to the round cap)."""
        return not any(
            f.dying
            or (
                f.active
                and self.can_ever_hit(
                    k,
                    self.level(k, f),
                    tuple(lv > 0 for lv in f.armour_lives),
                    f.weapon,
                    bool(f.counter_ready or f.aim_bonus or f.aimed_this_round),
                )
            )
            for k, f in enumerate(st.fighters)
        )

    def level(self, k: int, f: Mover) -> int:
        """The Wound Level's code (:func:`~.living.wound_level_code`)."""
        return wound_level_code(f.dodges, f.flesh_wounds, f.health, self.maxf[k], self.maxh[k], f.active)

    def pool_of(self, kind: str, k: int, f: Mover, distance: int = 0) -> tuple[Pool, tuple[int, ...], tuple[str, ...]]:
        """Fighter k's pool of this kind as things stand (:meth:`pool`)."""
        return self.pool(
            kind,
            k,
            self.level(k, f),
            tuple(lv > 0 for lv in f.armour_lives),
            f.aim_bonus,
            f.weapon,
            f.weapon_dropped,
            distance,
        )

    def pool(
        self,
        kind: str,
        k: int,
        level: int,
        mask: tuple[bool, ...],
        aim: int = 0,
        weapon: int | None = None,
        dropped: bool = False,
        distance: int = 0,
    ) -> tuple[Pool, tuple[int, ...], tuple[str, ...]]:
        """(pool, its dice, the reasons for each change) of fighter k's pool of this kind in this situation:
        Wound Level code, armour with lives left, aim, weapon in hand, distance."""
        attack = kind == "attack"
        key = (kind, k, level, mask, aim if attack else 0, weapon, dropped, distance if attack else 0)
        hit = self._pools.get(key)
        if hit is not None:
            return hit
        hr = self.hr
        base = self.fighters[k]
        # the engine's helpers read the fighter: unhurt (the Wound Level's penalty is added below), with this
        # armour, aim and weapon
        probe = base.model_copy(
            update={
                "vitals": base.vitals.model_copy(
                    update={
                        "dodges": base.vitals.max_dodges,
                        "flesh_wounds": base.vitals.max_flesh_wounds,
                        "health": base.vitals.max_health,
                        "unconscious": False,
                        "dying": False,
                        "dead": False,
                        "coma": False,
                        "stabilised": False,
                    }
                ),
                "armour_lives": tuple(3 if alive else 0 for alive in mask),
                "aim_bonus": key[4],
                "weapon": weapon,
                "weapon_dropped": dropped,
            }
        )
        wr, dm = wound_penalty(WOUND_LEVELS[level], hr)
        notes: list[str] = []
        if attack:
            pool, notes = _combat.attack_pool(probe, self.state.model_copy(update={"distance": distance}))
            if wr or dm:  # the engine's note on the Wound Level comes before the one on deprivation
                at = next((i for i, n in enumerate(notes) if n.startswith("fatigue, hunger, thirst")), len(notes))
                notes.insert(at, f"{WOUND_LEVELS[level]}" + (f" -{wr} rank(s)" if wr else f" {dm} per die"))
        elif kind in ("defend", "evade", "strength"):
            pool = _combat.defence_pool(probe, self.state, kind)
        elif kind == "aim":
            pool = _combat.aim_pool(probe, hr)
        elif kind == "init":
            pool = _combat.initiative_pool(probe, hr)
        else:  # pragma: no cover
            raise ValueError(kind)
        pool = pool.model_copy(update={"penalty_ranks": pool.penalty_ranks + wr, "die_modifier": dm})
        out = (pool, pool_dice(pool, hr), tuple(notes))
        self._pools[key] = out
        return out


def to_state(state: Any) -> RoundState:
    """The engine's FightState as the round's light state."""
    index = {f.id: k for k, f in enumerate(state.fighters)}
    movers = []
    for f in state.fighters:
        v = f.vitals
        d = f.declared
        movers.append(
            Mover(
                v.dodges,
                v.flesh_wounds,
                v.health,
                v.unconscious,
                v.dying,
                v.stabilised,
                v.dead,
                v.coma,
                v.dying_checks,
                tuple(f.armour_lives),
                f.weapon,
                f.weapon_dropped,
                f.aim_bonus,
                f.aim_called,
                f.aimed_this_round,
                f.counter_ready,
                f.last_blow_blunt,
                None if d is None else (d.kind, None if d.target is None else index[d.target]),
                f.acted,
            )
        )
    return RoundState(
        state.round, tuple(movers), tuple(index[o] for o in state.order), state.distance, state.over, state.winner
    )


def from_state(st: RoundState, state: Any) -> Any:
    """The round's light state written back into the engine's FightState ``state``."""
    ids = [f.id for f in state.fighters]
    fighters = []
    for f, m in zip(state.fighters, st.fighters, strict=True):
        v = f.vitals.model_copy(
            update={
                "dodges": m.dodges,
                "flesh_wounds": m.flesh_wounds,
                "health": m.health,
                "unconscious": m.unconscious,
                "dying": m.dying,
                "stabilised": m.stabilised,
                "dead": m.dead,
                "coma": m.coma,
                "dying_checks": m.dying_checks,
            }
        )
        d = m.declared
        fighters.append(
            f.model_copy(
                update={
                    "vitals": v,
                    "armour_lives": m.armour_lives,
                    "weapon": m.weapon,
                    "weapon_dropped": m.weapon_dropped,
                    "aim_bonus": m.aim_bonus,
                    "aim_called": m.aim_called,
                    "aimed_this_round": m.aimed_this_round,
                    "counter_ready": m.counter_ready,
                    "last_blow_blunt": m.last_blow_blunt,
                    "declared": None
                    if d is None
                    else _combat.Action(kind=d[0], target=None if d[1] is None else ids[d[1]]),  # type: ignore[arg-type]
                    "acted": m.acted,
                }
            )
        )
    return state.model_copy(
        update={
            "round": st.round,
            "fighters": tuple(fighters),
            "order": tuple(ids[k] for k in st.order),
            "distance": st.distance,
            "over": st.over,
            "winner": st.winner,
        }
    )


# ---------------------------------------------------------------- the events
def _max_face_dp(dice: tuple[int, ...], tds: tuple[int, ...], dm: int, literal: bool) -> dict[tuple, float]:
    """Exact distribution of (ones, hits against each TD, highest face) of a pool."""
    dist: dict[tuple, float] = {(0, (0,) * len(tds), 0): 1.0}
    for sides in dice:
        nxt: dict[tuple, float] = {}
        q = 1.0 / sides
        for (ones, hits, mx), p in dist.items():
            for face in range(1, sides + 1):
                key = (
                    ones + (face == 1),
                    tuple(
                        h + die_succeeds(face, td, dm, literal_ones=literal) for h, td in zip(hits, tds, strict=True)
                    ),
                    max(mx, face),
                )
                nxt[key] = nxt.get(key, 0.0) + p * q
        dist = nxt
    return dist


@dataclass(frozen=True, slots=True)
class Judged:
    """What the round reads of a rolled pool: its kind (critical screw-up, screw-up, failure, success; a
    critical success reads as a success), successes and Screw-Ups when asked for in ``detail``, the highest
    face when asked for (``best``), and the same faces judged against further TDs (``also``: (succeeded,
    successes) each). ``judgement`` and ``record`` are the real roll's, for the log (the engine's only)."""

    kind: str
    successes: int = 0
    screw_ups: int = 0
    best: int = 0
    also: tuple[tuple[bool, int], ...] = ()
    judgement: Judgement | None = field(default=None, compare=False)
    record: RollRecord | None = field(default=None, compare=False)

    @property
    def succeeded(self) -> bool:
        return self.kind == "success"

    def as_judgement(self) -> Judgement:
        return self.judgement or Judgement(self.kind, self.successes, self.screw_ups, 0, 0)


def _read(
    c: Counts, best: int, also: tuple[Counts, ...], detail: bool, want_best: bool, judgement: Judgement | None = None
) -> Judged:
    j = judge(c)
    kind = "success" if j.kind == "critical success" else j.kind
    alsoj = tuple((jj.succeeded, jj.successes) for jj in map(judge, also))
    return Judged(
        kind,
        j.successes if detail else 0,
        j.screw_ups if detail else 0,
        best if (want_best and kind == "success") else 0,
        alsoj,
        judgement,
    )


@lru_cache(maxsize=8192)
def _pool_pmf(
    dice: tuple[int, ...], td: int, dm: int, literal: bool, detail: bool, want_best: bool, also: tuple[int, ...]
) -> tuple[tuple[float, Judged], ...]:
    if not dice:
        return ((1.0, Judged("failure", also=tuple((False, 0) for _ in also))),)
    tds = (td, *also)
    n = len(dice)
    out: dict[Judged, float] = {}
    for (ones, hits, mx), p in _max_face_dp(dice, tds, dm, literal).items():
        counts = [Counts(n, ones, 0, 0, h) for h in hits]
        key = _read(counts[0], mx, tuple(counts[1:]), detail, want_best)
        out[key] = out.get(key, 0.0) + p
    return tuple((p, j) for j, p in out.items())


@dataclass(frozen=True, slots=True)
class PoolRoll:
    """A Die Pool rolled against a TD (Character Tests; Screw-Ups), by ``roll_against``'s rules."""

    dice: tuple[int, ...]
    td: int
    hr: BlyssHouseRules
    die_modifier: int = 0
    label: str = ""
    detail: bool = True
    want_best: bool = False
    also: tuple[int, ...] = ()

    def sample(self, rng: DiceRng) -> Judged:
        if not self.dice:
            return _pool_pmf((), self.td, 0, False, False, False, self.also)[0][1]
        hr = self.hr
        rec = roll_pool(self.dice, rng, label=self.label)
        faces = rec.faces

        def counts(td: int) -> Counts:
            return counts_of(
                faces,
                self.dice,
                td,
                die_modifier=self.die_modifier,
                strict=hr.critical_needs_strict_beat,
                literal_ones=hr.literal_ones,
            )

        c = counts(self.td)
        out = _read(c, max(faces), tuple(counts(t) for t in self.also), self.detail, self.want_best, judge(c))
        return Judged(out.kind, out.successes, out.screw_ups, out.best, out.also, out.judgement, rec)

    def outcomes(self) -> Sequence[tuple[float, Judged]]:
        return _pool_pmf(
            self.dice, self.td, self.die_modifier, self.hr.literal_ones, self.detail, self.want_best, self.also
        )


@lru_cache(maxsize=256)
def exact_damage(expr: str) -> tuple[tuple[int, int, float], ...]:
    """Exact distribution of a damage expression: (total, highest die face or the total, chance)."""
    none = -(10**9)

    def ev(node: Expr) -> dict[tuple[int, int], float]:
        if isinstance(node, Const):
            return {(node.value, none): 1.0}
        if isinstance(node, Dice):
            if not node.plain or node.fudge:
                raise OddsError(
                    f"damage '{node}' (exploding, keep or Fudge dice) is not in the exact chain",
                    hint="forecast it by simulation instead (--method simulate)",
                )
            dist = {(0, none): 1.0}
            for _ in range(node.count):
                nxt: dict[tuple[int, int], float] = {}
                for (t, m), p in dist.items():
                    for face in range(1, node.faces + 1):
                        k = (t + face, max(m, face))
                        nxt[k] = nxt.get(k, 0.0) + p / node.faces
                dist = nxt
            return dist
        if isinstance(node, Neg):
            return {(-t, m): p for (t, m), p in ev(node.operand).items()}
        if not isinstance(node, BinOp) or node.op == "/":
            raise OddsError(
                f"damage '{expr}' is not in the exact chain (only dice, numbers, +, - and *)",
                hint="forecast it by simulation instead (--method simulate)",
            )
        left, right = ev(node.left), ev(node.right)
        out: dict[tuple[int, int], float] = {}
        for (t1, m1), p1 in left.items():
            for (t2, m2), p2 in right.items():
                t = t1 + t2 if node.op == "+" else t1 - t2 if node.op == "-" else t1 * t2
                k = (t, max(m1, m2))
                out[k] = out.get(k, 0.0) + p1 * p2
        return out

    dist = ev(parse(expr))
    if len(dist) > 5000:
        raise OddsError(f"damage '{expr}' has too many outcomes for the exact chain", hint="use --method simulate")
    return tuple((t, t if m == none else m, p) for (t, m), p in sorted(dist.items()))


@dataclass(frozen=True, slots=True)
class Damage:
    total: int
    best: int = 0
    record: RollRecord | None = field(default=None, compare=False)


@lru_cache(maxsize=1024)
def _damage_pmf(expr: str, want_best: bool) -> tuple[tuple[float, Damage], ...]:
    out: dict[Damage, float] = {}
    for total, best, p in exact_damage(expr):
        k = Damage(total, best if want_best else 0)
        out[k] = out.get(k, 0.0) + p
    return tuple((p, d) for d, p in out.items())


@dataclass(frozen=True, slots=True)
class DamageRoll:
    """A weapon's damage (Weapons: Damage): its total and, for the armour contest against the damage roll,
    the highest die (a set number: the total)."""

    expr: str
    want_best: bool = False
    label: str = ""

    def sample(self, rng: DiceRng) -> Damage:
        rec = roll(self.expr, rng, label=self.label)
        best = max(rec.faces or (rec.total,)) if self.want_best else 0
        return Damage(rec.total, best, rec)

    def outcomes(self) -> Sequence[tuple[float, Damage]]:
        return _damage_pmf(self.expr, self.want_best)


@dataclass(frozen=True, slots=True)
class Soak:
    soaked: bool
    best: int = field(default=0, compare=False)
    record: RollRecord | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class ArmourRoll:
    """The Armour Rating contest (Armour Rating): the armour's pool against the best attack die."""

    dice: tuple[int, ...]
    against: int
    ties_soak: bool = False
    label: str = ""

    def sample(self, rng: DiceRng) -> Soak:
        rec = roll(" + ".join(f"1d{s}" for s in self.dice), rng, label=self.label)
        best = max(rec.faces)
        return Soak(armour_soaks(best, self.against, self.ties_soak), best, rec)

    def outcomes(self) -> Sequence[tuple[float, Soak]]:
        p = armour_soak_chance(self.dice, self.against, self.ties_soak)
        return tuple((q, Soak(v)) for q, v in ((p, True), (1.0 - p, False)) if q > 0)


@dataclass(frozen=True, slots=True)
class Order:
    order: tuple[int, ...]
    text: str = field(default="", compare=False)
    records: tuple[RollRecord, ...] = field(default=(), compare=False)


@lru_cache(maxsize=1024)
def _initiative_keys(
    dice: tuple[int, ...], td: int, dm: int, rank: int
) -> tuple[tuple[tuple[int, int, int], float], ...]:
    """Exact distribution of one fighter's Initiative key: (net successes, value of the dice that met the TD,
    Initiative rank) (:func:`~.checks.roll_initiative`)."""
    d: dict[tuple[int, int], float] = {(0, 0): 1.0}
    for sides in dice:
        nxt: dict[tuple[int, int], float] = {}
        for (net, value), p in d.items():
            for face in range(1, sides + 1):
                met = die_succeeds(face, td, dm)
                kk = (net + (1 if met else -1 if face == 1 else 0), value + (face if met else 0))
                nxt[kk] = nxt.get(kk, 0.0) + p / sides
        d = nxt
    out: dict[tuple[int, int, int], float] = {}
    for (net, value), p in d.items():
        key = (max(net, 0), value, rank)
        out[key] = out.get(key, 0.0) + p
    return tuple(out.items())


@dataclass(frozen=True, slots=True)
class InitiativeRoll:
    """Initiative (Combat Mechanics: Initiative), rolled by :func:`~.checks.roll_initiative`. Its outcomes
    (the order) are enumerated for two fighters."""

    names: tuple[str, ...]
    pools: tuple[Pool, ...]
    hr: BlyssHouseRules

    def sample(self, rng: DiceRng) -> Order:
        ordered, text = roll_initiative(list(zip(self.names, self.pools, strict=True)), rng, self.hr)
        at = {n: i for i, n in enumerate(self.names)}
        recs = tuple(r.record for r in ordered if r.record) + tuple(r.rolloff for r in ordered if r.rolloff)
        return Order(tuple(at[r.name] for r in ordered), text, recs)

    def outcomes(self) -> Sequence[tuple[float, Order]]:
        if len(self.pools) != 2:
            raise OddsError("the exact chain enumerates Initiative between two fighters only")
        hr = self.hr
        dists = [
            _initiative_keys(pool_dice(p, hr), hr.initiative_td, p.die_modifier, sum(p.effective_ranks(hr)))
            for p in self.pools
        ]
        # a last tie: a d100 each, equal rolls keeping listing order (0.505 to the first listed), or listing order
        tie_first = 0.505 if hr.initiative_final_tie == "roll_off" else 1.0
        p0 = 0.0
        for ka, pa in dists[0]:
            for kb, pb in dists[1]:
                if ka > kb:
                    p0 += pa * pb
                elif ka == kb:
                    p0 += pa * pb * tie_first
        return tuple((p, Order(o)) for p, o in ((p0, (0, 1)), (1.0 - p0, (1, 0))) if p > 0)


# ---------------------------------------------------------------- the round
def _enemies(st: RoundState, R: Roster, k: int) -> list[int]:
    return [j for j, e in enumerate(st.fighters) if R.side[j] != R.side[k] and e.active]


def _pick_target(st: RoundState, R: Roster, k: int) -> int | None:
    """The weakest standing enemy (lowest Dodges + Flesh Wounds + Health, then listing order)."""
    foes = _enemies(st, R, k)
    return min(foes, key=lambda j: (st.fighters[j].total, j), default=None)


def _declare(st: RoundState, R: Roster, k: int) -> tuple[str, int | None]:
    """Automatic choice of action, knowing what slower characters declared (The Declaration Round)."""
    f = st.fighters[k]
    target = _pick_target(st, R, k)
    if target is None:
        return ("none", None)
    if f.weapon_dropped:
        return ("recover", None)
    w = R.wielded(k, f)
    if not w.ranged and st.distance > _combat.MELEE_REACH_FT:
        return ("move", None)
    tactic = R.tactic[k]
    if tactic == "defensive" and not f.counter_ready:
        for j in _enemies(st, R, k):
            d = st.fighters[j].declared
            if d is not None and d[0] in ("attack", "disarm") and d[1] == k:
                return ("defend" if f.weapon is not None and not f.weapon_dropped else "evade", j)
    if tactic == "aim" and f.aim_bonus == 0:
        return ("aim", target)
    t = st.fighters[target]
    if tactic == "disarm" and t.weapon is not None and not t.weapon_dropped:
        return ("disarm", target)
    return ("attack", target)


def begin_round(st: RoundState, R: Roster, ch: Any, ev: list[Event]) -> RoundState:
    """The round's start: dying checks, Initiative (first round, or every round by house rule), and the
    Declaration Round, slowest first (The Declaration Round)."""
    hr = R.hr
    rnd = st.round + 1
    st = st._replace(
        round=rnd,
        fighters=tuple(
            f if (f.declared is None and not f.acted) else f._replace(acted=False, declared=None) for f in st.fighters
        ),
    )
    # Dying: a Stamina check each turn after falling below 0 (Dying)
    for k, f in enumerate(st.fighters):
        if not f.dying:
            continue
        stamina = _combat.attribute(R.fighters[k], "stamina", hr, in_a_test=True)
        rank = stamina - f.dying_checks
        passed, rec = False, None
        if rank > 0:
            r = ch.draw(
                PoolRoll(pool_for_rank(rank), table("wounds")["dying_td"], hr, label="dying check", detail=False)
            )
            passed, rec = r.succeeded, r.record
        result = dying_result(rank, passed, hr.coma_instead_of_death, f.last_blow_blunt)
        if result == "coma":
            f, text = f._replace(dying=False, coma=True), "falls into a coma"
        elif result == "dead":
            f, text = f._replace(dying=False, dead=True), "dies"
        elif result == "stabilised":
            f, text = f._replace(dying=False, stabilised=True), f"stabilises (Stamina rank {rank})"
        else:
            f, text = f._replace(dying_checks=f.dying_checks + 1), f"fails to stabilise (Stamina rank {rank})"
        st = _put(st, k, f)
        if ch.narrate:
            ev.append(
                Event(
                    "death" if f.dead else "dying",
                    f"{R.ids[k]} {text}.",
                    rnd,
                    R.ids[k],
                    {"stabilised": f.stabilised, "dead": f.dead},
                    (rec,) if rec else (),
                )
            )
    # Initiative (Initiative: first round; re-rolled at SM's discretion)
    if rnd == 1 or hr.reroll_initiative_each_round:
        pools = tuple(R.pool_of("init", k, f)[0] for k, f in enumerate(st.fighters))
        o = ch.draw(InitiativeRoll(R.ids, pools, hr))
        st = st._replace(order=o.order)
        if ch.narrate:
            names = [R.ids[k] for k in o.order]
            ev.append(
                Event(
                    "initiative",
                    f"Initiative: {' > '.join(names)} ({o.text}).",
                    rnd,
                    data={"order": names},
                    rolls=o.records,
                )
            )
    active = [k for k in st.order if st.fighters[k].active]
    for k in reversed(active):
        act = _declare(st, R, k)
        st = _put(st, k, st.fighters[k]._replace(declared=act))
        if ch.narrate:
            target = None if act[1] is None else R.ids[act[1]]
            tgt = f" on {target}" if target else ""
            ev.append(
                Event(
                    "declare",
                    f"{R.ids[k]} declares: {act[0]}{tgt}.",
                    rnd,
                    R.ids[k],
                    {"action": act[0], "target": target},
                )
            )
    return st


def action_queue(st: RoundState, R: Roster) -> list[int]:
    """The Action Round's order: those who declared, in the Declaration Round's order (slowest first; house
    rule ``action_order``)."""
    return _combat.action_round_order([k for k in st.order if st.fighters[k].declared is not None], R.hr)


def _can_act(f: Mover) -> bool:
    return f.active and not f.acted and f.declared is not None


def end_round(st: RoundState, R: Roster, ev: list[Event], narrate: bool) -> RoundState:
    """The end of the round: aims carry to the next round only; the fight ends when one side (or none) is
    left standing, in a stand-off (:meth:`Roster.stand_off`), or at the round cap."""
    hr = R.hr
    rnd = st.round
    st = st._replace(
        fighters=tuple(
            f._replace(
                aim_bonus=f.aimed_this_round,
                aimed_this_round=0,
                aim_called=f.aim_called if f.aimed_this_round else False,
            )
            if (f.aimed_this_round or f.aim_bonus or f.aim_called)
            else f
            for f in st.fighters
        )
    )
    standing = {R.side[k] for k, f in enumerate(st.fighters) if f.active}
    if len(standing) <= 1:
        win = standing.pop() if standing else None
        st = st._replace(over=True, winner=win)
        if narrate:
            names = [R.ids[k] for k in range(R.K) if R.side[k] == win]
            text = (
                f"The fight is over: side {side_label(win)} ({', '.join(names)}) wins."
                if win is not None
                else "The fight is over: nobody is left standing."
            )
            ev.append(Event("end", text, rnd, data={"winner": win}))
    elif R.stand_off(st):
        st = st._replace(over=True, winner=None)
        if narrate:
            text = f"A stand-off after {rnd} rounds: nobody still standing can ever hit (Character Tests: a die must"
            ev.append(Event("end", text + " meet the TD).", rnd, data={"winner": None, "stand_off": True}))
    elif R.cap and rnd >= hr.max_rounds:
        st = st._replace(over=True, winner=None)
        if narrate:
            ev.append(Event("end", f"No winner after {rnd} rounds: a stand-off.", rnd, data={"winner": None}))
    return st


def play_beat(st: RoundState, cursor: int, R: Roster, ch: Any, ev: list[Event]) -> tuple[RoundState, int]:
    """One beat of a round: the next fighter's action (at ``cursor`` in :func:`action_queue`), with the
    round's start before the first and its end after the last. Returns the state and the next cursor (0:
    the round is over)."""
    if cursor == 0:
        st = begin_round(st, R, ch, ev)
    return play_turn(st, cursor, R, ch, ev)


def play_turn(st: RoundState, cursor: int, R: Roster, ch: Any, ev: list[Event]) -> tuple[RoundState, int]:
    """:func:`play_beat` after the round's start (the exact chain enumerates the two apart)."""
    queue = action_queue(st, R)
    while cursor < len(queue) and not _can_act(st.fighters[queue[cursor]]):
        cursor += 1
    if cursor < len(queue):
        st = _act(st, R, queue[cursor], ch, ev)
        cursor += 1
        while cursor < len(queue) and not _can_act(st.fighters[queue[cursor]]):
            cursor += 1
    if cursor >= len(queue):
        return end_round(st, R, ev, ch.narrate), 0
    return st, cursor


def play_round(st: RoundState, R: Roster, ch: Any) -> tuple[RoundState, list[Event]]:
    """One whole round (the engine's step): beats until the round is over."""
    ev: list[Event] = []
    st, cursor = play_beat(st, 0, R, ch, ev)
    while cursor:
        st, cursor = play_beat(st, cursor, R, ch, ev)
    return st, ev


# ---------------------------------------------------------------- actions
def _act(st: RoundState, R: Roster, k: int, ch: Any, ev: list[Event]) -> RoundState:
    f = st.fighters[k]
    assert f.declared is not None
    kind, target = f.declared
    if kind in ("defend", "evade", "none"):
        return st  # defences wait for the attack; 'none' does nothing
    f = f._replace(acted=True)
    st = _put(st, k, f)
    fid = R.ids[k]
    if kind == "recover":
        st = _put(st, k, f._replace(weapon_dropped=False))
        if ch.narrate:
            weapons = R.fighters[k].character.weapons
            ev.append(
                Event(
                    "recover",
                    f"{fid} recovers their "
                    f"{weapons[f.weapon].name if f.weapon is not None else 'weapon'} (Equipment Use: a "
                    "round to ready it).",
                    st.round,
                    fid,
                )
            )
        return st
    if kind == "move":
        feet = movement_feet(_combat.attribute(R.fighters[k], "agility", R.hr, in_a_test=False))
        new = max(0, st.distance - feet)
        st = st._replace(distance=new)
        if ch.narrate:
            ev.append(
                Event(
                    "move",
                    f"{fid} moves {feet} ft; the sides are now {new} ft apart.",
                    st.round,
                    fid,
                    {"distance": new},
                )
            )
        return st
    if target is None or not st.fighters[target].active:
        target = _pick_target(st, R, k)
        if target is None:
            return st
    if kind == "aim":
        return _aim(st, R, k, target, ch, ev)
    return _attack(st, R, k, target, ch, ev, disarm=kind == "disarm")


def _aim(st: RoundState, R: Roster, k: int, t: int, ch: Any, ev: list[Event]) -> RoundState:
    """Aiming: Dexterity + Intelligence at TD 8 (a Called Shot's TD when aiming at a location); each success
    is a rank on next round's Attack; being hit this round spoils it."""
    f = st.fighters[k]
    pool, dice, _ = R.pool_of("aim", k, f)
    called = R.called[k]
    td = aim_td(called)
    r = ch.draw(PoolRoll(dice, td, R.hr, die_modifier=pool.die_modifier, label=f"{R.ids[k]} aim"))
    succ = r.successes
    st = _put(st, k, f._replace(aimed_this_round=succ, aim_called=called is not None))
    if ch.narrate:
        text = f"{R.ids[k]} takes aim at {R.ids[t]}: {succ} success(es) on Dexterity + Intelligence vs TD {td}"
        ev.append(
            Event(
                "aim",
                text + (f" (+{succ} rank(s) next round)." if succ else " - nothing gained."),
                st.round,
                R.ids[k],
                {"successes": succ, "td": td},
                (r.record,) if r.record else (),
            )
        )
    return st


_DEFENCE_LABEL = {"defend": "defends", "evade": "evades", "strength": "resists with Strength"}


class Arms(NamedTuple):
    """What an attack reads of the attacker: their Wound Level's code, which armour still has lives, their aim,
    a pending counterattack and the weapon in hand."""

    level: int
    armour: tuple[bool, ...]
    aim_bonus: int
    aim_called: bool
    counter_ready: bool
    weapon: int | None
    weapon_dropped: bool


@dataclass(frozen=True, slots=True)
class Struck:
    """Where an attack leaves the target, and the attacker's weapon (a Screw-Up may cost it)."""

    target: Mover
    weapon: int | None
    weapon_dropped: bool
    events: tuple[Event, ...] = field(default=(), compare=False)


@dataclass(frozen=True, slots=True, eq=False)
class Strike:
    """One attack as a coarse event for the exact chain: its outcomes are those of :func:`strike` (every
    branch of its dice, equal results merged, cached per situation); its sample is :func:`strike` rolled."""

    R: Roster
    ak: int
    arms: Arms
    tk: int
    target: Mover
    distance: int
    disarm: bool
    round: int

    def play(self, ch: Any) -> Struck:
        return strike(self.R, self.ak, self.arms, self.tk, self.target, self.distance, self.disarm, self.round, ch)

    def sample(self, rng: DiceRng) -> Struck:
        return self.play(Rolled(rng, narrate=False))

    def outcomes(self) -> Sequence[tuple[float, Struck]]:
        key = (self.ak, self.arms, self.tk, self.target, self.distance, self.disarm)
        hit = self.R.strikes.get(key)
        if hit is None:
            hit = self.R.strikes[key] = tuple(branches(self.play))
        return hit


def screw_up_weapon(kind: str, weapon: int | None, dropped: bool, rule: str, /) -> tuple[int | None, bool]:
    """The attacker's weapon (index, on the ground) after an attack or disarm roll of this ``kind`` (Screw-Ups;
    house rule ``combat_screw_up``, default 'drop_weapon'): a Screw-Up drops the weapon in hand (a round to
    recover it), a critical Screw-Up loses it for the rest of the fight (None: unarmed). Fists cannot be
    dropped, and with 'none' a Screw-Up is only a failure."""
    if rule == "none" or weapon is None or dropped or kind not in ("screw-up", "critical screw-up"):
        return weapon, dropped
    return (None, False) if kind == "critical screw-up" else (weapon, True)


def _attack(st: RoundState, R: Roster, ak: int, tk: int, ch: Any, ev: list[Event], *, disarm: bool) -> RoundState:
    """An Attack or a Disarm (Attacking; Disarming; Defending; Evading; Counterattacking): :func:`strike`, played
    in place when the dice are rolled (or scripted), drawn as one coarse event when the chain enumerates."""
    att = st.fighters[ak]
    arms = Arms(
        R.level(ak, att),
        tuple(lv > 0 for lv in att.armour_lives),
        att.aim_bonus,
        att.aim_called,
        att.counter_ready,
        att.weapon,
        att.weapon_dropped,
    )
    args = (R, ak, arms, tk, st.fighters[tk], st.distance, disarm, st.round)
    res = strike(*args, ch) if ch.narrate else ch.draw(Strike(*args))
    if att.counter_ready or att.aim_bonus or (res.weapon, res.weapon_dropped) != (att.weapon, att.weapon_dropped):
        att = att._replace(counter_ready=False, aim_bonus=0, weapon=res.weapon, weapon_dropped=res.weapon_dropped)
    ev.extend(res.events)
    return _put(_put(st, ak, att), tk, res.target)


def attack_td(location: str | None, aimed: bool, counter_ready: bool, /) -> int:
    """An attack's TD (Attacking: TD 8; Aiming: a Called Shot's, lower when aimed) less 2 for a counterattack
    (Defending: "attack at TD -2"), not below 0."""
    td = _combat.called_shot_td(location, aimed=aimed)  # type: ignore[arg-type]
    return max(0, td - table("wounds")["counterattack_td_reduction"]) if counter_ready else td


def aim_td(called: str | None, /) -> int:
    """An Aim Test's TD (Aiming: TD 8, or the aimed Called Shot's TD when aiming at a location)."""
    return table("wounds")["aim_td"] if called is None else _combat.called_shot_td(called, aimed=True)  # type: ignore[arg-type]


def defence_of(tgt: Mover, defensive: bool, /) -> tuple[str | None, bool]:
    """The target's defence against an attack, and whether they give up their declared action for it: a declared
    Defend or Evade not yet used; else, for a fighter with the defensive tactic who is up, has declared, has not
    acted and has no counterattack pending, a switch to Defend (weapon in hand) or Evade (Attacking: a Defensive
    Action 'if they have not yet acted in the combat round')."""
    if tgt.declared is not None and tgt.declared[0] in ("defend", "evade") and not tgt.acted:
        return tgt.declared[0], False
    if defensive and not tgt.acted and tgt.active and tgt.declared is not None and not tgt.counter_ready:
        return ("defend" if tgt.weapon is not None and not tgt.weapon_dropped else "evade"), True
    return None, False


def strike(
    R: Roster, ak: int, arms: Arms, tk: int, tgt: Mover, distance: int, disarm: bool, rnd: int, ch: Any
) -> Struck:
    """The attack itself: the attack roll, the target's defences, then the disarm or the blow."""
    hr = R.hr
    narrate = ch.narrate
    ev: list[Event] = []
    aid, tid = R.ids[ak], R.ids[tk]
    w = R.wielded_as(ak, arms.weapon, arms.weapon_dropped)
    pool, dice, pool_notes = R.pool(
        "attack", ak, arms.level, arms.armour, arms.aim_bonus, arms.weapon, arms.weapon_dropped, distance
    )
    notes = list(pool_notes)
    location = R.called[ak] if not disarm else None
    td = attack_td(location, arms.aim_called and arms.aim_bonus > 0, arms.counter_ready)
    if arms.counter_ready:
        notes.append("counterattack TD -2")
    # the target's defences (a Contest; the attacker must also beat the Attack TD), known before the roll
    defence, switch = defence_of(tgt, R.tactic[tk] == "defensive")
    defences = [defence] if defence else []
    if disarm:
        defences.insert(0, "strength")
    dpools = [R.pool_of(kind, tk, tgt) for kind in defences]
    a_tds = tuple(dp.rank_total(hr) for dp, _, _ in dpools)
    want_best = hr.armour_contest_against == "attack_dice"
    r = ch.draw(
        PoolRoll(
            dice,
            td,
            hr,
            die_modifier=pool.die_modifier,
            label=f"{aid} {'disarm' if disarm else 'attack'}",
            detail=False,
            want_best=want_best,
            also=a_tds,
        )
    )
    recs: list[RollRecord] = [r.record] if r.record else []
    hit = r.succeeded
    weapon = screw_up_weapon(r.kind, arms.weapon, arms.weapon_dropped, hr.combat_screw_up)
    line = ""
    if narrate:
        j = r.as_judgement()
        verb = "tries to disarm" if disarm else "attacks"
        where = f" ({location})" if location else ""
        line = f"{aid} {verb} {tid}{where} with {w.name}: pool {'+'.join(f'd{s}' for s in dice) or 'd0'} vs TD {td}"
        if notes:
            line += f" ({'; '.join(notes)})"
        line += f" -> {j.key}."
        if switch:
            line += f" {tid} gives up their declared {tgt.declared[0]} to {defences[-1]}."  # type: ignore[index]
    if switch:
        tgt = tgt._replace(acted=True)
    defended_ok = False
    d_td = pool.rank_total(hr)
    for i, kind in enumerate(defences):
        if not hit:
            break
        dpool, ddice, _ = dpools[i]
        a_td = a_tds[i]
        dr = ch.draw(PoolRoll(ddice, d_td, hr, die_modifier=dpool.die_modifier, label=f"{tid} {kind}"))
        dj = dr.as_judgement()
        if dr.record:
            recs.append(dr.record)
        aj = Judgement("success" if r.also[i][0] else "failure", r.also[i][1], 0, 0, 0) if dice else dj
        w_ = contest_winner(aj, dj)
        if w_ is None and hr.defence_draw == "reroll":
            for _ in range(20):
                r2 = ch.draw(PoolRoll(dice, a_td, hr, die_modifier=pool.die_modifier, label=f"{aid} contest re-roll"))
                dr2 = ch.draw(
                    PoolRoll(ddice, d_td, hr, die_modifier=dpool.die_modifier, label=f"{tid} contest re-roll")
                )
                recs += [x.record for x in (r2, dr2) if x.record]
                aj = r2.as_judgement() if dice else aj
                dj = dr2.as_judgement() if ddice else dj
                w_ = contest_winner(aj, dj)
                if w_ is not None:
                    break
        if w_ == 0:
            if narrate:
                line += (
                    f" {tid} {_DEFENCE_LABEL[kind]} ({dj.key} vs TD {d_td}) but is bested "
                    f"({aj.successes} to {dj.successes})."
                )
        else:
            hit = False
            if narrate:
                line += (
                    f" {tid} {_DEFENCE_LABEL[kind]} successfully ({dj.key} vs TD {d_td} against {aj.successes} "
                    f"attack success(es) vs TD {a_td})."
                )
            if kind == "defend" and dj.succeeded:
                defended_ok = True
        if kind in ("defend", "evade"):
            tgt = tgt._replace(acted=True)
    if defended_ok:
        tgt = tgt._replace(counter_ready=True)
        if narrate:
            line += f" {tid} may counterattack at TD -2."
    if narrate:
        ev.append(
            Event(
                "disarm" if disarm else "attack",
                line,
                rnd,
                aid,
                {
                    "target": tid,
                    "hit": hit,
                    "td": td,
                    "outcome": r.as_judgement().key,
                    "dice": list(dice),
                },
                tuple(recs),
            )
        )
    if weapon != (arms.weapon, arms.weapon_dropped) and narrate:
        if weapon[0] is None:
            text = (
                f"{aid} critically screws up: their {w.name} is lost for the rest of the fight (Screw-Ups: no "
                "chance of recovery); they fight on unarmed."
            )
        else:
            text = f"{aid} screws up and drops their {w.name}: a round to recover it (Screw-Ups; Equipment Use)."
        ev.append(Event("screw-up", text, rnd, aid, {"outcome": r.kind, "weapon_lost": weapon[0] is None}))
    if not hit:
        return Struck(tgt, *weapon, tuple(ev))
    if disarm:
        if narrate:
            ev.append(Event("disarmed", f"{tid} is disarmed and must spend a round recovering the weapon.", rnd, tid))
        return Struck(tgt._replace(weapon_dropped=True), *weapon, tuple(ev))
    # a hit spoils an Aim (Aiming: 'automatically fails if the character is interrupted')
    if tgt.aimed_this_round:
        tgt = tgt._replace(aimed_this_round=0)
        if narrate:
            ev.append(Event("aim", f"{tid}'s aim is spoilt by the hit.", rnd, tid))
    tgt = _land_blow(R, ak, tk, tgt, w, r, location, rnd, ch, ev)
    return Struck(tgt, *weapon, tuple(ev))


def covering_piece(covers: Sequence[Sequence[str]], lives: Sequence[int], location: str, /) -> int | None:
    """The armour that meets a blow at ``location``: the first piece covering it with lives left (Armour)."""
    return next((i for i, (c, n) in enumerate(zip(covers, lives, strict=True)) if n > 0 and location in c), None)


def armour_takes_blow(choice: str, damage: int, dodges: int, /) -> bool:
    """Whether the armour takes a blow it did not soak (losing a life) rather than the body (Armour Rating):
    the fighter's ``armour_choice``; 'auto' lets the armour take a blow the Dodges left cannot."""
    return choice == "armour" or (choice == "auto" and damage > dodges)


def armour_lives_after(lives: int, damage: int, heavy_blow: int | None, /) -> int:
    """A piece's lives after it takes a blow: one lost, two for a heavy blow (house rule ``armour_heavy_blow``)."""
    return max(0, lives - (2 if heavy_blow is not None and damage >= heavy_blow else 1))


def _land_blow(
    R: Roster,
    ak: int,
    tk: int,
    tgt: Mover,
    w: Any,
    r: Judged,
    location: str | None,
    rnd: int,
    ch: Any,
    ev: list[Event],
) -> Mover:
    """Damage, the Armour Rating contest, armour's lives, the knockout chance (Weapons: Damage; Armour).
    Returns the target. A blow the armour soaks has still hit: an aim it spoilt stays spoilt (Aiming: an Aim
    "automatically fails if the character is interrupted, such as being hit by an attack")."""
    hr = R.hr
    narrate = ch.narrate
    aid, tid = R.ids[ak], R.ids[tk]
    by_damage = hr.armour_contest_against == "damage_roll"
    dmg = ch.draw(DamageRoll(w.damage, by_damage, label=f"{aid} damage"))
    bonus = R.damage_bonus(ak, w)
    damage = max(hr.minimum_damage, dmg.total + bonus)
    recs: list[RollRecord] = [dmg.record] if dmg.record else []
    text = ""
    if narrate:
        text = f"{w.name} deals {dmg.total}" + (f" {bonus:+d} Strength" if bonus else "") + f" = {damage} damage"
    loc = LOCATION[location]
    armour = R.fighters[tk].character.armour
    piece = covering_piece(tuple(a.cover for a in armour), tgt.armour_lives, loc)
    to_body = True
    if piece is not None:
        a = armour[piece]
        ar = damaged_armour_rating(a.armour_rating, tgt.armour_lives[piece])
        soak: Soak | None = None
        against = dmg.best if by_damage else r.best
        if ar > 0:
            soak = ch.draw(ArmourRoll(pool_for_rank(ar), against, hr.armour_ties_soak, label=f"{tid} armour"))
            if soak.record:
                recs.append(soak.record)
        if soak is not None and soak.soaked:
            if narrate:
                text += f"; {a.name} (AR {ar}) rolls {soak.best} against {against} and soaks it all."
                ev.append(Event("armour", f"{tid}: {text}", rnd, tid, {"soaked": True, "damage": damage}, tuple(recs)))
            return tgt
        if soak is not None and narrate:
            text += f"; {a.name} (AR {ar}) rolls {soak.best} against {against}, not enough to soak"
        if armour_takes_blow(R.choice[tk], damage, tgt.dodges):
            new_lives = list(tgt.armour_lives)
            new_lives[piece] = armour_lives_after(new_lives[piece], damage, hr.armour_heavy_blow)
            tgt = tgt._replace(armour_lives=tuple(new_lives))
            to_body = False
            if narrate:
                state_word = "destroyed" if new_lives[piece] == 0 else f"damaged ({new_lives[piece]}/3 lives left)"
                text += f"; the armour takes the blow and is {state_word}."
                ev.append(
                    Event("armour", f"{tid}: {text}", rnd, tid, {"soaked": False, "armour_damaged": True}, tuple(recs))
                )
    if to_body:
        before = R.level(tk, tgt)
        took = spill_damage(tgt.dodges, tgt.flesh_wounds, tgt.health, damage, hr.damage_spills_over)
        h = tgt.health - took[2]
        unc, dying, stab, checks = blow_flags(
            h, took[2], tgt.unconscious, tgt.dying, tgt.stabilised, tgt.dead, tgt.dying_checks
        )
        tgt = tgt._replace(
            dodges=tgt.dodges - took[0],
            flesh_wounds=tgt.flesh_wounds - took[1],
            health=h,
            unconscious=unc,
            dying=dying,
            stabilised=stab,
            dying_checks=checks,
            last_blow_blunt=w.blunt,
        )
        if narrate:
            took_d = {"dodges": took[0], "flesh_wounds": took[1], "health": took[2]}
            parts = [f"{n} {k.replace('_', ' ')}" for k, n in took_d.items() if n]
            text += f"{'; it hits' if piece is not None else ' to'} {tid} ({', '.join(parts) or 'nothing'})."
            after = WOUND_LEVELS[R.level(tk, tgt)]
            if tgt.dying:
                text += f" {tid} falls below 0 Health and is dying."
            elif tgt.unconscious:
                text += f" {tid} drops to 0 Health and is knocked unconscious."
            elif after != WOUND_LEVELS[before]:
                text += f" {tid} is now at {after}."
            ev.append(
                Event(
                    "damage",
                    text,
                    rnd,
                    aid,
                    {"target": tid, "damage": damage, **took_d, "wound_level": after},
                    tuple(recs),
                )
            )
    if w.knockout_rank and tgt.active:
        ko = ch.draw(
            PoolRoll(
                pool_for_rank(w.knockout_rank),
                table("wounds")["knockout_td"],
                hr,
                label=f"{aid} knockout",
                detail=False,
            )
        )
        if ko.succeeded:
            tgt = tgt._replace(unconscious=True)
        if narrate:
            ev.append(
                Event(
                    "knockout",
                    f"Knockout chance ({w.knockout_rank}) vs TD 6: {tid} "
                    f"{'is knocked out' if ko.succeeded else 'stays up'}.",
                    rnd,
                    aid,
                    {"knocked_out": ko.succeeded},
                    (ko.record,) if ko.record else (),
                )
            )
    return tgt


# the engine's module, bound last: it imports this one (the round) at its top
from . import combat as _combat  # noqa: E402
