"""`storymaster bum ...`: every command, with --json, and errors as one line with exit 2."""

from __future__ import annotations

import json

import yaml
from sheet_json import value_of, values_of

EX = "examples/bum"


def ok(result):
    assert result.exit_code == 0, (result.stdout, getattr(result, "stderr", ""))
    return result


def js(result):
    return json.loads(ok(result).stdout)


def test_odds_fixed_json(cli):
    out = js(cli("bum", "odds", "--bonus", "5", "--dc", "8", "--json"))
    assert out["exact"]["p_success"] == "2/3" and abs(out["p_success"] - 2 / 3) < 1e-12


def test_odds_vs_json_counts_rerolled_ties(cli):
    out = js(cli("bum", "odds", "--bonus", "5", "--vs", "3", "--json"))
    assert out["exact"]["p_success"] == "13/16"
    assert out["exact"]["p_tie_each_roll"] == "1/9" and out["exact"]["p_win_first_roll"] == "13/18"


def test_odds_with_house_rule_ties(cli, tmp_path):
    hr = tmp_path / "hr.yaml"
    hr.write_text("opposed_ties: defender\n")
    out = js(cli("bum", "odds", "--bonus", "5", "--vs", "3", "--house-rules", str(hr), "--json"))
    assert out["exact"]["p_success"] == "13/18"


def test_odds_from_a_character(cli):
    out = js(
        cli(
            "bum",
            "odds",
            "--char",
            f"{EX}/player1.yaml",
            "--stat",
            "INT",
            "--skill",
            "Medicine",
            "--item",
            "Suture kit",
            "--dc",
            "7",
            "--json",
        ),
    )
    assert out["exact"]["p_success"] == "5/6"  # needs a 2 with +5


def test_odds_text_and_plot(cli, tmp_path):
    r = ok(cli("bum", "odds", "--bonus", "2", "--dc", "6", "--plot", str(tmp_path / "c.svg")))
    assert "50.00%" in r.stdout and (tmp_path / "c.svg").read_text().startswith("<svg")


def test_odds_errors(cli):
    r = cli("bum", "odds", "--bonus", "5")
    assert r.exit_code == 2 and "--dc" in r.stderr
    r = cli("bum", "odds", "--bonus", "5", "--dc", "-3")
    assert r.exit_code == 2 and "difficulty" in r.stderr and "Traceback" not in r.stderr
    r = cli("bum", "odds", "--char", f"{EX}/player1.yaml", "--stat", "INT", "--skill", "Juggling", "--dc", "6")
    assert r.exit_code == 2 and "Juggling" in r.stderr


def test_roll_explains(cli):
    out = js(cli("bum", "roll", "--bonus", "2", "--dc", "6", "--seed", "7", "--json"))
    assert out["result"] in ("success", "failure") and "d6" in out["explanation"] and out["p_success"] == 0.5
    r = ok(cli("bum", "roll", "--bonus", "2", "--vs", "2", "--seed", "7"))
    assert "chance of success: 50.00%" in r.stdout


def test_roll_is_reproducible(cli):
    a = js(cli("bum", "roll", "--bonus", "1", "--vs", "1", "--seed", "x", "--json"))
    b = js(cli("bum", "roll", "--bonus", "1", "--vs", "1", "--seed", "x", "--json"))
    assert a == b


def test_sneak(cli):
    out = js(cli("bum", "sneak", "--bonus", "7", "--dc", "10", "--seed", "1", "--json"))
    assert abs(out["p_success"] - 2 / 3) < 1e-12
    out = js(cli("bum", "sneak", "--melee", "--json"))
    assert out["success"] is True and out["rolls"] == []


def test_attack(cli):
    out = js(cli("bum", "attack", f"{EX}/player1.yaml", f"{EX}/thief.yaml", "--seed", "3", "--json"))
    assert out["details"]["totals"] and out["p_success"] > 0.5
    out = js(
        cli(
            "bum",
            "attack",
            f"{EX}/victor-mordox.yaml",
            f"{EX}/thief.yaml",
            "--weapon",
            "ranged",
            "--range",
            "3",
            "--json",
        ),
    )
    assert ["range", -2] in out["details"]["parts"] and ["DEX", 3] in out["details"]["parts"]
    assert out["details"]["vs_parts"] == [["DEX", 2], ["Leather armor", 1]]  # ranged defence: no weapon parry


def test_sheet_victor(cli, tmp_path):
    r = ok(
        cli(
            "bum",
            "sheet",
            f"{EX}/victor-mordox.yaml",
            "--html",
            str(tmp_path / "v.html"),
            "--png",
            str(tmp_path / "v.png"),
        ),
    )
    assert "Victor Mordox" in r.stdout and "Heavy Crossbow" in r.stdout
    html = (tmp_path / "v.html").read_text()
    # the printable card is storymaster.present's, from the structured sheet: Appendix B's boxes
    assert "ATTACK TOTALS" in html and "DEFENSE TOTALS" in html and "Noob Gamerson" in html
    assert '<th scope="row">Primary</th><td>7</td>' in html and '<th scope="row">Backup</th><td>5</td>' in html
    assert html.count("<td>6</td>") == 2  # melee and ranged defence
    assert (tmp_path / "v.png").read_bytes()[:4] == b"\x89PNG"
    out = js(cli("bum", "sheet", f"{EX}/victor-mordox.yaml", "--json"))
    assert values_of(out, "attack_totals") == {"primary": 7, "ranged": 7, "backup": 5}
    assert values_of(out, "defence_totals") == {"melee": 6, "ranged": 6}


def test_sheet_illegal_character_exits_2_with_every_problem(cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        yaml.safe_dump(
            {
                "name": "Bad",
                "stats": {"STR": 6, "DEX": 0, "INT": 2, "SOC": 2},
                "skills": [{"name": "X", "stat": "DEX", "points": 3}],
            },
        ),
    )
    r = cli("bum", "sheet", str(bad))
    assert r.exit_code == 2
    assert "stats.STR" in r.stderr and "stats.DEX" in r.stderr and "skills" in r.stderr and "Traceback" not in r.stderr


def test_sheet_malformed_file(cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: X\nstats: {STR: two}\n")
    r = cli("bum", "sheet", str(bad))
    assert r.exit_code == 2 and "stats.STR" in r.stderr
    assert cli("bum", "sheet", str(tmp_path / "missing.yaml")).exit_code == 2


def test_schema(cli):
    assert js(cli("bum", "schema"))["title"] == "BumCharacter"
    assert js(cli("bum", "schema", "--json"))["title"] == "BumCharacter"


def test_gear(cli):
    out = js(cli("bum", "gear", "--json"))
    assert any(g["id"] == "musket" and g["wounds"] == 2 for g in out["gear"])
    assert "Musket".lower() in ok(cli("bum", "gear")).stdout.lower()


def test_new_interactive(cli, tmp_path):
    out = tmp_path / "bob.yaml"
    answers = [
        "Bob",
        "Ann",
        "Test",  # name, player, campaign
        "4",
        "2",
        "2",  # STR, DEX, INT (SOC takes the last 2)
        "Axe/Mace",
        "STR",
        "4",
        "Stealth",
        "DEX",
        "2",
        "Lying",
        "SOC",
        "3",
        "2",  # 3 is over SOC 2: asked again
        "Tracking",
        "INT",
        "2",  # all 10 skill points spent: the skill questions stop
        "Battle axe",
        "Axe/Mace",
        "Longbow",
        "",
        "",  # no backup
        "leather",
        "buckler",
    ]
    r = ok(cli("bum", "new", "--out", str(out), input="\n".join(answers) + "\n"))
    assert "8 skill points left" in r.stderr or "(6 skill points left" in r.stderr
    assert "is out of range: from 1 to 2 (try again)" in r.stderr
    assert "STR 4: Weightlifter/Mighty" in r.stderr and "Axe/Mace 4: Master" in r.stderr
    assert "primary attack total: STR 4 + skill 4 + weapon +2 = 10" in r.stderr
    data = yaml.safe_load(out.read_text())
    assert data["stats"] == {"STR": 4, "DEX": 2, "INT": 2, "SOC": 2}
    assert data["weapons"]["primary"] == {"name": "Battle axe", "skill": "Axe/Mace"}
    sheet = js(cli("bum", "sheet", str(out), "--json"))
    assert value_of(sheet, "attack_totals", "primary") == 4 + 4 + 2
    assert values_of(sheet, "defence_totals") == {"melee": 2 + 1 + 1, "ranged": 4}


def test_fight_log(cli):
    r = ok(cli("bum", "fight", f"{EX}/player1.yaml", f"{EX}/thief.yaml", "--level", "4", "--seed", "1"))
    assert "round 1" in r.stdout and "attacks Thief" in r.stdout and "HP left" in r.stdout
    out = js(cli("bum", "fight", f"{EX}/player1.yaml", f"{EX}/thief.yaml", "--level", "4", "--seed", "1", "--json"))
    assert out["winner"] in (0, 1) and out["events"][0]["kind"] == "initiative"


def test_fight_levels_and_switch(cli):
    out = js(
        cli(
            "bum",
            "fight",
            f"{EX}/victor-mordox.yaml",
            f"{EX}/player1.yaml",
            "--level",
            "3",
            "--switch",
            "2:4",
            "--seed",
            "2",
            "--json",
        ),
    )
    kinds = [e["kind"] for e in out["events"]]
    assert "exchange" in kinds and (out["rounds"] == 1 or "level" in kinds)
    for level in ("1", "2"):
        out = js(
            cli("bum", "fight", f"{EX}/player1.yaml", f"{EX}/thief.yaml", "--level", level, "--seed", "5", "--json")
        )
        assert out["rounds"] == 1


def test_fight_with_allies_distance_and_tactics(cli):
    out = js(
        cli(
            "bum",
            "fight",
            f"{EX}/victor-mordox.yaml",
            f"{EX}/thief.yaml",
            "--foe",
            f"{EX}/thief.yaml",
            "--distance",
            "3",
            "--tactic",
            "Thief=hold",
            "--initiative",
            "dex",
            "--seed",
            "4",
            "--json",
        )
    )
    assert set(out["hp"]) == {"Victor Mordox", "Thief", "Thief 2"}
    assert any(e["kind"] == "attack" and e["data"]["ranged"] for e in out["events"])


def test_fight_errors(cli):
    r = cli("bum", "fight", f"{EX}/player1.yaml", f"{EX}/thief.yaml", "--level", "7")
    assert r.exit_code == 2 and "level" in r.stderr
    r = cli("bum", "fight", f"{EX}/player1.yaml", f"{EX}/thief.yaml", "--switch", "x")
    assert r.exit_code == 2 and "ROUND:LEVEL" in r.stderr
    r = cli("bum", "fight", f"{EX}/player1.yaml", f"{EX}/thief.yaml", "--distance", "-2")
    assert r.exit_code == 2 and "negative" in r.stderr


def test_advancement_commands(cli, tmp_path):
    a, b, c = tmp_path / "a.yaml", tmp_path / "b.yaml", tmp_path / "c.yaml"
    ok(cli("bum", "award", f"{EX}/victor-mordox.yaml", "--points", "5", "--used", "Survival", "--out", str(a)))
    ok(cli("bum", "buy-stat", str(a), "int", "--out", str(b)))
    out = js(cli("bum", "buy-skill", str(b), "Survival", "--out", str(c), "--json"))
    assert out["character"]["stats"]["INT"] == 3 and out["character"]["banked_skill_points"] == 0
    assert js(cli("bum", "sheet", str(c), "--json"))["problems"] == []
    r = cli("bum", "buy-stat", str(c), "STR")
    assert r.exit_code == 2 and "costs 4" in r.stderr
    r = cli("bum", "buy-skill", str(a), "Reading")
    assert r.exit_code == 2 and "--stat" in r.stderr
    r = ok(cli("bum", "award", f"{EX}/victor-mordox.yaml", "--points", "1"))
    assert "banked_skill_points: 1" in r.stdout


def test_wound_and_heal(cli, tmp_path):
    w = tmp_path / "w.yaml"
    r = ok(cli("bum", "wound", f"{EX}/thief.yaml", "--n", "2", "--cause", "sword", "--heal-days", "7", "--out", str(w)))
    assert "0 of 2 HP" in r.stdout and "out of the fight" in r.stdout
    out = js(cli("bum", "heal", str(w), "--days", "7", "--json"))
    assert out["character"]["wounds"] == []


def test_hazards(cli):
    assert js(cli("bum", "hazard", "fall", "--feet", "20", "--json"))["wounds"] == 1  # "between 10 and 20 feet"
    assert js(cli("bum", "hazard", "fall", "--feet", "21", "--json"))["wounds"] == 2  # "over 20 feet, 2"
    assert js(cli("bum", "hazard", "explosion", "--power", "4", "--spaces", "1", "--json"))["by_distance"] == [
        4,
        3,
        2,
        1,
        0,
    ]
    assert js(cli("bum", "hazard", "shock", "--power", "6", "--str", "2", "--json"))["stun_rounds"] == 4
    assert js(cli("bum", "hazard", "cold", "--str", "2", "--periods", "2", "--json"))["unconscious"] is True
    assert js(cli("bum", "hazard", "acid", "--turns", "10", "--every", "2", "--json"))["wounds"] == 5
    out = js(cli("bum", "hazard", "fire", "--dex", "2", "--seed", "1", "--json"))
    assert out["wounds"] >= 1
    r = cli("bum", "hazard", "fall", "--feet", "-5")
    assert r.exit_code == 2 and "negative" in r.stderr
    for bad in ("nan", "inf"):
        r = cli("bum", "hazard", "fall", "--feet", bad)
        assert r.exit_code == 2 and "finite" in r.stderr and "Traceback" not in r.stderr


def test_house_rules_listed(cli):
    out = js(cli("house-rules", "bum", "--json"))
    names = {r["name"] for r in out["house_rules"]}
    assert {"opposed_ties", "skill_cap_at_stat", "longspear_first_strike", "a_is_for_axe", "double_move"} <= names


def test_recheck_cli(cli):
    out = js(cli("bum", "odds", "--bonus", "2", "--dc", "5", "--recheck-dc", "8", "--json"))
    assert out["exact"]["p_success"] == "13/18" and out["exact"]["recovered"] == "1/18"
    out = js(cli("bum", "roll", "--bonus", "2", "--dc", "5", "--recheck-dc", "8", "--seed", "1", "--json"))
    assert out["result"] in ("success", "recovered", "failure")
    r = cli("bum", "odds", "--bonus", "2", "--vs", "5", "--recheck-dc", "8")
    assert r.exit_code == 2 and "--dc" in r.stderr


def test_out_of_range_values_are_clear_errors(cli):
    r = cli("bum", "odds", "--bonus", "500", "--dc", "8")
    assert r.exit_code == 2 and "bonus" in r.stderr and "internal" not in r.stderr
    r = cli("bum", "award", f"{EX}/victor-mordox.yaml", "--points", "5000")
    assert r.exit_code == 2 and "points" in r.stderr and "internal" not in r.stderr
    r = cli("bum", "sneak", "--range", "-1")
    assert r.exit_code == 2 and "internal" not in r.stderr


def test_forecast_cli(cli):
    """The whole-fight forecast (more in test_forecast_cli.py): exact for a duel in reach, else simulated."""
    out = js(cli("bum", "forecast", f"{EX}/player2.yaml", f"{EX}/thief.yaml", "--level", "3", "--json"))
    assert out["method"] == "exact" and 0.5 < out["p_win"]["A"] < 1
    r = ok(cli("bum", "forecast", f"{EX}/victor-mordox.yaml", f"{EX}/player1.yaml", "--tactic", "Victor Mordox=melee"))
    assert "Victor Mordox" in r.stdout and "exact" in r.stdout
    six = [f"{EX}/victor-mordox.yaml", f"{EX}/player1.yaml", f"{EX}/thief.yaml"]
    r = cli(
        "bum",
        "forecast",
        *six,
        "--vs",
        six[0],
        "--vs",
        six[1],
        "--vs",
        six[2],
        "--initiative",
        "dex",
        "--method",
        "exact",
    )
    assert r.exit_code == 2 and "rolled" in r.stderr  # six fighters' rolled turn orders: simulate instead


def test_roll_text_shows_the_whole_explanation(cli):
    r = ok(
        cli(
            "bum",
            "roll",
            "--char",
            f"{EX}/player1.yaml",
            "--stat",
            "INT",
            "--skill",
            "Medicine",
            "--item",
            "Suture kit",
            "--dc",
            "7",
            "--seed",
            "1",
        ),
    )
    flat = " ".join(r.stdout.split())
    assert "+2 INT +2 Medicine +1 Suture kit" in flat and "difficulty of 7" in flat and "would have done it." in flat


def test_every_command_takes_json():
    import typer

    from storymaster.cli.systems.bum import app

    group = typer.main.get_command(app)
    seen = 0
    stack = [group]
    while stack:
        cmd = stack.pop()
        if hasattr(cmd, "commands"):
            stack += list(cmd.commands.values())
            continue
        seen += 1
        assert any("--json" in p.opts for p in cmd.params), f"{cmd.name} has no --json"
    assert seen >= 20


def test_dc_help_says_what_dc_means_in_each_command(cli):
    """`--dc`: a check's difficulty in odds and roll, the Level 1 fight difficulty in fight (once one name for both)."""
    for command in ("odds", "roll"):
        text = " ".join(ok(cli("bum", command, "--help")).stdout.split())
        assert "Fixed difficulty" in text and "difficulty to win the fight" not in text, command
    text = " ".join(ok(cli("bum", "fight", "--help")).stdout.split())
    assert "Level 1: the difficulty to win the fight" in text
