"""The philsys CLI: every documented example runs; errors exit 2 with a message, never a traceback."""

from __future__ import annotations

import json
import re
import shlex

import pytest
import yaml
from philsys_helpers import ROOT
from sheet_json import values_of

DOC = ROOT / "docs" / "systems" / "philsys.md"


def doc_commands() -> list[list[str]]:
    out = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\s+\$ storymaster (.*)$", line)
        if m:
            out.append(shlex.split(m.group(1)))
    return out


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def test_the_doc_has_examples():
    assert len(doc_commands()) >= 15


@pytest.mark.parametrize("args", doc_commands(), ids=lambda a: " ".join(a[:3]))
def test_documented_command_runs(cli, args):
    result = cli(*args)
    assert result.exit_code == 0, result.output
    if "--json" in args:
        json.loads(result.stdout)


def test_required_odds_output(cli):
    r = cli("philsys", "odds", "--modifier", "15", "--td", "20", "--json")
    data = json.loads(r.stdout)
    assert data["p_success"] == 0.8 and data["exact"]["p_success"] == "4/5"
    r = cli("philsys", "odds", "--modifier", "10", "--vs", "10", "--json")
    assert json.loads(r.stdout)["exact"]["p_success"] == "19/40"


def test_sheet_prints_derived_values(cli):
    r = cli("philsys", "sheet", "examples/philsys/aya.yaml", "--json")
    data = json.loads(r.stdout)
    points = values_of(data, "resources")
    assert points["MP"] == 80 and points["HP"] == 60 and data["problems"] == []
    r = cli("philsys", "sheet", "examples/philsys/aya.yaml")
    assert "Flare Arrow" in r.stdout and re.search(r"\bHP +60 of 60", r.stdout)


def test_illegal_sheet_exits_2_listing_every_problem(cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        yaml.safe_dump(
            {
                "name": "Bad",
                "stats": {"STR": 11, "MAG": 7},
                "skills": [{"name": "Trick", "bases": ["DEX", "DEX", "DEX"], "rank": 6}],
            }
        )
    )
    r = cli("philsys", "sheet", str(bad))
    assert r.exit_code == 2
    assert "stats.STR" in r.stderr and "stats.MAG" in r.stderr and "first-level cap" in r.stderr
    assert "Traceback" not in r.output


def test_malformed_file_and_missing_file(cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: X\nstats: {STR: strong}\n")
    r = cli("philsys", "sheet", str(bad))
    assert r.exit_code == 2 and "stats.STR" in r.stderr
    r = cli("philsys", "sheet", str(tmp_path / "none.yaml"))
    assert r.exit_code == 2 and "no such file" in r.stderr


@pytest.mark.parametrize(
    "args,msg",
    [
        (["odds", "--modifier", "3", "--td", "-1"], "cannot be negative"),
        (["odds", "--modifier", "3"], "needs --td"),
        (["odds", "--modifier", "3", "--td", "5", "--vs", "2"], "not both"),
        (["odds", "--kind", "melee", "--modifier", "3"], "--vs"),
        (["odds", "--bases", "1,2", "--td", "5"], "exactly three"),
        (["odds", "--kind", "sorcery", "--modifier", "1", "--vs", "1"], "unknown kind"),
        (["check", "--stat", "30", "--td", "5"], "stat runs"),
        (["damage", "--weapon", "10/14"], "three numbers"),
    ],
)
def test_bad_options_have_clear_messages(cli, args, msg):
    r = cli("philsys", *args)
    assert r.exit_code == 2, r.output
    assert msg in r.stderr


def test_check_is_reproducible_from_its_seed(cli):
    a = cli("philsys", "check", "--stat", "2", "--td", "15", "--seed", "9", "--json")
    b = cli("philsys", "check", "--stat", "2", "--td", "15", "--seed", "9", "--json")
    assert a.stdout == b.stdout
    data = json.loads(a.stdout)
    assert data["rolls"][0]["label"] == "check d20" and data["explanation"]


def test_fight_log_and_json(cli):
    r = cli("philsys", "fight", "examples/philsys/knight.yaml", "examples/philsys/guard.yaml", "--seed", "3")
    assert "round 1" in r.stdout and "Initiative" in r.stdout and "wins" in r.stdout
    j = cli("philsys", "fight", "examples/philsys/knight.yaml", "examples/philsys/guard.yaml", "--seed", "3", "--json")
    data = json.loads(j.stdout)
    assert data["events"][0]["kind"] == "initiative" and data["winner"] in (0, 1)
    again = cli(
        "philsys", "fight", "examples/philsys/knight.yaml", "examples/philsys/guard.yaml", "--seed", "3", "--json"
    )
    assert again.stdout == j.stdout


def test_fight_refuses_illegal_characters_and_bad_tactics(cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({"name": "Bad", "stats": {"STR": 10, "AGI": 10, "COU": 10}}))
    r = cli("philsys", "fight", str(bad), "examples/philsys/guard.yaml")
    assert r.exit_code == 2 and "21 points" in r.stderr
    r = cli("philsys", "fight", "examples/philsys/knight.yaml", "examples/philsys/guard.yaml", "--tactics", "side0")
    assert r.exit_code == 2 and "NAME=VALUE" in r.stderr


def test_levelup_writes_and_replays(cli, tmp_path):
    out = tmp_path / "k2.yaml"
    args = [
        "philsys",
        "levelup",
        "examples/philsys/knight.yaml",
        "--primary",
        "STR",
        "--secondary",
        "AGI",
        "--skill",
        "Athletics",
        "--ignore-xp",
        "--seed",
        "5",
    ]
    r = cli(*args, "--out", str(out), "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["character"]["level"] == 2
    assert [e["kind"] for e in data["events"]][:3] == ["level", "stat-raise", "stat-raise"]
    again = json.loads(cli(*args, "--json").stdout)
    assert again["events"] == data["events"]
    r = cli("philsys", "sheet", str(out), "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["character"]["level"] == 2
    r = cli("philsys", "levelup", "examples/philsys/knight.yaml", "--primary", "STR", "--secondary", "AGI")
    assert r.exit_code == 2 and "needs 1000" in r.stderr


def test_xp_command_writes(cli, tmp_path):
    out = tmp_path / "k.yaml"
    r = cli("philsys", "xp", "examples/philsys/knight.yaml", "1000", "--out", str(out))
    assert r.exit_code == 0 and "ready to level up" in r.stdout
    assert yaml.safe_load(out.read_text())["xp"] == 1000
    assert cli("philsys", "xp", "examples/philsys/knight.yaml", "--", "-5").exit_code == 2


def test_schema_command_matches_the_file(cli):
    r = cli("philsys", "schema")
    assert json.loads(r.stdout) == json.loads((ROOT / "docs/schemas/philsys-character.schema.json").read_text())


def test_new_builds_a_character_interactively(cli, tmp_path):
    out = tmp_path / "new.yaml"
    stats = ["2", "3", "3", "1", "3", "2", "0", "2", "5"]  # 21 points
    skills = [
        "Fire Magic",
        "normal",
        "magic",
        "4",
        "Geology",
        "knowledge",
        "other",
        "2",
        "Lockpicking",
        "normal",
        "other",
        "DEX/DEX/INT",
        "3",
        "",
    ]
    gear = ["Quarterstaff", "ten", "8/6/9", "", "Robes", "6"]
    answers = "\n".join(["Mira", "a hedge witch", *stats, *skills, *gear]) + "\n"
    r = cli("philsys", "new", "--out", str(out), input=answers)
    assert r.exit_code == 0, r.output
    assert "points left" in r.stderr and "points spent" in r.stderr  # questions and totals: stderr
    assert "21 points left" in r.stderr and "19 points left" in r.stderr  # running totals
    data = yaml.safe_load(out.read_text())
    assert data["name"] == "Mira" and data["stats"]["MAG"] == 5
    assert [s["name"] for s in data["skills"]] == ["Fire Magic", "Geology", "Lockpicking"]
    assert data["equipment"]["weapon"]["damage"] == [8, 6, 9] and data["equipment"]["armor"]["ac"] == 6
    assert "three whole numbers" in r.stderr
    r = cli("philsys", "sheet", str(out))
    assert r.exit_code == 0


def test_new_asks_again_instead_of_building_past_the_first_level_cap(cli):
    # a rank past the first-level cap (4) is asked again, no longer reported at the end
    answers = (
        "\n".join(
            [
                "Over",
                "",
                "0",
                "0",
                "0",
                "0",
                "0",
                "0",
                "0",
                "0",
                "0",
                "Big",
                "normal",
                "other",
                "DEX/DEX/INT",
                "9",
                "2",
                "",
                "",
                "",
            ]
        )
        + "\n"
    )
    r = cli("philsys", "new", "--json", input=answers)
    assert r.exit_code == 0, r.output
    assert "9 is out of range: from 0 to 4 (try again)" in r.stderr
    data = json.loads(r.stdout[r.stdout.index("{") :])
    assert data["character"]["skills"][0]["rank"] == 2 and data["sheet"]["problems"] == []


def test_house_rules_file_changes_the_result(cli, tmp_path):
    hr = tmp_path / "hr.yaml"
    hr.write_text("melee_damage: light_medium_heavy\n")
    r = cli(
        "philsys", "damage", "--weapon", "10/14/17", "--str", "3", "--rank", "4", "--house-rules", str(hr), "--json"
    )
    assert [a["damage"] for a in json.loads(r.stdout)["attacks"]] == ["17+1d6", "24+2d6", "30+3d6"]
    hr.write_text("no_such_rule: 1\n")
    r = cli("philsys", "damage", "--house-rules", str(hr))
    assert r.exit_code == 2 and "no_such_rule" in r.stderr
    r = cli("philsys", "house-rules", "--json")
    assert any(row["name"] == "initiative_formula" for row in json.loads(r.stdout)["house_rules"])


def test_checks_from_a_sheet(cli):
    r = cli(
        "philsys", "odds", "--character", "examples/philsys/aya.yaml", "--skill", "Fire Magic", "--td", "30", "--json"
    )
    assert json.loads(r.stdout)["exact"]["p_success"] == "3/10"  # 15 + d20 >= 30: 15..20
    r = cli(
        "philsys", "odds", "--character", "examples/philsys/knight.yaml", "--stat-of", "str", "--td", "20", "--json"
    )
    assert json.loads(r.stdout)["exact"]["p_success"] == "1/2"  # 9 + d20 >= 20
    r = cli("philsys", "odds", "--character", "examples/philsys/aya.yaml", "--skill", "Juggling", "--td", "3")
    assert r.exit_code == 2 and "known skills" in r.stderr
    r = cli("philsys", "odds", "--skill", "Fire Magic", "--td", "3")
    assert r.exit_code == 2 and "need --character" in r.stderr


def test_attack_odds_between_sheets(cli):
    from fractions import Fraction

    from storymaster.systems.philsys import SYSTEM
    from storymaster.systems.philsys.checks import MagicAttack, MeleeAttack

    r = cli(
        "philsys",
        "attack-odds",
        "examples/philsys/guard.yaml",
        "examples/philsys/aya.yaml",
        "--attack",
        "slash",
        "--json",
    )
    want = SYSTEM.odds(MeleeAttack(at=13, pa=9)).p_success
    assert Fraction(json.loads(r.stdout)["exact"]["p_success"]) == want
    r = cli(
        "philsys",
        "attack-odds",
        "examples/philsys/aya.yaml",
        "examples/philsys/guard.yaml",
        "--attack",
        "Flare Arrow",
        "--json",
    )
    assert (
        Fraction(json.loads(r.stdout)["exact"]["p_success"]) == SYSTEM.odds(MagicAttack(attack=15, resist=16)).p_success
    )
    r = cli("philsys", "attack-odds", "examples/philsys/aya.yaml", "examples/philsys/guard.yaml", "--attack", "chop")
    assert r.exit_code == 2 and "punch, kick" in r.stderr


@pytest.mark.parametrize(
    "args,msg",
    [
        (["odds", "--modifier", "9999", "--td", "5"], "modifier"),
        (["fight", "examples/philsys/knight.yaml", "examples/philsys/guard.yaml", "--range", "far"], "distance"),
        (
            ["fight", "examples/philsys/knight.yaml", "examples/philsys/guard.yaml", "--tactics", "Brenna=dance"],
            "tactics",
        ),
        (
            ["levelup", "examples/philsys/knight.yaml", "--primary", "LUCK", "--secondary", "STR", "--ignore-xp"],
            "primary",
        ),
        (
            ["levelup", "examples/philsys/knight.yaml", "--primary", "STR", "--secondary", "STR", "--ignore-xp"],
            "differ",
        ),
        (["fight", "examples/philsys/knight.yaml"], "two files"),
        # options that would be silently ignored are refused (issue 14)
        (
            ["fight", "examples/philsys/knight.yaml", "examples/philsys/guard.yaml", "--tactics", "Nobody=melee"],
            "nobody called 'Nobody' is in this fight",
        ),
        (
            ["fight", "examples/philsys/knight.yaml", "examples/philsys/guard.yaml", "--attack", "Brenna=stab"],
            "cannot make a 'stab' attack",
        ),
        (["damage", "--weapon", "10/14/17", "--rank", "3"], "--rank does not change thrust/slash/chop"),
        (["damage", "--weapon", "10/14/17", "--two-handed"], "--two-handed applies only"),
        (["damage", "--two-handed"], "--two-handed applies only"),
    ],
)
def test_bad_values_never_give_a_traceback(cli, args, msg):
    r = cli("philsys", *args)
    assert r.exit_code == 2, r.output
    assert msg in r.stderr and "internal error" not in r.stderr


def test_td_ladders(cli):
    data = json.loads(cli("philsys", "tds", "--json").stdout)
    assert list(data["stat"]) == ["10", "20", "30", "40"]
    assert list(data["skill"]) == ["10", "20", "30", "40", "50", "60", "70"]


def test_revive(cli):
    data = json.loads(
        cli("philsys", "revive", "--hours-dead", "30", "--modifiers", "2", "--seed", "4", "--json").stdout
    )
    d6 = data["roll"]["total"]
    assert data["possible"] and data["ritual_hours"] == max(2, 4 + d6 - 2)
    assert data["in_time"] == (30 + data["ritual_hours"] <= 48)
    late = json.loads(cli("philsys", "revive", "--hours-dead", "49", "--json").stdout)
    assert not late["possible"] and not late["in_time"]
    assert cli("philsys", "revive", "--hours-dead", "-1").exit_code == 2


@pytest.mark.parametrize(
    "equipment,field",
    [
        ({"missile": {"name": "Bow", "accuracy": 3, "damage": "2dx"}}, "equipment.missile.damage"),
        (
            {"missile": {"name": "Bow", "accuracy": 3, "ammunition": {"name": "Arrow", "damage": "d"}}},
            "equipment.missile.ammunition.damage",
        ),
        ({"weapon": {"name": "Club", "damage": [10, "x", 17]}}, "equipment.weapon.damage.1"),
    ],
)
def test_a_bad_weapon_damage_names_the_file_and_the_field(cli, tmp_path, equipment, field):
    bad = tmp_path / "bad-weapon.yaml"
    bad.write_text(yaml.safe_dump({"name": "T", "stats": {"STR": 1}, "equipment": equipment}))
    for command in (("sheet", str(bad)), ("fight", str(bad), "examples/philsys/guard.yaml")):
        r = cli("philsys", *command)
        assert r.exit_code == 2, r.output
        assert str(bad) in r.stderr and field in r.stderr and "internal error" not in r.stderr
