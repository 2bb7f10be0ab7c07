"""A sixth rule system from another package gets a sheet page, a check form and the contract for free.

The toy system (tests/rules/sixth/toyrules) is registered the way a real plugin is: a tiny
installed distribution (``toyrules-1.0.dist-info`` with an ``entry_points.txt`` naming
``storymaster.systems``) on ``sys.path``; nothing in storymaster names it.
"""

from __future__ import annotations

import importlib
import re
from fractions import Fraction
from pathlib import Path

import pytest
from pages.pagekit import form_values, sign_up
from rules.contract import Subject, run_contract

from storymaster.rules import all_systems, get_system, registry
from storymaster.web import Settings, create_app

HERE = Path(__file__).resolve().parent
FAST_ARGON2 = {"argon2_time_cost": 1, "argon2_memory_cost": 1024}


@pytest.fixture
def toy_installed(tmp_path, monkeypatch):
    site = tmp_path / "site"
    info = site / "toyrules-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toyrules\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[storymaster.systems]\ntoy = toyrules:SYSTEM\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(HERE / "sixth"))
    importlib.invalidate_caches()
    registry._load.cache_clear()
    yield
    registry._load.cache_clear()


def test_the_toy_is_found_through_its_entry_point(toy_installed) -> None:
    assert "toy" in all_systems() and {"blyss", "bum", "fuzzy", "kalyr", "philsys"} <= set(all_systems())
    toy = get_system("toy")
    assert type(toy).__module__ == "toyrules"  # from the other package, not from storymaster


def test_the_toy_keeps_the_contract(toy_installed) -> None:
    toy = get_system("toy")
    run_contract(
        Subject(
            toy,
            characters=[{"name": "Pip", "might": 4, "wits": 3}, {"name": "Bo", "might": 1, "wits": 6, "wounds": 2}],
            house_rules=[{}, {"ties_to_attacker": True, "points": 8}],
            schema=toy.character_model.model_json_schema(),
        )
    )
    # the odds are exact: d6+4 against 7 needs a 3 or more; d6+0 vs d6+0 with ties to the defender is 15/36
    assert toy.odds(toy.make_check("roll", {"bonus": 4, "target": 7})).p_success == Fraction(4, 6)
    assert toy.odds(toy.make_check("duel", {"bonus": 0, "vs": 0})).p_success == Fraction(15, 36)


def test_the_toy_gets_a_sheet_page_a_card_and_a_check_form(toy_installed, tmp_path) -> None:
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'table.sqlite3'}", **FAST_ARGON2))
    gm = sign_up(app, "gm")
    assert "Toy Dice" in gm.get("/campaigns").text  # offered as a campaign's system
    r = gm.post("/campaigns", {"name": "Toys", "system": "toy"})
    assert r.status_code == 303, r.text
    cid = int(r.headers["location"].rsplit("/", 1)[1])

    builder = gm.get(f"/campaigns/{cid}/characters/new")
    assert builder.status_code == 200 and 'name="f.might"' in builder.text  # the builder's form from the model
    data = form_values(builder.text)
    data.update({"f.name": "Pip", "f.might": "4", "f.wits": "3"})
    check = gm.post(f"/campaigns/{cid}/characters/check", data, headers={"accept": "application/json"}).json()
    assert check["ok"] and ["Toy hit points", "5 of 5"] in check["totals"]
    r = gm.post(f"/campaigns/{cid}/characters", data)
    assert r.status_code == 303, r.text
    char = int(r.headers["location"].rsplit("/", 1)[1])

    page = gm.get(f"/campaigns/{cid}/characters/{char}").text
    assert '<h2 id="sec-stats">Stats</h2>' in page and "Toy hit points" in page and "5 of 5" in page
    card = gm.get(f"/campaigns/{cid}/characters/{char}/card")
    assert card.status_code == 200 and "NAME: Pip" in card.text and "TOY HIT POINTS" not in card.text
    assert "HEALTH" in card.text and "Toy hit points" in card.text

    r = gm.post(f"/campaigns/{cid}/scenes", {"title": "Play", "mode": "free", "cast": [char]})
    assert r.status_code == 303, r.text
    sid = int(r.headers["location"].rsplit("/", 1)[1])
    scene = gm.get(f"/scenes/{sid}").text
    assert re.search(rf'<option value="{char}\|roll:might" data-check="roll"', scene)  # Pip's checks offered
    assert '<option value="duel"' in scene and 'name="chk.roll.target"' in scene  # the kinds' forms
    form = {"roll_kind": "check", "check_entry": f"{char}|roll:might", "chk.roll.target": "7"}
    odds = gm.post(f"/scenes/{sid}/preview", form)
    assert odds.status_code == 200 and "<svg" in odds.text and "66.7" in odds.text  # 4/6: Might 4 needs a 3+
    r = gm.post(f"/scenes/{sid}/posts", {**form, "kind": "ic", "character": str(char), "text": "Pip heaves."})
    assert r.status_code == 303, r.text
    story = gm.get(f"/scenes/{sid}/story").text
    assert "Might roll" in story and ("success" in story or "failure" in story)
    missing = gm.post(f"/scenes/{sid}/preview", {"roll_kind": "check", "check_entry": f"{char}|roll:might"})
    assert missing.status_code == 422 and "target" in missing.text


def test_the_same_toy_gets_the_cli_commands(toy_installed, tmp_path) -> None:
    """The CLI part of the same sixth system: every shared command, from the protocol, with no CLI code."""
    import json

    from typer.testing import CliRunner

    from storymaster.cli import app as cli_app
    from storymaster.cli.shared import SHARED_COMMANDS

    caches = (cli_app._rule_system_names, cli_app._generic_command, cli_app._system_entry_points)
    for c in caches:
        c.cache_clear()
    try:
        runner = CliRunner()

        def cli(*args: str):
            return runner.invoke(cli_app.app, list(args))

        helped = cli("toy", "--help")
        assert helped.exit_code == 0 and all(f"  {c} " in helped.stdout for c in SHARED_COMMANDS)
        pip = tmp_path / "pip.yaml"
        pip.write_text("name: Pip\nmight: 4\nwits: 3\n")
        sheet = json.loads(cli("toy", "sheet", str(pip), "--json").stdout)
        assert sheet["legal"] and sheet["sections"][1]["values"][0]["label"] == "Toy hit points"
        keys = [e["key"] for e in json.loads(cli("toy", "checks", "-c", str(pip), "--json").stdout)["checks"]]
        assert "roll:might" in keys and "duel:wits" in keys
        # Pip's Might roll, d6+4 against 7, needs a 3 or more: 4/6 (as the contract's hand count)
        odds = json.loads(cli("toy", "odds", "-c", str(pip), "might", "--difficulty", "7", "--json").stdout)
        assert odds["exact"]["p_success"] == "2/3"
        r = cli("toy", "check", "-c", str(pip), "roll:wits", "--difficulty", "5", "--seed", "2", "--json")
        assert r.exit_code == 0 and json.loads(r.stdout)["rolls"][0]["seed"] == "2"
    finally:
        for c in caches:
            c.cache_clear()
