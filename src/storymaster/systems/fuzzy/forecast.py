"""Whole-fight forecasts for Loose and Fuzzy fights: an exact chain for duels, numpy simulation otherwise.

Neither states a rule of its own: the chain plays the engine's round, the simulation its rules' twins.

* **Exact** (:func:`exact_forecast`): a duel, i.e. exactly one fighter still
  up on each side (at the start of a fight or mid-way; the others' ends are
  known). The chain's state is both Advantage Point pools, each fighter's
  worst wound, status, dying / knocked-out flags, roll bonus and the
  manoeuvres bought. One round is the engine's own round,
  :func:`~storymaster.systems.fuzzy.combat.play_round`, enumerated with
  :func:`storymaster.forecast.branches`: nothing of the rules is stated here.
  Solved with :func:`storymaster.forecast.absorb` in floating point; the
  probability left unresolved is reported as the error bound. Refused
  (:class:`OddsError`) for several fighters a side, for
  ``advantage_on_loss: offset`` with a fighter who cannot hurt (his pool grows
  without limit) and for the non-lethal Body test (every failed test leaves
  the points over, so pools grow far).
* **Simulated** (:func:`simulate_forecast`): anything, many fights at once in
  numpy arrays (a Python loop over rounds and fighters only), the same round
  through the rules' vectorised twins (:mod:`storymaster.systems.fuzzy.vectorised`),
  via :func:`storymaster.forecast.run_simulation`.

A draw is a fight nobody wins: both sides down in the same round (possible only
with several fighters a side) or a stand-off at the ``max_rounds`` cap. Rounds
are counted from the state forecast (the further rounds a fight lasts).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from ...errors import OddsError
from ...forecast import Batch, Chance, CombatantForecast, Forecast, absorb, branches, run_simulation
from .combat import CombatTactics, Fighter, FightState, Pool, can_harm, plan_round, roll_exchanges, spend_points
from .vectorised import (
    LEVELS,
    STATUSES,
    FightTables,
    TotalSampler,
    carry_over_v,
    harm_level_v,
    harm_spend_v,
    with_worst,
)

__all__ = [
    "DRAW_MEANING",
    "STATE_NAMES",
    "describe_tactics",
    "end_label",
    "end_states",
    "exact_forecast",
    "forecast",
    "simulate_forecast",
]

SYSTEM_NAME = "fuzzy"
DRAW_MEANING = "draw (all down at once, or a stand-off at the round cap)"

FIGHTING, UNCONSCIOUS, DEAD = (STATUSES.index(s) for s in ("fighting", "unconscious", "dead"))
UP_WORDS = ("unhurt", "moderate wound", "serious wound", "mortal wound")
#: a stand-off mass at the round cap above this gets its own pass (with the round in the state)
CAP_MASS_SPLIT = 1e-9


def _label(status: int, worst: int, dying: bool, knocked_out: bool) -> str:
    if status == DEAD:
        return "dead"
    if status == FIGHTING:
        base = UP_WORDS[worst]
    elif status == UNCONSCIOUS and knocked_out:
        base = "knocked out"
    else:
        base = STATUSES[status]
    return base + (", dying" if dying else "")


_ALL = list(itertools.product(range(len(STATUSES)), range(len(UP_WORDS)), (False, True), (False, True)))
#: every end state a combatant can have, in the system's own words
STATE_NAMES = tuple(dict.fromkeys(_label(*k) for k in _ALL))
#: the index in STATE_NAMES of each (status, worst wound, dying, knocked out)
_CODE = np.array([STATE_NAMES.index(_label(*k)) for k in _ALL]).reshape(len(STATUSES), len(UP_WORDS), 2, 2)


def _worst(f: Fighter) -> int:
    return max((LEVELS.index(w.level) for w in f.wounds), default=0)


def end_label(f: Fighter) -> str:
    """How a fighter stands, in the words the forecast uses (e.g. 'seriously wounded', 'unconscious, dying')."""
    return _label(STATUSES.index(f.status), _worst(f), f.dying, f.knocked_out)


def end_states(state: FightState) -> dict[str, str]:
    """Every fighter's end label: the ``end_state`` callback for :func:`storymaster.forecast.fight_by_fight`."""
    return {f.key: end_label(f) for f in state.fighters}


def describe_tactics(t: CombatTactics) -> str:
    """A side's automatic tactics in a few words."""
    parts = [f"{t.stance} stance" if t.stance != "normal" else "normal stance", f"harm at {t.harm_at}", t.intent]
    if t.appropriateness:
        parts.append(f"+{t.appropriateness} more appropriate")
    if t.crowd != "auto":
        parts.append(f"counts opponents as {t.crowd}")
    if t.manoeuvres:
        parts.append("manoeuvres " + ", ".join(f"{m.name} ({m.cost})" for m in t.manoeuvres))
    return ", ".join(parts)


def _tactics_by_side(state: FightState) -> dict[str, str]:
    out = {}
    for s, label in ((0, "A"), (1, "B")):
        team = [f for f in state.fighters if f.side == s]
        texts = [describe_tactics(f.tactics) for f in team]
        out[label] = (
            texts[0] if len(set(texts)) == 1 else "; ".join(f"{f.key}: {t}" for f, t in zip(team, texts, strict=True))
        )
    return out


def _sides(state: FightState) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(f.key for f in state.fighters if f.side == s) for s in (0, 1))


def _remaining(state: FightState) -> int:
    """Rounds the engine may still play before its ``max_rounds`` stand-off (at least one)."""
    return max(1, state.house_rules.max_rounds - state.round)


def _over_forecast(state: FightState) -> Forecast:
    """A fight that is already over: its end, with certainty."""
    w = state.winner
    return Forecast(
        system=SYSTEM_NAME,
        method="exact",
        sides=_sides(state),
        p_win=tuple(1.0 if w == s else 0.0 for s in (0, 1)),
        p_draw=1.0 if w is None else 0.0,
        rounds={0: 1.0},
        combatants=tuple(CombatantForecast(f.key, f.side, {end_label(f): 1.0}) for f in state.fighters),
        error=0.0,
        tactics=_tactics_by_side(state),
        draw_meaning=DRAW_MEANING,
        notes=(f"the fight is already over: {state.reason}",),
    )


# -- exact: duels ------------------------------------------------------------------------------------

# a fighter in the chain: (worst wound 0..3, status, dying, knocked out, roll bonus, manoeuvre names bought)
_F = tuple[int, int, bool, bool, int, frozenset[int]]


class _Duel:
    """The chain's states of a duel, and the fight states the round is played from.

    A state is both Advantage Point pools and what the round can change about each fighter (:data:`_F`),
    with the wounds reduced to the worst (all the rules read). Two reductions keep it finite: a fight's
    end forgets the pools, and a fighter who cannot hurt keeps no more points than his manoeuvres still
    cost (he only buys them, first affordable first).
    """

    def __init__(self, state: FightState, ia: int, ib: int) -> None:
        self.state = state.model_copy(update={"pools": ()})
        self.idx = (ia, ib)
        self.fighters = (state.fighters[ia], state.fighters[ib])
        self.names = tuple(tuple(dict.fromkeys(m.name for m in f.tactics.manoeuvres)) for f in self.fighters)
        self.harms = tuple(can_harm(f) for f in self.fighters)
        self.costs = tuple({m.name: m.cost for m in f.tactics.manoeuvres} for f in self.fighters)
        self.seen: dict[int, tuple[Fighter, _F]] = {}
        self.states: dict[Any, FightState] = {}
        self.spent: dict[Any, list[tuple[float, int]]] = {}
        self.ids: dict[Any, int] = {}
        self.moves: dict[int, list[tuple[float, int]]] = {}
        self.keys: list[Any] = []

    def number(self, s: Any) -> int:
        """The chain's name for state ``s``: a small int (cheap to hash), odd when the fight has ended."""
        i = self.ids.get(s)
        if i is None:
            i = self.ids[s] = 2 * len(self.keys) + (1 if s[0] else 0)
            self.keys.append(s)
        return i

    def fighter_key(self, x: int, f: Fighter) -> _F:
        known = self.seen.get(id(f))
        if known is not None and known[0] is f:
            return known[1]
        names = self.names[x]
        key = (
            _worst(f),
            STATUSES.index(f.status),
            f.dying,
            f.knocked_out,
            f.roll_bonus,
            frozenset(names.index(n) for n in f.bought if n in names),
        )
        self.seen[id(f)] = (f, key)
        return key

    def clamp(self, x: int, pool: int, bought: frozenset[int]) -> int:
        if self.harms[x]:
            return pool
        return min(pool, sum(c for n, c in self.costs[x].items() if self.names[x].index(n) not in bought))

    def key(self, fighters: dict[str, Fighter], pools: dict[tuple[str, str], int]) -> Any:
        a, b = (fighters[f.key] for f in self.fighters)
        ka, kb = self.fighter_key(0, a), self.fighter_key(1, b)
        if ka[1] != FIGHTING or kb[1] != FIGHTING:
            return (True, 0, 0, ka, kb)  # the pools left when the fight ends change nothing
        pa = pools.get((a.key, b.key), 0)
        pb = pools.get((b.key, a.key), 0)
        return (False, self.clamp(0, pa, ka[5]), self.clamp(1, pb, kb[5]), ka, kb)

    def fight(self, s: Any) -> FightState:
        """The fight state of chain state ``s`` (its worst wound standing for all its wounds)."""
        if s not in self.states:
            _, pa, pb, ka, kb = s
            fs = list(self.state.fighters)
            for x, k in ((0, ka), (1, kb)):
                w, status, dying, ko, rb, bought = k
                names = tuple(self.names[x][i] for i in sorted(bought))
                update = {"status": STATUSES[status], "dying": dying, "knocked_out": ko, "bought": names}
                f = with_worst(self.fighters[x], w, rb).model_copy(update=update)
                self.seen[id(f)] = (f, k)
                fs[self.idx[x]] = f
            a, b = self.fighters[0].key, self.fighters[1].key
            pools = tuple(Pool(holder=h, against=g, points=p) for h, g, p in ((a, b, pa), (b, a, pb)) if p > 0)
            self.states[s] = self.state.model_copy(update={"fighters": tuple(fs), "pools": pools})
        return self.states[s]

    def transitions(self, i: int) -> list[tuple[float, int]]:
        """One round from ``s``: :func:`~storymaster.systems.fuzzy.combat.play_round`, every branch of it.

        The round's two halves are enumerated apart, as ``play_round`` runs them: the contested roll (every
        margin), then the spending (its tests), which depends only on the fighters and the pools the roll
        left, so it is worked out once for all the states and margins that lead to the same pools.
        """
        s = self.keys[i >> 1]
        if i in self.moves:
            return self.moves[i]
        fight = self.fight(s)
        plan = plan_round(fight)
        a, b = self.fighters[0].key, self.fighters[1].key
        _, pa, pb, ka, kb = s

        def exchange(chance: Chance) -> tuple[int, int, tuple[tuple[str, str], ...]]:
            pools = {(a, b): pa, (b, a): pb}
            winners = roll_exchanges(plan, pools, chance, [])
            return self.clamp(0, pools[(a, b)], ka[5]), self.clamp(1, pools[(b, a)], kb[5]), tuple(winners)

        out: dict[int, float] = {}
        for p, mid in branches(exchange):
            after = self.spent.get((ka, kb, mid))
            if after is None:
                after = self.spent[(ka, kb, mid)] = self.spend(fight, mid)
            for q, t in after:
                out[t] = out.get(t, 0.0) + p * q
        self.moves[i] = [(q, t) for t, q in out.items()]
        return self.moves[i]

    def spend(self, fight: FightState, mid: tuple[int, int, tuple[tuple[str, str], ...]]) -> list[tuple[float, int]]:
        a, b = self.fighters[0].key, self.fighters[1].key
        house = fight.house_rules

        start = {f.key: f for f in fight.fighters}

        def play(chance: Chance) -> Any:
            fighters = dict(start)
            pools = {(a, b): mid[0], (b, a): mid[1]}
            spend_points(fighters, pools, mid[2], fight.round + 1, chance, house, [])
            return self.key(fighters, pools)

        return [(q, self.number(t)) for q, t in branches(play)]


#: whether a numbered chain state has ended (odd): a C-level callable, as absorb asks it of every move
_is_terminal: Callable[[int], bool] = (1).__and__  # type: ignore[assignment]


def exact_forecast(state: FightState, *, tolerance: float = 1e-12) -> Forecast:
    """The exact forecast of a duel as an absorbing Markov chain (see the module docstring)."""
    if state.over:
        return _over_forecast(state)
    up = [[i for i, f in enumerate(state.fighters) if f.side == s and f.up] for s in (0, 1)]
    if len(up[0]) != 1 or len(up[1]) != 1:
        raise OddsError(
            "the exact forecast covers duels: exactly one fighter still up on each side",
            hint="use --method simulate (or auto) for fights with several fighters a side",
        )
    (ia,), (ib,) = up
    house = state.house_rules
    fa, fb = state.fighters[ia], state.fighters[ib]
    if house.advantage_on_loss == "offset" and not (can_harm(fa) and can_harm(fb)):
        raise OddsError(
            "with advantage_on_loss 'offset', a fighter who cannot hurt piles up Advantage Points without limit: "
            "no finite chain",
            hint="use --method simulate",
        )
    if house.nonlethal_body_test is not None and "non-lethal" in (fa.tactics.intent, fb.tactics.intent):
        raise OddsError(
            "with the non-lethal Body test (nonlethal_body_test), every failed test keeps the points left over, "
            "so a pool can grow far past anything the chain can hold",
            hint="use --method simulate",
        )
    duel = _Duel(state, ia, ib)
    cached = duel.transitions
    start = duel.number(
        duel.key({f.key: f for f in state.fighters}, {(p.holder, p.against): p.points for p in state.pools})
    )
    remaining = _remaining(state)
    res = absorb(start, cached, _is_terminal, max_rounds=remaining, tolerance=tolerance)
    terminal: dict[Any, float] = {duel.keys[i >> 1]: q for i, q in res.terminal.items()}
    rounds: dict[int, float] = dict(res.rounds)
    capped: dict[Any, float] = {}
    unresolved, cap_mass = res.unresolved, 0.0
    if unresolved >= tolerance and unresolved <= CAP_MASS_SPLIT:
        # the chain ran into the round cap with too little left to matter: a stand-off whose ends
        # are left inside the error bound
        rounds[remaining] = rounds.get(remaining, 0.0) + unresolved
        unresolved, cap_mass = 0.0, unresolved
    elif unresolved >= tolerance:
        # the chain ran into the round cap: again with the round in the state, so the stand-off has its ends
        res2 = absorb(
            (0, start),
            lambda rs: [(q, (rs[0] + 1, t)) for q, t in cached(rs[1])],
            lambda rs: _is_terminal(rs[1]) or rs[0] >= remaining,
            max_rounds=remaining,
            tolerance=tolerance,
        )
        terminal, rounds = {}, dict(res2.rounds)
        for (_, i), q in res2.terminal.items():
            into = terminal if _is_terminal(i) else capped
            t = duel.keys[i >> 1]
            into[t] = into.get(t, 0.0) + q
        unresolved = res2.unresolved
    return _exact_result(state, ia, ib, terminal, capped, rounds, unresolved, cap_mass)


def _exact_result(
    state: FightState,
    ia: int,
    ib: int,
    terminal: dict[Any, float],
    capped: dict[Any, float],
    rounds: dict[int, float],
    unresolved: float,
    cap_mass: float,
) -> Forecast:
    p_win = [0.0, 0.0]
    p_draw = sum(capped.values()) + cap_mass
    ends: dict[str, dict[str, float]] = {f.key: {} for f in state.fighters}
    for t, q in terminal.items():
        a_up, b_up = t[3][1] == FIGHTING, t[4][1] == FIGHTING
        if a_up and not b_up:
            p_win[0] += q
        elif b_up and not a_up:
            p_win[1] += q
        else:
            p_draw += q
    for t, q in [*terminal.items(), *capped.items()]:
        a, b = t[3], t[4]
        for i, fs in ((ia, a), (ib, b)):
            lab = _label(fs[1], fs[0], fs[2], fs[3])
            d = ends[state.fighters[i].key]
            d[lab] = d.get(lab, 0.0) + q
    p_win = [min(1.0, p) for p in p_win]  # sums of many floats may overshoot 1 by an ulp or two
    p_draw = min(1.0, p_draw)
    total = 1.0 - unresolved - cap_mass
    for i, f in enumerate(state.fighters):
        if i not in (ia, ib):
            ends[f.key] = {end_label(f): total}
    notes = []
    if state.round:
        notes.append(f"rounds are counted from round {state.round}, where this forecast starts")
    if cap_mass:
        notes.append(
            f"a stand-off at the {state.house_rules.max_rounds}-round cap ({cap_mass:.1e}) is left out of the ends"
        )
    return Forecast(
        system=SYSTEM_NAME,
        method="exact",
        sides=_sides(state),
        p_win=(p_win[0], p_win[1]),
        p_draw=p_draw,
        rounds={r: q for r, q in sorted(rounds.items()) if q > 0},
        combatants=tuple(
            CombatantForecast(f.key, f.side, {k: v for k, v in ends[f.key].items() if v > 0}) for f in state.fighters
        ),
        error=max(unresolved, cap_mass),
        tactics=_tactics_by_side(state),
        draw_meaning=DRAW_MEANING,
        notes=tuple(notes),
    )


# -- simulation: many fights at once ---------------------------------------------------------------------


def _simulator(state: FightState) -> Callable[[int, np.random.Generator], Batch]:
    """The same round as :func:`~storymaster.systems.fuzzy.combat.play_round`, for many fights at once,
    through the rules' vectorised twins (:mod:`storymaster.systems.fuzzy.vectorised`)."""
    tab = FightTables(state)
    house = state.house_rules
    fs = state.fighters
    F = len(fs)
    keys = [f.key for f in fs]
    side = np.array([f.side for f in fs])
    can, all_out, harm_at = tab.attackers()
    names = tab.names
    totals = TotalSampler(house)
    remaining = _remaining(state)
    start = [(_worst(f), STATUSES.index(f.status), f.dying, f.knocked_out, f.roll_bonus) for f in fs]
    w0, s0, d0, k0, rb0 = (np.array(c) for c in zip(*start, strict=True))
    width = max(1, *(len(nm) for nm in names))
    bought0 = np.array(
        [[i < len(nm) and nm[i] in f.bought for i in range(width)] for f, nm in zip(fs, names, strict=True)]
    )
    pool0 = np.zeros((F, F), dtype=np.int64)
    for p in state.pools:
        pool0[keys.index(p.holder), keys.index(p.against)] = p.points
    side_members = [np.flatnonzero(side == s) for s in (0, 1)]

    def simulate(n: int, gen: np.random.Generator) -> Batch:
        W, S, DY, KO, RB = (np.tile(x, (n, 1)) for x in (w0, s0, d0, k0, rb0))
        BOUGHT, POOL = np.tile(bought0, (n, 1, 1)), np.tile(pool0, (n, 1, 1))
        winner = np.full(n, -1, dtype=np.int64)
        rounds = np.zeros(n, dtype=np.int64)
        live = np.ones(n, dtype=bool)
        for r in range(1, remaining + 1):
            L = np.flatnonzero(live)
            if L.size == 0:
                break
            w, s, dy, ko, rb, bought, pool = W[L], S[L], DY[L], KO[L], RB[L], BOUGHT[L], POOL[L]
            opp, engaged = tab.pairs(s == FIGHTING)
            # the exchanges: one contested roll per pairing, each larger-side fighter's in the fighters' order
            results = []
            for f in range(F):
                sel = np.flatnonzero(opp[:, f] >= 0)
                if sel.size == 0:
                    continue
                o = opp[sel, f]
                score = []
                for x in (np.full(sel.size, f), o):
                    dice = tab.dice[x, w[sel, x], engaged[sel, x]]
                    score.append(totals.roll(dice, gen) + tab.flat[x, rb[sel, x] - tab.rb_low])
                if side[f] == 0:  # the margin is side 0's score minus side 1's, as the engine reckons it
                    margin, a, b = score[0] - score[1], np.full(sel.size, f), o
                else:
                    margin, a, b = score[1] - score[0], o, np.full(sel.size, f)
                nz = margin != 0
                sel, a, b, margin = sel[nz], a[nz], b[nz], margin[nz]
                win_, lose = np.where(margin > 0, a, b), np.where(margin > 0, b, a)
                gained, pool[sel, lose, win_] = carry_over_v(np.abs(margin), pool[sel, lose, win_], house)
                pool[sel, win_, lose] += gained
                results.append((sel, win_, lose))
            # the end of the round: each winner spends, in the order of the pairings
            for sel, win_, lose in results:
                ok = (s[sel, win_] == FIGHTING) & (s[sel, lose] == FIGHTING)
                sel, win_, lose = sel[ok], win_[ok], lose[ok]
                if sel.size == 0:
                    continue
                points = pool[sel, win_, lose]
                d = tab.defence[lose, win_, w[sel, lose]]
                spend = harm_spend_v(points, d, can[win_], all_out[win_], harm_at[win_])
                hit = spend > 0
                hs, hw, hl, hsp = sel[hit], win_[hit], lose[hit], spend[hit]
                pool[hs, hw, hl] -= hsp
                level = harm_level_v(hsp, d[hit])
                real = level > 0
                if tab.body.any():
                    real &= gen.random(hs.size) < np.where(tab.body[hw], tab.p_body[hw, w[hs, hw]], 1.0)
                hs, hw, hl, level = hs[real], hw[real], hl[real], level[real]
                lethal = tab.lethal[hw]
                kill = level == len(LEVELS) - 1  # a killing blow: no Tenacity test
                ks, kl = hs[kill], hl[kill]
                s[ks, kl], dy[ks, kl], ko[ks, kl] = tab.after_blow(level[kill], lethal[kill], False, s, dy, ko, ks, kl)
                ws, wl, wlev = hs[~kill], hl[~kill], level[~kill]
                w[ws, wl] = np.maximum(w[ws, wl], wlev)  # the rules read the worst wound only
                passed = gen.random(ws.size) < tab.p_tenacity[wl, w[ws, wl]]
                s[ws, wl], dy[ws, wl], ko[ws, wl] = tab.after_blow(wlev, lethal[~kill], passed, s, dy, ko, ws, wl)
                for x in range(F):  # no harm spent: a manoeuvre
                    buy = ~hit & (win_ == x)
                    tab.buy(x, sel[buy], lose[buy], points[buy], pool, bought, rb, s)
            W[L], S[L], DY[L], KO[L], RB[L], BOUGHT[L], POOL[L] = w, s, dy, ko, rb, bought, pool
            up = s == FIGHTING
            up0 = up[:, side_members[0]].any(axis=1)
            up1 = up[:, side_members[1]].any(axis=1)
            ended = ~(up0 & up1) | (state.round + r >= house.max_rounds)
            winner[L] = np.where(up0 & ~up1, 0, np.where(up1 & ~up0, 1, -1))
            rounds[L[ended]] = r
            live[L[ended]] = False
        codes = _CODE[S, W, DY.astype(np.int64), KO.astype(np.int64)]
        return Batch(
            winner=winner,
            rounds=rounds,
            end_states={k: codes[:, i] for i, k in enumerate(keys)},
            state_names=STATE_NAMES,
        )

    return simulate


def simulate_forecast(
    state: FightState,
    *,
    samples: int = 100_000,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
    chunk: int = 50_000,
) -> Forecast:
    """The forecast of any fight by vectorised simulation (see the module docstring)."""
    if state.over:
        return _over_forecast(state)
    notes = []
    if state.round:
        notes.append(f"rounds are counted from round {state.round}, where this forecast starts")
    return run_simulation(
        SYSTEM_NAME,
        _simulator(state),
        sides=_sides(state),
        combatant_sides={f.key: f.side for f in state.fighters},
        samples=samples,
        seed=seed,
        chunk=chunk,
        tactics=_tactics_by_side(state),
        draw_meaning=DRAW_MEANING,
        progress=progress,
        notes=notes,
    )


def forecast(
    state: FightState,
    *,
    method: str = "auto",
    samples: int = 100_000,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> Forecast:
    """``SYSTEM.forecast``: exact for duels (``auto`` and ``exact``), simulated otherwise (``auto``, ``simulate``)."""
    if not isinstance(state, FightState):
        raise OddsError(f"a fuzzy forecast needs a fuzzy fight state, not {type(state).__name__}")
    if method not in ("auto", "exact", "simulate"):
        raise OddsError(f"the forecast method is auto, exact or simulate, not {method!r}")
    if method == "simulate":
        return simulate_forecast(state, samples=samples, seed=seed, progress=progress)
    if method == "exact":
        return exact_forecast(state)
    try:
        return exact_forecast(state)
    except OddsError:
        return simulate_forecast(state, samples=samples, seed=seed, progress=progress)
