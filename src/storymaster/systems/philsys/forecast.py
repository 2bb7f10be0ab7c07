"""Whole-fight forecasts for Philsys: exact for a duel, simulated (numpy, many fights at once) otherwise.

Both follow the fight engine (:mod:`.combat`) rule for rule and choice for choice:
initiative (bonus + 2d6, ties to the higher modifier then re-rolled), every
conscious fighter's turn in that order, healing a side member at a quarter of
their HP or less, the best affordable attack spell or tech, a missile weapon,
else the melee attack with the best expected damage (the engine's own
:func:`~.combat.best_attack`); AT+d20 against PA+d20 with one parry roll per
defender per round, criticals at the critical margin, damage dice minus AC/3,
critical health and heavy-wound penalties, unconsciousness at 0 HP, death at the
death threshold, bleeding, waking after healing, critical failures losing the
next turn, breaking shields, head shots, and the round cap.

**Exact** (``method="exact"``): every duel, one fighter against one (melee, techs,
spells, healing, shots and head shots, heavy wounds, breaking shields, bleeding,
every house rule). It is an absorbing Markov chain over both fighters' HP,
reachable (MP, TP, heavy wound, broken shield) and lost turn to sit out,
propagated one round at a time in floating point with numpy: the discrete states
that hold probability each keep an HP grid, and a turn moves whole HP bands (where
the engine's choice and penalties are fixed) by every outcome at once. The
probability left unresolved when it stops (below 1e-12, or none at the round cap,
where the rest is the draw) is reported as ``error``. Both initiative orders are
weighed by their exact odds. A duel with more than ``MAX_CELLS`` potential states
is refused (``auto`` then simulates).

**Simulated** (``method="simulate"``): any fight, vectorised over fights (loops
over rounds and fighters only), through :func:`storymaster.forecast.run_simulation`.

End states, in the book's words: ``unhurt`` (full HP), ``wounded``, ``critical
health`` (at the critical-health threshold or below), ``unconscious``, ``dead``.
A *draw* is a fight still undecided when the engine's round cap is reached (or,
never in practice, one where nobody is left standing). Rounds count the rounds
still to be fought from the given state.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ...errors import CombatError, OddsError
from ...forecast import Batch, CombatantForecast, Forecast, run_simulation, side_label
from ...odds import distribution
from . import damage as dmg
from .character import Character, at_pa, hp_max, initiative_bonus
from .checks import MagicAttack, MeleeAttack, MissileAttack, OpposedCheck, check_odds, melee_result_v
from .combat import Fighter, FightState, _pick, best_attack, heal_threshold, melee_options
from .options import PhilsysHouseRules
from .round import mean as _mean

__all__ = [
    "END_STATES",
    "METHODS",
    "end_state",
    "end_states",
    "exact_fits",
    "exact_problem",
    "forecast",
    "simulate_batch",
    "tactics_text",
]

END_STATES: tuple[str, ...] = ("unhurt", "wounded", "critical health", "unconscious", "dead")
UNHURT, WOUNDED, CRITICAL, UNCONSCIOUS, DEAD = range(5)
METHODS = ("auto", "exact", "simulate")
TOLERANCE = 1e-12
BIG = np.iinfo(np.int64).max // 4
SYSTEM_NAME = "philsys"
#: fights simulated at once (bigger chunks spread the per-round Python work over more fights)
CHUNK = 100_000


def end_state(f: Fighter, hr: PhilsysHouseRules) -> str:
    """A fighter's condition in the book's words (see the module docstring)."""
    return END_STATES[_label(f.hp, f.unconscious, f.dead, hp_max(f.character), hr)]


def end_states(state: FightState) -> dict[str, str]:
    """Every fighter's condition (for :func:`storymaster.forecast.fight_by_fight`)."""
    return {f.name: end_state(f, state.house_rules) for f in state.fighters}


def _label(hp: int, unconscious: bool, dead: bool, top: int, hr: PhilsysHouseRules) -> int:
    if dead:
        return DEAD
    if unconscious:
        return UNCONSCIOUS
    if hp >= top:
        return UNHURT
    return WOUNDED if hp > hr.critical_health_threshold else CRITICAL


# --- static facts per fighter ---------------------------------------------------------------


@dataclass(frozen=True)
class _Ability:
    mp: int
    tp: int
    hp: int
    expr: str
    magical: bool = True
    atk: int = 0  # spells: the attack modifier before wound penalties


@dataclass(frozen=True)
class _Spec:
    name: str
    side: int
    top: int  # max HP
    sta: int
    at0: int
    pa0: int
    sh_at: int
    sh_pa: int
    shield_ac: int | None
    red: int  # what the fighter's armour stops of a physical blow (AC/3)
    tactic: str
    choices: tuple[tuple[str, str], ...]
    forced: str | None
    heals: tuple[_Ability, ...]
    spells: tuple[_Ability, ...]
    missile: tuple[int, str] | None  # (accuracy + skill rank, damage expression) when it shoots
    aim: str
    mdef: int  # missile defence modifier
    resist: int  # magic resistance modifier
    head_shot_kills: bool
    has_limbs: bool
    init_bonus: int


def _spec(f: Fighter, state: FightState) -> _Spec:
    c: Character = f.character
    hr, opts = state.house_rules, state.options
    tactic = _pick(opts.tactics, f) or "auto"
    eq = c.equipment
    choices = tuple(melee_options(c, hr))
    forced = _pick(opts.attack, f)
    if forced and forced not in {a for a, _ in choices}:
        raise CombatError(
            f"{f.name} cannot make a {forced!r} attack", hint="choose one of " + ", ".join(a for a, _ in choices)
        )
    heals: list[tuple[float, int, _Ability]] = []
    spells: list[tuple[float, int, _Ability]] = []
    for pos, a in enumerate(c.abilities):
        if a.effect is None:
            continue
        expr = dmg.ability_damage_expr(c, a)
        cost = (a.cost.mp, a.cost.tp, a.cost.hp)
        if a.effect.kind == "heal":
            heals.append((-_mean(expr), pos, _Ability(*cost, expr)))
        elif a.effect.kind == "attack":
            if a.is_spell and c.stats.MAG == 0:
                continue
            if _mean(expr) <= 0:
                continue
            sk = c.skill(a.skill) if a.skill else None
            magical = a.effect.magical
            spells.append((-_mean(expr), pos, _Ability(*cost, expr, magical, dmg.spell_attack_modifier(c, sk, 0))))
    missile = None
    if eq.missile is not None and tactic in ("auto", "missile"):
        sk = c.skill(eq.missile.skill) if eq.missile.skill else None
        missile = (eq.missile.accuracy + (sk.rank if sk else 0), dmg.missile_damage_expr(eq.missile, c.stats.STR))
    at0, pa0 = at_pa(c, hr)
    sh = eq.shield
    return _Spec(
        name=f.name,
        side=f.side,
        top=hp_max(c),
        sta=c.stats.STA,
        at0=at0,
        pa0=pa0,
        sh_at=sh.at if sh else 0,
        sh_pa=sh.pa if sh else 0,
        shield_ac=sh.ac if sh else None,
        red=dmg.armor_stops(eq.armor),
        tactic=tactic,
        choices=choices,
        forced=forced,
        heals=tuple(a for *_, a in sorted(heals, key=lambda t: (t[0], t[1]))),
        spells=tuple(a for *_, a in sorted(spells, key=lambda t: (t[0], t[1]))),
        missile=missile,
        aim=_pick(opts.aim, f) or "abdomen",
        mdef=dmg.missile_defence_modifier(c, opts.distance, hr),
        resist=dmg.magic_resist_modifier(c),
        head_shot_kills=c.head_shot_kills,
        has_limbs=c.has_limbs,
        init_bonus=initiative_bonus(c, hr),
    )


@lru_cache(maxsize=1024)
def _pmf(expression: str) -> tuple[np.ndarray, np.ndarray]:
    d = distribution(expression)
    values = np.asarray(d.outcomes, dtype=np.int64)
    probs = np.asarray(d.quantities, dtype=np.float64) / float(d.denominator)
    return values, probs


@lru_cache(maxsize=1024)
def _cdf(expression: str) -> tuple[np.ndarray, np.ndarray]:
    values, probs = _pmf(expression)
    cum = np.cumsum(probs)
    cum[-1] = 1.0
    return values, cum


def _roll(expression: str, gen: np.random.Generator, m: int) -> np.ndarray:
    values, cum = _cdf(expression)
    idx = np.searchsorted(cum, gen.random(m), side="right")
    return values[np.minimum(idx, len(values) - 1)]


def _d(sides: int, gen: np.random.Generator, m: int) -> np.ndarray:
    return gen.integers(1, sides + 1, size=m)


# --- the plan: what both methods start from -------------------------------------------------


@dataclass(frozen=True)
class _Plan:
    state: FightState
    specs: tuple[_Spec, ...]
    n_sides: int

    @property
    def hr(self) -> PhilsysHouseRules:
        return self.state.house_rules

    @property
    def rounds_left(self) -> int:
        return max(1, self.hr.max_rounds - self.state.round)


def _plan(state: FightState) -> _Plan:
    if not isinstance(state, FightState):
        raise OddsError(f"not a philsys fight state: {type(state).__name__}", hint="start one with SYSTEM.combat.start")
    specs = tuple(_spec(f, state) for f in state.fighters)
    return _Plan(state, specs, max(f.side for f in state.fighters) + 1)


def tactics_text(state: FightState) -> dict[str, str]:
    """Each side's automatic tactics, as the output states them."""
    words = {
        "auto": "auto (heal at 1/4 HP, else spell/tech, else missile, else melee)",
        "melee": "melee",
        "missile": "missile (heal, else shoot)",
        "magic": "magic (heal, else spell/tech, else melee)",
    }
    out: dict[str, list[tuple[str, str]]] = {}
    for f in state.fighters:
        t = _pick(state.options.tactics, f) or "auto"
        extra = []
        if a := _pick(state.options.attack, f):
            extra.append(f"attack {a}")
        if (aim := _pick(state.options.aim, f)) and f.character.equipment.missile is not None:
            extra.append(f"aim {aim}")
        out.setdefault(side_label(f.side), []).append((f.name, words[t] + (f" [{', '.join(extra)}]" if extra else "")))
    return {k: v[0][1] if len({t for _, t in v}) == 1 else "; ".join(f"{n}: {t}" for n, t in v) for k, v in out.items()}


# --- exact: a duel ----------------------------------------------------------------


def exact_problem(state: FightState) -> str | None:
    """Why the fight is not a duel the exact chain covers (None when it is)."""
    if len(state.fighters) != 2:
        return f"{len(state.fighters)} combatants (the exact forecast covers one against one)"
    return None


def exact_fits(state: FightState) -> bool:
    return exact_problem(state) is None


@lru_cache(maxsize=4096)
def _melee_odds(at: int, pa: int, hr: PhilsysHouseRules) -> tuple[float, float, float, float]:
    o = check_odds(MeleeAttack(at=at, pa=pa, parry=True), hr)
    return tuple(float(o.probability(k)) for k in ("critical hit", "hit", "miss", "critical failure"))  # type: ignore[return-value]


def _taken_pmf(expression: str, red: int, p_hit: float, p_crit: float) -> dict[int, float]:
    values, probs = _pmf(expression)
    raw = np.maximum(values, 0)
    out: dict[int, float] = defaultdict(float)
    for r, q in zip(raw.tolist(), probs.tolist(), strict=True):
        if p_hit:
            out[dmg.reduce_damage(r, red)] += p_hit * q
        if p_crit:
            out[dmg.reduce_damage(dmg.critical_damage(r), red)] += p_crit * q
    return out


def initiative_first(specs: Sequence[_Spec], hr: PhilsysHouseRules) -> float:
    """The exact chance that fighter 0 acts before fighter 1 (ties re-rolled: even odds)."""
    two = np.convolve(np.ones(6), np.ones(6)) / 36.0  # 2..12
    use_mod = hr.initiative_ties == "modifier_then_reroll"
    b0, b1 = specs[0].init_bonus, specs[1].init_bonus
    first = tie = 0.0
    for i, p in enumerate(two):
        for j, q in enumerate(two):
            k0 = (i + 2 + b0, b0 if use_mod else 0)
            k1 = (j + 2 + b1, b1 if use_mod else 0)
            if k0 > k1:
                first += p * q
            elif k0 == k1:
                tie += p * q
    return float(first + tie / 2)


def _reachable(f: Fighter, s: _Spec) -> list[tuple[int, int]]:
    """Every (MP, TP) the fighter can come to in a duel, the current one first.

    Costs are only ever paid, and the engine only ever picks the first affordable heal or
    attack ability (best first); an ability with an HP cost may be out of reach at low HP,
    so the next one may be picked instead, up to the first without an HP cost.
    """
    lists = (s.heals, s.spells) if s.tactic in ("auto", "magic") else ()
    seen = {(f.mp, f.tp): 0}
    queue = [(f.mp, f.tp)]
    while queue:
        mp, tp = queue.pop()
        for abilities in lists:
            for a in abilities:
                if not (mp >= a.mp and tp >= a.tp):
                    continue
                nxt = (mp - a.mp, tp - a.tp)
                if nxt not in seen:
                    seen[nxt] = len(seen)
                    queue.append(nxt)
                    if len(seen) > MAX_RESOURCE_STATES:
                        raise OddsError("too many MP/TP states to forecast exactly", hint="use --method simulate")
                if a.hp == 0:
                    break
    return sorted(seen, key=seen.__getitem__)


#: (MP, TP) combinations per fighter, and grid cells in all, that the exact duel takes on
MAX_RESOURCE_STATES = 400
MAX_CELLS = 50_000_000


@lru_cache(maxsize=4096)
def _opposed_odds(at: int, pa: int) -> float:
    """P(at + d20 > pa + d20): a tech against a parry roll."""
    return float(check_odds(OpposedCheck(modifier=at, vs=pa)).probability("success"))


@lru_cache(maxsize=4096)
def _missile_odds(attack: int, defence: int) -> float:
    return float(check_odds(MissileAttack(attack=attack, defence=defence)).probability("hit"))


@lru_cache(maxsize=4096)
def _magic_odds(attack: int, resist: int, hr: PhilsysHouseRules) -> tuple[float, float]:
    o = check_odds(MagicAttack(attack=attack, resist=resist), hr)
    return float(o.probability("hit")), float(o.probability("half damage"))


def _ability_taken(a: _Ability, p_hit: float, p_half: float, armor: Any) -> dict[int, float]:
    values, probs = _pmf(a.expr)
    red = dmg.armor_stops(armor, magical=a.magical)
    out: dict[int, float] = defaultdict(float)
    for v, q in zip(np.maximum(values, 0).tolist(), probs.tolist(), strict=True):
        if p_hit:
            out[dmg.reduce_damage(v, red)] += p_hit * q
        if p_half:
            out[dmg.reduce_damage(dmg.half_damage(v), red)] += p_half * q
    return out


class _Duel:
    """The chain of a duel: G[(lose_0, lose_1, st_0, st_1)] = an (hp_0, hp_1) grid, for the fights still going.

    ``st`` indexes a fighter's reachable (MP, TP, heavy wound, broken shield); ``lose`` is a
    lost turn to sit out. A turn splits each fighter's HP into bands where the engine's
    choice and penalties are fixed (critical health, a quarter of max HP for healing, HP
    costs), and moves each band's mass by every outcome at once.
    """

    def __init__(self, plan: _Plan):
        self.plan = plan
        self.hr = plan.hr
        self.f = plan.state.fighters
        self.s = plan.specs
        self.size = [max(s.top, f.hp) + 1 for s, f in zip(self.s, self.f, strict=True)]
        self.states = [self._states(k) for k in (0, 1)]
        self.index = [{x: i for i, x in enumerate(xs)} for xs in self.states]
        # fallen[a][winner's HP, loser's HP + offset[a]]: the mass a has just put down
        self.offset = [self._max_blow(a) for a in (0, 1)]
        self.fallen = [np.zeros((self.size[a], self.offset[a] + 1)) for a in (0, 1)]
        self.killed = [np.zeros(self.size[a]) for a in (0, 1)]  # head shots: the winner's HP
        cells = 4 * len(self.states[0]) * len(self.states[1]) * self.size[0] * self.size[1]
        if cells > MAX_CELLS:  # the most there could be (only those that hold mass are kept)
            raise OddsError(
                f"the duel has {cells:,} states: too many to forecast exactly", hint="use --method simulate"
            )

    def _states(self, k: int) -> list[tuple[int, int, bool, bool]]:
        """(MP, TP, heavy wound, shield broken) fighter k can come to, the current one first."""
        f, s, hr = self.f[k], self.s[k], self.hr
        heavy0 = f.heavy_wound and hr.heavy_wound_penalty > 0
        sb0 = f.shield_broken and s.shield_ac is not None
        heavies = [heavy0] + ([True] if hr.heavy_wound_penalty and not heavy0 else [])
        sbs = [sb0] + ([True] if hr.shield_breaks and s.shield_ac is not None and not sb0 else [])
        return [(mp, tp, h, b) for (mp, tp) in _reachable(f, s) for h in heavies for b in sbs]

    def shot(self, a: int) -> tuple[str, str, bool]:
        """Fighter a's shot at the other: (aim, damage expression, whether a head shot can kill outright)."""
        s, g = self.s[a], self.s[1 - a]
        assert s.missile is not None
        aim = s.aim
        if aim in ("limb", "head") and not g.has_limbs:
            aim = "abdomen"
        expression = dmg.location_damage_expr(s.missile[1], aim)
        return aim, expression, aim == "head" and g.head_shot_kills

    def _max_blow(self, a: int) -> int:
        """The most damage fighter a can deal in one blow (a critical doubles), bounding the loser's HP."""
        exprs = [e for _, e in self.s[a].choices] + [x.expr for x in self.s[a].spells]
        if self.s[a].missile is not None:
            exprs.append(self.shot(a)[1])
        top = max(max(0, int(_pmf(e)[0].max())) for e in exprs)
        return 2 * top + 1

    def pen(self, hp: int, heavy: bool) -> int:
        return dmg.wound_penalty(hp, self.hr, heavy)

    def bands(self, k: int, attacker: bool) -> list[tuple[int, int]]:
        """[lo, hi) HP bands of fighter k in which nothing the engine decides on changes."""
        cuts = {1, self.size[k], self.hr.critical_health_threshold + 1}
        if attacker:
            cuts.add(heal_threshold(self.s[k].top) + 1)
            cuts.update(a.hp + 1 for a in self.s[k].heals + self.s[k].spells)
        edges = sorted(c for c in cuts if 1 <= c <= self.size[k])
        return [(lo, hi) for lo, hi in itertools.pairwise(edges) if lo < hi]

    def at_pa(self, k: int, broken: bool) -> tuple[int, int]:
        s = self.s[k]
        if broken and s.shield_ac is not None:
            return s.at0 - s.sh_at, s.pa0 - s.sh_pa
        return s.at0, s.pa0

    def labels(self, k: int, lo: int, hi: int) -> np.ndarray:
        hp = np.arange(lo, hi)
        return np.where(
            hp >= self.s[k].top, UNHURT, np.where(hp > self.hr.critical_health_threshold, WOUNDED, CRITICAL)
        )

    def loser_dead(self, final: np.ndarray) -> np.ndarray:
        return dmg.is_dead_v(dmg.bleed_v(final, self.hr), self.hr)

    def after(self, b: int, xb: tuple[int, int, bool, bool], taken: int, raw: int | None) -> int:
        """The defender's state index after taking ``taken`` (``raw``: a melee blow's damage before armour)."""
        hr, s = self.hr, self.s[b]
        mp, tp, heavy, broken = xb
        heavy = heavy or bool(hr.heavy_wound_penalty and dmg.heavy_blow(taken, s.top))
        broken = broken or bool(
            raw is not None
            and hr.shield_breaks
            and s.shield_ac is not None
            and dmg.shield_overwhelmed(raw, s.shield_ac)
        )
        return self.index[b][(mp, tp, heavy, broken)]

    def choose(self, a: int, xa: tuple, ha: int, xb: tuple, hb: int) -> tuple[str, Any]:
        """The engine's choice for fighter a in state xa at HP ha (the other's state and HP for the penalties)."""
        s = self.s[a]
        mp, tp = xa[0], xa[1]
        if s.tactic in ("auto", "magic"):
            if ha <= heal_threshold(s.top):
                for h in s.heals:
                    if mp >= h.mp and tp >= h.tp and ha > h.hp:
                        return "heal", h
            for sp in s.spells:
                if mp >= sp.mp and tp >= sp.tp and ha > sp.hp:
                    return "ability", sp
        b = 1 - a
        if s.missile is not None:
            return "shoot", self.shot(a)
        if s.forced:
            return "melee", next((x, e) for x, e in s.choices if x == s.forced)
        at, _ = self.at_pa(a, xa[3])
        _, pa = self.at_pa(b, xb[3])
        return "melee", best_attack(
            s.choices, at - self.pen(ha, xa[2]), pa - self.pen(hb, xb[2]), True, self.s[b].red, self.hr
        )

    def turn(self, G: dict, a: int) -> dict:
        """Fighter a's turn on every fight still going: G maps (lose0, lose1, st0, st1) to an HP grid (hp0, hp1)."""
        b = 1 - a
        new: dict[tuple[int, int, int, int], np.ndarray] = {}
        shape = (self.size[0], self.size[1])

        def put(la: int, lb: int, ra: int, rb: int, rows: Any, cols: Any, values: np.ndarray) -> None:
            key = (la, lb, ra, rb) if a == 0 else (lb, la, rb, ra)
            grid = new.get(key)
            if grid is None:
                grid = new[key] = np.zeros(shape)
            if a == 0:
                grid[rows, cols] += values
            else:
                grid[cols, rows] += values.T

        hr = self.hr
        lose_to = 1 if hr.critical_failure_effect == "lose_next_turn" else 0
        armor_b = self.f[b].character.equipment.armor
        red = dmg.armor_stops(armor_b)
        top_a = self.s[a].top
        for key, grid in G.items():
            la, lb, ra, rb = key if a == 0 else (key[1], key[0], key[3], key[2])
            M = grid if a == 0 else grid.T  # (hp_a, hp_b)
            if la:  # a lost turn is sat out
                put(0, lb, ra, rb, slice(None), slice(None), M)
                continue
            xa, xb = self.states[a][ra], self.states[b][rb]
            for alo, ahi in self.bands(a, True):
                for blo, bhi in self.bands(b, False):
                    block = M[alo:ahi, blo:bhi]
                    if not block.any():
                        continue
                    pen_a, pen_b = self.pen(alo, xa[2]), self.pen(blo, xb[2])
                    at = self.at_pa(a, xa[3])[0] - pen_a
                    pa = self.at_pa(b, xb[3])[1] - pen_b
                    kind, what = self.choose(a, xa, alo, xb, blo)
                    if kind == "heal":
                        ra2 = self.index[a][(xa[0] - what.mp, xa[1] - what.tp, xa[2], xa[3])]
                        values, probs = _pmf(what.expr)
                        for x, q in zip(np.maximum(values, 0).tolist(), probs.tolist(), strict=True):
                            # new HP = min(max HP, HP - cost + x)
                            shift = x - what.hp
                            cut = max(alo, min(ahi, top_a - shift + 1))  # rows from here on end at max HP
                            if alo < cut:
                                put(
                                    0,
                                    lb,
                                    ra2,
                                    rb,
                                    slice(alo + shift, cut + shift),
                                    slice(blo, bhi),
                                    q * block[: cut - alo],
                                )
                            if cut < ahi:
                                put(
                                    0,
                                    lb,
                                    ra2,
                                    rb,
                                    slice(top_a, top_a + 1),
                                    slice(blo, bhi),
                                    q * block[cut - alo :].sum(axis=0, keepdims=True),
                                )
                        continue
                    if kind == "shoot":
                        aim, expression, can_kill = what
                        atk = self.s[a].missile[0] + dmg.location_modifier(aim) - pen_a
                        p_hit = _missile_odds(atk, self.s[b].mdef)
                        p_kill = p_hit * dmg.head_shot_kill_chance() if can_kill else 0.0
                        taken = _taken_pmf(expression, red, p_hit - p_kill, 0.0)
                        outcomes = [(1.0 - p_hit, 0, 0, rb)]
                        outcomes += [(q, 0, d, self.after(b, xb, d, None)) for d, q in taken.items()]
                        self.spread(put, block, outcomes, lb, ra, 0, (alo, ahi), (blo, bhi), a)
                        if p_kill:  # the d6 shows 1-5: killed outright, whatever the HP
                            self.killed[a][alo:ahi] += p_kill * block.sum(axis=1)
                        continue
                    if kind == "ability":
                        ra2 = self.index[a][(xa[0] - what.mp, xa[1] - what.tp, xa[2], xa[3])]
                        if what.magical:
                            p_hit, p_half = _magic_odds(what.atk - pen_a, self.s[b].resist, hr)
                        else:
                            p_hit, p_half = _opposed_odds(at, pa), 0.0
                        taken = _ability_taken(what, p_hit, p_half, armor_b)
                        outcomes = [(1.0 - p_hit - p_half, 0, 0, rb)]
                        outcomes += [(q, 0, d, self.after(b, xb, d, None)) for d, q in taken.items()]
                        self.spread(put, block, outcomes, lb, ra2, what.hp, (alo, ahi), (blo, bhi), a)
                        continue
                    attack, expression = what
                    p_crit, p_hit, p_miss, p_cf = _melee_odds(at + dmg.attack_penalty(attack), pa, hr)
                    outcomes = [(p_miss, 0, 0, rb), (p_cf, lose_to, 0, rb)]
                    merged: dict[tuple[int, int], float] = defaultdict(float)
                    values, probs = _pmf(expression)
                    for v, q in zip(np.maximum(values, 0).tolist(), probs.tolist(), strict=True):
                        for p, raw in ((p_hit, v), (p_crit, dmg.critical_damage(v))):
                            if p:
                                d = dmg.reduce_damage(raw, red)
                                merged[(d, self.after(b, xb, d, raw))] += p * q
                    outcomes += [(q, 0, d, rb2) for (d, rb2), q in merged.items()]
                    self.spread(put, block, outcomes, lb, ra, 0, (alo, ahi), (blo, bhi), a)
        return new

    def spread(
        self,
        put: Callable[..., None],
        block: np.ndarray,
        outcomes: list[tuple[float, int, int, int]],
        lb: int,
        ra2: int,
        cost_hp: int,
        arange: tuple[int, int],
        brange: tuple[int, int],
        a: int,
    ) -> None:
        """Move a band's mass by each (probability, attacker's lose flag, damage, defender's new state)."""
        alo, ahi = arange
        blo, bhi = brange
        a2lo, a2hi = alo - cost_hp, ahi - cost_hp
        fallen = self.fallen[a]
        off = self.offset[a]
        for q, lose, d, rb2 in outcomes:
            if q <= 0:
                continue
            s_lo = max(blo, d + 1)
            if s_lo < bhi:
                put(lose, lb, ra2, rb2, slice(a2lo, a2hi), slice(s_lo - d, bhi - d), q * block[:, s_lo - blo :])
            f_hi = min(bhi, d + 1)
            if blo < f_hi:  # the defender falls: (winner's HP, loser's HP + offset)
                fallen[a2lo:a2hi, blo - d + off : f_hi - d + off] += q * block[:, : f_hi - blo]

    def settle_fallen(self, r: int, ends: dict, rounds: dict) -> None:
        """Book the fights decided this round: who won, and how each ended."""
        for a in (0, 1):
            k = self.killed[a]
            if k.any():
                rounds[r] += float(k.sum())
                wl = self.labels(a, 0, k.size)
                for w in (UNHURT, WOUNDED, CRITICAL):
                    p = float(k[wl == w].sum())
                    if p:
                        ends[(a, w, DEAD) if a == 0 else (a, DEAD, w)] += p
                k[...] = 0.0
            m = self.fallen[a]
            total = float(m.sum())
            if total == 0.0:
                continue
            rounds[r] += total
            wl = self.labels(a, 0, m.shape[0])
            dead = self.loser_dead(np.arange(m.shape[1]) - self.offset[a])
            for w in (UNHURT, WOUNDED, CRITICAL):
                rows = m[wl == w]
                if rows.size == 0:
                    continue
                for lab, cols in ((DEAD, dead), (UNCONSCIOUS, ~dead)):
                    p = float(rows[:, cols].sum())
                    if p:
                        ends[(a, w, lab) if a == 0 else (a, lab, w)] += p
            m[...] = 0.0

    def run(self, order: Sequence[int]) -> tuple[dict, dict, float]:
        f0, f1 = self.f
        start = np.zeros((self.size[0], self.size[1]))
        start[f0.hp, f1.hp] = 1.0
        G = {(int(f0.lose_turn), int(f1.lose_turn), 0, 0): start}
        ends: dict[tuple[int, int, int], float] = defaultdict(float)
        rounds: dict[int, float] = defaultdict(float)
        left = self.plan.rounds_left
        live = 1.0
        for r in range(1, left + 1):
            for a in order:
                G = self.turn(G, a)
            self.settle_fallen(r, ends, rounds)
            G = {k: g for k, g in G.items() if g.any()}
            live = float(sum(g.sum() for g in G.values()))
            if r == left and live > 0:  # the round cap: what is left is the draw
                joint = sum(G.values())
                l0 = self.labels(0, 0, self.size[0])
                l1 = self.labels(1, 0, self.size[1])
                for x in (UNHURT, WOUNDED, CRITICAL):
                    for y in (UNHURT, WOUNDED, CRITICAL):
                        p = float(joint[l0 == x][:, l1 == y].sum())
                        if p:
                            ends[(-1, x, y)] += p
                rounds[r] += live
                live = 0.0
                break
            if live < TOLERANCE:
                break
        return ends, rounds, live


def _exact(plan: _Plan) -> Forecast:
    problem = exact_problem(plan.state)
    if problem is not None:
        raise OddsError(f"no exact forecast for this fight: {problem}", hint="use --method simulate (or auto)")
    duel = _Duel(plan)
    if plan.state.order:
        orders = [(tuple(plan.state.order), 1.0)]
    else:
        p = initiative_first(plan.specs, plan.hr)
        orders = [((0, 1), p), ((1, 0), 1.0 - p)]
    ends: dict[tuple[int, int, int], float] = defaultdict(float)
    rounds: dict[int, float] = defaultdict(float)
    error = 0.0
    for order, w in orders:
        if w <= 0:
            continue
        e, r, live = duel.run(order)
        for k, v in e.items():
            ends[k] += float(w * v)
        for k, v in r.items():
            rounds[k] += float(w * v)
        error += float(w * live)
    p_win = [0.0] * plan.n_sides
    per: list[dict[str, float]] = [defaultdict(float), defaultdict(float)]
    p_draw = 0.0
    for (who, l0, l1), p in ends.items():
        if who < 0:
            p_draw += p
        else:
            p_win[plan.specs[who].side] += p
        per[0][END_STATES[l0]] += p
        per[1][END_STATES[l1]] += p
    return Forecast(
        system=SYSTEM_NAME,
        method="exact",
        sides=_sides(plan),
        p_win=tuple(p_win),
        p_draw=p_draw,
        rounds=dict(sorted(rounds.items())),
        combatants=tuple(CombatantForecast(s.name, s.side, dict(per[k])) for k, s in enumerate(plan.specs)),
        error=error,
        tactics=tactics_text(plan.state),
        draw_meaning=_draw_meaning(plan),
        notes=(
            "exact: an absorbing Markov chain over both fighters' HP, MP and TP (a duel); "
            "initiative orders weighed by their exact odds",
        ),
    )


# --- simulated: any fight, many at once ---------------------------------------------------


def _groups(at: np.ndarray, pa: np.ndarray, parry: np.ndarray):
    """The distinct (AT, PA, parry) among many fights (a handful), each with its mask; no sorting."""
    a0, p0 = int(at.min()), int(pa.min())
    wa, wp = int(at.max()) - a0 + 1, int(pa.max()) - p0 + 1
    key = ((at - a0) * wp + (pa - p0)) * 2 + parry
    for u in np.nonzero(np.bincount(key, minlength=wa * wp * 2))[0].tolist():
        par, rest = u % 2, u // 2
        yield a0 + rest // wp, p0 + rest % wp, par, key == u


class _Sim:
    """n fights from the same state, as arrays (fights x fighters)."""

    def __init__(self, plan: _Plan, n: int, gen: np.random.Generator):
        self.plan, self.n, self.gen = plan, n, gen
        self.hr = plan.hr
        fs = plan.state.fighters
        self.N = len(fs)
        self.specs = plan.specs

        def col(values: Sequence[Any], dtype: Any) -> np.ndarray:
            return np.tile(np.asarray(values, dtype=dtype), (n, 1))

        self.HP = col([f.hp for f in fs], np.int64)
        self.MP = col([f.mp for f in fs], np.int64)
        self.TP = col([f.tp for f in fs], np.int64)
        self.LOSE = col([f.lose_turn for f in fs], bool)
        self.UNC = col([f.unconscious for f in fs], bool)
        self.DEAD = col([f.dead for f in fs], bool)
        self.WAKE = col([-1 if f.wake_in is None else f.wake_in for f in fs], np.int64)
        self.HEAVY = col([f.heavy_wound for f in fs], bool)
        self.SB = col([f.shield_broken and s.shield_ac is not None for f, s in zip(fs, self.specs, strict=True)], bool)
        self.PARRIED = np.zeros((n, self.N), dtype=bool)
        self.side = np.asarray([s.side for s in self.specs])
        self.top = np.asarray([s.top for s in self.specs])
        if plan.state.order:
            self.ORDER = np.tile(np.asarray(plan.state.order, dtype=np.int64), (n, 1))
        else:
            self.ORDER = self.initiative()

    # -- helpers
    def initiative(self) -> np.ndarray:
        gen, n = self.gen, self.n
        bonus = np.asarray([s.init_bonus for s in self.specs], dtype=np.int64)
        total = gen.integers(1, 7, size=(n, self.N)) + gen.integers(1, 7, size=(n, self.N)) + bonus
        mod = bonus if self.hr.initiative_ties == "modifier_then_reroll" else np.zeros_like(bonus)
        key = total * 4096.0 + (mod + 1024) + gen.random((n, self.N))  # ties: a uniform order, as re-rolls give
        return np.argsort(-key, axis=1, kind="stable")

    def active(self, rows: np.ndarray) -> np.ndarray:
        return ~self.UNC[rows] & ~self.DEAD[rows]

    def active_one(self, rows: np.ndarray, k: int) -> np.ndarray:
        return ~self.UNC[rows, k] & ~self.DEAD[rows, k]

    def sides_standing(self, rows: np.ndarray) -> np.ndarray:
        out = np.zeros((rows.size, self.plan.n_sides), dtype=bool)
        for k in range(self.N):
            out[:, self.side[k]] |= self.active_one(rows, k)
        return out

    def pen(self, k: int, rows: np.ndarray) -> np.ndarray:
        return dmg.wound_penalty_v(self.HP[rows, k], self.HEAVY[rows, k], self.hr)

    def at_pa(self, k: int, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s = self.specs[k]
        sb = self.SB[rows, k]
        p = self.pen(k, rows)
        return s.at0 - s.sh_at * sb - p, s.pa0 - s.sh_pa * sb - p

    def first_affordable(self, abilities: Sequence[_Ability], k: int, rows: np.ndarray) -> np.ndarray:
        pick = np.full(rows.size, -1, dtype=np.int64)
        mp, tp, hp = self.MP[rows, k], self.TP[rows, k], self.HP[rows, k]
        for q, a in enumerate(abilities):
            ok = (pick < 0) & (mp >= a.mp) & (tp >= a.tp) & (hp > a.hp)
            pick[ok] = q
        return pick

    def pay(self, k: int, rows: np.ndarray, a: _Ability) -> None:
        self.HP[rows, k] -= a.hp
        self.MP[rows, k] -= a.mp
        self.TP[rows, k] -= a.tp

    def hurt(self, j: int, rows: np.ndarray, amount: np.ndarray) -> None:
        """The engine's _damage_target, for many fights."""
        hr = self.hr
        hp = self.HP[rows, j] - amount
        if hr.heavy_wound_penalty:
            self.HEAVY[rows, j] |= dmg.heavy_blow_v(amount, self.top[j])
        dead = dmg.is_dead_v(hp, hr)
        self.DEAD[rows[dead], j] = True
        self.UNC[rows[dead], j] = True
        ko = ~dead & (hp <= 0) & ~self.UNC[rows, j]
        self.UNC[rows[ko], j] = True
        self.WAKE[rows[ko], j] = -1
        self.HP[rows, j] = hp

    # -- a round
    def round(self, idx: np.ndarray) -> None:
        self.PARRIED[idx] = False
        for t in range(self.N):
            col = self.ORDER[idx, t]
            for k in range(self.N):
                sel = idx[col == k]
                if sel.size == 0:
                    continue
                sel = sel[self.active_one(sel, k)]
                lose = self.LOSE[sel, k]
                self.LOSE[sel[lose], k] = False
                sel = sel[~lose]
                if sel.size == 0:
                    continue
                sel = sel[self.sides_standing(sel).sum(axis=1) > 1]
                if sel.size:
                    self.turn(k, sel)
        self.end_of_round(idx)

    def end_of_round(self, idx: np.ndarray) -> None:
        hr = self.hr
        for k in range(self.N):
            alive = ~self.DEAD[idx, k]
            if hr.bleeding:
                b = alive & (self.HP[idx, k] < 0)
                rows = idx[b]
                self.HP[rows, k] = dmg.bleed_v(self.HP[rows, k], hr)
                self.DEAD[rows[dmg.is_dead_v(self.HP[rows, k], hr)], k] = True
                alive &= ~b
            w = alive & self.UNC[idx, k] & (self.HP[idx, k] > 0) & (self.WAKE[idx, k] >= 0)
            rows = idx[w]
            left = self.WAKE[rows, k] - 1
            up = left <= 0
            self.UNC[rows[up], k] = False
            self.WAKE[rows[up], k] = -1
            self.WAKE[rows[~up], k] = left[~up]

    def turn(self, k: int, sel: np.ndarray) -> None:
        s = self.specs[k]
        if s.tactic in ("auto", "magic") and s.heals:
            h = self.first_affordable(s.heals, k, sel)
            allies = np.nonzero(self.side == s.side)[0]
            hp = self.HP[sel][:, allies]
            hurt = ~self.DEAD[sel][:, allies] & (hp <= heal_threshold(self.top[allies]))  # type: ignore[arg-type]
            tgt = allies[np.argmin(np.where(hurt, hp, BIG), axis=1)]
            do = (h >= 0) & hurt.any(axis=1)
            for q in np.unique(h[do]):
                for j in np.unique(tgt[do & (h == q)]):
                    self.heal(k, sel[do & (h == q) & (tgt == j)], s.heals[q], int(j))
            sel = sel[~do]
            if sel.size == 0:
                return
        enemies = np.nonzero(self.side != s.side)[0]
        if enemies.size == 1:
            target = np.full(sel.size, enemies[0])
        else:
            key = np.stack([np.where(self.active_one(sel, e), self.HP[sel, e], BIG) for e in enemies.tolist()], axis=1)
            target = enemies[np.argmin(key, axis=1)]
        if s.tactic in ("auto", "magic") and s.spells:
            q = self.first_affordable(s.spells, k, sel)
            do = q >= 0
            for a in np.unique(q[do]):
                for j in np.unique(target[do & (q == a)]):
                    self.cast(k, sel[do & (q == a) & (target == j)], s.spells[a], int(j))
            sel, target = sel[~do], target[~do]
        for j in enemies.tolist():
            rows = sel[target == j]
            if rows.size == 0:
                continue
            if s.missile is not None:
                self.shoot(k, rows, int(j))
            else:
                self.melee(k, rows, int(j))

    def heal(self, k: int, rows: np.ndarray, a: _Ability, j: int) -> None:
        self.pay(k, rows, a)
        amount = np.maximum(0, _roll(a.expr, self.gen, rows.size))
        new = np.minimum(self.top[j], self.HP[rows, j] + amount)
        w = self.UNC[rows, j] & (new > 0) & (self.WAKE[rows, j] < 0)
        self.WAKE[rows[w], j] = dmg.wake_delay(self.specs[j].sta)
        self.HP[rows, j] = new

    def cast(self, k: int, rows: np.ndarray, a: _Ability, j: int) -> None:
        gen, m, hr = self.gen, rows.size, self.hr
        pen = self.pen(k, rows)
        at, _ = self.at_pa(k, rows)
        _, pa = self.at_pa(j, rows)
        self.pay(k, rows, a)
        half = np.zeros(m, dtype=bool)
        if a.magical:
            margin = _d(20, gen, m) + (a.atk - pen) - (_d(20, gen, m) + self.specs[j].resist)
            hit = margin > 0
            if hr.near_miss_half_damage:
                half = ~hit & (margin >= -1)
        else:
            parry = ~self.PARRIED[rows, j]
            defence = np.where(parry, _d(20, gen, m) + pa, pa)
            self.PARRIED[rows, j] = True
            hit = _d(20, gen, m) + at > defence
        amount = np.maximum(0, _roll(a.expr, gen, m))
        amount = np.where(half, dmg.half_damage(amount), amount)
        armor = self.plan.state.fighters[j].character.equipment.armor
        amount = dmg.reduce_damage_v(amount, dmg.armor_stops(armor, magical=a.magical))
        eff = hit | half
        self.hurt(j, rows[eff], amount[eff])

    def shoot(self, k: int, rows: np.ndarray, j: int) -> None:
        gen, m = self.gen, rows.size
        s, g = self.specs[k], self.specs[j]
        assert s.missile is not None
        aim = s.aim
        if aim in ("limb", "head") and not g.has_limbs:
            aim = "abdomen"
        atk = s.missile[0] + dmg.location_modifier(aim) - self.pen(k, rows)
        hit = _d(20, gen, m) + atk > _d(20, gen, m) + g.mdef
        expression = s.missile[1]
        if aim == "head" and g.head_shot_kills:
            kill = hit & dmg.head_shot_kills_on_v(_d(6, gen, m))
            self.DEAD[rows[kill], j] = True
            self.UNC[rows[kill], j] = True
            hit &= ~kill
        expression = dmg.location_damage_expr(expression, aim)
        taken = dmg.reduce_damage_v(np.maximum(0, _roll(expression, gen, m)), g.red)
        self.hurt(j, rows[hit], taken[hit])

    def melee(self, k: int, rows: np.ndarray, j: int) -> None:
        gen, hr = self.gen, self.hr
        s, g = self.specs[k], self.specs[j]
        at, _ = self.at_pa(k, rows)
        _, pa = self.at_pa(j, rows)
        parry = ~self.PARRIED[rows, j]
        red = g.red
        for at_u, pa_u, par_u, pick in _groups(at, pa, parry):
            grp = rows[pick]
            m = grp.size
            if s.forced:
                attack, expression = next((x, e) for x, e in s.choices if x == s.forced)
            else:
                attack, expression = best_attack(s.choices, at_u, pa_u, bool(par_u), red, hr)
            a_total = _d(20, gen, m) + at_u + dmg.attack_penalty(attack)
            d_total = _d(20, gen, m) + pa_u if par_u else np.full(m, pa_u)
            if par_u:
                self.PARRIED[grp, j] = True
            crit, hit, fail = melee_result_v(a_total - d_total, bool(par_u), hr)
            raw = np.maximum(0, _roll(expression, gen, m))
            raw = np.where(crit, dmg.critical_damage(raw), raw)
            taken = dmg.reduce_damage_v(raw, red)
            landed = crit | hit
            if hr.shield_breaks and g.shield_ac is not None:
                brk = landed & ~self.SB[grp, j] & dmg.shield_overwhelmed_v(raw, g.shield_ac)
                self.SB[grp[brk], j] = True
            self.hurt(j, grp[landed], taken[landed])
            if hr.critical_failure_effect == "lose_next_turn":
                self.LOSE[grp[fail], k] = True

    # -- the whole fight
    def run(self) -> Batch:
        n = self.n
        over = np.zeros(n, dtype=bool)
        winner = np.full(n, -1, dtype=np.int64)
        rounds = np.zeros(n, dtype=np.int64)
        left = self.plan.rounds_left
        for r in range(1, left + 1):
            idx = np.nonzero(~over)[0]
            if idx.size == 0:
                break
            self.round(idx)
            standing = self.sides_standing(idx)
            count = standing.sum(axis=1)
            done = count <= 1
            win = np.where(count == 1, np.argmax(standing, axis=1), -1)
            if r == left:
                done[:] = True
            over[idx[done]] = True
            winner[idx[done]] = win[done]
            rounds[idx[done]] = r
        codes = self.codes()
        return Batch(winner, rounds, {s.name: codes[:, k] for k, s in enumerate(self.specs)}, END_STATES)

    def codes(self) -> np.ndarray:
        thr = self.hr.critical_health_threshold
        out = np.where(thr < self.HP, WOUNDED, CRITICAL)
        out = np.where(self.top <= self.HP, UNHURT, out)
        out = np.where(self.UNC, UNCONSCIOUS, out)
        return np.where(self.DEAD, DEAD, out)


def simulate_batch(state: FightState) -> Callable[[int, np.random.Generator], Batch]:
    """The batch simulator of a fight (n fights at once), as :func:`run_simulation` takes it."""
    return _batches(_plan(state))


def _batches(plan: _Plan) -> Callable[[int, np.random.Generator], Batch]:
    return lambda n, gen: _Sim(plan, n, gen).run()


def _simulated(plan: _Plan, samples: int, seed: int, progress: Any) -> Forecast:
    return run_simulation(
        SYSTEM_NAME,
        _batches(plan),
        sides=_sides(plan),
        combatant_sides={s.name: s.side for s in plan.specs},
        samples=samples,
        seed=seed,
        chunk=CHUNK,
        tactics=tactics_text(plan.state),
        draw_meaning=_draw_meaning(plan),
        progress=progress,
    )


# --- the entry point ------------------------------------------------------------------------


def _sides(plan: _Plan) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(s.name for s in plan.specs if s.side == i) for i in range(plan.n_sides))


def _draw_meaning(plan: _Plan) -> str:
    return f"draw (both sides still standing at the round cap, round {plan.hr.max_rounds})"


def _finished(plan: _Plan) -> Forecast:
    st = plan.state
    p_win = tuple(1.0 if st.winner == i else 0.0 for i in range(plan.n_sides))
    return Forecast(
        system=SYSTEM_NAME,
        method="exact",
        sides=_sides(plan),
        p_win=p_win,
        p_draw=0.0 if st.winner is not None else 1.0,
        rounds={0: 1.0},
        combatants=tuple(CombatantForecast(f.name, f.side, {end_state(f, st.house_rules): 1.0}) for f in st.fighters),
        error=0.0,
        tactics=tactics_text(st),
        draw_meaning=_draw_meaning(plan),
        notes=("the fight is already over",),
    )


def forecast(
    state: FightState, *, method: str = "auto", samples: int = 100_000, seed: int = 0, progress: Any = None
) -> Forecast:
    """The odds of the whole fight from ``state`` (a start or a saved mid-fight state); see the module docstring."""
    if method not in METHODS:
        raise OddsError(f"unknown forecast method {method!r}", hint="auto, exact or simulate")
    plan = _plan(state)
    if state.over:
        return _finished(plan)
    if method == "exact":
        return _exact(plan)
    if method == "auto" and exact_fits(state):
        try:
            return _exact(plan)
        except OddsError:  # too many states for the chain
            pass
    return _simulated(plan, samples, seed, progress)
