"""The Philsys turn over arrays of fights: the vectorised twin of :func:`.round.play_turn` (issue 14).

The forecast's simulation plays many fights at once; a fighter's turn there is :meth:`Fights.play_turn`,
the round's own turn step by step over arrays (fights x fighters): the gate of :func:`.round._turn` (a
fighter down does nothing, a lost turn is sat out, nothing once the fight is decided), the automatic
choice (:func:`choose_v`, the twin of :func:`.round.choose`), then the chosen action in the order of
steps of the round's ``_heal``, ``_cast``, ``_shoot`` and ``_melee``, every rule through the array twin
of its named function. The dice come from a :class:`Dice` (the simulation's generator; a test's script),
each draw named by what it is for, so ``test_turn_twin.py`` can hand the scalar turn and this one the same
faces and compare the fights they leave, on every input of a small domain.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any, Protocol

import numpy as np

from ...odds import distribution
from . import damage as dmg
from .checks import magic_result_v, melee_result_v, opposed_wins
from .round import (
    CAST,
    HEAL,
    MELEE,
    SHOOT,
    Body,
    Move,
    Setup,
    affords,
    best_attack,
    end_of_round_v,
    heal_threshold,
    hurt_v,
    modified_at_pa_v,
)

__all__ = ["BIG", "Dice", "Fights", "GeneratorDice", "choose_v"]

BIG = np.iinfo(np.int64).max // 4


class Dice(Protocol):
    """Where the turn over arrays gets its dice: ``rows`` are the fights rolled for, ``what`` names the die
    (``attack``, ``defence``, ``head`` for the d20s and the head shot's d6; ``amount`` for a damage or
    healing expression)."""

    def d(self, sides: int, rows: np.ndarray, what: str) -> np.ndarray: ...

    def roll(self, expression: str, rows: np.ndarray, what: str) -> np.ndarray: ...


@lru_cache(maxsize=1024)
def _cdf(expression: str) -> tuple[np.ndarray, np.ndarray]:
    d = distribution(expression)
    cum = np.cumsum(np.asarray(d.quantities, dtype=np.float64) / float(d.denominator))
    cum[-1] = 1.0
    return np.asarray(d.outcomes, dtype=np.int64), cum


class GeneratorDice:
    """The simulation's dice: one numpy generator, drawn in the order the turn asks."""

    def __init__(self, gen: np.random.Generator):
        self.gen = gen

    def d(self, sides: int, rows: np.ndarray, what: str) -> np.ndarray:
        return self.gen.integers(1, sides + 1, size=rows.size)

    def roll(self, expression: str, rows: np.ndarray, what: str) -> np.ndarray:
        values, cum = _cdf(expression)
        idx = np.searchsorted(cum, self.gen.random(rows.size), side="right")
        return values[np.minimum(idx, len(values) - 1)]


def _groups(keys: Sequence[np.ndarray], widths: Sequence[int]) -> Iterator[tuple[tuple[int, ...], Any]]:
    """The distinct combinations of the keys (ints from 0 below their widths) in increasing order, each with
    its mask (counted, not sorted: the fights are many, the combinations a handful; one: every fight)."""
    code = keys[0]
    for k, w in zip(keys[1:], widths[1:], strict=True):
        code = code * w + k
    found = np.nonzero(np.bincount(code))[0].tolist()
    for u in found:
        parts, rest = [], u
        for w in reversed(widths):
            rest, r = divmod(rest, w)
            parts.append(r)
        yield tuple(reversed(parts)), (slice(None) if len(found) == 1 else code == u)


class Fights:
    """n fights as arrays (fights x fighters): every field of :class:`.round.Body` the fight reads
    (``WAKE`` -1 for none), the setup, and the dice."""

    def __init__(self, setup: Setup, bodies: Sequence[Body], n: int, dice: Dice):
        self.setup, self.hr, self.specs, self.dice, self.n = setup, setup.hr, setup.specs, dice, n
        self.N = len(bodies)

        def col(values: Sequence[Any], dtype: Any) -> np.ndarray:
            return np.tile(np.asarray(values, dtype=dtype), (n, 1))

        self.HP = col([b.hp for b in bodies], np.int64)
        self.MP = col([b.mp for b in bodies], np.int64)
        self.TP = col([b.tp for b in bodies], np.int64)
        self.LOSE = col([b.lose_turn for b in bodies], bool)
        self.UNC = col([b.unconscious for b in bodies], bool)
        self.DEAD = col([b.dead for b in bodies], bool)
        self.WAKE = col([-1 if b.wake_in is None else b.wake_in for b in bodies], np.int64)
        self.HEAVY = col([b.heavy_wound for b in bodies], bool)
        pairs = zip(bodies, self.specs, strict=True)
        self.SB = col([b.shield_broken and s.shield is not None for b, s in pairs], bool)
        self.PARRIED = col([b.parried for b in bodies], bool)
        self.side = np.asarray([s.side for s in self.specs])
        self.top = np.asarray([s.top for s in self.specs])

    def active(self, rows: np.ndarray, k: int) -> np.ndarray:
        return ~self.UNC[rows, k] & ~self.DEAD[rows, k]

    def sides_standing(self, rows: np.ndarray) -> np.ndarray:
        out = np.zeros((rows.size, int(self.side.max()) + 1), dtype=bool)
        for k in range(self.N):
            out[:, self.side[k]] |= self.active(rows, k)
        return out

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

    # -- the round's steps
    def play_turn(self, k: int, rows: np.ndarray) -> None:
        """Fighter k's turn in each of the fights ``rows``, as :func:`.round.play_turn` plays it."""
        rows = rows[self.active(rows, k)]
        lose = self.LOSE[rows, k]
        self.LOSE[rows[lose], k] = False
        rows = rows[~lose]
        rows = rows[self.sides_standing(rows).sum(axis=1) > 1]
        if rows.size == 0:
            return
        what, q, target = choose_v(self, k, rows)
        s = self.specs[k]
        widths = (MELEE + 1, max(len(s.heals), len(s.spells), 1), self.N)
        for (w, a, j), pick in _groups((what, q, target), widths):
            if w == HEAL:
                self.heal(k, rows[pick], s.heals[a], j)
            elif w == CAST:
                self.cast(k, rows[pick], s.spells[a], j)
            elif w == SHOOT:
                self.shoot(k, rows[pick], j)
            else:
                self.melee(k, rows[pick], j)

    def end_of_round(self, rows: np.ndarray) -> None:
        """Bleeding and waking (:func:`.round.end_of_round`)."""
        for k in range(self.N):
            out = end_of_round_v(self.HP[rows, k], self.UNC[rows, k], self.DEAD[rows, k], self.WAKE[rows, k], self.hr)
            self.HP[rows, k], self.UNC[rows, k], self.DEAD[rows, k], self.WAKE[rows, k] = out

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

    def heal(self, k: int, rows: np.ndarray, a: Move, j: int) -> None:
        self.pay(k, rows, a)
        new = dmg.healed_v(self.HP[rows, j], self.dice.roll(a.expr, rows, "amount"), self.top[j])
        w = self.UNC[rows, j] & (new > 0) & (self.WAKE[rows, j] < 0)
        self.WAKE[rows[w], j] = dmg.wake_delay(self.specs[j].sta)
        self.HP[rows, j] = new

    def cast(self, k: int, rows: np.ndarray, a: Move, j: int) -> None:
        dice, hr, g = self.dice, self.hr, self.specs[j]
        pen = dmg.wound_penalty_v(self.HP[rows, k], self.HEAVY[rows, k], hr)
        at, _ = self.at_pa(k, rows)
        _, pa = self.at_pa(j, rows)
        self.pay(k, rows, a)
        half = np.zeros(rows.size, dtype=bool)
        if a.magical:
            attack = dice.d(20, rows, "attack") + (a.atk - pen)
            hit, half = magic_result_v(attack - (dice.d(20, rows, "defence") + g.resist), hr)
        else:  # a tech: resolved like a melee blow against the parry
            parry = ~self.PARRIED[rows, j]
            defence = np.where(parry, dice.d(20, rows, "defence") + pa, pa)
            self.PARRIED[rows, j] = True
            hit = opposed_wins(dice.d(20, rows, "attack") + at, defence)
        amount = np.maximum(0, dice.roll(a.expr, rows, "amount"))
        amount = np.where(half, dmg.half_damage(amount), amount)
        amount = dmg.reduce_damage_v(amount, g.red_magic if a.magical else g.red)
        eff = hit | half
        self.hurt(j, rows[eff], amount[eff])

    def shoot(self, k: int, rows: np.ndarray, j: int) -> None:
        dice, s, g = self.dice, self.specs[k], self.specs[j]
        assert s.missile is not None
        aim = dmg.aim_at(s.aim, g.has_limbs)
        atk = dmg.missile_attack_modifier(s.missile[0], s.missile[1], aim) - dmg.missile_wound_penalty_v(
            self.HP[rows, k], self.HEAVY[rows, k], self.hr
        )
        hit = opposed_wins(dice.d(20, rows, "attack") + atk, dice.d(20, rows, "defence") + g.mdef)
        if aim == "head" and g.head_shot_kills:
            kill = hit & dmg.head_shot_kills_on_v(dice.d(6, rows, "head"))
            self.DEAD[rows[kill], j] = True
            self.UNC[rows[kill], j] = True
            hit &= ~kill
        expression = dmg.location_damage_expr(s.missile[2], aim)
        taken = dmg.reduce_damage_v(np.maximum(0, dice.roll(expression, rows, "amount")), g.red)
        self.hurt(j, rows[hit], taken[hit])

    def melee(self, k: int, rows: np.ndarray, j: int) -> None:
        dice, hr, s, g = self.dice, self.hr, self.specs[k], self.specs[j]
        at, _ = self.at_pa(k, rows)
        _, pa = self.at_pa(j, rows)
        parry = ~self.PARRIED[rows, j]
        a0, p0 = int(at.min()), int(pa.min())
        keys = (at - a0, pa - p0, parry.astype(np.int64))
        for (at_u, pa_u, par_u), pick in _groups(keys, [int(x.max()) + 1 for x in keys]):
            at_u, pa_u = at_u + a0, pa_u + p0
            grp = rows[pick]
            if s.forced:
                attack, expression = next((x, e) for x, e in s.choices if x == s.forced)
            else:
                attack, expression = best_attack(s.choices, at_u, pa_u, bool(par_u), g.red, hr)
            a_total = dice.d(20, grp, "attack") + at_u + dmg.attack_penalty(attack)
            d_total = dice.d(20, grp, "defence") + pa_u if par_u else np.full(grp.size, pa_u)
            if par_u:
                self.PARRIED[grp, j] = True
            crit, hit, fail = melee_result_v(a_total - d_total, bool(par_u), hr)
            raw = np.maximum(0, dice.roll(expression, grp, "amount"))
            raw = np.where(crit, dmg.critical_damage(raw), raw)
            taken = dmg.reduce_damage_v(raw, g.red)
            landed = crit | hit
            if hr.shield_breaks and g.shield is not None:
                brk = landed & ~self.SB[grp, j] & dmg.shield_overwhelmed_v(raw, g.shield.ac)
                self.SB[grp[brk], j] = True
            self.hurt(j, grp[landed], taken[landed])
            if hr.critical_failure_effect == "lose_next_turn":
                self.LOSE[grp[fail], k] = True


def choose_v(fights: Fights, k: int, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`.round.choose` for fighter k in each of the fights ``rows``: (what, which ability, on whom),
    the ability an index into the fighter's heals or spells (0 when none). Tested against it on every input
    of a small domain."""
    s, f = fights.specs[k], fights
    what = np.full(rows.size, MELEE if s.missile is None else SHOOT, dtype=np.int64)
    q = np.zeros(rows.size, dtype=np.int64)
    enemies = np.nonzero(f.side != s.side)[0]
    if enemies.size == 1:
        target = np.full(rows.size, enemies[0])
    else:
        key = np.stack([np.where(f.active(rows, e), f.HP[rows, e], BIG) for e in enemies.tolist()], axis=1)
        target = enemies[np.argmin(key, axis=1)]
    if s.tactic not in ("auto", "magic"):
        return what, q, target
    if s.spells:
        spell = fights.first_affordable(s.spells, k, rows)
        cast = spell >= 0
        what[cast], q[cast] = CAST, spell[cast]
    if not s.heals:
        return what, q, target
    heal = fights.first_affordable(s.heals, k, rows)
    allies = np.nonzero(f.side == s.side)[0]
    hp = f.HP[rows][:, allies]
    hurt = ~f.DEAD[rows][:, allies] & (hp <= heal_threshold(f.top[allies]))  # type: ignore[arg-type]
    healing = (heal >= 0) & hurt.any(axis=1)
    what[healing], q[healing] = HEAL, heal[healing]
    target = np.where(healing, allies[np.argmin(np.where(hurt, hp, BIG), axis=1)], target)
    return what, q, target
