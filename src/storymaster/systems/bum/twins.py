"""The vectorised twins of the round's named rules (:mod:`.rounds`), for the forecast's numpy simulation.

Each ``name_v`` does what the scalar ``name`` in :mod:`.rounds` (or :mod:`.checks`) does, for many fights at
once (arrays over fights); tests/systems/bum/test_twins.py checks each against its scalar on every input of a small
domain. Weapons in hand and missile readiness are coded as indices into :data:`WIELDING` and :data:`READINESS`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .character import Readiness, Slot, WeaponProfile
from .fighters import reload_actions
from .options import BumHouseRules
from .rounds import Fixed, Opposed, after_shot, p_ok, set_down

__all__ = [
    "READINESS",
    "WIELDING",
    "advance_v",
    "after_shot_v",
    "p_fixed_v",
    "p_opposed_v",
    "pick_target_v",
    "range_penalty_v",
    "reload_step_v",
    "set_down_v",
    "strikes_first_v",
    "uses_missile_v",
]

WIELDING: tuple[Slot | None, ...] = (None, "primary", "ranged", "backup")
READINESS: tuple[Readiness, ...] = ("ready", "cocked", "unready", "empty")
_RANGED = WIELDING.index("ranged")
_READY = READINESS.index("ready")

Array = np.ndarray


def _table(values: Sequence[Readiness]) -> Array:
    return np.array([READINESS.index(v) for v in values], dtype=np.int64)


def pick_target_v(i: int, pos: Array, sides: Array, hp: Array, target: int, rolled: Array | None = None) -> Array:
    """:func:`.rounds.pick_target` for each fight: ``pos[f, j]`` is fighter j's place in fight f's turn order,
    ``sides`` an array, ``hp`` and ``rolled`` are (fights, fighters); -1 where no foe stands."""
    n = len(sides)
    big = n + 1
    foe = (sides != sides[i])[None, :] & (hp > 0)
    tgt = np.argmin(np.where(foe, pos, big), axis=1)
    if rolled is not None:
        fresh = foe & ~rolled
        tgt = np.where(fresh.any(axis=1), np.argmin(np.where(fresh, pos, big), axis=1), tgt)
    if 0 <= target < n and sides[target] != sides[i]:
        tgt = np.where(hp[:, target] > 0, target, tgt)
    return np.where(foe.any(axis=1), tgt, -1)


def p_opposed_v(diff: Array | int, tie_to: str | None) -> Array:
    """The chance an :class:`.rounds.Opposed` roll with this difference of bonuses comes out ok, for each fight."""
    return _opposed_table(tie_to)[np.minimum(np.maximum(diff, -6), 6) + 6]


def p_fixed_v(bonus: Array | int, dc: int) -> Array:
    """The chance a :class:`.rounds.Fixed` roll of d6 + ``bonus`` makes ``dc``, for each fight."""
    return _fixed_table()[np.minimum(np.maximum(np.asarray(bonus) - dc, -7), 7) + 7]


_TABLES: dict[str | None, Array] = {}


def _opposed_table(tie_to: str | None) -> Array:
    t = _TABLES.get(tie_to)
    if t is None:
        t = _TABLES[tie_to] = np.array([p_ok(Opposed(d, 0, tie_to)) for d in range(-6, 7)])
    return t


def _fixed_table() -> Array:
    t = _TABLES.get("fixed")
    if t is None:
        t = _TABLES["fixed"] = np.array([p_ok(Fixed(b, 0, "")) for b in range(-7, 8)])
    return t


def range_penalty_v(distance: Array, missile: WeaponProfile, hr: BumHouseRules) -> Array:
    """:func:`.checks.range_penalty` (within reach) for each fight: -1 per turn beyond the first, rifles at the
    house rule's slower rate."""
    steps = np.maximum(0, distance - 1)
    if missile.rifle:
        steps //= hr.rifle_range_divisor
    return -steps


def uses_missile_v(
    missile: WeaponProfile,
    tactic: str,
    ready: Array,
    ammo: Array | None,
    distance: Array,
    first_round: bool,
    hr: BumHouseRules,
) -> Array:
    """:func:`.rounds.uses_missile` for each fight (``ready``: readiness codes; ``ammo`` None when not counted)."""
    n = distance.shape[0]
    if tactic == "melee":
        return np.zeros(n, dtype=bool)
    is_ready = ready == _READY
    has_ammo = np.ones(n, dtype=bool) if ammo is None or missile.reload == "muzzleloader" else ammo > 0
    use = has_ammo & ((distance > 0) | (is_ready & (missile.melee_usable or first_round)))
    if tactic == "auto" and reload_actions(missile.reload, hr) > reload_actions("crossbow", hr):
        use &= is_ready
    if missile.reload == "thrown":
        use &= distance <= hr.thrown_max_turns
    return use


def after_shot_v(missile: WeaponProfile, ammo_left: Array | None, n: int) -> Array:
    """:func:`.rounds.after_shot` for each of ``n`` fights (readiness codes)."""
    if ammo_left is None:
        return np.full(n, READINESS.index(after_shot(missile, None)), dtype=np.int64)
    return np.where(ammo_left > 0, READINESS.index(after_shot(missile, 1)), READINESS.index(after_shot(missile, 0)))


def set_down_v(kind: str | None, ready: Array) -> Array:
    """:func:`.fighters.set_down` on readiness codes."""
    return _table([set_down(kind, r) for r in READINESS])[ready]


def reload_step_v(kind: str | None, ready: Array, progress: Array, hr: BumHouseRules) -> tuple[Array, Array]:
    """:func:`.rounds.reload_step` for each fight: the readiness codes and reload steps after one action."""
    need = reload_actions(kind, hr)
    prog = progress + 1
    if kind == "crossbow":
        prog = np.where(ready == READINESS.index("cocked"), need, prog)
    full = prog >= need
    new_ready = np.where(full, _READY, ready)
    if kind == "crossbow":
        new_ready = np.where(~full & (prog == need - 1), READINESS.index("cocked"), new_ready)
    return new_ready, np.where(full, 0, prog)


def advance_v(distance: Array, tactic: str, hr: BumHouseRules) -> tuple[Array, Array]:
    """:func:`.rounds.advance` for each fight: the distance after the move, and whether he strikes this turn."""
    if tactic == "hold":
        return distance.copy(), distance <= 0
    if hr.double_move:
        after = np.where(distance >= 2, np.maximum(0, distance - 2), np.maximum(0, distance - 1))
        return after, distance <= 1
    return np.maximum(0, distance - 1), distance <= 1


def strikes_first_v(
    hr: BumHouseRules,
    longspear: Array,
    acted: Array,
    hp: Array,
    stunned: Array,
    surprised: bool,
    distance: Array,
) -> Array:
    """:func:`.rounds.strikes_first` for each fight (``longspear``: whether the weapon in his hand is one)."""
    if not hr.longspear_first_strike or surprised:
        return np.zeros(distance.shape[0], dtype=bool)
    return longspear & ~acted & (hp > 0) & (stunned == 0) & (distance == 0)
