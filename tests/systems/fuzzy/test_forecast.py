"""Whole-fight forecasts: exact duels pinned by brute force, both methods against the engine and each other, the CLI."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import pytest
from fuzzy_helpers import EXAMPLES, ROOT

from storymaster.errors import OddsError
from storymaster.forecast import Forecaster, fight_by_fight
from storymaster.rules import load_model
from storymaster.systems.fuzzy import SYSTEM
from storymaster.systems.fuzzy.character import CombatProfile, FuzzyCharacter, RequiredAbilities
from storymaster.systems.fuzzy.combat import FightState
from storymaster.systems.fuzzy.forecast import (
    STATE_NAMES,
    end_states,
    exact_forecast,
    simulate_forecast,
)
from storymaster.systems.fuzzy.options import FuzzyHouseRules

ENGINE = SYSTEM.combat


def fighter(name: str, body: int = 2, tenacity: int = 2, **combat) -> FuzzyCharacter:
    profile = {"weapon": "sword", "weapon_lethality": "normal", **combat}
    return FuzzyCharacter(
        name=name, required=RequiredAbilities(body=body, tenacity=tenacity), combat=CombatProfile(**profile)
    )


def example(name: str) -> FuzzyCharacter:
    return load_model(EXAMPLES / f"{name}.yaml", FuzzyCharacter)


def start(sides, tactics=None, house=None, by_name=None) -> FightState:
    return ENGINE.start(
        sides, house_rules=house, options={"tactics": tactics or [{}, {}], "tactics_by_name": by_name or {}}
    )


def engine_forecast(state: FightState, n: int, seed: str):
    sides = [[f.key for f in state.fighters if f.side == s] for s in (0, 1)]
    return fight_by_fight("fuzzy", ENGINE, state, samples=n, seed=seed, sides=sides, end_state=end_states)


def agree(p: float, q: float, n_p: int | None, n_q: int) -> bool:
    """Within 4 standard errors of the two samples combined (n_p None: p is exact)."""
    pm = min(1.0, max(0.0, (p + q) / 2))
    var = pm * (1 - pm) / n_q + (pm * (1 - pm) / n_p if n_p else 0.0)
    return abs(p - q) <= 4 * math.sqrt(var) + 1e-9


# -- exact answers, by brute force -------------------------------------------------------------------


def test_one_round_decides_pinned_by_brute_force():
    """Defence Total 1 (really deadly blades, Body 1) and a Tenacity target nobody makes: the first winner wins.

    A rolls 2d6 (double 6 adds a bonus d6, which does not explode), B one die (no criticals with one die).
    A winning margin g is then a wound of level min(4, g) on B: moderate/serious incapacitate (the test
    fails), mortal leaves B unconscious and dying, 4 or more kills.
    """
    house = FuzzyHouseRules(
        tenacity_target=100, critical_bonus_max_explosions=0, one_die_second_die_for_criticals=False
    )
    a = fighter("A", body=2, weapon_lethality="really deadly")
    b = fighter("B", body=1, weapon_lethality="really deadly")
    state = start([[a], [b]], house=house)
    ways: dict[int, Fraction] = {}
    for c1, c2, bonus, y in itertools.product(range(1, 7), repeat=4):
        x = c1 + c2 + (bonus if c1 == c2 == 6 else 0)
        ways[x - y] = ways.get(x - y, Fraction(0)) + Fraction(1, 6**4)
    decided = 1 - ways.get(0, Fraction(0))
    p_a = sum((p for g, p in ways.items() if g > 0), Fraction(0)) / decided
    f = exact_forecast(state)
    assert f.method == "exact" and f.error < 1e-12
    assert f.p_win[0] == pytest.approx(float(p_a), abs=1e-12)
    assert p_a == Fraction(181, 201)  # pinned: 1296 outcomes, 1206 decided, 1086 of them for A
    assert f.p_draw == 0
    assert f.rounds[1] == pytest.approx(float(decided), abs=1e-12)
    assert f.rounds[2] == pytest.approx(float(decided * (1 - decided)), abs=1e-12)
    b_end = dict(next(c for c in f.combatants if c.name == "B").end_states)
    level = {1: "incapacitated", 2: "incapacitated", 3: "unconscious, dying"}
    expect: dict[str, Fraction] = {}
    for g, p in ways.items():
        if g > 0:
            key = level.get(g, "dead")
            expect[key] = expect.get(key, Fraction(0)) + p / decided
    expect["unhurt"] = 1 - p_a
    assert b_end.keys() == expect.keys()
    for k, v in expect.items():
        assert b_end[k] == pytest.approx(float(v), abs=1e-12)


def test_nobody_can_hurt_is_a_stand_off_at_the_cap():
    house = FuzzyHouseRules(max_rounds=12)
    state = start(
        [[fighter("A", weapon_lethality="harmless")], [fighter("B")]], [{}, {"stance": "all-out defence"}], house
    )
    f = exact_forecast(state)
    assert f.p_win == (0.0, 0.0) and f.p_draw == pytest.approx(1.0)
    assert dict(f.rounds) == {12: pytest.approx(1.0)}
    assert all(dict(c.end_states) == {"unhurt": pytest.approx(1.0)} for c in f.combatants)
    s = simulate_forecast(state, samples=500)
    assert s.p_draw == 1.0 and dict(s.rounds) == {12: 1.0}


def test_a_short_round_cap_gives_stand_offs_with_their_ends():
    state = start([[example("achmed")], [example("sven")]], house=FuzzyHouseRules(max_rounds=3))
    f = exact_forecast(state)
    # A stand-off at a cap of 3 is exactly "not decided within 3 rounds" of the same fight without a
    # practical cap: two runs of the chain under different house rules must agree (no copied number).
    long = exact_forecast(start([[example("achmed")], [example("sven")]], house=FuzzyHouseRules(max_rounds=200)))
    undecided = 1 - sum(p for r, p in long.rounds.items() if r <= 3)
    assert max(f.rounds) == 3 and 0.05 < undecided < 0.95
    assert f.p_draw == pytest.approx(undecided, abs=1e-12)
    assert sum(f.p_win) + f.p_draw == pytest.approx(1.0, abs=1e-12)
    for c in f.combatants:
        assert sum(c.end_states.values()) == pytest.approx(1.0, abs=1e-12)
    n = 1000
    e = engine_forecast(state, n, "cap-3")
    assert agree(f.p_draw, e.p_draw, None, n) and agree(f.p_win[0], e.p_win[0], None, n)
    sven = dict(next(c for c in f.combatants if c.name == "Sven").end_states)
    seen = dict(next(c for c in e.combatants if c.name == "Sven").end_states)
    assert agree(sven["unhurt"], seen.get("unhurt", 0.0), None, n)


def test_a_fight_already_over_is_certain():
    state = start([[fighter("A", body=5)], [fighter("B", body=1)]])
    from storymaster.dice import DiceRng

    final, _ = ENGINE.run(state, DiceRng("over", "test"))
    f = SYSTEM.forecast(final)
    assert f.p_win[final.winner] == 1.0 and f.error == 0


def test_the_system_is_a_forecaster():
    assert isinstance(SYSTEM, Forecaster)


# -- agreement with the engine, fight by fight ---------------------------------------------------------


def _mid_fight() -> FightState:
    from storymaster.dice import DiceRng

    state = start([[example("achmed")], [example("sven")]])
    rng = DiceRng("mid-fight", "test")
    while True:
        nxt, _ = ENGINE.step(state, rng)
        if nxt.over:
            state = start([[example("achmed")], [example("sven")]])
            continue
        if nxt.pools and any(f.wounds for f in nxt.fighters):
            return nxt
        state = nxt


@pytest.mark.parametrize("which", ["start", "mid-fight"])
def test_exact_duel_agrees_with_the_engine(which):
    state = start([[example("achmed")], [example("sven")]]) if which == "start" else _mid_fight()
    f = exact_forecast(state)
    n = 1200
    e = engine_forecast(state, n, f"agree-{which}")
    for side in (0, 1):
        assert agree(f.p_win[side], e.p_win[side], None, n), (f.p_win, e.p_win)
    assert abs(f.mean_rounds - e.mean_rounds) < 0.5
    for c in f.combatants:
        seen = dict(next(x for x in e.combatants if x.name == c.name).end_states)
        for label in ("unhurt", "incapacitated"):
            assert agree(c.end_states.get(label, 0.0), seen.get(label, 0.0), None, n), (c.name, label)


def test_a_team_fight_down_to_one_a_side_is_exact():
    state = start([[example("achmed"), example("rincewind")], [example("sven"), example("detritus")]])
    down = {"Rincewind": {"status": "incapacitated"}, "Detritus": {"status": "dead"}}
    state = state.model_copy(
        update={"round": 4, "fighters": tuple(f.model_copy(update=down.get(f.key, {})) for f in state.fighters)}
    )
    f = SYSTEM.forecast(state)
    assert f.method == "exact"
    ends = {c.name: dict(c.end_states) for c in f.combatants}
    assert ends["Detritus"] == {"dead": pytest.approx(1.0)} and ends["Rincewind"] == {
        "incapacitated": pytest.approx(1.0)
    }
    assert f.p_win[0] == pytest.approx(
        exact_forecast(start([[example("achmed")], [example("sven")]])).p_win[0], abs=1e-9
    )
    n = 800
    e = engine_forecast(state, n, "down-to-one")
    assert agree(f.p_win[0], e.p_win[0], None, n)


MULTI = [
    # two against one, the pair sharing the lone troll; several opponents cost him a die
    (
        "2v1",
        lambda: start(
            [[example("achmed"), example("sven")], [example("detritus")]],
            [{}, {"stance": "defensive", "harm_at": "serious"}],
        ),
    ),
    # two against two with different tactics per fighter, offsetting points and the non-lethal Body test
    (
        "2v2",
        lambda: start(
            [[example("achmed"), example("rincewind")], [example("sven"), fighter("Guard", body=3, tenacity=3)]],
            [{"intent": "non-lethal"}, {"stance": "all-out attack"}],
            FuzzyHouseRules(advantage_on_loss="offset", nonlethal_body_test=7),
            by_name={
                "Rincewind": {
                    "stance": "all-out defence",
                    "manoeuvres": [{"name": "run for the door", "cost": 4, "ends_fight": True}],
                }
            },
        ),
    ),
]


@pytest.mark.parametrize("name,build", MULTI, ids=[m[0] for m in MULTI])
def test_simulation_agrees_with_the_engine(name, build):
    state = build()
    with pytest.raises(OddsError, match="duels"):
        exact_forecast(state)
    n_sim, n_eng = 20_000, 1000
    f = SYSTEM.forecast(state, samples=n_sim, seed=3)
    assert f.method == "simulated"
    e = engine_forecast(state, n_eng, f"multi-{name}")
    for side in (0, 1):
        assert agree(f.p_win[side], e.p_win[side], n_sim, n_eng), (f.p_win, e.p_win)
    assert agree(f.p_draw, e.p_draw, n_sim, n_eng)
    assert abs(f.mean_rounds - e.mean_rounds) < 0.1 * e.mean_rounds + 0.3
    for c in f.combatants:
        seen = dict(next(x for x in e.combatants if x.name == c.name).end_states)
        for label in set(c.end_states) | set(seen):
            assert agree(c.end_states.get(label, 0.0), seen.get(label, 0.0), n_sim, n_eng), (c.name, label)


# -- exact and simulated agree where both apply -----------------------------------------------------------

DUELS = {
    "book duel": lambda: start([[example("achmed")], [example("sven")]], [{"appropriateness": 1}, {}]),
    "all-out attack vs waiting for serious": lambda: start(
        [[example("sven")], [example("achmed")]],
        [{"stance": "all-out attack"}, {"harm_at": "serious", "stance": "defensive"}],
    ),
    "non-lethal, lose ruling": lambda: start(
        [[fighter("A", body=3, tenacity=3)], [fighter("B", body=3, tenacity=2, armour="armour")]],
        [{"intent": "non-lethal"}, {"harm_at": "mortal"}],
        FuzzyHouseRules(advantage_on_loss="lose"),
    ),
    "manoeuvres, offset, bleeding to death": lambda: start(
        [[fighter("A", body=3)], [fighter("B", body=3)]],
        [
            {"harm_at": "killed", "manoeuvres": [{"name": "feint", "cost": 2, "roll_bonus": 1}]},
            {"manoeuvres": [{"name": "out of the window", "cost": 5, "ends_fight": True}], "harm_at": "serious"},
        ],
        FuzzyHouseRules(advantage_on_loss="offset", killing_blow_leaves_dying=True),
    ),
    "coward with all-out defence": lambda: start(
        [[example("rincewind")], [example("detritus")]],
        [{"stance": "all-out defence", "manoeuvres": [{"name": "leg it", "cost": 3, "ends_fight": True}]}, {}],
    ),
}


@pytest.mark.parametrize("name", list(DUELS))
def test_exact_and_simulated_agree(name):
    state = DUELS[name]()
    ex = SYSTEM.forecast(state, method="exact")
    assert ex.method == "exact" and ex.error < 1e-9
    assert sum(ex.p_win) + ex.p_draw == pytest.approx(1.0, abs=1e-9)
    n = 20_000
    sim = SYSTEM.forecast(state, method="simulate", samples=n, seed=11)
    for side in (0, 1):
        assert agree(ex.p_win[side], sim.p_win[side], None, n), (ex.p_win, sim.p_win)
    assert abs(ex.mean_rounds - sim.mean_rounds) < 0.05 * ex.mean_rounds + 0.1
    for c in ex.combatants:
        assert sum(c.end_states.values()) == pytest.approx(1.0, abs=1e-9)
        s = dict(next(x for x in sim.combatants if x.name == c.name).end_states)
        assert set(s) <= set(STATE_NAMES)
        for label in set(c.end_states) | set(s):
            assert agree(c.end_states.get(label, 0.0), s.get(label, 0.0), None, n), (c.name, label)


def _random_duel(seed: int) -> FightState:
    """A seeded random duel: any stance, harm level, intent, weapon, armour, manoeuvre and house ruling."""
    import random

    rnd = random.Random(seed)

    def tactics() -> dict:
        t = {
            "stance": rnd.choice(["normal", "offensive", "defensive", "all-out attack", "all-out defence"]),
            "harm_at": rnd.choice(["moderate", "serious", "mortal", "killed"]),
            "intent": rnd.choice(["lethal", "non-lethal"]),
            "appropriateness": rnd.choice([0, 0, 1, 2]),
        }
        if rnd.random() < 0.3:
            t["manoeuvres"] = [
                {
                    "name": "m",
                    "cost": rnd.choice([2, 4]),
                    "roll_bonus": rnd.choice([0, 1]),
                    "ends_fight": rnd.random() < 0.3,
                }
            ]
        return t

    def one(name: str) -> FuzzyCharacter:
        return fighter(
            name,
            body=rnd.randint(1, 5),
            tenacity=rnd.randint(1, 4),
            weapon_lethality=rnd.choice(
                ["harmless", "terribly ineffective", "not-so-lethal", "normal", "especially damaging", "really deadly"]
            ),
            armour=rnd.choice(["none", "armour", "super-duper"]),
            encumbrance=rnd.choice(["none", "heavy"]),
        )

    house = FuzzyHouseRules(
        advantage_on_loss=rnd.choice(["keep", "lose", "offset"]),
        killing_blow_leaves_dying=rnd.random() < 0.3,
        mortal_wound_deaths=rnd.random() < 0.7,
        tenacity_target=rnd.choice([5, 7, 9]),
        one_die_second_die_for_criticals=rnd.random() < 0.8,
        max_rounds=rnd.choice([5, 30, 200]),
    )
    return start([[one("A")], [one("B")]], [tactics(), tactics()], house)


@pytest.mark.parametrize("seed", [0, 3, 4, 7, 8, 13, 15, 16, 22, 31, 35, 36])
def test_random_duels_exact_and_simulated_agree(seed):
    state = _random_duel(seed)
    ex = SYSTEM.forecast(state, method="exact")
    n = 10_000
    sim = SYSTEM.forecast(state, method="simulate", samples=n, seed=seed)
    assert agree(ex.p_draw, sim.p_draw, None, n)
    for side in (0, 1):
        assert agree(ex.p_win[side], sim.p_win[side], None, n), (ex.p_win, sim.p_win)
    for c in ex.combatants:
        s = dict(next(x for x in sim.combatants if x.name == c.name).end_states)
        for label in set(c.end_states) | set(s):
            assert agree(c.end_states.get(label, 0.0), s.get(label, 0.0), None, n), (c.name, label)


def test_the_book_duel_against_the_engine_with_manoeuvres():
    state = DUELS["manoeuvres, offset, bleeding to death"]()
    ex = exact_forecast(state)
    n = 800
    e = engine_forecast(state, n, "manoeuvres")
    for side in (0, 1):
        assert agree(ex.p_win[side], e.p_win[side], None, n), (ex.p_win, e.p_win)


def test_simulation_is_reproducible_and_reports_intervals():
    state = DUELS["book duel"]()
    a = simulate_forecast(state, samples=3000, seed=5)
    b = simulate_forecast(state, samples=3000, seed=5)
    assert a.p_win == b.p_win and a.rounds == b.rounds
    assert all(lo <= p <= hi for p, (lo, hi) in zip(a.p_win, a.intervals, strict=True))
    assert a.samples == 3000 and a.seed == 5 and a.error < 0.02


def test_offset_with_a_fighter_who_cannot_hurt_is_not_exact_but_auto_simulates():
    state = start(
        [[fighter("A", weapon_lethality="harmless")], [fighter("B")]], house=FuzzyHouseRules(advantage_on_loss="offset")
    )
    with pytest.raises(OddsError, match="without limit"):
        SYSTEM.forecast(state, method="exact")
    assert SYSTEM.forecast(state, samples=2000).method == "simulated"


def test_the_nonlethal_body_test_is_simulated():
    state = start(
        [[fighter("A", body=3)], [fighter("B", body=3)]],
        [{"intent": "non-lethal"}, {}],
        FuzzyHouseRules(nonlethal_body_test=8),
    )
    with pytest.raises(OddsError, match="Body test"):
        exact_forecast(state)
    f = SYSTEM.forecast(state, samples=4000, seed=2)
    assert f.method == "simulated"
    e = engine_forecast(state, 600, "body-test")
    assert agree(f.p_win[0], e.p_win[0], 4000, 600), (f.p_win, e.p_win)


def test_bad_method():
    with pytest.raises(OddsError):
        SYSTEM.forecast(DUELS["book duel"](), method="guess")


# -- the command line ---------------------------------------------------------------------------------------

A, S, D, R = (str(EXAMPLES / f"{n}.yaml") for n in ("achmed", "sven", "detritus", "rincewind"))


def test_cli_json_contract(cli):
    r = cli("fuzzy", "forecast", A, S, "--json", "--appropriate-a", "1")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert set(data["p_win"]) == {"A", "B"} and data["method"] == "exact"
    assert sum(data["p_win"].values()) + data["p_draw"] == pytest.approx(1.0)
    assert data["sides"] == {"A": ["Achmed"], "B": ["Sven"]}
    assert "+1 more appropriate" in data["tactics"]["A"] and "normal stance" in data["tactics"]["B"]
    assert {c["name"] for c in data["combatants"]} == {"Achmed", "Sven"}
    assert data["p_win"]["A"] == pytest.approx(exact_forecast(DUELS["book duel"]()).p_win[0])


def test_cli_teams_simulate_with_a_plot(cli, tmp_path):
    plot = tmp_path / "f.svg"
    r = cli(
        "fuzzy",
        "forecast",
        A,
        S,
        "--vs",
        D,
        "--samples",
        "2000",
        "--seed",
        "4",
        "--stance-b",
        "defensive",
        "--plot",
        str(plot),
        "--json",
    )
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["method"] == "simulated" and data["samples"] == 2000 and data["seed"] == 4
    assert data["sides"] == {"A": ["Achmed", "Sven"], "B": ["Detritus"]} and "defensive stance" in data["tactics"]["B"]
    assert set(data["intervals"]) == {"A", "B"}
    assert plot.read_text().startswith("<svg")
    text = cli("fuzzy", "forecast", A, S, "--vs", D, "--samples", "1000")
    assert text.exit_code == 0 and "simulated: 1,000 fights" in text.stdout and "Detritus" in text.stdout


def test_cli_forecast_from_a_saved_mid_fight_state(cli, tmp_path):
    saved = tmp_path / "fight.json"
    r = cli("fuzzy", "fight", A, S, "--rounds", "2", "--seed", "6", "--save-state", str(saved))
    assert r.exit_code == 0, r.output
    state = FightState.model_validate_json(saved.read_text())
    assert state.round == 2 and not state.over and state.pools
    r = cli("fuzzy", "forecast", "--state", str(saved), "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["p_win"]["A"] == pytest.approx(exact_forecast(state).p_win[0])
    assert any("round 2" in n for n in data["notes"])
    # a change of tactics from the next round on, and the whole 'fight --json' output as the state file
    r2 = cli("fuzzy", "forecast", "--state", str(saved), "--json", "--stance-b", "all-out defence")
    assert json.loads(r2.stdout)["p_win"]["B"] == 0.0
    whole = tmp_path / "fight-out.json"
    whole.write_text(cli("fuzzy", "fight", A, S, "--rounds", "2", "--seed", "6", "--json").stdout)
    r3 = cli("fuzzy", "forecast", "--state", str(whole), "--json")
    assert json.loads(r3.stdout)["p_win"] == data["p_win"]


@pytest.mark.parametrize(
    "args,message",
    [
        ((A,), "give two files"),
        ((A, S, D), "got 3"),
        ((A, S, "--method", "exact", "--vs", D), "duels"),
        ((A, S, "--method", "guess"), "auto, exact or simulate"),
        ((A, "missing.yaml"), "no such file"),
        ((A, S, "--state", A), "either --state or character files"),
        (("--state", A), "fighters"),
        ((A, S, "--stance-a", "sideways"), "stance"),
    ],
)
def test_cli_bad_input(cli, args, message):
    r = cli("fuzzy", "forecast", *args)
    assert r.exit_code == 2, r.output
    assert message in r.output
    assert "Traceback" not in r.output


def test_the_guide_shows_the_forecast():
    guide = (ROOT / "docs" / "systems" / "fuzzy.md").read_text()
    assert "## Forecast" in guide and "$ storymaster fuzzy forecast" in guide
