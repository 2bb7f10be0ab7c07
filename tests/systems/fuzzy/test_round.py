"""One round written once (issue 14): the round's two events against brute force, and the round itself run with
real dice, with scripted outcomes and without a log, all alike."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from storymaster.dice import DiceRng
from storymaster.forecast import Rolled, Scripted
from storymaster.systems.fuzzy import SYSTEM
from storymaster.systems.fuzzy.character import CombatProfile, FuzzyCharacter, RequiredAbilities
from storymaster.systems.fuzzy.combat import FightState, exchange_margins, play_round
from storymaster.systems.fuzzy.options import FuzzyHouseRules
from storymaster.systems.fuzzy.rolls import AbilityTest, AbilityTestResult, Contest, Contested

NO_EXPLOSIONS = FuzzyHouseRules(critical_bonus_max_explosions=0)


def _brute_totals(dice: int) -> dict[int, Fraction]:
    """Every face of ``dice`` d6 plus the bonus die (no re-rolls), straight from the book's critical rule."""
    out: dict[int, Fraction] = {}
    for faces in itertools.product(range(1, 7), repeat=dice + 1):
        *roll, bonus = faces
        total = sum(roll) + (bonus if roll[0] == roll[1] == 6 else 0)
        out[total] = out.get(total, Fraction(0)) + Fraction(1, 6 ** (dice + 1))
    return out


@pytest.mark.parametrize("dice,target", [(2, 7), (2, 13), (3, 10), (3, 4), (2, 19)])
def test_an_ability_test_passes_as_often_as_the_faces_say(dice, target):
    expect = sum((p for t, p in _brute_totals(dice).items() if t >= target), Fraction(0))
    outcomes = AbilityTest(dice, target, NO_EXPLOSIONS).outcomes()
    got = {o.passed: p for p, o in outcomes}
    assert got.get(True, 0.0) == pytest.approx(float(expect), abs=1e-15)
    assert got.get(False, 0.0) == pytest.approx(float(1 - expect), abs=1e-15)
    assert all(p > 0 for p, _ in outcomes)


def test_a_contest_is_the_exchange_margins_and_lumps_only_past_the_decisive_margin():
    fights = SYSTEM.combat.start(
        [[_fighter("A", 3)], [_fighter("B", 2)]],
        options={"tactics": [{"appropriateness": 1}, {}]},
    )
    exact = exchange_margins(fights, "A", "B")
    plain = {o.margin: p for p, o in Contest((3, 2), (1, 0), fights.house_rules).outcomes()}
    assert plain.keys() == exact.keys()
    assert max(abs(float(p) - plain[g]) for g, p in exact.items()) < 1e-15
    lumped = {o.margin: p for p, o in Contest((3, 2), (1, 0), fights.house_rules, decisive=(6, 4)).outcomes()}
    assert max(lumped) == 6 and min(lumped) == -4
    assert lumped[6] == pytest.approx(float(sum((p for g, p in exact.items() if g >= 6), Fraction(0))), abs=1e-15)
    assert lumped[-4] == pytest.approx(float(sum((p for g, p in exact.items() if g <= -4), Fraction(0))), abs=1e-15)
    assert all(lumped[g] == plain[g] for g in range(-3, 6))


def _fighter(name: str, body: int, tenacity: int = 2, **combat) -> FuzzyCharacter:
    profile = {"weapon": "sword", "weapon_lethality": "normal", **combat}
    return FuzzyCharacter(
        name=name, required=RequiredAbilities(body=body, tenacity=tenacity), combat=CombatProfile(**profile)
    )


class Recording(Rolled):
    """The engine's chance, keeping what each draw came to."""

    def __init__(self, rng: DiceRng) -> None:
        super().__init__(rng)
        self.seen: list[object] = []

    def draw(self, event):  # type: ignore[no-untyped-def]
        value = super().draw(event)
        self.seen.append(value)
        return value


def _bare(value: object) -> object:
    """The outcome as the chain sees it: no dice attached."""
    if isinstance(value, Contested):
        return Contested(value.margin)
    assert isinstance(value, AbilityTestResult)
    return AbilityTestResult(value.passed)


FIGHTS = {
    "duel": lambda: SYSTEM.combat.start([[_fighter("A", 3)], [_fighter("B", 3)]]),
    "2v1, non-lethal with a Body test": lambda: SYSTEM.combat.start(
        [[_fighter("A", 3), _fighter("C", 2)], [_fighter("B", 4)]],
        house_rules=FuzzyHouseRules(nonlethal_body_test=6, advantage_on_loss="offset"),
        options={
            "tactics": [
                {"intent": "non-lethal", "manoeuvres": [{"name": "trip", "cost": 2, "roll_bonus": 1}]},
                {"stance": "all-out attack"},
            ]
        },
    ),
}


@pytest.mark.parametrize("name", list(FIGHTS))
def test_the_round_gives_the_same_fight_with_dice_with_scripted_outcomes_and_without_a_log(name):
    for seed in range(40):
        state: FightState = FIGHTS[name]()
        rng = DiceRng(seed, "round")
        while not state.over:
            before = rng.counter
            chance = Recording(rng)
            played = play_round(state, chance)
            again = play_round(state, Scripted([_bare(v) for v in chance.seen], narrate=False))
            assert again.fighters == played.fighters and again.pools == played.pools
            assert again.events == [] and (played.events or not chance.seen)
            state, _ = SYSTEM.combat.step(state, DiceRng(seed, "round", before))
            assert state.fighters == tuple(played.fighters[f.key] for f in state.fighters)


def _exact_without(monkeypatch, state: FightState, *, lump: bool = True, clamp: bool = True):
    from storymaster.systems.fuzzy import combat, forecast

    with monkeypatch.context() as m:
        if not lump:
            m.setattr(combat, "killing_points", lambda *args: None)
        if not clamp:
            m.setattr(forecast._Duel, "clamp", lambda self, x, pool, bought: pool)
        return forecast.exact_forecast(state).to_json()


def _close(a, b):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return abs(a - b) < 1e-12
    return a == b


@pytest.mark.parametrize("ruling", ["keep", "offset", "lose"])
def test_the_chain_lumping_margins_past_a_killing_blow_changes_no_answer(monkeypatch, ruling):
    """The chain's one shortcut in the contested roll, against the chain without it (every margin its own branch)."""
    state = SYSTEM.combat.start(
        [[_fighter("A", 3)], [_fighter("B", 2, weapon_lethality="especially damaging")]],
        house_rules=FuzzyHouseRules(advantage_on_loss=ruling, max_rounds=12),
        options={"tactics": [{"harm_at": "serious"}, {"stance": "all-out attack"}]},
    )
    assert _close(_exact_without(monkeypatch, state), _exact_without(monkeypatch, state, lump=False))


def test_the_chain_capping_a_harmless_fighters_points_changes_no_answer(monkeypatch):
    """A fighter who cannot hurt keeps no more points in the chain than his manoeuvres still cost; a short fight
    (the round cap keeps the chain finite) gives the same answer without that cap."""
    state = SYSTEM.combat.start(
        [[_fighter("A", 3)], [_fighter("B", 3)]],
        house_rules=FuzzyHouseRules(max_rounds=6),
        options={
            "tactics": [
                {
                    "stance": "all-out defence",
                    "manoeuvres": [
                        {"name": "feint", "cost": 2, "roll_bonus": 1},
                        {"name": "leg it", "cost": 5, "ends_fight": True},
                    ],
                },
                {"harm_at": "mortal"},
            ]
        },
    )
    assert _close(_exact_without(monkeypatch, state), _exact_without(monkeypatch, state, clamp=False))
