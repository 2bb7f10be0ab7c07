"""Tests, Contests and Combined Tests: hand-worked cases, exact odds against brute force, properties."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from storymaster.dice import DiceRng
from storymaster.errors import CheckError
from storymaster.systems.blyss import SYSTEM
from storymaster.systems.blyss.checks import BlyssContest, BlyssTest, CombinedTest, Pool, pool_dice, roll_initiative
from storymaster.systems.blyss.dicepool import counts_of, judge
from storymaster.systems.blyss.options import BlyssHouseRules


# ------------------------------------------------------------- an independent reading of the rules
def brute_outcome(faces, sides, td, *, golden=False, die_mod=0, strict=False, extra=0):
    """Written separately from dicepool.judge: cancel one die at a time, as a player would at the table."""
    if all(f == 1 for f in faces):
        return "critical screw-up"
    ones = [f for f in faces if f == 1]
    screw = len(ones) + extra
    golds_hit, golds_miss, plain = [], [], []
    for f, s in zip(faces, sides, strict=True):
        if f == 1:
            continue
        meets = f + die_mod >= td
        if golden and f == s:
            (golds_hit if meets else golds_miss).append(f)
        elif meets:
            plain.append(f)
    # Screw-Ups negate Golden Rolls first (those meeting the TD first: they stay regular successes)
    while screw and golds_hit:
        golds_hit.pop()
        plain.append("regular")  # still counts as a regular success
        screw -= 1
    while screw and golds_miss:
        golds_miss.pop()
        screw -= 1
    regular = plain + golds_hit
    while screw and regular:
        regular.pop()
        screw -= 1
    successes = len(regular) + len(golds_miss)
    if screw:
        return f"screw-up x{screw}"
    if successes == 0:
        return "failure"
    crit = all((f + die_mod > td) if strict else (f + die_mod >= td) for f in faces if f != 1) and 1 not in faces
    if crit and extra == 0:
        return "critical success"
    return f"success x{successes}"


def brute_odds(sides, td, **kw):
    out: dict[str, Fraction] = {}
    total = 1
    for s in sides:
        total *= s
    for faces in itertools.product(*(range(1, s + 1) for s in sides)):
        k = brute_outcome(faces, sides, td, **kw)
        out[k] = out.get(k, Fraction(0)) + Fraction(1, total)
    return out


# ------------------------------------------------------------- worked cases
def test_the_issue_example_pool() -> None:
    odds = SYSTEM.odds(BlyssTest(dice=(12, 4, 10), td=8))
    assert odds.p_success == Fraction(17, 40)
    assert odds.probability("critical screw-up") == Fraction(1, 480)  # all three dice show 1
    assert odds.probability("critical success") == 0  # a d4 can never reach 8


@pytest.mark.parametrize(
    ("faces", "sides", "td", "golden", "expected"),
    [
        ((9, 3), (10, 8), 8, False, "critical screw-up" if False else "success x1"),
        ((9, 8), (10, 8), 8, False, "critical success"),  # every die equals or beats the TD
        ((9, 1), (10, 8), 8, False, "failure"),  # the 1 cancels the success
        ((1, 1, 9), (12, 8, 10), 8, False, "screw-up x1"),
        ((1, 1), (10, 8), 8, False, "critical screw-up"),  # straight 1s
        ((3, 2), (10, 8), 8, False, "failure"),
        (
            (4, 1, 12),
            (4, 8, 12),
            8,
            True,
            "success x2",
        ),  # the golden 12 absorbs the 1 and stays a success; the golden d4 too
        ((4, 5), (4, 8), 8, True, "success x1"),  # golden roll below the TD is an automatic success
        ((12, 1), (12, 8), 8, True, "success x1"),  # golden 12 meets TD: cancels the 1 and still counts
        ((4, 1), (4, 8), 8, True, "failure"),  # the 1 negates the golden roll
        ((4, 1, 1), (4, 8, 8), 8, True, "screw-up x1"),
    ],
)
def test_hand_worked_pools(faces, sides, td, golden, expected) -> None:
    c = counts_of(faces, sides, td, golden=golden)
    assert judge(c).key == expected
    assert brute_outcome(faces, sides, td, golden=golden) == expected


def test_flesh_wound_die_modifier_and_natural_ones() -> None:
    # a natural 8 at -1 no longer meets TD 8; a natural 1 is still a Screw-Up
    assert judge(counts_of((8,), (8,), 8, die_modifier=-1)).key == "failure"
    assert judge(counts_of((9, 1), (10, 8), 8, die_modifier=-1)).key == "failure"


def test_td_zero_a_one_is_never_a_success() -> None:
    assert judge(counts_of((1, 5), (8, 8), 0)).key == "failure"


# ------------------------------------------------------------- exact odds vs brute force
POOLS = [(4,), (8,), (12, 4), (12, 4, 10), (6, 6, 8), (10, 8, 4)]


@pytest.mark.parametrize("sides", POOLS)
@pytest.mark.parametrize("td", [2, 6, 8, 11, 14])
@pytest.mark.parametrize("golden", [False, True])
def test_odds_equal_brute_force(sides, td, golden) -> None:
    odds = SYSTEM.odds(BlyssTest(dice=sides, td=td, golden=golden, sm_allows=True))
    assert dict(odds.probabilities) == brute_odds(sides, td, golden=golden)


@pytest.mark.parametrize("sides", [(10, 8), (12, 4, 6)])
def test_odds_brute_force_with_die_modifier_strict_and_carried_screw_ups(sides) -> None:
    hr = BlyssHouseRules(critical_needs_strict_beat=True)
    odds = SYSTEM.odds(BlyssTest(dice=sides, td=6, die_modifier=-1, extra_screw_ups=1, sm_allows=True), hr)
    assert dict(odds.probabilities) == brute_odds(sides, 6, die_mod=-1, strict=True, extra=1)


def test_rank_pool_with_penalty_and_negative_trait() -> None:
    # Dexterity 6 + Lock Picking 4, Clumsy 2 and Light Wounds 1: 3 ranks off, highest first -> 3 + 4
    t = BlyssTest(ranks=(6, 4), negative_ranks=2, penalty_ranks=1, td=8)
    assert pool_dice(t) == (8, 10)
    assert dict(SYSTEM.odds(t).probabilities) == brute_odds((8, 10), 8)


def test_minimum_die_pool_enforced() -> None:
    with pytest.raises(CheckError, match="Minimum Die Pool"):
        SYSTEM.odds(BlyssTest(dice=(4,), td=8))
    SYSTEM.odds(BlyssTest(dice=(4,), td=8, sm_allows=True))
    SYSTEM.odds(BlyssTest(dice=(4,), td=8), BlyssHouseRules(minimum_pool="off"))
    # combined (default): d4 + d4 is rank 2, enough for TD 8; best single statistic is not
    SYSTEM.odds(BlyssTest(ranks=(1, 1), td=8))
    with pytest.raises(CheckError):
        SYSTEM.odds(BlyssTest(ranks=(1, 1), td=8), BlyssHouseRules(minimum_pool="best_statistic"))


def test_penalties_need_ranks() -> None:
    with pytest.raises(CheckError):
        SYSTEM.odds(BlyssTest(dice=(8,), penalty_ranks=1, td=4))


@given(
    st.lists(st.sampled_from([4, 6, 8, 10, 12]), min_size=1, max_size=4),
    st.integers(0, 14),
    st.booleans(),
    st.integers(0, 10_000),
)
@settings(max_examples=60)
def test_resolved_outcome_is_possible(sides, td, golden, seed) -> None:
    check = BlyssTest(dice=tuple(sides), td=td, golden=golden, sm_allows=True)
    odds = SYSTEM.odds(check)
    out = SYSTEM.resolve(check, DiceRng(seed))
    assert odds.probability(out.details["outcome"]) > 0
    assert out.success == (out.details["outcome"] in odds.success_outcomes)
    assert out.rolls and out.rolls[0].faces and len(out.rolls[0].faces) == len(sides)
    assert "TD" in out.explanation


def test_resolve_frequencies_follow_the_odds() -> None:
    check = BlyssTest(dice=(10, 8), td=6)
    odds = SYSTEM.odds(check)
    rng = DiceRng("freq")
    n = 3000
    hits = sum(SYSTEM.resolve(check, rng).success for _ in range(n))
    p = float(odds.p_success)
    assert abs(hits / n - p) < 4 * (p * (1 - p) / n) ** 0.5


# ------------------------------------------------------------- contests
def brute_contest(da, td_a, db, td_b):
    win = [Fraction(0), Fraction(0)]
    draw = Fraction(0)
    pa = brute_odds(da, td_a)
    pb = brute_odds(db, td_b)

    def rank(k):
        if k == "critical success":
            return len(da) if k is not None else 0
        return int(k.split("x")[1]) if k.startswith("success") else 0

    for ka, qa in pa.items():
        for kb, qb in pb.items():
            sa = len(da) if ka == "critical success" else rank(ka)
            sb = len(db) if kb == "critical success" else rank(kb)
            if sa == sb:
                draw += qa * qb
            elif sa > sb:
                win[0] += qa * qb
            else:
                win[1] += qa * qb
    return win, draw


def test_contest_odds_brute_force() -> None:
    # Strength 4 (d10) vs Strength 6 (d12+d4): each rolls against the other's rank
    check = BlyssContest(a=Pool(name="A", ranks=(4,)), b=Pool(name="B", ranks=(6,)))
    odds = SYSTEM.odds(check)
    (wa, wb), draw = brute_contest((10,), 6, (12, 4), 4)
    assert odds.probability("A wins") == wa
    assert odds.probability("B wins") == wb
    assert odds.probability("draw") == draw
    no_draw = SYSTEM.odds(check.model_copy(update={"draw_allowed": False}))
    assert no_draw.probability("A wins") == wa / (1 - draw)
    assert no_draw.probability("draw") == 0


def test_contest_resolution_and_no_contest_house_rule(rng) -> None:
    check = BlyssContest(a=Pool(name="Boxer", ranks=(4,)), b=Pool(name="Novice", ranks=(1,)), draw_allowed=False)
    out = SYSTEM.resolve(check, rng)
    assert out.result in ("Boxer wins", "Novice wins")
    assert out.details["td_a"] == 1 and out.details["td_b"] == 4
    hr = BlyssHouseRules(no_contest_rank_gap=3)
    assert SYSTEM.resolve(check, rng, hr).result == "Boxer wins"
    assert SYSTEM.odds(check, hr).probability("Boxer wins") == 1


# ------------------------------------------------------------- combined tests
def brute_combined(assisted_ranks, helper_pools, td):
    from storymaster.systems.blyss.scale import apply_rank_bonus, pool_for_ranks

    out: dict[str, Fraction] = {}
    helper_dists = [brute_odds(h, td) for h in helper_pools]
    for combo in itertools.product(*(d.items() for d in helper_dists)):
        p = Fraction(1)
        succ = screw = 0
        crit = False
        for (k, q), h in zip(combo, helper_pools, strict=True):
            p *= q
            if k == "critical screw-up":
                crit = True
            elif k.startswith("screw-up"):
                screw += int(k.split("x")[1])
            elif k == "critical success":
                succ += len(h)
            elif k.startswith("success"):
                succ += int(k.split("x")[1])
        if crit:
            out["critical screw-up"] = out.get("critical screw-up", Fraction(0)) + p
            continue
        dice = pool_for_ranks(apply_rank_bonus(assisted_ranks, succ))
        for k, q in brute_odds(dice, td, extra=screw).items():
            out[k] = out.get(k, Fraction(0)) + p * q
    return out


def test_combined_test_odds_brute_force() -> None:
    check = CombinedTest(assisted=Pool(ranks=(3, 2)), helpers=(Pool(ranks=(4,)), Pool(ranks=(2,))), td=8)
    odds = SYSTEM.odds(check)
    assert dict(odds.probabilities) == brute_combined((3, 2), [(10,), (6,)], 8)


def test_combined_test_resolves_and_explains(rng) -> None:
    check = CombinedTest(assisted=Pool(name="Ralan", ranks=(3, 3)), helpers=(Pool(name="Yama", ranks=(5,)),), td=6)
    odds = SYSTEM.odds(check)
    for _ in range(30):
        out = SYSTEM.resolve(check, rng)
        assert odds.probability(out.details.get("outcome", out.result)) > 0
        assert "Yama" in out.explanation


def test_initiative_orders_by_successes_then_value_then_rank() -> None:
    entries = [("slow", Pool(ranks=(1,))), ("fast", Pool(ranks=(10,)))]
    wins = 0
    rng = DiceRng("init")
    for _ in range(50):
        order, _ = roll_initiative(entries, rng)
        wins += order[0].name == "fast"
        assert [r.name for r in order] in (["fast", "slow"], ["slow", "fast"])
        a, b = order
        assert (a.successes, a.value, a.rank) >= (b.successes, b.value, b.rank)
    assert wins > 35


def test_combined_contest_odds_and_resolution(rng) -> None:
    from storymaster.systems.blyss.checks import CombinedContest

    check = CombinedContest(
        a=Pool(name="Reds", ranks=(3,)), a_helpers=(Pool(ranks=(2,)),), b=Pool(name="Blues", ranks=(4,))
    )
    odds = SYSTEM.odds(check)
    # brute force: Reds roll against Blues' rank 4 with one helper (d6); Blues roll a d10 alone against Reds' rank 3
    from storymaster.systems.blyss.scale import pool_for_rank

    win = lose = draw = Fraction(0)
    for h in range(1, 7):
        ph = Fraction(1, 6)
        hk = brute_outcome((h,), (6,), 4)
        if hk == "critical screw-up":
            reds = {(False, 0): Fraction(1)}
        else:
            help_ = 1 if hk in ("critical success", "success x1") else 0
            carried = 1 if hk == "screw-up x1" else 0
            dice = pool_for_rank(3 + help_)
            reds = {}
            for faces in itertools.product(*(range(1, s + 1) for s in dice)):
                k = brute_outcome(faces, dice, 4, extra=carried)
                n = len(dice) if k == "critical success" else int(k.split("x")[1]) if k.startswith("success") else 0
                reds[(n > 0, n)] = reds.get((n > 0, n), Fraction(0)) + Fraction(1, dice[0])
        for (_ra, na), pa in reds.items():
            for b in range(1, 11):
                kb = brute_outcome((b,), (10,), 3)
                nb = 1 if kb in ("critical success", "success x1") else 0
                p = ph * pa * Fraction(1, 10)
                if na == nb:
                    draw += p
                elif na > nb:
                    win += p
                else:
                    lose += p
    assert odds.probability("Reds wins") == win
    assert odds.probability("Blues wins") == lose
    assert odds.probability("draw") == draw
    for _ in range(20):
        out = SYSTEM.resolve(check, rng)
        assert out.result in ("Reds wins", "Blues wins", "draw")


def test_initiative_roll_off_is_recorded() -> None:
    entries = [("a", Pool(ranks=(1,))), ("b", Pool(ranks=(1,)))]  # a d4 never meets TD 6: always tied
    order, text = roll_initiative(entries, DiceRng("tie"))
    assert "rolled off" in text
    assert all(r.rolloff is not None and r.rolloff.label.endswith("roll-off") for r in order)
    assert order[0].rolloff.total >= order[1].rolloff.total
    assert all([d.sides for d in r.rolloff.dice] == [100] for r in order)  # ruling 7: the roll-off is a d100
    order2, _ = roll_initiative(entries, DiceRng("tie"), BlyssHouseRules(initiative_final_tie="sm_order"))
    assert [r.name for r in order2] == ["a", "b"]


def test_literal_reading_of_a_one_tells_the_readings_apart() -> None:
    """Ruling 3 vs the literal text at TD 1. Pool d4 + d6 rolled (1, 5):
    ruling 3 (default): the 1 is no success and cancels the 5: a normal failure (no extra 1s).
    literal_ones: the 1 meets TD 1 (a success) and cancels one success: one success is left, and since every die
    met the TD ('If all dice beat the TD'), literally a critical success."""
    from storymaster.systems.blyss.dicepool import counts_of, judge

    default = judge(counts_of((1, 5), (4, 6), 1))
    literal = judge(counts_of((1, 5), (4, 6), 1, literal_ones=True))
    assert (default.kind, default.successes) == ("failure", 0)
    assert (literal.kind, literal.successes) == ("critical success", 1)
    # a single d4 at TD 1: ruling 3 succeeds 3/4 (2, 3, 4); literally the 1 succeeds and cancels itself: 3/4 too,
    # but a 1 is then a failure rather than a screw-up; straight 1s stay a critical screw-up either way
    odds = SYSTEM.odds(BlyssTest(dice=(4,), td=1, sm_allows=True), BlyssHouseRules(literal_ones=True))
    assert odds.probability("critical screw-up") == Fraction(1, 4)
    two = SYSTEM.odds(BlyssTest(dice=(4, 6), td=1, sm_allows=True), BlyssHouseRules(literal_ones=True))
    brute = Fraction(0)
    for a in range(1, 5):
        for b in range(1, 7):
            hits = 2  # every face meets TD 1 under the literal reading
            ones = (a == 1) + (b == 1)
            if not (a == 1 and b == 1) and hits - ones > 0:
                brute += Fraction(1, 24)
    assert sum(p for k, p in two.probabilities.items() if k.startswith(("success", "critical success"))) == brute


def test_the_success_rule_and_its_array_twin_agree_everywhere() -> None:
    """One statement of 'a die succeeds' (dicepool.die_succeeds); the forecast's numpy twin agrees on every face,
    TD and die modifier of a small domain, and the book's edges hold: equal succeeds, a 1 never (ruling 3)."""
    import numpy as np

    from storymaster.systems.blyss.dicepool import die_succeeds, die_succeeds_v

    faces = np.arange(1, 13)
    for td in range(15):
        for dm in range(-2, 3):
            got = die_succeeds_v(faces, td, dm).tolist()
            assert got == [die_succeeds(f, td, dm) for f in range(1, 13)], (td, dm)
    assert die_succeeds(8, 8) and not die_succeeds(7, 8) and not die_succeeds(1, 0)
    assert die_succeeds(1, 1, literal_ones=True) and not die_succeeds(1, 2, literal_ones=True)
    assert not die_succeeds(8, 8, -1)  # Flesh Wounds' -1 per die


class _Dealt(DiceRng):
    """Deals the given faces in order (each checked against the die it lands on)."""

    def __init__(self, *faces: int) -> None:
        super().__init__(0)
        self._faces = list(faces)

    def die(self, sides: int) -> int:
        face = self._faces.pop(0)
        assert 1 <= face <= sides
        return face


def test_initiative_ties_go_by_the_value_of_the_succeeding_dice_then_rank() -> None:
    """Ruling 7: equal net successes are broken by the total value of the dice that met TD 6, then by
    Initiative rank, before any roll-off (listing order here, ``sm_order``, so a wrong tie-break shows)."""
    hr = BlyssHouseRules(initiative_final_tie="sm_order")
    assert pool_dice(Pool(ranks=(4,)), hr) == (10,) and pool_dice(Pool(ranks=(3,)), hr) == (8,)

    def order(entries, *faces):
        return [r.name for r in roll_initiative(entries, _Dealt(*faces), hr)[0]]

    one = Pool(ranks=(4,))
    # one success each; b's die shows 8, a's 6: b goes first although listed second
    assert order([("a", one), ("b", one)], 6, 8) == ["b", "a"]
    # a: 7 and 5 (only the 7 meets TD 6: value 7, not 12); b: 8 -> b first
    assert order([("a", Pool(ranks=(4, 4))), ("b", one)], 7, 5, 8) == ["b", "a"]
    # equal successes and value (7 each): the higher Initiative rank (4 against 3) goes first
    assert order([("a", Pool(ranks=(3,))), ("b", one)], 7, 7) == ["b", "a"]
    # a full tie stays in listing order under sm_order
    assert order([("a", one), ("b", one)], 7, 7) == ["a", "b"]


def test_contest_winner_whoever_succeeds_then_most_successes() -> None:
    """Character Contests: whoever succeeds wins; both succeeding, the most successes; else a draw."""
    from storymaster.systems.blyss.checks import contest_winner
    from storymaster.systems.blyss.dicepool import Judgement

    def j(kind: str, successes: int) -> Judgement:
        return Judgement(kind, successes, 0, 0, 0)

    assert contest_winner(j("success", 1), j("failure", 0)) == 0
    assert contest_winner(j("failure", 0), j("success", 1)) == 1
    assert contest_winner(j("success", 3), j("success", 2)) == 0
    assert contest_winner(j("success", 2), j("critical success", 3)) == 1
    assert contest_winner(j("success", 2), j("success", 2)) is None
    assert contest_winner(j("failure", 0), j("screw-up", 0)) is None


def test_contest_tds_total_or_highest_rank() -> None:
    """Each side rolls against the other's rank: the pool's total ranks (default) or its highest (house rule)."""
    from storymaster.systems.blyss.checks import contest_tds

    check = BlyssContest(a=Pool(name="A", ranks=(4, 2)), b=Pool(name="B", ranks=(3, 1)))
    assert contest_tds(check, BlyssHouseRules()) == (4, 6)
    assert contest_tds(check, BlyssHouseRules(contest_td="highest_rank")) == (3, 4)


def test_contest_odds_name_win_and_loss_apart() -> None:
    check = BlyssContest(a=Pool(name="A", ranks=(4,)), b=Pool(name="B", ranks=(6,)))
    (wa, wb), draw = brute_contest((10,), 6, (12, 4), 4)
    assert SYSTEM.odds(check).extra == {"p_win": wa, "p_draw": draw, "p_lose": wb}


@pytest.mark.parametrize("td", [3, 6])
def test_success_sentence_counts_from_the_faces(td: int) -> None:
    """Character Tests: each die meeting the TD is a success, each 1 cancels one (Screw-Ups); every die meeting
    it is a critical success. The last sentence, worked out here from the faces rolled, singular for one."""
    check = BlyssTest(name="Climb", ranks=(6, 2), td=td)
    seen = set()
    for seed in range(120):
        out = SYSTEM.resolve(check, DiceRng(seed))
        faces = out.rolls[0].faces
        met, ones = sum(f >= td for f in faces), sum(f == 1 for f in faces)
        n = met - ones
        if met == len(faces):
            end = f"Every die met the TD: a critical success with {n} success{'' if n == 1 else 'es'}."
        elif n > 0:
            end = f"Success with {n} success{'' if n == 1 else 'es'}" + (
                f" after {ones} cancelled by 1s." if ones else "."
            )
        else:
            continue
        assert out.explanation.endswith(end), (seed, out.explanation)
        assert f"{met} {'die meets' if met == 1 else 'dice meet'} the TD; {ones} rolled a 1." in out.explanation
        seen.add((met == len(faces), n))
    assert {(False, 1), (False, 2)} <= seen and (td > 4 or (True, 3) in seen)  # a d4 meets TD 3 only


def test_initiative_successes_and_value_from_the_faces() -> None:
    """Initiative (ruling 7): net successes against TD 6 (each 1 cancels one), then the value of the dice that
    succeeded; both worked out here from each fighter's faces, and the words name them."""
    entries = [("Ann", Pool(ranks=(6, 2))), ("Bo", Pool(ranks=(4,)))]
    for seed in range(40):
        ordered, text = roll_initiative(entries, DiceRng(seed))
        for r in ordered:
            faces = r.record.faces
            met = [f for f in faces if f >= 6]
            n = max(0, len(met) - sum(f == 1 for f in faces))
            assert r.successes == n, (seed, r)
            assert f"{r.name}: {n} success{'' if n == 1 else 'es'} (value {r.value}," in text


def test_pool_text_with_a_rank_0_statistic() -> None:
    """Table 2-01: 'd0' is a statistic at rank 0 (Non-existant); d10 is rank 4."""
    from storymaster.systems.blyss.checks import pool_from_text

    assert pool_from_text("d0, d10").ranks == (0, 4)
    assert pool_from_text("d10,d0").ranks == (4, 0)


def test_no_contest_either_way_round() -> None:
    """House rule no_contest_rank_gap: a side ranked that far above the other wins without a roll, A or B."""
    hr = BlyssHouseRules(no_contest_rank_gap=3)
    check = BlyssContest(a=Pool(name="Novice", ranks=(1,)), b=Pool(name="Boxer", ranks=(4,)))
    assert SYSTEM.resolve(check, DiceRng(0), hr).result == "Boxer wins"
    assert SYSTEM.odds(check, hr).probability("Boxer wins") == 1
    close = BlyssContest(a=Pool(name="Novice", ranks=(2,)), b=Pool(name="Boxer", ranks=(4,)))
    assert SYSTEM.odds(close, hr).probability("Novice wins") > 0


def test_combined_test_description_names_the_assisted_character() -> None:
    helpers = (Pool(ranks=(2,)),)
    assert CombinedTest(assisted=Pool(ranks=(3,)), helpers=helpers, td=6).describe() == (
        "Combined Test for the assisted character vs TD 6"
    )
    assert CombinedTest(assisted=Pool(name="Yama", ranks=(3,)), helpers=helpers, td=6).describe() == (
        "Combined Test for Yama vs TD 6"
    )


def test_contest_outcome_success_is_side_a_winning() -> None:
    """The Outcome's success is True when A (the first side) wins, False when B does, None for a draw; with the
    no-contest house rule the stronger side's free win is reported the same way."""
    check = BlyssContest(a=Pool(name="A", ranks=(3,)), b=Pool(name="B", ranks=(3,)))
    seen = set()
    for seed in range(60):
        out = SYSTEM.resolve(check, DiceRng(seed))
        expected = {"A wins": True, "B wins": False, "draw": None}[out.result]
        assert out.success is expected, (seed, out.result, out.success)
        seen.add(out.result)
    assert seen == {"A wins", "B wins", "draw"}
    hr = BlyssHouseRules(no_contest_rank_gap=3)
    strong_a = BlyssContest(a=Pool(name="A", ranks=(5,)), b=Pool(name="B", ranks=(1,)))
    assert SYSTEM.resolve(strong_a, DiceRng(0), hr).success is True
    strong_b = BlyssContest(a=Pool(name="A", ranks=(1,)), b=Pool(name="B", ranks=(5,)))
    assert SYSTEM.resolve(strong_b, DiceRng(0), hr).success is False


def test_a_one_sided_die_is_no_die() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="dice have 2 to 100 sides"):
        Pool(dice=(1,))
    assert Pool(dice=(2, 4)).dice == (2, 4)


def test_initiative_roll_off_orders_by_the_d100() -> None:
    """Ruling 7: a last tie is rolled off, a d100 each, highest first (house rule initiative_final_tie)."""
    hr = BlyssHouseRules(initiative_final_tie="roll_off")
    entries = [("Ann", Pool(ranks=(0,))), ("Bo", Pool(ranks=(0,))), ("Cy", Pool(ranks=(0,)))]
    for seed in range(10):
        ordered, text = roll_initiative(entries, DiceRng(seed), hr)
        d100 = [r.rolloff.total for r in ordered]
        if len(set(d100)) == 3:
            assert d100 == sorted(d100, reverse=True), (seed, d100)
        assert "tie between Ann, Bo, Cy: rolled off" in text


def test_a_combined_test_in_words_and_the_void_effort() -> None:
    """Combined Tests: helpers roll first (named 'helper 1' ... when nameless), their successes become ranks; a
    helper's critical Screw-Up (every die a 1: a d4 shows 1 a quarter of the time) voids the whole effort."""
    check = CombinedTest(assisted=Pool(ranks=(3,)), helpers=(Pool(ranks=(1,)),), td=6)
    kinds = set()
    for seed in range(80):
        out = SYSTEM.resolve(check, DiceRng(seed))
        assert out.explanation.startswith("helper 1: rolled d4=")
        voided = out.result == "critical screw-up" and out.details["voided"]
        if voided:
            assert (out.success, out.margin, len(out.rolls)) == (False, 0, 1)
            assert "the whole effort is void" in out.explanation
        else:
            assert out.details["voided"] is False and len(out.rolls) == 2
        kinds.add(voided)
    assert kinds == {True, False}


def test_combined_contest_draws_rolled_again_and_outcomes() -> None:
    """Combined Contests: with draws not allowed they are rolled again, so each team's chance is its chance with
    draws divided by 1 - P(draw); a resolved contest's success is team A winning, its margin A's successes less B's."""
    from storymaster.systems.blyss.checks import CombinedContest

    check = CombinedContest(a=Pool(name="A", ranks=(3,)), a_helpers=(Pool(ranks=(2,)),), b=Pool(name="B", ranks=(4,)))
    with_draws = SYSTEM.odds(check)
    draw = with_draws.probability("draw")
    assert 0 < draw < 1
    again = SYSTEM.odds(check.model_copy(update={"draw_allowed": False}))
    assert again.probability("draw") == 0
    assert again.probability("A wins") == with_draws.probability("A wins") / (1 - draw)
    assert again.probability("B wins") == with_draws.probability("B wins") / (1 - draw)
    for seed in range(40):
        out = SYSTEM.resolve(check, DiceRng(seed))
        assert out.success is {"A wins": True, "B wins": False, "draw": None}[out.result]


# ------------------------------------------------------------- from the mutation survivors (issue 14)
def test_an_empty_pool_and_the_minimum_die_pool_by_the_best_statistic() -> None:
    """Table 2-02: TD 0 asks a Minimum Die Pool of d0, TD 2 of d4 (rank 1). A pool of no statistics at all has
    rank 0 under the 'best_statistic' house rule too: it may attempt TD 0 (and fails: no dice), not TD 2."""
    hr = BlyssHouseRules(minimum_pool="best_statistic")
    odds = SYSTEM.odds(BlyssTest(td=0), hr)
    assert odds.p_success == 0 and odds.probability("failure") == 1
    with pytest.raises(CheckError, match="Minimum Die Pool of rank 1"):
        SYSTEM.odds(BlyssTest(td=2), hr)


@pytest.mark.parametrize(
    ("sides", "face", "golden_line"),
    [
        ((12,), 12, "Golden Rolls: 1 (of which 0 below the TD count as automatic successes)."),  # 12 meets TD 8
        ((4,), 4, "Golden Rolls: 1 (of which 1 below the TD count as automatic successes)."),  # 4 does not
    ],
)
def test_golden_rolls_in_words_whether_or_not_they_meet_the_td(sides, face, golden_line) -> None:
    """Golden Rolls: a die showing its highest face is an automatic success whether or not it meets the TD; the
    words count them and name those below the TD, for a golden die that meets it as for one that does not."""
    out = SYSTEM.resolve(BlyssTest(dice=sides, td=8, golden=True, sm_allows=True), _Dealt(face))
    assert golden_line in out.explanation
    assert out.success and out.details["successes"] == 1
    plain = SYSTEM.resolve(BlyssTest(dice=sides, td=8, golden=False, sm_allows=True), _Dealt(face))
    assert "Golden Rolls" not in plain.explanation


def test_odds_extras_of_a_pool_that_cannot_succeed_critically() -> None:
    """d12 + d4 + d10 at TD 8: a d4 never meets 8, so no critical success (0, not a missing value); straight 1s
    (1/480) are the only critical Screw-Up; the Screw-Ups' chance is the brute force's."""
    odds = SYSTEM.odds(BlyssTest(dice=(12, 4, 10), td=8))
    brute = brute_odds((12, 4, 10), 8)
    assert odds.extra["p_critical_success"] == 0
    assert odds.extra["p_critical_screw_up"] == Fraction(1, 480)
    assert odds.extra["p_screw_up"] == sum(p for k, p in brute.items() if "screw-up" in k)


def test_a_helpers_critical_screw_up_carries_no_screw_ups_of_its_own() -> None:
    """Combined Tests: a helper's critical Screw-Up voids the effort; only the uncancelled Screw-Ups of helpers
    who screwed up (not critically) carry over. A lone d4 helper showing 1 carries none."""
    check = CombinedTest(assisted=Pool(ranks=(3,)), helpers=(Pool(ranks=(1,)),), td=6)
    out = SYSTEM.resolve(check, _Dealt(1))
    assert out.details == {"helper_successes": 0, "carried_screw_ups": 0, "voided": True}
    # a helper's d6 showing 1 (a Screw-Up of degree 1, not critical: the d4 shows 2) carries one
    two = CombinedTest(assisted=Pool(ranks=(3,)), helpers=(Pool(ranks=(1, 2)),), td=6)
    out = SYSTEM.resolve(two, _Dealt(2, 1, 7))  # helper d4=2, d6=1; the assisted d8 shows 7
    assert out.details["carried_screw_ups"] == 1 and out.details["voided"] is False


def test_combined_odds_without_house_rules_given() -> None:
    """combined_odds called with no house rules reads the book's defaults (as SYSTEM.odds does)."""
    from storymaster.systems.blyss.checks import combined_odds

    check = CombinedTest(assisted=Pool(ranks=(3, 2)), helpers=(Pool(ranks=(4,)), Pool(ranks=(2,))), td=8)
    assert dict(combined_odds(check).probabilities) == brute_combined((3, 2), [(10,), (6,)], 8)


def test_team_distribution_groups_by_result() -> None:
    """A Combined Test's distribution has each result once, not one entry per way it came about: the voided
    effort and the assisted character's own straight 1s are the one result 'critical screw-up'."""
    from storymaster.systems.blyss.checks import team_distribution

    dist = team_distribution(Pool(ranks=(3,)), [Pool(ranks=(1,))], 6, BlyssHouseRules(), False)
    assert all((j.cancelled, j.golden_used) == (0, 0) for j in dist)
    crit = [p for j, p in dist.items() if j.kind == "critical screw-up"]
    # the d4 helper never meets TD 6 (no help): it shows 1 (1/4, the effort is void), else the assisted d8 shows 1
    assert crit == [Fraction(1, 4) + Fraction(3, 4) * Fraction(1, 8)]
    assert sum(dist.values()) == 1


def test_combined_contest_in_rolls_and_margin_from_the_faces() -> None:
    """Combined Contests without helpers: A (rank 6: d12 + d4) rolls against B's rank 4, B (d10) against A's 6.
    A's 12 and 4 both meet 4 (two successes), B's 7 meets 6 (one): A wins by 2 - 1 = 1; both rolls are kept."""
    from storymaster.systems.blyss.checks import CombinedContest

    check = CombinedContest(a=Pool(name="A", ranks=(6,)), b=Pool(name="B", ranks=(4,)))
    out = SYSTEM.resolve(check, _Dealt(12, 4, 7))
    assert (out.result, out.success, out.margin) == ("A wins", True, 1)
    assert [r.faces for r in out.rolls] == [(12, 4), (7,)]


def test_a_combined_contest_nobody_can_win_without_draws_is_refused() -> None:
    """Two d0 teams always fail, so they always draw; with draws rolled again the odds would never end."""
    from storymaster.systems.blyss.checks import CombinedContest

    check = CombinedContest(a=Pool(ranks=(0,)), b=Pool(ranks=(0,)), draw_allowed=False)
    with pytest.raises(CheckError, match="neither team can ever win"):
        SYSTEM.odds(check)


def test_a_pool_rolled_with_no_die_modifier() -> None:
    """roll_against with no die modifier (the knockout, dying and stay-awake checks call it so): a natural 8 meets
    TD 8 (Character Tests: 'equal or beat')."""
    from storymaster.systems.blyss.checks import roll_against

    rp = roll_against((8,), 8, _Dealt(8), BlyssHouseRules())
    assert rp is not None and rp.judgement.kind == "critical success" and rp.judgement.successes == 1


def test_judgement_distribution_groups_by_result() -> None:
    """The exact distribution of a pool has each result once (kind, successes, Screw-Ups), not one entry per way
    it came about (which dice cancelled, which Golden Rolls were used)."""
    from storymaster.systems.blyss.checks import judgement_distribution

    dist = judgement_distribution((12, 4, 10), 8, BlyssHouseRules(), golden=True)
    assert all((j.cancelled, j.golden_used) == (0, 0) for j in dist)
    assert len({j.key for j in dist}) == len(dist)
    assert {j.key: p for j, p in dist.items()} == brute_odds((12, 4, 10), 8, golden=True)


def test_contest_td_of_a_pool_with_no_statistics_is_rank_0() -> None:
    """Character Contests: each side's TD is the other's rank; a pool of no statistics has rank 0 (d0), read by
    the total or the highest rank alike."""
    from storymaster.systems.blyss.checks import contest_tds

    check = BlyssContest(a=Pool(name="A"), b=Pool(name="B", ranks=(3,)))
    assert contest_tds(check, BlyssHouseRules(contest_td="highest_rank")) == (3, 0)
    assert contest_tds(check, BlyssHouseRules()) == (3, 0)


def test_resolve_contest_without_house_rules_given() -> None:
    """resolve_contest called with no house rules reads the book's defaults: A (d10, rank 4) rolls against B's rank
    6, B (d12 + d4) against A's 4; A's 5 fails, B's 12 and 3 give one success: B wins."""
    from storymaster.systems.blyss.checks import resolve_contest

    check = BlyssContest(a=Pool(name="A", ranks=(4,)), b=Pool(name="B", ranks=(6,)))
    out = resolve_contest(check, _Dealt(5, 12, 3))
    assert (out.result, out.details["td_a"], out.details["td_b"]) == ("B wins", 6, 4)


def test_a_voided_team_effort_reads_as_nothing_but_the_critical_screw_up() -> None:
    """Combined Contests: a helper's critical Screw-Up voids the team's effort: a critical Screw-Up with no
    successes, Screw-Ups, cancelled dice or Golden Rolls of its own."""
    from storymaster.systems.blyss.checks import _team_roll
    from storymaster.systems.blyss.dicepool import Judgement

    j, recs, lines = _team_roll(Pool(ranks=(3,)), [Pool(ranks=(1,))], 4, _Dealt(1), BlyssHouseRules(), True, "Reds")
    assert j == Judgement("critical screw-up", 0, 0, 0, 0)
    assert len(recs) == 1 and lines[-1] == "Reds: a helper's critical Screw-Up voids the effort."


def test_a_pool_written_wrong_is_refused_in_words() -> None:
    from storymaster.systems.blyss.checks import pool_from_text

    with pytest.raises(CheckError, match=r"the pool 'd12\+x'"):
        pool_from_text("d12+x")


def test_an_empty_pool_judges_as_a_plain_failure() -> None:
    from storymaster.systems.blyss.checks import judgement_distribution
    from storymaster.systems.blyss.dicepool import Judgement

    assert judgement_distribution((), 6, BlyssHouseRules()) == {Judgement("failure", 0, 0, 0, 0): 1}


@pytest.mark.parametrize(
    ("faces", "why", "count"),
    [
        ((9, 1), "the 1s cancelled the successes", "1 die meets the TD; 1 rolled a 1."),  # 9 >= 8; one 1
        ((3, 2), "no die met the TD", "0 dice meet the TD; 0 rolled a 1."),  # none >= 8: zero takes the plural
    ],
)
def test_a_plain_failure_says_why(faces, why, count) -> None:
    """Screw-Ups: 'If all successes are negated by Screw-Ups, and there are no additional 1s, the Test is treated
    as if it were a normal failure'; or no die met the TD at all. d10 + d8 against TD 8. The count sentence says
    "die meets" for one die only ("0 dice meet")."""
    out = SYSTEM.resolve(BlyssTest(dice=(10, 8), td=8), _Dealt(*faces))
    assert out.result == "failure"
    assert out.explanation.endswith(f"No successes remain ({why}): a plain failure.")
    assert count in out.explanation


def test_odds_note_the_expected_successes() -> None:
    """A d8 at TD 8: one success on an 8 (1/8), none otherwise: 1/8 expected. d12 + d4 at TD 4, by brute force."""
    assert SYSTEM.odds(BlyssTest(dice=(8,), td=8)).note.endswith("expected successes 0.125 (exactly 1/8)")
    brute = Fraction(0)
    for a in range(1, 13):
        for b in range(1, 5):
            brute += Fraction(max(0, (a >= 4) + (b >= 4) - (a == 1) - (b == 1)), 48)
    odds = SYSTEM.odds(BlyssTest(dice=(12, 4), td=4, golden=False))
    assert odds.note.endswith(f"expected successes {float(brute):.3f} (exactly {brute})")


@pytest.mark.parametrize("gap", [3, 4, 5])
def test_no_contest_when_the_gap_is_at_least_the_house_rules(gap) -> None:
    """House rule no_contest_rank_gap 3 ('three or higher more than their opponent's rank'): a gap of 3, 4 or 5
    is no contest, either side round."""
    hr = BlyssHouseRules(no_contest_rank_gap=3)
    strong_a = BlyssContest(a=Pool(name="A", ranks=(1 + gap,)), b=Pool(name="B", ranks=(1,)))
    strong_b = BlyssContest(a=Pool(name="A", ranks=(1,)), b=Pool(name="B", ranks=(1 + gap,)))
    assert SYSTEM.odds(strong_a, hr).probability("A wins") == 1
    assert SYSTEM.odds(strong_b, hr).probability("B wins") == 1
    assert SYSTEM.resolve(strong_b, DiceRng(0), hr).details == {"winner": "B", "rolled": False}


def test_a_die_modifier_is_named_in_the_words_only_when_there_is_one() -> None:
    """d10 + d8 at TD 8, dealt 3 and 2: with +1 to each die the words say so; without one they say nothing of it."""
    out = SYSTEM.resolve(BlyssTest(dice=(10, 8), td=8, die_modifier=1), _Dealt(3, 2))
    assert "rolled d10=3, d8=2 (+1 to each die) against TD 8." in out.explanation
    out = SYSTEM.resolve(BlyssTest(dice=(10, 8), td=8), _Dealt(3, 2))
    assert "to each die" not in out.explanation


@pytest.mark.parametrize(("faces", "margin"), [((1, 3), -1), ((1, 1), -2), ((3, 2), 0), ((9, 8), 2)])
def test_a_tests_margin_is_its_successes_or_minus_its_screw_ups(faces, margin) -> None:
    """d10 + d8 at TD 8 (Screw-Ups): 1 and 3 leave one uncancelled 1, a Screw-Up of degree 1: margin -1; 1 and 1,
    every die a 1, degree 2: -2; 3 and 2, a plain failure: 0; 9 and 8, two successes: 2."""
    out = SYSTEM.resolve(BlyssTest(dice=(10, 8), td=8), _Dealt(*faces))
    assert out.margin == margin


def test_no_contest_when_the_second_side_outranks_by_the_gap_at_high_ranks() -> None:
    """House rule no_contest_rank_gap 3: B's rank 8 against A's 4 is a gap of 8 - 4 = 4 >= 3: no contest, B wins."""
    hr = BlyssHouseRules(no_contest_rank_gap=3)
    check = BlyssContest(a=Pool(name="A", ranks=(4,)), b=Pool(name="B", ranks=(8,)))
    assert SYSTEM.odds(check, hr).probability("B wins") == 1
    out = SYSTEM.resolve(check, DiceRng(0), hr)
    assert out.result == "B wins" and out.details == {"winner": "B", "rolled": False}


def test_a_contest_counts_its_rerolls() -> None:
    """A Contest whose draw is impossible is rolled again (Character Contests). A (d10, rank 4) rolls against B's
    rank 6, B (d12 + d4, rank 6) against A's rank 4. Dealt A 9 (one success), B 2 and 2 (none): A wins at the first
    roll, no re-roll. Dealt A 3, B 2 and 3 first (no success either side: a draw, rolled again), then as before:
    one re-roll."""
    check = BlyssContest(a=Pool(name="A", ranks=(4,)), b=Pool(name="B", ranks=(6,)), draw_allowed=False)
    out = SYSTEM.resolve(check, _Dealt(9, 2, 2))
    assert (out.result, out.details["rerolls"]) == ("A wins", 0)
    out = SYSTEM.resolve(check, _Dealt(3, 2, 3, 9, 2, 2))
    assert (out.result, out.details["rerolls"]) == ("A wins", 1)


def test_a_negative_rank_is_refused() -> None:
    """A statistic's rank runs from 0 (d0) up (Table 2-01): a negative rank is no rank."""
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="ranks are 0 to 50"):
        Pool(ranks=(3, -1))


def test_a_pools_rank_total_counts_its_loose_dice() -> None:
    """A Contest's TD is the other side's total rank (Character Contests): ranks 2 + a loose d8 (rank 3, Table
    2-01) = 5; ranks 4 + 1 + a d6 (rank 2) = 7."""
    assert Pool(ranks=(2,), dice=(8,)).rank_total() == 5
    assert Pool(ranks=(4, 1), dice=(6,)).rank_total() == 7


def test_every_die_of_the_ability_scale_reads_as_its_rank() -> None:
    """Table 2-01: d4, d6, d8, d10, d12 are ranks 1 to 5; a d9 is no die of the scale."""
    from storymaster.systems.blyss.checks import pool_from_text

    assert pool_from_text("d4, d6, d8, d10, d12").ranks == (1, 2, 3, 4, 5)
    with pytest.raises(CheckError, match="d9 is not a die of the Ability Scale"):
        pool_from_text("d9")


def test_roll_against_takes_its_options_by_keyword_only() -> None:
    from storymaster.systems.blyss.checks import roll_against

    rp = roll_against((8,), 8, _Dealt(8), BlyssHouseRules(), die_modifier=0)  # by keyword: an 8 meets TD 8
    assert rp is not None and rp.judgement.successes == 1
    with pytest.raises(TypeError):
        roll_against((8,), 8, DiceRng(0), BlyssHouseRules(), 1)  # type: ignore[misc]


def test_explain_pool_without_a_modifier_names_none() -> None:
    from storymaster.systems.blyss.checks import explain_pool, roll_against

    rp = roll_against((10, 8), 8, _Dealt(3, 2), BlyssHouseRules())
    assert explain_pool(rp).startswith("rolled d10=3, d8=2 against TD 8. 0 dice meet the TD; 0 rolled a 1.")


def test_a_critical_success_with_one_success_is_singular() -> None:
    """A d10 at TD 8 showing 9: every die met the TD, a critical success with 1 success (singular)."""
    out = SYSTEM.resolve(BlyssTest(dice=(10,), td=8), _Dealt(9))
    assert out.explanation.endswith("Every die met the TD: a critical success with 1 success.")


def test_a_combined_contest_describes_its_teams_by_name() -> None:
    from storymaster.systems.blyss.checks import CombinedContest

    named = CombinedContest(a=Pool(name="Reds", ranks=(3,)), b=Pool(name="Blues", ranks=(3,)))
    assert named.describe() == "Combined Contest: Reds vs Blues"
    unnamed = CombinedContest(a=Pool(ranks=(3,)), b=Pool(ranks=(3,)))
    assert unnamed.describe() == "Combined Contest: team A vs team B"


def test_the_higher_roll_off_goes_first_whatever_the_listing() -> None:
    """Ruling 7: equal Initiative (two d4s never meet TD 6: no successes, value 0, rank 1 each) is rolled off with a
    d100 each, the higher first: X (listed first) 40, Y 41: Y goes first."""
    entries = [("X", Pool(ranks=(1,))), ("Y", Pool(ranks=(1,)))]
    order, _ = roll_initiative(entries, _Dealt(2, 2, 40, 41))
    assert [r.name for r in order] == ["Y", "X"]
