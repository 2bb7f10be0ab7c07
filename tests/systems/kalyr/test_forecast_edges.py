"""The Kalyr forecast's scope-out roll, the exact chain's work bound, a saved state with a side left empty and the
documented defaults (issue 14, mutation survivors of systems/kalyr/forecast.py). Expected values by brute force
over the 4dF table (1, 4, 10, 16, 19, 16, 10, 4, 1 of 81) and by hand arithmetic written out below; nothing is
taken from the program's output (two tests compare the simulation with the exact chain, the engine's round
enumerated: another method, within 5 standard errors)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from storymaster.errors import OddsError
from storymaster.systems.kalyr import SYSTEM
from storymaster.systems.kalyr import forecast as kf
from storymaster.systems.kalyr.character import Character
from storymaster.systems.kalyr.forecast import (
    _sampler,
    _setup,
    exact_forecast,
    forecast,
    simulated_forecast,
    start_row,
    step,
)

E = SYSTEM.combat
DF = {d: Fraction(c, 81) for d, c in zip(range(-4, 5), (1, 4, 10, 16, 19, 16, 10, 4, 1), strict=True)}
TIE = sum(p * p for p in DF.values())  # two 4dF rolls showing the same total: 1107/6561


def fighter(name, level="Fair", **extra):
    abilities = [{"name": "Melee", "level": level}, *({"name": k, "level": v} for k, v in extra.items())]
    return Character(name=name, abilities=abilities)


def best_of(a: int, b: int) -> dict[int, Fraction]:
    """The book (Playing the Game): with two relevant abilities, "roll against both abilities, and use the best of
    the two rolls, provided both abilities are Fair or better" (else only the better one is rolled)."""
    out: dict[int, Fraction] = {}
    if a >= 0 and b >= 0:
        for x, px in DF.items():
            for y, py in DF.items():
                v = max(a + x, b + y)
                out[v] = out.get(v, Fraction(0)) + px * py
    else:
        for x, px in DF.items():
            out[max(a, b) + x] = out.get(max(a, b) + x, Fraction(0)) + px
    return out


@pytest.mark.parametrize(
    ("perception", "tactics", "levels"),
    [("Fair", "Great", (0, 2)), ("Great", "Fair", (2, 0)), ("Poor", "Good", (-2, 1)), ("Good", "Poor", (1, -2))],
)
def test_the_scope_out_roll_is_the_better_of_perception_and_tactics(perception, tactics, levels):
    """A successful all-out defence plus "a successful Perception or Tactics roll" gives the foe -1 next round
    (Specific rules for Detailed Combats): the simulation draws that roll from the better of the two rolls,
    each ability at its own level (the best-of-two rule above). Only the all-out defender rolls it."""
    a = fighter("A", Perception=perception, Tactics=tactics)
    s = E.start([[a], [fighter("B")]], options={"mode": "detailed", "tactics": [{"stance": "all_out_defence"}, {}]})
    si = _setup(s)
    want = best_of(*levels)
    assert set(si.scope[0]) == set(want)
    for v, p in want.items():
        assert si.scope[0][v] == pytest.approx(float(p), abs=1e-15), v
    assert si.scope[1] == {0: 1.0}  # B fights normally: nothing to roll


def test_the_simulation_rolls_the_scope_out_roll():
    """A (Fair, Perception and Tactics Terrible) defends all-out against B (Good), a 6-round cap. The scope-out
    roll is then rolled at Terrible: it meets the Fair difficulty (ruling K13) only on +3 or +4 of 4dF, 5/81.
    The simulation against the exact chain (the engine's round enumerated: another method, no simulation), each
    figure within 5 standard errors of 20,000 fights."""
    a = fighter("A", Perception="Terrible", Tactics="Terrible")
    s = E.start(
        [[a], [fighter("B", "Good")]],
        options={"mode": "detailed", "max_rounds": 6, "tactics": [{"stance": "all_out_defence"}, {}]},
    )
    assert sum(p for v, p in best_of(-3, -3).items() if v >= 0) == Fraction(5, 81)
    ex = exact_forecast(s)
    n = 20_000
    sim = simulated_forecast(s, samples=n, seed=2)
    for p, q in zip((*ex.p_win, ex.p_draw), (*sim.p_win, sim.p_draw), strict=True):
        assert abs(p - q) <= 5 * (p * (1 - p) / n) ** 0.5, (ex.p_win, sim.p_win)


class _Uniforms:
    """A stand-in generator whose random(m) hands out the given uniforms."""

    def __init__(self, us):
        self.us = np.array(us, dtype=float)

    def random(self, m):
        assert m == len(self.us)
        return self.us


def test_the_sampler_is_the_inverse_cdf_of_its_pmf():
    """The scope-out roll is drawn by inverse CDF: a uniform in the middle of a value's slice of [0, 1) gives that
    value, and one just below 1 gives the top value (however the float sums round)."""
    pmf = {int(v): float(p) for v, p in best_of(1, -2).items()}  # Good alone: -3..5
    values, cum, mids = sorted(pmf), 0.0, []
    for v in values:
        mids.append(cum + pmf[v] / 2)
        cum += pmf[v]
    draw = _sampler(pmf)
    assert draw(_Uniforms(mids), len(mids)).tolist() == values
    assert draw(_Uniforms([0.0, 1 - 2**-53]), 2).tolist() == [values[0], values[-1]]
    # Fair and Fair: the chances as floats add up to 1 - 2**-53, not 1; the largest uniform still draws the top value
    pmf = {int(v): float(p) for v, p in best_of(0, 0).items()}
    assert max(pmf) == 4
    assert _sampler(pmf)(_Uniforms([1 - 2**-53]), 1).tolist() == [4]


# -- the exact chain's work bound -------------------------------------------------------------------------
#
# First blood (stakes Hurt), Fair against Fair, ties rolled again: the chain has two live states, the first
# round's and every later round's (a tie leads from the first to the second, then back to the second), each with
# three moves (A wins: B Hurt, over; B wins: A Hurt, over; a tie): E = 6 transitions. The mass still going after
# r rounds is TIE**r; the solver stops when it falls below 1e-12: TIE**15 = 2.6e-12, TIE**16 = 4.3e-13, so the
# chain needs R = 16 rounds (checked below in Fractions). The module docstring: exact forecasts are "Refused ...
# past EXACT_MAX_EDGE_ROUNDS transition-rounds to absorb", and fights still going at the round cap are draws.

EDGES = 6
NEEDED = 16


def first_blood(**options):
    return E.start([[fighter("A")], [fighter("B")]], options={"stakes": "Hurt", **options})


def test_the_chain_needs_sixteen_rounds():
    assert Fraction(1107, 6561) == TIE
    assert TIE**15 >= Fraction(1, 10**12) > TIE**16


def test_a_bound_that_covers_the_rounds_needed_solves_the_fight(monkeypatch):
    """EXACT_MAX_EDGE_ROUNDS = E * R: the whole chain fits the bound; p_win = (1 - TIE**16) / 2 a side, no draw
    and no note of fights left at a cap."""
    monkeypatch.setattr(kf, "EXACT_MAX_EDGE_ROUNDS", EDGES * NEEDED)
    f = exact_forecast(first_blood())
    half = float((1 - TIE**NEEDED) / 2)
    assert f.method == "exact" and f.p_win == pytest.approx((half, half), abs=1e-15)
    assert f.p_draw == 0.0 and not any("still going" in n for n in f.notes)
    assert f.error == pytest.approx(float(TIE**NEEDED), rel=1e-9)
    assert f.rounds[1] == pytest.approx(float(1 - TIE), abs=1e-15)


def test_a_bound_far_below_the_rounds_needed_refuses(monkeypatch):
    """E * (R - 1) - 1 = 89 transition-rounds: even the rounds before the last one pass the bound: refused (and
    auto simulates)."""
    monkeypatch.setattr(kf, "EXACT_MAX_EDGE_ROUNDS", EDGES * (NEEDED - 1) - 1)
    with pytest.raises(OddsError, match="lasts too long"):
        exact_forecast(first_blood())
    assert kf.forecast(first_blood(), samples=200).method == "simulated"


def test_too_many_states_refused(monkeypatch):
    """Refused past MAX_STATES states (the module docstring): first blood has two live states and two ends, so
    a limit of one state refuses it and a limit of ten solves it."""
    monkeypatch.setattr(kf, "MAX_STATES", 1)
    with pytest.raises(OddsError, match="more than 1 states"):
        exact_forecast(first_blood())
    monkeypatch.setattr(kf, "MAX_STATES", 2)  # exactly as many live states as the limit: not past it
    assert exact_forecast(first_blood()).method == "exact"
    monkeypatch.setattr(kf, "MAX_STATES", 10)
    assert exact_forecast(first_blood()).method == "exact"


def test_a_round_cap_within_the_bound_is_solved_with_its_draws(monkeypatch):
    """A 5-round cap: 5 rounds of 6 transitions, exactly the bound of 30: solved; the fights still tied after
    five rolls (TIE**5) are draws at the cap, each side winning (1 - TIE**5) / 2."""
    monkeypatch.setattr(kf, "EXACT_MAX_EDGE_ROUNDS", EDGES * 5)
    f = exact_forecast(first_blood(max_rounds=5))
    assert f.p_draw == pytest.approx(float(TIE**5), abs=1e-15)
    half = float((1 - TIE**5) / 2)
    assert f.p_win == pytest.approx((half, half), abs=1e-15)
    assert any("still going at the 5-round cap: draws" in n for n in f.notes)


# -- a saved state the engine cannot have made, and the defaults -----------------------------------------------


@pytest.mark.parametrize("empty", [0, 1])
def test_a_side_with_nobody_left_yet_not_over_is_refused_by_the_simulation(empty):
    """A hand-edited saved state: every fighter of one side has withdrawn, yet the contest is not over. The
    simulation has nobody to roll for that side and says so (an OddsError), whichever side it is."""
    s = E.start([[fighter("A"), fighter("C")], [fighter("B"), fighter("D")]], options={"stakes": "Hurt"})
    gone = tuple(f.model_copy(update={"withdrawn": True}) for f in s.sides[empty])
    sides = (gone, s.sides[1]) if empty == 0 else (s.sides[0], gone)
    bad = s.model_copy(update={"sides": sides})
    with pytest.raises(OddsError, match="a side has nobody left to fight, yet the contest is not over"):
        simulated_forecast(bad, samples=100)


def test_the_documented_simulation_defaults():
    """docs/systems/kalyr.md (forecast): "--samples, default 100,000 fights; --seed, default 0"."""
    duel = first_blood()
    for f in (forecast(duel, method="simulate"), simulated_forecast(duel)):
        assert f.method == "simulated" and f.samples == 100_000 and f.seed == 0
    four = E.start([[fighter("A"), fighter("C")], [fighter("B"), fighter("D")]], options={"stakes": "Hurt"})
    f = forecast(four)  # four rollers: too many for the chain, auto simulates with the same defaults
    assert f.method == "simulated" and f.samples == 100_000 and f.seed == 0


def test_start_row_takes_with_round_by_keyword_only():
    si = _setup(first_blood())
    assert start_row(si=si, with_round=False).tolist() == start_row(si, with_round=False).tolist()
    with pytest.raises(TypeError):
        start_row(si, True)  # type: ignore[misc]


def test_the_numpy_round_treats_each_fight_on_its_own():
    """A batch of fights in different states (who is still in: all three, A withdrawn, C withdrawn) gives each
    fight what the round gives it alone (the one-row round is checked against the engine in test_forecast.py),
    whether the batch holds one, two or three such states, in any order."""
    s = E.start([[fighter("A"), fighter("C", "Mediocre")], [fighter("B", "Good")]])
    si = _setup(s)
    rows = [start_row(si, with_round=True)]
    for k in (0, 1):
        out = tuple(f.model_copy(update={"withdrawn": True}) if i == k else f for i, f in enumerate(s.sides[0]))
        rows.append(start_row(_setup(s.model_copy(update={"sides": (out, s.sides[1])})), with_round=True))
    rng = np.random.default_rng(0)
    for pick in ([0, 1, 0, 1], [2, 0, 0, 2], [1, 2, 1], [0, 1, 2, 2, 1, 0], [1, 1]):
        X = np.stack([rows[i] for i in pick])
        dice = rng.integers(-4, 5, size=(len(pick), si.n))
        sb = np.zeros((len(pick), si.n), dtype=np.int64)
        got = step(X, dice, sb, si, True)
        for i in range(len(pick)):
            alone = step(X[i : i + 1], dice[i : i + 1], sb[i : i + 1], si, True)[0]
            assert got[i].tolist() == alone.tolist(), (pick, i)


def test_a_simulation_from_mid_fight_counts_rounds_from_there_and_keeps_the_cap():
    """First blood, ties rolled again, a 5-round cap, forecast from round 3: two rolls are left. A fight still
    tied after both (TIE**2) is a draw at the cap; the rest ends in the first roll left (1 - TIE) or the second
    (TIE * (1 - TIE)), and the rounds are counted from round 3 (1 and 2), however many rolls came before."""
    s = first_blood(max_rounds=5).model_copy(update={"round": 3})
    n = 20_000
    f = simulated_forecast(s, samples=n, seed=4)

    def near(got, want):
        want = float(want)
        return abs(got - want) <= 5 * (want * (1 - want) / n) ** 0.5

    assert near(f.p_draw, TIE**2) and near(f.p_win[0], (1 - TIE**2) / 2)
    assert set(f.rounds) == {1, 2}
    assert near(f.rounds[1], 1 - TIE) and near(f.rounds[2], TIE)
    assert any("forecast from round 3" in note for note in f.notes)


def test_a_fight_row_holds_seven_columns_a_fighter_then_eight_for_the_fight():
    """The row layout (the module's comment): per fighter the five box counts (Scratch .. Destroyed), Fudge points
    and withdrawn; then first, reach, inside, the two scope-outs, over, winner and the round."""
    a = Character(name="A", abilities=[{"name": "Melee", "level": "Fair"}], fudge_points=2)
    b = Character(name="B", abilities=[{"name": "Melee", "level": "Fair"}], fudge_points=3)
    s = E.start([[a], [b]], options={"stakes": "Hurt"})
    gone = s.sides[1][0].model_copy(update={"withdrawn": True})
    s = s.model_copy(update={"round": 4, "sides": (s.sides[0], (gone,))})
    si = _setup(s)
    row = start_row(si, with_round=True).tolist()
    assert len(row) == 7 * 2 + 8
    assert row[0:7] == [0, 0, 0, 0, 0, 2, 0]
    assert row[7:14] == [0, 0, 0, 0, 0, 3, 1]
    assert row[14:] == [0, -1, 0, 0, 0, 0, -1, 4]  # not the first round, no reach, no winner, round 4


def test_the_simulation_divides_by_nothing():
    """numpy's floating-point and integer warnings raised as errors: a simulated contest (simple, detailed with
    an all-out defence, a group) runs without any (a round cap is checked every round for every fight)."""
    with np.errstate(all="raise"):
        for opts in ({"stakes": "Hurt"}, {"mode": "detailed", "tactics": [{"stance": "all_out_defence"}, {}]}):
            s = E.start([[fighter("A")], [fighter("B", "Good")]], options=opts)
            assert simulated_forecast(s, samples=500, seed=1).samples == 500
        s = E.start([[fighter("A"), fighter("C")], [fighter("B", "Good")]])
        assert simulated_forecast(s, samples=500, seed=1).samples == 500


def test_a_side_emptied_in_a_saved_state_is_refused_whichever_side():
    s = first_blood()
    for sides in (((), s.sides[1]), (s.sides[0], ())):
        with pytest.raises(OddsError, match="two sides, each with at least one fighter"):
            exact_forecast(s.model_copy(update={"sides": sides}))


def test_a_detailed_contest_of_one_against_two_is_refused():
    """Detailed contests are one-on-one: a second fighter on either side is refused."""
    g = E.start([[fighter("A")], [fighter("B"), fighter("C")]])  # the engine starts no such detailed contest
    d = g.model_copy(update={"mode": "detailed"})  # a saved state edited to one
    with pytest.raises(OddsError, match="one-on-one"):
        exact_forecast(d)
    with pytest.raises(OddsError, match="one-on-one"):
        exact_forecast(d.model_copy(update={"sides": (d.sides[1], d.sides[0])}))


def test_the_work_bound_refuses_only_past_it(monkeypatch):
    """Refused "when the rounds played to enumerate pass EXACT_MAX_WORK" (the module docstring): the rounds the
    chain plays are counted here by wrapping the round function it calls; a bound of exactly that many solves the
    fight, one less refuses it."""
    played = [0]
    real = kf.contest_round

    def counted(*args):
        played[0] += 1
        return real(*args)

    monkeypatch.setattr(kf, "contest_round", counted)
    exact_forecast(first_blood())
    work = played[0]
    assert work > 2
    monkeypatch.setattr(kf, "EXACT_MAX_WORK", work)
    assert exact_forecast(first_blood()).method == "exact"
    monkeypatch.setattr(kf, "EXACT_MAX_WORK", work - 1)
    with pytest.raises(OddsError, match="too many states and dice combinations"):
        exact_forecast(first_blood())


def test_a_fudge_point_can_wipe_out_a_scratch():
    """Fudge Points: "reduce the severity of any wound by one level"; Damage: three Scratch boxes, one Hurt, one Very
    Hurt (the book's example: a Very Hurt then a Hurt fill both, the next Hurt goes to Defeated), and a wound with no
    open box takes the next highest. A, every box below Defeated full, spends Fudge points to keep out of Defeated:
    a Scratch (the stakes) would land in Defeated, so his one Fudge point takes it down a level, to nothing. The
    numpy round marks no box and takes the point."""
    wounds = [{"severity": s, "box": s} for s in ("Scratch", "Scratch", "Scratch", "Hurt", "Very Hurt")]
    a = Character(
        name="A",
        abilities=[{"name": "Melee", "level": "Fair"}],
        fudge_points=1,
        damage={"physical": {"wounds": wounds}},
    )
    s = E.start([[a], [fighter("B")]], options={"stakes": "Scratch", "tactics": [{"fudge_reduce_at": "defeated"}, {}]})
    si = _setup(s)
    X = start_row(si, with_round=True)[None, :]
    assert X[0, 0:7].tolist() == [3, 1, 1, 0, 0, 1, 0]
    dice = np.array([[-1, 1]])  # A: Fair - 2 (Very Hurt) - 1 = -3 against B's +1: B wins, A takes the Scratch
    Y = step(X, dice, np.zeros((1, 2), dtype=np.int64), si, True)
    assert Y[0, 0:7].tolist() == [3, 1, 1, 0, 0, 0, 0]


def test_an_exact_forecast_at_its_cap_still_plays_one_round():
    """From round 5 of a 5-round cap (or past it) the chain plays the one round the engine would: decided 1 - TIE,
    a tie TIE left as a draw at the cap, all of it counted in round 1."""
    for rnd in (5, 7):
        f = exact_forecast(first_blood(max_rounds=5).model_copy(update={"round": rnd}))
        assert f.p_draw == pytest.approx(float(TIE), abs=1e-15)
        assert dict(f.rounds) == {1: pytest.approx(1.0, abs=1e-15)}


def test_the_options_are_keyword_only():
    """The state first (or by name), every option by name: a positional option is refused, so a call cannot pass a
    sample count where a method was meant."""
    s = first_blood()
    with pytest.raises(TypeError, match="positional"):
        forecast(s, "exact")  # type: ignore[misc]
    with pytest.raises(TypeError, match="positional"):
        simulated_forecast(s, 100)  # type: ignore[misc]
    assert forecast(state=s, method="simulate", samples=60).samples == 60
    assert simulated_forecast(state=s, samples=50).samples == 50


def test_the_destroyed_box_note_only_for_that_tactic():
    """The note on Fudge points spent to keep a wound out of the Destroyed box is there when a fighter has that
    tactic (the default), not when every fighter spends them to keep out of Defeated, or never."""
    defeated = {"fudge_reduce_at": "defeated"}
    for tactics, said in (
        ([defeated, defeated], False),
        ([defeated, {}], True),
        ([{"fudge_reduce_at": "never"}] * 2, False),
    ):
        f = exact_forecast(first_blood(tactics=tactics))
        assert any("Destroyed box" in n for n in f.notes) == said, tactics
