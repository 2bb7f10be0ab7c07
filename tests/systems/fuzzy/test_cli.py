"""The `storymaster fuzzy` commands, run in-process (every example in the docs is run here)."""

from __future__ import annotations

import json
import re

import pytest
import yaml
from fuzzy_helpers import EXAMPLES
from sheet_json import section_of, value_of, values_of

from storymaster.rules import load_model
from storymaster.systems.fuzzy.character import FuzzyCharacter, karma

ACHMED = str(EXAMPLES / "achmed.yaml")
SVEN = str(EXAMPLES / "sven.yaml")
RINCEWIND = str(EXAMPLES / "rincewind.yaml")
DETRITUS = str(EXAMPLES / "detritus.yaml")


def test_odds_json_has_the_required_keys(cli):
    r = cli("fuzzy", "odds", "--dice", "3", "--target", "11", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["p_success"] == 0.5
    assert data["exact"]["p_critical_success"] == "1/36"
    assert data["exact"]["p_critical_failure"] == "1/36"
    assert data["bonus_die_max_explosions"] == 10
    assert data["exact"]["truncated"] == "1/13060694016"
    assert data["target"] == 11


def test_odds_table_and_named_targets(cli):
    r = cli("fuzzy", "odds", "--dice", "1", "--target", "easy")
    assert r.exit_code == 0 and "chance of success: 50.00%" in r.stdout
    r = cli("fuzzy", "odds", "--dice", "3", "--target", "hard", "--fit", "not quite", "--json")
    assert json.loads(r.stdout)["target"] == 12


def test_odds_contest(cli):
    r = cli("fuzzy", "odds", "--dice", "3", "--against", "3", "--json")
    data = json.loads(r.stdout)
    assert data["outcomes"]["roller wins"] == pytest.approx(data["outcomes"]["opponent wins"])
    assert "p_tie" in data


def test_odds_plot(cli, tmp_path):
    out = tmp_path / "odds.svg"
    r = cli("fuzzy", "odds", "--dice", "2", "--target", "7", "--plot", str(out), "--json")
    assert r.exit_code == 0 and out.read_text().startswith("<svg")


@pytest.mark.parametrize(
    "args,msg",
    [
        (["--dice", "3", "--target", "-2"], "1 or more"),
        (["--dice", "0", "--target", "7"], "dice"),
        (["--dice", "3", "--target", "tricky"], "unknown target"),
        (["--dice", "3"], "either --difficulty or --against"),
        (["--dice", "3", "--target", "7", "--against-modifier", "1"], "goes with --against"),
        (["--dice", "3", "--against", "2", "--fit", "barely"], "a contest (--against) has none"),
        (["--dice", "3", "--target", "7", "--penalty", "-1"], "0 or more"),
        (["--dice", "3", "--target", "7", "--fit", "perfectly"], "unknown --fit"),
    ],
)
def test_odds_bad_options_exit_2_with_a_message(cli, args, msg):
    r = cli("fuzzy", "odds", *args)
    assert r.exit_code == 2
    assert msg in r.stderr and "Traceback" not in r.stderr


def test_sheet_shows_luck_and_unluck(cli):
    r = cli("fuzzy", "sheet", DETRITUS)
    assert r.exit_code == 0, r.output
    assert re.search(r"\bLuck +2 +2d6", r.stdout) and re.search(r"\bUnluck +2 +2d6", r.stdout)
    assert re.search(r"Karma total +23", r.stdout)
    r = cli("fuzzy", "sheet", ACHMED, "--json")
    data = json.loads(r.stdout)
    luck = values_of(data, "resources")
    assert (luck["luck"], luck["unluck"], value_of(data, "karma", "karma_total")) == (5, 1, 19)


def test_sheet_of_an_illegal_character_lists_problems_and_exits_2(cli, tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text(
        "name: Bad\nrequired: {body: 0}\nabilities:\n  - {name: Wizard, rating: 2, big_magic: true, powers: "
        "[Fireball]}\n"
    )
    r = cli("fuzzy", "sheet", str(p))
    assert r.exit_code == 2
    assert "required.body" in r.stderr and "abilities[0].powers" in r.stderr


def test_sheet_of_a_missing_or_malformed_file(cli, tmp_path):
    r = cli("fuzzy", "sheet", str(tmp_path / "none.yaml"))
    assert r.exit_code == 2 and "no such file" in r.stderr
    p = tmp_path / "x.yaml"
    p.write_text("name: [unclosed\n")
    r = cli("fuzzy", "sheet", str(p))
    assert r.exit_code == 2 and "not valid YAML" in r.stderr


def test_sheet_with_house_rules(cli, tmp_path):
    h = tmp_path / "house.yaml"
    h.write_text("baseline: 18\ndiscworld_body_guide: true\n")
    r = cli("fuzzy", "sheet", DETRITUS, "--house-rules", str(h), "--json")
    data = json.loads(r.stdout)
    assert value_of(data, "resources", "unluck") == 6 and value_of(data, "karma", "baseline") == 18
    # Body 7 is past the guide's troll range; the sheet says so (the house rule is on)
    assert ["Body 7 is outside the Discworld guide for troll (3-6)"] in section_of(data, "advice")["rows"]


def test_schema(cli):
    r = cli("fuzzy", "schema")
    assert r.exit_code == 0 and json.loads(r.stdout)["title"] == "FuzzyCharacter"


def test_house_rules_listing(cli):
    r = cli("fuzzy", "house-rules", "--json")
    names = [row["name"] for row in json.loads(r.stdout)["house_rules"]]
    assert {"baseline", "contest_ties", "critical_bonus_max_explosions", "advantage_on_loss"} <= set(names)
    r = cli("house-rules", "fuzzy", "--json")
    assert r.exit_code == 0


def test_new_builds_a_character_interactively(cli, tmp_path):
    out = tmp_path / "gytha.yaml"
    answers = (
        "\n".join(
            [
                "Gytha",
                "Witch",
                "3",
                "2",
                "3",
                "3",
                "4",
                "Witch",
                "3",
                "y",
                "Headology",
                "Broomstick",
                "Curse",
                "Cook",
                "2",
                "n",
                "",
                "Nosy",
                "1",
                "",
                "",
                "body",
            ]
        )
        + "\n"
    )
    r = cli("fuzzy", "new", "--output", str(out), input=answers)
    assert r.exit_code == 0, r.output
    assert "[karma 19 of baseline 22: Luck 5, Unluck 1]" in r.stderr  # the running totals, with the questions
    assert "[karma 11 of baseline 22: Luck 5, Unluck 1]" in r.stderr  # after Cleverness 3
    c = load_model(out, FuzzyCharacter)
    assert c.abilities[0].powers == ("Headology", "Broomstick", "Curse")
    assert karma(c).luck == 5


def test_new_asks_again_for_a_rating_below_1(cli):
    # a bad rating no longer ends the session: it is asked again
    answers = "\n".join(["Dud", "", "0", "2", "2", "2", "2", "2", "", "", "body"]) + "\n"
    r = cli("fuzzy", "new", "--json", input=answers)
    assert r.exit_code == 0, r.output
    assert "0 is out of range: from 1 to 100 (try again)" in r.stderr
    assert json.loads(r.stdout[r.stdout.index("{") :])["character"]["required"]["cleverness"] == 2


def test_roll_explains(cli):
    r = cli("fuzzy", "roll", "--dice", "3", "--target", "hard", "--seed", "1", "--json")
    data = json.loads(r.stdout)
    assert data["result"] in ("success", "failure", "critical success", "critical failure")
    assert "against target 11" in data["explanation"]
    r = cli("fuzzy", "roll", "--character", SVEN, "--ability", "body", "--hindered", "--target", "hard", "--seed", "3")
    assert r.exit_code == 0 and "4 less a penalty of 1" in r.stdout


def test_roll_unknown_ability(cli):
    r = cli("fuzzy", "roll", "--character", SVEN, "--ability", "Juggling", "--target", "7")
    assert r.exit_code == 2 and "no ability called" in r.stderr


def test_contest(cli):
    r = cli("fuzzy", "contest", "Achmed:4+2", "Sven:4-1", "--seed", "2", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["result"] in ("Achmed wins", "Sven wins", "stand-off")
    r = cli("fuzzy", "contest", "Achmed", "Sven:4")
    assert r.exit_code == 2


def test_luck_and_lottery(cli):
    r = cli("fuzzy", "luck", ACHMED, "--seed", "4", "--json")
    assert json.loads(r.stdout)["check"] == "Luck 5d6"
    r = cli("fuzzy", "luck", DETRITUS, "--unluck", "--target", "7", "--seed", "4", "--json")
    assert json.loads(r.stdout)["check"] == "Unluck 2d6 vs 7"
    r = cli("fuzzy", "lottery", ACHMED, SVEN, DETRITUS, "--seed", "5", "--json")
    assert json.loads(r.stdout)["result"].endswith("gets it")
    r = cli("fuzzy", "lottery", ACHMED, DETRITUS, "--odds", "--json")
    data = json.loads(r.stdout)
    assert data["outcomes"]["Achmed gets it"] > data["outcomes"]["Detritus gets it"]


def test_fight_log(cli):
    r = cli("fuzzy", "fight", ACHMED, SVEN, "--seed", "7", "--appropriate-a", "2")
    assert r.exit_code == 0, r.output
    assert "round 1" in r.stdout and "Advantage Points" in r.stdout and "seed 7" in r.stdout
    r2 = cli("fuzzy", "fight", ACHMED, SVEN, "--seed", "7", "--appropriate-a", "2")
    assert r.stdout == r2.stdout


def test_fight_json_and_options(cli):
    r = cli(
        "fuzzy",
        "fight",
        ACHMED,
        SVEN,
        "--seed",
        "11",
        "--stance-b",
        "defensive",
        "--harm-a",
        "serious",
        "--intent-a",
        "non-lethal",
        "--manoeuvre-a",
        "high ground:2",
        "--with-b",
        DETRITUS,
        "--json",
    )
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["winner"] in (0, 1, None) and data["events"]
    assert data["state"]["fighters"][1]["tactics"]["stance"] == "defensive"


def test_fight_bad_option(cli):
    r = cli("fuzzy", "fight", ACHMED, SVEN, "--stance-a", "berserk")
    assert r.exit_code == 2 and "stance" in r.stderr


def test_defence_and_harm(cli):
    r = cli("fuzzy", "defence", SVEN, DETRITUS, "--intent", "non-lethal", "--json")
    data = json.loads(r.stdout)
    assert data["defence_total"] == 7
    r = cli("fuzzy", "harm", "--points", "9", "--defence", "4", "--json")
    assert json.loads(r.stdout)["level"] == "serious"
    r = cli("fuzzy", "harm", "--points", "9", "--defence", "0")
    assert r.exit_code == 2 and "never below 1" in r.stderr


def test_tables(cli):
    r = cli("fuzzy", "difficulties", "--json")
    assert json.loads(r.stdout)["difficulties"]["nigh-impossible"] == 18
    r = cli("fuzzy", "guide")
    assert "Body 6" in r.stdout and "noble dragon" in r.stdout
    r = cli("fuzzy", "xp", "costs", "--up-to", "7", "--json")
    assert json.loads(r.stdout)["costs"][6]["karma"] == 9  # level 7 costs 9 karma dice


def test_xp_commands_write_the_character(cli, tmp_path):
    out = tmp_path / "achmed.yaml"
    r = cli("fuzzy", "xp", "award", ACHMED, "30", "--reason", "the duel", "--output", str(out))
    assert r.exit_code == 0, r.output
    r = cli("fuzzy", "xp", "raise", str(out), "Swordsman", "--output", str(out), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["character"]["experience"]["unspent"] == 15
    r = cli("fuzzy", "xp", "lower-disability", str(out), "Hot-Headed", "-o", str(out))
    r = cli("fuzzy", "xp", "new-ability", str(out), "Poet", "--rating", "2", "-o", str(out))
    assert r.exit_code == 0, r.output
    r = cli("fuzzy", "xp", "new-disability", str(out), "One Eye", "--misfortune", "-o", str(out))
    r = cli("fuzzy", "xp", "unluck", str(out), "raise", "-o", str(out))
    r = cli("fuzzy", "xp", "luck", str(out), "reduce", "-o", str(out))
    assert r.exit_code == 0, r.output
    c = load_model(out, FuzzyCharacter)
    assert c.abilities[0].rating == 5 and c.abilities[-1].name == "Poet"
    assert c.disabilities[0].name == "One Eye"
    # Unluck 1 -> 2 gives 6; giving up a Luck die gives nothing by default (ruling 12: the refund is an option)
    assert c.experience.unspent == 30 - 15 - 3 - 9 + 6 + 0
    r = cli("fuzzy", "sheet", str(out))
    assert r.exit_code == 0, r.output
    written = yaml.safe_load(out.read_text())
    assert written["system"] == "fuzzy"


def test_xp_refusals(cli):
    r = cli("fuzzy", "xp", "raise", ACHMED, "Swordsman")
    assert r.exit_code == 2 and "costs 15 experience points" in r.stderr
    r = cli("fuzzy", "xp", "raise", ACHMED, "Swordsman", "--gm-veto")
    assert r.exit_code == 2 and "vetoed" in r.stderr
    r = cli("fuzzy", "xp", "luck", ACHMED, "sideways")
    assert r.exit_code == 2
    r = cli("fuzzy", "xp", "award", ACHMED, "-1")
    assert r.exit_code == 2


def test_new_asks_again_for_a_negative_rating(cli):
    answers = "\n".join(["Neg", "", "2", "2", "2", "2", "2", "Sword", "-3", "3", "n", "", "", "Sword"]) + "\n"
    r = cli("fuzzy", "new", "--json", input=answers)
    assert r.exit_code == 0, r.output
    assert "-3 is out of range" in r.stderr and "Traceback" not in r.output
    data = json.loads(r.stdout[r.stdout.index("{") :])
    assert data["character"]["abilities"][0]["rating"] == 3 and data["character"]["combat"]["ability"] == "Sword"
