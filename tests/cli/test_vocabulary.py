"""The CLI's one vocabulary and its one rule for input and output, across systems."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"


def test_a_mistyped_system_gets_a_suggestion(cli) -> None:
    r = cli("blys", "sheet")
    assert r.exit_code == 2
    assert "Did you mean 'blyss'?" in r.stderr
    r = cli("fuzy", "--help")
    assert "Did you mean 'fuzzy'?" in r.stderr
    r = cli("zzzzzz")
    assert r.exit_code == 2 and "Did you mean" not in r.stderr


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN"])
def test_non_finite_numbers_exit_2_with_a_message(cli, value: str) -> None:
    r = cli("blyss", "deprivation", "--stamina", "3", "--awake", value)
    assert r.exit_code == 2, r.output
    assert "not a finite number" in r.stderr and "internal" not in r.stderr


def test_usage_errors_are_json_with_json(cli) -> None:
    r = cli("blyss", "odds", "--pool", "d8", "--no-such-flag", "--json")
    assert r.exit_code == 2
    assert r.stdout == ""
    err = json.loads(r.stderr)
    assert err["error"] == "usage" and "--no-such-flag" in err["message"]
    assert err["command"] == "storymaster blyss odds"
    r = cli("blyss", "odds", "--pool", "d8", "--no-such-flag")
    assert r.exit_code == 2 and not r.stderr.lstrip().startswith("{")


def test_hidden_aliases_work_but_are_not_listed(cli) -> None:
    from storymaster.cli.vocab import HIDDEN_ALIASES

    assert "--char" in HIDDEN_ALIASES
    helped = cli("blyss", "fight", "--help").stdout
    assert "--vs" in helped and "--state" in helped
    for old in HIDDEN_ALIASES:
        assert f"{old} " not in helped and f"{old}," not in helped


def _copy(tmp_path: Path, system: str, name: str, comment: str = "") -> Path:
    text = (EX / system / name).read_text()
    f = tmp_path / name
    f.write_text(comment + text)
    return f


def test_a_change_is_printed_by_default_and_the_file_is_untouched(cli, tmp_path) -> None:
    f = _copy(tmp_path, "blyss", "rogue.yaml")
    before = f.read_text()
    r = cli("blyss", "award", str(f), "--challenges", "1")
    assert r.exit_code == 0, r.output
    assert f.read_text() == before
    assert "not saved" in r.stderr
    printed = yaml.safe_load(r.stdout[r.stdout.index("name:") :])
    assert printed["cp_earned"] == yaml.safe_load(before).get("cp_earned", 0) + 4  # 3 + 1 challenge


def test_in_place_keeps_comments_and_a_backup(cli, tmp_path) -> None:
    f = _copy(tmp_path, "blyss", "rogue.yaml", comment="# my rogue, do not lose this note\n")
    before = f.read_text()
    r = cli("blyss", "award", str(f), "--roleplaying", "2", "--in-place")
    assert r.exit_code == 0, r.output
    after = f.read_text()
    assert after.startswith("# my rogue, do not lose this note\n")
    assert (tmp_path / "rogue.yaml.bak").read_text() == before
    assert yaml.safe_load(after)["cp_earned"] == yaml.safe_load(before).get("cp_earned", 0) + 5
    assert f"wrote {f}" in r.stdout and "rogue.yaml.bak" in r.stdout


def test_out_writes_a_new_file_and_says_so(cli, tmp_path) -> None:
    f = _copy(tmp_path, "blyss", "rogue.yaml")
    out = tmp_path / "new.yaml"
    r = cli("blyss", "award", str(f), "--learned", "-o", str(out), "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["written"] == str(out) and data["backup"] is None
    assert yaml.safe_load(out.read_text())["cp_earned"] == data["character"]["cp_earned"]
    r = cli("blyss", "award", str(f), "--learned", "-o", str(out), "--in-place")
    assert r.exit_code == 2 and "not both" in r.stderr


def test_commands_refuse_what_sheet_refuses_unless_allow_illegal(cli) -> None:
    bad = str(EX / "blyss" / "illegal.yaml")
    good = str(EX / "blyss" / "rogue.yaml")
    for args in (
        ("blyss", "fight", bad, good, "--seed", "1"),
        ("blyss", "test", "-c", bad, "--stat", "Strength", "--seed", "1"),
        ("blyss", "damage", bad, "3"),
    ):
        r = cli(*args)
        assert r.exit_code == 2, (args, r.output)
        assert "breaks" in r.stderr and "--allow-illegal" in r.stderr
        assert cli(*args, "--allow-illegal").exit_code == 0


def test_new_asks_again_on_bad_answers(cli, tmp_path) -> None:
    out = tmp_path / "x.yaml"
    answers = [
        "",  # no name: asked again (the prompt insists by itself)
        "Ada",
        "",  # concept
        "wizard",  # not a template: asked again
        "none",
        "eleven",  # not a number: asked again
        "99",  # out of range: asked again
        "10",  # Strength 10 costs 304 CP, 280 more than rank 3, and 184 are left: asked again
        "3",
        *["3"] * 8,
        "Sword",
        "talent",
        "10",
        "n",  # a rank-10 Talent costs 228 CP of the 184 left: the Trait is not added
        "Sword",
        "skill",
        "2",
        "n",
        "",  # no more traits
        "",  # no native tongue
        "9",  # more than 5 extra Dodges: asked again
        "0",
        "0",
        "0",
    ]
    r = cli("blyss", "new", "-o", str(out), input="\n".join(answers) + "\n")
    assert r.exit_code == 0, r.output
    assert r.stderr.count("(try again)") == 6
    assert "overspend by 96 CP" in r.stderr and "overspend by 44 CP" in r.stderr
    data = yaml.safe_load(out.read_text())
    assert data["name"] == "Ada" and data["traits"] == [{"name": "Sword", "rank": 2}]


def test_new_json_is_one_object_on_stdout(cli) -> None:
    answers = ["Yama", "", "", *[""] * 9, "", "", "0", "0", "0"]
    r = cli("blyss", "new", "--template", "warrior", "--json", input="\n".join(answers) + "\n")
    assert r.exit_code == 0, r.output
    # the test runner echoes typed answers onto stdout; a terminal does not: skip them
    data = json.loads(r.stdout[r.stdout.index("{") :])
    assert data["character"]["template"] == "warrior" and data["written"] is None
    assert "CP left" in r.stderr


def test_blyss_test_shows_dice_not_a_sum(cli) -> None:
    r = cli("blyss", "test", "--pool", "d8,d6", "--td", "6", "--seed", "3")
    assert r.exit_code == 0
    assert "d8=3, d6=3" in r.stdout and "= 6" not in r.stdout
    assert "seed 3" in r.stdout


def test_fight_state_goes_on_where_it_stopped(cli, tmp_path) -> None:
    a, b = str(EX / "blyss" / "warrior.yaml"), str(EX / "blyss" / "rogue.yaml")
    state = tmp_path / "fight.json"
    r = cli("blyss", "fight", a, b, "--seed", "7", "--rounds", "1", "--save-state", str(state), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["rounds"] == 1
    r = cli("blyss", "fight", "--state", str(state), "--seed", "7", "--rounds", "2", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["rounds"] in (2, 3) and {e["round"] for e in data["events"]} <= {2, 3}


def test_team_fight_with_vs(cli) -> None:
    w, r_ = str(EX / "blyss" / "warrior.yaml"), str(EX / "blyss" / "rogue.yaml")
    r = cli("blyss", "fight", w, r_, "--vs", r_, "--seed", "2", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["winner"] in (0, 1, None)
    assert not math.isnan(data["rounds"])


def test_shell_completion_is_not_offered_and_touches_no_home(tmp_path) -> None:
    """Completion is not offered (Typer's installer once wrote a broken line into ~/.bashrc)."""
    import os
    import subprocess
    import sys

    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "SHELL": "/bin/bash"}
    run = [sys.executable, "-c", "from storymaster.cli.app import main; main()"]
    r = subprocess.run([*run, "--install-completion", "bash"], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "No such option: --install-completion" in r.stderr
    r = subprocess.run(
        run, env={**env, "_STORYMASTER_COMPLETE": "bash_source"}, capture_output=True, text=True, timeout=60
    )
    assert "complete" not in r.stdout  # no completion script is printed
    assert (
        "--install-completion" not in subprocess.run([*run, "--help"], env=env, capture_output=True, text=True).stdout
    )
    assert list(home.iterdir()) == []  # nothing written into the scratch HOME


def test_out_of_range_values_exit_2_not_70(cli) -> None:
    huge = "99999999999999999999"
    for args, words in (
        (("blyss", "odds", "--ranks", "3", "--td", huge), "td"),
        (("bum", "hazard", "explosion", "--power", huge), "--power"),
        (("philsys", "check", "--modifier", huge, "--td", "10"), "modifier"),
    ):
        r = cli(*args)
        assert r.exit_code == 2, (args, r.output)
        assert words in r.stderr and "internal" not in r.stderr


def test_new_json_prints_only_json_on_stdout_in_a_real_process(tmp_path) -> None:
    """Click's prompt with err=True still writes a space to stdout per question; 'new' asks on stderr only."""
    import subprocess
    import sys

    answers = "Yama\n" + "\n" * 12 + "0\n0\n0\n"
    r = subprocess.run(
        [sys.executable, "-m", "storymaster", "blyss", "new", "--template", "warrior", "--json"],
        input=answers,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("{") and json.loads(r.stdout)["sheet"]["legal"]
    assert "Name" in r.stderr  # the questions
