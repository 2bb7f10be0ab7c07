"""A sixth system, registered through the real entry point, gets the shared CLI commands.

The toy system (tests/toy/toy_rpg.py) implements only the RuleSystem protocol. A distribution
with a ``storymaster.systems`` entry point is put on sys.path, exactly as an installed plugin
package would be, and no CLI code is added for it.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path

import pytest

TOY_DIR = Path(__file__).resolve().parents[1] / "toy"


@pytest.fixture
def toy_installed(tmp_path, monkeypatch):
    dist = tmp_path / "toy_rpg-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-rpg\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[storymaster.systems]\ntoy = toy_rpg:SYSTEM\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(TOY_DIR))
    from storymaster.cli import app as cli_app
    from storymaster.rules import registry

    caches = (registry._load, cli_app._rule_system_names, cli_app._generic_command, cli_app._system_entry_points)
    for c in caches:
        c.cache_clear()
    yield tmp_path
    for c in caches:
        c.cache_clear()
    sys.modules.pop("toy_rpg", None)


def test_the_toy_system_is_found_through_its_entry_point(toy_installed, cli) -> None:
    data = json.loads(cli("systems", "--json").stdout)
    assert "toy" in [s["name"] for s in data["systems"]]
    assert "toy" in cli("--help").stdout


def test_it_gets_every_shared_command(toy_installed, cli) -> None:
    from storymaster.cli.shared import SHARED_COMMANDS

    helped = cli("toy", "--help")
    assert helped.exit_code == 0, helped.output
    for command in SHARED_COMMANDS:
        assert f"  {command} " in helped.stdout, command


def test_sheet_schema_and_house_rules(toy_installed, cli, tmp_path) -> None:
    good = tmp_path / "ann.yaml"
    good.write_text("name: Ann\nmight: 3\n")
    bad = tmp_path / "hulk.yaml"
    bad.write_text("name: Hulk\nmight: 9\n")
    r = cli("toy", "sheet", str(good), "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["legal"] is True
    r = cli("toy", "sheet", str(bad))
    assert r.exit_code == 2 and "over the limit of 5" in r.stderr
    hr = tmp_path / "hr.yaml"
    hr.write_text("max_might: 10\n")
    assert cli("toy", "sheet", str(bad), "--house-rules", str(hr)).exit_code == 0
    assert json.loads(cli("toy", "schema").stdout)["properties"]["might"]["maximum"] == 20
    rules = json.loads(cli("toy", "house-rules", "--json").stdout)["house_rules"]
    assert [(r["name"], r["default"]) for r in rules] == [("max_might", 5)]


def test_check_and_odds_from_the_check_types(toy_installed, cli) -> None:
    data = json.loads(cli("toy", "odds", "roll", "--set", "dice=2", "--difficulty", "5", "--json").stdout)
    assert data["outcomes"]["success"] == pytest.approx(float(1 - Fraction(4, 6) ** 2))  # 1 - (4/6)^2 = 5/9
    r = cli("toy", "check", "roll", "-p", "dice=3", "--difficulty", "6", "--seed", "11", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    faces = [d["face"] for d in out["rolls"][0]["dice"]]
    assert out["result"] == ("success" if max(faces) == 6 else "failure")
    r = cli("toy", "check", "rol")
    assert r.exit_code == 2 and "did you mean 'roll'" in r.stderr
    r = cli("toy", "check", "roll", "--set", "luck=3")
    assert r.exit_code == 2 and "luck" in r.stderr and "Traceback" not in r.output
    r = cli("toy", "check")
    assert r.exit_code == 2 and "name the check" in r.stderr


def test_a_characters_checks_from_the_catalogue(toy_installed, cli, tmp_path) -> None:
    """`check -c FILE SUBJECT` finds the check on the character (find_check); --difficulty is the kind's field."""
    ann = tmp_path / "ann.yaml"
    ann.write_text("name: Ann\nmight: 3\n")
    listed = json.loads(cli("toy", "checks", "-c", str(ann), "--json").stdout)["checks"]
    assert [(e["key"], e["defaults"]) for e in listed] == [("roll:might", {"dice": 3})]
    kinds = json.loads(cli("toy", "checks", "--json").stdout)["kinds"]
    assert [(k["name"], k["difficulty"]) for k in kinds] == [("roll", "target")]
    data = json.loads(cli("toy", "odds", "-c", str(ann), "might", "--difficulty", "5", "--json").stdout)
    # Might 3 rolls 3d6 for a 5+: 1 - (4/6)^3 = 19/27
    assert data["exact"]["p_success"] == "19/27"
    r = cli("toy", "check", "-c", str(ann), "MIGHT", "--difficulty", "5", "--seed", "3", "--json")
    assert r.exit_code == 0, r.output
    assert len(json.loads(r.stdout)["rolls"][0]["dice"]) == 3
    r = cli("toy", "check", "-c", str(ann), "luck")
    assert r.exit_code == 2 and "roll:might" in r.stderr  # the keys there are
    (tmp_path / "big.yaml").write_text("name: Big\nmight: 9\n")
    r = cli("toy", "odds", "-c", str(tmp_path / "big.yaml"), "might")
    assert r.exit_code == 2 and "--allow-illegal" in r.stderr  # validated like 'sheet'


def test_fight_with_teams_and_illegal_fighters(toy_installed, cli, tmp_path) -> None:
    for name, might in (("a", 3), ("b", 1), ("c", 1), ("big", 9)):
        (tmp_path / f"{name}.yaml").write_text(f"name: {name.upper()}\nmight: {might}\n")
    p = {n: str(tmp_path / f"{n}.yaml") for n in ("a", "b", "c", "big")}
    r = cli("toy", "fight", p["a"], "--vs", p["b"], "--vs", p["c"], "--seed", "1", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    # by the toy rules, in the order A, B, C: round 1 A downs B (1 -> 0), B is down and does not act,
    # C hits A (3 -> 2); round 2 A downs C: side A (index 0) wins
    assert data["winner"] == 0 and data["over"] is True
    r = cli("toy", "fight", p["a"], p["big"])
    assert r.exit_code == 2 and "--allow-illegal" in r.stderr
    assert cli("toy", "fight", p["a"], p["big"], "--allow-illegal").exit_code == 0


def test_a_saved_fight_goes_on(toy_installed, cli, tmp_path) -> None:
    """Issue 13: `fight --state FILE` continues a fight saved with --save-state, in any system."""
    for name, might in (("a", 3), ("b", 2)):
        (tmp_path / f"{name}.yaml").write_text(f"name: {name.upper()}\nmight: {might}\n")
    saved = tmp_path / "fight.json"
    args = ("toy", "fight", str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml"), "--seed", "1")
    r = cli(*args, "--rounds", "1", "--save-state", str(saved), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["over"] is False
    # by the toy rules: round 1 A hits B (2 -> 1), B hits A (3 -> 2)
    assert [f["might"] for f in json.loads(saved.read_text())["fighters"]] == [2, 1]
    r = cli("toy", "fight", "--state", str(saved), "--seed", "1", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    # round 2: A downs B (1 -> 0); the log goes on from round 2
    assert data["winner"] == 0 and data["over"] is True and data["events"][0]["round"] == 2
    r = cli("toy", "forecast", "--state", str(saved), "--json")
    assert r.exit_code == 2 and "does not forecast" in r.stderr  # the toy has no forecast
    saved.write_text('{"round": 1}')
    r = cli("toy", "fight", "--state", str(saved))
    assert r.exit_code == 2 and "fighters" in r.stderr and "Traceback" not in r.output
    r = cli("toy", "fight", "--state", str(saved), str(tmp_path / "a.yaml"))
    assert r.exit_code == 2 and "give no files" in r.stderr


def test_new_asks_again_and_writes(toy_installed, cli, tmp_path) -> None:
    out = tmp_path / "new.yaml"
    r = cli("toy", "new", "-o", str(out), input="Bea\n7\nBea\nlots\n4\n")
    assert r.exit_code == 0, r.output
    assert "over the limit of 5" in r.stderr and "(try again)" in r.stderr
    assert out.read_text() == "name: Bea\nmight: 4\n"
