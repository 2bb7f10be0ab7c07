"""The simulation's array twins of the round's named rules (issue 14), each against its scalar rule on every
input of a small domain."""

from __future__ import annotations

import itertools

import numpy as np

from storymaster.systems.blyss.living import blow_flags, blow_flags_v, spill_damage, spill_damage_v


def test_spill_damage_twin_on_every_small_input() -> None:
    rows = list(itertools.product(range(-1, 5), range(-1, 5), range(12), (True, False)))
    for spill in (True, False):
        sel = [r for r in rows if r[3] is spill]
        d, f, dmg = (np.array(x) for x in list(zip(*sel, strict=True))[:3])
        got = np.stack(spill_damage_v(d, f, dmg, spill), axis=1)
        for (dd, ff, gg, _), row in zip(sel, got, strict=True):
            assert tuple(row) == spill_damage(dd, ff, 18, gg, spill), (dd, ff, gg, spill)


def test_blow_flags_twin_on_every_small_input() -> None:
    rows = list(
        itertools.product(range(-3, 3), range(3), *([(False, True)] * 4), range(3))
    )  # health, took, unconscious, dying, stabilised, dead, dying checks
    cols = [np.array(x) for x in zip(*rows, strict=True)]
    got = blow_flags_v(*cols)
    for i, row in enumerate(rows):
        assert tuple(g[i] for g in got) == blow_flags(*row), row
