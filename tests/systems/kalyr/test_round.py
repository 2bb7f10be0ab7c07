"""The round written once (issue 14): the coarse dice events the exact chain enumerates give the same
transitions as every combination of every fighter's dice, and the engine's round and the chain's are
the same function."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from itertools import product

import pytest

from storymaster.dice import DiceRng
from storymaster.forecast.chance import Rolled, Table, branches
from storymaster.systems.kalyr.checks import FudgeRolls, FudgeTotals, relative_totals
from storymaster.systems.kalyr.combat import bout_of, contest_of, contest_round
from storymaster.systems.kalyr.fight_state import Exchanging

from .test_forecast import _random_fight

COUNTS = (1, 4, 10, 16, 19, 16, 10, 4, 1)  # 4dF: ways to roll each total -4..+4 out of 81


def _joint(k: int) -> tuple[tuple[float, FudgeTotals], ...]:
    """Every combination of k 4dF totals with its probability, from the count table."""
    faces = list(zip(range(-4, 5), COUNTS, strict=True))
    return tuple(
        (float(Fraction(math.prod(n for _, n in combo), 81**k)), FudgeTotals(tuple(t for t, _ in combo)))
        for combo in product(faces, repeat=k)
    )


class EveryDie:
    """A chance that hands the round every combination of the fighters' 4dF totals (no coarse events:
    no differences of totals, no merged exchanges)."""

    narrate = False

    def __init__(self, inner) -> None:
        self.inner = inner

    def draw(self, event):
        if isinstance(event, Exchanging):
            return event.play(self)
        if isinstance(event, FudgeRolls):
            return self.inner.draw(Table(pmf=_joint(len(event.labels)), roll=lambda rng: None))
        return self.inner.draw(event)


def _merge(pairs) -> dict:
    out: dict = {}
    for p, s in pairs:
        out[s] = out.get(s, 0.0) + p
    return out


def test_relative_totals_of_two_rolls_by_hand():
    """Two 4dF: the difference d1 - d2 has 17 values; P(0) = sum of squared counts / 6561 = 1107/6561."""
    pmf = _merge((p, v.totals) for p, v in FudgeRolls(("a", "b")).outcomes())
    assert len(pmf) == 17 and sum(pmf.values()) == pytest.approx(1, abs=1e-15)
    assert pmf[(0, 0)] == pytest.approx(1107 / 6561, abs=1e-15)
    assert pmf[(8, 0)] == pytest.approx(1 / 6561, abs=1e-15)
    assert relative_totals((3, -1, 2)) == (1, -3, 0)


@pytest.mark.parametrize("seed", range(4))
def test_coarse_events_give_every_combination_of_the_dice(seed):
    """From random states of random fights (both kinds of contest, every optional rule), the chain's
    transitions (dice differences, merged exchanges) equal those of every combination of every die total."""
    rnd = random.Random(100 + seed)
    checked = 0
    while checked < 12:
        s = _random_fight(rnd)
        c = contest_of(s, count=False)
        b = bout_of(c, s)
        if b.over or sum(not f.out for f in b.fighters) > 3:
            continue
        coarse = _merge(branches(lambda ch, c=c, b=b: contest_round(c, b, ch).bout))
        fine = _merge(branches(lambda ch, c=c, b=b: contest_round(c, b, EveryDie(ch)).bout))
        assert coarse.keys() == fine.keys()
        for k, p in fine.items():
            assert coarse[k] == pytest.approx(p, abs=1e-12)
        checked += 1


def test_the_log_does_not_change_the_round():
    """The same dice through the round with and without the log: the same next state and wounds."""
    rnd = random.Random(7)
    for seed in range(60):
        s = _random_fight(rnd)
        c = contest_of(s)
        b = bout_of(c, s)
        told = contest_round(c, b, Rolled(DiceRng(seed, "round")))
        silent = contest_round(contest_of(s), b, Rolled(DiceRng(seed, "round"), narrate=False))
        assert told.bout == silent.bout and told.marks == silent.marks and told.loser == silent.loser
        assert told.events and not silent.events


def test_the_engine_reads_a_changed_fight_afresh():
    """The engine keeps what a fight's rounds cannot change from step to step; a state changed between steps
    (house rules, another track's damage, tactics) is read afresh: the same as with nothing kept."""
    from storymaster.systems.kalyr import combat
    from storymaster.systems.kalyr.options import KalyrHouseRules
    from storymaster.systems.kalyr.wounds import Track

    rnd = random.Random(11)
    changes = 0
    for seed in range(120):
        s = _random_fight(rnd)
        if s.over:
            continue
        s, _ = combat.KalyrCombat().step(s, DiceRng(seed, "warm"))
        if s.over:
            continue
        f = s.sides[0][0]
        other = "mental" if s.track != "mental" else "social"
        hurt = f.character.model_copy(
            update={
                "damage": f.character.damage.with_track(
                    other, Track.model_validate({"wounds": [{"severity": 4, "box": 4}]})
                )
            }
        )
        for changed in (
            s.model_copy(update={"house_rules": KalyrHouseRules(detailed_shields=False, detailed_reach=False)}),
            s.model_copy(update={"sides": ((f.model_copy(update={"character": hurt}), *s.sides[0][1:]), s.sides[1])}),
            s.model_copy(
                update={
                    "sides": (
                        (
                            f.model_copy(update={"tactics": f.tactics.model_copy(update={"approach": 2})}),
                            *s.sides[0][1:],
                        ),
                        s.sides[1],
                    )
                }
            ),
        ):
            combat.KalyrCombat().step(s, DiceRng(seed, "again"))  # the unchanged fight's contest is kept
            warm = combat.KalyrCombat().step(changed, DiceRng(seed, "next"))
            combat._CONTESTS.clear()
            cold = combat.KalyrCombat().step(changed, DiceRng(seed, "next"))
            assert warm[0] == cold[0] and [e.text for e in warm[1]] == [e.text for e in cold[1]]
            changes += 1
    assert changes >= 30
