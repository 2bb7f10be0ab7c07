"""The whole-fight forecast (issue 10): hand-computed and brute-force pins, the one-round function
against the engine's own round, and whole forecasts against the engine fight by fight."""

from __future__ import annotations

import random
from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from storymaster.dice import DiceRng
from storymaster.errors import OddsError
from storymaster.forecast import Forecaster, fight_by_fight, play_out
from storymaster.systems.kalyr import SYSTEM
from storymaster.systems.kalyr.character import Character
from storymaster.systems.kalyr.combat import FightState
from storymaster.systems.kalyr.forecast import (
    FC,
    _setup,
    end_state,
    exact_forecast,
    simulated_forecast,
    start_row,
    step,
)
from storymaster.systems.kalyr.options import KalyrHouseRules
from storymaster.systems.kalyr.wounds import DEFEATED, Track, mark_wound

E = SYSTEM.combat
DF = {d: Fraction(c, 81) for d, c in zip(range(-4, 5), (1, 4, 10, 16, 19, 16, 10, 4, 1), strict=True)}
TIE = Fraction(1107, 6561)  # two 4dF rolls showing the same total

OFF = KalyrHouseRules(
    detailed_minimum_to_hit=False,
    detailed_reach=False,
    detailed_shields=False,
    detailed_weapon_size=False,
    detailed_aimed_blows=False,
    detailed_all_out=False,
    detailed_scope_out=False,
)


def fighter(name, level="Fair", **kw):
    return Character(name=name, abilities=[{"name": "Melee", "level": level}], **kw)


def ends(state):
    return {f.name: end_state(f, state.track) for s in state.sides for f in s}


def engine(state, samples, seed=0):
    names = [[f.name for f in s] for s in state.sides]
    return fight_by_fight("kalyr", E, state, samples=samples, seed=seed, sides=names, end_state=ends)


def agree(forecast, reference, z=4.0):
    """Each side's p_win within z combined standard errors (the engine sample's, plus the forecast's if simulated)."""
    for p, q in zip(forecast.p_win, reference.p_win, strict=True):
        var = q * (1 - q) / reference.samples + (p * (1 - p) / forecast.samples if forecast.samples else 0)
        var = max(var, 0.25 / reference.samples**2)
        assert abs(p - q) <= z * var**0.5, (forecast.p_win, reference.p_win)


# ---- pins computed by hand or brute force ----------------------------------------------------------


def test_system_is_a_forecaster():
    assert isinstance(SYSTEM, Forecaster)


def test_even_duel_to_first_blood_by_hand():
    """Fair against Fair, stakes Hurt: 1/2 each; a tie (1107/6561) is rolled again."""
    s = E.start([[fighter("A")], [fighter("B")]], options={"stakes": "Hurt"})
    f = SYSTEM.forecast(s, method="exact")
    assert f.method == "exact" and f.error < 1e-12
    assert f.p_win == pytest.approx((0.5, 0.5), abs=1e-12) and f.p_draw == pytest.approx(0, abs=1e-12)
    assert f.rounds[1] == pytest.approx(float(1 - TIE), abs=1e-12)
    assert f.rounds[2] == pytest.approx(float(TIE * (1 - TIE)), abs=1e-12)
    a = {c.name: dict(c.end_states) for c in f.combatants}["A"]
    assert a == pytest.approx({"unhurt": 0.5, "Hurt": 0.5}, abs=1e-12)


def test_tie_is_an_honourable_draw_by_hand():
    s = E.start([[fighter("A")], [fighter("B")]], options={"on_tie": "draw"})
    f = SYSTEM.forecast(s, method="exact")
    assert f.p_draw == pytest.approx(float(TIE), abs=1e-12)
    assert f.p_win[0] == pytest.approx(float((1 - TIE) / 2), abs=1e-12)
    assert dict(f.rounds) == pytest.approx({1: 1.0}) and "honourable draw" in f.draw_meaning


def test_one_step_better_wins_first_blood_by_hand():
    """Good against Fair: P(d + 1 > e) / (1 - P(d + 1 = e)), the 4dF distribution convolved by hand."""
    win = sum((p * q for d, p in DF.items() for e, q in DF.items() if d + 1 > e), Fraction(0))
    tie = sum((p * q for d, p in DF.items() for e, q in DF.items() if d + 1 == e), Fraction(0))
    s = E.start([[fighter("A", "Good")], [fighter("B")]], options={"stakes": "Hurt"})
    assert SYSTEM.forecast(s, method="exact").p_win[0] == pytest.approx(float(win / (1 - tie)), abs=1e-12)


def _brute_force_duel(level_a: int, level_b: int, weapon: int) -> Fraction:
    """A detailed duel with every optional rule off and no Fudge points, by recursion over both tracks:
    the winner of a round deals ceil((margin + weapon) / 2) points; Hurt -1, Very Hurt -2; ties hurt nobody."""
    pen = {0: 0, 1: 0, 2: -1, 3: -2}

    def mark(track: tuple, points: int) -> tuple:
        sev = min(max(points, 0), 5)
        t, _ = mark_wound(Track.model_validate({"wounds": [{"severity": b, "box": b} for b in track]}), sev)
        return tuple(w.box for w in t.wounds)

    @cache
    def p(ta: tuple, tb: tuple) -> Fraction:
        sa, sb = max(ta, default=0), max(tb, default=0)
        if sb >= DEFEATED:
            return Fraction(1)
        if sa >= DEFEATED:
            return Fraction(0)
        ea, eb = level_a + pen[sa], level_b + pen[sb]
        stay, total = Fraction(0), Fraction(0)
        for d, x in DF.items():
            for e, y in DF.items():
                m = (ea + d) - (eb + e)
                if m == 0:
                    stay += x * y
                    continue
                pts = -(-(abs(m) + weapon) // 2)
                nxt = (ta, tuple(sorted(mark(tb, pts)))) if m > 0 else (tuple(sorted(mark(ta, pts))), tb)
                total += x * y * p(*nxt)
        return total / (1 - stay)

    return p((), ())


@pytest.mark.parametrize(("a", "b", "weapon"), [("Fair", "Fair", 0), ("Good", "Fair", 1), ("Mediocre", "Great", 3)])
def test_detailed_duel_against_brute_force(a, b, weapon):
    from storymaster.systems.kalyr.ladder import parse_level

    w = {"name": "blade", "damage": weapon, "reach": "medium"}
    s = E.start(
        [[fighter("A", a, weapon=w, fudge_points=0)], [fighter("B", b, weapon=w, fudge_points=0)]],
        house_rules=OFF,
        options={"mode": "detailed"},
    )
    f = SYSTEM.forecast(s, method="exact")
    want = _brute_force_duel(parse_level(a), parse_level(b), weapon)
    assert f.p_win[0] == pytest.approx(float(want), abs=1e-9)
    assert f.p_win[0] + f.p_win[1] + f.p_draw == pytest.approx(1, abs=1e-9)


# ---- the round function against the engine's round -----------------------------------------------


class Scripted(DiceRng):
    """Fudge dice from a script, counting how many were used."""

    __slots__ = ("script", "used")

    def __init__(self, faces: list[int]) -> None:
        super().__init__("scripted", "forecast")
        self.script, self.used = list(faces), 0

    def die(self, sides: int) -> int:
        assert sides == 3
        self.used += 1
        return self.script.pop(0) + 2


WEAPONS = ["unarmed", "knife", "mace", "polearm", "two-handed sword"]
ARMOURS = ["none", "lightweight armour", "hardened ulsoghir hide"]


def _random_character(rnd: random.Random, name: str, track: str) -> Character:
    c = Character(
        name=name,
        scale=rnd.choice([0, 0, 0, 1, -1]),
        abilities=[
            {"name": "Melee", "level": rnd.randint(-2, 3), "track": track},
            {"name": "Perception", "level": rnd.randint(-2, 3)},
            {"name": "Tactics", "level": rnd.randint(-2, 3), "track": "mental"},
        ],
        gifts=[{"name": "Extra Damage"}] if rnd.random() < 0.3 else [],
        weapon={"name": rnd.choice(WEAPONS)},
        armour={"name": rnd.choice(ARMOURS)},
        shield=rnd.choice(["none", "none", "small", "medium", "large"]),
        fudge_points=rnd.choice([0, 1, 1, 2]),
    )
    tracks = {}
    for t in ("physical", "mental", "social"):
        tr = Track()
        for _ in range(rnd.choice([0, 0, 1, 2, 3])):
            tr, _ = mark_wound(tr, rnd.choice([1, 1, 2, 3] if t == track else [1, 2, 3, 4]))
        tracks[t] = tr
    return c.model_copy(update={"damage": c.damage.model_copy(update=tracks)})


def _random_fight(rnd: random.Random) -> FightState:
    mode = rnd.choice(["simple", "detailed", "detailed"])
    track = rnd.choice(["physical", "physical", "mental"])
    sizes = (1, 1) if mode == "detailed" else (rnd.randint(1, 3), rnd.randint(1, 3))
    hr = KalyrHouseRules(
        **{
            k: rnd.random() < 0.8
            for k in (
                "detailed_minimum_to_hit",
                "detailed_reach",
                "detailed_shields",
                "detailed_weapon_size",
                "detailed_aimed_blows",
                "detailed_all_out",
                "detailed_scope_out",
                "simple_armament_bonus",
            )
        },
        detailed_winner_takes_damage=rnd.random() < 0.2,
        critical_rule=rnd.choice(["dice_plus_4", "margin_3"]),
        simple_reach_bonus=rnd.choice([0, 1, 2]),
        outnumbering_max_penalty=rnd.choice([None, None, 1]),
        cross_track_penalty_stacks=rnd.random() < 0.7,
    )
    while True:
        sides = [[_random_character(rnd, f"{'AB'[s]}{i}", track) for i in range(n)] for s, n in enumerate(sizes)]
        tactics = [
            {
                "approach": rnd.randint(-2, 2),
                "stance": rnd.choice(["normal", "all_out_offence", "all_out_defence"]),
                "aim": rnd.choice(["none", "none", "good", "great"]),
                "withdraw_at": rnd.choice([None, None, 1, 2, 3]),
                "fudge_reduce_at": rnd.choice(["never", "defeated", "destroyed"]),
            }
            for _ in (0, 1)
        ]
        options = {
            "mode": mode,
            "track": track,
            "ranged": rnd.random() < 0.2,
            "on_tie": rnd.choice(["reroll", "draw"]),
            "tactics": tactics,
            "max_rounds": rnd.choice([1, 2, 50]),
        }
        if mode == "simple" and rnd.random() < 0.3:
            options["stakes"] = rnd.choice([1, 2, 3, 4])
        try:
            s = E.start(sides, house_rules=hr, options=options)
        except Exception:  # a side already Defeated: draw again
            continue
        hurt = [f.character.damage.track(track).status for side in s.sides for f in side]
        if mode == "detailed" and max(hurt) >= DEFEATED:
            continue
        if mode == "detailed":
            s = s.model_copy(
                update={
                    "round": rnd.choice([0, 0, 1, 3]),
                    "reach_penalty": rnd.choice([None, 0, 1]),
                    "inside_reach": rnd.random() < 0.4,
                    "scope_penalty": (rnd.choice([0, -1]), rnd.choice([0, -1])),
                }
            )
        return s


def _scope_base(f, faces: list[int]) -> tuple[int, int]:
    """The Perception/Tactics result before modifiers from the scripted dice, and the dice it used."""
    from storymaster.systems.kalyr.abilities import ability_level

    p, t = ability_level(f.character, "Perception")[0], ability_level(f.character, "Tactics")[0]
    if p >= 0 and t >= 0:
        return max(p + sum(faces[:4]), t + sum(faces[4:8])), 8
    return max(p, t) + sum(faces[:4]), 4


def test_one_round_matches_the_engine_round():
    """400 random states (both kinds of contest, every optional rule, wounds, Fudge points, reach,
    stances, withdrawal, the round cap) and dice: the numpy round gives the engine's next state."""
    rnd = random.Random(10)
    kinds = set()
    for case in range(400):
        s = _random_fight(rnd)
        su = _setup(s)
        faces = [rnd.choice([-1, 0, 1]) for _ in range(4 * su.n + 16)]
        rng = Scripted(faces)
        new, events = E.step(s, rng)
        rollers = [
            j
            for j, f in enumerate(su.c.fighters)
            if not (f.withdrawn or f.character.damage.track(s.track).status >= DEFEATED)
        ]
        dice = np.zeros((1, su.n), dtype=np.int64)
        for k, j in enumerate(rollers):
            dice[0, j] = sum(faces[4 * k : 4 * k + 4])
        sb = np.full((1, su.n), 100, dtype=np.int64)  # a fighter the engine did not roll for would succeed: caught
        pos = 4 * len(rollers)
        for e in events:
            if e.kind == "scope":
                j = su.names.index(e.actor)
                sb[0, j], used = _scope_base(su.c.fighters[j], faces[pos:])
                pos += used
        assert pos == rng.used, case
        got = step(start_row(su, with_round=True)[None, :], dice, sb, su, True)[0]
        want = start_row(_setup(new), with_round=True)
        assert got.tolist() == want.tolist(), (case, s.mode, [e.text for e in events])
        kinds.update(e.kind for e in events)
    assert {"hit", "standoff", "defended", "dodge", "withdraw", "scope", "contest", "draw", "over"} <= kinds


# ---- whole forecasts against the engine ------------------------------------------------------------


def _kylar_bandit(example, **options):
    return E.start([[example("kylar")], [example("bandit")]], options=options)


def test_detailed_exact_agrees_with_the_engine(example):
    s = E.start(
        [[example("kylar")], [example("bandit")]],
        house_rules=KalyrHouseRules(critical_rule="margin_3"),
        options={"mode": "detailed", "tactics": [{"stance": "all_out_defence", "approach": 2}, {"approach": 2}]},
    )
    f = SYSTEM.forecast(s)
    assert f.mean_rounds < 8
    assert f.method == "exact" and f.error < 1e-9
    ref = engine(s, 1500)
    agree(f, ref)
    for c in f.combatants:
        assert sum(c.end_states.values()) == pytest.approx(1, abs=1e-9)


def test_detailed_reach_withdrawal_and_aim_agree_with_the_engine():
    a = fighter("Pikeman", "Good", weapon={"name": "polearm"}, armour={"name": "lightweight armour"})
    b = fighter("Knifer", "Great", weapon={"name": "knife"}, shield="small")
    tactics = [{"aim": "good"}, {"withdraw_at": "Hurt", "approach": 1}]
    s = E.start([[a], [b]], options={"mode": "detailed", "tactics": tactics})
    f = SYSTEM.forecast(s, method="exact")
    ref = engine(s, 1500, seed=1)
    agree(f, ref)

    def withdrew(c):
        return sum(p for k, p in c.end_states.items() if k.startswith("withdrew"))

    assert withdrew(f.combatants[1]) > 0.03 and withdrew(ref.combatants[1]) > 0.03
    assert withdrew(f.combatants[0]) == 0


def test_group_contest_exact_agrees_with_the_engine(example):
    s = E.start([[example("kylar"), fighter("Squire", "Mediocre")], [example("bandit")]], options={})
    f = SYSTEM.forecast(s)
    assert f.method == "exact"
    agree(f, engine(s, 1500, seed=2))


def test_big_group_contest_is_simulated_and_agrees_with_the_engine(example):
    s = E.start(
        [
            [example("kylar"), fighter("Squire", "Mediocre"), fighter("Guard")],
            [example("bandit"), fighter("Thug"), fighter("Thug")],
        ],
        options={},
    )
    with pytest.raises(OddsError, match="too many dice"):
        SYSTEM.forecast(s, method="exact")
    f = SYSTEM.forecast(s, samples=20_000, seed=5)
    assert f.method == "simulated" and any("simulated" in n for n in f.notes)
    assert {c.name for c in f.combatants} == {"Kylar", "Squire", "Guard", "Bandit heavy", "Thug", "Thug #2"}
    sides = [["Kylar", "Squire", "Guard"], ["Bandit heavy", "Thug", "Thug"]]
    ref = fight_by_fight("kalyr", E, s, samples=1000, seed=3, sides=sides)
    agree(f, ref)


@pytest.mark.parametrize(
    "options",
    [
        {"mode": "detailed", "tactics": [{"stance": "all_out_defence"}, {"approach": 2, "stance": "all_out_offence"}]},
        {"mode": "detailed", "tactics": [{"fudge_reduce_at": "defeated"}, {"withdraw_at": "Hurt"}]},
        {"mode": "simple", "on_tie": "draw"},
        {"mode": "simple", "stakes": "Very Hurt"},
    ],
)
def test_exact_and_simulated_agree(example, options):
    s = _kylar_bandit(example, **options)
    ex = SYSTEM.forecast(s, method="exact")
    sim = SYSTEM.forecast(s, method="simulate", samples=40_000, seed=7)
    assert sim.method == "simulated" and sim.samples == 40_000
    for p, q in zip((*ex.p_win, ex.p_draw), (*sim.p_win, sim.p_draw), strict=True):
        assert abs(p - q) <= 4 * max(q * (1 - q), 1e-4) ** 0.5 / 40_000**0.5
    assert abs(ex.mean_rounds - sim.mean_rounds) < 0.05 * ex.mean_rounds + 0.02


def test_simulation_is_reproducible(example):
    s = _kylar_bandit(example, mode="detailed")
    a = simulated_forecast(s, samples=3000, seed=11)
    b = simulated_forecast(s, samples=3000, seed=11)
    assert a.p_win == b.p_win and dict(a.rounds) == dict(b.rounds)
    assert a.intervals[0][0] < a.p_win[0] < a.intervals[0][1]


def test_mid_fight_forecast_agrees_with_the_engine(example):
    start = _kylar_bandit(example, mode="detailed", tactics=[{}, {"approach": 2}])
    for seed in range(20):
        rng, s = DiceRng(seed, "kalyr-fight"), start
        for _ in range(2):
            s, _ = E.step(s, rng)
        if not s.over and any(f.character.damage.physical.status for side in s.sides for f in side):
            break
    assert not s.over and s.round == 2
    s = FightState.model_validate_json(s.model_dump_json())  # as saved by 'fight --save-state'
    f = SYSTEM.forecast(s)
    assert f.method == "exact" and any("from round 2" in n for n in f.notes)
    agree(f, engine(s, 1500, seed=4))


def test_round_cap_is_a_draw():
    tank = {"name": "plate", "armour": 12}
    s = E.start(
        [[fighter("A", armour=tank)], [fighter("B", armour=tank)]], options={"mode": "detailed", "max_rounds": 30}
    )
    f = exact_forecast(s)
    assert f.p_draw == pytest.approx(1) and dict(f.rounds) == pytest.approx({30: 1.0})
    final, steps = play_out(E, s, DiceRng(0, "x"))
    assert final.winner is None and steps == 30


def test_short_round_cap_agrees_with_the_engine():
    s = E.start([[fighter("A")], [fighter("B", "Good")]], options={"mode": "detailed", "max_rounds": 3})
    f = SYSTEM.forecast(s, method="exact")
    assert f.p_draw > 0.2 and max(f.rounds) == 3 and f.error < 1e-12
    assert sum(f.rounds.values()) == pytest.approx(1, abs=1e-12)
    for c in f.combatants:  # the fights still going at the cap are counted in each fighter's end states too
        assert sum(c.end_states.values()) == pytest.approx(1, abs=1e-12)
    ref = engine(s, 2000, seed=6)
    agree(f, ref)
    assert abs(f.p_draw - ref.p_draw) < 4 * (ref.p_draw * (1 - ref.p_draw) / 2000) ** 0.5


def test_a_finished_fight_forecasts_itself(example):
    s = _kylar_bandit(example, stakes="Hurt")
    s, _ = play_out(E, s, DiceRng(1, "done"))
    f = SYSTEM.forecast(s)
    assert f.p_win[s.winner] == 1 and dict(f.rounds) == {0: 1.0}


def test_bad_requests():
    s = E.start([[fighter("A")], [fighter("B")]])
    with pytest.raises(OddsError, match="auto, exact or simulate"):
        SYSTEM.forecast(s, method="guess")
    with pytest.raises(OddsError, match="not a Kalyr fight state"):
        SYSTEM.forecast(Character(name="x"))
    with pytest.raises(OddsError, match="1 to"):
        SYSTEM.forecast(s, method="simulate", samples=0)


def test_fudge_tactics_change_the_forecast(example):
    base = _kylar_bandit(example, mode="detailed")
    never = _kylar_bandit(example, mode="detailed", tactics=[{"fudge_reduce_at": "never"}, {}])
    a, b = SYSTEM.forecast(base), SYSTEM.forecast(never)
    destroyed = {c.name: c.end_states.get("Destroyed", 0) for c in b.combatants}["Kylar"]
    assert {c.name: c.end_states.get("Destroyed", 0) for c in a.combatants}["Kylar"] < destroyed
    assert "no Fudge points on wounds" in b.tactics["A"]


def test_fc_layout_constant():
    assert FC == 7


def test_exact_and_simulated_agree_on_random_fights():
    """30 random fights (the round test's generator): where the chain answers, the simulation agrees
    with it on every side's p_win and the draw; where it refuses, the refusal names the reason."""
    rnd = random.Random(3)
    solved = refused = 0
    for i in range(30):
        s = _random_fight(rnd)
        try:
            ex = SYSTEM.forecast(s, method="exact")
        except OddsError as exc:
            assert "too many dice" in exc.message
            refused += 1
            continue
        solved += 1
        sim = SYSTEM.forecast(s, method="simulate", samples=20_000, seed=i)
        for p, q in zip((*ex.p_win, ex.p_draw), (*sim.p_win, sim.p_draw), strict=True):
            assert abs(p - q) <= 4.5 * max((q * (1 - q) / 20_000) ** 0.5, 1e-4), (i, ex.p_win, sim.p_win)
        assert sum(ex.p_win) + ex.p_draw == pytest.approx(1, abs=1e-9)
    assert solved >= 20 and refused >= 3
