"""The BLYSS round's rules over numpy arrays, for the simulation: each the twin of a scalar rule the round
(:mod:`~.round`) or the Rules for Living (:mod:`~.living`) states, tested against it on every input of a small
domain (tests/systems/blyss/test_round_twins.py).

The simulation (:mod:`~.forecast`) plays many fights at once and states no rule of its own: where a rule's
inputs are few and fixed for a fight (the TD of an attack by its called shot, aim and counterattack) its twin is
a table filled by calling the scalar rule; where they are open, the twin is numpy code. Rows are fights, columns
(where there are any) fighters in listing order; an action is a code into :data:`ACTIONS`, NOTHING for none
declared.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...dice import parse
from ...dice.ast import BinOp, Const, Dice, Expr, Neg, is_plain_arithmetic, walk
from ...dice.batch import _eval as _eval_batch
from ...errors import OddsError
from .dicepool import CRITICAL_SCREW_UP, SCREW_UP
from .living import WOUND_LEVELS
from .round import LOCATION, aim_td, attack_td

__all__ = [
    "ACTIONS",
    "CALLED_SHOTS",
    "END_STATES",
    "NOTHING",
    "DamageSampler",
    "armour_lives_after_v",
    "armour_takes_blow_v",
    "contest_winner_v",
    "covering_piece_v",
    "declare_v",
    "defence_of_v",
    "each_row",
    "end_code",
    "end_codes_v",
    "initiative_order_v",
    "lookup_pools",
    "pick_target_v",
    "screw_up_weapon_v",
    "td_tables",
    "vitals_left_v",
]

#: the round's actions (``Mover.declared[0]``) by code; NOTHING: no action declared
ACTIONS = ("none", "recover", "move", "defend", "evade", "aim", "disarm", "attack")
NONE, RECOVER, MOVE, DEFEND, EVADE, AIM, DISARM, ATTACK = range(len(ACTIONS))
NOTHING = -1
#: called shots by code (a fighter's ``called_shot``), and the armour location each aims at (:data:`~.round.LOCATION`)
CALLED_SHOTS = (None, "limb", "head", "eye")
LOCATIONS = ("T", "A", "H", "F", "L")
LOCATION_OF_CALLED = np.array([LOCATIONS.index(LOCATION[c]) for c in CALLED_SHOTS])

#: how a fighter can end a fight, in BLYSS's own words (Wound Levels, Table 2-03; Rules for Living)
END_STATES = ("unhurt", *WOUND_LEVELS[:5], "unconscious", "stabilised", "dying", "coma", "dead")


def end_code(
    dead: bool, coma: bool, dying: bool, unconscious: bool, stabilised: bool, unhurt: bool, level: int, /
) -> int:
    """One fighter's end of a fight as a code into :data:`END_STATES`: how they are down, else unhurt, else their
    Wound Level's code (:func:`~.living.wound_level_code`)."""
    if dead:
        return 10
    if coma:
        return 9
    if dying:
        return 8
    if unconscious:
        return 7 if stabilised else 6
    return 0 if unhurt else 1 + level


def end_codes_v(
    dead: Any, coma: Any, dying: Any, unconscious: Any, stabilised: Any, unhurt: Any, level: Any, /
) -> np.ndarray:
    """:func:`end_code` on arrays."""
    code = np.where(unhurt, 0, 1 + level)
    code = np.where(unconscious, np.where(stabilised, 7, 6), code)
    code = np.where(dying, 8, code)
    code = np.where(coma, 9, code)
    return np.where(dead, 10, code)


def vitals_left_v(d: np.ndarray, f: np.ndarray, h: np.ndarray, /) -> np.ndarray:
    """:func:`~.living.vitals_left` on arrays."""
    return d + f + np.maximum(h, 0)


def pick_target_v(enemy: np.ndarray, total: np.ndarray, /) -> np.ndarray:
    """:func:`~.round._pick_target` on arrays: per row, the standing enemy (``enemy``: (n, K), an enemy who can act)
    with the fewest vitals left (``total``), the first listed of those; -1 if there is none."""
    K = enemy.shape[1]
    cost = np.where(enemy, total * (K + 1) + np.arange(K)[None, :], np.iinfo(np.int64).max)
    return np.where(enemy.any(axis=1), cost.argmin(axis=1), -1)


def declare_v(
    me: np.ndarray,
    target: np.ndarray,
    enemy_of: np.ndarray,
    active: np.ndarray,
    declared: np.ndarray,
    declared_on: np.ndarray,
    on_ground: np.ndarray,
    in_hand: np.ndarray,
    ranged_in_hand: np.ndarray,
    out_of_reach: np.ndarray,
    tactic: np.ndarray,
    counter_ready: np.ndarray,
    aim_bonus: np.ndarray,
    target_in_hand: np.ndarray,
    /,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~.round._declare` on arrays: (action code, its target or -1) of fighter ``me`` per row, whose
    target is ``target`` (:func:`pick_target_v`; -1: none left). ``enemy_of`` (K, K): j is k's enemy;
    ``active``, ``declared`` (codes), ``declared_on`` (targets): (n, K), every fighter; the rest per row, about
    ``me`` (``tactic``: 'attack', 'defensive', 'aim', 'disarm' as 0..3; ``out_of_reach``: the sides are farther
    apart than melee reach) and ``target_in_hand``: the target holds a weapon."""
    kind = np.where(target >= 0, ATTACK, NONE)
    tgt = target.copy()
    todo = target >= 0
    recover = todo & on_ground
    move = todo & ~recover & ~ranged_in_hand & out_of_reach
    kind[recover], kind[move] = RECOVER, MOVE
    tgt[recover | move] = -1
    todo &= ~(recover | move)
    defend = todo & (tactic == 1) & ~counter_ready
    if defend.any():
        found = np.zeros(len(me), dtype=bool)
        for j in range(enemy_of.shape[0]):
            hit = (
                defend
                & ~found
                & enemy_of[me, j]
                & active[:, j]
                & np.isin(declared[:, j], (ATTACK, DISARM))
                & (declared_on[:, j] == me)
            )
            kind[hit] = np.where(in_hand[hit], DEFEND, EVADE)
            tgt[hit] = j
            found |= hit
        todo &= ~found
    aim = todo & (tactic == 2) & (aim_bonus == 0)
    kind[aim] = AIM
    kind[todo & ~aim & (tactic == 3) & target_in_hand] = DISARM
    return kind, tgt


def defence_of_v(
    declared: np.ndarray,
    acted: np.ndarray,
    active: np.ndarray,
    counter_ready: np.ndarray,
    defensive: np.ndarray,
    in_hand: np.ndarray,
    /,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~.round.defence_of` on arrays: (the defence's code, DEFEND or EVADE, or NOTHING; the switch)."""
    kept = np.isin(declared, (DEFEND, EVADE)) & ~acted
    switch = ~kept & defensive & ~acted & active & (declared != NOTHING) & ~counter_ready
    kind = np.where(kept, declared, np.where(switch, np.where(in_hand, DEFEND, EVADE), NOTHING))
    return kind, switch


def contest_winner_v(a: np.ndarray, b: np.ndarray, /) -> np.ndarray:
    """:func:`~.checks.contest_winner` on arrays of net successes (0: the Test failed): 0 if A wins, 1 if B
    wins, -1 for a draw."""
    return np.where(a > b, 0, np.where(b > a, 1, -1))


def screw_up_weapon_v(kind: np.ndarray, in_hand: np.ndarray, rule: str, /) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~.round.screw_up_weapon` on arrays of :func:`~.dicepool.judge_kind_v` codes: (the weapon in hand is
    dropped, it is lost for the fight)."""
    drop = (kind >= SCREW_UP) & in_hand & (rule == "drop_weapon")
    return drop, drop & (kind == CRITICAL_SCREW_UP)


def covering_piece_v(covers: np.ndarray, lives: np.ndarray, /) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~.round.covering_piece` on arrays: ``covers`` (n, P), the piece covers the blow's location;
    ``lives`` (n, P). Returns (there is such a piece, its index, 0 when there is none)."""
    meets = covers & (lives > 0)
    return np.asarray(meets.any(axis=1)), np.asarray(meets.argmax(axis=1))


def armour_takes_blow_v(choice: np.ndarray, damage: np.ndarray, dodges: np.ndarray, /) -> np.ndarray:
    """:func:`~.round.armour_takes_blow` on arrays (``choice``: 'auto', 'body', 'armour' as 0..2)."""
    return (choice == 2) | ((choice == 0) & (damage > dodges))


def armour_lives_after_v(lives: np.ndarray, damage: np.ndarray, heavy_blow: int | None, /) -> np.ndarray:
    """:func:`~.round.armour_lives_after` on arrays."""
    heavy = damage >= heavy_blow if heavy_blow is not None else np.zeros(np.shape(damage), dtype=bool)
    return np.maximum(0, lives - np.where(heavy, 2, 1))


def initiative_order_v(
    successes: np.ndarray, value: np.ndarray, rank: np.ndarray, tiebreak: np.ndarray, /
) -> np.ndarray:
    """:func:`~.checks.initiative_order` on arrays (n, K): each row's fighters, fastest first, by net successes,
    then the value of the dice that met the TD, then Initiative rank, then ``tiebreak`` (distinct in a row)."""
    K = successes.shape[1]
    keys = ((successes * 4000 + value) * 128 + rank) * 200_000 + tiebreak + K
    return np.argsort(-keys, axis=1, kind="stable")


def td_tables() -> tuple[np.ndarray, np.ndarray]:
    """The TDs the round's rules give, as tables filled by calling them: :func:`~.round.attack_td` by (called shot
    code, aimed, counterattack) and :func:`~.round.aim_td` by called shot code."""
    att = np.array([[[attack_td(c, bool(a), bool(k)) for k in (0, 1)] for a in (0, 1)] for c in CALLED_SHOTS])
    return att, np.array([aim_td(c) for c in CALLED_SHOTS])


class DamageSampler:
    """A weapon's damage (:class:`~.round.DamageRoll`) on arrays: the total and, for the armour contest against the
    damage roll, the highest die face (a set number: the total). Only dice, numbers, +, - and * when the highest
    face is wanted (refused up front otherwise)."""

    def __init__(self, expr: str, want_best: bool) -> None:
        self.node, self.want_best = parse(expr), want_best
        fudge = any(isinstance(x, Dice) and x.fudge for x in walk(self.node))
        if want_best and (fudge or not is_plain_arithmetic(self.node)):
            raise OddsError(
                f"damage '{self.node}' with the armour contest against the damage roll is not simulated",
                hint="use plain dice for the weapon's damage, or the default armour contest",
            )

    def roll(self, n: int, gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        if not self.want_best:
            total = np.broadcast_to(np.asarray(_eval_batch(self.node, n, gen), dtype=np.int64), (n,)).copy()
            return total, total
        best = np.full(n, -(10**9), dtype=np.int64)
        total = np.broadcast_to(np.asarray(self._eval(self.node, n, gen, best), dtype=np.int64), (n,)).copy()
        return total, np.where(best == -(10**9), total, best)

    def _eval(self, node: Expr, n: int, gen: np.random.Generator, best: np.ndarray) -> Any:
        if isinstance(node, Const):
            return node.value
        if isinstance(node, Dice):
            if node.count == 0:
                return 0
            faces = gen.integers(1, node.faces + 1, size=(n, node.count))
            np.maximum(best, faces.max(axis=1), out=best)
            return faces.sum(axis=1)
        if isinstance(node, Neg):
            return -self._eval(node.operand, n, gen, best)
        assert isinstance(node, BinOp)
        a, b = self._eval(node.left, n, gen, best), self._eval(node.right, n, gen, best)
        return a + b if node.op == "+" else a - b if node.op == "-" else a * b


_PoolRow = tuple[tuple[int, ...], int, int]


def each_row(keys: np.ndarray, fn: Callable[..., Any]) -> tuple[list[Any], np.ndarray]:
    """``fn`` (a scalar rule) called once per distinct row of ``keys`` (n, m; small non-negative integers): the
    results, and each row's index into them: the table by which a rule with few inputs is its own twin."""
    keys = keys.astype(np.int64, copy=False)
    radix = keys.max(axis=0) + 1
    strides = np.ones(keys.shape[1], dtype=np.int64)
    for j in range(keys.shape[1] - 2, -1, -1):
        strides[j] = strides[j + 1] * radix[j + 1]
    code = keys @ strides
    space = int(strides[0] * radix[0])
    if space <= 1 << 20:  # small: a dense table instead of a sort
        present = np.zeros(space, dtype=bool)
        present[code] = True
        ucodes = np.flatnonzero(present)
        pos = np.zeros(space, dtype=np.int64)
        pos[ucodes] = np.arange(len(ucodes))
        inv = pos[code]
    else:
        ucodes, inv = np.unique(code, return_inverse=True)
        inv = inv.reshape(-1)
    uniq = (ucodes[:, None] // strides[None, :]) % radix[None, :]
    return [fn(*map(int, u)) for u in uniq], inv


def lookup_pools(keys: np.ndarray, fn: Callable[..., _PoolRow]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row of ``keys`` (n, m): padded dice sides (0 = no die), die modifier, rank total, from ``fn`` (the round's
    pool of a fighter in a situation, :meth:`~.round.Roster.pool`) by :func:`each_row`."""
    if keys.shape[0] == 0:
        return np.zeros((0, 1), dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    rows, inv = each_row(keys, fn)
    table_ = np.zeros((len(rows), max([len(r[0]) for r in rows] + [1])), dtype=np.int64)
    for i, r in enumerate(rows):
        table_[i, : len(r[0])] = r[0]
    dm = np.array([r[1] for r in rows], dtype=np.int64)
    rank = np.array([r[2] for r in rows], dtype=np.int64)
    return table_[inv], dm[inv], rank[inv]
