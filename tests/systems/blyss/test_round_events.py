"""The round's random events (round.py), each against an independent count over every face of its dice: the pool
the round reads, the damage, the armour contest and Initiative (issue 14's mutation survivors)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from storymaster.dice import DiceRng
from storymaster.errors import OddsError
from storymaster.systems.blyss.checks import Pool
from storymaster.systems.blyss.options import BlyssHouseRules
from storymaster.systems.blyss.round import (
    ArmourRoll,
    Damage,
    DamageRoll,
    InitiativeRoll,
    Judged,
    PoolRoll,
    Soak,
    exact_damage,
)


class Dealt(DiceRng):
    """Deals the given faces in order (each checked against the die it lands on)."""

    def __init__(self, *faces: int) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def die(self, sides: int) -> int:
        face = self.faces.pop(0)
        assert 1 <= face <= sides
        return face


def faces_of(dice):
    return itertools.product(*(range(1, s + 1) for s in dice))


def read(faces, td, dm=0):
    """Character Tests and Screw-Ups, by hand: a die other than a 1 whose value (face + dm) equals or beats the TD
    is a success; each 1 cancels one; 1s left over are a Screw-Up of that degree; nothing but 1s a critical one.
    Returns (kind, successes, screw-ups), a critical success read as a success."""
    ones = sum(f == 1 for f in faces)
    if ones == len(faces):
        return "critical screw-up", 0, ones
    net = sum(f != 1 and f + dm >= td for f in faces) - ones
    if net < 0:
        return "screw-up", 0, -net
    return ("success", net, 0) if net else ("failure", 0, 0)


def brute_pool(dice, td, dm, detail, want_best, also):
    out: dict[Judged, Fraction] = {}
    n = 1
    for s in dice:
        n *= s
    for faces in faces_of(dice):
        kind, succ, screw = read(faces, td, dm)
        others = []
        for t in also:
            k2, s2, _ = read(faces, t, dm)
            others.append((k2 == "success", s2))
        j = Judged(
            kind,
            succ if detail else 0,
            screw if detail else 0,
            max(faces) if (want_best and kind == "success") else 0,
            tuple(others),
        )
        out[j] = out.get(j, Fraction(0)) + Fraction(1, n)
    return out


@pytest.mark.parametrize("dice", [(8,), (6, 10), (12, 4), (4, 4, 6)])
@pytest.mark.parametrize(("td", "dm"), [(8, 0), (4, -1), (0, 0)])
@pytest.mark.parametrize(
    ("detail", "want_best", "also"), [(True, False, ()), (False, True, (3, 6)), (False, False, (5,))]
)
def test_pool_roll_outcomes_against_every_face(dice, td, dm, detail, want_best, also) -> None:
    ev = PoolRoll(dice, td, BlyssHouseRules(), die_modifier=dm, detail=detail, want_best=want_best, also=also)
    got = {j: p for p, j in ev.outcomes()}
    want = brute_pool(dice, td, dm, detail, want_best, also)
    assert set(got) == set(want)
    for j, p in want.items():
        assert got[j] == pytest.approx(float(p), abs=1e-12), j


def test_a_pool_roll_of_no_dice_fails_against_every_td() -> None:
    ev = PoolRoll((), 6, BlyssHouseRules(), also=(2, 4))
    assert [(p, j) for p, j in ev.outcomes()] == [(1.0, Judged("failure", also=((False, 0), (False, 0))))]
    assert ev.sample(DiceRng(0)) == Judged("failure", also=((False, 0), (False, 0)))


@pytest.mark.parametrize(
    ("faces", "expected"),
    [
        ((9, 3), Judged("success", 1, 0, 9, ((True, 2),))),  # the 9 meets TD 8; against TD 3 both dice do
        ((8, 8), Judged("success", 2, 0, 8, ((True, 2),))),  # every die meets: a critical success, read as success
        ((9, 1), Judged("failure", 0, 0, 0, ((False, 0),))),  # the 1 cancels the 9 (against TD 3 too: 1 - 1)
        ((1, 1), Judged("critical screw-up", 0, 2, 0, ((False, 0),))),
        ((2, 1), Judged("screw-up", 0, 1, 0, ((False, 0),))),  # nothing meets 8; the 1 is left over
    ],
)
def test_a_pool_roll_sampled_reads_its_faces(faces, expected) -> None:
    ev = PoolRoll((10, 8), 8, BlyssHouseRules(), detail=True, want_best=True, also=(3,), label="Ann attack")
    got = ev.sample(Dealt(*faces))
    assert got == expected
    assert got.record is not None and got.record.faces == faces and got.record.label == "Ann attack"
    assert got.judgement is not None and got.as_judgement() is got.judgement


def test_a_pool_roll_with_the_flesh_wound_modifier() -> None:
    """Flesh Wounds: -1 to every die; a natural 8 no longer meets TD 8."""
    ev = PoolRoll((8,), 8, BlyssHouseRules(), die_modifier=-1)
    assert ev.sample(Dealt(8)).kind == "failure"
    assert PoolRoll((8,), 8, BlyssHouseRules()).sample(Dealt(8)).kind == "success"


def test_a_pool_rolled_by_the_strict_critical_house_rule_reads_the_same() -> None:
    """The round reads a critical success as a success: the strict option changes nothing it reads."""
    hr = BlyssHouseRules(critical_needs_strict_beat=True)
    assert PoolRoll((8,), 8, hr, detail=True).sample(Dealt(8)) == Judged("success", 1)


def test_as_judgement_of_an_enumerated_outcome() -> None:
    j = Judged("screw-up", 0, 2).as_judgement()
    assert (j.kind, j.successes, j.screw_ups) == ("screw-up", 0, 2)
    assert j.key == "screw-up x2"


# ---------------------------------------------------------------- damage
def brute_damage(terms, op="+", const=0, times=1):
    """(total, highest die face, chance) of the sum of the dice ``terms`` (sides), then op const, by every face."""
    out: dict[tuple[int, int], Fraction] = {}
    n = 1
    for s in terms:
        n *= s
    for faces in faces_of(terms):
        t = sum(faces)
        t = t + const if op == "+" else t - const if op == "-" else t * times
        k = (t, max(faces))
        out[k] = out.get(k, Fraction(0)) + Fraction(1, n)
    return sorted((t, m, p) for (t, m), p in out.items())


@pytest.mark.parametrize(
    ("expr", "want"),
    [
        ("d8", brute_damage((8,))),
        ("2d6+3", brute_damage((6, 6), "+", 3)),
        ("d8-1", brute_damage((8,), "-", 1)),
        ("d6*2", brute_damage((6,), "*", times=2)),
        ("d6+d4", brute_damage((6, 4))),
    ],
)
def test_exact_damage_against_every_face(expr, want) -> None:
    got = exact_damage(expr)
    assert [(t, m) for t, m, _ in got] == [(t, m) for t, m, _ in want]
    for (_, _, p), (_, _, q) in zip(got, want, strict=True):
        assert p == pytest.approx(float(q), abs=1e-12)


def test_exact_damage_of_a_set_number_and_a_negated_die() -> None:
    """A set number's 'highest face' is the number itself (the armour contest against the damage roll)."""
    assert exact_damage("30") == ((30, 30, 1.0),)
    assert exact_damage("5-d4") == tuple((5 - f, f, 0.25) for f in (4, 3, 2, 1))
    assert exact_damage("2+3") == ((5, 5, 1.0),)


@pytest.mark.parametrize("expr", ["d6!", "4d6kh3", "d6/2", "dF"])
def test_damage_outside_the_exact_chain_is_refused(expr) -> None:
    with pytest.raises(OddsError, match="not in the exact chain"):
        exact_damage(expr)


def test_damage_with_too_many_outcomes_is_refused() -> None:
    with pytest.raises(OddsError, match="too many outcomes"):
        exact_damage("4d60")


def test_damage_roll_outcomes_and_sample() -> None:
    """With the armour contest against the damage roll the round needs the highest die; otherwise only the total."""
    full = {d: p for p, d in DamageRoll("2d4", want_best=True).outcomes()}
    assert full == pytest.approx({Damage(t, m): float(p) for t, m, p in brute_damage((4, 4))})
    totals = {d: p for p, d in DamageRoll("2d4").outcomes()}
    assert totals == pytest.approx(
        {Damage(t): float(sum(p for tt, _, p in brute_damage((4, 4)) if tt == t)) for t in range(2, 9)}
    )
    s = DamageRoll("2d4+1", want_best=True, label="Bo damage").sample(Dealt(3, 2))
    assert (s.total, s.best, s.record.label) == (6, 3, "Bo damage")
    assert DamageRoll("2d4+1").sample(Dealt(3, 2)) == Damage(6, 0)
    assert DamageRoll("7", want_best=True).sample(Dealt()) == Damage(7, 7)


# ---------------------------------------------------------------- the armour contest
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize(("dice", "against"), [((8,), 5), ((6, 4), 6), ((4,), 4), ((4,), 9), ((10, 6), 0)])
def test_armour_roll_against_every_face(dice, against, ties) -> None:
    """Armour Rating: the armour soaks when its best die beats the best attack die (a tie by house rule)."""
    n = 1
    for s in dice:
        n *= s
    soaked = Fraction(sum(max(f) > against or (ties and max(f) == against) for f in faces_of(dice)), n)
    got = {s.soaked: p for p, s in ArmourRoll(dice, against, ties).outcomes()}
    want = {v: float(q) for v, q in ((True, soaked), (False, 1 - soaked)) if q}
    assert got == pytest.approx(want)


def test_armour_roll_sampled() -> None:
    s = ArmourRoll((8, 4), 6, label="Ann armour").sample(Dealt(3, 4))
    assert (s.soaked, s.best, s.record.label) == (False, 4, "Ann armour")
    assert ArmourRoll((8, 4), 6).sample(Dealt(7, 1)) == Soak(True)
    assert ArmourRoll((8,), 6).sample(Dealt(6)).soaked is False  # a tie gets through by default
    assert ArmourRoll((8,), 6, ties_soak=True).sample(Dealt(6)).soaked is True


# ---------------------------------------------------------------- Initiative
def init_key(faces, rank, td=6):
    """Initiative (ruling 7): net successes against TD 6 (each 1 cancels one, at least 0), then the total value of
    the dice that met the TD, then the Initiative rank."""
    met = [f for f in faces if f != 1 and f >= td]
    return (max(0, len(met) - sum(f == 1 for f in faces)), sum(met), rank)


@pytest.mark.parametrize("final_tie", ["roll_off", "sm_order"])
@pytest.mark.parametrize(("ra", "rb"), [((3,), (3,)), ((4,), (6,)), ((6, 2), (4,)), ((0,), (2,))])
def test_initiative_outcomes_against_every_face(ra, rb, final_tie) -> None:
    hr = BlyssHouseRules(initiative_final_tie=final_tie)
    pa, pb = Pool(ranks=ra), Pool(ranks=rb)
    from storymaster.systems.blyss.scale import pool_for_ranks

    da, db = pool_for_ranks(ra), pool_for_ranks(rb)
    # a last tie rolled off: a d100 each, the higher first, equal rolls keeping the listing order
    d100 = Fraction(sum(x >= y for x in range(1, 101) for y in range(1, 101)), 10_000)
    tie = d100 if final_tie == "roll_off" else Fraction(1)
    first = Fraction(0)
    na = nb = 1
    for s in da:
        na *= s
    for s in db:
        nb *= s
    for fa in faces_of(da) if da else [()]:
        for fb in faces_of(db) if db else [()]:
            ka, kb = init_key(fa, sum(ra)), init_key(fb, sum(rb))
            if ka > kb:
                first += Fraction(1, na * nb)
            elif ka == kb:
                first += tie * Fraction(1, na * nb)
    got = {o.order: p for p, o in InitiativeRoll(("A", "B"), (pa, pb), hr).outcomes()}
    want = {k: float(v) for k, v in (((0, 1), first), ((1, 0), 1 - first)) if v}
    assert got == pytest.approx(want, abs=1e-12)


def test_initiative_is_enumerated_for_two_fighters_only() -> None:
    pools = (Pool(ranks=(3,)),) * 3
    with pytest.raises(OddsError, match="two fighters only"):
        InitiativeRoll(("A", "B", "C"), pools, BlyssHouseRules()).outcomes()


def test_initiative_sampled_orders_and_keeps_the_rolls() -> None:
    """A d8 each at TD 6: B's 7 beats A's 2; the order is by index, fastest first, with both records."""
    ev = InitiativeRoll(("A", "B"), (Pool(ranks=(3,)), Pool(ranks=(3,))), BlyssHouseRules())
    o = ev.sample(Dealt(2, 7))
    assert o.order == (1, 0)
    assert [r.faces for r in o.records] == [(7,), (2,)]
    assert "A: 0 successes" in o.text and "B: 1 success (value 7" in o.text
    # a full tie rolled off: the d100s are kept after the pools' rolls
    o = ev.sample(Dealt(3, 3, 40, 90))
    assert o.order == (1, 0) and [r.faces for r in o.records] == [(3,), (3,), (90,), (40,)]
