"""Exact odds, checked against brute-force enumeration that shares no code with the engine."""

import itertools
from collections import defaultdict
from fractions import Fraction

import pytest
from hypothesis import given, settings
from strategies import expressions

from storymaster.dice import Const, Dice, Neg, parse, roll
from storymaster.errors import OddsError, StorymasterError
from storymaster.odds import distribution, truncated_mass


def _die_outcomes(node: Dice) -> dict[int, Fraction]:
    """One die (an exploding chain counted as one die), enumerated face by face."""
    faces = [-1, 0, 1] if node.sides == "F" else list(range(1, int(node.sides) + 1))
    top = max(faces)
    dist: dict[int, Fraction] = defaultdict(Fraction)

    def chain(total: int, p: Fraction, depth: int) -> None:
        for f in faces:
            q = p / len(faces)
            if node.explode and f == top and depth < node.explode:
                chain(total + f, q, depth + 1)
            else:
                dist[total + f] += q

    chain(0, Fraction(1), 0)
    return dist


def brute(node) -> dict[int, Fraction]:
    if isinstance(node, Const):
        return {node.value: Fraction(1)}
    if isinstance(node, Neg):
        return {-k: v for k, v in brute(node.operand).items()}
    if isinstance(node, Dice):
        one = list(_die_outcomes(node).items())
        out: dict[int, Fraction] = defaultdict(Fraction)
        for combo in itertools.product(one, repeat=node.count):
            values = [v for v, _ in combo]
            p = Fraction(1)
            for _, q in combo:
                p *= q
            if node.keep is not None:
                mode, n = node.keep
                values = sorted(values, reverse=(mode == "h"))[:n]
            out[sum(values)] += p
        return dict(out)
    a, b = brute(node.left), brute(node.right)
    out = defaultdict(Fraction)
    for (x, p), (y, q) in itertools.product(a.items(), b.items()):
        out[x + y if node.op == "+" else x - y if node.op == "-" else x * y] += p * q
    return dict(out)


def exact(expr: str) -> dict[int, Fraction]:
    return {k: v for k, v in distribution(expr).pmf().items() if v}


@pytest.mark.parametrize(
    "expr",
    [
        "2d6+3",
        "4d6kh3",
        "4d6dl1",
        "2d20kl1",
        "3d4!(2)",
        "d6!(3)",
        "4dF",
        "4dFkh2",
        "(d4+1)*d3",
        "-d6+2d4",
        "d20-d20",
        "3d4!(1)kh2",
        "0d6+1",
        "2d6-(d4-1)",
    ],
)
def test_matches_brute_force(expr: str) -> None:
    assert exact(expr) == {k: v for k, v in brute(parse(expr)).items() if v}


def test_fudge_golden() -> None:
    d = distribution("4dF")
    assert d.outcomes == (-4, -3, -2, -1, 0, 1, 2, 3, 4)
    assert d.quantities == (1, 4, 10, 16, 19, 16, 10, 4, 1) and d.denominator == 81


def test_summary_values() -> None:
    d = distribution("2d6+3")
    assert d.mean == 10
    assert d.variance == Fraction(35, 6)
    assert d.at_least(10) == Fraction(21, 36)
    assert d.at_most(5) == Fraction(1, 36) and d.at_most(4) == 0
    assert d.probability(10) == Fraction(6, 36) and d.probability(99) == 0
    assert d.at_least_table()[5] == 1 and d.at_most_table()[15] == 1
    data = d.to_json()
    assert data["distribution"]["10"] == pytest.approx(6 / 36)
    assert data["at_least"]["10"] == pytest.approx(21 / 36)


def test_explosion_tail_is_reported() -> None:
    assert distribution("d6!(2)").truncated == Fraction(1, 216)
    assert truncated_mass(parse("2d6!(1)")) == 1 - (1 - Fraction(1, 36)) ** 2
    assert distribution("3d6").truncated == 0
    assert "truncated" in distribution("d6!").to_json()


def test_repeated_questions_are_cached() -> None:
    assert distribution("5d8kh2") is distribution("5d8kh2")
    assert distribution("5d8kh2") is distribution("5d8dl3")  # same canonical question


@pytest.mark.parametrize("expr", ["1000d10", "1000d1000", "200d200kh100", "d1000*d1000"])
def test_too_large_questions_are_refused_quickly(expr: str) -> None:
    with pytest.raises(OddsError, match="too long"):
        distribution(expr)


def test_large_but_fine() -> None:
    d = distribution("100d6")
    assert d.min == 100 and d.max == 600 and d.mean == 350


@settings(max_examples=80)
@given(expressions(max_leaves=3, max_count=3, max_sides=6))
def test_every_distribution_sums_to_one_and_matches_brute_force(text: str) -> None:
    try:
        d = distribution(text)
    except StorymasterError:
        return
    assert sum(d.pmf().values()) == 1
    assert exact(text) == {k: v for k, v in brute(parse(text)).items() if v}


@settings(max_examples=25)
@given(expressions(max_leaves=3, max_count=3, max_sides=6))
def test_agrees_with_a_seeded_sample_of_audited_rolls(text: str) -> None:
    try:
        d = distribution(text)
    except StorymasterError:
        return
    n = 2000
    counts: dict[int, int] = defaultdict(int)
    for i in range(n):
        counts[roll(text, seed=f"sample-{i}").total] += 1
    pmf = d.pmf()
    assert set(counts) <= set(pmf)
    for outcome, p in pmf.items():
        p = float(p)
        sigma = (p * (1 - p) / n) ** 0.5
        assert abs(counts[outcome] / n - p) <= 6 * sigma + 2e-3


@settings(max_examples=80)
@given(expressions(max_leaves=4, max_count=4, max_sides=8))
def test_plain_sum_fast_path_agrees_with_icepool(text: str) -> None:
    """Plain sums take an integer-convolution path; icepool answers the same question independently."""
    from storymaster.odds.distribution import Distribution, to_icepool

    try:
        ours = distribution(text)
    except StorymasterError:
        return
    node = parse(text)
    theirs = Distribution.from_icepool(to_icepool(node), str(node))
    assert ours.pmf() == theirs.pmf()


@pytest.mark.parametrize("expr", ["4d6kh3", "8d6kh3+2", "3d20kl1-d4", "4dFkh2", "60d12kh6", "100d20kh1", "10d10kh5"])
def test_keep_pools_agree_with_icepool(expr: str) -> None:
    """The keep/drop programme against icepool's own pool algorithm."""
    from storymaster.odds.distribution import Distribution, to_icepool

    node = parse(expr)
    assert distribution(expr).pmf() == Distribution.from_icepool(to_icepool(node), expr).pmf()


def test_keep_work_grows_with_the_dice_and_the_kept() -> None:
    """The work bound is monotone where the programme's work is (issue 17: 1000d6kh1 was underestimated)."""
    from storymaster.odds.engine import cost

    def work(text: str) -> int:
        return cost(parse(text))[1]

    assert work("10d6kh1") < work("100d6kh1") < work("1000d6kh1")
    assert work("10d20kh1") < work("10d20kh3") < work("10d20kh5")
    assert work("8d6kh3") < work("8d20kh3") < work("8d100kh3")
    assert work("4d6kh3") < work("4d6!kh3")
    assert work("10d6") < work("100d6") < work("1000d6")


@pytest.mark.parametrize(
    "family",
    ["{n}d6", "{n}d6kh{h}", "{n}d6kl{h}", "{n}d6!", "{n}d6!!", "{n}d10!kh{h}", "{n}d10>=8f1", "{n}d6>=5kh{h}",
     "{n}dF", "{n}d6r1", "{n}d6ro1", "{n}d6k>3", "{n}d6mi2", "{n}d6*{n}d6", "floor({n}d6/3)", "{{{n}d6, {n}d6}}kh1",
     "{{{n}d6, {n}d6, {n}d6}}kh2"],
)  # fmt: skip
def test_work_grows_with_the_dice(family: str) -> None:
    """Issue 17: more dice, more work, whatever the construct (the bound's structure, not its timing)."""
    from storymaster.odds.engine import cost

    works = [cost(parse(family.format(n=n, h=max(1, n // 2))))[1] for n in (2, 4, 8, 16, 32, 64)]
    assert works == sorted(works) and len(set(works)) == len(works)


def test_work_grows_with_the_sides_and_the_depths() -> None:
    from storymaster.odds.engine import cost

    def works(texts: list[str]) -> list[int]:
        return [cost(parse(t))[1] for t in texts]

    for series in (
        [f"10d{s}" for s in (4, 6, 10, 20, 100, 1000)],
        [f"10d{s}kh5" for s in (4, 6, 10, 20, 100)],
        [f"3d6!({d})" for d in (1, 2, 5, 10, 30, 100)],
        [f"3d6r({d})1" for d in (1, 2, 5, 10, 30, 100)],
        [f"4d10r({d})1!kh2" for d in (1, 3, 10)],
    ):
        w = works(series)
        assert w == sorted(w) and len(set(w)) == len(w), series


def test_an_explosion_no_face_triggers_costs_about_the_plain_term() -> None:
    """d6!>=7 never explodes: its chain keeps six values (the bound had counted 66 and refused 100d6!!>=10,
    which takes a tenth of a second)."""
    from storymaster.odds.engine import cost

    plain, never, real = (cost(parse(t))[1] for t in ("100d6", "100d6!>=7", "100d6!"))
    assert plain < never < real / 10  # its weights are 6 ** 11 a die, not 6: dearer than the plain sum
    assert distribution("100d6!!>=10").pmf() == distribution("100d6").pmf()


@pytest.mark.parametrize(
    ("accepted", "refused"),
    [("500d6", "600d6"), ("180d6kh90", "200d6kh100"), ("30d10!kh10", "35d10!kh12"), ("10d10r1k5x>=8", "10d10r1k8x>=8")],
)
def test_the_bound_accepts_under_a_second_and_refuses_over(accepted: str, refused: str) -> None:
    """Each pair was timed by bench/run.py section (d) (CPU time of a new question, load 14-17): the
    first 0.55-1.0 s, the second 1.2-3.5 s. The bound sits between them (a structural check: no timing)."""
    from storymaster.odds.distribution import MAX_WORK
    from storymaster.odds.engine import cost

    assert cost(parse(accepted))[1] <= MAX_WORK < cost(parse(refused))[1]
    with pytest.raises(OddsError, match="too long"):
        distribution(refused)
