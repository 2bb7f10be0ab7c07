"""The audited roller's and the renderer's fast paths give exactly what their general paths give.

Rerolls and minimum/maximum (``2d6ro<3``, ``4d6rr1``, ``8d6mi2``) have an unrolled roller and
renderer (issue 17, the single-roll target); each is checked here, seed by seed, against the
general machinery they short-cut (``_compile_modified`` and ``_modified_text``).
"""

from __future__ import annotations

import pytest

from storymaster.dice import DiceRng, parse, roll
from storymaster.dice.render import _modified_text
from storymaster.dice.roller import _compile_modified

EXPRESSIONS = [
    "2d6ro<3",
    "8d6mi2",
    "4d6rr1",
    "4dFr<0",
    "4dFro<0",
    "6d6ma4",
    "3d6mi2ma5",
    "4d6r<3mi2",
    "10d20rr<20",
    "5d4ro1",
]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_the_fast_paths_match_the_general_ones(expr: str) -> None:
    node = parse(expr)
    general = _compile_modified(node, 0)
    for seed in range(300):
        fast = roll(expr, DiceRng(seed, "fast"))
        dice: list = []
        total = general(DiceRng(seed, "fast"), dice)
        assert list(fast.dice) == dice and fast.total == total, (expr, seed)
        assert fast.detail == f"{_modified_text(node, str(node), dice)} = {total}", (expr, seed)


def test_a_reroll_and_a_clamp_read_as_before() -> None:
    rec = roll("8d6mi2", DiceRng(3))
    assert "1→2" in rec.detail
    again = roll("4d6rr1", DiceRng(5, "x"))
    assert all(not d.kept for d in again.dice if d.rerolled)


@pytest.mark.parametrize("expr", ["4d6kh3", "4d6kl1", "10d10kh5", "8d6dl2", "2d20kh1", "20d6kh0", "3d6kh3"])
def test_keep_without_explosions_matches_the_general_path(expr: str) -> None:
    from storymaster.dice.render import _dice_text
    from storymaster.dice.roller import _compile_per_die

    node = parse(expr)
    general = _compile_per_die(node, 0)
    for seed in range(300):
        fast = roll(expr, DiceRng(seed, "keep"))
        dice: list = []
        total = general(DiceRng(seed, "keep"), dice)
        assert list(fast.dice) == dice and fast.total == total, (expr, seed)
        assert fast.detail == f"{_dice_text(str(node), dice)} = {total}", (expr, seed)
