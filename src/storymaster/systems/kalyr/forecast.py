"""Whole-fight forecasts for Kalyr contests (issue 10): exact Markov chains and vectorised simulation.

One round of a contest is written once, as a numpy function over a batch of fights
(:func:`step`): each row is a fight's state (every fighter's boxes on the contest's track, Fudge
points, withdrawal; the reach, out-manoeuvre and round counters of a detailed contest), and the
dice of the round are given as arrays. The same function serves both methods:

* **exact** (:func:`exact_forecast`): from each state, every combination of the round's dice is
  fed through :func:`step` with its exact probability; the reachable states form an absorbing
  Markov chain solved by :func:`storymaster.forecast.absorb`. Used for every detailed contest
  (one-on-one, wound tracks with overflow, halved damage, Fudge points spent on wounds, reach,
  all-out stances, the Perception/Tactics follow-up, withdrawal) and for simple and group contests
  with at most :data:`EXACT_MAX_ROLLERS` fighters rolling at once. The chain is refused
  (:class:`~storymaster.errors.OddsError`; ``auto`` then simulates) when more fighters roll, when it
  would push more than :data:`EXACT_MAX_WORK` state-and-dice rows through a round, has more than
  ``MAX_STATES`` states, or would need more than :data:`EXACT_MAX_EDGE_ROUNDS` transition-rounds to
  absorb (many Fudge points, two all-out defenders). ``error`` is the mass left unresolved (at most
  1e-12); fights still going at the round cap are counted as draws, as the engine calls them.
* **simulate** (:func:`simulated_forecast`): many fights at once through
  :func:`storymaster.forecast.run_simulation`, the dice drawn from numpy's generator; a Python loop
  over rounds (and over fighters), never over fights.

Both follow the engine (:mod:`.detailed`, :mod:`.simple`) rule for rule, with the fighters'
own :class:`~.fight_state.Tactics` and the fight's house rules; the tests compare them with
the engine fight by fight. The engine's round cap (``max_rounds``) is honoured: a fight still
going then is a draw.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import OddsError
from ...forecast import Absorbed, Batch, CombatantForecast, Forecast, absorb, run_simulation, side_label
from ...forecast.chance import Chance, branches
from ...forecast.markov import MAX_STATES
from .abilities import ability_level, wound_modifier
from .character import armour_value, damage_bonus, damage_reduction, weapon_damage
from .checks import AbilityRoll, roll_pmf
from .combat import bout_of, contest_of, contest_round
from .damage import armament_bonus
from .detailed import minimum_to_hit, shield_modifier, stance_modifier, weapon_size_modifier
from .fight_state import COMBAT, Bout, Fighter, Fighting, FightState, reach_rank
from .ladder import level_name, parse_level
from .wounds import BOXES, DEFEATED, DESTROYED, Track, Wound, severity_name

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
#: rows of (state x dice combination) the exact method may push through a round before giving up
EXACT_MAX_WORK = 2_000_000
#: transitions times rounds the chain may need before it is absorbed (the solver's loop is plain Python)
EXACT_MAX_EDGE_ROUNDS = 20_000_000
TOLERANCE = 1e-12

# 4dF: the chance of each total -4..+4 (1 4 10 16 19 16 10 4 1 out of 81)
_DF = np.array([1, 4, 10, 16, 19, 16, 10, 4, 1], dtype=float) / 81.0
_DF_CDF = np.cumsum(_DF)
_DF_CDF[-1] = 1.0
_CAP = np.array([BOXES[b] for b in range(1, DESTROYED + 1)])

# column layout of a fight row: per fighter FC columns, then the fight's own columns
FC = 7  # box counts Scratch, Hurt, Very Hurt, Defeated, Destroyed; Fudge points; withdrawn
FUDGE, WITHDRAWN = 5, 6
FIRST, REACH, INSIDE, SC0, SC1, OVER, WIN, RND = range(8)
NONE = -1

#: the end states a combatant is reported in: the box reached on the contest's track, or a withdrawal
END_STATES: tuple[str, ...] = (
    "unhurt",
    *(severity_name(b) for b in range(1, DESTROYED + 1)),
    *(f"withdrew at {severity_name(b)}" for b in range(1, DESTROYED + 1)),
)


def end_state(f: Fighter, track: str) -> str:
    """How a fighter ends a contest, in the book's words: unhurt, Scratch ... Destroyed, or withdrew."""
    status = f.character.damage.track(track).status  # type: ignore[arg-type]
    if f.withdrawn and status:
        return f"withdrew at {severity_name(status)}"
    return severity_name(status) if status else "unhurt"


def draw_meaning(state: FightState) -> str:
    """What a draw is in this contest."""
    if state.mode == "simple" and state.on_tie == "draw":
        return "honourable draw (a tied roll: the parties break off)"
    return f"draw (no result after the {state.max_rounds}-round cap)"


# ---- the fight as numbers --------------------------------------------------------------------------


@dataclass
class _Setup:
    """Everything constant in a fight, as arrays indexed by fighter (sides in order)."""

    state: FightState
    fighters: list[Fighter]
    side: list[int]
    names: list[str]
    members: tuple[list[int], list[int]]
    level: np.ndarray
    approach: np.ndarray
    flimit: np.ndarray  # Fudge points are spent while the wound would land in this box or higher (99: never)
    withdraw: np.ndarray  # withdraw_at (99: never)
    wpen: np.ndarray  # (n, 6): wound penalty by status 0..5 (Defeated and up unused: 0)
    dconst: np.ndarray  # (n, n): damage a fighter i adds against j: gifts, weapon minus armour
    scope_pmf: list[dict[int, float]] = field(default_factory=list)
    # detailed contests
    cmod: np.ndarray | None = None
    need: list[int | None] = field(default_factory=list)
    aoo: list[bool] = field(default_factory=list)
    aod: list[bool] = field(default_factory=list)
    rank: list[int] = field(default_factory=list)

    @property
    def n(self) -> int:
        return len(self.fighters)

    @property
    def g(self) -> int:
        return FC * self.n


def _track_at(status: int) -> Track:
    return Track(wounds=(Wound(severity=status, box=status),)) if status else Track()


def _setup(state: FightState) -> _Setup:
    if not isinstance(state, FightState):
        raise OddsError(f"not a Kalyr fight state: {type(state).__name__}")
    hr = state.house_rules
    fighters = [f for s in state.sides for f in s]
    side = [i for i, s in enumerate(state.sides) for _ in s]
    members = ([j for j in range(len(fighters)) if side[j] == 0], [j for j in range(len(fighters)) if side[j] == 1])
    if len(state.sides) != 2 or not members[0] or not members[1]:
        raise OddsError("a Kalyr contest has two sides, each with at least one fighter")
    names, seen = [], {}
    for f in fighters:
        seen[f.name] = seen.get(f.name, 0) + 1
        names.append(f.name if seen[f.name] == 1 else f"{f.name} #{seen[f.name]}")
    track = state.track
    phys = track == "physical"
    n = len(fighters)
    wpen = np.zeros((n, 6), dtype=np.int64)
    for j, f in enumerate(fighters):
        for s in range(DEFEATED):
            c = f.character.model_copy(update={"damage": f.character.damage.with_track(track, _track_at(s))})
            wpen[j, s] = wound_modifier(c, track, hr)[0]
    dconst = np.zeros((n, n), dtype=np.int64)
    for i, a in enumerate(fighters):
        for j, b in enumerate(fighters):
            v = damage_bonus(a.character) - damage_reduction(b.character)
            if phys:
                v += weapon_damage(a.character) - armour_value(b.character)
            dconst[i, j] = v
    limits = {"never": 99, "defeated": DEFEATED, "destroyed": DESTROYED}
    su = _Setup(
        state=state,
        fighters=fighters,
        side=side,
        names=names,
        members=members,
        level=np.array([f.level for f in fighters], dtype=np.int64),
        approach=np.array([f.tactics.approach for f in fighters], dtype=np.int64),
        flimit=np.array([limits[f.tactics.fudge_reduce_at] for f in fighters], dtype=np.int64),
        withdraw=np.array(
            [99 if f.tactics.withdraw_at is None else f.tactics.withdraw_at for f in fighters], dtype=np.int64
        ),
        wpen=wpen,
        dconst=dconst,
    )
    if state.mode == "detailed":
        if n != 2:
            raise OddsError("a detailed contest is fought one-on-one")
        fs = fighters
        cmod = np.zeros(2, dtype=np.int64)
        for i, f in enumerate(fs):
            foe = fs[1 - i]
            if hr.detailed_all_out and f.tactics.stance != "normal":
                cmod[i] += stance_modifier(f)
            if hr.detailed_aimed_blows and f.tactics.aim != "none":
                cmod[i] += int(COMBAT["aimed_penalty"])
            if hr.detailed_shields:
                cmod[i] += shield_modifier(foe, ranged=state.ranged)
            if hr.detailed_weapon_size and not state.ranged:
                cmod[i] += weapon_size_modifier(f, foe)
        su.cmod = cmod
        for w in (0, 1):
            f, foe = fs[w], fs[1 - w]
            need = minimum_to_hit(f.character.scale, foe.character.scale) if hr.detailed_minimum_to_hit else None
            if hr.detailed_aimed_blows and f.tactics.aim != "none":
                aim_level = parse_level("Good" if f.tactics.aim == "good" else "Great")
                floor = aim_level if f.tactics.aim == "good" else aim_level - 1
                need = floor if need is None else max(need, floor)
            su.need.append(need)
            su.aoo.append(f.tactics.stance == "all_out_offence")
            su.aod.append(hr.detailed_all_out and f.tactics.stance == "all_out_defence")
            su.rank.append(reach_rank(f))
            if hr.detailed_all_out and hr.detailed_scope_out and f.tactics.stance == "all_out_defence":
                r = AbilityRoll(
                    ability=ability_level(f.character, "Perception")[0],
                    second=ability_level(f.character, "Tactics")[0],
                    combine="best",
                )
                su.scope_pmf.append({v: float(p) for v, p in roll_pmf(r).items()})
            else:
                su.scope_pmf.append({0: 1.0})
    else:
        su.scope_pmf = [{0: 1.0} for _ in fighters]
    return su


def start_row(su: _Setup, *, with_round: bool) -> np.ndarray:
    """The fight's state as one row (the round counter kept only ``with_round``)."""
    st = su.state
    row = np.zeros(su.g + 8, dtype=np.int64)
    for j, f in enumerate(su.fighters):
        tr = f.character.damage.track(st.track)
        for b in range(1, DESTROYED + 1):
            row[FC * j + b - 1] = tr.used(b)
        row[FC * j + FUDGE] = f.character.fudge_points
        row[FC * j + WITHDRAWN] = int(f.withdrawn)
    g = su.g
    row[g + FIRST] = int(st.round == 0)
    row[g + REACH] = NONE if st.reach_penalty is None else st.reach_penalty
    row[g + INSIDE] = int(st.inside_reach)
    row[g + SC0], row[g + SC1] = st.scope_penalty
    row[g + OVER] = int(st.over)
    row[g + WIN] = NONE if st.winner is None else st.winner
    row[g + RND] = st.round if with_round else 0
    return row


# ---- one round, for a batch of fights ----------------------------------------------------------------


_BOX = np.arange(1, DESTROYED + 1, dtype=np.int64)


def _status(X: np.ndarray, j: int) -> np.ndarray:
    """The highest box marked on fighter j's track (0 unhurt)."""
    return ((X[:, FC * j : FC * j + DESTROYED] > 0) * _BOX).max(axis=1)


def _open_box(X: np.ndarray, j: int, sev: np.ndarray) -> np.ndarray:
    """The box a wound of ``sev`` lands in (its own or the next open one up); 0 when none is open."""
    ok = (sev[:, None] <= _BOX) & (X[:, FC * j : FC * j + DESTROYED] < _CAP)
    return np.where(ok.any(axis=1), ok.argmax(axis=1) + 1, 0)


def _severity(points: np.ndarray) -> np.ndarray:
    """Damage points to a wound level (1 Scratch ... 5+ Destroyed; 0 or less: none)."""
    return np.clip(points, 0, DESTROYED)


def _halve(points: np.ndarray) -> np.ndarray:
    """Detailed contests halve the damage, rounding up."""
    return np.where(points > 0, -(-points // 2), points)


def _wound(Y: np.ndarray, j: int, sev: np.ndarray, mask: np.ndarray, su: _Setup) -> None:
    """Mark wounds of ``sev`` on fighter j where ``mask``, spending Fudge points as the fighter's
    tactics say (as :func:`.fight_state.wound_fighter_by_severity`). Works on the wounded rows only."""
    sel = np.nonzero(mask & (sev > 0))[0]
    if not len(sel):
        return
    Z = Y[sel]
    sev = sev[sel]
    fudge = Z[:, FC * j + FUDGE]
    reduce = np.zeros(len(Z), dtype=np.int64)
    limit = su.flimit[j]
    still = np.full(len(Z), limit <= DESTROYED)
    for _ in range(DESTROYED):
        still &= (reduce < fudge) & (sev - reduce > 0)
        if not still.any():
            break
        box = _open_box(Z, j, np.maximum(sev - reduce, 1))
        still &= (box > 0) & (box >= limit)
        reduce += still
    left = sev - reduce
    box = np.where(left > 0, _open_box(Z, j, np.maximum(left, 1)), 0)
    for b in range(1, DESTROYED + 1):
        Z[:, FC * j + b - 1] += box == b
    Z[:, FC * j + FUDGE] = fudge - reduce
    Y[sel] = Z


def _detailed_step(X: np.ndarray, dice: np.ndarray, sb: np.ndarray, su: _Setup, cap: bool) -> np.ndarray:
    """One round of a detailed contest (:func:`.detailed.detailed_round`) for every row."""
    st, hr, g, N = su.state, su.state.house_rules, su.g, len(X)
    status = [_status(X, 0), _status(X, 1)]
    mods = [su.wpen[j][np.minimum(status[j], 5)] for j in (0, 1)]
    can = [np.ones(N, dtype=bool), np.ones(N, dtype=bool)]
    pen, inside, first = X[:, g + REACH], X[:, g + INSIDE] == 1, X[:, g + FIRST] == 1
    ret_reach = pen.copy()
    early = np.zeros(N, dtype=bool)
    reach_differs = su.rank[0] != su.rank[1]
    cvl = sorted(su.rank) == [0, 2]
    shorter = 0 if su.rank[0] < su.rank[1] else 1
    reach_live = hr.detailed_reach and not st.ranged and reach_differs
    if reach_live:
        if cvl:
            early = ~inside
            can[shorter] = inside.copy()
        who = np.where((pen == NONE) & first, shorter, pen)
        for j in (0, 1):
            mods[j] = mods[j] - ((who == j) & ~early)
        ret_reach = np.where(early, pen, who)
    assert su.cmod is not None
    res = [su.level[j] + mods[j] + su.cmod[j] + X[:, g + SC0 + j] + dice[:, j] for j in (0, 1)]
    winner = np.where(res[0] > res[1], 0, np.where(res[1] > res[0], 1, NONE))
    bonus = [np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64)]
    if hr.detailed_all_out:
        if su.aoo[0] != su.aoo[1]:
            att = 0 if su.aoo[0] else 1
            fail = winner != att
            winner = np.where(fail, 1 - att, winner)
            bonus[1 - att] += fail * int(COMBAT["all_out_offence_punished"])
            bonus[att] += (~fail) * int(COMBAT["all_out_offence_damage"])
        elif su.aoo[0] and su.aoo[1]:
            for j in (0, 1):
                bonus[j] += (winner == j) * int(COMBAT["all_out_offence_damage"])
    loser = np.where(winner >= 0, 1 - winner, NONE)
    Y = X.copy()
    for w in (0, 1):
        lo = 1 - w
        hit = (winner == w) & can[w]
        need = su.need[w]
        if need is not None:
            hit &= res[w] >= need
        if su.aod[w]:
            hit &= (dice[:, w] == 4) if hr.critical_rule == "dice_plus_4" else (res[w] - res[lo] >= 3)
        app = su.approach[0] + su.approach[1]
        pts = res[w] - res[lo] + su.dconst[w, lo] + app + bonus[w]
        _wound(Y, lo, _severity(_halve(pts)), hit, su)
        if hr.detailed_winner_takes_damage:
            pts_w = res[lo] - res[w] + su.dconst[lo, w] + app + bonus[lo]
            _wound(Y, w, _severity(_halve(pts_w)), hit, su)
    new_inside, new_reach = inside.copy(), ret_reach.copy()
    rest = np.ones(N, dtype=bool)
    if reach_live and cvl:
        ok = early & (loser != shorter)
        new_inside |= ok
        new_reach = np.where(ok, 1 - shorter, np.where(early, NONE, new_reach))
        rest = ~early
    if hr.detailed_reach and reach_differs:
        new_reach = np.where(rest & (loser >= 0), loser, new_reach)
    scope = [np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64)]
    if hr.detailed_all_out and hr.detailed_scope_out:
        for i in (0, 1):
            if su.fighters[i].tactics.stance != "all_out_defence":
                continue
            s_new = _status(Y, i)
            ok = (loser != i) & (s_new < DEFEATED) & (Y[:, FC * i + WITHDRAWN] == 0)
            ok &= sb[:, i] + su.wpen[i][np.minimum(s_new, 5)] >= hr.scope_out_difficulty
            scope[1 - i] = np.where(ok, int(COMBAT["scope_out_penalty"]), scope[1 - i])
    s0, s1 = _status(Y, 0), _status(Y, 1)
    d0 = s0 >= DEFEATED
    d1 = (s1 >= DEFEATED) & ~d0
    over = d0 | d1
    win = np.where(d0, 1, np.where(d1, 0, NONE))
    for i, s in ((0, s0), (1, s1)):
        if su.withdraw[i] <= DESTROYED:
            m = ~over & (s >= su.withdraw[i])
            Y[:, FC * i + WITHDRAWN] |= m
            over |= m
            win = np.where(m, 1 - i, win)
    return _finish(X, Y, over, win, su, cap, first=0, reach=new_reach, inside=new_inside, scope=scope)


def _finish(X, Y, over, win, su: _Setup, cap: bool, **fight: Any) -> np.ndarray:
    g = su.g
    if cap:
        m = ~over & (X[:, g + RND] + 1 >= su.state.max_rounds)
        over = over | m
        win = np.where(m, NONE, win)
        Y[:, g + RND] = X[:, g + RND] + 1
    Y[:, g + OVER] = over
    Y[:, g + WIN] = win
    if "reach" in fight:
        Y[:, g + FIRST] = fight["first"]
        Y[:, g + REACH] = fight["reach"]
        Y[:, g + INSIDE] = fight["inside"]
        Y[:, g + SC0], Y[:, g + SC1] = fight["scope"]
    else:
        Y[:, g + FIRST] = 0
    return Y


def _active(X: np.ndarray, su: _Setup) -> np.ndarray:
    """(N, n) who is still in the contest: not Defeated on its track, not withdrawn."""
    return np.stack([(_status(X, j) < DEFEATED) & (X[:, FC * j + WITHDRAWN] == 0) for j in range(su.n)], axis=1)


def _pattern_code(act: np.ndarray) -> np.ndarray:
    return act.astype(np.int64) @ (1 << np.arange(act.shape[1], dtype=np.int64))


def _pattern_sides(code: int, su: _Setup) -> tuple[list[int], list[int]]:
    return ([j for j in su.members[0] if code >> j & 1], [j for j in su.members[1] if code >> j & 1])


def _simple_step(X: np.ndarray, dice: np.ndarray, sb: np.ndarray, su: _Setup, cap: bool) -> np.ndarray:
    """One roll of a simple (or group) contest (:func:`.simple.simple_round`) for every row."""
    st, hr, N = su.state, su.state.house_rules, len(X)
    phys = st.track == "physical"
    Y = X.copy()
    outcome = np.full(N, NONE, dtype=np.int64)
    status = [_status(X, j) for j in range(su.n)]
    act = np.stack([(status[j] < DEFEATED) & (X[:, FC * j + WITHDRAWN] == 0) for j in range(su.n)], axis=1)
    codes = _pattern_code(act)
    patterns = np.unique(codes).tolist()
    for code in patterns:
        A = _pattern_sides(code, su)
        if not A[0] or not A[1]:
            raise OddsError("a side has nobody left to fight, yet the contest is not over: an inconsistent saved state")
        whole = len(patterns) == 1
        R = slice(None) if whole else np.nonzero(codes == code)[0]
        mods = {j: su.wpen[j][np.minimum(status[j][R], 5)] for j in A[0] + A[1]}
        if len(A[0]) == 1 and len(A[1]) == 1:
            a, b = A[0][0], A[1][0]
            fa, fb = su.fighters[a], su.fighters[b]
            if hr.simple_armament_bonus and phys:
                ba, bb = armament_bonus(fa.character, fb.character)
                mods[a] = mods[a] + ba
                mods[b] = mods[b] + bb
            if hr.simple_reach_bonus and phys and not st.ranged:
                ra, rb = reach_rank(fa), reach_rank(fb)
                if abs(ra - rb) >= 2:
                    longer = a if ra > rb else b
                    mods[longer] = mods[longer] + hr.simple_reach_bonus
        elif len(A[0]) != len(A[1]):
            small, big = (A[0], A[1]) if len(A[0]) < len(A[1]) else (A[1], A[0])
            levels = np.stack([su.level[j] + mods[j] for j in small], axis=1)
            order = np.argsort(-levels, axis=1, kind="stable")
            rank = np.argsort(order, axis=1, kind="stable")
            base, spare = divmod(len(big), len(small))
            pen = np.maximum(base + (rank < spare) - 1, 0)
            if hr.outnumbering_max_penalty is not None:
                pen = np.minimum(pen, hr.outnumbering_max_penalty)
            for k, j in enumerate(small):
                mods[j] = mods[j] - pen[:, k]
        res = {j: su.level[j] + mods[j] + dice[R, j] for j in A[0] + A[1]}
        S = [sum(res[j] for j in A[s]) for s in (0, 1)]
        n0, n1 = len(A[0]), len(A[1])
        oc = np.where(S[0] * n1 > S[1] * n0, 0, np.where(S[1] * n0 > S[0] * n1, 1, NONE))
        outcome[R] = oc
        Z = Y if whole else Y[R]
        m = len(oc)
        if st.stakes is not None:
            for s in (0, 1):
                for j in A[s]:
                    _wound(Z, j, np.full(m, st.stakes), oc == 1 - s, su)
        else:
            for s in (0, 1):
                o = 1 - s
                no = len(A[o])
                for i, j in enumerate(A[s]):
                    foe = A[o][i % no]
                    margin = (S[o] - no * res[j]) // no
                    pts = margin + su.dconst[foe, j] + su.approach[j] + su.approach[foe]
                    _wound(Z, j, _severity(pts), np.ones(m, dtype=bool), su)
        if not whole:
            Y[R] = Z
    over = outcome >= 0
    win = outcome.copy()
    if st.on_tie == "draw":
        over[:] = True
    out_after = ~_active(Y, su)
    for s in (0, 1):
        m = out_after[:, su.members[s]].all(axis=1) & ~over
        over |= m
        win = np.where(m, 1 - s, win)
    return _finish(X, Y, over, win, su, cap)


def step(X: np.ndarray, dice: np.ndarray, sb: np.ndarray, su: _Setup, cap: bool = True) -> np.ndarray:
    """One round for every row of ``X`` (all still going): ``dice`` (N, n) each fighter's 4dF total,
    ``sb`` (N, n) each fighter's Perception/Tactics result before modifiers (detailed all-out defence)."""
    return (_detailed_step if su.state.mode == "detailed" else _simple_step)(X, dice, sb, su, cap)


# ---- exact: the Markov chain ------------------------------------------------------------------------


TOO_BIG = "use --method simulate"


def _solve(state: FightState) -> tuple[Absorbed[Bout], int, dict[Bout, float]]:
    """The chain of the round function itself (:func:`.combat.contest_round`): from each state,
    :func:`~storymaster.forecast.chance.branches` plays the round once per chance branch; the states
    reachable are built breadth first and the chain absorbed. Returns it, the number of states, and
    the fights still going at the round cap, by state."""
    c = contest_of(state, count=False)
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
    su = _setup(state)
    absorbed, n_states, live = _solve(state)
    p_win = [0.0, 0.0]
    ends: list[dict[str, float]] = [{} for _ in su.fighters]
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
            label = _label(f)
            ends[j][label] = ends[j].get(label, 0.0) + p
    notes = [f"exact: an absorbing Markov chain over {n_states:,} fight states"]
    if live:
        still = sum(live.values())
        notes.append(f"{still:.2e} of the fights are still going at the {state.max_rounds}-round cap: draws")
    notes += _notes(su)
    return Forecast(
        system=SYSTEM_NAME,
        method="exact",
        sides=_sides(su),
        p_win=tuple(p_win),
        p_draw=p_draw,
        rounds=dict(sorted(rounds.items())),
        combatants=tuple(CombatantForecast(su.names[j], su.side[j], ends[j]) for j in range(su.n)),
        error=error,
        tactics=_tactics(su),
        draw_meaning=draw_meaning(state),
        notes=tuple(notes),
    )


def _label(f: Fighting) -> str:
    status = f.status
    if f.withdrawn and status:
        return f"withdrew at {severity_name(status)}"
    return severity_name(status) if status else "unhurt"


# ---- simulation ----------------------------------------------------------------------------------


def _sampler(pmf: dict[int, float]) -> Callable[[np.random.Generator, int], np.ndarray]:
    vals = np.array(list(pmf), dtype=np.int64)
    cdf = np.cumsum(np.array(list(pmf.values())))
    cdf[-1] = 1.0
    return lambda gen, m: vals[np.searchsorted(cdf, gen.random(m), side="right")]


def batch_simulator(su: _Setup) -> Callable[[int, np.random.Generator], Batch]:
    """A :func:`run_simulation` batch simulator: ``n`` fights at once, a numpy step per round."""
    start = start_row(su, with_round=True)
    g = su.g
    scope = [_sampler(p) if len(p) > 1 else None for p in su.scope_pmf]
    r0 = su.state.round

    def simulate(m: int, gen: np.random.Generator) -> Batch:
        X = np.tile(start, (m, 1))
        while True:
            live = np.nonzero(X[:, g + OVER] == 0)[0]
            if not len(live):
                break
            k = len(live)
            dice = np.searchsorted(_DF_CDF, gen.random((k, su.n)), side="right") - 4
            sb = np.zeros((k, su.n), dtype=np.int64)
            for j, f in enumerate(scope):
                if f is not None:
                    sb[:, j] = f(gen, k)
            X[live] = step(X[live], dice, sb, su, True)
        codes = {}
        for j in range(su.n):
            status = _status(X, j)
            codes[su.names[j]] = np.where(X[:, FC * j + WITHDRAWN] == 1, DESTROYED + status, status)
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
    su = _setup(state)
    return run_simulation(
        SYSTEM_NAME,
        batch_simulator(su),
        sides=_sides(su),
        combatant_sides={su.names[j]: su.side[j] for j in range(su.n)},
        samples=samples,
        seed=seed,
        tactics=_tactics(su),
        draw_meaning=draw_meaning(state),
        progress=progress,
        notes=(*notes, *_notes(su)),
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


def _sides(su: _Setup) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(su.names[j] for j in su.members[s]) for s in (0, 1))


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


def _tactics(su: _Setup) -> dict[str, str]:
    out = {}
    for s in (0, 1):
        texts = [tactics_text(su.fighters[j], su.state) for j in su.members[s]]
        if len(texts) == 1:
            out[side_label(s)] = texts[0]
        else:
            out[side_label(s)] = "; ".join(f"{su.names[j]}: {t}" for j, t in zip(su.members[s], texts, strict=True))
    return out


def _notes(su: _Setup) -> list[str]:
    st = su.state
    kind = (
        "detailed contest (one-on-one rounds, damage halved)"
        if st.mode == "detailed"
        else (
            "simple contest"
            + (" (group)" if su.n > 2 else "")
            + (f", stakes {severity_name(st.stakes)}" if st.stakes else "")
            + (", ties re-rolled" if st.on_tie == "reroll" else ", a tie is a draw")
        )
    )
    out = [f"{kind} on the {st.track} track" + (", missile combat" if st.ranged else "")]
    if any(f.tactics.fudge_reduce_at == "destroyed" for f in su.fighters):
        out.append(
            "Fudge points are spent automatically to keep a wound out of the Destroyed box (unless a tactic says not)"
        )
    if st.round:
        out.append(f"forecast from round {st.round}: rounds are counted from there")
    return out
