"""B.U.M. checks: the words, the odds notes and the edges of a roll, with staged d6s.

Expected values are worked out by hand (or by counting the 36 face pairs here) from the book: Part Two, Fixed
Difficulty Rolls (d6 + bonus meets or beats the DC), Opposed Rolls (the higher total wins; ties: both roll
again), Part Five, Sneak Attacks (a ranged sneak shot rolls against the GM's DC; a head shot is -4 and kills or
incapacitates) and Ranged attacking (-1 per turn beyond the first). Added for surviving mutants of checks.py
(issue 14).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from pydantic import ValidationError

from storymaster.systems.bum.checks import (
    FixedCheck,
    OpposedCheck,
    RecheckCheck,
    SneakAttackCheck,
    needed_face,
    odds_fixed,
    odds_opposed,
    p_opposed_first,
    resolve_fixed,
    resolve_opposed,
    resolve_sneak,
)
from storymaster.systems.bum.options import BumHouseRules

from .conftest import ScriptedRng


def test_parts_must_add_up_to_the_bonus_either_way() -> None:
    with pytest.raises(ValidationError, match="add up to 3, not 2"):
        FixedCheck(bonus=2, dc=5, parts=(("STR", 3),))
    with pytest.raises(ValidationError, match="add up to 1, not 2"):
        FixedCheck(bonus=2, dc=5, parts=(("STR", 1),))


def test_a_recheck_describes_both_rolls() -> None:
    assert RecheckCheck(bonus=2, dc=5, recheck_dc=4).describe() == "d6+2 vs DC 5, re-check d6+2 vs DC 4"


def test_needed_face_is_the_lowest_face_that_does_it() -> None:
    for bonus in range(-3, 10):
        for dc in range(-2, 14):
            lowest = min((f for f in range(1, 7) if f + bonus >= dc), default=7)
            assert needed_face(bonus, dc) == lowest, (bonus, dc)


def test_a_fixed_roll_says_what_would_have_done_it() -> None:
    out = resolve_fixed(FixedCheck(bonus=1, dc=5), ScriptedRng([2]))
    assert out.explanation == (
        "You rolled 2 on the d6 and added +1 for a total of 3, short of the difficulty of 5: failure."
        " (Any roll of 4 or more would have done it.)"
    )
    assert out.rolls[0].label == "roll"
    out = resolve_fixed(FixedCheck(bonus=0, dc=9), ScriptedRng([6]))  # no face reaches 9
    assert (
        out.explanation
        == "You rolled 6 on the d6 and added +0 for a total of 6, short of the difficulty of 9: failure."
    )
    assert odds_fixed(FixedCheck(bonus=1, dc=5)).note == "needs a 4 or better on the d6"
    assert odds_fixed(FixedCheck(bonus=0, dc=9)).note == "no roll of the d6 can reach it"


@pytest.mark.parametrize("bonus, vs", [(0, 0), (2, 0), (0, 3), (5, -1)])
def test_opposed_first_roll_by_counting_the_36_pairs(bonus: int, vs: int) -> None:
    pairs = [(a + bonus, b + vs) for a in range(1, 7) for b in range(1, 7)]
    win = sum(x > y for x, y in pairs)
    tie = sum(x == y for x, y in pairs)
    lose = sum(x < y for x, y in pairs)
    assert p_opposed_first(bonus, vs) == (Fraction(win, 36), Fraction(tie, 36), Fraction(lose, 36))


def test_opposed_odds_notes() -> None:
    # equal bonuses tie on 6 of 36 pairs: on average 1 / (1 - 1/6) = 6/5 rolls
    assert odds_opposed(OpposedCheck(bonus=1, vs=1)).note == (
        "ties are rolled again; the chances include the re-rolls (on average 6/5 = 1.2 rolls)"
    )
    hr = BumHouseRules(opposed_ties="defender")
    assert odds_opposed(OpposedCheck(bonus=1, vs=1, role="attacker"), hr).note == (
        "ties go to the opponent (house rule opposed_ties=defender)"
    )
    assert odds_opposed(OpposedCheck(bonus=1, vs=1, role="defender"), hr).note == (
        "ties go to the roller (house rule opposed_ties=defender)"
    )


def test_opposed_rolls_in_words() -> None:
    check = OpposedCheck(bonus=2, vs=0)
    # 3+2 = 5 against 5: a tie, rolled again (the book's way); then 4+2 = 6 against 2
    out = resolve_opposed(check, ScriptedRng([3, 5, 4, 2]))
    assert out.explanation == (
        "You rolled 3 (+2) = 5 against 5 (+0) = 5; you rolled 4 (+2) = 6 against 2 (+0) = 2."
        " 1 tie(s) were rolled again. You win: the higher total wins."
    )
    out = resolve_opposed(check, ScriptedRng([1, 6]))
    assert out.explanation == "You rolled 1 (+2) = 3 against 6 (+0) = 6. You lose: the higher total wins."
    hr = BumHouseRules(opposed_ties="defender")
    out = resolve_opposed(OpposedCheck(bonus=2, vs=0, role="defender"), ScriptedRng([3, 5]), hr)
    assert out.explanation == (
        "You rolled 3 (+2) = 5 against 5 (+0) = 5. A tie, which the house rule gives to the roller."
        " You win: the higher total wins."
    )


def test_a_sneak_shot_in_words() -> None:
    # +9, 3 turns away (-2: the first turn is free), at the head (-4): needs 6 - 3 = 3 on the d6
    head = SneakAttackCheck(bonus=9, dc=6, range_turns=3, headshot=True)
    out = resolve_sneak(head, ScriptedRng([5]))
    assert out.explanation == (
        "You rolled 5 and added +9 (-2 for range, -4 for the head) for 8 against DC 6"
        " (no DEX or shield for an unaware target): hit. A shot to the head kills or incapacitates."
    )
    assert out.details == {"incapacitates": True, "wounds": 1}
    out = resolve_sneak(head, ScriptedRng([1]))
    assert out.explanation == (
        "You rolled 1 and added +9 (-2 for range, -4 for the head) for 4 against DC 6"
        " (no DEX or shield for an unaware target): miss."
    )
    assert out.details == {"incapacitates": False, "wounds": 0}
    out = resolve_sneak(SneakAttackCheck(bonus=2, dc=6, range_turns=1), ScriptedRng([4]))
    assert out.explanation == (
        "You rolled 4 and added +2 for 6 against DC 6 (no DEX or shield for an unaware target): hit."
    )
    assert out.details == {"incapacitates": False, "wounds": 1}
