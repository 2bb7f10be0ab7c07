"""Whole-fight forecasts for BLYSS 3.5 (issue 10): who wins, how long it takes, how each fighter ends.

Two methods, both following :mod:`storymaster.systems.blyss.combat` rule for rule and choice for choice
(same Initiative, Declaration and Action order, same targets, same automatic tactics, same house rules):

- ``simulate``: many fights at once in numpy (arrays of fighters' Dodges, Flesh Wounds, Health, armour
  lives, aims, counterattacks, declarations ...; Python loops only over rounds, Initiative positions and
  fighters, never over fights), through :func:`storymaster.forecast.run_simulation`. Any fight the
  engine plays: teams, every tactic, called shots, armour, knockouts, dying checks, distance and moving,
  disarming, every house rule. Dice pools are built by the engine's own helpers (``attack_pool``,
  ``defence_pool``) for each distinct situation and looked up per fight.
- ``exact``: an absorbing Markov chain (:func:`storymaster.forecast.absorb`) over the duel's states, for
  the small case where it fits: a **duel (one against one) in which both fighters attack every round**
  (tactic ``attack``), both can reach each other without moving (melee within 5 ft, or a ranged weapon),
  no aim or counterattack pending (a weapon on the ground is recovered, as in the engine). The chain does
  not restate the rules: each of its steps is one beat of the engine's own round
  (:func:`~.round.play_beat`, one fighter's action), every branch of its dice enumerated exactly by
  :func:`storymaster.forecast.chance.branches` (an attack is one coarse event whose outcomes are those of
  :func:`~.round.strike`, cached per situation), in floating point. Every house rule the round reads
  applies. A duel still going at the round cap is a draw; the chain does not keep its fighters' wound
  levels then and reports them as "standing at the round cap".
- ``auto``: exact when the fight is such a duel, else simulated.

A *draw* in BLYSS: nobody is left standing at the end of a round, or the house rule's round cap
(``max_rounds``, 100 by default) is reached with fighters on both sides still up: a stand-off.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from pydantic import BaseModel

from ...errors import OddsError
from ...forecast import Absorbed, Batch, CombatantForecast, Forecast, run_simulation
from ...forecast.chance import branches
from ...forecast.markov import absorb_indexed
from ...forecast.simulate import ADAPTIVE_ERROR, ADAPTIVE_MAX
from .character import armour_soaks_v, damaged_armour_rating_v, movement_feet
from .combat import MELEE_REACH_FT, Fighter, FightState, action_round_order, attribute
from .dicepool import die_succeeds_v, judge_kind_v, successes_v
from .living import blow_flags_v, dying_result_v, spill_damage_v, wound_level_code, wound_level_codes
from .round import Mover, Roster, RoundState, begin_round, exact_damage, play_turn, to_state
from .scale import pool_for_rank
from .tables import table
from .vectorised import (
    ATTACK,
    CALLED_SHOTS,
    DEFEND,
    DISARM,
    END_STATES,
    EVADE,
    LOCATION_OF_CALLED,
    LOCATIONS,
    NONE,
    NOTHING,
    DamageSampler,
    armour_lives_after_v,
    armour_takes_blow_v,
    contest_winner_v,
    covering_piece_v,
    declare_v,
    defence_of_v,
    end_code,
    end_codes_v,
    initiative_order_v,
    lookup_pools,
    pick_target_v,
    screw_up_weapon_v,
    td_tables,
    vitals_left_v,
)

__all__ = ["END_STATES", "blyss_forecast", "end_state", "exact_applies", "simulate_batch"]

#: the exact chain's word for a fighter still up when the round cap ends the fight (it keeps no wound level then)
STANDING_AT_CAP = "standing at the round cap"
DRAW_MEANING = "draw (nobody left standing, or a stand-off: nobody standing can ever hit, or the round cap)"
_TACTICS = ("attack", "defensive", "aim", "disarm")
RECOVER, MOVE, AIM = 1, 2, 5


def end_state(f: Fighter) -> str:
    """One fighter's end of a fight in BLYSS's words: unhurt, a Wound Level, or how they are down."""
    v = f.vitals
    unhurt = (v.dodges, v.flesh_wounds, v.health) == (v.max_dodges, v.max_flesh_wounds, v.max_health)
    level = wound_level_code(v.dodges, v.flesh_wounds, v.health, v.max_flesh_wounds, v.max_health, v.active)
    return END_STATES[end_code(v.dead, v.coma, v.dying, v.unconscious, v.stabilised, unhurt, level)]


# ---------------------------------------------------------------- the fight's fixed facts
class _Roster:
    """What does not change during a fight, as arrays by fighter (the round's :class:`~.round.Roster` within)."""

    def __init__(self, state: FightState) -> None:
        self.state, self.hr = state, state.house_rules
        self.round = R = Roster(state)
        fs = self.fighters = state.fighters
        self.K, self.ids = R.K, R.ids
        self.side = np.array(R.side)
        self.n_sides = int(self.side.max()) + 1
        self.enemy_of = self.side[:, None] != self.side[None, :]
        self.tactic = np.array([_TACTICS.index(t) for t in R.tactic])
        self.called = np.array([CALLED_SHOTS.index(c) for c in R.called])
        self.choice = np.array([("auto", "body", "armour").index(c) for c in R.choice])
        self.armed = np.array([f.weapon is not None for f in fs])
        self.ranged = np.array([R.wielded_as(k, f.weapon, False).ranged for k, f in enumerate(fs)])
        self.stamina = np.array([attribute(f, "stamina", self.hr, in_a_test=True) for f in fs])
        self.move_ft = np.array([movement_feet(attribute(f, "agility", self.hr, in_a_test=False)) for f in fs])
        self.maxd, self.maxf, self.maxh = np.array(R.maxd), np.array(R.maxf), np.array(R.maxh)
        self.P = max([len(f.character.armour) for f in fs] + [1])
        self.cover = np.zeros((self.K, self.P, len(LOCATIONS)), dtype=bool)
        self.ar = np.zeros((self.K, self.P), dtype=np.int64)
        for k, f in enumerate(fs):
            for p, a in enumerate(f.character.armour):
                self.ar[k, p] = a.armour_rating
                self.cover[k, p, [LOCATIONS.index(loc) for loc in a.cover]] = True
        self._pool_cache: dict[tuple, tuple[tuple[int, ...], int, int]] = {}
        # can_ever_hit by fighter, Wound Level code, armour mask, weapon lost, attack pending (-1: not asked yet)
        self._able = np.full((self.K, 6, 1 << self.P, 2, 2), -1, dtype=np.int8)

    def pool(
        self, kind: str, k: int, level: int, mask: int, aim: int = 0, dropped: int = 0, dist: int = 0
    ) -> tuple[tuple[int, ...], int, int]:
        """(dice, die modifier, rank total) of fighter k's pool of this kind in this situation (the round's
        :meth:`~.round.Roster.pool`; armour ``mask``: a bit per piece with lives left)."""
        key = (kind, k, level, mask, aim, dropped, dist)
        hit = self._pool_cache.get(key)
        if hit is None:
            weapon = self.fighters[k].weapon
            pool, dice, _ = self.round.pool(kind, k, level, self._alive(k, mask), aim, weapon, bool(dropped), dist)
            hit = self._pool_cache[key] = (dice, pool.die_modifier, pool.rank_total(self.hr))
        return hit

    def _alive(self, k: int, mask: int) -> tuple[bool, ...]:
        return tuple(bool((mask >> p) & 1) for p in range(len(self.fighters[k].character.armour)))

    def can_ever_hit(self, k: int, level: int, mask: int, lost: int, pending: int) -> bool:
        """The round's :meth:`~.round.Roster.can_ever_hit` (``lost``: the weapon lost to a critical Screw-Up)."""
        weapon = None if lost else self.fighters[k].weapon
        return self.round.can_ever_hit(k, level, self._alive(k, mask), weapon, bool(pending))

    def can_ever_hit_v(self, k: int, level: np.ndarray, mask: np.ndarray, lost: np.ndarray, pending: np.ndarray):
        """:meth:`can_ever_hit` per row, each situation asked of the scalar rule once per fight."""
        idx = (level, mask, lost.astype(np.int64), pending.astype(np.int64))
        got = self._able[k][idx]
        unknown = got < 0
        if unknown.any():
            for key in set(zip(*(a[unknown].tolist() for a in idx), strict=True)):
                self._able[(k, *key)] = self.can_ever_hit(k, *key)
            got = self._able[k][idx]
        return got.astype(bool)


# ---------------------------------------------------------------- numpy dice
def _roll(sides: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    faces = (gen.random(sides.shape) * sides).astype(np.int64) + 1
    return np.where(sides > 0, faces, 0)


_RANK_SIDES = np.array([list(pool_for_rank(r)) + [0] * (4 - len(pool_for_rank(r))) for r in range(21)])


def _rank_pool_success(ranks: np.ndarray, td: int, gen: np.random.Generator) -> np.ndarray:
    """A plain rank's pool (no modifiers) against a TD: succeeded or not, per row."""
    return successes_v(_roll(_RANK_SIDES[np.clip(ranks, 0, 20)], gen), td, 0) > 0


# ---------------------------------------------------------------- one batch of fights
class _Sim:
    """Plays ``n`` fights from the same state, all at once (see the module docstring)."""

    def __init__(self, roster: _Roster) -> None:
        self.R = roster
        self.attack_td, self.aim_td = td_tables()
        self.dying_td, self.ko_td = table("wounds")["dying_td"], table("wounds")["knockout_td"]
        self.damage: dict[tuple[int, bool], tuple[DamageSampler, int, bool, int]] = {}

    def _start(self, n: int) -> dict[str, np.ndarray]:
        st = self.R.state
        fs = st.fighters
        K, P = self.R.K, self.R.P

        def rep(values: list[Any], dtype: Any = np.int64) -> np.ndarray:
            return np.tile(np.array(values, dtype=dtype), (n, 1))

        lives = np.zeros((n, K, P), dtype=np.int64)
        for k, f in enumerate(fs):
            lives[:, k, : len(f.armour_lives)] = f.armour_lives
        order = [self.R.ids.index(o) for o in st.order] if st.order else list(range(K))
        return {
            "d": rep([f.vitals.dodges for f in fs]),
            "f": rep([f.vitals.flesh_wounds for f in fs]),
            "h": rep([f.vitals.health for f in fs]),
            "unc": rep([f.vitals.unconscious for f in fs], bool),
            "dying": rep([f.vitals.dying for f in fs], bool),
            "stab": rep([f.vitals.stabilised for f in fs], bool),
            "dead": rep([f.vitals.dead for f in fs], bool),
            "coma": rep([f.vitals.coma for f in fs], bool),
            "dchecks": rep([f.vitals.dying_checks for f in fs]),
            "blunt": rep([f.last_blow_blunt for f in fs], bool),
            "lives": lives,
            "dropped": rep([f.weapon_dropped for f in fs], bool),
            "lost": np.zeros((n, K), dtype=bool),  # the weapon lost to a critical Screw-Up (dropped for good)
            "aimb": rep([f.aim_bonus for f in fs]),
            "aimc": rep([f.aim_called for f in fs], bool),
            "aimt": rep([f.aimed_this_round for f in fs]),
            "counter": rep([f.counter_ready for f in fs], bool),
            "decl": np.full((n, K), NOTHING, dtype=np.int64),
            "dtgt": np.full((n, K), -1, dtype=np.int64),
            "acted": np.zeros((n, K), dtype=bool),
            "dist": np.full(n, st.distance, dtype=np.int64),
            "order": rep(order),
        }

    # -- small helpers over the live batch ---------------------------------------------------------
    @staticmethod
    def _active(S: dict[str, np.ndarray]) -> np.ndarray:
        return ~(S["unc"] | S["dying"] | S["dead"] | S["coma"])

    def _levels(self, S: dict[str, np.ndarray]) -> np.ndarray:
        R = self.R
        return wound_level_codes(S["d"], S["f"], S["h"], R.maxf, R.maxh, self._active(S))

    def _mask(self, S: dict[str, np.ndarray], rows: np.ndarray, who: np.ndarray) -> np.ndarray:
        alive = S["lives"][rows, who] > 0  # (m, P)
        return (alive * (1 << np.arange(self.R.P))).sum(axis=1)

    def _in_hand(self, S: dict[str, np.ndarray], rows: np.ndarray, who: np.ndarray) -> np.ndarray:
        return self.R.armed[who] & ~S["dropped"][rows, who]

    def _pick_target(self, S: dict[str, np.ndarray], rows: np.ndarray, who: np.ndarray) -> np.ndarray:
        enemy = self.R.enemy_of[who] & self._active(S)[rows]
        return pick_target_v(enemy, vitals_left_v(S["d"][rows], S["f"][rows], S["h"][rows]))

    # -- a round -------------------------------------------------------------------------------------
    def _round(self, S: dict[str, np.ndarray], rnd: int, gen: np.random.Generator) -> None:
        R, hr = self.R, self.R.hr
        n, K = S["d"].shape
        rows = np.arange(n)
        S["acted"][:] = False
        S["decl"][:] = NOTHING
        S["dtgt"][:] = -1
        # dying checks, in listing order (round.begin_round)
        for k in range(K):
            dy = S["dying"][:, k]
            if not dy.any():
                continue
            rank = R.stamina[k] - S["dchecks"][:, k]
            passed = _rank_pool_success(np.maximum(rank, 0), self.dying_td, gen)
            failed, stable, dead, coma = (
                dy & (dying_result_v(rank, passed, hr.coma_instead_of_death, S["blunt"][:, k]) == i) for i in range(4)
            )
            S["coma"][:, k] |= coma
            S["dead"][:, k] |= dead
            S["stab"][:, k] |= stable
            S["dchecks"][:, k] += failed
            S["dying"][:, k] &= failed
        if rnd == 1 or hr.reroll_initiative_each_round:
            self._initiative(S, gen)
        active0 = self._active(S)
        for p in range(K - 1, -1, -1):  # the Declaration Round, slowest first
            a = S["order"][:, p]
            m = active0[rows, a]
            if m.any():
                self._declare(S, rows[m], a[m])
        # the Action Round, in the Declaration Round's order by default (combat.action_round_order; round._act)
        for p in action_round_order(range(K), hr):
            a = S["order"][:, p]
            kind = S["decl"][rows, a]
            act = self._active(S)[rows, a] & ~S["acted"][rows, a] & (kind != NOTHING)
            act &= ~np.isin(kind, (DEFEND, EVADE, NONE))
            if not act.any():
                continue
            r, a, kind = rows[act], a[act], kind[act]
            S["acted"][r, a] = True
            rec = kind == RECOVER
            S["dropped"][r[rec], a[rec]] = False
            mv = kind == MOVE
            S["dist"][r[mv]] = np.maximum(0, S["dist"][r[mv]] - R.move_ft[a[mv]])
            hitting = np.isin(kind, (AIM, ATTACK, DISARM))
            r, a, kind = r[hitting], a[hitting], kind[hitting]
            if not len(r):
                continue
            t = S["dtgt"][r, a]
            gone = ~self._active(S)[r, t]
            if gone.any():
                t = t.copy()
                t[gone] = self._pick_target(S, r[gone], a[gone])
            ok = t >= 0
            r, a, t, kind = r[ok], a[ok], t[ok], kind[ok]
            aim = kind == AIM
            if aim.any():
                self._aim(S, r[aim], a[aim], gen)
            if (~aim).any():
                self._attack(S, r[~aim], a[~aim], t[~aim], kind[~aim] == DISARM, gen)
        # End of Round: aims carry over to the next round only
        S["aimc"] &= S["aimt"] > 0
        S["aimb"] = S["aimt"].copy()
        S["aimt"][:] = 0

    def _initiative(self, S: dict[str, np.ndarray], gen: np.random.Generator) -> None:
        R, hr = self.R, self.R.hr
        n, K = S["d"].shape
        levels = self._levels(S)
        cols = []
        for k in range(K):
            keys = np.stack([np.full(n, k), levels[:, k]], axis=1)
            sides, dm, rank = lookup_pools(keys, lambda k_, lv: R.pool("init", k_, lv, 0))
            faces = _roll(sides, gen)
            value = (faces * die_succeeds_v(faces, hr.initiative_td, dm[:, None])).sum(axis=1)
            tb = gen.integers(1, 101, size=n) * 1000 - k if hr.initiative_final_tie == "roll_off" else np.full(n, -k)
            cols.append((successes_v(faces, hr.initiative_td, dm), value, rank, tb))
        S["order"] = initiative_order_v(*(np.stack(c, axis=1) for c in zip(*cols, strict=True)))

    def _declare(self, S: dict[str, np.ndarray], r: np.ndarray, a: np.ndarray) -> None:
        R = self.R
        t = self._pick_target(S, r, a)
        S["decl"][r, a], S["dtgt"][r, a] = declare_v(
            a,
            t,
            R.enemy_of,
            self._active(S)[r],
            S["decl"][r],
            S["dtgt"][r],
            S["dropped"][r, a] & ~S["lost"][r, a],
            self._in_hand(S, r, a),
            R.ranged[a] & ~S["dropped"][r, a],
            S["dist"][r] > MELEE_REACH_FT,
            R.tactic[a],
            S["counter"][r, a],
            S["aimb"][r, a],
            self._in_hand(S, r, np.maximum(t, 0)),
        )

    def _aim(self, S: dict[str, np.ndarray], r: np.ndarray, a: np.ndarray, gen: np.random.Generator) -> None:
        R = self.R
        levels = self._levels(S)[r, a]
        sides, dm, _ = lookup_pools(np.stack([a, levels], axis=1), lambda k, lv: R.pool("aim", k, lv, 0))
        S["aimt"][r, a] = successes_v(_roll(sides, gen), self.aim_td[R.called[a]], dm)
        S["aimc"][r, a] = R.called[a] > 0

    def _contest(
        self,
        faces: np.ndarray,
        sides: np.ndarray,
        dm_a: np.ndarray,
        d_sides: np.ndarray,
        dm_d: np.ndarray,
        d_td: np.ndarray,
        a_td: np.ndarray,
        gen: np.random.Generator,
    ) -> tuple[np.ndarray, np.ndarray]:
        """A Defend / Evade / Strength contest: (attacker still hits, defender's roll succeeded)."""
        d_succ = successes_v(_roll(d_sides, gen), d_td, dm_d)
        a_succ = successes_v(faces, a_td, dm_a)
        if self.R.hr.defence_draw == "reroll":
            for _ in range(20):
                draw = contest_winner_v(a_succ, d_succ) < 0
                if not draw.any():
                    break
                a2 = successes_v(_roll(sides[draw], gen), a_td[draw], dm_a[draw])
                d2 = successes_v(_roll(d_sides[draw], gen), d_td[draw], dm_d[draw])
                a_succ[draw], d_succ[draw] = a2, d2
        return contest_winner_v(a_succ, d_succ) == 0, d_succ > 0

    def _attack(
        self,
        S: dict[str, np.ndarray],
        r: np.ndarray,
        a: np.ndarray,
        t: np.ndarray,
        disarm: np.ndarray,
        gen: np.random.Generator,
    ) -> None:
        R = self.R
        m = len(r)
        levels = self._levels(S)
        keys = np.stack(
            [a, levels[r, a], self._mask(S, r, a), S["aimb"][r, a], S["dropped"][r, a].astype(np.int64), S["dist"][r]],
            axis=1,
        )
        sides, dm_a, rank_a = lookup_pools(keys, lambda *k: R.pool("attack", *k))
        called = np.where(disarm, 0, R.called[a])
        aimed = S["aimc"][r, a] & (S["aimb"][r, a] > 0)
        td = self.attack_td[called, aimed.astype(np.int64), S["counter"][r, a].astype(np.int64)]
        faces = _roll(sides, gen)
        hit = successes_v(faces, td, dm_a) > 0
        if R.hr.combat_screw_up == "drop_weapon":  # round.screw_up_weapon
            hits = die_succeeds_v(faces, td[:, None], dm_a[:, None]).sum(axis=1)
            kind = judge_kind_v((sides > 0).sum(axis=1), (faces == 1).sum(axis=1), hits)
            drop, lose = screw_up_weapon_v(kind, self._in_hand(S, r, a), R.hr.combat_screw_up)
            S["dropped"][r[drop], a[drop]] = True
            S["lost"][r[lose], a[lose]] = True
        S["counter"][r, a] = False
        S["aimb"][r, a] = 0
        # the target's defences (round.defence_of)
        dkind, switch = defence_of_v(
            S["decl"][r, t],
            S["acted"][r, t],
            self._active(S)[r, t],
            S["counter"][r, t],
            R.tactic[t] == 1,
            self._in_hand(S, r, t),
        )
        S["acted"][r[switch], t[switch]] = True
        defended_ok = np.zeros(m, dtype=bool)
        # Strength against a disarm comes first
        st_ = disarm & hit
        if st_.any():
            i = np.nonzero(st_)[0]
            k2 = np.stack([t[i], levels[r[i], t[i]], self._mask(S, r[i], t[i])], axis=1)
            ds, ddm, drank = lookup_pools(k2, lambda k, lv, mk: R.pool("strength", k, lv, mk))
            hit[i], _ = self._contest(faces[i], sides[i], dm_a[i], ds, ddm, rank_a[i], drank, gen)
        # then Defend / Evade
        dd = (dkind != NOTHING) & hit
        if dd.any():
            i = np.nonzero(dd)[0]
            k2 = np.stack([t[i], levels[r[i], t[i]], self._mask(S, r[i], t[i]), dkind[i]], axis=1)
            ds, ddm, drank = lookup_pools(
                k2, lambda k, lv, mk, kd: R.pool("defend" if kd == DEFEND else "evade", k, lv, mk)
            )
            still, d_ok = self._contest(faces[i], sides[i], dm_a[i], ds, ddm, rank_a[i], drank, gen)
            hit[i] = still
            defended_ok[i] = ~still & (dkind[i] == DEFEND) & d_ok
            S["acted"][r[i], t[i]] = True
        S["counter"][r[defended_ok], t[defended_ok]] = True
        # a landed disarm
        dis = disarm & hit
        S["dropped"][r[dis], t[dis]] = True
        blow = hit & ~disarm
        if not blow.any():
            return
        i = np.nonzero(blow)[0]
        r, a, t, faces, called = r[i], a[i], t[i], faces[i], called[i]
        S["aimt"][r, t] = 0
        self._land_blow(S, r, a, t, faces.max(axis=1), called, gen)

    def _weapon(self, k: int, dropped: bool) -> tuple[DamageSampler, int, bool, int]:
        key = (k, dropped)
        if key not in self.damage:
            R = self.R.round
            w = R.wielded_as(k, self.R.fighters[k].weapon, dropped)
            want_best = self.R.hr.armour_contest_against == "damage_roll"
            self.damage[key] = (DamageSampler(w.damage, want_best), R.damage_bonus(k, w), w.blunt, w.knockout_rank or 0)
        return self.damage[key]

    def _land_blow(
        self,
        S: dict[str, np.ndarray],
        r: np.ndarray,
        a: np.ndarray,
        t: np.ndarray,
        best_attack: np.ndarray,
        called: np.ndarray,
        gen: np.random.Generator,
    ) -> None:
        """Damage, the Armour Rating contest, armour's lives, the knockout chance (round._land_blow)."""
        R, hr = self.R, self.R.hr
        m = len(r)
        damage = np.zeros(m, dtype=np.int64)
        best_dmg = np.zeros(m, dtype=np.int64)
        blunt = np.zeros(m, dtype=bool)
        ko_rank = np.zeros(m, dtype=np.int64)
        wkey = a * 2 + S["dropped"][r, a]
        for key in np.unique(wkey):
            sel = wkey == key
            sampler, bonus, blunt[sel], ko_rank[sel] = self._weapon(int(key) // 2, bool(key % 2))
            total, best_dmg[sel] = sampler.roll(int(sel.sum()), gen)
            damage[sel] = np.maximum(hr.minimum_damage, total + bonus)
        lives = S["lives"][r, t]  # (m, P)
        has_piece, piece = covering_piece_v(R.cover[t, :, LOCATION_OF_CALLED[called]], lives)
        cur_lives = lives[np.arange(m), piece]
        ar = np.where(has_piece, damaged_armour_rating_v(R.ar[t, piece], cur_lives), 0)
        soaked = np.zeros(m, dtype=bool)
        rolls = has_piece & (ar > 0)
        if rolls.any():
            i = np.nonzero(rolls)[0]
            arm_sides, _, _ = lookup_pools(ar[i][:, None], lambda x: (pool_for_rank(x), 0, 0))
            against = best_dmg[i] if hr.armour_contest_against == "damage_roll" else best_attack[i]
            soaked[i] = armour_soaks_v(_roll(arm_sides, gen).max(axis=1), against, hr.armour_ties_soak)
        to_armour = ~soaked & has_piece & armour_takes_blow_v(R.choice[t], damage, S["d"][r, t])
        i = np.nonzero(to_armour)[0]
        S["lives"][r[i], t[i], piece[i]] = armour_lives_after_v(cur_lives[i], damage[i], hr.armour_heavy_blow)
        i = np.nonzero(~soaked & ~to_armour)[0]
        if len(i):
            rr, tt = r[i], t[i]
            d, f, h = S["d"][rr, tt], S["f"][rr, tt], S["h"][rr, tt]
            took_d, took_f, took_h = spill_damage_v(d, f, damage[i], hr.damage_spills_over)
            h2 = h - took_h
            S["d"][rr, tt], S["f"][rr, tt], S["h"][rr, tt] = d - took_d, f - took_f, h2
            flags = blow_flags_v(h2, took_h, *(S[x][rr, tt] for x in ("unc", "dying", "stab", "dead", "dchecks")))
            S["unc"][rr, tt], S["dying"][rr, tt], S["stab"][rr, tt], S["dchecks"][rr, tt] = flags
            S["blunt"][rr, tt] = blunt[i]
        i = np.nonzero(~soaked & (ko_rank > 0) & self._active(S)[r, t])[0]
        if len(i):
            out = _rank_pool_success(ko_rank[i], self.ko_td, gen)
            S["unc"][r[i[out]], t[i[out]]] = True

    # -- the batch -----------------------------------------------------------------------------------
    def run(self, n: int, gen: np.random.Generator) -> Batch:
        """``n`` fights; the batch keeps only the fights still going (a fight that ends leaves its result and is
        dropped from the arrays, so a round costs what is still going)."""
        R = self.R
        S = self._start(n)
        rnd = R.state.round
        live = np.arange(n)
        winner = np.full(n, -1, dtype=np.int64)
        rounds = np.zeros(n, dtype=np.int64)
        ends = {fid: np.zeros(n, dtype=np.int64) for fid in R.ids}
        steps = 0
        while len(live):
            rnd += 1
            steps += 1
            self._round(S, rnd, gen)
            standing = self._active(S)
            sides_up = np.zeros((len(live), R.n_sides), dtype=bool)
            for s in range(R.n_sides):
                sides_up[:, s] = (standing & (R.side[None, :] == s)).any(axis=1)
            count = sides_up.sum(axis=1)
            done = count <= 1
            if rnd >= R.hr.max_rounds:
                done[:] = True
            else:
                done |= self._stand_off(S)
            if not done.any():
                continue
            rows = live[done]
            winner[rows] = np.where(count == 1, sides_up.argmax(axis=1), -1)[done]
            rounds[rows] = steps
            for fid, codes in self._ends({k: v[done] for k, v in S.items()}).items():
                ends[fid][rows] = codes
            keep = ~done
            S = {k: v[keep] for k, v in S.items()}
            live = live[keep]
        return Batch(winner=winner, rounds=rounds, end_states=ends, state_names=END_STATES)

    def _stand_off(self, S: dict[str, np.ndarray]) -> np.ndarray:
        """The round's :meth:`~.round.Roster.stand_off` per fight: nobody dying, nobody standing who can ever hit."""
        n, K = S["d"].shape
        levels, rows, able = self._levels(S), np.arange(n), np.zeros((n, K), dtype=bool)
        for k in range(K):
            pending = S["counter"][:, k] | (S["aimb"][:, k] > 0) | (S["aimt"][:, k] > 0)
            mask = self._mask(S, rows, np.full(n, k))
            able[:, k] = self.R.can_ever_hit_v(k, levels[:, k], mask, S["lost"][:, k], pending)
        return ~(S["dying"] | (self._active(S) & able)).any(axis=1)

    def _ends(self, S: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        R = self.R
        unhurt = (S["d"] == R.maxd) & (S["f"] == R.maxf) & (S["h"] == R.maxh)
        codes = end_codes_v(S["dead"], S["coma"], S["dying"], S["unc"], S["stab"], unhurt, self._levels(S))
        return {fid: codes[:, k] for k, fid in enumerate(R.ids)}


def simulate_batch(state: FightState) -> Callable[[int, np.random.Generator], Batch]:
    """The batch simulator :func:`run_simulation` calls: ``n`` fights from ``state`` at once."""
    sim = _Sim(_Roster(state))
    if state.house_rules.armour_contest_against == "damage_roll":  # refuse up front what cannot be followed
        for k in range(sim.R.K):
            for dropped in (False, True):
                sim._weapon(k, dropped)
    return sim.run


# ---------------------------------------------------------------- the exact chain (duels, both attacking)
def exact_applies(state: FightState) -> str | None:
    """None when the exact chain covers this fight; otherwise why not (for the error's message)."""
    fs = state.fighters
    hr = state.house_rules
    if state.over:
        return "the fight is already over"
    if len(fs) != 2 or fs[0].side == fs[1].side:
        return "only a duel (one fighter against one) has a small enough chain"
    for f in fs:
        if f.tactic != "attack":
            return f"{f.id} fights with tactic '{f.tactic}'; the chain covers fighters who attack every round"
        if f.counter_ready or f.aim_bonus or f.aimed_this_round:
            return f"{f.id} has a counterattack or an aim pending"
        if not f.active:
            return f"{f.id} is already down"
        w = f.wielded()
        if not w.ranged and state.distance > MELEE_REACH_FT:
            return f"{f.id} must first close the distance"
        if hr.armour_contest_against == "damage_roll":
            try:
                exact_damage(w.damage)
            except OddsError as exc:
                return str(exc)
    return None


class _Chain:
    """One BLYSS duel as an absorbing Markov chain: each step is one beat of the engine's own round
    (:func:`~.round.play_beat`: a fighter's action; the round's start in the first beat, its end in the last),
    every branch of its dice enumerated by :func:`~storymaster.forecast.chance.branches`. States are numbered
    as they are met (absorb then works on small integers); rounds are counted by absorb, not kept in the
    state, which is put in a canonical form: the round number as "first round or later", and between
    rounds, the declarations (each round makes new ones), an Initiative order that is rolled again anyway,
    and the kind of blow that last hit a fighter still standing (read only by a dying check) forgotten."""

    def __init__(self, state: FightState) -> None:
        self.state = state
        self.R = Roster(state, cap=False)
        self.reroll = state.house_rules.reroll_initiative_each_round
        self.number: dict[tuple[RoundState, int], int] = {}
        self.states: list[tuple[RoundState, int]] = []
        self.over: list[bool] = []

    def _canon(self, st: RoundState, cursor: int) -> int:
        movers = st.fighters
        if cursor == 0 and any(m.declared is not None or m.acted for m in movers):
            movers = tuple(m._replace(declared=None, acted=False) for m in movers)
        if any(m.last_blow_blunt and m.active for m in movers):
            movers = tuple(m._replace(last_blow_blunt=False) if m.active else m for m in movers)
        fresh = cursor == 0 and self.reroll  # Initiative is rolled at the start of every round
        st = st._replace(round=1 if fresh else min(st.round, 1), fighters=movers, order=() if fresh else st.order)
        key = (st, cursor)
        i = self.number.get(key)
        if i is None:
            i = self.number[key] = len(self.states)
            self.states.append(key)
            self.over.append(st.over)
        return i

    def start(self) -> int:
        return self._canon(to_state(self.state), 0)

    def transitions(self, i: int) -> list[tuple[float, int]]:
        st, cursor = self.states[i]
        R = self.R
        out: dict[int, float] = {}
        for p0, st0 in branches(lambda ch: begin_round(st, R, ch, [])) if cursor == 0 else [(1.0, st)]:
            for p, (st2, c2) in branches(lambda ch: play_turn(st0, cursor, R, ch, [])):  # noqa: B023 (run at once)
                j = self._canon(st2, c2)
                out[j] = out.get(j, 0.0) + p0 * p
        return [(p, j) for j, p in out.items()]

    def is_terminal(self, i: int) -> bool:
        return self.over[i]

    def absorb(self, max_rounds: int, tolerance: float) -> Absorbed[int]:
        """:func:`storymaster.forecast.absorb` on this chain (its numpy form for numbered states)."""
        return absorb_indexed(
            self.start(), self.transitions, self.is_terminal, max_rounds=max_rounds, tolerance=tolerance
        )

    def end_word(self, k: int, m: Mover) -> str:
        R = self.R
        unhurt = (m.dodges, m.flesh_wounds, m.health) == (R.maxd[k], R.maxf[k], R.maxh[k])
        return END_STATES[end_code(m.dead, m.coma, m.dying, m.unconscious, m.stabilised, unhurt, R.level(k, m))]


#: ``auto`` forecasts a duel exactly only when :func:`chain_size` is at most this (warrior vs rogue with the rule
#: off, 37,440: 7,741 states, ~1.3 s CPU; with Screw-Ups on, 336,960: 80,281 states, ~11 s); past it, it simulates
AUTO_CHAIN_SIZE = 150_000


def chain_size(state: FightState) -> int:
    """A quick overestimate of the exact chain's size, before building it: per fighter, the points a blow must still
    get through plus one, times 4 per armour piece (its lives), times 3 when a Screw-Up can drop or lose the weapon
    in hand (house rule ``combat_screw_up``); the product over both fighters, times 2 (two beats to a round). The
    duels measured met a quarter to a half of it (one-blow duels far less)."""
    size = 2
    for f in state.fighters:
        v = f.vitals
        lose = state.house_rules.combat_screw_up == "drop_weapon" and f.weapon is not None
        size *= (v.dodges + v.flesh_wounds + max(v.health, 0) + 1) * 4 ** len(f.character.armour) * (3 if lose else 1)
    return size


def _exact(state: FightState, tolerance: float = 1e-12) -> Forecast:
    why = exact_applies(state)
    if why is not None:
        raise OddsError(
            f"no exact forecast for this fight: {why}", hint="forecast it by simulation (--method simulate)"
        )
    chain = _Chain(state)
    cap = state.house_rules.max_rounds - state.round
    res = chain.absorb(2 * cap, tolerance)
    fs = state.fighters
    p_win = [0.0, 0.0]
    p_draw = 0.0
    ends: list[dict[str, float]] = [{}, {}]
    for i, p in res.terminal.items():
        a, b = chain.states[i][0].fighters
        up = [a.active, b.active]
        if up[0] and not up[1]:
            p_win[fs[0].side] += p
        elif up[1] and not up[0]:
            p_win[fs[1].side] += p
        else:
            p_draw += p
        for k, x in enumerate((a, b)):
            w = chain.end_word(k, x)
            ends[k][w] = ends[k].get(w, 0.0) + p
    rounds: dict[int, float] = {}
    for steps, p in res.rounds.items():  # two steps of the chain to a round
        rounds[(steps + 1) // 2] = rounds.get((steps + 1) // 2, 0.0) + p
    error = res.unresolved
    notes = [f"exact chain over {res.states_seen} duel states"]
    if state.round:
        notes.append(f"rounds are counted from round {state.round}, where the saved fight stands")
    if res.unresolved >= tolerance:  # the chain ran to the round cap: what is left is the stand-off
        p_draw += res.unresolved
        rounds[cap] = rounds.get(cap, 0.0) + res.unresolved
        error = 0.0
        cap_text = f"the cap of {state.house_rules.max_rounds} rounds"
        notes.append(f"{res.unresolved:.2e} of the fights are still going at {cap_text}")
        for k in range(2):  # the chain does not keep where they stand then
            ends[k][STANDING_AT_CAP] = res.unresolved
    return Forecast(
        system="blyss",
        method="exact",
        sides=tuple((f.id,) for f in sorted(fs, key=lambda f: f.side)),
        p_win=tuple(p_win),
        p_draw=p_draw,
        rounds=rounds,
        combatants=tuple(CombatantForecast(f.id, f.side, ends[k]) for k, f in enumerate(fs)),
        error=error,
        tactics=_tactics(state),
        draw_meaning=DRAW_MEANING,
        notes=tuple(notes),
    )


# ---------------------------------------------------------------- the entry point
def _tactics(state: FightState) -> dict[str, str]:
    from ...forecast import side_label

    out: dict[str, str] = {}
    for s in sorted({f.side for f in state.fighters}):
        words = []
        for f in state.fighters:
            if f.side == s:
                word = f.tactic + (f" (called shot: {f.called_shot})" if f.called_shot else "")
                words.append(word)
        uniq = sorted(set(words))
        out[side_label(s)] = uniq[0] if len(uniq) == 1 else ", ".join(words)
    return out


def blyss_forecast(
    state: BaseModel, *, method: str = "auto", samples: int | None = None, seed: int = 0, progress: Any = None
) -> Forecast:
    """The odds of a BLYSS fight from any engine state: exact for duels of two attackers, else simulated.

    ``samples`` None (the default) simulates until every 95% interval is within ±1% (ADAPTIVE_ERROR),
    looking at 2,000, 6,000, 14,000 ... fights, at most 100,000 (team fights last ~85 rounds, so a
    fixed 100,000 took 20-30 s); an explicit ``samples`` runs exactly that many.
    """
    if not isinstance(state, FightState):
        raise OddsError("a BLYSS forecast needs a BLYSS fight state", hint="start one with the BLYSS combat engine")
    if state.over:
        raise OddsError("the fight is already over", hint="forecast a fight that is still going")
    if method not in ("auto", "exact", "simulate"):
        raise OddsError(f"method is auto, exact or simulate, not {method!r}")
    if state.house_rules.literal_ones:
        raise OddsError(
            "the forecast does not model the house rule literal_ones (a natural 1 meeting TD 0 or 1)",
            hint="forecast with the book's default (a 1 is never a success), or play the fight out",
        )
    ids = [f.id for f in state.fighters]
    if len(set(ids)) != len(ids):
        raise OddsError("two fighters in the saved fight share a name", hint="each fighter needs its own id")
    if state.round > 0 and sorted(state.order) != sorted(ids):
        raise OddsError(
            "the saved fight's Initiative order does not list every fighter once",
            hint="save the fight with 'fight --save-state' rather than editing it by hand",
        )
    notes: list[str] = []
    if method == "exact":
        return _exact(state)
    size = chain_size(state) if method == "auto" and exact_applies(state) is None else 0
    if size > AUTO_CHAIN_SIZE:
        notes.append(
            f"simulated: the exact chain is too big for auto (estimated size {size:,}, over {AUTO_CHAIN_SIZE:,}; "
            "--method exact runs it)"
        )
    elif method == "auto" and exact_applies(state) is None:
        try:
            return _exact(state)
        except OddsError as exc:  # the chain outgrew its limit: simulate instead, and say so
            notes.append(f"simulated, because the exact chain was refused: {exc.message}")
    if state.round:
        notes.append(f"rounds are counted from round {state.round}, where the saved fight stands")
    sides_n = max(f.side for f in state.fighters) + 1
    sides = [[f.id for f in state.fighters if f.side == s] for s in range(sides_n)]
    return run_simulation(
        "blyss",
        simulate_batch(state),
        sides=sides,
        combatant_sides={f.id: f.side for f in state.fighters},
        samples=ADAPTIVE_MAX if samples is None else samples,
        target_error=ADAPTIVE_ERROR if samples is None else None,
        seed=seed,
        tactics=_tactics(state),
        draw_meaning=DRAW_MEANING,
        progress=progress,
        notes=notes,
    )
