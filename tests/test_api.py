"""The Python API a GM finds first: load_character, readable values, one naming of sides, docstrings everywhere."""

from __future__ import annotations

import importlib
import inspect
import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

import storymaster
from storymaster import DiceRng, Fight, load_character, side_label
from storymaster.errors import CharacterError, InputFileError, PluginError, RulesInputError
from storymaster.odds import distribution

ROOT = Path(__file__).resolve().parent.parent
EX = ROOT / "examples"


# ---------------------------------------------------------------- load_character


def test_load_character_gives_the_system_and_the_character() -> None:
    system, hero = load_character(EX / "blyss" / "warrior.yaml")  # no system: key, so by its folder
    assert system.name == "blyss" and hero.name == "Yama Wolfclaw"
    loaded = load_character(str(EX / "fuzzy" / "sven.yaml"))  # by its system: key
    assert loaded.system.name == "fuzzy" and loaded.character.name == "Sven"
    assert repr(loaded) == "LoadedCharacter(system='fuzzy', character='Sven')"


def test_the_system_from_the_one_model_the_file_fits(tmp_path) -> None:
    copy = tmp_path / "karela.yaml"  # a folder that is no system's name, no system: key
    copy.write_text((EX / "kalyr" / "karela.yaml").read_text())
    assert load_character(copy).system.name == "kalyr"
    assert load_character(copy, "kalyr").system is load_character(copy).system


def test_a_file_no_system_reads_says_how_to_name_it(tmp_path) -> None:
    odd = tmp_path / "odd.yaml"
    odd.write_text("name: Nobody\nfavourite_colour: blue\n")
    with pytest.raises(RulesInputError) as err:
        load_character(odd)
    assert err.value.where == "system" and "system='<name>'" in (err.value.hint or "")


def test_wrong_input_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(InputFileError, match="no such file"):
        load_character(tmp_path / "missing.yaml")
    with pytest.raises(PluginError, match="no rule system called 'gurps'"):
        load_character(EX / "blyss" / "warrior.yaml", "gurps")
    with pytest.raises(RulesInputError):  # a Kalyr character is not a BLYSS one
        load_character(EX / "kalyr" / "karela.yaml", "blyss")


def test_an_illegal_character_is_refused_unless_allowed() -> None:
    with pytest.raises(CharacterError) as err:
        load_character(EX / "blyss" / "illegal.yaml")
    assert len(err.value.problems) >= 2 and "Overreach" in str(err.value)
    system, c = load_character(EX / "blyss" / "illegal.yaml", allow_illegal=True)
    assert system.validate_character(c)


def test_house_rules_reach_the_legality_check(tmp_path) -> None:
    # the gritty house rules (examples/bum) give 5 skill points, not the book's 10: Player 1 spent 10
    assert load_character(EX / "bum" / "player1.yaml").character.name == "Player 1"
    with pytest.raises(CharacterError, match="only 5 are available"):
        load_character(EX / "bum" / "player1.yaml", house_rules=EX / "bum" / "house-rules-gritty.yaml")


def test_the_top_level_names_are_lazy_and_complete() -> None:
    import subprocess
    import sys

    code = "import sys, storymaster; print('storymaster.rules' in sys.modules, storymaster.load_character.__module__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "storymaster.api"]
    for name in storymaster.__all__:
        assert getattr(storymaster, name) is not None, name
    with pytest.raises(AttributeError):
        storymaster.no_such_thing  # noqa: B018


# ---------------------------------------------------------------- readable values


def test_an_outcome_reads_as_its_result_and_explanation() -> None:
    system, hero = load_character(EX / "philsys" / "knight.yaml")
    check = system.make_check(system.find_check(hero, "COU", check="stat"), {"td": 25})
    out = system.resolve(check, DiceRng(7))
    assert str(out) == f"{out.result}: {out.explanation}"
    assert repr(out).startswith("Outcome(system='philsys', check=") and "rolls=" not in repr(out)
    assert f"margin={out.margin}" in repr(out)


def test_odds_read_as_a_table_of_exact_chances() -> None:
    system, hero = load_character(EX / "philsys" / "knight.yaml")
    check = system.make_check(system.find_check(hero, "COU", check="stat"), {"td": 25})
    odds = system.odds(check)
    # COU 4 gives +12 on the d20 (Philsys: stat x 3); 25 - 12 = 13 or more on a d20 is 8 faces in 20
    assert odds.p_success == Fraction(8, 20)
    text = str(odds).splitlines()
    assert re.fullmatch(r"\s+success\s+40\.00%\s+2/5 \*", text[1]) and re.fullmatch(
        r"\s+failure\s+60\.00%\s+3/5", text[2]
    )
    assert "p_success=2/5 (40.00%)" in repr(odds)


def test_a_distribution_reads_as_its_summary_and_rows() -> None:
    d = distribution("2d6")
    assert repr(d) == "<Distribution 2d6: 2..12, mean 7, sd 2.415>"  # sd of 2d6 = sqrt(35/6)
    rows = str(d).splitlines()
    assert len(rows) == 2 + 11 and rows[2].split() == ["2", "2.78%", "100.00%", "2.78%"]  # 1/36
    assert "totals" in str(distribution("100d6"))  # a long one is summed up, not printed row by row


def test_a_roll_record_reads_as_its_detail() -> None:
    from storymaster.dice import roll

    r = roll("2d6+3", DiceRng(7))
    assert str(r) == r.detail and repr(r).startswith("<RollRecord 2d6[") and "seed='7'" in repr(r)


# ---------------------------------------------------------------- fights, forecasts and one naming of sides


def test_side_labels() -> None:
    assert [side_label(i) for i in (0, 1, 2, 25, 26)] == ["A", "B", "C", "Z", "S26"]


@pytest.mark.parametrize(
    ("system", "a", "b"),
    [
        ("blyss", "warrior", "rogue"),
        ("philsys", "knight", "guard"),
        ("bum", "player1", "player2"),
        ("kalyr", "kylar", "bandit"),
        ("fuzzy", "sven", "achmed"),
    ],
)
def test_a_fight_names_its_winner_as_the_forecast_does(system, a, b) -> None:
    s, ca = load_character(EX / system / f"{a}.yaml")
    _, cb = load_character(EX / system / f"{b}.yaml")
    fight = Fight.start(s, ca, cb)
    assert fight.names == ((ca.name,), (cb.name,)) and not fight.over and fight.winner is None
    assert repr(fight).startswith(f"<Fight {system} round 0, A: {ca.name} vs B: {cb.name}")
    done = fight.run(DiceRng(3), max_rounds=200)
    assert fight.rounds == 0 and done.rounds >= 1  # a fight is a value: the start is still there
    assert done.events and done.last == done.events
    if done.over and done.winner is not None:
        letter = "AB"[done.winner]
        assert done.winner_side == letter and done.result().startswith(f"side {letter} wins")
        assert f"side {letter} wins" in str(done).splitlines()[0]
    j = done.to_json()
    assert j["sides"] == {"A": [ca.name], "B": [cb.name]} and j["winner_side"] == done.winner_side
    forecast = fight.forecast(method="simulate", samples=400, seed=1)
    assert forecast.p_win_of("A") == forecast.p_win[0] and forecast.p_win_of("b") == forecast.p_win[1]
    assert set(forecast.to_json()["p_win"]) == {"A", "B"}
    text = str(forecast)
    assert "side A wins" in text and f"({ca.name})" in text and f"{cb.name} (side B)" in text
    assert repr(forecast).startswith(f"<Forecast {system} simulated: A ")


def test_engine_texts_name_sides_by_letter() -> None:
    s, a = load_character(EX / "blyss" / "warrior.yaml")
    _, b = load_character(EX / "blyss" / "rogue.yaml")
    done = Fight.start(s, a, b).run(DiceRng(3))
    end = [e.text for e in done.events if e.kind == "end"]
    assert end and re.search(r"side [AB] \(", end[0]) and not re.search(r"side \d", end[0])


@pytest.mark.parametrize("system", ["blyss", "philsys", "bum", "kalyr", "fuzzy"])
def test_the_cli_fight_json_names_the_winner_both_ways(cli, system) -> None:
    files = sorted((EX / system).glob("*.yaml"))
    pair = {
        "blyss": ["warrior", "rogue"],
        "philsys": ["knight", "guard"],
        "bum": ["player1", "player2"],
        "kalyr": ["kylar", "bandit"],
        "fuzzy": ["sven", "achmed"],
    }[system]
    paths = [str(f) for f in files if f.stem in pair]
    r = cli(system, "fight", *paths, "--seed", "3", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    w = data["winner"]
    assert data["winner_side"] == (None if w is None else "AB"[w])


def test_a_fight_needs_two_sides() -> None:
    from storymaster.errors import RulesError

    s, a = load_character(EX / "blyss" / "warrior.yaml")
    with pytest.raises(RulesError, match="two sides"):
        Fight.start(s, a)
    with pytest.raises(RulesError, match="at least one character"):
        Fight.start(s, a, [])


# ---------------------------------------------------------------- docstrings


def _public_callables():
    for modname in ("storymaster", "storymaster.rules", "storymaster.dice", "storymaster.odds", "storymaster.forecast"):
        module = importlib.import_module(modname)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                yield f"{modname}.{name}", obj
            if inspect.isclass(obj):
                for attr, val in vars(obj).items():
                    if attr.startswith("_"):
                        continue
                    f = val.fget if isinstance(val, property) else val
                    f = getattr(f, "__func__", f)
                    f = getattr(f, "func", f)  # functools.cached_property
                    if inspect.isfunction(f):
                        yield f"{modname}.{name}.{attr}", f


def test_every_public_function_and_method_has_a_docstring() -> None:
    missing = [name for name, obj in _public_callables() if not (obj.__doc__ or "").strip()]
    assert missing == []


def test_every_protocol_member_is_documented() -> None:
    from storymaster.rules import CombatEngine, FightTracker, RuleSystem, RuleSystemBase

    for proto in (RuleSystem, CombatEngine, FightTracker):
        for name, member in vars(proto).items():
            if not name.startswith("_") and callable(member):
                assert (member.__doc__ or "").strip(), f"{proto.__name__}.{name}"
    for name in (
        "coerce_house_rules",
        "load_house_rules",
        "coerce_character",
        "load_character",
        "validate_character",
        "require_legal",
        "sheet",
        "check_kind",
        "kind_of",
        "checks_for",
        "find_check",
        "make_check",
        "resolve",
        "odds",
        "advance",
    ):
        assert (getattr(RuleSystemBase, name).__doc__ or "").strip(), name
