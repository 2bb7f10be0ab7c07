"""Kalyr checks in words and at their edges (issue 14, mutation survivors of systems/kalyr/checks.py).

Expected values come from the book (Kalyr RPG ch. 3: Ability Checks, Opposed Rolls, Simple Group Contests,
Fudge Points) or from counting Fudge dice by hand / by brute force over every face; the words checked are the
facts a player reads (the levels, the signs, who won and by how much), not the program's output copied.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from fractions import Fraction
from typing import Literal

import pytest
from pydantic import ValidationError

from storymaster.dice import DiceRng
from storymaster.errors import CheckError
from storymaster.rules.models import Check
from storymaster.systems.kalyr.checks import (
    AbilityRoll,
    Checked,
    CheckRoll,
    FudgeRoll,
    FudgeRolls,
    FudgeTotals,
    GroupCheck,
    OpenCheck,
    OpposedCheck,
    UnopposedCheck,
    check_odds,
    dice_text,
    group_sides,
    judge,
    outnumbering_penalties,
    relative_totals,
    resolve_check,
    retro_shift,
    roll_line,
    roll_pmf,
)
from storymaster.systems.kalyr.ladder import parse_level
from storymaster.systems.kalyr.options import KalyrHouseRules

from .conftest import ScriptedRng

L = parse_level
FACES = (-1, 0, 1)


def _counts() -> dict[int, int]:
    """Ways to roll each 4dF total, out of 81, by brute force over every face."""
    out: dict[int, int] = {}
    for dice in itertools.product(FACES, repeat=4):
        out[sum(dice)] = out.get(sum(dice), 0) + 1
    return out


COUNTS = _counts()


# ---- what a check says it is -----------------------------------------------------------------


def test_describe_names_the_levels_the_combination_and_the_modifiers():
    good = AbilityRoll(ability="Good")
    assert UnopposedCheck(actor=good, difficulty="Great").describe() == "Good against Great"
    assert OpenCheck(actor=good).describe() == "Good, open-ended"
    assert OpposedCheck(actor=good, opponent=AbilityRoll(ability="Poor")).describe() == "Good vs Poor"
    # two abilities: the better one ("or") or both needed ("and")
    assert OpenCheck(actor=AbilityRoll(ability="Good", second="Fair")).describe() == "Good or Fair, open-ended"
    both = AbilityRoll(ability="Good", second="Fair", combine="worst")
    assert OpenCheck(actor=both).describe() == "Good and Fair, open-ended"
    # a free modifier and the named ones, signed; a name first
    r = AbilityRoll(ability="Fair", modifier=-2, equipment="fine", situation=2, name="Karela")
    assert OpenCheck(actor=r).describe() == "Karela Fair -2 +1 (equipment) +2 (situation), open-ended"
    r = AbilityRoll(ability="Fair", modifier=1, similar=-1, race="very_intolerant", rank_gap=-1)
    assert OpenCheck(actor=r).describe() == "Fair +1 -1 (similar ability) -2 (other race) +1 (social rank), open-ended"
    side = (AbilityRoll(ability="Fair"), AbilityRoll(ability="Fair"))
    assert GroupCheck(side=side, opposition=side[:1]).describe() == "group contest, 2 against 1"


def test_total_modifier_and_levels_by_hand():
    # Fair +1 free, poor equipment -1, situation +2, similar -1, other race -1, two ranks up -2: 0 - 2 = -2
    r = AbilityRoll(ability="Fair", modifier=1, equipment="poor", situation=2, similar=-1, race="other", rank_gap=2)
    assert r.total_modifier == 1 - 1 + 2 - 1 - 1 - 2
    assert r.effective == L("Poor")
    # two abilities both rolled: each with the whole modifier
    assert AbilityRoll(ability="Good", second="Fair", modifier=1).levels() == (L("Great"), L("Good"))
    # best of two, one below Fair: only the better is rolled, with the modifier
    assert AbilityRoll(ability="Mediocre", second="Good", modifier=-1).levels() == (L("Fair"),)
    assert AbilityRoll(ability="Good", second="Mediocre", modifier=1).levels() == (L("Great"),)
    # both needed: always both, whatever their levels
    worst = AbilityRoll(ability="Poor", second="Terrible", combine="worst")
    assert worst.rolls_two() and worst.levels() == (L("Poor"), L("Terrible"))
    # best of two at exactly Fair and Fair: both rolled (ruling K7: "Fair or better")
    assert AbilityRoll(ability="Fair", second="Fair").rolls_two()
    assert not AbilityRoll(ability="Fair").rolls_two()
    assert AbilityRoll(ability="Good").who("You") == "You"
    assert AbilityRoll(ability="Good", name="Kylar").who("You") == "Kylar"


def test_partial_mark_must_be_below_the_difficulty():
    UnopposedCheck(actor=AbilityRoll(ability="Fair"), difficulty="Good", partial="Fair")
    with pytest.raises(ValidationError, match="partial-success mark"):
        UnopposedCheck(actor=AbilityRoll(ability="Fair"), difficulty="Good", partial="Good")
    with pytest.raises(ValidationError, match="partial-success mark"):
        UnopposedCheck(actor=AbilityRoll(ability="Fair"), difficulty="Good", partial="Great")


# ---- the dice in words --------------------------------------------------------------------------


def test_dice_text_and_roll_line_from_the_faces():
    """Ability Checks: Good with [+][+][-][ ] gives Great."""
    rng = ScriptedRng("[+][+][-][ ]")
    event = FudgeRoll("Kylar").sample(rng)
    (rec,) = event.records
    assert event.totals == (1,)
    assert rec.label == "Kylar"
    assert dice_text(rec) == "[+][+][-][ ]"
    assert roll_line("Kylar", L("Good"), rec) == "Kylar rolls [+][+][-][ ] (+1) on Good gives Great"
    assert roll_line("You", L("Good"), rec) == "You roll [+][+][-][ ] (+1) on Good gives Great"


def test_one_roll_in_words():
    out = resolve_check(OpenCheck(actor=AbilityRoll(ability="Good", name="Jorlak")), ScriptedRng("[-][-][ ][-]"))
    assert out.result == "Poor"  # Good (+1) and -3: Poor (-2)
    assert out.explanation.splitlines()[0] == "Jorlak rolls [-][-][ ][-] (-3) on Good gives Poor"
    assert out.rolls[0].label == "Jorlak"


def test_best_of_two_below_fair_says_only_the_better_is_rolled():
    r = AbilityRoll(ability="Mediocre", second="Good")
    out = resolve_check(OpenCheck(actor=r), ScriptedRng("[ ][ ][ ][+]"))
    assert out.result == "Great" and len(out.rolls) == 1
    assert "only the better ability is rolled" in out.explanation
    # both Fair or better: two rolls, no such note
    out = resolve_check(OpenCheck(actor=AbilityRoll(ability="Good")), ScriptedRng("[ ][ ][ ][ ]"))
    assert "only the better" not in out.explanation


def test_jorlak_two_rolls_the_better_counts_in_words():
    """Jorlak: [-][ ][+][-] on Good is Fair, [-][ ][+][ ] on Good is Good; the better counts."""
    r = AbilityRoll(ability="Good", second="Good", name="Jorlak")
    out = resolve_check(OpenCheck(actor=r), ScriptedRng("[-][ ][+][-]", "[-][ ][+][ ]"))
    first = out.explanation.splitlines()[0]
    assert first == (
        "Jorlak rolls [-][ ][+][-] (-1) on Good gives Fair; and [-][ ][+][ ] (+0) on Good gives Good; "
        "the better counts: Good"
    )
    assert [rec.label for rec in out.rolls] == ["Jorlak (ability 1)", "Jorlak (ability 2)"]


def test_luanu_both_needed_the_worse_counts_in_words():
    """Luanu: Good and Good, [ ][ ][+][+] gives Superb and [+][+][-][ ] gives Great; the worse (Great) counts."""
    r = AbilityRoll(ability="Good", second="Good", combine="worst")
    out = resolve_check(UnopposedCheck(actor=r, difficulty="Great"), ScriptedRng("[ ][ ][+][+]", "[+][+][-][ ]"))
    assert out.result == "Great"
    assert out.explanation.splitlines()[0].endswith("; the worse counts: Great")
    assert out.explanation.startswith("You roll ")


def test_automatic_plus_two_on_two_abilities():
    """Fudge Points: an automatic +2 instead of rolling; with two abilities it goes on the one that counts."""
    best = AbilityRoll(ability="Good", second="Fair", automatic=True)
    worst = AbilityRoll(ability="Good", second="Fair", combine="worst", automatic=True)
    assert roll_pmf(best) == {L("Good") + 2: 1}
    assert roll_pmf(worst) == {L("Fair") + 2: 1}
    out = resolve_check(OpenCheck(actor=worst), DiceRng(3))
    assert out.result == "Great" and out.rolls == ()
    assert out.explanation.splitlines()[0] == "You spend a Fudge point for an automatic +2 instead of rolling: Great"
    assert resolve_check(OpenCheck(actor=best), DiceRng(3)).result == "Superb"
    named = AbilityRoll(name="Brenna", ability="Good", automatic=True)
    line = resolve_check(OpenCheck(actor=named), DiceRng(3)).explanation.splitlines()[0]
    assert line == "Brenna spends a Fudge point for an automatic +2 instead of rolling: Superb"


# ---- the verdict in words ---------------------------------------------------------------------


def test_unopposed_verdicts_in_words():
    check = UnopposedCheck(actor=AbilityRoll(ability="Fair"), difficulty="Good", partial="Fair")
    ok = resolve_check(check, ScriptedRng("[+][ ][ ][ ]"))
    assert ok.success is True and ok.margin == 0 and ok.details["grade"] == "success"
    assert ok.explanation.splitlines()[-1] == "Good meets or beats the difficulty Good: success."
    part = resolve_check(check, ScriptedRng("[+][-][ ][ ]"))
    assert part.success is False and part.margin == -1 and part.details["grade"] == "partial success"
    assert part.explanation.splitlines()[-1] == "Fair falls short of Good but reaches Fair: partial success."
    bad = resolve_check(check, ScriptedRng("[-][ ][ ][ ]"))
    assert bad.success is False and bad.margin == -2 and bad.details["grade"] == "failure"
    assert bad.explanation.splitlines()[-1] == "Mediocre is below the difficulty Good: failure."
    assert bad.details["result"] == "Mediocre" and bad.details["difficulty"] == "Good"
    assert bad.details["results"] == [L("Mediocre")]
    # beating the difficulty by more than enough is a success too (Ability Checks: meet or beat it)
    assert judge(check, [L("Superb")])[1:3] == (True, 2)
    assert judge(check, [L("Superb")])[3]["grade"] == "success"
    # anything from the partial mark up to just below the difficulty is a partial success, not only the mark
    wide = UnopposedCheck(actor=AbilityRoll(ability="Fair"), difficulty="Superb", partial="Fair")
    assert [judge(wide, [L(x)])[3]["grade"] for x in ("Mediocre", "Fair", "Good", "Great", "Superb")] == [
        "failure",
        "partial success",
        "partial success",
        "partial success",
        "success",
    ]
    # no partial mark: a Fair roll against Good is a plain failure
    plain = UnopposedCheck(actor=AbilityRoll(ability="Fair"), difficulty="Good")
    assert judge(plain, [L("Fair")])[3]["grade"] == "failure"


def test_open_check_verdict():
    name, success, margin, details = judge(OpenCheck(actor=AbilityRoll(ability="Good")), [L("Superb")])
    assert (name, success, margin, details) == ("Superb", None, None, {"result": "Superb"})
    out = resolve_check(OpenCheck(actor=AbilityRoll(ability="Good")), ScriptedRng("[ ][ ][ ][ ]"))
    assert "No difficulty was set" in out.explanation and "Good" in out.explanation.splitlines()[-1]


def test_opposed_verdicts_in_words():
    """Opposed Rolls: the best result wins; a tie leaves it unresolved (roll again or an honourable draw);
    the optional rule: the winner narrates."""
    check = OpposedCheck(actor=AbilityRoll(ability="Fair"), opponent=AbilityRoll(ability="Fair", name="Guard"))
    win = resolve_check(check, ScriptedRng("[+][+][+][ ]", "[ ][ ][ ][ ]"))
    assert (win.result, win.success, win.margin) == ("win", True, 3)
    lines = win.explanation.splitlines()
    assert lines[1].startswith("Guard rolls [ ][ ][ ][ ]")
    assert lines[2] == "The first side has the better result and wins by 3."
    assert lines[3].startswith("The winner narrates")
    lose = resolve_check(check, ScriptedRng("[-][ ][ ][ ]", "[+][ ][ ][ ]"))
    assert (lose.result, lose.success, lose.margin) == ("lose", False, -2)
    assert lose.explanation.splitlines()[2] == "The second side has the better result and wins by 2."
    assert lose.details == {**lose.details, "result": "Mediocre", "opponent_result": "Good"}
    tie = resolve_check(check, ScriptedRng("[+][-][ ][ ]", "[ ][ ][ ][ ]"))
    assert (tie.result, tie.success, tie.margin) == ("tie", False, 0)
    assert "unresolved" in tie.explanation and "narrates" not in tie.explanation
    quiet = resolve_check(check, ScriptedRng("[+][ ][ ][ ]", "[ ][ ][ ][ ]"), KalyrHouseRules(winner_narrates=False))
    assert quiet.result == "win" and "narrates" not in quiet.explanation
    # the default opponent is named "The opponent"
    anon = OpposedCheck(actor=AbilityRoll(ability="Fair"), opponent=AbilityRoll(ability="Fair"))
    out = resolve_check(anon, ScriptedRng("[ ][ ][ ][ ]", "[ ][ ][ ][ ]"))
    assert out.explanation.splitlines()[1].startswith("The opponent rolls ")


def test_group_verdicts_and_margins_by_hand():
    """Simple Group Contests: the best average wins; each margin is the other side's average minus the roll,
    rounded down (Damage: group contests)."""
    two = (AbilityRoll(ability="Fair"), AbilityRoll(ability="Fair"))
    three = (*two, AbilityRoll(ability="Fair"))
    check = GroupCheck(side=two, opposition=three, outnumbering=False)
    # side A rolls Good and Mediocre (average 0), side B Good, Good and Fair (average 2/3)
    name, success, margin, d = judge(check, [1, -1, 1, 1, 0])
    assert (name, success, margin) == ("lose", False, None)
    assert d["side_average"] == 0 and d["opposition_average"] == Fraction(2, 3)
    assert d["side_results"] == ["Good", "Mediocre"] and d["opposition_results"] == ["Good", "Good", "Fair"]
    # side A's margins: 2/3 - 1 = -1/3 -> -1; 2/3 + 1 = 5/3 -> 1; side B's: 0 - 1 -> -1, -1, 0 - 0 -> 0
    assert d["side_margins"] == [-1, 1] and d["opposition_margins"] == [-1, -1, 0]
    assert judge(check, [1, 1, 1, 1, 0])[:2] == ("win", True)
    assert judge(check, [1, -1, 0, 0, 0])[:2] == ("tie", False)
    out = resolve_check(check, ScriptedRng(*["[ ][ ][ ][ ]"] * 2, "[+][ ][ ][ ]", "[ ][ ][ ][ ]", "[ ][ ][ ][-]"))
    assert (
        out.explanation.splitlines()[-1]
        == "Average results: side A 0.00, side B 0.00; the averages are equal: unresolved."
    )
    out = resolve_check(check, ScriptedRng("[+][ ][ ][ ]", "[ ][ ][ ][ ]", *["[ ][ ][ ][ ]"] * 3))
    assert out.explanation.splitlines()[-1] == "Average results: side A 0.50, side B 0.00; side A wins."
    out = resolve_check(check, ScriptedRng("[-][ ][ ][ ]", "[ ][ ][ ][ ]", "[+][+][ ][ ]", *["[ ][ ][ ][ ]"] * 2))
    assert out.explanation.splitlines()[-1] == "Average results: side A -0.50, side B 0.67; side B wins."
    assert [r.label for r in out.rolls] == ["side A #1", "side A #2", "side B #1", "side B #2", "side B #3"]


def test_retro_shift_in_words_and_one_shift_per_roller():
    check = OpposedCheck(actor=AbilityRoll(ability="Fair"), opponent=AbilityRoll(ability="Fair"))
    out = resolve_check(check, ScriptedRng("[ ][ ][ ][ ]", "[ ][ ][ ][ ]"))
    shifted = retro_shift(check, out, [1, -1])
    assert (shifted.result, shifted.margin) == ("win", 2)
    assert "Fudge points shift the results by +1, -1." in shifted.explanation
    assert shifted.details["results"] == [1, -1]
    with pytest.raises(CheckError, match="one shift per roller"):
        retro_shift(check, out, [1])
    with pytest.raises(CheckError, match="one shift per roller"):
        retro_shift(check, out, [1, 0, 0])
    with pytest.raises(CheckError, match="by \\+1 or -1"):
        retro_shift(check, out, [0, -2])
    assert retro_shift(check, out, [-1, 0]).result == "lose"


# ---- checks this system does not know ---------------------------------------------------------


class _Other(Check):
    kind: Literal["other"] = "other"


def test_other_checks_are_refused():
    with pytest.raises(CheckError, match="cannot give odds for a _Other"):
        check_odds(_Other())
    with pytest.raises(CheckError, match="cannot resolve a _Other"):
        resolve_check(_Other(), DiceRng(1))
    with pytest.raises(CheckError, match="cannot resolve a _Other"):
        judge(_Other(), [0])


# ---- exact odds --------------------------------------------------------------------------------


def test_unopposed_odds_by_counting_the_dice():
    """Fair against Good with a partial at Fair: success needs +1 or more (16+10+4+1 = 31 of 81), a partial
    exactly 0 (19), a failure -1 or less (31)."""
    odds = check_odds(UnopposedCheck(actor=AbilityRoll(ability="Fair"), difficulty="Good", partial="Fair"))
    assert odds.p_success == Fraction(31, 81)
    assert odds.extra["p_partial"] == Fraction(19, 81)
    assert odds.extra["p_fail"] == Fraction(50, 81)
    assert odds.success_outcomes == frozenset({"Good", "Great", "Superb", "Superb+1"})
    assert odds.probabilities["Terrible-1"] == Fraction(1, 81)
    no_partial = check_odds(UnopposedCheck(actor=AbilityRoll(ability="Fair"), difficulty="Good"))
    assert "p_partial" not in no_partial.extra
    assert no_partial.extra["p_fail"] == Fraction(50, 81)
    opened = check_odds(OpenCheck(actor=AbilityRoll(ability="Fair")))
    assert opened.success_outcomes == frozenset() and "open-ended" in (opened.note or "")
    assert opened.probabilities == {
        name: Fraction(COUNTS[t], 81)
        for t, name in zip(
            range(-4, 5),
            ["Terrible-1", "Terrible", "Poor", "Mediocre", "Fair", "Good", "Great", "Superb", "Superb+1"],
            strict=True,
        )
    }


def test_opposed_odds_name_win_tie_lose():
    odds = check_odds(OpposedCheck(actor=AbilityRoll(ability="Superb"), opponent=AbilityRoll(ability="Terrible")))
    # 6 steps apart: a loss needs a difference of dice of -7 or less: (-4,+3),(-4,+4),(-3,+4): 4+1+4 = 9 ways
    lose = Fraction(COUNTS[-4] * COUNTS[3] + COUNTS[-4] * COUNTS[4] + COUNTS[-3] * COUNTS[4], 81**2)
    tie = Fraction(COUNTS[-4] * COUNTS[2] + COUNTS[-3] * COUNTS[3] + COUNTS[-2] * COUNTS[4], 81**2)
    assert odds.probabilities == {"win": 1 - tie - lose, "tie": tie, "lose": lose}
    assert odds.success_outcomes == frozenset({"win"})
    assert odds.extra == {"p_win": 1 - tie - lose, "p_tie": tie, "p_lose": lose}


def test_group_odds_one_against_two_by_brute_force():
    """The side of one is outnumbered 2:1 (-1); the larger side is the opposition here."""
    check = GroupCheck(side=(AbilityRoll(ability="Good"),), opposition=(AbilityRoll(ability="Fair"),) * 2)
    win = tie = Fraction(0)
    for a, b, c in itertools.product(range(-4, 5), repeat=3):
        p = Fraction(COUNTS[a] * COUNTS[b] * COUNTS[c], 81**3)
        mine, theirs = 2 * (1 - 1 + a), (0 + b) + (0 + c)  # compare averages: x/1 against y/2
        win += p if mine > theirs else 0
        tie += p if mine == theirs else 0
    odds = check_odds(check)
    assert odds.extra["p_win"] == win and odds.extra["p_tie"] == tie
    # without outnumbering the lone Good keeps its level
    plain = check_odds(check.model_copy(update={"outnumbering": False}))
    assert plain.extra["p_win"] > win


def test_group_sides_penalise_the_smaller_side_in_its_place():
    hr = KalyrHouseRules()
    one, fair = AbilityRoll(ability="Good"), AbilityRoll(ability="Fair")
    side, opp = group_sides(GroupCheck(side=(one,), opposition=(fair, fair, fair)), hr)
    assert [r.effective for r in side] == [L("Good") - 2] and opp == [fair, fair, fair]
    side, opp = group_sides(GroupCheck(side=(fair, fair, fair), opposition=(one,)), hr)
    assert side == [fair, fair, fair] and [r.effective for r in opp] == [L("Good") - 2]
    capped = KalyrHouseRules(outnumbering_max_penalty=1)
    side, _ = group_sides(GroupCheck(side=(one,), opposition=(fair, fair, fair)), capped)
    assert [r.effective for r in side] == [L("Good") - 1]
    off = GroupCheck(side=(one,), opposition=(fair, fair), outnumbering=False)
    assert group_sides(off, hr) == ([one], [fair, fair])
    even = GroupCheck(side=(one, one), opposition=(fair, fair))
    assert group_sides(even, hr) == ([one, one], [fair, fair])
    # the penalty adds to the free modifier already there
    side, _ = group_sides(GroupCheck(side=(one.model_copy(update={"modifier": 1}),), opposition=(fair,) * 2), hr)
    assert side[0].modifier == 0


def test_outnumbering_edges():
    """Simple Group Contests: 2:1 is -1, 3:1 is -2; an even or larger side takes nothing; the cap of a house rule."""
    assert outnumbering_penalties([0, 0], 2) == [0, 0]
    assert outnumbering_penalties([0, 0], 1) == [0, 0]
    assert outnumbering_penalties([0, 1], 3) == [0, -1]  # the spare foe on the higher ability
    assert outnumbering_penalties([0], 4, max_penalty=2) == [-2]
    assert outnumbering_penalties([0], 4, max_penalty=0) == [0]
    assert outnumbering_penalties([0], 4) == [-3]


# ---- the dice as events of a round ---------------------------------------------------------------


def test_one_roller_event_is_the_nine_totals():
    pmf = {v.totals: p for p, v in FudgeRoll().outcomes()}
    assert pmf == {(t,): pytest.approx(n / 81, abs=1e-15) for t, n in COUNTS.items()}


def test_joint_and_relative_totals_by_brute_force():
    joint = {v.totals: p for p, v in FudgeRolls(("a", "b"), relative=False).outcomes()}
    assert len(joint) == 81
    for (x, y), p in joint.items():
        assert p == pytest.approx(COUNTS[x] * COUNTS[y] / 81**2, abs=1e-15)
    want: dict[tuple[int, ...], int] = {}
    for combo in itertools.product(range(-4, 5), repeat=3):
        key = (combo[0] - combo[2], combo[1] - combo[2], 0)
        want[key] = want.get(key, 0) + math.prod(COUNTS[t] for t in combo)
    got = {v.totals: p for p, v in FudgeRolls(("a", "b", "c")).outcomes()}
    assert len(got) == len(want) == 217
    for key, n in want.items():
        assert got[key] == pytest.approx(n / 81**3, abs=1e-15)
    assert relative_totals((2,)) == (0,)


def test_several_rollers_sample_every_die_in_order():
    rolled = FudgeRolls(("a", "b")).sample(ScriptedRng("[+][+][ ][ ]", "[-][ ][ ][ ]"))
    assert rolled.totals == (2, -1)  # the engine gets the real totals, not differences
    assert [r.label for r in rolled.records] == ["a", "b"]
    assert rolled == FudgeTotals((2, -1))  # the records ride along, not compared


def test_check_roll_event_by_counting():
    """Good against Great: 31 of 81 (a +1 or better); Fair against Terrible-2 can never fail."""
    event = CheckRoll(AbilityRoll(ability="Good"), L("Great"), "Kylar")
    got = {v.ok: p for p, v in event.outcomes()}
    assert got == {True: pytest.approx(31 / 81, abs=1e-15), False: pytest.approx(50 / 81, abs=1e-15)}
    sure = CheckRoll(AbilityRoll(ability="Fair"), -5, "Kylar")
    assert [(p, v.ok) for p, v in sure.outcomes()] == [(1.0, True)]
    never = CheckRoll(AbilityRoll(ability="Fair"), 5, "Kylar")
    assert [(p, v.ok) for p, v in never.outcomes()] == [(1.0, False)]
    hit = event.sample(ScriptedRng("[+][ ][ ][ ]"))
    assert hit.ok and hit.text.startswith("Kylar rolls [+][ ][ ][ ] (+1) on Good gives Great")
    assert len(hit.records) == 1
    miss = event.sample(ScriptedRng("[ ][ ][ ][ ]"))
    assert not miss.ok
    assert miss == Checked(False)  # the dice and the words ride along, not compared


def test_dice_values_cannot_change_once_made():
    """The outcomes of the dice events are cached and shared by every branch of the exact chain: their
    values are immutable (a round that changed one would change every later branch)."""
    totals = FudgeRoll().outcomes()[0][1]
    with pytest.raises(dataclasses.FrozenInstanceError):
        totals.totals = (9,)  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Checked(True).ok = False  # type: ignore[misc]
    assert hash(FudgeTotals((1, 2))) == hash(FudgeTotals((1, 2)))


def test_the_second_person_is_read_by_value():
    """ "You roll" / "You spend" for the player, whatever string object spells "You" (a name typed at the table or
    read from a file is not the program's own constant); anyone else "rolls" / "spends"."""
    from storymaster.systems.kalyr.checks import roll_ability

    you = "".join(["Y", "ou"])
    _, _, text = roll_ability(AbilityRoll(ability="Good"), ScriptedRng("[+][+][-][ ]"), you)
    assert text == "You roll [+][+][-][ ] (+1) on Good gives Great"
    _, _, text = roll_ability(AbilityRoll(ability="Good", automatic=True), DiceRng(0), you)
    assert text.startswith("You spend a Fudge point")


def test_a_check_roll_above_the_difficulty_succeeds():
    """Good against Great: [+][+][ ][ ] (+2) gives Superb, above Great: a success (meets or beats it)."""
    hit = CheckRoll(AbilityRoll(ability="Good"), L("Great"), "Kylar").sample(ScriptedRng("[+][+][ ][ ]"))
    assert hit.ok and hit.text.startswith("Kylar rolls [+][+][ ][ ] (+2) on Good gives Superb")
