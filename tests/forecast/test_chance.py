"""The shared round machinery (issue 14): one function, rolled by the engine, enumerated by the chain."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from storymaster.dice import DiceRng
from storymaster.errors import OddsError
from storymaster.forecast import Rolled, Scripted, Table, absorb, branches
from storymaster.forecast.chance import Chance


def die(sides: int) -> Table[int]:
    return Table(tuple((1 / sides, f) for f in range(1, sides + 1)), lambda rng: rng.die(sides))


D6 = die(6)


def hit_then_damage(chance: Chance) -> int:
    """A toy round: a d6 attack hits on 4+; a hit rolls d6 damage, and a 6 to hit adds a second d6."""
    attack = chance.draw(D6)
    if attack < 4:
        return 0
    damage = chance.draw(D6)
    if attack == 6:
        damage += chance.draw(D6)
    return damage


def brute_force() -> dict[int, Fraction]:
    """The same toy round by plain enumeration of all three dice (each die always rolled)."""
    out: dict[int, Fraction] = {}
    for a, b, c in itertools.product(range(1, 7), repeat=3):
        dmg = 0 if a < 4 else b + (c if a == 6 else 0)
        out[dmg] = out.get(dmg, Fraction(0)) + Fraction(1, 216)
    return out


def test_branches_agree_with_brute_force_when_later_draws_depend_on_earlier_ones() -> None:
    got = {r: p for p, r in branches(hit_then_damage)}
    want = brute_force()
    assert set(got) == set(want)
    for r, p in want.items():
        assert got[r] == pytest.approx(float(p), abs=1e-15)
    assert got[0] == pytest.approx(0.5)  # misses: 1, 2, 3 of 6
    assert got[12] == pytest.approx(1 / 216)  # only a 6 to hit, then 6 and 6
    assert sum(got.values()) == pytest.approx(1.0, abs=1e-15)


def test_equal_results_are_merged_in_the_order_first_seen() -> None:
    coin = Table(((0.5, "heads"), (0.5, "tails")), lambda rng: "heads" if rng.die(2) == 1 else "tails")
    out = branches(lambda ch: (ch.draw(coin), ch.draw(coin)).count("heads"))
    assert [r for _, r in out] == [2, 1, 0]
    assert [p for p, _ in out] == [0.25, 0.5, 0.25]


def test_the_engine_rolls_the_same_faces_as_the_generator_itself() -> None:
    for stream in ("a", "b", "c", "d", "e", "f", "g", "h"):
        rng = DiceRng("seed", stream)
        a = rng.die(6)
        expected = 0 if a < 4 else rng.die(6) + (rng.die(6) if a == 6 else 0)
        engine_rng = DiceRng("seed", stream)
        assert hit_then_damage(Rolled(engine_rng)) == expected
        assert engine_rng.counter == rng.counter  # the same number of faces drawn
    assert Rolled(DiceRng(1)).narrate and not any(_narrated(ch) for ch in _branch_chances())


def _branch_chances() -> list[Chance]:
    seen: list[Chance] = []
    branches(lambda ch: seen.append(ch) or 0)
    return seen


def _narrated(ch: Chance) -> bool:
    return ch.narrate


def test_scripted_hands_out_its_values_and_complains_when_they_run_out() -> None:
    assert hit_then_damage(Scripted([6, 2, 5])) == 7
    assert hit_then_damage(Scripted([3])) == 0
    with pytest.raises(AssertionError, match="more than the script holds"):
        hit_then_damage(Scripted([5]))


def test_a_round_with_too_many_branches_is_refused() -> None:
    with pytest.raises(OddsError, match="more than 100 chance branches"):
        branches(lambda ch: sum(ch.draw(D6) for _ in range(3)), limit=100)


def test_a_round_without_draws_is_one_certain_branch() -> None:
    assert branches(lambda ch: "over") == [(1.0, "over")]


def test_a_whole_chain_built_from_the_round() -> None:
    """Hit points 5: each round a toy attack; the chance of being down within the chain matches a direct DP."""

    def round_(hp: int) -> list[tuple[float, int]]:
        return branches(lambda ch: max(0, hp - hit_then_damage(ch)))

    absorbed = absorb(5, round_, lambda hp: hp == 0, max_rounds=200, tolerance=1e-15)
    assert absorbed.terminal[0] == pytest.approx(1.0)
    # the chance it ends in the first round: damage >= 5, straight from the brute force
    first = sum(float(p) for dmg, p in brute_force().items() if dmg >= 5)
    assert absorbed.rounds[1] == pytest.approx(first)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.integers(0, 3))
def test_probabilities_sum_to_one_for_any_tree(widths: list[int], stop_on: int) -> None:
    """Draw events of the given widths one after another; stop early when an outcome equals ``stop_on``."""
    events = [Table(tuple((1 / w, i) for i in range(w)), lambda rng, w=w: rng.die(w) - 1) for w in widths]

    def play(ch: Chance) -> tuple[int, ...]:
        got: list[int] = []
        for e in events:
            got.append(ch.draw(e))
            if got[-1] == stop_on:
                break
        return tuple(got)

    out = branches(play)
    assert sum(p for p, _ in out) == pytest.approx(1.0)
    # each result's probability is the product of its draws' (independent computation)
    for p, r in out:
        assert p == pytest.approx(float(_product(widths[: len(r)])))
    assert len({r for _, r in out}) == len(out)


def _product(ws: list[int]) -> Fraction:
    out = Fraction(1)
    for w in ws:
        out /= w
    return out
