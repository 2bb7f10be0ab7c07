"""Whole-fight forecasts for B.U.M.: exact Markov chains where the state space allows, numpy simulation elsewhere.

:func:`forecast` answers from ANY engine state (the start of a fight or a state
saved mid-fight) with a :class:`~storymaster.forecast.Forecast`: each side's
chance to win, the stand-off (the fight still going at the state's round cap,
``max_rounds``: B.U.M. has no other draw, since the last fighter of a side can
only go down on someone else's turn), the rounds still to be fought, and each
fighter's end in B.U.M.'s own terms: ``unhurt`` (no wound on the card),
``N HP left``, or ``down (0 HP)`` (Part Five, Wounds/Injury: too hurt to fight,
but alive; at levels 1-2 it is how the loser of the roll ends, and a melee
sneak attack or a shot to the head puts a fighter there at once).

* **exact** (``absorb``): a chain over every fighter's hit points, weapon in hand,
  stun, missile readiness, reload steps and ammunition, the distance between the
  sides and the round where it matters, playing the engine's rounds with every
  chance branched: any level 1-4 and switches, movement and missiles, reloading,
  sneak attacks and head shots, stuns, the longspear option, every tie house rule,
  the round cap. It needs a turn order it can list (the GM's order, a state after
  round 1, or a DEX/INT roll among at most five fighters: every order with its
  exact chance) and a fight small enough (the fighters' hit points make at most
  20,000 combinations, and a bounded amount of work); otherwise it raises
  :class:`~storymaster.errors.OddsError` saying why. A plain level 2-3 duel is
  answered in closed form (the same numbers, quicker).
* **simulate**: the engine's rules in numpy over many fights at once (arrays of
  fighters' states; Python loops only over rounds, turn positions and fighters),
  for the fights too big for the chain (many fighters, many hit points, many
  rolled turn orders).
* **auto**: exact when it applies (and has fewer than the core's state limit), else simulate.

Both follow the engine's automatic tactics exactly: the same targets (a named
target while he stands, else the first foe standing in turn order; at levels 2-3
a foe who has not rolled yet), the same choice of missile or melee weapon, the
same house rules. :func:`win_probability` keeps the older exact-rational
(Fraction) solution of a level 3 or 4 duel as an independent reference.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import comb
from typing import Any

import numpy as np

from ...errors import OddsError
from ...forecast import Batch, Chance, CombatantForecast, Forecast, absorb, branches, run_simulation, side_label
from .character import WeaponProfile, attack_total, defence_parts, hit_points, profile
from .fighters import (
    UNARMED,
    Fighter,
    FightState,
    attack_odds,
    exchange_odds,
    gm_order,
    melee_slot,
    missile_of,
)
from .options import BumHouseRules
from .rounds import Card, RoundState, Setup, card, delayed, exchange, level_after_switch, next_state, p_ok
from .twins import (
    READINESS,
    WIELDING,
    advance_v,
    after_shot_v,
    p_fixed_v,
    p_opposed_v,
    pick_target_v,
    range_penalty_v,
    reload_step_v,
    set_down_v,
    strikes_first_v,
    uses_missile_v,
)

__all__ = [
    "DRAW_MEANING",
    "DuelChain",
    "duel_chain",
    "end_label",
    "exact_scope",
    "forecast",
    "round_transitions",
    "win_probability",
]

SYSTEM = "bum"
DRAW_MEANING = "stand-off (still fighting at the round cap)"
DOWN = "down (0 HP)"
UNHURT = "unhurt"
TOLERANCE = 1e-12


def end_state_order(result: Forecast) -> tuple[str, ...]:
    """The end states a forecast met, mildest first: unhurt, then fewer and fewer HP left, then down."""

    def hp_left(label: str) -> float:
        if label == UNHURT:
            return math.inf
        if label == DOWN:
            return -math.inf
        return float(label.split()[0]) if label.split()[0].isdigit() else 0.0

    labels = {k for c in result.combatants for k in c.end_states}
    return tuple(sorted(labels, key=lambda k: -hp_left(k)))


def end_label(hp: int, max_hp: int) -> str:
    """A fighter's end in B.U.M.'s terms: unhurt, N HP left, or down at 0 HP."""
    if hp <= 0:
        return DOWN
    if hp >= max_hp:
        return UNHURT
    return f"{hp} HP left"


def _tactics(state: FightState) -> dict[str, str]:
    """Each side's tactics in words: one word when the whole side shares it, else who does what."""
    by_side: dict[int, list[Fighter]] = {}
    for f in state.fighters:
        by_side.setdefault(f.side, []).append(f)
    out = {}
    for s in range(max(by_side) + 1):
        fs = by_side.get(s, [])
        kinds = {f.tactic for f in fs}
        text = fs[0].tactic if len(kinds) == 1 else ", ".join(f"{f.name}: {f.tactic}" for f in fs)
        extra = [f"{f.name} targets {f.target}" for f in fs if f.target]
        out[side_label(s)] = "; ".join([text, *extra]) if extra else text
    return out


def _sides(state: FightState) -> list[list[str]]:
    n = max(f.side for f in state.fighters) + 1
    return [[f.name for f in state.fighters if f.side == s] for s in range(n)]


def _notes(state: FightState, method: str) -> tuple[str, ...]:
    notes = [
        f"rounds are counted from this state (round {state.round}); the fight stops as a stand-off after round "
        f"{state.max_rounds}",
        "down (0 HP): too hurt to fight, run or cast, but alive (Part Five, Wounds/Injury)",
    ]
    if state.level in (1, 2) or any(lvl in (1, 2) for _, lvl in state.switch):
        fate = "wounded" if state.house_rules.loser_fate == "wound" else "out (0 HP)"
        notes.append(f"levels 1-2: the loser of a roll is {fate}")
    return tuple(notes)


# --------------------------------------------------------------------------- exact: a chain over the fighters' states


#: the most fighters whose rolled turn order the exact chain lists (6^n faces to count)
MAX_ROLLED_ORDER = 5
#: the exact chain is not tried when the fighters' hit points alone make more combinations than this
MAX_HP_COMBINATIONS = 20_000
#: nor carried on past this many replayed branches of the rounds' chances (the work, not just the states)
MAX_PATHS = 60_000


def exact_scope(state: FightState) -> None:
    """Raise OddsError (with the reason and a hint) unless the exact chain can take this state on."""
    combos = 1
    for f in state.fighters:
        combos *= f.hp + 1
    if combos > MAX_HP_COMBINATIONS:
        raise OddsError(
            f"{len(state.fighters)} fighters with these hit points make {combos:,} combinations: "
            "too many to forecast exactly",
            hint="simulate it (--method simulate)",
        )
    n = len(state.fighters)
    if state.round == 0 and not state.order and state.initiative != "gm" and n > MAX_ROLLED_ORDER:
        raise OddsError(
            f"the turn order of {n} fighters is rolled in round 1: the exact forecast lists the orders of "
            f"at most {MAX_ROLLED_ORDER}",
            hint="forecast from the state after round 1, use the GM's order, or simulate",
        )


class _Chain:
    """The exact chain: from each state, the engine's round (:func:`.rounds.next_state`) run once per branch of
    its chances (:func:`~storymaster.forecast.chance.branches`). Past the last level switch the round number
    matters only for the round cap, so unless the cap is tracked it is held there (fewer states)."""

    def __init__(self, state: FightState, track_rounds: bool) -> None:
        self.setup = Setup.of(state)
        self.start = self.setup.state(state)
        self.cap = max(state.max_rounds, state.round + 1)  # the engine plays at least one more round
        self.track = track_rounds
        self.flat = max([state.round + 1, *(rnd for rnd, _ in state.switch if rnd > state.round)])
        self._over: dict[tuple[int, ...], bool] = {}
        self.work = 0

    def terminal(self, x: RoundState) -> bool:
        hp = x[4]
        over = self._over.get(hp)
        if over is None:
            over = self._over[hp] = len({s for s, h in zip(self.setup.sides, hp, strict=True) if h > 0}) < 2
        return over or (self.track and x[0] >= self.cap)

    def transitions(self, x: RoundState) -> list[tuple[float, RoundState]]:
        setup = self.setup

        def play(chance: Chance) -> RoundState:
            self.work += 1
            if self.work > MAX_PATHS:
                raise OddsError(
                    "this fight has too many ways for a round to go to forecast exactly",
                    hint="simulate it (--method simulate)",
                )
            return next_state(setup, x, chance)

        out = branches(play)
        if self.track or x[0] + 1 <= self.flat:
            return out
        return [(p, (self.flat, *y[1:])) for p, y in out]  # type: ignore[misc]


_P_EXCHANGE: dict[tuple[int, bool, Card, Card], tuple[BumHouseRules, float]] = {}


def _p_exchange(hr: BumHouseRules, initiating: bool, a: Card, b: Card) -> float:
    """The chance of :func:`.rounds.exchange` coming out ok, remembered by house rules (frozen: by identity)."""
    key = (id(hr), initiating, a, b)
    hit = _P_EXCHANGE.get(key)
    if hit is not None and hit[0] is hr:
        return hit[1]
    if len(_P_EXCHANGE) > 4096:
        _P_EXCHANGE.clear()
    p = p_ok(exchange(hr, initiating, a, b))
    _P_EXCHANGE[key] = (hr, p)
    return p


def _duel_closed_form(state: FightState) -> Forecast | None:
    """A duel fought at level 2 or 3 throughout, in closed form (None when it does not apply).

    Every exchange is the same independent trial: A wins it with chance p whoever rolls first
    (the tie rules look at sides and players, not at the order), so A wins having lost j hit
    points with chance C(hb - 1 + j, j) p^hb (1 - p)^j, after hb + j rounds (level 3, or level 2
    when the loser only takes a wound); at level 2 one exchange decides. The chain gives the
    same numbers (tests); this is only quicker.
    """
    if len(state.fighters) != 2 or state.level not in (2, 3) or any(rnd > state.round for rnd, _ in state.switch):
        return None
    fa, fb = state.fighters
    if fa.side == fb.side or fa.side > 1 or fb.side > 1:
        return None
    if fa.side == 1:
        fa, fb = fb, fa
    hr = state.house_rules
    ca, cb = card(fa.character, hr), card(fb.character, hr)
    p = _p_exchange(hr, fa.side == state.initiator, ca, cb)
    q = 1.0 - p
    ha, hb = fa.hp, fb.hp
    budget = max(1, state.max_rounds - state.round)
    knock_out = state.level == 2 and hr.loser_fate != "wound"
    rounds: dict[int, float] = defaultdict(float)
    end_a: dict[str, float] = defaultdict(float)
    end_b: dict[str, float] = defaultdict(float)
    if knock_out:
        rounds[1] = 1.0
        end_a[end_label(ha, ca.max_hp)] += p
        end_b[DOWN] += p
        end_a[DOWN] += q
        end_b[end_label(hb, cb.max_hp)] += q
        p_a = p
    else:
        if ha + hb - 1 > budget:
            return None  # the round cap may stop it: the chain counts the stand-off
        p_a = 0.0
        for j in range(ha):  # A wins, having lost j exchanges
            w = comb(hb - 1 + j, j) * p**hb * q**j
            p_a += w
            rounds[hb + j] += w
            end_a[end_label(ha - j, ca.max_hp)] += w
            end_b[DOWN] += w
        for j in range(hb):  # B wins, having lost j exchanges
            w = comb(ha - 1 + j, j) * q**ha * p**j
            rounds[ha + j] += w
            end_b[end_label(hb - j, cb.max_hp)] += w
            end_a[DOWN] += w
    # a certain exchange (p 0 or 1) leaves impossible ends at 0: the chain never lists them
    end_a = {k: v for k, v in end_a.items() if v > 0}
    end_b = {k: v for k, v in end_b.items() if v > 0}
    rounds = {k: v for k, v in rounds.items() if v > 0}
    ends = {fa.name: (fa.side, end_a), fb.name: (fb.side, end_b)}
    return Forecast(
        system=SYSTEM,
        method="exact",
        sides=((fa.name,), (fb.name,)),
        p_win=(p_a, 1.0 - p_a),
        p_draw=0.0,
        rounds=dict(sorted(rounds.items())),
        combatants=tuple(CombatantForecast(f.name, ends[f.name][0], dict(ends[f.name][1])) for f in state.fighters),
        error=0.0,
        tactics=_tactics(state),
        draw_meaning=DRAW_MEANING,
        notes=(*_notes(state, "exact"), "exact: a duel of independent exchanges, in closed form"),
    )


def _exact(state: FightState, *, closed_form: bool = True) -> Forecast:
    if closed_form:
        quick = _duel_closed_form(state)
        if quick is not None:
            return quick
    exact_scope(state)
    chain = _Chain(state, track_rounds=False)
    budget = max(1, state.max_rounds - state.round)
    result = absorb(chain.start, chain.transitions, chain.terminal, max_rounds=budget, tolerance=TOLERANCE)
    if result.unresolved >= TOLERANCE:
        # the round cap is reached with real probability: keep the round in the state to count the stand-off
        chain = _Chain(state, track_rounds=True)
        result = absorb(chain.start, chain.transitions, chain.terminal, max_rounds=budget + 1, tolerance=TOLERANCE)
    sides = chain.setup.sides
    cards = chain.setup.cards
    n_sides = max(sides) + 1
    p_win = [0.0] * n_sides
    p_draw = 0.0
    by_hp: list[dict[int, float]] = [defaultdict(float) for _ in sides]
    for x, p in result.terminal.items():
        hp = x[4]
        left = {s for s, h in zip(sides, hp, strict=True) if h}
        if len(left) == 1:
            p_win[left.pop()] += p
        else:
            p_draw += p
        for k, h in enumerate(hp):
            by_hp[k][h] += p
    ends: list[dict[str, float]] = []
    for c, dist in zip(cards, by_hp, strict=True):
        e: dict[str, float] = defaultdict(float)
        for h, p in dist.items():
            e[end_label(h, c.max_hp)] += p
        ends.append(e)
    return Forecast(
        system=SYSTEM,
        method="exact",
        sides=tuple(tuple(s) for s in _sides(state)),
        p_win=tuple(p_win),
        p_draw=p_draw,
        rounds=dict(sorted(result.rounds.items())),
        combatants=tuple(CombatantForecast(f.name, f.side, dict(e)) for f, e in zip(state.fighters, ends, strict=True)),
        error=result.unresolved,
        tactics=_tactics(state),
        draw_meaning=DRAW_MEANING,
        notes=(*_notes(state, "exact"), f"exact Markov chain over {result.states_seen} fight states"),
    )


def _finished(state: FightState) -> Forecast:
    """A fight that is already over: its end, for certain."""
    left = {f.side for f in state.fighters if f.standing}
    n_sides = max(f.side for f in state.fighters) + 1
    w = next(iter(left)) if len(left) == 1 else None
    return Forecast(
        system=SYSTEM,
        method="exact",
        sides=tuple(tuple(s) for s in _sides(state)),
        p_win=tuple(1.0 if i == w else 0.0 for i in range(n_sides)),
        p_draw=0.0 if w is not None else 1.0,
        rounds={0: 1.0},
        combatants=tuple(
            CombatantForecast(f.name, f.side, {end_label(f.hp, hit_points(f.character)): 1.0}) for f in state.fighters
        ),
        error=0.0,
        tactics=_tactics(state),
        draw_meaning=DRAW_MEANING,
        notes=("the fight is already over",),
    )


# --------------------------------------------------------------------------- simulated: the engine's rules in numpy


class _Sim:
    """``n`` fights from the same state at once; arrays are (fights, fighters). Each rule is the round's own named
    rule (:mod:`.rounds`) or its vectorised twin (:mod:`.twins`), the chances those of the round's events."""

    def __init__(self, state: FightState) -> None:
        self.s = state
        self.hr = state.house_rules
        self.setup = su = Setup.of(state)
        self.cards = su.cards
        self.F = F = len(su.cards)
        self.side = np.array(su.sides)
        self.n_sides = int(self.side.max()) + 1
        self.members = [np.flatnonzero(self.side == k) for k in range(self.n_sides)]
        self.surprised = su.surprised
        self.p_exch = np.zeros((F, F))
        for i in range(F):
            for j in range(F):
                if su.sides[i] != su.sides[j]:
                    self.p_exch[i, j] = p_ok(su.exchange(i, j))
        # per fighter, by weapon-in-hand code: the melee defence, and whether the weapon is a longspear
        self.ties = [[su.attack_tie(i, j) for j in range(F)] for i in range(F)]
        self.parry_def = [np.array([c.defence(False, w)[1] for w in WIELDING]) for c in su.cards]
        self.longspear = [np.array([c.in_hand(w).longspear for w in WIELDING]) for c in su.cards]

    # ------------------------------------------------------------------ one batch
    def __call__(self, n: int, gen: np.random.Generator) -> Batch:
        s, F = self.s, self.F
        self.gen = gen

        def per_fighter(values: list[int]) -> np.ndarray:
            return np.tile(np.array(values, dtype=np.int64), (n, 1))

        self.hp = per_fighter([f.hp for f in s.fighters])
        self.wield = per_fighter([WIELDING.index(f.wielding) for f in s.fighters])
        self.ready = per_fighter([READINESS.index(f.readiness) for f in s.fighters])
        self.rp = per_fighter([f.reload_progress for f in s.fighters])
        self.ammo = per_fighter([f.ammo if f.ammo is not None else 0 for f in s.fighters])
        self.counted = [f.ammo is not None for f in s.fighters]
        self.stun = per_fighter([f.stunned for f in s.fighters])
        self.acted = np.zeros((n, F), dtype=bool)
        self.dist = np.full(n, s.distance, dtype=np.int64)
        winner = np.full(n, -1, dtype=np.int64)
        rounds = np.zeros(n, dtype=np.int64)
        live = np.ones(n, dtype=bool)
        names = self.setup.names
        if s.round > 0 or s.order:
            self.order = per_fighter([names.index(x) for x in (s.order or names)])
        else:
            self.order = np.empty((n, F), dtype=np.int64)
        # a fight already over, or already stopped
        left = self._sides_left()
        done0 = (left < 2) | s.ended
        winner[done0 & (left == 1)] = self._only_side()[done0 & (left == 1)]
        live &= ~done0
        r, level = s.round, s.level
        while live.any():
            level = level_after_switch(s.switch, r, level)
            self.r = r
            if r == 0:
                if not s.order:
                    self._initiative(n)
                self._delays()
            self.pos = np.argsort(self.order, axis=1)  # pos[f, i]: place of fighter i in the turn order
            self.acted[live] = False
            if level == 4:
                self._round4(live)
            elif level == 1:
                self._round1(live)
            else:
                self._round_opposed(live, level)
            r += 1
            left = self._sides_left()
            over = live & (left < 2)
            winner[over & (left == 1)] = self._only_side()[over & (left == 1)]
            if r >= s.max_rounds:
                over = live  # the rest are a stand-off at the round cap
            rounds[over] = r - s.round
            live &= ~over
        codes = {}
        state_names = [DOWN, *(f"{k} HP left" for k in range(1, max(c.max_hp for c in self.cards) + 1)), UNHURT]
        for k, c in enumerate(self.cards):
            h = self.hp[:, k]
            codes[names[k]] = np.where(h >= c.max_hp, len(state_names) - 1, h)
        return Batch(winner, rounds, codes, state_names)

    # ------------------------------------------------------------------ helpers
    def _standing_by_side(self) -> np.ndarray:
        """(fights, sides): whether the side has someone standing."""
        up = self.hp > 0
        out = np.empty((up.shape[0], self.n_sides), dtype=bool)
        for k, members in enumerate(self.members):
            out[:, k] = up[:, members].any(axis=1)
        return out

    def _sides_left(self) -> np.ndarray:
        up = self.hp > 0
        left = np.zeros(up.shape[0], dtype=np.int64)
        for members in self.members:
            left += up[:, members].any(axis=1)
        return left

    def _only_side(self) -> np.ndarray:
        return np.argmax(self._standing_by_side(), axis=1)

    def _initiative(self, n: int) -> None:
        """Part Five, Turn Sequence: d6 + DEX (or INT), ties re-rolled among the tied; the GM's order otherwise."""
        s = self.s
        if s.initiative == "gm":
            self.order[:] = self.setup.gm
            return
        stat = np.array([f.character.stats.get("DEX" if s.initiative == "dex" else "INT") for f in s.fighters])
        key = np.zeros((n, self.F), dtype=np.int64)
        for _ in range(8):  # a tie surviving 8 re-rolls has a chance below 1e-6
            key = key * 128 + self.gen.integers(1, 7, size=(n, self.F)) + np.minimum(stat, 120)
        self.order[:] = np.argsort(-key, axis=1, kind="stable")

    def _delays(self) -> None:
        """Turn Sequence: :func:`.rounds.delayed` on each distinct turn order."""
        if not self.setup.delay:
            return
        rows, where = np.unique(self.order, axis=0, return_inverse=True)
        done = np.array([delayed(tuple(int(v) for v in row), self.setup.delay) for row in rows], dtype=np.int64)
        self.order[:] = done[where.reshape(-1)]

    def _pick(self, i: int, m: np.ndarray, rolled: np.ndarray | None = None) -> np.ndarray:
        """The engine's target (:func:`.rounds.pick_target`), -1 outside ``m``."""
        tgt = pick_target_v(i, self.pos, self.side, self.hp, self.setup.targets[i], rolled)
        return np.where(m, tgt, -1)

    def _hit(self, mask: np.ndarray, p: np.ndarray | float) -> np.ndarray:
        return mask & (self.gen.random(mask.shape[0]) < p)

    def _wound(self, who: np.ndarray, t: int, n: int | np.ndarray) -> None:
        self.hp[who, t] = np.maximum(0, self.hp[who, t] - (n if np.isscalar(n) else n[who]))

    def _fate(self, who: np.ndarray, t: int) -> None:
        """Levels 1-2: the loser is beaten (all his hit points) or, by house rule, takes a wound."""
        self._wound(who, t, 1 if self.hr.loser_fate == "wound" else self.hp[:, t])

    # ------------------------------------------------------------------ levels 1-3
    def _round1(self, live: np.ndarray) -> None:
        for k in range(self.F):
            for i in range(self.F):
                if self.setup.sides[i] != 0:
                    continue
                m = live & (self.order[:, k] == i) & (self.hp[:, i] > 0)
                if not m.any():
                    continue
                tgt = self._pick(i, m)
                m &= tgt >= 0
                ok = self._hit(m, p_ok(self.setup.fight_roll(i)))
                self._fate(m & ~ok, i)
                for j in range(self.F):
                    self._fate(ok & (tgt == j), j)

    def _round_opposed(self, live: np.ndarray, level: int) -> None:
        rolled = np.zeros_like(self.acted)
        for k in range(self.F):
            for i in range(self.F):
                m = live & (self.order[:, k] == i) & (self.hp[:, i] > 0) & ~rolled[:, i]
                if not m.any():
                    continue
                tgt = self._pick(i, m, rolled)
                m &= tgt >= 0
                for j in range(self.F):
                    mj = m & (tgt == j)
                    if not mj.any():
                        continue
                    won = self._hit(mj, self.p_exch[i, j])
                    rolled[mj, i] = True
                    rolled[mj, j] = True
                    if level == 2:
                        self._fate(won, j)
                        self._fate(mj & ~won, i)
                    else:
                        self._wound(won, j, 1)
                        self._wound(mj & ~won, i, 1)

    # ------------------------------------------------------------------ level 4
    def _round4(self, live: np.ndarray) -> None:
        for k in range(self.F):
            for i in range(self.F):
                m = live & (self.order[:, k] == i)
                if not m.any():
                    continue
                m &= self._sides_left() >= 2
                self._turn(i, m)

    def _turn(self, i: int, m: np.ndarray) -> None:
        """One fighter's turn (:func:`.rounds._take_turn`)."""
        c, hr, tactic = self.cards[i], self.hr, self.setup.tactics[i]
        m = m & (self.hp[:, i] > 0) & ~self.acted[:, i]
        if self.r == 0 and self.surprised[i]:
            return
        st = m & (self.stun[:, i] > 0)
        if st.any():
            self.stun[st, i] -= 1
            self.acted[st, i] = True
            m &= ~st
        tgt = self._pick(i, m)
        m &= tgt >= 0
        if not m.any():
            return
        missile = c.missile
        if missile is not None:
            ammo = self.ammo[:, i] if self.counted[i] else None
            use = m & uses_missile_v(missile, tactic, self.ready[:, i], ammo, self.dist, self.r == 0, hr)
            if use.any():
                ready = self.ready[:, i] == READINESS.index("ready")
                self.wield[use, i] = WIELDING.index("ranged")
                self._shoot(i, use & ready, tgt, range_penalty_v(self.dist, missile, hr))
                self._reload(i, use & ~ready)
                m &= ~use
        # melee: close in (unless holding ground), then strike
        far = m & (self.dist > 0)
        if far.any():  # (in reach, the move changes nothing)
            after, strike = advance_v(self.dist[far], tactic, hr)
            self.dist[far] = after
            self.acted[far, i] = ~strike
            m[far] = strike
            if not m.any():
                return
        melee = WIELDING.index(c.melee)
        change = m & (self.wield[:, i] != melee)
        if change.any():
            if missile is not None:  # Appendix A, Partially Loaded Weapons: setting a ready bow or crossbow down
                down = change & (self.wield[:, i] == WIELDING.index("ranged"))
                self.ready[down, i] = set_down_v(missile.reload, self.ready[down, i])
            self.wield[change, i] = melee
        if hr.longspear_first_strike:
            self._longspear(i, m, tgt)
        m &= self.hp[:, i] > 0
        self.acted[m, i] = True
        for j in range(self.F):
            mj = m & (tgt == j)
            if mj.any():
                self._melee(i, j, mj)

    def _longspear(self, i: int, m: np.ndarray, tgt: np.ndarray) -> None:
        for j in range(self.F):
            if not self.longspear[j].any():
                continue
            spear = self.longspear[j][self.wield[:, j]]
            surprised = self.r == 0 and self.surprised[j]
            first = strikes_first_v(
                self.hr, spear, self.acted[:, j], self.hp[:, j], self.stun[:, j], surprised, self.dist
            )
            mj = m & (tgt == j) & first
            if not mj.any():
                continue
            self.acted[mj, j] = True
            self.wield[mj, j] = np.where(self.wield[mj, j] > 0, self.wield[mj, j], WIELDING.index(self.cards[j].melee))
            self._melee(j, i, mj)

    def _melee(self, i: int, j: int, m: np.ndarray) -> None:
        """A hand-to-hand attack (:func:`.rounds._attack`, :func:`.rounds._attack_unarmed`, sneak attacks)."""
        a, hr = self.cards[i], self.hr
        slot = a.melee
        attack = a.attack(slot)[1] if slot else a.character.stats.STR
        wounds = a.in_hand(slot).wounds if slot else 1
        if self.r == 0 and self.surprised[j] and (hr.sneak_melee_kills or slot is not None):
            if hr.sneak_melee_kills:
                self.hp[m, j] = 0
            else:
                self._wound(self._hit(m, p_fixed_v(attack, self.s.sneak_dc)), j, wounds)
            return
        diff = attack - self.parry_def[j][self.wield[:, j]]
        hit = self._hit(m, p_opposed_v(diff, self.ties[i][j]))
        self._wound(hit, j, wounds)

    def _shoot(self, i: int, shoot: np.ndarray, tgt: np.ndarray, pen: np.ndarray) -> None:
        """A shot (:func:`.rounds._attack` ranged, or a ranged sneak attack), then the weapon after it."""
        a, hr = self.cards[i], self.hr
        missile = a.missile
        assert missile is not None
        attack = a.attack("ranged")[1] + pen
        for j in range(self.F):
            mj = shoot & (tgt == j)
            if not mj.any():
                continue
            if self.r == 0 and self.surprised[j]:
                head = self.s.sneak_headshot
                hit = self._hit(mj, p_fixed_v(attack - (hr.headshot_penalty if head else 0), self.s.sneak_dc))
                self._wound(hit, j, self.hp[:, j] if head else missile.wounds)
            else:
                shielded = not (missile.modern and hr.modern_guns_ignore_armour)
                defence = self.cards[j].defence(True, None, shielded)[1]
                hit = self._hit(mj, p_opposed_v(attack - defence, self.ties[i][j]))
                self._wound(hit, j, missile.wounds)
        # after the shot: one missile fewer (if counted); the weapon's readiness after it
        left = None
        if self.counted[i]:
            self.ammo[shoot, i] = np.maximum(0, self.ammo[shoot, i] - 1)
            left = self.ammo[:, i]
        self.ready[shoot, i] = after_shot_v(missile, left, shoot.shape[0])[shoot]
        self.rp[shoot, i] = 0
        self.acted[shoot, i] = True

    def _reload(self, i: int, m: np.ndarray) -> None:
        """Appendix A, Reloading: one action (:func:`.rounds.reload_step`)."""
        if not m.any():
            return
        missile = self.cards[i].missile
        assert missile is not None
        ready, rp = reload_step_v(missile.reload, self.ready[m, i], self.rp[m, i], self.hr)
        self.ready[m, i], self.rp[m, i] = ready, rp
        if missile.reload == "muzzleloader" and self.counted[i]:
            self.ammo[m & (self.ready[:, i] == READINESS.index("ready")), i] = 1
        self.acted[m, i] = True


def _simulate(state: FightState, samples: int, seed: int, progress: Any, why: tuple[str, ...] = ()) -> Forecast:
    sim = _Sim(state)
    return run_simulation(
        SYSTEM,
        sim,
        sides=_sides(state),
        combatant_sides={f.name: f.side for f in state.fighters},
        samples=samples,
        seed=seed,
        tactics=_tactics(state),
        draw_meaning=DRAW_MEANING,
        progress=progress,
        notes=(*_notes(state, "simulated"), *why),
    )


def forecast(
    state: FightState, *, method: str = "auto", samples: int = 100_000, seed: int = 0, progress: Any = None
) -> Forecast:
    """The odds of the whole fight from ``state`` (see the module docstring for exact and simulated)."""
    if not isinstance(state, FightState):
        raise OddsError(f"a B.U.M. forecast needs a B.U.M. fight state, not {type(state).__name__}")
    if method not in ("auto", "exact", "simulate"):
        raise OddsError(f"method {method!r} is not auto, exact or simulate")
    if state.ended or len({f.side for f in state.fighters if f.standing}) < 2:
        return _finished(state)
    if method == "exact":
        return _exact(state)
    why: tuple[str, ...] = ()
    if method == "auto":
        try:
            return _exact(state)
        except OddsError as exc:
            why = (f"simulated, not exact: {exc.message}",)
    return _simulate(state, samples, seed, progress, why)


# --------------------------------------------------------------------------- the exact-rational duel reference


@dataclass(frozen=True)
class DuelChain:
    """A duel reduced to what the chain needs: the level, who acts first, hit chances and wounds per hit."""

    level: int
    first: int  # 0 or 1: the fighter who acts first each round (level 4)
    p_hit: tuple[Fraction, Fraction]  # level 4: each fighter's chance to hit; level 3: (p0 wins, p1 wins) per exchange
    wounds: tuple[int, int]


def _melee_profile(f: Fighter, first_round: bool) -> tuple[int, int, WeaponProfile]:
    """(attack total, wounds per hit, weapon in hand) of a fighter who fights hand to hand."""
    m = missile_of(f)
    if m is not None and f.readiness == "ready" and f.tactic != "melee" and (m.melee_usable or first_round):
        raise OddsError(
            f"{f.name} would shoot his {m.name} first: "
            "forecast from the state after that, or give him the 'melee' tactic"
        )
    slot = melee_slot(f)
    if slot is None:
        return f.character.stats.STR, 1, UNARMED
    p = profile(f.character, slot)
    assert p is not None
    return attack_total(f.character, slot), p.wounds, p


def duel_chain(state: FightState) -> DuelChain:
    """The reference chain's parameters for a plain duel in melee reach (level 3 or 4, nobody stunned)."""
    if len(state.fighters) != 2 or {f.side for f in state.fighters} != {0, 1}:
        raise OddsError("the exact forecast covers duels: one fighter on each of two sides")
    if state.level not in (3, 4):
        raise OddsError("the exact forecast covers combat levels 3 and 4")
    if any(rnd > state.round for rnd, _ in state.switch):
        raise OddsError("a level switch is still to come: forecast each stretch separately")
    if state.round == 0 and state.surprised:
        raise OddsError("a sneak attack opens this fight: forecast from the state after round 1")
    if state.distance != 0 or state.house_rules.longspear_first_strike or any(f.stunned for f in state.fighters):
        raise OddsError("the exact forecast covers a duel in melee reach, nobody stunned, no longspear option")
    a, b = sorted(state.fighters, key=lambda f: f.side)
    hr = state.house_rules
    if state.level == 3:
        first = 0 if (state.order[0] if state.order else gm_order(state)[0]) == a.name else 1
        initiator_is_a = state.initiator == 0
        p = exchange_odds(a.character, b.character, hr, a_initiates=initiator_is_a)
        return DuelChain(3, first, (p, 1 - p), (1, 1))
    if not state.order and state.initiative != "gm":
        raise OddsError("the turn order is rolled in round 1: forecast from the state after the first round")
    order = list(state.order) or gm_order(state)
    first = 0 if order[0] == a.name else 1
    first_round = state.round == 0
    (att_a, w_a, hand_a), (att_b, w_b, hand_b) = _melee_profile(a, first_round), _melee_profile(b, first_round)
    def_b = sum(v for _, v in defence_parts(b.character, weapon=hand_b))
    def_a = sum(v for _, v in defence_parts(a.character, weapon=hand_a))
    pa = attack_odds(att_a, def_b, hr, attacker_is_player=not a.character.npc, defender_is_player=not b.character.npc)
    pb = attack_odds(att_b, def_a, hr, attacker_is_player=not b.character.npc, defender_is_player=not a.character.npc)
    return DuelChain(4, first, (pa, pb), (w_a, w_b))


def round_transitions(chain: DuelChain, hp: tuple[int, int]) -> dict[tuple[int, int], Fraction]:
    """One round from hit points ``hp``: each next (hp0, hp1) with its exact probability.

    Level 3: one exchange (ties already re-rolled), the loser loses 1 HP.
    Level 4: the first fighter attacks; if the other still stands he attacks back.
    """
    a, b = hp
    out: dict[tuple[int, int], Fraction] = {}

    def add(k: tuple[int, int], p: Fraction) -> None:
        if p:
            out[k] = out.get(k, Fraction(0)) + p

    if chain.level == 3:
        add((a, b - 1), chain.p_hit[0])
        add((a - 1, b), chain.p_hit[1])
        return out
    i, j = chain.first, 1 - chain.first
    p_i, p_j = chain.p_hit[i], chain.p_hit[j]
    hp_l = [a, b]

    def hit(target: int, by: int, cur: list[int]) -> list[int]:
        nxt = list(cur)
        nxt[target] = max(0, nxt[target] - chain.wounds[by])
        return nxt

    after_i_hit = hit(j, i, hp_l)
    if after_i_hit[j] == 0:
        add(tuple(after_i_hit), p_i)  # type: ignore[arg-type]
    else:
        add(tuple(hit(i, j, after_i_hit)), p_i * p_j)  # type: ignore[arg-type]
        add(tuple(after_i_hit), p_i * (1 - p_j))  # type: ignore[arg-type]
    add(tuple(hit(i, j, hp_l)), (1 - p_i) * p_j)  # type: ignore[arg-type]
    add((a, b), (1 - p_i) * (1 - p_j))
    return out


def win_probability(state: FightState) -> Fraction:
    """Exact (rational) chance that side 0 wins the duel from this state, fought to the end (no round cap)."""
    chain = duel_chain(state)
    a, b = sorted(state.fighters, key=lambda f: f.side)

    @cache
    def p(hp0: int, hp1: int) -> Fraction:
        if hp1 == 0:
            return Fraction(1)
        if hp0 == 0:
            return Fraction(0)
        trans = round_transitions(chain, (hp0, hp1))
        stay = trans.pop((hp0, hp1), Fraction(0))
        if stay == 1:
            raise OddsError("neither fighter can ever hit the other: the duel never ends")
        return sum((q * p(*k) for k, q in trans.items()), Fraction(0)) / (1 - stay)

    return p(a.hp, b.hp)
