"""One Philsys round, written once (issue 14): the engine plays it with the dice, the exact chain enumerates it.

:func:`play_round` takes a :class:`Bout` (each fighter's running state and the Turn Sequence) and a
:class:`~storymaster.forecast.chance.Chance`. The engine (:mod:`.combat`) runs it with ``Rolled(rng)``:
every random thing is an event whose ``sample`` rolls the real dice, in the order the book's turn
takes them, with the labels of the fight log. The exact forecast (:mod:`.forecast`) runs it under
:func:`~storymaster.forecast.chance.branches`: each event's ``outcomes`` is the pmf of the named rule
it stands for (:func:`.checks.melee_result`, :func:`.checks.magic_result`, the opposed roll, a damage
expression's totals), so the chain sees every branch with its exact probability. The fight log
(``log``) is written only when the chance narrates.

The automatic choices are the engine's: heal an ally at a quarter of max HP or less (the best
affordable heal), else the best affordable attack spell or tech, else a missile weapon, else the
melee attack with the best expected damage after armour (:func:`best_attack`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import permutations, product
from typing import Any, NamedTuple

import numpy as np

from ...dice import DiceRng, RollRecord, roll
from ...forecast.chance import Chance
from ...odds import distribution
from ...rules.protocol import Event
from . import damage as dmg
from .character import Ability, Character, MissileWeapon, Shield, at_pa, hp_max, initiative_bonus
from .checks import MagicAttack, MeleeAttack, MissileAttack, OpposedCheck, check_odds
from .options import PhilsysHouseRules

__all__ = [
    "Body",
    "Bout",
    "Setup",
    "Spec",
    "affords",
    "best_attack",
    "choose",
    "decided",
    "end_of_round",
    "end_of_round_v",
    "heal_threshold",
    "hurt",
    "hurt_v",
    "initiative_key",
    "initiative_rank_v",
    "modified_at_pa",
    "modified_at_pa_v",
    "play_round",
    "play_turn",
    "roll_initiative",
]


# --- the running state ------------------------------------------------------------------


class Body(NamedTuple):
    """One fighter's running state: what a round reads and changes."""

    hp: int
    mp: int
    tp: int
    lose_turn: bool = False
    unconscious: bool = False
    dead: bool = False
    wake_in: int | None = None
    heavy_wound: bool = False
    disabled_limbs: int = 0
    shield_broken: bool = False
    parried: bool = False

    @property
    def active(self) -> bool:
        return not (self.unconscious or self.dead)


class Bout(NamedTuple):
    """The fight between rounds: the Turn Sequence (empty before initiative) and every fighter's body."""

    order: tuple[int, ...]
    bodies: tuple[Body, ...]


def active_sides(bodies: Sequence[Body], specs: Sequence[Spec]) -> set[int]:
    return {s.side for b, s in zip(bodies, specs, strict=True) if b.active}


def decided(bodies: Sequence[Body], specs: Sequence[Spec]) -> bool:
    """At most one side has anyone standing: the fight is over."""
    return len(active_sides(bodies, specs)) <= 1


# --- the static facts -------------------------------------------------------------------


@dataclass(frozen=True)
class Move:
    """An ability the automatic choice may pick, with its cost and damage (or healing) expression."""

    mp: int
    tp: int
    hp: int
    expr: str
    magical: bool = True
    atk: int = 0  # spells: the attack modifier before wound penalties
    ability: Ability | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Spec:
    """What a round needs to know of one fighter that the fight never changes."""

    name: str
    side: int
    top: int  # max HP
    sta: int
    at0: int
    pa0: int
    shield: Shield | None
    red: int  # what the fighter's armour stops of a physical blow (AC/3)
    red_magic: int  # ... of a spell (only exotic armour stops any)
    tactic: str
    choices: tuple[tuple[str, str], ...]
    forced: str | None
    heals: tuple[Move, ...]  # best first
    spells: tuple[Move, ...]  # best first (attack spells and techs with a positive mean)
    missile: tuple[MissileWeapon, int, str] | None  # (weapon, skill rank, damage expression) when it shoots
    aim: str
    mdef: int  # missile defence modifier
    resist: int  # magic resistance modifier
    head_shot_kills: bool
    has_limbs: bool
    init_bonus: int
    character: Character = field(compare=False, repr=False)


@dataclass(frozen=True)
class Setup:
    """A fight's static facts: every fighter's :class:`Spec` and the house rules."""

    specs: tuple[Spec, ...]
    hr: PhilsysHouseRules
    distance: str = "medium"


@lru_cache(maxsize=4096)
def mean(expression: str) -> float:
    return float(distribution(expression).mean)


def heal_threshold(top: int) -> int:
    """The engine's tactic (not a book rule): an ally at a quarter of maximum HP or less (rounded down) is healed."""
    return top // 4


@lru_cache(maxsize=4096)
def _hit_odds(at: int, pa: int, parry: bool, hr: PhilsysHouseRules) -> tuple[float, float]:
    o = check_odds(MeleeAttack(at=at, pa=pa, parry=parry), hr)
    return float(o.probability("hit")), float(o.probability("critical hit"))


def best_attack(
    choices: Sequence[tuple[str, str]], at: int, pa: int, parry: bool, red: int, hr: PhilsysHouseRules
) -> tuple[str, str]:
    """The automatic melee choice: the attack with the best expected damage after armour (first on ties)."""
    return _best_attack(tuple(choices), at, pa, parry, red, hr)


@lru_cache(maxsize=8192)
def _best_attack(
    choices: tuple[tuple[str, str], ...], at: int, pa: int, parry: bool, red: int, hr: PhilsysHouseRules
) -> tuple[str, str]:
    best, best_val = choices[0], -1.0
    for a, e in choices:
        p_hit, p_crit = _hit_odds(at + dmg.attack_penalty(a), pa, parry, hr)
        m = mean(e)
        val = p_hit * max(0.0, m - red) + p_crit * max(0.0, 2 * m - red)
        if val > best_val:
            best, best_val = (a, e), val
    return best


# --- the events: the dice a round draws -----------------------------------------------------


class Die(NamedTuple):
    """A rolled total; ``record`` carries the dice for the log (None while enumerating)."""

    total: int
    record: RollRecord | None = None


class Contest(NamedTuple):
    """An opposed d20 roll's result (a named rule's outcome) and, when rolled, both dice."""

    result: str
    attack: RollRecord | None = None
    defence: RollRecord | None = None


@lru_cache(maxsize=1024)
def _totals(expression: str) -> tuple[tuple[float, Die], ...]:
    d = distribution(expression)
    den = float(d.denominator)
    return tuple((float(q) / den, Die(int(v))) for v, q in zip(d.outcomes, d.quantities, strict=True))


@dataclass(frozen=True)
class Roll:
    """A dice expression's total (damage, healing, a d6)."""

    expression: str
    label: str

    def sample(self, rng: DiceRng) -> Die:
        r = roll(self.expression, rng, label=self.label)
        return Die(r.total, r)

    def outcomes(self) -> Sequence[tuple[float, Die]]:
        return _totals(self.expression)


@lru_cache(maxsize=8192)
def _contest_pmf(check: Any, hr: PhilsysHouseRules) -> tuple[tuple[float, Contest], ...]:
    o = check_odds(check, hr)
    return tuple((float(p), Contest(k)) for k, p in o.probabilities.items() if p > 0)


@dataclass(frozen=True)
class Opposed:
    """An opposed d20 roll: the attacker's die, then the defender's (unless ``defender_rolls`` is off).

    ``check`` is the :mod:`.checks` model whose named rule names the result (melee_result, magic_result,
    the opposed roll, a missile hit); ``outcomes`` is its exact pmf (:func:`.checks.check_odds`).
    """

    check: Any
    hr: PhilsysHouseRules
    labels: tuple[str, str]
    defender_rolls: bool = True

    def sample(self, rng: DiceRng) -> Contest:
        from .checks import classify

        ra = roll("1d20", rng, label=self.labels[0])
        a_mod, d_mod = _mods(self.check)
        if self.defender_rolls:
            rd: RollRecord | None = roll("1d20", rng, label=self.labels[1])
            margin = ra.total + a_mod - (rd.total + d_mod)  # type: ignore[union-attr]
        else:
            rd = None
            margin = ra.total + a_mod - d_mod
        return Contest(classify(self.check, margin, self.hr), ra, rd)

    def outcomes(self) -> Sequence[tuple[float, Contest]]:
        return _contest_pmf(self.check, self.hr)


def _mods(check: Any) -> tuple[int, int]:
    if isinstance(check, MeleeAttack):
        return check.at, check.pa
    if isinstance(check, OpposedCheck):
        return check.modifier, check.vs
    if isinstance(check, MissileAttack):
        return check.attack, check.defence
    assert isinstance(check, MagicAttack)
    return check.attack, check.resist


class Initiative(NamedTuple):
    """The Turn Sequence rolled: the order, and (when rolled) the totals and dice."""

    order: tuple[int, ...]
    totals: tuple[int, ...] = ()
    rolls: tuple[RollRecord, ...] = ()


def initiative_key(total: int, bonus: int, hr: PhilsysHouseRules) -> tuple[int, int]:
    """What the Turn Sequence ranks by, highest first: the total, then (by default) the higher modifier;
    what is still equal is re-rolled between the tied."""
    return total, bonus if hr.initiative_ties == "modifier_then_reroll" else 0


def initiative_rank_v(total: np.ndarray, bonus: np.ndarray, hr: PhilsysHouseRules) -> np.ndarray:
    """:func:`initiative_key` as one number per fighter that sorts alike (the simulation's twin; totals and
    modifiers within +-1000)."""
    mod = bonus if hr.initiative_ties == "modifier_then_reroll" else np.zeros_like(bonus)
    return total * 4096.0 + (mod + 1024)


def roll_initiative(
    bonuses: Sequence[int], rng: DiceRng, hr: PhilsysHouseRules, names: Sequence[str] | None = None
) -> tuple[list[int], list[int], list[RollRecord]]:
    """Turn Sequence: bonus + 2d6, highest first; ties go to the higher modifier, then re-roll between the tied.

    Returns (totals, order, rolls). Under ``initiative_ties: reroll`` every tie is re-rolled regardless of modifier.
    """
    names = list(names or [f"#{i}" for i in range(len(bonuses))])
    rolls: list[RollRecord] = []
    totals = []
    for n, b in zip(names, bonuses, strict=True):
        r = roll("2d6", rng, label=f"initiative {n}")
        rolls.append(r)
        totals.append(r.total + b)
    keys: list[list[int]] = [list(initiative_key(t, b, hr)) for t, b in zip(totals, bonuses, strict=True)]
    # re-roll among fighters whose keys tie, until every key is distinct
    for _ in range(50):
        groups: dict[tuple[int, ...], list[int]] = {}
        for i, k in enumerate(keys):
            groups.setdefault(tuple(k), []).append(i)
        tied = [g for g in groups.values() if len(g) > 1]
        if not tied:
            break
        for g in tied:
            for i in g:
                r = roll("2d6", rng, label=f"initiative tie re-roll {names[i]}")
                rolls.append(r)
                keys[i].append(r.total)
    order = sorted(range(len(keys)), key=lambda i: keys[i], reverse=True)
    return totals, order, rolls


@lru_cache(maxsize=256)
def initiative_pmf(bonuses: tuple[int, ...], hr: PhilsysHouseRules) -> tuple[tuple[float, Initiative], ...]:
    """Every Turn Sequence with its exact chance: 2d6 + bonus each, keys as :func:`roll_initiative` ranks
    them; fighters whose keys tie are re-rolled among themselves until distinct, which puts them in
    each of their orders alike."""
    two = {s: (6 - abs(s - 7)) / 36 for s in range(2, 13)}
    out: dict[tuple[int, ...], float] = {}
    for sums in product(two, repeat=len(bonuses)):
        p = 1.0
        for s in sums:
            p *= two[s]
        keys = [initiative_key(s + b, b, hr) for s, b in zip(sums, bonuses, strict=True)]
        ranked = sorted(set(keys), reverse=True)
        groups = [[i for i, k in enumerate(keys) if k == key] for key in ranked]
        orders = list(product(*(permutations(g) for g in groups)))
        for parts in orders:
            o = tuple(i for part in parts for i in part)
            out[o] = out.get(o, 0.0) + p / len(orders)
    return tuple((p, Initiative(o)) for o, p in out.items())


@dataclass(frozen=True)
class RollInitiative:
    """Initiative at the start of combat (once)."""

    bonuses: tuple[int, ...]
    hr: PhilsysHouseRules
    names: tuple[str, ...]

    def sample(self, rng: DiceRng) -> Initiative:
        totals, order, rolls = roll_initiative(self.bonuses, rng, self.hr, self.names)
        return Initiative(tuple(order), tuple(totals), tuple(rolls))

    def outcomes(self) -> Sequence[tuple[float, Initiative]]:
        return initiative_pmf(self.bonuses, self.hr)


# --- the round --------------------------------------------------------------------------


class _Turn:
    """The mutable scratch of one round: the bodies, the log (None unless narrating), the round number."""

    __slots__ = ("bodies", "ch", "hr", "log", "rnd", "specs")

    def __init__(self, setup: Setup, bodies: list[Body], ch: Chance, rnd: int, log: list[Event] | None):
        self.specs, self.hr, self.bodies, self.ch, self.rnd = setup.specs, setup.hr, bodies, ch, rnd
        self.log = log if ch.narrate else None


def play_round(setup: Setup, bout: Bout, ch: Chance, rnd: int = 0, log: list[Event] | None = None) -> Bout:
    """One round (the Turn Sequence rolled first if it is not yet): every conscious fighter's turn in
    initiative order, then bleeding and waking. ``log`` gets the events when ``ch.narrate``."""
    specs = setup.specs
    t = _Turn(setup, list(bout.bodies), ch, rnd, log)
    order = bout.order
    if not order:
        ini = ch.draw(RollInitiative(tuple(s.init_bonus for s in specs), setup.hr, tuple(s.name for s in specs)))
        order = ini.order
        if t.log is not None:
            text = "Initiative: " + ", ".join(
                f"{specs[i].name} {ini.totals[i]} ({specs[i].init_bonus}+2d6)" for i in order
            )
            data = {"order": [specs[i].name for i in order], "totals": list(ini.totals)}
            t.log.append(Event("initiative", text, rnd, data=data, rolls=ini.rolls))
    bodies = t.bodies
    for k, b in enumerate(bodies):
        if b.parried:
            bodies[k] = b._replace(parried=False)
    for i in order:
        if not _turn(t, i, setup):
            break
    _end_of_round(t)
    return Bout(order, tuple(bodies))


def play_turn(setup: Setup, bodies: tuple[Body, ...], i: int, ch: Chance) -> tuple[Body, ...]:
    """Fighter i's place in the Turn Sequence, as :func:`play_round` plays it (the exact chain moves whole
    bands of HP by it, a turn at a time)."""
    t = _Turn(setup, list(bodies), ch, 0, None)
    _turn(t, i, setup)
    return tuple(t.bodies)


def end_of_round(setup: Setup, bodies: tuple[Body, ...]) -> tuple[Body, ...]:
    """Bleeding and waking at the end of a round, as :func:`play_round` ends it (nothing random)."""
    t = _Turn(setup, list(bodies), _NO_CHANCE, 0, None)
    _end_of_round(t)
    return tuple(t.bodies)


def hurt(setup: Setup, bodies: tuple[Body, ...], j: int, amount: int) -> tuple[Body, ...]:
    """Fighter j takes ``amount`` HP, as a blow in :func:`play_round` deals it (unconscious, dead, heavy wound)."""
    t = _Turn(setup, list(bodies), _NO_CHANCE, 0, None)
    _hurt(t, j, amount)
    return tuple(t.bodies)


def hurt_v(
    hp: np.ndarray,
    unconscious: np.ndarray,
    heavy: np.ndarray,
    wake: np.ndarray,
    amount: Any,
    top: int,
    hr: PhilsysHouseRules,
) -> tuple[np.ndarray, ...]:
    """:func:`hurt` for arrays of fights (``wake`` -1 for none): (hp, unconscious, dead, heavy wound, wake).
    The simulation's twin, tested against it on every input of a small domain."""
    new = hp - amount
    if hr.heavy_wound_penalty:
        heavy = heavy | dmg.heavy_blow_v(amount, top)
    dead = dmg.is_dead_v(new, hr)
    ko = ~dead & dmg.is_unconscious(new) & ~unconscious
    return new, unconscious | dead | ko, dead, heavy, np.where(ko, -1, wake)


def end_of_round_v(
    hp: np.ndarray, unconscious: np.ndarray, dead: np.ndarray, wake: np.ndarray, hr: PhilsysHouseRules
) -> tuple[np.ndarray, ...]:
    """:func:`end_of_round` for one fighter over arrays of fights (``wake`` -1 for none): (hp, unconscious,
    dead, wake). The simulation's twin, tested against it on every input of a small domain."""
    alive = ~dead
    if hr.bleeding:
        bleeding = alive & (hp < 0)
        hp = np.where(bleeding, dmg.bleed_v(hp, hr), hp)
        dead = dead | (bleeding & dmg.is_dead_v(hp, hr))
        alive = alive & ~bleeding
    waking = alive & unconscious & (hp > 0) & (wake >= 0)
    left = wake - 1
    up = waking & (left <= 0)
    return hp, unconscious & ~up, dead, np.where(up, -1, np.where(waking, left, wake))


def _turn(t: _Turn, i: int, setup: Setup) -> bool:
    """Fighter i's turn if standing: a lost turn is sat out; False once the fight is decided (the round stops)."""
    bodies, specs = t.bodies, t.specs
    b = bodies[i]
    if not b.active:
        return True
    if b.lose_turn:
        bodies[i] = b._replace(lose_turn=False)
        if t.log is not None:
            text = f"{specs[i].name} spends the turn recovering from a critical failure."
            t.log.append(Event("recover", text, t.rnd, specs[i].name))
        return True
    if decided(bodies, specs):
        return False
    _take_turn(t, i, setup)
    return True


class _Silent:
    narrate = False

    def draw(self, event: Any) -> Any:
        raise AssertionError("nothing random here")


_NO_CHANCE = _Silent()


def affords(mp: Any, tp: Any, hp: Any, a: Move) -> Any:
    """The automatic choice picks an ability only with its MP and TP at hand and more HP than its HP cost.
    Comparisons joined with ``&``: one function serves ints and arrays (the simulation)."""
    return (mp >= a.mp) & (tp >= a.tp) & (hp > a.hp)


def _affordable(b: Body, a: Move) -> bool:
    return bool(affords(b.mp, b.tp, b.hp, a))


def _penalty(t: _Turn, k: int) -> int:
    b = t.bodies[k]
    return dmg.wound_penalty(b.hp, t.hr, b.heavy_wound)


def modified_at_pa(
    base: tuple[int, int], shield: Shield | None, broken: bool, hp: int, heavy: bool, hr: PhilsysHouseRules
) -> tuple[int, int]:
    """AT/PA in the fight: a broken shield's bonus is gone; critical health and heavy wounds take their penalty."""
    at, pa = base
    if broken and shield is not None:
        at, pa = at - shield.at, pa - shield.pa
    p = dmg.wound_penalty(hp, hr, heavy)
    return at - p, pa - p


def modified_at_pa_v(
    base: tuple[int, int], shield: Shield | None, broken: Any, hp: Any, heavy: Any, hr: PhilsysHouseRules
) -> tuple[Any, Any]:
    """:func:`modified_at_pa` for arrays of fights (the simulation's twin, tested against it on every input)."""
    at, pa = base
    if shield is not None:
        at, pa = at - shield.at * broken, pa - shield.pa * broken
    p = dmg.wound_penalty_v(hp, heavy, hr)
    return at - p, pa - p


def _at_pa(t: _Turn, k: int) -> tuple[int, int]:
    s, b = t.specs[k], t.bodies[k]
    return modified_at_pa((s.at0, s.pa0), s.shield, b.shield_broken, b.hp, b.heavy_wound, t.hr)


#: what a turn does (:func:`choose`), in the order the automatic choice tries them
HEAL, CAST, SHOOT, MELEE = range(4)


def choose(setup: Setup, bodies: Sequence[Body], i: int) -> tuple[int, int, Move | None]:
    """The automatic choice of fighter i's turn (the engine's tactics, not a book rule): (what, on whom,
    which ability). Under tactics auto or magic: the best affordable heal on the ally at a quarter of max
    HP or less with the fewest HP (the first on ties); else, on the standing enemy with the fewest HP (the
    first on ties), the best affordable attack spell or tech; else the missile weapon (tactics auto or
    missile), else melee. :func:`.twins.choose_v` is its twin over arrays of fights."""
    s, specs = setup.specs[i], setup.specs
    f = bodies[i]
    magic = s.tactic in ("auto", "magic")
    heal = next((a for a in s.heals if _affordable(f, a)), None) if magic else None
    if heal is not None:
        hurt = [
            j
            for j, (g, sj) in enumerate(zip(bodies, specs, strict=True))
            if sj.side == s.side and not g.dead and g.hp <= heal_threshold(sj.top)
        ]
        if hurt:
            return HEAL, min(hurt, key=lambda j: bodies[j].hp), heal
    enemies = [j for j, (g, sj) in enumerate(zip(bodies, specs, strict=True)) if sj.side != s.side and g.active]
    target = min(enemies, key=lambda j: (bodies[j].hp, j))
    spell = next((a for a in s.spells if _affordable(f, a)), None) if magic else None
    if spell is not None:
        return CAST, target, spell
    return (MELEE if s.missile is None else SHOOT), target, None


def _take_turn(t: _Turn, i: int, setup: Setup) -> None:
    what, j, a = choose(setup, t.bodies, i)
    if what == HEAL:
        _heal(t, i, j, a)  # type: ignore[arg-type]
    elif what == CAST:
        _cast(t, i, j, a)  # type: ignore[arg-type]
    elif what == SHOOT:
        _shoot(t, i, j, setup)
    else:
        _melee(t, i, j)


def _pay(t: _Turn, i: int, a: Move) -> None:
    b = t.bodies[i]
    assert a.ability is not None
    hp, mp, tp = dmg.pay_cost(b.hp, b.mp, b.tp, a.ability.cost)
    t.bodies[i] = b._replace(hp=hp, mp=mp, tp=tp)


def _heal(t: _Turn, i: int, j: int, a: Move) -> None:
    s = t.specs[i]
    assert a.ability is not None
    _pay(t, i, a)
    r = t.ch.draw(Roll(a.expr, f"{a.ability.name} healing"))
    g, sg = t.bodies[j], t.specs[j]
    new_hp = dmg.healed(g.hp, r.total, sg.top)
    wake = g.wake_in
    if g.unconscious and new_hp > 0 and g.wake_in is None:
        wake = dmg.wake_delay(sg.sta)
    t.bodies[j] = g._replace(hp=new_hp, wake_in=wake)
    if t.log is not None:
        extra = f" {sg.name} will come round in {wake} round(s)." if wake != g.wake_in else ""
        text = (
            f"{s.name} casts {a.ability.name} on {sg.name} (no roll for a willing target): "
            f"+{r.total} HP, now {new_hp}.{extra}"
        )
        data = {"target": sg.name, "healed": r.total, "cost": a.ability.cost.model_dump()}
        t.log.append(Event("heal", text, t.rnd, s.name, data, (r.record,)))  # type: ignore[arg-type]


def _hurt(t: _Turn, j: int, amount: int) -> list[str]:
    """Take HP; note unconsciousness, death and heavy wounds. Returns sentences for the log."""
    g, sg, hr = t.bodies[j], t.specs[j], t.hr
    hp = g.hp - amount
    upd: dict[str, Any] = {"hp": hp}
    note = ""
    if hr.heavy_wound_penalty and dmg.heavy_blow(amount, sg.top):
        upd["heavy_wound"] = True
    if dmg.is_dead(hp, hr):
        upd.update(dead=True, unconscious=True)
        note = "{} is dead."
    elif dmg.is_unconscious(hp) and not g.unconscious:
        upd.update(unconscious=True, wake_in=None)
        note = "{} falls unconscious."
    elif 0 < hp <= hr.critical_health_threshold and g.hp > hr.critical_health_threshold:
        note = "{} is at critical health (-{p}/-{p})."
    t.bodies[j] = g._replace(**upd)
    if t.log is None or not note:
        return []
    return [note.format(sg.name, p=hr.critical_health_penalty)]


def _melee(t: _Turn, i: int, j: int) -> None:
    s, sg, hr = t.specs[i], t.specs[j], t.hr
    at, _ = _at_pa(t, i)
    _, pa = _at_pa(t, j)
    g = t.bodies[j]
    parry = not g.parried
    if s.forced:
        attack, expression = next((a, e) for a, e in s.choices if a == s.forced)
    else:
        attack, expression = best_attack(s.choices, at, pa, parry, sg.red, hr)
    at += dmg.attack_penalty(attack)
    c = t.ch.draw(
        Opposed(
            MeleeAttack.model_construct(at=at, pa=pa, parry=parry),
            hr,
            (f"{s.name} attack d20", f"{sg.name} parry d20"),
            parry,
        )
    )
    result = c.result
    if parry:
        t.bodies[j] = g._replace(parried=True)
    rolls = [c.attack, c.defence] if parry else [c.attack]
    text = ""
    data: dict[str, Any] = {}
    if t.log is not None:
        assert c.attack is not None
        a_total = c.attack.total + at
        if parry:
            assert c.defence is not None
            d_total = c.defence.total + pa
            d_text = f"{sg.name} parries {c.defence.total}+{pa} = {d_total}"
        else:
            d_total = pa
            d_text = f"{sg.name} has used this round's parry roll and stands on PA {pa}"
        w = s.character.equipment.weapon
        weapon = w.name if w else "bare hands"
        text = f"{s.name} attacks {sg.name} ({attack}, {weapon}): {c.attack.total}{at:+d} = {a_total}; {d_text}."
        data = {
            "target": sg.name,
            "attack": attack,
            "result": result,
            "margin": a_total - d_total,
            "attack_total": a_total,
            "defence_total": d_total,
        }
    if result in ("hit", "critical hit"):
        rd = t.ch.draw(Roll(expression, f"{s.name} damage {expression}"))
        rolls.append(rd.record)
        raw = max(0, rd.total)
        if result == "critical hit":
            raw = dmg.critical_damage(raw)
        taken = dmg.reduce_damage(raw, sg.red)
        notes = _hurt(t, j, taken)
        shield = sg.shield
        if shield is not None and not g.shield_broken and dmg.shield_overwhelmed(raw, shield.ac):
            if hr.shield_breaks:
                t.bodies[j] = t.bodies[j]._replace(shield_broken=True)
            if t.log is not None:
                what = "breaks" if hr.shield_breaks else "is dented"
                notes.append(f"The blow exceeds {shield.name}'s AC {shield.ac}: the shield {what}.")
        if t.log is not None:
            text += f" {'Critical hit' if result == 'critical hit' else 'Hit'}: {expression} rolls {rd.total}"
            text += " doubled to " + str(raw) if result == "critical hit" else ""
            text += f", armour stops {raw - taken}, {sg.name} takes {taken}."
            text += (" " + " ".join(notes)) if notes else ""
            data.update(raw_damage=raw, damage=taken, hp=t.bodies[j].hp)
    elif result == "critical failure":
        text += " Critical failure!"
        if hr.critical_failure_effect == "lose_next_turn":
            t.bodies[i] = t.bodies[i]._replace(lose_turn=True)
            text += f" {s.name} loses the next turn." if t.log is not None else ""
    elif t.log is not None:
        text += " Miss." if data["margin"] < 0 else " A tie goes to the defender: miss."
    if t.log is not None:
        t.log.append(Event("melee", text, t.rnd, s.name, data, tuple(rolls)))  # type: ignore[arg-type]


def _shoot(t: _Turn, i: int, j: int, setup: Setup) -> None:
    s, sg, hr = t.specs[i], t.specs[j], t.hr
    assert s.missile is not None
    aim = dmg.aim_at(s.aim, sg.has_limbs)
    b = t.bodies[i]
    atk = dmg.missile_attack_modifier(s.missile[0], s.missile[1], aim) - dmg.missile_wound_penalty(
        b.hp, hr, b.heavy_wound
    )
    dfn = sg.mdef
    labels = (f"{s.name} missile d20", f"{sg.name} missile defence d20")
    c = t.ch.draw(Opposed(MissileAttack.model_construct(attack=atk, defence=dfn), hr, labels))
    rolls = [c.attack, c.defence]
    text = ""
    data: dict[str, Any] = {}
    if t.log is not None:
        assert c.attack is not None and c.defence is not None
        a_total, d_total = c.attack.total + atk, c.defence.total + dfn
        w = s.character.equipment.missile
        assert w is not None
        text = (
            f"{s.name} shoots {sg.name} ({w.name}, aiming at the {aim}): "
            f"{c.attack.total}{atk:+d} = {a_total} vs {c.defence.total}{dfn:+d} = {d_total}."
        )
        data = {"target": sg.name, "aim": aim, "attack_total": a_total, "defence_total": d_total}
    if c.result != "hit":
        if t.log is not None:
            data["result"] = "miss"
            t.log.append(Event("missile", text + " Miss.", t.rnd, s.name, data, tuple(rolls)))  # type: ignore[arg-type]
        return
    data["result"] = "hit"
    notes: list[str] = []
    if aim == "head" and sg.head_shot_kills:
        rk = t.ch.draw(Roll("1d6", f"head shot d6 on {sg.name}"))
        rolls.append(rk.record)
        if dmg.head_shot_kills_on(rk.total):
            t.bodies[j] = t.bodies[j]._replace(dead=True, unconscious=True)
            if t.log is not None:
                text += f" Head shot! The d6 shows {rk.total} (anything but 6 kills): {sg.name} is killed."
                data["killed"] = True
                t.log.append(Event("missile", text, t.rnd, s.name, data, tuple(rolls)))  # type: ignore[arg-type]
            return
        text += f" Head shot, the d6 shows 6: {sg.name} survives." if t.log is not None else ""
    expression = dmg.location_damage_expr(s.missile[2], aim)
    r = t.ch.draw(Roll(expression, f"{s.name} missile damage {expression}"))
    rolls.append(r.record)
    taken = dmg.reduce_damage(max(0, r.total), sg.red)
    if t.log is not None:
        stopped = max(0, r.total) - taken
        text += f" Hit: {expression} rolls {r.total}, armour stops {stopped}, {sg.name} takes {taken}."
    if aim == "limb":
        rl = t.ch.draw(Roll("1d6", f"limb d6 on {sg.name}"))
        rolls.append(rl.record)
        disabled = dmg.limb_disabled_on(rl.total)
        if disabled:
            g = t.bodies[j]
            t.bodies[j] = g._replace(disabled_limbs=g.disabled_limbs + 1)
        if t.log is not None:
            notes.append(f"The limb d6 shows {rl.total}: the limb {'is disabled' if disabled else 'still works'}.")
    notes += _hurt(t, j, taken)
    if t.log is not None:
        text += (" " + " ".join(notes)) if notes else ""
        data.update(damage=taken, hp=t.bodies[j].hp)
        t.log.append(Event("missile", text, t.rnd, s.name, data, tuple(rolls)))  # type: ignore[arg-type]


def _cast(t: _Turn, i: int, j: int, a: Move) -> None:
    s, sg, hr = t.specs[i], t.specs[j], t.hr
    ability = a.ability
    assert ability is not None
    pen = _penalty(t, i)
    at, _ = _at_pa(t, i)
    _pay(t, i, a)
    _, pa = _at_pa(t, j)
    text = ""
    data: dict[str, Any] = {}
    if a.magical:
        atk = a.atk - pen
        res = sg.resist
        labels = (f"{s.name} spell d20", f"{sg.name} resist d20")
        c = t.ch.draw(Opposed(MagicAttack.model_construct(attack=atk, resist=res), hr, labels))
        rolls = [c.attack, c.defence]
        if t.log is not None:
            assert c.attack is not None and c.defence is not None
            a_total, r_total = c.attack.total + atk, c.defence.total + res
            text = (
                f"{s.name} casts {ability.name} at {sg.name} ({_cost_text(ability)} paid): "
                f"{c.attack.total}{atk:+d} = {a_total} vs resistance {c.defence.total}+{res} = {r_total}."
            )
            data = {"target": sg.name, "ability": ability.name, "cost": ability.cost.model_dump()}
            data.update(attack_total=a_total, resist_total=r_total, result=c.result)
        result = c.result
    else:
        # a tech: resolved like a melee blow against the parry
        g = t.bodies[j]
        parry = not g.parried
        labels = (f"{s.name} tech d20", f"{sg.name} parry d20")
        c = t.ch.draw(
            Opposed(OpposedCheck.model_construct(modifier=at, vs=pa, defender_rolls=parry), hr, labels, parry)
        )
        if parry:
            t.bodies[j] = g._replace(parried=True)
        rolls = [c.attack, c.defence] if parry else [c.attack]
        result = "hit" if c.result == "success" else "resisted"
        if t.log is not None:
            assert c.attack is not None
            a_total = c.attack.total + at
            d_total = c.defence.total + pa if c.defence is not None else pa
            text = (
                f"{s.name} uses {ability.name} on {sg.name} ({_cost_text(ability)} paid): "
                f"{c.attack.total}{at:+d} = {a_total} vs {d_total}."
            )
            data = {"target": sg.name, "ability": ability.name, "cost": ability.cost.model_dump()}
            data.update(attack_total=a_total, defence_total=d_total, result=result)
    if result == "resisted":
        if t.log is not None:
            t.log.append(Event("ability", text + " No effect.", t.rnd, s.name, data, tuple(rolls)))  # type: ignore[arg-type]
        return
    r = t.ch.draw(Roll(a.expr, f"{ability.name} damage {a.expr}"))
    rolls.append(r.record)
    amount = max(0, r.total)
    if result == "half damage":
        amount = dmg.half_damage(amount)
    amount = dmg.reduce_damage(amount, sg.red_magic if a.magical else sg.red)
    notes = _hurt(t, j, amount)
    if t.log is not None:
        verdict = "Half damage" if result == "half damage" else "It hits"
        text += f" {verdict}: {a.expr} rolls {r.total}, {sg.name} takes {amount}."
        text += (" " + " ".join(notes)) if notes else ""
        data.update(damage=amount, hp=t.bodies[j].hp)
        t.log.append(Event("ability", text, t.rnd, s.name, data, tuple(rolls)))  # type: ignore[arg-type]


def _cost_text(a: Ability) -> str:
    return ", ".join(f"{v} {k.upper()}" for k, v in a.cost.model_dump().items() if v)


def _end_of_round(t: _Turn) -> None:
    hr, bodies = t.hr, t.bodies
    for k, f in enumerate(bodies):
        if f.dead:
            continue
        name = t.specs[k].name
        if hr.bleeding and f.hp < 0:
            hp = dmg.bleed(f.hp, hr)
            dead = dmg.is_dead(hp, hr)
            bodies[k] = f._replace(hp=hp, dead=True) if dead else f._replace(hp=hp)
            if t.log is not None:
                text = f"{name} bleeds: {f.hp} -> {hp} HP." + (f" {name} dies." if dead else "")
                t.log.append(Event("bleeding", text, t.rnd, name, {"hp": hp}))
            continue
        if f.unconscious and f.hp > 0 and f.wake_in is not None:
            left = f.wake_in - 1
            if left <= 0:
                bodies[k] = f._replace(unconscious=False, wake_in=None)
                if t.log is not None:
                    t.log.append(Event("wake", f"{name} regains consciousness.", t.rnd, name))
            else:
                bodies[k] = f._replace(wake_in=left)


# --- building the setup -------------------------------------------------------------------


def spec(
    c: Character,
    name: str,
    side: int,
    hr: PhilsysHouseRules,
    tactic: str,
    forced: str | None,
    aim: str | None,
    distance: str,
    choices: tuple[tuple[str, str], ...],
) -> Spec:
    """A fighter's static facts (the automatic choices' lists ordered best first, as the engine picks)."""
    eq = c.equipment
    heals: list[tuple[float, int, Move]] = []
    spells: list[tuple[float, int, Move]] = []
    for pos, a in enumerate(c.abilities):
        if a.effect is None:
            continue
        expr = dmg.ability_damage_expr(c, a)
        cost = (a.cost.mp, a.cost.tp, a.cost.hp)
        if a.effect.kind == "heal":
            heals.append((-mean(expr), pos, Move(*cost, expr, ability=a)))
        elif a.effect.kind == "attack":
            if a.is_spell and c.stats.MAG <= 0:  # MAG 0 'cannot cast magic' (and MAG is never negative)
                continue
            if mean(expr) <= 0:
                continue
            sk = c.skill(a.skill) if a.skill else None
            atk = dmg.spell_attack_modifier(c, sk, 0)
            spells.append((-mean(expr), pos, Move(*cost, expr, a.effect.magical, atk, ability=a)))
    missile = None
    if eq.missile is not None and tactic in ("auto", "missile"):
        sk = c.skill(eq.missile.skill) if eq.missile.skill else None
        missile = (eq.missile, sk.rank if sk else 0, dmg.missile_damage_expr(eq.missile, c.stats.STR))
    at0, pa0 = at_pa(c, hr)
    return Spec(
        name=name,
        side=side,
        top=hp_max(c),
        sta=c.stats.STA,
        at0=at0,
        pa0=pa0,
        shield=eq.shield,
        red=dmg.armor_stops(eq.armor),
        red_magic=dmg.armor_stops(eq.armor, magical=True),
        tactic=tactic,
        choices=choices,
        forced=forced,
        heals=tuple(m for *_, m in sorted(heals, key=lambda x: (x[0], x[1]))),
        spells=tuple(m for *_, m in sorted(spells, key=lambda x: (x[0], x[1]))),
        missile=missile,
        aim=aim or "abdomen",
        mdef=dmg.missile_defence_modifier(c, distance, hr),
        resist=dmg.magic_resist_modifier(c),
        head_shot_kills=c.head_shot_kills,
        has_limbs=c.has_limbs,
        init_bonus=initiative_bonus(c, hr),
        character=c,
    )
