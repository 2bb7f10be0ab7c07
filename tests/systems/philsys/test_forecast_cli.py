"""The philsys forecast command: JSON contract, sides, --state from a saved mid-fight, bad input (exit 2)."""

from __future__ import annotations

import json

import pytest
from philsys_helpers import ROOT

EX = "examples/philsys/"


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def test_duel_json_is_exact(cli):
    r = cli("philsys", "forecast", EX + "guard.yaml", EX + "guard.yaml", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["method"] == "exact" and set(data["p_win"]) == {"A", "B"}
    assert data["p_win"]["A"] == pytest.approx(0.5, abs=1e-9) and data["error"] < 1e-11
    assert data["sides"] == {"A": ["Guard"], "B": ["Guard #2"]}
    assert {c["name"] for c in data["combatants"]} == {"Guard", "Guard #2"}
    assert "auto" in data["tactics"]["A"] and "round cap" in data["draw_meaning"]


def test_teams_simulated_with_tactics_and_plot(cli, tmp_path):
    out = tmp_path / "f.svg"
    r = cli(
        "philsys",
        "forecast",
        EX + "aya.yaml",
        EX + "chandler.yaml",
        "--vs",
        EX + "knight.yaml",
        "--samples",
        "3000",
        "--seed",
        "2",
        "--tactics",
        "side0=melee",
        "--plot",
        str(out),
        "--json",
    )
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["method"] == "simulated" and data["samples"] == 3000 and data["seed"] == 2
    assert data["tactics"]["A"].startswith("melee") and sum(data["p_win"].values()) + data["p_draw"] == pytest.approx(1)
    assert set(data["intervals"]) == {"A", "B"}
    assert out.read_text().startswith("<svg")


def test_text_output_states_method_and_tactics(cli):
    r = cli("philsys", "forecast", EX + "knight.yaml", EX + "guard.yaml", "--samples", "2000", "--method", "simulate")
    assert r.exit_code == 0, r.output
    assert "simulated: 2,000 fights" in r.stdout and "auto" in r.stdout and "critical health" in r.stdout
    r = cli("philsys", "forecast", EX + "knight.yaml", EX + "guard.yaml")
    assert r.exit_code == 0, r.output
    assert "exact (Markov chain" in r.stdout and "Brenna" in r.stdout


def test_forecast_from_saved_mid_fight_state(cli, tmp_path):
    state = tmp_path / "fight.json"
    r = cli(
        "philsys",
        "fight",
        EX + "knight.yaml",
        EX + "guard.yaml",
        "--seed",
        "3",
        "--rounds",
        "2",
        "--save-state",
        str(state),
        "--json",
    )
    assert r.exit_code == 0, r.output
    saved = json.loads(state.read_text())
    assert saved["round"] == 2 and not saved["over"]
    r = cli("philsys", "forecast", "--state", str(state), "--samples", "2000", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["sides"] == {"A": ["Brenna"], "B": ["Guard"]} and "0" not in data["rounds"]
    # the rounds still to fight are at most the cap less the two already fought
    assert max(int(k) for k in data["rounds"]) <= 98


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["forecast", EX + "guard.yaml"], "give two files"),
        (
            ["forecast", EX + "aya.yaml", EX + "chandler.yaml", "--vs", EX + "guard.yaml", "--method", "exact"],
            "no exact forecast",
        ),
        (["forecast", EX + "guard.yaml", EX + "guard.yaml", "--state", "x.json"], "not both"),
        (["forecast", "--state", "no-such-state.json"], "no-such-state"),
        (["forecast", EX + "guard.yaml", EX + "guard.yaml", "--tactics", "Guard=sneaky"], "tactics"),
    ],
)
def test_bad_input_exits_2_without_traceback(cli, args, message):
    r = cli("philsys", *args)
    assert r.exit_code == 2, r.output
    assert message in r.output and "Traceback" not in r.output


def test_bad_method_is_refused(cli):
    r = cli("philsys", "forecast", EX + "guard.yaml", EX + "guard.yaml", "--method", "guess")
    assert r.exit_code == 2 and "auto, exact or simulate" in r.output


def test_the_guides_saved_fight_pair_runs(cli, tmp_path):
    """The guide's 'fight --save-state' then 'forecast --state' example, run in order in a scratch directory."""
    import re
    import shlex

    doc = (ROOT / "docs" / "systems" / "philsys.md").read_text(encoding="utf-8")
    section = doc[doc.index("## Forecast") : doc.index("## Death and revival")]
    pair = [shlex.split(m) for m in re.findall(r"^    storymaster (.*)$", section, flags=re.M)]
    assert [p[1] for p in pair] == ["fight", "forecast"]
    for args in pair:
        args = [str(tmp_path / a) if a == "fight.json" else a for a in args]
        r = cli(*args)
        assert r.exit_code == 0, r.output
    assert "exact (Markov chain" in r.stdout and "Brenna" in r.stdout


def test_saved_state_keeps_its_rules_and_takes_new_tactics(cli, tmp_path):
    state = tmp_path / "fight.json"
    rules = tmp_path / "hr.yaml"
    rules.write_text("bleeding: true\nmax_rounds: 50\n")
    r = cli(
        "philsys",
        "fight",
        EX + "aya.yaml",
        EX + "guard.yaml",
        "--seed",
        "5",
        "--rounds",
        "1",
        "--save-state",
        str(state),
        "--house-rules",
        str(rules),
    )
    assert r.exit_code == 0, r.output
    r = cli("philsys", "forecast", "--state", str(state), "--tactics", "side0=melee", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["tactics"]["A"] == "melee" and "round 50" in data["draw_meaning"]
    r = cli("philsys", "forecast", "--state", str(state), "--house-rules", str(rules))
    assert r.exit_code == 2 and "own house rules" in r.output
