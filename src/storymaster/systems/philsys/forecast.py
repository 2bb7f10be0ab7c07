"""Whole-fight forecasts for Philsys: exact for a duel, simulated (numpy, many fights at once) otherwise.

Neither states the round again: it is written once, in :mod:`.round` (issue 14), and the engine plays it.

**Exact** (``method="exact"``): every duel, one fighter against one (every tactic and house rule). An
absorbing Markov chain over both fighters' HP, reachable (MP, TP, heavy wound, broken shield) and lost
turn to sit out, propagated one round at a time in floating point with numpy: the discrete states that
hold probability each keep an HP grid. Each turn is the round's own (:func:`.round.play_turn`),
enumerated by :func:`~storymaster.forecast.chance.branches` on one pair of fighters per band of HP in
which nothing the round decides on changes (critical health, a quarter of max HP for healing, HP
costs); every outcome then moves the band's whole mass at once. (``test_round.py`` checks the chain
against ``absorb(start, lambda s: branches(lambda ch: play_round(s, ch)))``, state by state, which is
far too slow for 70-HP fighters.) The probability left unresolved when it stops (below 1e-12, or none
at the round cap, where the rest is the draw) is reported as ``error``. The initiative orders are
weighed by their exact odds. A duel with more than ``MAX_CELLS`` potential states is refused (``auto``
then simulates).

**Simulated** (``method="simulate"``): any fight, vectorised over fights (loops over rounds and fighters
only), through :func:`storymaster.forecast.run_simulation`. The turn is the round's, over arrays: every
rule through the array twin of its named function (``melee_result_v``, ``magic_result_v``,
``opposed_wins``, ``affords``, ``pay_cost_v``, ``healed_v``, ``modified_at_pa_v``, ...), each tested
against the scalar on every input of a small domain (``test_rule_twins.py``).

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

from ...errors import OddsError
from ...forecast import Batch, CombatantForecast, Forecast, run_simulation, side_label
from ...forecast.chance import branches
from ...odds import distribution
from . import damage as dmg
from .character import hp_max
from .checks import magic_result_v, melee_result_v, opposed_wins
from .combat import Fighter, FightState, _pick, best_attack, heal_threshold, setup
from .options import PhilsysHouseRules
from .round import (
    Body,
    Move,
    Setup,
    Spec,
    affords,
    end_of_round,
    end_of_round_v,
    hurt,
    hurt_v,
    initiative_pmf,
    initiative_rank_v,
    modified_at_pa_v,
    play_turn,
)

__all__ = [
    "END_STATES",
    "METHODS",
    "end_code",
    "end_code_v",
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
    return END_STATES[end_code(f.hp, f.unconscious, f.dead, hp_max(f.character), hr)]


def end_states(state: FightState) -> dict[str, str]:
    """Every fighter's condition (for :func:`storymaster.forecast.fight_by_fight`)."""
    return {f.name: end_state(f, state.house_rules) for f in state.fighters}


def end_code(hp: int, unconscious: bool, dead: bool, top: int, hr: PhilsysHouseRules) -> int:
    """A fighter's condition as an index into :data:`END_STATES` (``top``: maximum HP)."""
    if dead:
        return DEAD
    if unconscious:
        return UNCONSCIOUS
    if hp >= top:
        return UNHURT
    return WOUNDED if hp > hr.critical_health_threshold else CRITICAL


def end_code_v(
    hp: np.ndarray, unconscious: np.ndarray, dead: np.ndarray, top: Any, hr: PhilsysHouseRules
) -> np.ndarray:
    """:func:`end_code` on arrays (the simulation's twin, tested against it on every input)."""
    out = np.where(hr.critical_health_threshold < hp, WOUNDED, CRITICAL)
    out = np.where(top <= hp, UNHURT, out)
    out = np.where(unconscious, UNCONSCIOUS, out)
    return np.where(dead, DEAD, out)


# --- static facts per fighter ---------------------------------------------------------------


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
    setup: Setup
    n_sides: int

    @property
    def specs(self) -> tuple[Spec, ...]:
        return self.setup.specs

    @property
    def hr(self) -> PhilsysHouseRules:
        return self.state.house_rules

    @property
    def rounds_left(self) -> int:
        return max(1, self.hr.max_rounds - self.state.round)


def _plan(state: FightState) -> _Plan:
    if not isinstance(state, FightState):
        raise OddsError(f"not a philsys fight state: {type(state).__name__}", hint="start one with SYSTEM.combat.start")
    return _Plan(state, setup(state), max(f.side for f in state.fighters) + 1)


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


def initiative_first(specs: Sequence[Any], hr: PhilsysHouseRules) -> float:
    """The exact chance that fighter 0 acts before fighter 1 (from :func:`.round.initiative_pmf`)."""
    pmf = initiative_pmf(tuple(s.init_bonus for s in specs), hr)
    return sum(p for p, ini in pmf if ini.order == (0, 1))


def _reachable(f: Fighter, s: Spec) -> list[tuple[int, int]]:
    """Every (MP, TP) the fighter can come to in a duel, the current one first (for the size bound).

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

#: one outcome of a turn: (probability, attacker's lost-turn flag, attacker's HP change, attacker's state,
#: damage the defender takes, defender's state, defender killed outright)
_Move = tuple[float, int, int, int, int, int, bool]


class _Duel:
    """The chain of a duel: G[(lose_0, lose_1, st_0, st_1)] = an (hp_0, hp_1) grid, for the fights still going.

    ``st`` indexes a fighter's reachable (MP, TP, heavy wound, broken shield); ``lose`` is a
    lost turn to sit out. Every turn is the round's own (:func:`.round.play_turn`), enumerated by
    :func:`~storymaster.forecast.chance.branches` on one fighter pair per band of HP in which nothing
    the round decides on changes (critical health, a quarter of max HP for healing, HP costs); each
    outcome then moves the whole band's mass at once: the attacker's HP by what it paid or healed
    (never above the maximum), the defender's by the damage taken, a defender at 0 HP or less fallen.
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
        self.offset = [0, 0]
        self.fallen = [np.zeros((self.size[a], 1)) for a in (0, 1)]
        self.killed = [np.zeros(self.size[a]) for a in (0, 1)]  # head shots: the winner's HP
        self.standing = [
            np.array([end_code(h, False, False, s.top, self.hr) for h in range(n)])
            for s, n in zip(self.s, self.size, strict=True)
        ]
        self._moves: dict[tuple[int, ...], list[_Move]] = {}
        self._dead: dict[tuple[int, int], np.ndarray] = {}
        cells = 4 * len(self.states[0]) * len(self.states[1]) * self.size[0] * self.size[1]
        if cells > MAX_CELLS:  # the most there could be (only those that hold mass are kept)
            raise OddsError(
                f"the duel has {cells:,} states: too many to forecast exactly", hint="use --method simulate"
            )

    def _states(self, k: int) -> list[tuple[int, int, bool, bool]]:
        """(MP, TP, heavy wound, shield broken) fighter k can come to, the current one first."""
        f, s, hr = self.f[k], self.s[k], self.hr
        heavy0 = f.heavy_wound and hr.heavy_wound_penalty > 0
        sb0 = f.shield_broken and s.shield is not None
        heavies = [heavy0] + ([True] if hr.heavy_wound_penalty and not heavy0 else [])
        sbs = [sb0] + ([True] if hr.shield_breaks and s.shield is not None and not sb0 else [])
        return [(mp, tp, h, b) for (mp, tp) in _reachable(f, s) for h in heavies for b in sbs]

    def bands(self, k: int, attacker: bool) -> list[tuple[int, int]]:
        """[lo, hi) HP bands of fighter k in which nothing the round decides on changes."""
        cuts = {1, self.size[k], self.hr.critical_health_threshold + 1}
        if attacker:
            cuts.add(heal_threshold(self.s[k].top) + 1)
            cuts.update(a.hp + 1 for a in self.s[k].heals + self.s[k].spells)
        edges = sorted(c for c in cuts if 1 <= c <= self.size[k])
        return [(lo, hi) for lo, hi in itertools.pairwise(edges) if lo < hi]

    def body(self, k: int, lose: int, st: int, hp: int) -> Body:
        mp, tp, heavy, broken = self.states[k][st]
        return Body(hp, mp, tp, bool(lose), heavy_wound=heavy, shield_broken=broken)

    def moves(self, a: int, la: int, lb: int, ra: int, rb: int, alo: int, blo: int) -> list[_Move]:
        """Fighter a's turn from the band starting at (alo, blo): every outcome of the round's own turn."""
        key = (a, la, lb, ra, rb, alo, blo)
        out = self._moves.get(key)
        if out is None:
            b = 1 - a
            pair = [self.body(a, la, ra, alo), self.body(b, lb, rb, blo)]
            bodies = tuple(pair) if a == 0 else (pair[1], pair[0])
            out = []
            for q, new in branches(lambda ch: play_turn(self.plan.setup, bodies, a, ch)):
                na, nb = new[a], new[b]
                xa = self.index[a][(na.mp, na.tp, na.heavy_wound, na.shield_broken)]
                xb = self.index[b][(nb.mp, nb.tp, nb.heavy_wound, nb.shield_broken)]
                out.append((q, int(na.lose_turn), na.hp - alo, xa, blo - nb.hp, xb, nb.dead and nb.hp == blo))
            self._moves[key] = out
        return out

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

        top_a = self.s[a].top
        for key, grid in G.items():
            la, lb, ra, rb = key if a == 0 else (key[1], key[0], key[3], key[2])
            M = grid if a == 0 else grid.T  # (hp_a, hp_b)
            for alo, ahi in self.bands(a, True):
                for blo, bhi in self.bands(b, False):
                    block = M[alo:ahi, blo:bhi]
                    if not block.any():
                        continue
                    for q, la2, da, ra2, d, rb2, killed in self.moves(a, la, lb, ra, rb, alo, blo):
                        if killed:  # a head shot's d6: killed outright, whatever the HP
                            self.killed[a][alo + da : ahi + da] += q * block.sum(axis=1)
                        elif da > 0:  # healed (nothing else happens): rows from `cut` on end at max HP
                            assert d == 0
                            cut = max(alo, min(ahi, top_a - da + 1))
                            if alo < cut:
                                put(
                                    la2,
                                    lb,
                                    ra2,
                                    rb2,
                                    slice(alo + da, cut + da),
                                    slice(blo, bhi),
                                    q * block[: cut - alo],
                                )
                            if cut < ahi:
                                rest = q * block[cut - alo :].sum(axis=0, keepdims=True)
                                put(la2, lb, ra2, rb2, slice(top_a, top_a + 1), slice(blo, bhi), rest)
                        else:
                            self.spread(put, q * block, (la2, lb, ra2, rb2), da, d, (alo, ahi), (blo, bhi), a)
        return new

    def spread(
        self,
        put: Callable[..., None],
        block: np.ndarray,
        key: tuple[int, int, int, int],
        da: int,
        d: int,
        arange: tuple[int, int],
        brange: tuple[int, int],
        a: int,
    ) -> None:
        """Move a band's mass: the attacker's HP by ``da``, the defender's down by ``d`` (fallen at 0 or less)."""
        alo, ahi = arange
        blo, bhi = brange
        a2lo, a2hi = alo + da, ahi + da
        s_lo = max(blo, d + 1)
        if s_lo < bhi:
            put(*key, slice(a2lo, a2hi), slice(s_lo - d, bhi - d), block[:, s_lo - blo :])
        f_hi = min(bhi, d + 1)
        if blo < f_hi:  # the defender falls: (winner's HP, loser's HP + offset)
            if d - 1 > self.offset[a]:
                old, grow = self.fallen[a], d - 1 - self.offset[a]
                self.fallen[a] = np.pad(old, ((0, 0), (grow, 0)))
                self.offset[a] = d - 1
            off = self.offset[a]
            self.fallen[a][a2lo:a2hi, blo - d + off : f_hi - d + off] += block[:, : f_hi - blo]

    def loser_dead(self, b: int, width: int) -> np.ndarray:
        """Whether fighter b, put down to each HP from -(width-1) to 0, ends the round dead: the round's own
        blow (unconscious, or dead at the threshold) and end of round (bleeding)."""
        key = (b, width)
        if key in self._dead:
            return self._dead[key]
        out = self._dead[key] = np.zeros(width, dtype=bool)
        other = Body(1, 0, 0)
        for c in range(width):
            pair = [Body(1, 0, 0), other] if b == 0 else [other, Body(1, 0, 0)]
            after = end_of_round(self.plan.setup, hurt(self.plan.setup, tuple(pair), b, 1 - (c - (width - 1))))
            out[c] = after[b].dead
        return out

    def settle_fallen(self, r: int, ends: dict, rounds: dict) -> None:
        """Book the fights decided this round: who won, and how each ended."""
        for a in (0, 1):
            wl = self.standing[a]
            k = self.killed[a]
            if k.any():
                rounds[r] += float(k.sum())
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
            dead = self.loser_dead(1 - a, m.shape[1])
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
                l0, l1 = self.standing
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
        pmf = initiative_pmf(tuple(s.init_bonus for s in plan.specs), plan.hr)
        orders = [(ini.order, p) for p, ini in pmf]
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
        self.SB = col([f.shield_broken and s.shield is not None for f, s in zip(fs, self.specs, strict=True)], bool)
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
        key = initiative_rank_v(total, bonus, self.hr) + gen.random((n, self.N))  # ties: uniform, as re-rolls give
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
        return modified_at_pa_v(
            (s.at0, s.pa0), s.shield, self.SB[rows, k], self.HP[rows, k], self.HEAVY[rows, k], self.hr
        )

    def first_affordable(self, abilities: Sequence[Move], k: int, rows: np.ndarray) -> np.ndarray:
        pick = np.full(rows.size, -1, dtype=np.int64)
        mp, tp, hp = self.MP[rows, k], self.TP[rows, k], self.HP[rows, k]
        for q, a in enumerate(abilities):
            pick[(pick < 0) & affords(mp, tp, hp, a)] = q
        return pick

    def pay(self, k: int, rows: np.ndarray, a: Move) -> None:
        assert a.ability is not None
        paid = dmg.pay_cost_v(self.HP[rows, k], self.MP[rows, k], self.TP[rows, k], a.ability.cost)
        self.HP[rows, k], self.MP[rows, k], self.TP[rows, k] = paid

    def hurt(self, j: int, rows: np.ndarray, amount: np.ndarray) -> None:
        """The round's blow (:func:`.round.hurt`), for many fights."""
        out = hurt_v(
            self.HP[rows, j], self.UNC[rows, j], self.HEAVY[rows, j], self.WAKE[rows, j], amount, self.top[j], self.hr
        )
        self.HP[rows, j], self.UNC[rows, j], dead, self.HEAVY[rows, j], self.WAKE[rows, j] = out
        self.DEAD[rows[dead], j] = True

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
        for k in range(self.N):
            out = end_of_round_v(self.HP[idx, k], self.UNC[idx, k], self.DEAD[idx, k], self.WAKE[idx, k], self.hr)
            self.HP[idx, k], self.UNC[idx, k], self.DEAD[idx, k], self.WAKE[idx, k] = out

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

    def heal(self, k: int, rows: np.ndarray, a: Move, j: int) -> None:
        self.pay(k, rows, a)
        new = dmg.healed_v(self.HP[rows, j], _roll(a.expr, self.gen, rows.size), self.top[j])
        w = self.UNC[rows, j] & (new > 0) & (self.WAKE[rows, j] < 0)
        self.WAKE[rows[w], j] = dmg.wake_delay(self.specs[j].sta)
        self.HP[rows, j] = new

    def cast(self, k: int, rows: np.ndarray, a: Move, j: int) -> None:
        gen, m, hr = self.gen, rows.size, self.hr
        pen = self.pen(k, rows)
        at, _ = self.at_pa(k, rows)
        _, pa = self.at_pa(j, rows)
        self.pay(k, rows, a)
        half = np.zeros(m, dtype=bool)
        if a.magical:
            margin = _d(20, gen, m) + (a.atk - pen) - (_d(20, gen, m) + self.specs[j].resist)
            hit, half = magic_result_v(margin, hr)
        else:
            parry = ~self.PARRIED[rows, j]
            defence = np.where(parry, _d(20, gen, m) + pa, pa)
            self.PARRIED[rows, j] = True
            hit = opposed_wins(_d(20, gen, m) + at, defence)
        amount = np.maximum(0, _roll(a.expr, gen, m))
        amount = np.where(half, dmg.half_damage(amount), amount)
        g = self.specs[j]
        amount = dmg.reduce_damage_v(amount, g.red_magic if a.magical else g.red)
        eff = hit | half
        self.hurt(j, rows[eff], amount[eff])

    def shoot(self, k: int, rows: np.ndarray, j: int) -> None:
        gen, m = self.gen, rows.size
        s, g = self.specs[k], self.specs[j]
        assert s.missile is not None
        aim = dmg.aim_at(s.aim, g.has_limbs)
        atk = dmg.missile_attack_modifier(s.missile[0], s.missile[1], aim) - dmg.missile_wound_penalty_v(
            self.HP[rows, k], self.HEAVY[rows, k], self.hr
        )
        hit = opposed_wins(_d(20, gen, m) + atk, _d(20, gen, m) + g.mdef)
        expression = s.missile[2]
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
            if hr.shield_breaks and g.shield is not None:
                brk = landed & ~self.SB[grp, j] & dmg.shield_overwhelmed_v(raw, g.shield.ac)
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
        return end_code_v(self.HP, self.UNC, self.DEAD, self.top, self.hr)


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
