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
only), through :func:`storymaster.forecast.run_simulation`. Each turn is the round's own over arrays,
:meth:`.twins.Fights.play_turn` (the gate, the automatic choice :func:`.twins.choose_v`, the chosen
action's steps), tested against :func:`.round.play_turn` with the same dice on every input of a small
domain (``test_turn_twin.py``); every rule in it through the array twin of its named function
(``test_rule_twins.py``).

End states, in the book's words: ``unhurt`` (full HP), ``wounded``, ``critical
health`` (at the critical-health threshold or below), ``unconscious``, ``dead``.
A *draw* is a fight still undecided when the engine's round cap is reached (or,
never in practice, one where nobody is left standing). Rounds count the rounds
still to be fought from the given state.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import OddsError
from ...forecast import Batch, CombatantForecast, Forecast, run_simulation, side_label
from ...forecast.chance import branches
from . import damage as dmg
from .character import hp_max
from .combat import Fighter, FightState, _pick, body, heal_threshold, setup
from .options import PhilsysHouseRules
from .round import Body, Setup, Spec, affords, end_of_round, hurt, initiative_pmf, initiative_rank_v, play_turn
from .twins import Fights, GeneratorDice

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

    The automatic choice takes the first heal or attack ability (best first) the fighter affords
    (:func:`.round.affords`): at some HP any of them, up to the first it affords at any HP; each pays its
    cost (:func:`.damage.pay_cost`).
    """
    lists = (s.heals, s.spells) if s.tactic in ("auto", "magic") else ()
    seen = {(f.mp, f.tp): 0}
    queue = [(f.mp, f.tp)]
    while queue:
        mp, tp = queue.pop()
        for abilities in lists:
            for a in abilities:
                if affords(mp, tp, math.inf, a):
                    assert a.ability is not None
                    _, *paid = dmg.pay_cost(0, mp, tp, a.ability.cost)
                    nxt = (paid[0], paid[1])
                    if nxt not in seen:
                        seen[nxt] = len(seen)
                        queue.append(nxt)
                        if len(seen) > MAX_RESOURCE_STATES:
                            raise OddsError("too many MP/TP states to forecast exactly", hint="use --method simulate")
                if affords(mp, tp, 1, a):
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
        self._bands: dict[tuple[int, bool], list[tuple[int, int]]] = {}
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
        """[lo, hi) HP bands of fighter k in which nothing the round reads of its HP changes: its wound
        penalties (:func:`.damage.wound_penalty`, :func:`.damage.missile_wound_penalty`) and, when it acts,
        whether it heals itself (:func:`.round.heal_threshold`) and which abilities it affords."""
        out = self._bands.get((k, attacker))
        if out is None:
            s, hr = self.s[k], self.hr

            def reads(hp: int) -> tuple[Any, ...]:
                pens = [f(hp, hr, h) for f in (dmg.wound_penalty, dmg.missile_wound_penalty) for h in (False, True)]
                acts = [hp <= heal_threshold(s.top), *(affords(math.inf, math.inf, hp, a) for a in s.heals + s.spells)]
                return (*pens, *acts) if attacker else tuple(pens)

            edges = [1, *(h for h in range(2, self.size[k]) if reads(h) != reads(h - 1)), self.size[k]]
            out = self._bands[(k, attacker)] = [(lo, hi) for lo, hi in itertools.pairwise(edges) if lo < hi]
        return out

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


class _Sim(Fights):
    """n fights from the same state: the rounds over arrays, each turn the round's own (:mod:`.twins`)."""

    def __init__(self, plan: _Plan, n: int, gen: np.random.Generator):
        super().__init__(plan.setup, [body(f) for f in plan.state.fighters], n, GeneratorDice(gen))
        self.plan, self.gen = plan, gen
        if plan.state.order:
            self.ORDER = np.tile(np.asarray(plan.state.order, dtype=np.int64), (n, 1))
        else:
            bonus = np.asarray([s.init_bonus for s in self.specs], dtype=np.int64)
            total = gen.integers(1, 7, size=(n, self.N)) + gen.integers(1, 7, size=(n, self.N)) + bonus
            key = initiative_rank_v(total, bonus, self.hr) + gen.random((n, self.N))  # ties: even, as re-rolls
            self.ORDER = np.argsort(-key, axis=1, kind="stable")

    def round(self, idx: np.ndarray) -> None:
        """:func:`.round.play_round`: the parries renewed, every turn in the Turn Sequence, the end of round."""
        self.PARRIED[idx] = False
        for t in range(self.N):
            col = self.ORDER[idx, t]
            for k in range(self.N):
                self.play_turn(k, idx[col == k])
        self.end_of_round(idx)

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
        codes = end_code_v(self.HP, self.UNC, self.DEAD, self.top, self.hr)
        return Batch(winner, rounds, {s.name: codes[:, k] for k, s in enumerate(self.specs)}, END_STATES)


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
