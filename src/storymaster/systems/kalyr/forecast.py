"""Whole-fight forecasts for Kalyr contests (issues 10, 14): the exact chain of the round itself, and a
vectorised simulation built from the twins of its rules.

* **exact** (:func:`exact_forecast`): the round the engine plays (:func:`.combat.contest_round`) is
  enumerated from each state by :func:`storymaster.forecast.chance.branches` (every chance branch with its
  probability; the roll as one coarse event of cached exchanges), the reachable states built breadth
  first and absorbed by :func:`storymaster.forecast.absorb`. Every detailed contest, and simple and
  group contests with at most :data:`EXACT_MAX_ROLLERS` fighters rolling at once. Refused
  (:class:`~storymaster.errors.OddsError`; ``auto`` then simulates) when more fighters roll, when the
  rounds played to enumerate pass :data:`EXACT_MAX_WORK`, past ``MAX_STATES`` states, or past
  :data:`EXACT_MAX_EDGE_ROUNDS` transition-rounds to absorb. ``error`` is the mass left unresolved (at
  most 1e-12); fights still going at the round cap are draws, as the engine calls them.
* **simulate** (:func:`simulated_forecast`): many fights at once through
  :func:`storymaster.forecast.run_simulation`: each row a fight's state, one numpy round (:func:`step`)
  built from the vectorised twins of the round's named rules (:mod:`.twins`), the constants read from
  the round's :class:`~.fight_state.Contest`; a Python loop over rounds and fighters, never over fights.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...errors import OddsError
from ...forecast import Absorbed, Batch, CombatantForecast, Forecast, absorb, run_simulation, side_label
from ...forecast.chance import Chance, branches
from ...forecast.markov import MAX_STATES
from .checks import AbilityRoll, FudgeRoll, roll_pmf
from .combat import bout_of, contest_of, contest_round
from .fight_state import COMBAT, Bout, Contest, Fighter, FightState
from .ladder import level_name
from .simple import one_on_one_bonus
from .twins import (
    KINDS,
    NONE,
    all_out_offence_v,
    beaten_v,
    blow_v,
    contest_result_v,
    fudge_to_spend_v,
    group_margins_v,
    group_winner_v,
    halve_for_detailed_v,
    is_out_v,
    mark_box_v,
    open_box_in_v,
    outnumbering_penalties_v,
    reach_after_v,
    reach_before_v,
    severity_for_damage_v,
    status_v,
)
from .wounds import DESTROYED, severity_name

__all__ = [
    "END_STATES",
    "EXACT_MAX_ROLLERS",
    "batch_simulator",
    "draw_meaning",
    "end_state",
    "exact_forecast",
    "forecast",
    "simulated_forecast",
    "start_row",
    "step",
    "tactics_text",
]

SYSTEM_NAME = "kalyr"
#: simple/group contests are solved exactly while at most this many fighters roll each round
EXACT_MAX_ROLLERS = 3
#: rounds the exact method may play (over all states and chance branches) before giving up
EXACT_MAX_WORK = 2_000_000
#: transitions times rounds the chain may need before it is absorbed (the solver's loop is plain Python)
EXACT_MAX_EDGE_ROUNDS = 20_000_000
TOLERANCE = 1e-12

# 4dF: the chance of each total -4..+4 (the dice's own distribution), as a cdf for drawing
_DF_CDF = np.cumsum([p for p, _ in FudgeRoll().outcomes()])
_DF_CDF[-1] = 1.0

# column layout of a fight row: per fighter FC columns, then the fight's own columns
FC = 7  # box counts Scratch, Hurt, Very Hurt, Defeated, Destroyed; Fudge points; withdrawn
FUDGE, WITHDRAWN = 5, 6
FIRST, REACH, INSIDE, SC0, SC1, OVER, WIN, RND = range(8)

#: the end states a combatant is reported in: the box reached on the contest's track, or a withdrawal
END_STATES: tuple[str, ...] = (
    "unhurt",
    *(severity_name(b) for b in range(1, DESTROYED + 1)),
    *(f"withdrew at {severity_name(b)}" for b in range(1, DESTROYED + 1)),
)


def end_state(f: Fighter, track: str) -> str:
    """How a fighter ends a contest, in the book's words: unhurt, Scratch ... Destroyed, or withdrew."""
    return _label(f.character.damage.track(track).status, f.withdrawn)  # type: ignore[arg-type]


def _label(status: int, withdrawn: bool) -> str:
    if withdrawn and status:
        return f"withdrew at {severity_name(status)}"
    return severity_name(status) if status else "unhurt"


def draw_meaning(state: FightState) -> str:
    """What a draw is in this contest."""
    if state.mode == "simple" and state.on_tie == "draw":
        return "honourable draw (a tied roll: the parties break off)"
    return f"draw (no result after the {state.max_rounds}-round cap)"


# ---- the fight as numbers, for the vectorised round ------------------------------------------------


@dataclass
class _Sim:
    """The contest's constants as arrays for the vectorised round, read from its :class:`Contest`."""

    c: Contest
    names: list[str]
    wpen: np.ndarray  # (n, 6): the wound penalty by status (Defeated and up: 0)
    dconst: np.ndarray  # (n, n): the damage fighter i adds against j
    cmod: np.ndarray  # (n,): a detailed contest's standing modifiers
    scope: list[dict[int, float]]  # the Perception/Tactics result after an all-out defence, before modifiers
    n: int  # fighters
    g: int  # the first of the fight's own columns


def _contest(state: FightState, *, count: bool = True) -> Contest:
    if not isinstance(state, FightState):
        raise OddsError(f"not a Kalyr fight state: {type(state).__name__}")
    if len(state.sides) != 2 or not state.sides[0] or not state.sides[1]:
        raise OddsError("a Kalyr contest has two sides, each with at least one fighter")
    if state.mode == "detailed" and len(state.sides[0]) + len(state.sides[1]) != 2:
        raise OddsError("a detailed contest is fought one-on-one")
    return contest_of(state, count=count)


def _names(c: Contest) -> list[str]:
    names, seen = [], {}
    for f in c.fighters:
        seen[f.name] = seen.get(f.name, 0) + 1
        names.append(f.name if seen[f.name] == 1 else f"{f.name} #{seen[f.name]}")
    return names


def _setup(state: FightState) -> _Sim:
    c = _contest(state)
    sd = c.detailed
    scope = [{0: 1.0} for _ in c.fighters]
    for j, levels in enumerate(sd.scope_levels if sd else ()):
        if levels is not None:
            r = AbilityRoll(ability=levels[0], second=levels[1], combine="best")
            scope[j] = {v: float(p) for v, p in roll_pmf(r).items()}
    return _Sim(
        c=c,
        names=_names(c),
        wpen=np.array([[c.penalty(j, s)[0] for s in range(DESTROYED + 1)] for j in range(c.n)], dtype=np.int64),
        dconst=np.array(c.dconst, dtype=np.int64),
        cmod=np.array([sum(v for _, v in parts) for parts in sd.parts] if sd else [0] * c.n, dtype=np.int64),
        scope=scope,
        n=c.n,
        g=FC * c.n,
    )


def start_row(si: _Sim, *, with_round: bool) -> np.ndarray:
    """The fight's state (:func:`.combat.bout_of`) as one row (the round counter kept only ``with_round``)."""
    b = bout_of(si.c, si.c.state)
    row = np.zeros(si.g + 8, dtype=np.int64)
    for j, f in enumerate(b.fighters):
        row[FC * j : FC * j + DESTROYED] = f.used
        row[FC * j + FUDGE], row[FC * j + WITHDRAWN] = f.fudge, f.withdrawn
    fight = (b.first, NONE if b.reach is None else b.reach, b.inside, *b.scope, b.over)
    row[si.g : si.g + RND + 1] = (*fight, NONE if b.winner is None else b.winner, b.played if with_round else 0)
    return row


# ---- one round, for a batch of fights: the twins of the named rules ----------------------------------


def _used(X: np.ndarray, j: int) -> np.ndarray:
    return X[:, FC * j : FC * j + DESTROYED]


def _status(X: np.ndarray, j: int) -> np.ndarray:
    return status_v(_used(X, j))


def _wound(Y: np.ndarray, j: int, sev: np.ndarray, mask: np.ndarray, si: _Sim) -> None:
    """Mark wounds of ``sev`` on fighter j where ``mask`` (as :func:`.fight_state.contest_wound`)."""
    sel = np.nonzero(mask & (sev > 0))[0]
    if not len(sel):
        return
    used, fudge, sev = Y[sel, FC * j : FC * j + DESTROYED], Y[sel, FC * j + FUDGE], sev[sel]
    reduce = fudge_to_spend_v(used, fudge, sev, si.c.flimit[j])
    left = sev - reduce
    box = np.where(left > 0, open_box_in_v(used, np.maximum(left, 1)), 0)
    Y[sel, FC * j : FC * j + DESTROYED] = mark_box_v(used, box)
    Y[sel, FC * j + FUDGE] = fudge - reduce


def _detailed_step(X: np.ndarray, dice: np.ndarray, sb: np.ndarray, si: _Sim, cap: bool) -> np.ndarray:
    """One round of a detailed contest (:func:`.detailed.detailed_round`) for every row."""
    c, hr, g, N = si.c, si.c.state.house_rules, si.g, len(X)
    sd = c.detailed
    status = [_status(X, 0), _status(X, 1)]
    first, inside = X[:, g + FIRST], X[:, g + INSIDE]
    dodger, minus, carried, cvl = reach_before_v(sd, X[:, g + REACH], inside, first)
    mods = [si.wpen[j][status[j]] - (minus == j) for j in (0, 1)]
    res = [c.level[j] + mods[j] + si.cmod[j] + X[:, g + SC0 + j] + dice[:, j] for j in (0, 1)]
    winner = group_winner_v(res[0][:, None], res[1][:, None])
    bonus = np.zeros((N, 2), dtype=np.int64)
    if hr.detailed_all_out:
        winner, bonus = all_out_offence_v(sd.aoo, winner)
    loser = np.where(winner >= 0, 1 - winner, NONE)
    can = (dodger != 0, dodger != 1)
    hit = blow_v(sd, hr, winner, (res[0], res[1]), (dice[:, 0], dice[:, 1]), can) == KINDS.index("hit")
    Y = X.copy()
    app = c.approach[0] + c.approach[1]
    for w in (0, 1):
        lo, rows = 1 - w, hit & (winner == w)
        pts = res[w] - res[lo] + si.dconst[w, lo] + app + bonus[:, w]
        _wound(Y, lo, severity_for_damage_v(halve_for_detailed_v(pts)), rows, si)
        if hr.detailed_winner_takes_damage:
            pts_w = res[lo] - res[w] + si.dconst[lo, w] + app + bonus[:, lo]
            _wound(Y, w, severity_for_damage_v(halve_for_detailed_v(pts_w)), rows, si)
    new_inside, new_reach = reach_after_v(sd, hr.detailed_reach, carried, inside, cvl, loser)
    scope = [np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64)]
    for i in (0, 1):
        if sd.scope_levels[i] is None:
            continue
        s_new = _status(Y, i)
        ok = (loser != i) & ~is_out_v(_used(Y, i), Y[:, FC * i + WITHDRAWN])
        ok &= sb[:, i] + si.wpen[i][s_new] >= hr.scope_out_difficulty
        scope[1 - i] = np.where(ok, int(COMBAT["scope_out_penalty"]), scope[1 - i])
    lost, withdrew = beaten_v(_status(Y, 0), _status(Y, 1), c.withdraw)
    for i in (0, 1):
        Y[:, FC * i + WITHDRAWN] |= withdrew & (lost == i)
    over, win = lost >= 0, np.where(lost >= 0, 1 - lost, NONE)
    Y[:, g + REACH], Y[:, g + INSIDE], Y[:, g + SC0], Y[:, g + SC1] = new_reach, new_inside, *scope
    return _finish(X, Y, over, win, si, cap)


def _finish(X: np.ndarray, Y: np.ndarray, over: np.ndarray, win: np.ndarray, si: _Sim, cap: bool) -> np.ndarray:
    """The end of the round for every row: the round cap (a draw), over, the winner."""
    g = si.g
    if cap:
        m = ~over & (X[:, g + RND] + 1 >= si.c.state.max_rounds)
        over, win = over | m, np.where(m, NONE, win)
        Y[:, g + RND] = X[:, g + RND] + 1
    Y[:, g + OVER], Y[:, g + WIN], Y[:, g + FIRST] = over, win, 0
    return Y


def _active(X: np.ndarray, si: _Sim) -> np.ndarray:
    """(N, n) who is still in the contest: not Defeated on its track, not withdrawn."""
    return np.stack([~is_out_v(_used(X, j), X[:, FC * j + WITHDRAWN]) for j in range(si.n)], axis=1)


def _simple_step(X: np.ndarray, dice: np.ndarray, sb: np.ndarray, si: _Sim, cap: bool) -> np.ndarray:
    """One roll of a simple (or group) contest (:func:`.simple.simple_round`) for every row."""
    c, st, hr, N = si.c, si.c.state, si.c.state.house_rules, len(X)
    Y = X.copy()
    outcome = np.full(N, NONE, dtype=np.int64)
    act = _active(X, si)
    codes = act.astype(np.int64) @ (1 << np.arange(si.n, dtype=np.int64))
    patterns = np.unique(codes).tolist()
    for code in patterns:
        A = [[j for j in c.members[s] if code >> j & 1] for s in (0, 1)]
        if not A[0] or not A[1]:
            raise OddsError("a side has nobody left to fight, yet the contest is not over: an inconsistent saved state")
        whole = len(patterns) == 1
        R = slice(None) if whole else np.nonzero(codes == code)[0]
        mods = {j: si.wpen[j][_status(X[R], j)] for j in A[0] + A[1]}
        if len(A[0]) == 1 and len(A[1]) == 1:
            bonus, _ = one_on_one_bonus(c, A[0][0], A[1][0])
            mods[A[0][0]] = mods[A[0][0]] + bonus[0]
            mods[A[1][0]] = mods[A[1][0]] + bonus[1]
        elif len(A[0]) != len(A[1]):
            small, big = (A[0], A[1]) if len(A[0]) < len(A[1]) else (A[1], A[0])
            levels = np.stack([c.level[j] + mods[j] for j in small], axis=1)
            pen = outnumbering_penalties_v(levels, len(big), hr.outnumbering_max_penalty)
            for k, j in enumerate(small):
                mods[j] = mods[j] + pen[:, k]
        res = [np.stack([c.level[j] + mods[j] + dice[R, j] for j in A[s]], axis=1) for s in (0, 1)]
        oc = group_winner_v(res[0], res[1])
        outcome[R] = oc
        Z = Y if whole else Y[R]
        m = len(oc)
        for s in (0, 1):
            if st.stakes is not None:
                for j in A[s]:
                    _wound(Z, j, np.full(m, st.stakes), oc == 1 - s, si)
                continue
            margins = group_margins_v(res[s], res[1 - s])
            for i, j in enumerate(A[s]):
                foe = A[1 - s][i % len(A[1 - s])]
                pts = margins[:, i] + si.dconst[foe, j] + c.approach[j] + c.approach[foe]
                _wound(Z, j, severity_for_damage_v(pts), np.ones(m, dtype=bool), si)
        if not whole:
            Y[R] = Z
    out_after = ~_active(Y, si)
    gone = [out_after[:, list(c.members[s])].all(axis=1) for s in (0, 1)]
    over, win = contest_result_v(outcome, st.on_tie, gone[0], gone[1])
    return _finish(X, Y, over, win, si, cap)


def step(X: np.ndarray, dice: np.ndarray, sb: np.ndarray, si: _Sim, cap: bool = True) -> np.ndarray:
    """One round for every row of ``X`` (all still going): ``dice`` (N, n) each fighter's 4dF total,
    ``sb`` (N, n) each fighter's Perception/Tactics result before modifiers (detailed all-out defence)."""
    return (_detailed_step if si.c.state.mode == "detailed" else _simple_step)(X, dice, sb, si, cap)


# ---- exact: the Markov chain ------------------------------------------------------------------------


TOO_BIG = "use --method simulate"


def _solve(c: Contest) -> tuple[Absorbed[Bout], int, dict[Bout, float]]:
    """The chain of the round function itself (:func:`.combat.contest_round`): from each state,
    :func:`~storymaster.forecast.chance.branches` plays the round once per chance branch; the states
    reachable are built breadth first and the chain absorbed. Returns it, the number of states, and
    the fights still going at the round cap, by state."""
    state = c.state
    start = bout_of(c, state)
    table: dict[Bout, list[tuple[float, Bout]]] = {}
    leaves = [0]

    def moves(b: Bout) -> list[tuple[float, Bout]]:
        if state.mode == "simple":
            rollers = sum(1 for f in b.fighters if not f.out)
            if rollers > EXACT_MAX_ROLLERS:
                raise OddsError(
                    f"{rollers} fighters roll each round: too many dice to forecast exactly",
                    hint=f"exact forecasts cover up to {EXACT_MAX_ROLLERS} fighters rolling at once; {TOO_BIG}",
                )

        def play(chance: Chance) -> Bout:
            leaves[0] += 1
            return contest_round(c, b, chance).bout

        out = branches(play)
        if leaves[0] > EXACT_MAX_WORK:
            raise OddsError("the fight has too many states and dice combinations to forecast exactly", hint=TOO_BIG)
        return out

    frontier = [] if start.over else [start]
    seen = set(frontier)
    while frontier:
        nxt = []
        for b in frontier:
            table[b] = moves(b)
            for _, t in table[b]:
                if t not in seen and not t.over:
                    seen.add(t)
                    nxt.append(t)
        if len(seen) > MAX_STATES:
            raise OddsError(f"the fight has more than {MAX_STATES} states: too big to forecast exactly", hint=TOO_BIG)
        frontier = nxt
    remaining = max(1, state.max_rounds - state.round)
    edges = max(1, sum(len(m) for m in table.values()))
    rounds = min(remaining, EXACT_MAX_EDGE_ROUNDS // edges + 1)  # the solver's loop is plain Python: bounded
    absorbed = absorb(start, table.__getitem__, lambda b: b.over, max_rounds=rounds, tolerance=TOLERANCE)
    live = absorbed.live if absorbed.unresolved >= TOLERANCE else {}
    if live and edges * rounds > EXACT_MAX_EDGE_ROUNDS:
        raise OddsError("the fight lasts too long with too many states to forecast exactly", hint=TOO_BIG)
    return absorbed, len(seen), live


def exact_forecast(state: FightState) -> Forecast:
    """The exact forecast (a Markov chain); :class:`OddsError` when the contest is too big for one."""
    c = _contest(state, count=False)
    names = _names(c)
    absorbed, n_states, live = _solve(c)
    p_win = [0.0, 0.0]
    ends: list[dict[str, float]] = [{} for _ in c.fighters]
    rounds = dict(absorbed.rounds)
    error = absorbed.unresolved
    outcomes = list(absorbed.terminal.items())
    if live:
        # fights still going at the round cap are draws (the engine's rule), not unresolved mass
        outcomes += list(live.items())
        remaining = max(1, state.max_rounds - state.round)
        rounds[remaining] = rounds.get(remaining, 0.0) + absorbed.unresolved
        error = abs(absorbed.unresolved - sum(live.values()))
    p_draw = 0.0
    for b, p in outcomes:
        w = b.winner if b.over else None
        if w is not None:
            p_win[w] += p
        else:
            p_draw += p
        for j, f in enumerate(b.fighters):
            label = _label(f.status, f.withdrawn)
            ends[j][label] = ends[j].get(label, 0.0) + p
    notes = [f"exact: an absorbing Markov chain over {n_states:,} fight states"]
    if live:
        still = sum(live.values())
        notes.append(f"{still:.2e} of the fights are still going at the {state.max_rounds}-round cap: draws")
    notes += _notes(c)
    return Forecast(
        system=SYSTEM_NAME,
        method="exact",
        sides=_sides(c, names),
        p_win=tuple(p_win),
        p_draw=p_draw,
        rounds=dict(sorted(rounds.items())),
        combatants=tuple(CombatantForecast(names[j], c.side[j], ends[j]) for j in range(c.n)),
        error=error,
        tactics=_tactics(c, names),
        draw_meaning=draw_meaning(state),
        notes=tuple(notes),
    )


# ---- simulation ----------------------------------------------------------------------------------


def _sampler(pmf: dict[int, float]) -> Callable[[np.random.Generator, int], np.ndarray]:
    vals = np.array(list(pmf), dtype=np.int64)
    cdf = np.cumsum(np.array(list(pmf.values())))
    cdf[-1] = 1.0
    return lambda gen, m: vals[np.searchsorted(cdf, gen.random(m), side="right")]


def batch_simulator(si: _Sim) -> Callable[[int, np.random.Generator], Batch]:
    """A :func:`run_simulation` batch simulator: ``n`` fights at once, a numpy step per round."""
    start = start_row(si, with_round=True)
    g = si.g
    scope = [_sampler(p) if len(p) > 1 else None for p in si.scope]
    r0 = si.c.state.round

    def simulate(m: int, gen: np.random.Generator) -> Batch:
        X = np.tile(start, (m, 1))
        while True:
            live = np.nonzero(X[:, g + OVER] == 0)[0]
            if not len(live):
                break
            k = len(live)
            dice = np.searchsorted(_DF_CDF, gen.random((k, si.n)), side="right") - 4
            sb = np.zeros((k, si.n), dtype=np.int64)
            for j, f in enumerate(scope):
                if f is not None:
                    sb[:, j] = f(gen, k)
            X[live] = step(X[live], dice, sb, si, True)
        codes = {}
        for j in range(si.n):
            status = _status(X, j)
            codes[si.names[j]] = np.where(X[:, FC * j + WITHDRAWN] == 1, DESTROYED + status, status)
        return Batch(winner=X[:, g + WIN], rounds=X[:, g + RND] - r0, end_states=codes, state_names=END_STATES)

    return simulate


def simulated_forecast(
    state: FightState,
    *,
    samples: int = 100_000,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
    notes: tuple[str, ...] = (),
) -> Forecast:
    """The forecast by simulating ``samples`` fights in numpy batches (95% Wilson intervals)."""
    si = _setup(state)
    return run_simulation(
        SYSTEM_NAME,
        batch_simulator(si),
        sides=_sides(si.c, si.names),
        combatant_sides={si.names[j]: si.c.side[j] for j in range(si.n)},
        samples=samples,
        seed=seed,
        tactics=_tactics(si.c, si.names),
        draw_meaning=draw_meaning(state),
        progress=progress,
        notes=(*notes, *_notes(si.c)),
    )


# ---- the entry point --------------------------------------------------------------------------------


def forecast(
    state: FightState,
    *,
    method: str = "auto",
    samples: int = 100_000,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> Forecast:
    """The odds of the whole contest from ``state`` (a fresh fight or one in progress).

    ``method``: ``exact`` (a Markov chain: every detailed contest, and simple or group contests with
    up to :data:`EXACT_MAX_ROLLERS` fighters rolling; :class:`OddsError` otherwise), ``simulate``
    (numpy, ``samples`` fights, ``seed``), or ``auto`` (exact when possible, else simulated).
    """
    if method not in ("auto", "exact", "simulate"):
        raise OddsError(f"the forecast method is auto, exact or simulate, not {method!r}")
    if not isinstance(state, FightState):
        raise OddsError(f"not a Kalyr fight state: {type(state).__name__}")
    if method in ("auto", "exact"):
        try:
            return exact_forecast(state)
        except OddsError as exc:
            if method == "exact":
                raise
            why = (f"too big to solve exactly ({exc.message}): simulated",)
            return simulated_forecast(state, samples=samples, seed=seed, progress=progress, notes=why)
    return simulated_forecast(state, samples=samples, seed=seed, progress=progress)


# ---- words --------------------------------------------------------------------------------------


def _sides(c: Contest, names: list[str]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(names[j] for j in c.members[s]) for s in (0, 1))


STANCE_WORDS = {"normal": "normal", "all_out_offence": "all-out offence", "all_out_defence": "all-out defence"}


def tactics_text(f: Fighter, state: FightState) -> str:
    """A fighter's automatic choices in a few words (Fudge points only when not the default)."""
    t = f.tactics
    parts = [f"{f.ability} {level_name(f.level)}"]
    if t.approach:
        parts.append(f"{'aggressive' if t.approach > 0 else 'cautious'} {t.approach:+d}")
    if state.mode == "detailed":
        parts.append(STANCE_WORDS[t.stance])
        if t.aim != "none":
            parts.append(f"aims for {t.aim.capitalize()}")
        if t.withdraw_at is not None:
            parts.append(f"withdraws at {severity_name(t.withdraw_at)}")
    if t.fudge_reduce_at == "never":
        parts.append("no Fudge points on wounds")
    elif t.fudge_reduce_at == "defeated":
        parts.append("Fudge points keep wounds out of Defeated")
    return ", ".join(parts)


def _tactics(c: Contest, names: list[str]) -> dict[str, str]:
    out = {}
    for s in (0, 1):
        texts = [tactics_text(c.fighters[j], c.state) for j in c.members[s]]
        if len(texts) == 1:
            out[side_label(s)] = texts[0]
        else:
            out[side_label(s)] = "; ".join(f"{names[j]}: {t}" for j, t in zip(c.members[s], texts, strict=True))
    return out


def _notes(c: Contest) -> list[str]:
    st = c.state
    kind = (
        "detailed contest (one-on-one rounds, damage halved)"
        if st.mode == "detailed"
        else (
            "simple contest"
            + (" (group)" if c.n > 2 else "")
            + (f", stakes {severity_name(st.stakes)}" if st.stakes else "")
            + (", ties re-rolled" if st.on_tie == "reroll" else ", a tie is a draw")
        )
    )
    out = [f"{kind} on the {st.track} track" + (", missile combat" if st.ranged else "")]
    if any(f.tactics.fudge_reduce_at == "destroyed" for f in c.fighters):
        out.append(
            "Fudge points are spent automatically to keep a wound out of the Destroyed box (unless a tactic says not)"
        )
    if st.round:
        out.append(f"forecast from round {st.round}: rounds are counted from there")
    return out
