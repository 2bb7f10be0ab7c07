"""The dice language (issue 15): every construct, three ways.

- the exact odds equal an independent brute-force enumeration (tests/dice_brute.py) on small
  cases, and icepool's own construction, written here by hand, on larger ones;
- hypothesis over the grammar: round trips, exact = brute force, rolls inside the support;
- seeded audited rolls and the batch roller agree with the exact distribution;
- the records keep every reroll, explosion and discarded die, and replay.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import icepool
import numpy as np
import pytest
from dice_brute import brute
from hypothesis import HealthCheck, assume, given, settings
from strategies import language_expressions, language_terms

from storymaster.dice import RollRecord, parse, roll, roll_batch, verify
from storymaster.dice.ast import Cmp, Compare, Dice, Func, Group, Label
from storymaster.errors import StorymasterError
from storymaster.odds import distribution

# every construct, on cases small enough to enumerate face by face
SMALL = [
    "3d6>=5",  # success counting
    "3d6>4",
    "4d4cs>=3",
    "3d6>=5f1",  # failures subtracted
    "3d6>=4f<=2",
    "2d6ro1",  # reroll once
    "2d6ro<3",
    "2d4r1",  # reroll until not matched, depth-capped
    "2d4rr<3",
    "1d4r(2)<3",
    "2d4!>3",  # exploding on a comparison
    "2d4!(2)",
    "2d4e4",
    "2d4!!(2)",  # compounding
    "2d4!!>=3(2)",
    "2d4!p(2)",  # penetrating
    "1d4!p>=3(3)",
    "3d6mi2",  # minimum / maximum
    "3d6ma4",
    "2d6mi2ma5",
    "4d4k>2",  # keep / drop by comparison
    "4d4d<2",
    "4d4p=1",
    "3d4kh2",
    "3d4dl1",
    "3d6/2",  # division floors
    "-(3d4)/2",
    "floor(3d4/2)",
    "ceil(3d4/2)",
    "round(3d4/2)",
    "round(-3d4/2)",
    "ceil((1d6+1d4)/3)",
    "2d6[fire]+2",  # labels
    "{1d6+2, 1d8}kh1",  # sets
    "{1d6, 1d8, 3}kl2",
    "{1d6, 1d8, 1d4}>=4",
    "{2d4, 1d8}k>4",
    "1d20adv",  # advantage / disadvantage
    "1d20dis+3",
    "1d20+5>=15",  # comparisons
    "(2d6)<7",
    "1d6==1d6",
    "2d4!(2)cs>=4",  # success counting over explosions: each throw counts
    "2d4!!(2)cs>=4",  # ... compounded: each chain counts
    "{2d4!!(2)}>=5",
    "3d4!!(2)kh2>=5",
    "2d4ro1!(1)kh1",
    "3d4ro1mi2!!>=3(1)k>4cs>=4f=2",
]


@pytest.mark.parametrize("text", SMALL)
def test_exact_equals_brute_force(text: str) -> None:
    node = parse(text)
    want = {k: v for k, v in brute(node).items() if v}
    got = {k: v for k, v in distribution(node).pmf().items() if v}
    assert got == want


def _icepool_cases():
    d4, d6, d10, d20 = icepool.d(4), icepool.d(6), icepool.d(10), icepool.d(20)
    return [
        # success counting on a big pool: a d10 pool, each die 8+ a success, 1s subtract
        ("12d10>=8f1", 12 @ d10.map(lambda x: (x >= 8) - (x == 1))),
        ("20d6cs>4", 20 @ (d6 > 4)),
        # rerolls: icepool's own reroll
        ("10d6ro1", 10 @ d6.reroll([1], depth=1)),
        ("8d10r<3", 8 @ d10.reroll([1, 2], depth=10)),
        # explosions on compare points and compounding: icepool's own explode
        ("6d10!>=9", 6 @ d10.explode([9, 10], depth=10)),
        ("5d6!!", 5 @ d6.explode(depth=10)),
        ("8d6!!kh3", d6.explode(depth=10).pool(8).highest(3).sum()),
        ("10d10!cs>=8", None),  # each throw of a chain counts: checked by a recursion below
        # min / max
        ("10d6mi3", 10 @ d6.clip(3, 6)),
        ("10d20ma15", 10 @ d20.clip(1, 15)),
        # keep/drop by count and comparison on big pools
        ("30d6kh5", d6.pool(30).highest(5).sum()),
        ("12d10k>=7", 12 @ d10.map(lambda x: x if x >= 7 else 0)),
        ("12d10kh4>=8", d10.pool(12).highest(4).sum(map=lambda x: int(x >= 8))),
        # division, rounding, comparison, sets
        ("10d6/3", (10 @ d6) // 3),
        ("ceil(10d6/4)", (10 @ d6).map(lambda x: -(-x // 4))),
        ("20d4+3>=40", ((20 @ d4) + 3 >= 40).map(lambda b: int(b))),
        ("{2d20kh1+5, 1d20+8}kh1", icepool.Pool([d20.pool(2).highest(1).sum() + 5, d20 + 8]).highest(1).sum()),
        ("{1d20, 1d20, 1d20}>=11", icepool.Pool([d20, d20, d20]).sum(map=lambda x: int(x >= 11))),
    ]


@pytest.mark.parametrize(
    ("text", "want"),
    [c for c in _icepool_cases() if c[1] is not None],
    ids=[c[0] for c in _icepool_cases() if c[1] is not None],
)
def test_exact_equals_icepool_built_by_hand(text: str, want) -> None:
    got = distribution(text)
    total = want.denominator()
    assert {o: Fraction(q, total) for o, q in want.items() if q} == {o: p for o, p in got.pmf().items() if p}


def test_exploding_success_pool_counts_each_throw() -> None:
    """10d10!cs>=8 (World of Darkness's 10-again): each throw of a chain is a die of its own."""
    # one chain, by hand: k tens in a row (each explodes), then a throw that ends the chain
    chain: dict[int, Fraction] = {}
    for k in range(10):
        chain[k + 1] = chain.get(k + 1, 0) + Fraction(1, 10) ** k * Fraction(2, 10)  # then an 8 or a 9
        chain[k] = chain.get(k, 0) + Fraction(1, 10) ** k * Fraction(7, 10)  # then 1..7
    # ten explosions used up: the 11th throw cannot explode; 8, 9 or 10 succeed
    chain[11] = Fraction(1, 10) ** 10 * Fraction(3, 10)
    chain[10] = chain.get(10, 0) + Fraction(1, 10) ** 10 * Fraction(7, 10)
    assert sum(chain.values()) == 1
    chain = {k: int(v * 10**11) for k, v in chain.items()}
    total = icepool.Die(chain)
    want = 10 @ total
    got = distribution("10d10!cs>=8")
    assert {o: Fraction(q, want.denominator()) for o, q in want.items() if q} == {
        o: p for o, p in got.pmf().items() if p
    }


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(language_expressions(max_leaves=2, max_count=2, max_sides=4))
def test_grammar_exact_equals_brute_force(text: str) -> None:
    try:
        node = parse(text)
        dist = distribution(node)
    except StorymasterError:
        assume(False)
        return
    assert parse(str(node)) == node
    assert sum(dist.pmf().values()) == 1
    want = {k: v for k, v in brute(node).items() if v}
    assert {k: v for k, v in dist.pmf().items() if v} == want
    # an audited roll lands in the support and replays
    r = roll(node, seed=text)
    assert r.total in want
    verify(r)
    assert RollRecord.from_json(json.loads(r.dumps())) == r
    # the batch roller lands in the support too
    sample = roll_batch(node, 200, seed=1)
    assert set(np.unique(sample).tolist()) <= set(want)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(language_terms(max_count=6, max_sides=10))
def test_bigger_terms_parse_roll_and_have_odds(text: str) -> None:
    try:
        node = parse(text)
    except StorymasterError:
        assume(False)
        return
    dist = distribution(node)
    assert sum(dist.pmf().values()) == 1
    r = roll(node, seed=1)
    assert dist.probability(r.total) > 0 or (dist.truncated and r.total >= dist.max)
    verify(r)


SAMPLED = [
    "6d10>=8",
    "5d10>=7f1",
    "1d20ro1",
    "4d6rr1",
    "4d6r<2",
    "10d6e6",
    "4d6!!",
    "2d6!p",
    "4d6mi2",
    "8d6/2",
    "ceil(3d6/2)",
    "round(-3d6/4)",
    "3d6[fire]+2",
    "{1d20+5, 1d20+3}kh1",
    "d20adv",
    "1d20+5 >= 15",
    "3d6!>4",
    "{5d6!!}>8",
    "4d6k>3",
    "10d10!cs>=8",
    "3d6!!kh2>=7",
    "6d4ro1mi2!>=3k>4",
]


def _tv(counts: dict[int, int], n: int, exact: dict[int, Fraction]) -> float:
    keys = set(counts) | set(exact)
    return 0.5 * sum(abs(counts.get(k, 0) / n - float(exact.get(k, 0))) for k in keys)


@pytest.mark.parametrize("text", SAMPLED)
def test_seeded_audited_rolls_agree_with_exact(text: str) -> None:
    exact = distribution(text).pmf()
    n = 3000
    counts: dict[int, int] = {}
    for i in range(n):
        t = roll(text, seed=f"sample-{i}").total
        assert t in exact or t == max(exact)  # a capped chain folds into the top
        counts[t] = counts.get(t, 0) + 1
    mean = sum(k * v for k, v in counts.items()) / n
    sd = math.sqrt(float(distribution(text).variance)) or 1e-9
    assert abs(mean - float(distribution(text).mean)) < 5 * sd / math.sqrt(n)
    # total variation within sampling noise (bounded by sqrt(support/n) up to a constant)
    assert _tv(counts, n, exact) < 1.5 * math.sqrt(len(exact) / n) + 0.02


@pytest.mark.parametrize("text", SAMPLED)
def test_batch_agrees_with_exact(text: str) -> None:
    exact = distribution(text).pmf()
    n = 200_000
    values, counts = np.unique(roll_batch(text, n, seed=7), return_counts=True)
    got = dict(zip(values.tolist(), counts.tolist(), strict=False))
    assert set(got) <= set(exact)
    sd = math.sqrt(float(distribution(text).variance)) or 1e-9
    mean = sum(k * v for k, v in got.items()) / n
    assert abs(mean - float(distribution(text).mean)) < 5 * sd / math.sqrt(n)
    assert _tv(got, n, exact) < 1.5 * math.sqrt(len(exact) / n) + 0.005


# ---------------------------------------------------------------- rulings, each told apart from the other reading
def test_greater_than_is_strict_unlike_roll20() -> None:
    # Foundry and d20 read '>' as strictly greater; Roll20 reads '3d6>3' as 3 or more
    assert distribution("1d6>3").probability(1) == Fraction(1, 2)  # 4, 5, 6; Roll20 would give 2/3
    assert distribution("1d6>=3").probability(1) == Fraction(2, 3)
    assert distribution("1d6<3").probability(1) == Fraction(1, 3)


def test_division_floors_and_rounding_functions() -> None:
    assert roll("-7/2").total == -4  # floor, not truncation (-3)
    assert roll("7/2").total == 3
    assert roll("ceil(7/2)").total == 4
    assert roll("round(5/2)").total == 3  # halves go up, not to the even neighbour (2)
    assert roll("round(-5/2)").total == -2  # ... and up means towards +infinity, not away from zero (-3)
    assert roll("round(7/3)").total == 2
    assert roll("floor(-7/2)").total == -4
    # inside a function every division is exact: ceil(1/2 + 1/2) = 1, where flooring each would give 0
    assert roll("ceil(1/2 + 1/2)").total == 1
    assert roll("1/2 + 1/2").total == 0


def test_adv_and_dis_are_two_d20_keep_one() -> None:
    assert parse("d20adv") == parse("2d20kh1")
    assert parse("1d20dis") == parse("2d20kl1")
    assert distribution("d20adv").probability(20) == Fraction(39, 400)


def test_comparison_after_a_dice_term_counts_dice_after_a_sum_compares_totals() -> None:
    assert isinstance(parse("2d6>=5"), Dice)  # success counting on each die (Roll20's reading)
    assert isinstance(parse("(2d6)>=5"), Compare)  # the total compared (d20's reading)
    assert distribution("2d6>=5").max == 2
    assert distribution("(2d6)>=5").max == 1
    assert distribution("(2d6)>=5").probability(1) == Fraction(30, 36)
    assert isinstance(parse("1d20+5 >= 15"), Compare)
    # only the term that opens a sum counts: after an operator the totals are compared
    assert isinstance(parse("1d20+1d4 >= 15"), Compare)
    assert isinstance(parse("1+2d6>=5"), Compare)
    assert distribution("1+2d6>=5").pmf() == {0: Fraction(3, 36), 1: Fraction(33, 36)}


def test_roll20_set_of_one_dice_term_applies_to_its_dice() -> None:
    assert parse("{5d6!!}>8") == parse("5d6!!cs>8")
    assert parse("{5d6!!}>8").success == Cmp(">", 8)
    assert isinstance(parse("{1d6, 1d8}kh1"), Group)
    assert parse("(1d20, 1d20)kh1") == parse("{1d20, 1d20}kh1")  # d20's set syntax


def test_canonical_forms() -> None:
    cases = {
        "6d10cs>=8": "6d10>=8",
        "4d6rr1": "4d6r1",
        "10d6e6": "10d6!",
        "4d6x": "4d6!",
        "4d6xo": "4d6!(1)",
        "4d6p<3": "4d6d<3",
        "8d6p1": "8d6d=1",
        "4d6min2": "4d6mi2",
        "2d6d": "2d6kh1",
        "10d10!cs>=8": "10d10!cs>=8",
        "3d6[ fire  damage ]+2": "3d6[fire damage]+2",
        "1d20+5 == 15": "1d20+5==15",
        "(1d20)>=15": "(1d20)>=15",
        "4d6mi2ro1": "4d6ro1mi2",  # modifiers in their one order
    }
    for text, canonical in cases.items():
        assert str(parse(text)) == canonical
        assert parse(canonical) == parse(text)


# ---------------------------------------------------------------- records
def test_record_keeps_every_reroll_and_replays() -> None:
    seen = False
    for s in range(300):
        r = roll("4d6r1", seed=s)
        rerolled = [d for d in r.dice if d.rerolled]
        assert all(d.face == 1 and not d.kept for d in rerolled)
        standing = [d for d in r.dice if not d.rerolled]
        assert len(standing) == 4 and r.total == sum(d.face for d in standing)
        assert r.draws == len(r.dice)
        if rerolled:
            seen = True
            data = json.loads(r.dumps())
            assert any(d.get("rerolled") for d in data["dice"])
            assert RollRecord.from_json(data) == r
            verify(RollRecord.from_json(data))
            assert "1r " in r.detail
    assert seen


def test_record_keeps_explosions_and_discards() -> None:
    r = next(roll("3d6!>=5k>8", seed=s) for s in range(500) if any(d.exploded for d in roll("3d6!>=5k>8", seed=s).dice))
    chains: list[list] = []
    for d in r.dice:
        if d.exploded:
            chains[-1].append(d)
        else:
            chains.append([d])
    values = [sum(d.face for d in c) for c in chains]
    assert r.total == sum(v for v, c in zip(values, chains, strict=False) if v > 8)
    for v, c in zip(values, chains, strict=False):
        assert all(d.kept == (v > 8) for d in c)
    verify(r)


def test_set_records_mark_the_dropped_item() -> None:
    r = roll("{1d20+5, 1d20+3}kh1", seed=4)
    a, b = r.dice
    assert r.total == max(a.face + 5, b.face + 3)
    assert [a.kept, b.kept].count(False) == 1
    verify(r)


def test_success_detail_marks_successes_and_failures() -> None:
    r = roll("5d10>=7f1", seed=3)
    faces = [d.face for d in r.dice]
    assert r.total == sum(f >= 7 for f in faces) - sum(f == 1 for f in faces)
    assert r.detail.startswith("5d10>=7f1[")
    assert r.detail.count("*") == sum(f >= 7 for f in faces)


def test_labels_are_in_the_record_and_shown() -> None:
    r = roll("3d6[fire]+1d4[cold]+2", seed=1)
    assert r.expression == "3d6[fire]+1d4[cold]+2"
    assert "[fire]" in r.detail and "[cold]" in r.detail
    assert isinstance(parse(r.expression).left.left, Label)


def test_old_records_still_verify() -> None:
    """A record written before the language grew (no 'rerolled' key) reads back and verifies."""
    old = {
        "expression": "4d6kh3",
        "total": 17,
        "dice": [
            {"sides": 6, "face": 1, "kept": False, "exploded": False, "term": 0},
            {"sides": 6, "face": 5, "kept": True, "exploded": False, "term": 0},
            {"sides": 6, "face": 6, "kept": True, "exploded": False, "term": 0},
            {"sides": 6, "face": 6, "kept": True, "exploded": False, "term": 0},
        ],
        "seed": "42",
        "stream": "",
        "counter": 0,
        "draws": 4,
        "rng_version": 1,
    }
    record = RollRecord.from_json(old)
    verify(record)
    assert "rerolled" not in json.dumps(record.to_json()["dice"])  # written as before


def test_func_and_compare_nodes() -> None:
    assert isinstance(parse("floor(1d6/2)"), Func)
    assert distribution("floor(1d6/2)").pmf() == {
        0: Fraction(1, 6),
        1: Fraction(1, 3),
        2: Fraction(1, 3),
        3: Fraction(1, 6),
    }
    assert distribution("ceil(1d6/2)").pmf() == {1: Fraction(1, 3), 2: Fraction(1, 3), 3: Fraction(1, 3)}
