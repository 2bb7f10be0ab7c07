"""The `storymaster blyss` commands, including every example in docs/systems/blyss.md."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from fractions import Fraction
from pathlib import Path

import pytest
import yaml
from sheet_json import rows_of, section_of, value_of

ROOT = Path(__file__).resolve().parents[3]
EX = ROOT / "examples" / "blyss"


def run(cli, cmd: str, input: str | None = None):
    return cli(*shlex.split(cmd), input=input)


def test_odds_json_issue_example(cli) -> None:
    r = run(cli, 'blyss odds --pool "d12+d4,d10" --td 8 --json')
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["exact"]["p_success"] == "17/40"
    assert set(data["outcomes"]) >= {"failure", "success x1", "success x2", "critical screw-up"}
    g = json.loads(run(cli, 'blyss odds --pool "d12+d4,d10" --td 8 --golden --json').stdout)
    assert Fraction(g["exact"]["p_success"]) == Fraction(11, 20)


def test_test_rolls_and_explains(cli) -> None:
    r = run(cli, 'blyss test --pool "d12+d4,d10" --td 8 --seed 3 --json')
    data = json.loads(r.stdout)
    assert data["details"]["td"] == 8 and len(data["rolls"][0]["dice"]) == 3
    assert "TD 8" in data["explanation"]
    again = json.loads(run(cli, 'blyss test --pool "d12+d4,d10" --td 8 --seed 3 --json').stdout)
    assert again == data
    text = run(cli, 'blyss test --pool "d12+d4,d10" --td 8 --seed 3')
    assert text.exit_code == 0 and "against TD 8" in text.stdout


def test_test_from_a_character(cli) -> None:
    r = run(
        cli, f'blyss test --character {EX / "rogue.yaml"} --stat Dexterity --stat "Lock Picking" --td 8 --seed 1 --json'
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["details"]["dice"] == [10, 8]
    r = run(cli, f'blyss odds --character {EX / "expert.yaml"} --stat Wisdom --stat "Poor Eyesight" --td 6 --json')
    assert r.exit_code == 0, r.output
    assert "ranks 5" in json.loads(r.stdout)["check"]


@pytest.mark.parametrize(
    ("cmd", "message"),
    [
        ("blyss odds --pool d8 --td -2", "TD is 0 or more"),
        ("blyss odds --pool d4 --td 12", "Minimum Die Pool"),
        ("blyss odds --pool d8 --penalty -1 --td 4", "0 or more"),
        ("blyss odds --pool d8x --td 4", "plain dice joined by"),  # d8x is an exploding d8 now: not a pool
        ("blyss odds --td 4", "exactly one of"),
        ("blyss odds --ranks 50,50 --bonus 200 --td 4", "limit of 40"),
        ("blyss odds --ranks 500 --td 4", "0 to 50"),
        ("blyss fight examples/blyss/warrior.yaml examples/blyss/rogue.yaml --tactic-a berserk", "unknown tactic"),
        ("blyss sheet no-such-file.yaml", "no such file"),
        ("blyss odds --pool d1 --td 4", "d1 is not a die of the Ability Scale"),
        ("blyss odds --pool d20 --td 4", "d20 is not a die of the Ability Scale"),
        ("blyss odds --pool " + ",".join(["d4"] * 13) + " --td 4", "at most 12 statistics"),
        ("blyss odds --ranks " + ",".join(["1"] * 13) + " --td 4", "at most 12 statistics"),
    ],
)
def test_errors_are_clear_and_exit_2(cli, cmd, message) -> None:
    r = run(cli, cmd.replace("examples/blyss", str(EX)))
    assert r.exit_code == 2
    assert message in r.stderr
    assert "Traceback" not in r.output


def test_sheet_legal_and_illegal(cli) -> None:
    r = run(cli, f"blyss sheet {EX / 'warrior.yaml'} --json")
    assert r.exit_code == 0
    data = json.loads(r.stdout)
    cp = next(v for v in section_of(data, "resources")["values"] if v["key"] == "cp")
    assert data["legal"] and cp["maximum"] - cp["value"] == 356 and value_of(data, "resources", "health") == 34
    strength = rows_of(data, "attributes")[0]
    assert strength["Attribute"] == "Strength" and strength["Die Pool"] == "d10"
    assert strength["CP to next rank"] == 24  # Good costs 24 CP more
    r = run(cli, f"blyss sheet {EX / 'illegal.yaml'}")
    assert r.exit_code == 2
    assert "6 rule(s)" in r.stderr and "creation cap" in r.stdout


def test_schema_and_house_rules_and_costs_and_templates(cli) -> None:
    schema = json.loads(run(cli, "blyss schema").stdout)
    assert schema == json.loads((ROOT / "docs" / "schemas" / "blyss-character.schema.json").read_text())
    hr = json.loads(run(cli, "blyss house-rules --json").stdout)
    assert any(o["name"] == "creation_rank_cap" and o["default"] == 6 for o in hr["house_rules"])
    costs = json.loads(run(cli, "blyss costs --json").stdout)
    assert costs["skill"]["cumulative"][6] == 48
    t = json.loads(run(cli, "blyss templates --json").stdout)
    assert set(t) == {"craftsman", "expert", "rogue", "warrior"}


def test_house_rules_file(cli, tmp_path) -> None:
    f = tmp_path / "hr.yaml"
    f.write_text("creation_rank_cap: 3\n")
    r = run(cli, f"blyss sheet {EX / 'warrior.yaml'} --house-rules {f}")
    assert r.exit_code == 2 and "creation cap is rank 3" in r.stdout
    f.write_text("no_such_option: 1\n")
    assert run(cli, f"blyss sheet {EX / 'warrior.yaml'} --house-rules {f}").exit_code == 2


def test_new_interactive_with_running_total(cli, tmp_path) -> None:
    out = tmp_path / "gabe.yaml"
    answers = (
        "\n".join(
            [
                "Ralan",
                "Swashbuckler",
                "none",
                "3",
                "3",
                "5",
                "4",
                "3",
                "3",
                "4",
                "3",
                "5",  # attributes
                "Armed Combat",
                "skill",
                "4",
                "n",
                "Clumsy",
                "talent",
                "1",
                "y",
                "",  # no more traits
                "Kaloman",  # native tongue
                "2",
                "0",
                "5",
            ]
        )
        + "\n"
    )
    r = run(cli, f"blyss new --out {out}", input=answers)
    assert r.exit_code == 0, r.output
    assert "CP left" in r.stderr  # the questions and running totals are on stderr
    data = yaml.safe_load(out.read_text())
    assert data["attributes"]["agility"] == 5 and data["extra_dodges"] == 2
    sheet = json.loads(run(cli, f"blyss sheet {out} --json").stdout)
    # 3*24 + 40 + 2*64 + 3*24 + 40 ... checked against the sheet's own sum, then by hand:
    cp = next(v for v in section_of(sheet, "resources")["values"] if v["key"] == "cp")
    assert cp["maximum"] - cp["value"] == 24 * 5 + 40 * 2 + 64 * 2 + 20 - 6 + 8 + 10
    assert sheet["legal"]


def test_new_from_template(cli) -> None:
    r = run(cli, "blyss new --template warrior --json", input="Yama\n\n" + "\n" * 9 + "\n\n0\n0\n0\n")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout[r.stdout.index("{\n") :])  # after the prompts
    assert data["sheet"]["legal"] and data["character"]["template"] == "warrior"


def test_fight_log(cli) -> None:
    r = run(cli, f"blyss fight {EX / 'warrior.yaml'} {EX / 'rogue.yaml'} --seed 7")
    assert r.exit_code == 0, r.output
    assert "round 1" in r.stdout and "Initiative" in r.stdout and "wins" in r.stdout
    j = json.loads(run(cli, f"blyss fight {EX / 'warrior.yaml'} {EX / 'rogue.yaml'} --seed 7 --json").stdout)
    assert j["events"][0]["kind"] == "initiative" and j["winner"] in (0, 1, None)


def test_contest_and_combined_commands(cli) -> None:
    r = json.loads(run(cli, "blyss contest --a d10 --b d12,d4 --odds --json").stdout)
    assert abs(sum(r["outcomes"].values()) - 1) < 1e-12
    r = json.loads(run(cli, "blyss contest --a d10 --b d12,d4 --seed 2 --no-draw --json").stdout)
    assert r["result"] in ("A wins", "B wins")
    r = json.loads(run(cli, "blyss combined --assisted d8,d8 --helper d10 --helper d6 --td 10 --odds --json").stdout)
    assert "critical screw-up" in r["outcomes"]
    r = run(cli, "blyss combined --assisted d8,d8 --helper d10 --td 8 --seed 4")
    assert r.exit_code == 0 and "helper" in r.stdout


def test_damage_and_deprivation_commands(cli) -> None:
    r = json.loads(run(cli, f"blyss damage {EX / 'rogue.yaml'} 4 2 7 --json").stdout)
    assert [b["wound_level"] for b in r["blows"]] == ["Healthy", "Flesh Wounds", "Light Wounds"]
    r = json.loads(run(cli, "blyss deprivation --stamina 3 --awake 27 --thirsty 28 --json").stdout)
    assert r["threshold_hours"] == 24 and r["penalties"] == {"fatigue": 3, "hunger": 0, "thirst": 2}
    assert r["unconscious"] is True


def test_advancement_commands(cli, tmp_path) -> None:
    f = tmp_path / "rogue.yaml"
    shutil.copy(EX / "rogue.yaml", f)
    r = run(cli, f"blyss award {f} --challenges 1 --roleplaying 2 --learned --in-place --json")
    assert r.exit_code == 0 and json.loads(r.stdout)["cp_left"] == 15 + 7
    r = run(cli, f"blyss spend {f} Sneak 20 --in-place --json")
    assert r.exit_code == 0, r.output
    assert yaml.safe_load(f.read_text())["traits"][5]["rank"] == 5  # Sneak 3 -> 5 for 8 + 12 CP
    r = run(cli, f"blyss deteriorate {f} Forgery --in-place --json")
    assert r.exit_code == 0
    r = run(cli, f"blyss flaw {f} Greedy --rank 2 --in-place --json")
    assert r.exit_code == 0
    r = run(cli, f"blyss spend {f} Sneak 500")
    assert r.exit_code == 2 and "CP to spend" in r.stderr
    assert run(cli, f"blyss sheet {f}").exit_code == 0


DOC = ROOT / "docs" / "systems" / "blyss.md"


def test_every_documented_command_runs(cli, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    cmds = re.findall(r"^\s*\$ storymaster (.+)$", DOC.read_text(), re.M)
    assert len(cmds) >= 8
    char = shutil.copy(EX / "rogue.yaml", tmp_path / "c.yaml")
    for cmd in cmds:
        cmd = cmd.replace("CHAR.yaml", str(char))
        r = run(cli, cmd)
        expected = 2 if "illegal" in cmd else 0
        assert r.exit_code == expected, (cmd, r.output)


def test_json_character_files(cli, tmp_path) -> None:
    out = tmp_path / "yama.json"
    r = run(cli, f"blyss new --template warrior --out {out}", input="Yama\n\n" + "\n" * 9 + "\n\n0\n0\n0\n")
    assert r.exit_code == 0, r.output
    assert json.loads(out.read_text())["template"] == "warrior"
    assert run(cli, f"blyss sheet {out}").exit_code == 0


def test_d0_is_the_books_rank_0(cli) -> None:
    """Table 2-01: rank 0, 'Non-existant', d0. A d0 statistic adds a rank-0 statistic (no dice) to the pool."""
    r = run(cli, "blyss odds --pool d0 --td 6 --sm-allows --json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert "ranks 0" in data["check"] and data["p_success"] == 0
    both = json.loads(run(cli, "blyss odds --pool d0,d8 --td 6 --json").stdout)
    alone = json.loads(run(cli, "blyss odds --pool d8 --td 6 --json").stdout)
    assert "ranks 0+3" in both["check"] and both["p_success"] == alone["p_success"] == 3 / 8


def test_the_sheet_shows_damaged_armour_at_its_damaged_rating(cli, tmp_path) -> None:
    """Armour Rating (ruling 9): a third of the original rating, rounded down, is lost per life. Chainmail AR 5
    with 2 lives soaks at 5 - 1 = 4; with 1 life at 5 - 2 = 3."""
    import yaml

    data = yaml.safe_load((EX / "warrior.yaml").read_text())
    data["armour"][0].update(armour_rating=5, lives=1)
    path = tmp_path / "dented.yaml"
    path.write_text(yaml.safe_dump(data))
    r = run(cli, f"blyss sheet {path} --json")
    assert r.exit_code == 0, r.output
    [armour] = rows_of(json.loads(r.stdout), "armour")
    assert armour["Armour rating"] == "3 (damaged; 5 new)"
    text = run(cli, f"blyss sheet {path}").stdout
    assert "3 (damaged; 5 new)" in " ".join(text.split())
