"""`storymaster bum forecast`: sides, --state from a saved mid-fight state, JSON contract, plot, bad input."""

from __future__ import annotations

import json

import pytest

EX = "examples/bum"


def ok(result):
    assert result.exit_code == 0, (result.stdout, getattr(result, "stderr", ""))
    return result


def js(result):
    return json.loads(ok(result).stdout)


def test_json_contract_exact(cli):
    out = js(cli("bum", "forecast", f"{EX}/victor-mordox.yaml", f"{EX}/player1.yaml", "--tactic", "A=melee", "--json"))
    assert out["method"] == "exact" and set(out["p_win"]) == {"A", "B"}
    assert out["p_win"]["A"] + out["p_win"]["B"] + out["p_draw"] == pytest.approx(1)
    assert out["tactics"] == {"A": "melee", "B": "auto"} and "stand-off" in out["draw_meaning"]
    assert out["error"] < 1e-9 and sum(out["rounds"].values()) == pytest.approx(1)
    names = {c["name"]: c for c in out["combatants"]}
    assert sum(names["Player 1"]["end_states"].values()) == pytest.approx(1)
    assert names["Player 1"]["end_states"]["down (0 HP)"] == pytest.approx(out["p_win"]["A"])


def test_teams_simulated_with_intervals(cli):
    out = js(
        cli(
            "bum",
            "forecast",
            f"{EX}/victor-mordox.yaml",
            "--vs",
            f"{EX}/thief.yaml",
            "--vs",
            f"{EX}/thief.yaml",
            "--distance",
            "3",
            "--samples",
            "20000",
            "--seed",
            "3",
            "--method",
            "simulate",
            "--json",
        )
    )
    assert out["method"] == "simulated" and out["samples"] == 20000 and out["seed"] == 3
    assert out["sides"] == {"A": ["Victor Mordox"], "B": ["Thief", "Thief 2"]}
    lo, hi = out["intervals"]["A"]
    assert lo <= out["p_win"]["A"] <= hi
    again = js(
        cli(
            "bum",
            "forecast",
            f"{EX}/victor-mordox.yaml",
            "--vs",
            f"{EX}/thief.yaml",
            "--vs",
            f"{EX}/thief.yaml",
            "--distance",
            "3",
            "--samples",
            "20000",
            "--seed",
            "3",
            "--method",
            "simulate",
            "--json",
        )
    )
    assert again["p_win"] == out["p_win"]
    exact = js(
        cli(
            "bum",
            "forecast",
            f"{EX}/victor-mordox.yaml",
            "--vs",
            f"{EX}/thief.yaml",
            "--vs",
            f"{EX}/thief.yaml",
            "--distance",
            "3",
            "--json",
        )
    )
    assert exact["method"] == "exact" and lo - 0.01 <= exact["p_win"]["A"] <= hi + 0.01


def test_forecast_from_a_saved_mid_fight_state(cli, tmp_path):
    saved = tmp_path / "fight.json"
    r = ok(
        cli(
            "bum",
            "fight",
            f"{EX}/victor-mordox.yaml",
            f"{EX}/thief.yaml",
            "--foe",
            f"{EX}/thief.yaml",
            "--distance",
            "3",
            "--rounds",
            "2",
            "--save-state",
            str(saved),
            "--seed",
            "4",
        )
    )
    assert "still going" in r.stdout and saved.exists()
    state = json.loads(saved.read_text())
    assert state["round"] == 2 and not state["ended"]
    out = js(cli("bum", "forecast", "--state", str(saved), "--json"))
    assert set(out["p_win"]) == {"A", "B"} and out["p_win"]["A"] + out["p_win"]["B"] + out["p_draw"] == pytest.approx(1)
    assert out["notes"][0].startswith("rounds are counted from this state (round 2)")
    # the same, forced to simulate, agrees within the interval
    sim = js(cli("bum", "forecast", "--state", str(saved), "--method", "simulate", "--samples", "20000", "--json"))
    lo, hi = sim["intervals"]["A"]
    assert abs(sim["p_win"]["A"] - out["p_win"]["A"]) < 4 * (hi - lo) / 2 + 1e-9
    # tactics and house rules can be changed for the rest of the fight
    hr = tmp_path / "hr.yaml"
    hr.write_text("opposed_ties: defender\n")
    changed = js(
        cli(
            "bum",
            "forecast",
            "--state",
            str(saved),
            "--tactic",
            "B=hold",
            "--tactic",
            "Victor Mordox=melee",
            "--house-rules",
            str(hr),
            "--json",
        )
    )
    assert changed["tactics"] == {"A": "melee", "B": "hold"}
    r = cli("bum", "forecast", "--state", str(saved), "--tactic", "A=dance")
    assert r.exit_code == 2 and "dance" in r.stderr
    # 'fight --json' output holds the state too
    fight_json = tmp_path / "fight-out.json"
    one_round = cli("bum", "fight", f"{EX}/player1.yaml", f"{EX}/thief.yaml", "--rounds", "1", "--seed", "1", "--json")
    fight_json.write_text(ok(one_round).stdout)
    assert js(cli("bum", "forecast", "--state", str(fight_json), "--json"))["method"] == "exact"


def test_text_and_plot(cli, tmp_path):
    plot = str(tmp_path / "f.svg")
    r = ok(cli("bum", "forecast", f"{EX}/player1.yaml", f"{EX}/thief.yaml", "--level", "3", "--plot", plot))
    assert "exact (Markov chain" in r.stdout and "Player 1 (A)" in r.stdout and "down (0 HP)" in r.stdout
    assert (tmp_path / "f.svg").read_text().startswith("<svg")


@pytest.mark.parametrize(
    "args, words",
    [
        (("forecast", f"{EX}/player1.yaml"), "give two files"),
        (("forecast", f"{EX}/player1.yaml", f"{EX}/thief.yaml", f"{EX}/thief.yaml"), "got 3"),
        (("forecast", "--state", "missing.json"), "no such file"),
        (("forecast", f"{EX}/player1.yaml", f"{EX}/thief.yaml", "--method", "guess"), "auto, exact or simulate"),
        (
            (
                "forecast",
                f"{EX}/victor-mordox.yaml",
                f"{EX}/player1.yaml",
                f"{EX}/thief.yaml",
                "--vs",
                f"{EX}/thief.yaml",
                "--vs",
                f"{EX}/thief.yaml",
                "--vs",
                f"{EX}/player1.yaml",
                "--initiative",
                "int",
                "--method",
                "exact",
            ),
            "rolled",
        ),
        (("forecast", f"{EX}/player1.yaml", f"{EX}/thief.yaml", "--tactic", "A=berserk"), "berserk"),
        (("forecast", f"{EX}/player1.yaml", f"{EX}/thief.yaml", "--level", "7"), "level 7"),
        (("forecast", f"{EX}/player1.yaml", f"{EX}/thief.yaml", "--switch", "x"), "ROUND:LEVEL"),
        (("forecast", f"{EX}/player1.yaml", f"{EX}/thief.yaml", "--samples", "5"), "samples"),
    ],
)
def test_bad_input_is_one_clear_error(cli, args, words):
    r = cli("bum", *args)
    assert r.exit_code == 2, r.stdout
    assert words in r.stderr and "Traceback" not in r.stderr


def test_bad_state_files(cli, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    r = cli("bum", "forecast", "--state", str(bad))
    assert r.exit_code == 2 and "not a JSON fight state" in r.stderr
    bad.write_text(json.dumps({"fighters": [{"name": "x"}]}))
    r = cli("bum", "forecast", "--state", str(bad))
    assert r.exit_code == 2 and "not a B.U.M. fight state" in r.stderr
    r = cli("bum", "forecast", f"{EX}/player1.yaml", f"{EX}/thief.yaml", "--state", str(bad))
    assert r.exit_code == 2 and "not both" in r.stderr


def test_fight_takes_side_letters_for_tactics_as_forecast_does(cli):
    out = js(
        cli(
            "bum",
            "fight",
            f"{EX}/victor-mordox.yaml",
            f"{EX}/player1.yaml",
            "--tactic",
            "A=melee",
            "--seed",
            "1",
            "--json",
        )
    )
    shots = [e for e in out["events"] if e.get("data", {}).get("ranged")]
    assert not shots and out["state"]["fighters"][0]["tactic"] == "melee"
    auto = js(cli("bum", "fight", f"{EX}/victor-mordox.yaml", f"{EX}/player1.yaml", "--seed", "1", "--json"))
    assert [e for e in auto["events"] if e.get("data", {}).get("ranged")]  # on 'auto' he opens with his crossbow
