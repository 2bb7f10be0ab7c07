"""`check`, `odds` and `checks`: one definition for the five systems, made from the check catalogue.

Expected odds are worked by hand from the books' rules (noted beside each), or are the same
check made the book's way, so the two roads to a check must agree.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"


def js(r) -> dict:
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


@pytest.mark.parametrize("system", ["blyss", "philsys", "bum", "kalyr", "fuzzy"])
def test_every_system_lists_its_kinds_and_a_characters_checks(cli, system: str) -> None:
    kinds = js(cli(system, "checks", "--json"))["kinds"]
    from storymaster.rules import get_system

    assert [k["name"] for k in kinds] == [k.name for k in get_system(system).check_kinds]
    example = sorted((EX / system).glob("*.yaml"))
    legal = next(p for p in example if cli(system, "sheet", str(p)).exit_code == 0)
    entries = js(cli(system, "checks", "-c", str(legal), "--json"))["checks"]
    assert entries and all(":" in e["key"] for e in entries)
    # every listed key is a check that 'odds' can make (with the kind's example for what it still needs)
    for e in entries[:3]:
        kind = next(k for k in kinds if k["name"] == e["check"])
        sets = [f"{name}={json.dumps(kind['example'][name])}" for name in e["needs"] if name in kind["example"]]
        args = [a for s in sets for a in ("--set", s)]
        r = cli(system, "odds", "-c", str(legal), e["key"], *args, "--json")
        assert r.exit_code == 0, (e["key"], r.output)


def test_blyss_named_check_is_the_books_test(cli) -> None:
    # Warrior's Strength is rank 4, a d10; against TD 6 a die of 6..10 succeeds: 5/10
    named = js(cli("blyss", "odds", "-c", str(EX / "blyss/warrior.yaml"), "strength", "--td", "6", "--json"))
    assert named["exact"]["p_success"] == "1/2"
    by_options = js(
        cli("blyss", "odds", "-c", str(EX / "blyss/warrior.yaml"), "--stat", "Strength", "--td", "6", "--json")
    )
    assert named["outcomes"] == by_options["outcomes"]
    # the verb of the book is the same command
    a = js(cli("blyss", "test", "-c", str(EX / "blyss/warrior.yaml"), "strength", "--td", "6", "--seed", "4", "--json"))
    b = js(
        cli("blyss", "check", "-c", str(EX / "blyss/warrior.yaml"), "strength", "--td", "6", "--seed", "4", "--json")
    )
    assert a == b


def test_kalyr_named_check_reads_the_ladder(cli) -> None:
    # Kylar's Tactics is Good; 4dF from Good reaching Great: 31/81 (the README's example)
    data = js(cli("kalyr", "odds", "-c", str(EX / "kalyr/kylar.yaml"), "tactics", "--difficulty", "Great", "--json"))
    assert data["exact"]["p_success"] == "31/81"


def test_bum_named_check_takes_the_dc(cli) -> None:
    # the thief's DEX is 2: d6 + 2 meets DC 6 on a 4, 5 or 6: 1/2
    data = js(cli("bum", "odds", "-c", str(EX / "bum/thief.yaml"), "dex", "--dc", "6", "--json"))
    assert data["exact"]["p_success"] == "1/2"


def test_philsys_named_check_equals_the_books_options(cli) -> None:
    aya = str(EX / "philsys/aya.yaml")
    named = js(cli("philsys", "odds", "-c", aya, "stat:int", "--td", "20", "--json"))
    by_options = js(cli("philsys", "odds", "-c", aya, "--stat-of", "INT", "--td", "20", "--json"))
    assert named["exact"] == by_options["exact"]
    # a name two kinds share (the skill's check and its contest) is the one against a difficulty
    assert js(cli("philsys", "odds", "-c", aya, "fire magic", "--td", "12", "--json"))["check"].startswith("skill")
    # a key may be typed with the subject's own spelling
    r = cli("philsys", "check", "-c", aya, "opposed:Fire Magic", "--set", "vs=2", "--seed", "1", "--json")
    assert js(r)["check"].startswith("d20+15 vs d20+2")


def test_fuzzy_named_check_rolls_the_ability(cli) -> None:
    r = js(
        cli("fuzzy", "check", "-c", str(EX / "fuzzy/achmed.yaml"), "swordsman", "-t", "hard", "--seed", "5", "--json")
    )
    assert "Swordsman" in r["check"] and r["rolls"][0]["seed"] == "5"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        # a book option beside a named check would be silently dropped: refused
        (["blyss", "odds", "-c", "examples/blyss/warrior.yaml", "strength", "--golden"], "--golden"),
        # --allow-illegal without a character to let through
        (["blyss", "odds", "--pool", "d8", "--allow-illegal"], "goes with -c/--character"),
        (["bum", "checks", "--allow-illegal"], "go with -c/--character"),
        # NaN and infinity are JSON to Python, never a check's value
        (["blyss", "odds", "--pool", "d8", "--set", "td=NaN"], "not a finite number"),
        (["bum", "odds", "fixed", "--set", "bonus=Infinity", "--dc", "6"], "not a finite number"),
        # a difficulty for a kind that has none
        (
            ["blyss", "odds", "contest", "--td", "4", "--set", 'a={"ranks":[3]}', "--set", 'b={"ranks":[3]}'],
            "no difficulty",
        ),
        (["kalyr", "odds", "-c", "examples/kalyr/kylar.yaml", "nothing-like-this"], "no check called"),
        (["fuzzy", "check"], "give --dice N"),
    ],
)
def test_refusals_say_what_and_exit_2(cli, args: list[str], needle: str) -> None:
    r = cli(*args)
    assert r.exit_code == 2, r.output
    assert needle in r.stderr and "Traceback" not in r.output


def test_wrong_house_rules_name_the_option_in_every_command(cli, tmp_path) -> None:
    bad = tmp_path / "hr.yaml"
    bad.write_text("golden_dice_everywhere: true\n")
    for args in (
        ["blyss", "odds", "--pool", "d8"],
        ["blyss", "sheet", "examples/blyss/warrior.yaml"],
        ["blyss", "checks", "-c", "examples/blyss/warrior.yaml"],
    ):
        r = cli(*args, "--house-rules", str(bad), "--json")
        assert r.exit_code == 2 and r.stdout == ""
        error = json.loads(r.stderr)
        assert error["error"] == "house-rules-invalid" and error["where"] == "house_rules.golden_dice_everywhere"
        assert "storymaster blyss house-rules" in error["hint"]
