"""``storymaster kalyr forecast`` and ``fight --rounds/--save-state``: the JSON contract, saved states, bad input."""

from __future__ import annotations

import json

import pytest

from storymaster.systems.kalyr import SYSTEM
from storymaster.systems.kalyr.combat import FightState


@pytest.fixture
def pair(examples_dir):
    return str(examples_dir / "kylar.yaml"), str(examples_dir / "bandit.yaml")


def test_json_contract(cli, pair):
    r = cli("kalyr", "forecast", *pair, "--detailed", "--approach-b", "2", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["method"] == "exact" and set(data["p_win"]) == {"A", "B"}
    assert sum(data["p_win"].values()) + data["p_draw"] == pytest.approx(1, abs=1e-9)
    assert data["sides"] == {"A": ["Kylar"], "B": ["Bandit heavy"]}
    assert "aggressive +2" in data["tactics"]["B"] and "normal" in data["tactics"]["A"]
    assert {c["name"] for c in data["combatants"]} == {"Kylar", "Bandit heavy"}
    assert data["error"] < 1e-9 and float(sum(data["rounds"].values())) == pytest.approx(1, abs=1e-9)


def test_cli_matches_the_library(cli, pair):
    from storymaster.rules import load_model
    from storymaster.systems.kalyr.character import Character

    r = cli("kalyr", "forecast", *pair, "--stakes", "Hurt", "--json")
    a, b = (load_model(p, Character) for p in pair)
    f = SYSTEM.forecast(SYSTEM.combat.start([[a], [b]], options={"stakes": "Hurt"}))
    assert json.loads(r.stdout)["p_win"]["A"] == pytest.approx(f.p_win[0], abs=1e-12)


def test_teams_with_vs_and_simulation(cli, examples_dir, pair):
    more = str(examples_dir / "karela.yaml")
    args = (
        "kalyr",
        "forecast",
        pair[0],
        more,
        "--vs",
        pair[1],
        "--vs",
        str(examples_dir / "marlith.yaml"),
        "--method",
        "simulate",
        "--samples",
        "2000",
        "--seed",
        "3",
        "--json",
    )
    r = cli(*args)
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["method"] == "simulated" and data["samples"] == 2000 and data["seed"] == 3
    assert data["sides"]["A"] == ["Kylar", "Karela"] and set(data["intervals"]) == {"A", "B"}
    again = json.loads(cli(*args).stdout)
    assert again["p_win"] == data["p_win"]


def test_text_output_and_plot(cli, pair, tmp_path):
    plot = str(tmp_path / "f.svg")
    r = cli("kalyr", "forecast", *pair, "--detailed", "--stance-a", "all_out_defence", "--plot", plot)
    assert r.exit_code == 0, r.output
    assert "exact (Markov chain" in r.stdout and "all-out defence" in r.stdout and "Kylar (A)" in r.stdout
    assert (tmp_path / "f.svg").read_text().startswith("<svg")


def test_forecast_from_a_saved_mid_fight_state(cli, pair, tmp_path):
    saved = tmp_path / "fight.json"
    r = cli(
        "kalyr",
        "fight",
        *pair,
        "--detailed",
        "--approach-b",
        "2",
        "--rounds",
        "1",
        "--save-state",
        str(saved),
        "--seed",
        "4",
        "--json",
    )
    assert r.exit_code == 0, r.output
    state = FightState.model_validate_json(saved.read_text())
    assert state.round == 1
    r = cli("kalyr", "forecast", "--state", str(saved), "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    f = SYSTEM.forecast(state)
    assert data["p_win"]["A"] == pytest.approx(f.p_win[0], abs=1e-12)
    assert "aggressive +2" in data["tactics"]["B"]  # the saved fighters' own tactics


def test_fight_rounds_stops_mid_way(cli, pair, tmp_path):
    saved = tmp_path / "s.json"
    for seed in range(10):
        r = cli("kalyr", "fight", *pair, "--detailed", "--rounds", "1", "--save-state", str(saved), "--seed", str(seed))
        assert r.exit_code == 0, r.output
        state = FightState.model_validate_json(saved.read_text())
        assert state.round == 1
        if not state.over:
            assert "still going after round 1" in r.stdout
            return
    pytest.fail("every seed ended the fight in one round")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["kalyr", "forecast", "KYLAR"], "give two files"),
        (["kalyr", "forecast", "--state", "STATE", "KYLAR"], "not both"),
        (["kalyr", "forecast", "KYLAR", "nowhere.yaml"], "nowhere.yaml"),
        (["kalyr", "forecast", "--state", "KYLAR"], "kylar.yaml"),
        (["kalyr", "forecast", "KYLAR", "BANDIT", "--method", "guess"], "auto, exact or simulate"),
        (["kalyr", "forecast", "KYLAR", "BANDIT", "--detailed", "--stance-a", "berserk"], "stance"),
        (
            ["kalyr", "forecast", "KYLAR", "KYLAR", "--vs", "BANDIT", "--vs", "BANDIT", "--method", "exact"],
            "too many dice",
        ),
        (["kalyr", "forecast", "KYLAR", "BANDIT", "BANDIT", "--vs", "KYLAR", "--detailed"], "one-on-one"),
    ],
)
def test_bad_input_is_an_error_not_a_traceback(cli, pair, tmp_path, args, message):
    state = tmp_path / "state.json"
    state.write_text("{}")
    sub = {"KYLAR": pair[0], "BANDIT": pair[1], "STATE": str(state)}
    r = cli(*[sub.get(a, a) for a in args])
    assert r.exit_code == 2, r.output
    assert message in r.output and "Traceback" not in r.output


def test_the_guides_saved_state_example_runs(cli, tmp_path, monkeypatch):
    """The guide's 'sh' block (fight --save-state, then forecast --state) runs as written."""
    import shlex
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    text = (root / "docs/systems/kalyr.md").read_text()
    block = text.split("## Forecast", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    lines = [line for line in block.splitlines() if line.startswith("storymaster kalyr")]
    assert len(lines) == 2 and "--save-state" in lines[0] and "--state" in lines[1]
    (tmp_path / "examples").symlink_to(root / "examples")
    monkeypatch.chdir(tmp_path)
    for line in lines:
        r = cli(*shlex.split(line)[1:])
        assert r.exit_code == 0, r.output
    assert "forecast" in r.stdout and (tmp_path / "fight.json").exists()
