"""The `storymaster kalyr` commands, run in-process."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest
import yaml
from sheet_json import value_of

from storymaster.systems.kalyr.character import Character


def test_odds_unopposed_json(cli):
    r = cli("kalyr", "odds", "--ability", "Good", "--difficulty", "Great", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert Fraction(data["exact"]["p_success"]) == Fraction(31, 81)
    assert data["p_success"] == pytest.approx(31 / 81)


def test_odds_opposed_json(cli):
    r = cli("kalyr", "odds", "--ability", "Good", "--vs", "Fair", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert Fraction(data["exact"]["p_win"]) == Fraction(142, 243)
    assert data["p_win"] + data["p_tie"] + data["p_lose"] == pytest.approx(1)
    assert data["p_success"] == data["p_win"]


def test_odds_text_and_two_abilities(cli):
    r = cli(
        "kalyr",
        "odds",
        "--ability",
        "Fair",
        "--second",
        "Fair",
        "--combine",
        "worst",
        "--modifier",
        "1",
        "--difficulty",
        "Great",
    )
    assert r.exit_code == 0 and "chance of success" in r.stdout


def test_odds_from_a_character(cli, examples_dir):
    r = cli(
        "kalyr",
        "odds",
        "--character",
        str(examples_dir / "kluranyr.yaml"),
        "--use",
        "Melee Combat (Narvork)",
        "--vs",
        "Fair",
        "--json",
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["check"] == "Kluranyr Great -1 vs Fair"


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--ability", "Awesome", "--difficulty", "Fair"], "not on the Trait Ladder"),
        (["--ability", "Good", "--difficulty", "Fair", "--vs", "Fair"], "not both"),
        (["--difficulty", "Fair"], "--ability"),
        (["--ability", "Good", "--combine", "middle"], "best or worst"),
        (["--ability", "Good", "--difficulty", "Fair", "--partial", "Good"], "below"),
        (["--situation", "3", "--character", "nope.yaml", "--use", "x"], "no such file"),
        (["--ability", "Good", "--character", "examples/kalyr/kylar.yaml", "--use", "x"], "not both"),
        (["--ability", "Good", "--use", "Stealth"], "give -c/--character"),
        (["--ability", "Good", "--situation", "3"], "between -2 and +2"),  # applied to a bare level, so checked
        (["--ability", "Good", "--equipment", "shiny"], "fine, normal or poor"),
        (["--ability", "Good", "--vs-modifier", "1"], "give --vs LEVEL"),
    ],
)
def test_odds_errors_are_clear(cli, args, needle):
    r = cli("kalyr", "odds", *args)
    assert r.exit_code == 2
    assert needle in r.stderr
    assert "Traceback" not in r.output


def test_check_rolls_and_explains_reproducibly(cli):
    a = cli("kalyr", "check", "--ability", "Good", "--difficulty", "Great", "--seed", "7", "--json")
    b = cli("kalyr", "check", "--ability", "Good", "--difficulty", "Great", "--seed", "7", "--json")
    assert a.exit_code == 0 and a.stdout == b.stdout
    data = json.loads(a.stdout)
    assert data["result"] in {"Terrible", "Poor", "Mediocre", "Fair", "Good", "Great", "Superb", "Superb+1", "Superb+2"}
    assert "difficulty Great" in data["explanation"]
    assert len(data["rolls"]) == 1 and data["rolls"][0]["expression"] == "4dF"


def test_check_with_fudge_auto_and_character(cli, examples_dir):
    r = cli(
        "kalyr",
        "check",
        "--character",
        str(examples_dir / "karela.yaml"),
        "--use",
        "Stealth",
        "--equipment",
        "fine",
        "--fudge-auto",
        "--difficulty",
        "Superb",
    )
    assert r.exit_code == 0, r.output
    assert "automatic +2" in r.stdout and "success" in r.stdout


def test_group(cli):
    r = cli(
        "kalyr", "group", "--side", "Fair,Fair,Fair,Fair,Fair,Fair,Fair", "--vs", "Great,Good,Fair", "--odds", "--json"
    )
    assert r.exit_code == 0
    assert json.loads(r.stdout)["p_win"] > 0.5
    r = cli("kalyr", "group", "--side", "Fair,Good", "--vs", "Great", "--seed", "1")
    assert r.exit_code == 0 and "Average results" in r.stdout
    r = cli("kalyr", "group", "--side", "", "--vs", "Great")
    assert r.exit_code == 2


def test_sheet(cli, examples_dir):
    r = cli("kalyr", "sheet", str(examples_dir / "kluranyr.yaml"))
    assert r.exit_code == 0, r.output
    assert re.search(r"physical +│ Hurt +│ -1 ", r.stdout) and "Melee Combat (Narvork)" in r.stdout
    r = cli("kalyr", "sheet", str(examples_dir / "kylar.yaml"), "--json")
    data = json.loads(r.stdout)
    assert value_of(data, "derived", "weapon_damage") == 3 and value_of(data, "derived", "gift_damage_bonus") == 1
    assert data["problems"] == []


def test_sheet_of_an_illegal_character_exits_2(cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        yaml.safe_dump({"name": "Bad", "abilities": [{"name": "Mind Read", "level": "Good", "kind": "psionic"}]})
    )
    r = cli("kalyr", "sheet", str(bad))
    assert r.exit_code == 2
    assert "must name its power" in r.stderr
    worse = tmp_path / "worse.yaml"
    worse.write_text("name: X\nabilities: [{name: A, level: Awesome}]\n")
    r = cli("kalyr", "sheet", str(worse))
    assert r.exit_code == 2 and "abilities.0.level" in r.stderr


def test_schema_command(cli):
    r = cli("kalyr", "schema", "--json")
    assert json.loads(r.stdout) == Character.model_json_schema()


def test_ladder_and_costs(cli):
    r = cli("kalyr", "ladder", "--json")
    assert json.loads(r.stdout)["4dF"]["0"] == "19/81"
    r = cli("kalyr", "costs")
    assert r.exit_code == 0 and "24" in r.stdout


def test_new_builds_a_character_interactively(cli, tmp_path):
    out = tmp_path / "new.yaml"
    answers = (
        "\n".join(
            [
                "Narluis",
                "kandar",
                "0",
                "Melee Combat",
                "Great",
                "mundane",
                "physical",
                "Mind Shield",
                "Poor",
                "psionic",
                "mental",
                "Telepathy",
                "",
                "The Legion",
                "Fair",
                "",
                "Clan honour",
                "",  # keys
                "Extra Damage",
                "",  # gifts
                "Legionnaire",
                "",  # lifepaths
                "Swimming",
                "",  # incompetences
                "narvork",
                "hardened ulsoghir hide",
                "small",
            ]
        )
        + "\n"
    )
    r = cli("kalyr", "new", "--out", str(out), input=answers)
    assert r.exit_code == 0, r.output
    assert "2 abilities, +0 ladder steps" in r.stderr  # the running totals go with the questions, on stderr
    c = Character.model_validate(yaml.safe_load(out.read_text()))
    assert c.name == "Narluis" and c.powers == ("Telepathy",) and c.shield == "small"
    assert c.abilities[1].power == "Telepathy" and c.incompetences == ("Swimming",)


def test_new_reprompts_a_bad_level(cli):
    answers = (
        "\n".join(
            [
                "X",
                "human",
                "0",
                "Riding",
                "Awesome",
                "Good",
                "mundane",
                "physical",
                "",
                "",
                "",
                "",
                "",
                "",
                "unarmed",
                "none",
                "none",
            ]
        )
        + "\n"
    )
    r = cli("kalyr", "new", "--json", input=answers)
    assert r.exit_code == 0, r.output
    assert "not on the Trait Ladder" in r.stderr  # asked again, on stderr: stdout holds only the JSON
    data = json.loads(r.stdout[r.stdout.index("{") :])  # (the test runner echoes the typed answers)
    assert data["character"]["abilities"][0]["level"] == "Good"


def test_damage_calc_kylar_against_the_bandit(cli, examples_dir):
    r = cli(
        "kalyr",
        "damage-calc",
        str(examples_dir / "kylar.yaml"),
        str(examples_dir / "bandit.yaml"),
        "--a-result",
        "Great",
        "--b-result",
        "Great",
        "--b-approach",
        "2",
        "--json",
    )
    data = json.loads(r.stdout)["damage"]
    assert data["Kylar"] == {"points": 3, "wound": "Very Hurt"}
    assert data["Bandit heavy"] == {"points": 5, "wound": "Destroyed"}


@pytest.mark.parametrize("detailed", [False, True])
def test_fight(cli, examples_dir, detailed):
    args = ["kalyr", "fight", str(examples_dir / "kylar.yaml"), str(examples_dir / "bandit.yaml"), "--seed", "3"]
    if detailed:
        args.append("--detailed")
    a = cli(*args, "--json")
    b = cli(*args, "--json")
    assert a.exit_code == 0, a.output
    assert a.stdout == b.stdout
    data = json.loads(a.stdout)
    assert data["events"][-1]["kind"] == "over"
    assert data["result"]
    text = cli(*args)
    assert "round 1" in text.stdout and "seed 3" in text.stdout


def test_fight_with_allies_and_bad_options(cli, examples_dir):
    k, b, m = (str(examples_dir / f"{n}.yaml") for n in ("kylar", "bandit", "marlith"))
    r = cli("kalyr", "fight", k, b, "--ally-a", m, "--seed", "1", "--json")
    assert r.exit_code == 0, r.output
    r = cli("kalyr", "fight", k, b, "--ally-a", m, "--detailed")
    assert r.exit_code == 2 and "one-on-one" in r.stderr
    r = cli("kalyr", "fight", k, b, "--stance-a", "wild")
    assert r.exit_code == 2
    r = cli("kalyr", "fight", k, b, "--approach-a", "5")
    assert r.exit_code == 2


def test_character_changing_commands(cli, examples_dir, tmp_path):
    src = str(examples_dir / "kylar.yaml")
    f = tmp_path / "k.yaml"
    r = cli("kalyr", "wound", src, "--severity", "Very Hurt", "--out", str(f))
    assert r.exit_code == 0, r.output
    r = cli("kalyr", "wound", str(f), "--points", "2", "--out", str(f), "--json")
    assert json.loads(r.stdout)["character"]["damage"]["physical"]["wounds"][1]["box"] == "Hurt"
    r = cli("kalyr", "wound", str(f), "--points", "2", "--out", str(f))
    assert "Defeated box" in r.stdout
    r = cli("kalyr", "heal", str(f), "--result", "Good", "--out", str(f))
    assert "after 2 days" in r.stdout
    r = cli("kalyr", "rest", str(f), "--weeks", "1", "--out", str(f))
    assert Character.model_validate(yaml.safe_load(f.read_text())).damage.physical.wounds == ()
    r = cli("kalyr", "fudge", str(f), "gain", "--key", "Loyal to his clan", "--out", str(f))
    r = cli("kalyr", "fudge", str(f), "spend", "--use", "story", "--out", str(f))
    r = cli("kalyr", "end-session", str(f), "--convert", "1", "--out", str(f))
    c = Character.model_validate(yaml.safe_load(f.read_text()))
    assert (c.fudge_points, c.experience) == (0, 2)
    r = cli("kalyr", "advance", str(f), "--buy", "ability:Riding", "--out", str(f))
    assert r.exit_code == 2 and "cost 3 XP" in r.stderr
    c = c.model_copy(update={"experience": 9})
    f.write_text(yaml.safe_dump(c.model_dump(mode="json")))
    r = cli("kalyr", "advance", str(f), "--buy", "ability:Riding", "--buy", "connection:The Legion", "--out", str(f))
    assert r.exit_code == 0, r.output
    c = Character.model_validate(yaml.safe_load(f.read_text()))
    assert c.experience == 0 and c.connections[0].level == 1
    r = cli("kalyr", "advance", str(f), "--buy", "Riding")
    assert r.exit_code == 2
    r = cli("kalyr", "end-scene", str(f), "--json")
    assert json.loads(r.stdout)["character"]["raised_this_scene"] == []
    r = cli("kalyr", "add-key", str(f), "--name", "Fear of maces")
    assert r.exit_code == 2 and "owed no Key" in r.stderr
    r = cli("kalyr", "wound", str(f))
    assert r.exit_code == 2
    r = cli("kalyr", "heal", str(f), "--result", "Good", "--track", "social")
    assert r.exit_code == 2


def test_house_rules_file(cli, tmp_path):
    hr = tmp_path / "hr.yaml"
    hr.write_text("winner_narrates: false\n")
    r = cli("kalyr", "check", "--ability", "Good", "--vs", "Mediocre", "--seed", "2", "--house-rules", str(hr))
    assert r.exit_code == 0 and "narrates" not in r.stdout
    hr.write_text("no_such_rule: 1\n")
    r = cli("kalyr", "check", "--ability", "Good", "--vs", "Mediocre", "--house-rules", str(hr))
    assert r.exit_code == 2
    r = cli("house-rules", "kalyr", "--json")
    assert any(row["name"] == "detailed_reach" for row in json.loads(r.stdout)["house_rules"])


def test_check_retro_shift(cli):
    plain = json.loads(cli("kalyr", "check", "--ability", "Fair", "--vs", "Fair", "--seed", "5", "--json").stdout)
    shifted = json.loads(
        cli(
            "kalyr",
            "check",
            "--ability",
            "Fair",
            "--vs",
            "Fair",
            "--seed",
            "5",
            "--retro",
            "1",
            "--vs-retro",
            "-1",
            "--json",
        ).stdout
    )
    assert shifted["margin"] == plain["margin"] + 2
    assert "Fudge points shift" in shifted["explanation"]
    r = cli("kalyr", "check", "--ability", "Fair", "--difficulty", "Fair", "--retro", "2")
    assert r.exit_code == 2 and "+1 or -1" in r.stderr
    r = cli("kalyr", "check", "--ability", "Fair", "--difficulty", "Fair", "--vs-retro", "1")
    assert r.exit_code == 2
