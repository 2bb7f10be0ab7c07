"""The vectorised twins of Kalyr's named rule functions (issue 14), for the simulation.

Each ``*_v`` function is its scalar namesake on numpy arrays, row by row (a row is one fight); the
simulation (:mod:`.forecast`) builds its round from these and nothing else of the rules. Each is
tested against the scalar rule on every input of a small domain (tests/systems/kalyr/test_rule_twins.py).
Kept apart from the rule modules so that numpy is loaded only by a forecast.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .detailed import Standing, all_out_offence, beaten, reach_after, reach_before
from .options import KalyrHouseRules
from .simple import contest_result
from .wounds import BOXES, DEFEATED, DESTROYED

__all__ = [
    "KINDS",
    "NONE",
    "all_out_offence_v",
    "beaten_v",
    "blow_v",
    "by_table",
    "contest_result_v",
    "fudge_to_spend_v",
    "group_margins_v",
    "group_winner_v",
    "halve_for_detailed_v",
    "is_critical_v",
    "is_out_v",
    "mark_box_v",
    "open_box_in_v",
    "outnumbering_penalties_v",
    "reach_after_v",
    "reach_before_v",
    "severity_for_damage_v",
    "status_v",
]

#: "nobody" (a winner, a reach penalty) in an integer array
NONE = -1
_BOX = np.arange(1, DESTROYED + 1, dtype=np.int64)
_CAP = np.array([BOXES[b] for b in range(1, DESTROYED + 1)], dtype=np.int64)
_BIT = 1 << np.arange(DESTROYED, dtype=np.int64)  # the boxes marked as a bit mask; its highest bit is the status
_HIGHEST = np.array([m.bit_length() for m in range(1 << DESTROYED)], dtype=np.int64)
KINDS = ("hit", "standoff", "defended", "dodge")


def status_v(used: np.ndarray) -> np.ndarray:
    """:attr:`.fight_state.Fighting.status`: the highest box marked, for rows of box counts (N, 5)."""
    return _HIGHEST[(used > 0) @ _BIT]  # type: ignore[no-any-return]


def is_out_v(used: np.ndarray, withdrawn: np.ndarray) -> np.ndarray:
    """:attr:`.fight_state.Fighting.out`: Defeated or worse on the track, or withdrawn."""
    return (status_v(used) >= DEFEATED) | (withdrawn != 0)  # type: ignore[no-any-return]


def open_box_in_v(used: np.ndarray, severity: np.ndarray) -> np.ndarray:
    """:func:`.wounds.open_box_in` (severity 1 or more); 0 where no box is open."""
    ok = (severity[:, None] <= _BOX) & (used < _CAP)
    return np.where(ok.any(axis=1), ok.argmax(axis=1) + 1, 0)


def mark_box_v(used: np.ndarray, box: np.ndarray) -> np.ndarray:
    """The box counts with one more wound in ``box`` (0: none marked)."""
    return used + (box[:, None] == _BOX)  # type: ignore[no-any-return]


def severity_for_damage_v(points: np.ndarray) -> np.ndarray:
    """:func:`.wounds.severity_for_damage`: 0 or less none, 1 Scratch ... 5 and up Destroyed."""
    return np.clip(points, 0, DESTROYED)


def halve_for_detailed_v(points: np.ndarray) -> np.ndarray:
    """:func:`.damage.halve_for_detailed`: positive damage halved, rounding up."""
    return np.where(points > 0, -(-points // 2), points)


def fudge_to_spend_v(used: np.ndarray, fudge: np.ndarray, severity: np.ndarray, limit: int | None) -> np.ndarray:
    """:func:`.fight_state.fudge_to_spend`: one Fudge point a level while the wound would land in the
    ``limit`` box or higher."""
    reduce = np.zeros(len(used), dtype=np.int64)
    if limit is None:
        return reduce
    still = np.ones(len(used), dtype=bool)
    for _ in range(DESTROYED):
        still &= (reduce < fudge) & (severity - reduce > 0)
        if not still.any():
            break
        box = open_box_in_v(used, np.maximum(severity - reduce, 1))
        still &= (box > 0) & (box >= limit)
        reduce += still
    return reduce


def is_critical_v(hr: KalyrHouseRules, dice_total: np.ndarray, margin: np.ndarray) -> np.ndarray:
    """:func:`.fight_state.is_critical`."""
    return dice_total == 4 if hr.critical_rule == "dice_plus_4" else margin >= 3  # type: ignore[no-any-return]


def all_out_offence_v(aoo: tuple[bool, bool], winner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`.detailed.all_out_offence`: the winner (NONE: nobody) and each side's extra damage (N, 2)."""
    table = [all_out_offence(aoo, w) for w in (None, 0, 1)]  # the rule for each winner, looked up per row
    w_of = np.array([NONE if w is None else w for w, _ in table], dtype=np.int64)
    bonus_of = np.array([b for _, b in table], dtype=np.int64)
    return w_of[winner + 1], bonus_of[winner + 1]


def blow_v(
    sd: Standing,
    hr: KalyrHouseRules,
    winner: np.ndarray,
    results: tuple[np.ndarray, np.ndarray],
    dice: tuple[np.ndarray, np.ndarray],
    can_attack: tuple[np.ndarray, np.ndarray],
) -> np.ndarray:
    """:func:`.detailed.blow` where there is a winner: the kind as an index into :data:`KINDS`
    (a row without a winner: "standoff")."""
    kind = np.full(len(winner), KINDS.index("standoff"), dtype=np.int64)
    for w in (0, 1):
        rows = winner == w
        margin = results[w] - results[1 - w]
        k = np.full(len(winner), KINDS.index("hit"), dtype=np.int64)
        if sd.aod[w]:
            k = np.where(is_critical_v(hr, dice[w], margin), k, KINDS.index("defended"))
        need = sd.need[w]
        if need is not None:
            k = np.where(results[w] < need, KINDS.index("standoff"), k)
        k = np.where(can_attack[w], k, KINDS.index("dodge"))
        kind = np.where(rows, k, kind)
    return kind


def group_winner_v(own: np.ndarray, other: np.ndarray) -> np.ndarray:
    """:func:`.simple.group_winner` for rows of results (N, k) against (N, m): 0, 1 or NONE."""
    a, b = own.sum(axis=1) * other.shape[1], other.sum(axis=1) * own.shape[1]
    return np.where(a > b, 0, np.where(b > a, 1, NONE))


def group_margins_v(own: np.ndarray, other: np.ndarray) -> np.ndarray:
    """:func:`.checks.group_margins`: each of ``own``'s margins against ``other``'s average, rounded down."""
    n = other.shape[1]
    return (other.sum(axis=1)[:, None] - own * n) // n  # type: ignore[no-any-return]


def outnumbering_penalties_v(levels: np.ndarray, foes: int, max_penalty: int | None) -> np.ndarray:
    """:func:`.checks.outnumbering_penalties` for rows of the smaller side's levels (N, n)."""
    n = levels.shape[1]
    if foes <= n:
        return np.zeros_like(levels)
    order = np.argsort(-levels, axis=1, kind="stable")
    rank = np.argsort(order, axis=1, kind="stable")
    base, spare = divmod(foes, n)
    pen = np.maximum(base + (rank < spare) - 1, 0)
    if max_penalty is not None:
        pen = np.minimum(pen, max_penalty)
    return -pen  # type: ignore[no-any-return]


def by_table(rule: Callable[..., tuple[Any, ...]], outputs: int, *cols: np.ndarray) -> list[np.ndarray]:
    """A scalar rule over rows of a few small integers (-1 to 6; NONE in and out for None), as its own
    twin: evaluated once for each distinct input row present and spread to every row with it."""
    code = np.zeros(len(cols[0]), dtype=np.int64)
    for col in cols:
        code = code * 8 + (col + 1)
    lookup = np.zeros((8 ** len(cols), outputs), dtype=np.int64)
    for key in np.flatnonzero(np.bincount(code, minlength=8 ** len(cols))).tolist():
        args: list[int | None] = []
        k = key
        for _ in cols:
            k, v = divmod(k, 8)
            args.insert(0, None if v == 0 else v - 1)
        lookup[key] = [NONE if v is None else int(v) for v in rule(*args)]
    return [lookup[code, i] for i in range(outputs)]


def reach_before_v(
    sd: Standing, reach: np.ndarray, inside: np.ndarray, first: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`.detailed.reach_before`: who cannot attack, who is at -1, the -1 carried, Close against Long."""
    dodger, minus, carried, cvl = by_table(
        lambda r, i, f: reach_before(sd, r, bool(i), bool(f)), 4, reach, inside, first
    )
    return dodger, minus, carried, cvl == 1


def reach_after_v(
    sd: Standing, detailed_reach: bool, carried: np.ndarray, inside: np.ndarray, cvl: np.ndarray, loser: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`.detailed.reach_after`: whether inside, and who carries the -1."""

    def rule(r: int | None, i: int, c: int, lo: int | None) -> tuple[bool, int | None]:
        return reach_after(sd, detailed_reach, r, bool(i), bool(c), lo)

    now_inside, reach = by_table(rule, 2, carried, inside, cvl, loser)
    return now_inside == 1, reach


def beaten_v(
    status0: np.ndarray, status1: np.ndarray, withdraw: tuple[int | None, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`.detailed.beaten`: who loses (NONE: nobody yet), and whether by withdrawal."""
    lost, withdrew = by_table(lambda a, b: beaten((a, b), withdraw), 2, status0, status1)
    return lost, withdrew == 1


def contest_result_v(
    outcome: np.ndarray, on_tie: str, gone0: np.ndarray, gone1: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`.simple.contest_result`: whether over, and the winner (NONE: nobody)."""
    over, winner = by_table(lambda o, a, b: contest_result(o, on_tie, (bool(a), bool(b))), 2, outcome, gone0, gone1)
    return over == 1, winner
