"""Issue 14, Kalyr: modifiers applied wherever a roll is made, the fighting ability chosen by the text,
the sheet agreeing with the check, detailed ties hurting nobody, and bad values refused (exit 2)."""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product

import pytest

from storymaster.errors import CheckError, CombatError
from storymaster.play.rolling import parse_check
from storymaster.systems.kalyr import SYSTEM
from storymaster.systems.kalyr.abilities import build_roll, level_roll, usable_level
from storymaster.systems.kalyr.character import Character
from storymaster.systems.kalyr.checks import AbilityRoll, UnopposedCheck
from storymaster.systems.kalyr.damage import detailed_contest_damage, simple_contest_damage, take_wound
from storymaster.systems.kalyr.fight_state import fighting_ability
from storymaster.systems.kalyr.ladder import level_name, parse_level

E = SYSTEM.combat
L = parse_level


def p_success(odds) -> Fraction:
    return sum((p for k, p in odds.probabilities.items() if k in odds.success_outcomes), Fraction(0))


def p_meets(level: int, difficulty: int) -> Fraction:
    """4dF brute force: every one of the 81 throws, each die -1/0/+1."""
    hits = sum(1 for dice in product((-1, 0, 1), repeat=4) if level + sum(dice) >= difficulty)
    return Fraction(hits, 81)


# --- modifiers ----------------------------------------------------------------------------------


def test_equipment_and_situation_apply_with_a_bare_ability():
    """Modifiers: fine equipment +1, a situational advantage +1 or even +2: Good +1 +1 is rolled as Superb."""
    roll, notes = level_roll(L("Good"), equipment="fine", situation=1)
    odds = SYSTEM.odds(UnopposedCheck(actor=roll, difficulty=L("Superb")))
    assert p_success(odds) == p_meets(L("Superb"), L("Superb")) == Fraction(50, 81)
    assert notes == ["equipment +1", "situation +1"]
    assert level_roll(L("Good"), situation=2)[0].effective == L("Superb")
    poor, _ = level_roll(L("Good"), equipment="poor", situation=-1)
    assert poor.effective == L("Mediocre")


@pytest.mark.parametrize(
    "kw, what",
    [
        ({"situation": 9}, "situational"),
        ({"situation": -3}, "situational"),
        ({"equipment": "superb"}, "equipment"),
        ({"similar": -4}, "similar"),
        ({"similar": 1}, "similar"),
        ({"race": "martian"}, "race"),
        ({"rank_gap": 9}, "rank"),
    ],
)
def test_bad_modifiers_are_refused_in_the_core(kw, what):
    with pytest.raises(CheckError, match=what):
        level_roll(L("Good"), **kw)


def test_race_rank_and_similar_are_check_parameters_the_table_can_send():
    """Modifiers: another race -1, a Very Intolerant one -2; -1 per level of a superior's rank, +1 (only)
    for outranking; Deciding What Ability to Use: a similar ability at -1 or -2."""
    kind, check = parse_check(
        SYSTEM,
        {
            "type": "unopposed",
            "actor": {"ability": "Great", "race": "very_intolerant", "rank_gap": 2, "similar": -1},
            "difficulty": "Poor",
        },
    )
    assert kind == "unopposed" and check.actor.effective == 2 - 2 - 2 - 1
    assert p_success(SYSTEM.odds(check)) == p_meets(-3, -2)
    assert AbilityRoll(ability=0, rank_gap=-3).effective == 1  # outranking by three is still only +1
    assert AbilityRoll(ability=0, race="other").effective == -1
    assert "very_intolerant" not in check.describe() and "(other race)" in check.describe()


def test_race_and_rank_from_two_characters(example):
    kylar = example("kylar")
    target = Character(
        name="Guildmaster",
        race="ulsoghir",
        intolerance="very_intolerant",
        connections=[{"organisation": "Guild", "level": "Great"}],
    )
    roll, notes = build_roll(kylar, "Diplomacy", persuade=target, organisation="Guild")
    assert roll.race == "very_intolerant"
    # Kylar has no Guild connection: Poor (ruling K8); Great is 4 levels above Poor
    assert roll.rank_gap == 4 and roll.total_modifier == -2 - 4
    assert "different race -2" in notes and "social rank -4" in notes


# --- the fighting ability -------------------------------------------------------------------------


def _fighter(*abilities, **kw):
    return Character(
        name="F", abilities=[dict(zip(("name", "level", "track", "kind"), a, strict=False)) for a in abilities], **kw
    )


def test_fighting_ability_is_chosen_by_the_text():
    """Deciding What Ability to Use: "A fight might need Brawling or Melee Weapons (Nirvork)" - never Stealth."""
    sneak = _fighter(("Stealth", "Superb", "physical"), ("Brawling", "Mediocre", "physical"))
    assert fighting_ability(sneak, "physical") == "Brawling"
    both = _fighter(
        ("Stealth", "Superb", "physical"),
        ("Brawling", "Fair", "physical"),
        ("Melee Combat (Narvork)", "Great", "physical"),
    )
    assert fighting_ability(both, "physical") == "Melee Combat (Narvork)"
    nothing = _fighter(("Stealth", "Superb", "physical"))
    state = E.start([[nothing], [both]])
    assert state.sides[0][0].ability == "Brawling" and state.sides[0][0].level == L("Poor")
    clumsy = _fighter(("Stealth", "Superb", "physical"), incompetences=["Brawling"])
    assert E.start([[clumsy], [both]]).sides[0][0].level == L("Terrible")
    archer = _fighter(("Melee Weapons", "Fair", "physical"), ("Archery", "Great", "physical"))
    assert fighting_ability(archer, "physical", ranged=True) == "Archery"
    assert fighting_ability(archer, "physical") == "Melee Weapons"
    # "psionic battles will require psionic powers"
    psion = _fighter(
        ("Research", "Superb", "mental"), ("Mind Shield", "Fair", "mental", "psionic"), powers=["Telepathy"]
    )
    psion = psion.model_copy(
        update={"abilities": (psion.abilities[0], psion.abilities[1].model_copy(update={"power": "Telepathy"}))}
    )
    assert fighting_ability(psion, "mental") == "Mind Shield"


def test_every_ally_chooses_an_ability(example):
    kylar, luanu, bandit = example("kylar"), example("luanu"), example("bandit")
    chosen = {"Luanu": "Stealth"}
    s = E.start([[kylar, luanu], [bandit]], options={"abilities": chosen})
    assert [f.ability for f in s.sides[0]] == [fighting_ability(kylar, "physical"), "Stealth"]
    with pytest.raises(CombatError, match="not in the fight"):
        E.start([[kylar], [bandit]], options={"abilities": {"Nobody": "Brawling"}})


def test_forecast_fights_with_the_fighting_ability(cli, examples_dir):
    r = cli("kalyr", "forecast", str(examples_dir / "luanu.yaml"), str(examples_dir / "bandit.yaml"), "--json")
    assert r.exit_code == 0, r.stderr
    out = json.loads(r.stdout)
    assert "Stealth" not in json.dumps(out.get("tactics", out))


# --- sheet and check agree (ruling K5) ------------------------------------------------------------


def test_sheet_and_check_agree_after_a_wound_on_another_track(example, cli, tmp_path):
    """Modifiers: "Anyone who's Incapictated is at -1 even for conflicts of a completely different type"."""
    kylar = example("kylar")
    beaten, _ = take_wound(kylar, "social", 4)  # Defeated on the social track
    name = next(a.name for a in beaten.abilities if a.track == "physical")
    level = next(a.level for a in beaten.abilities if a.name == name)
    now, why = usable_level(beaten, name)
    assert now == level - 1 and "social" in why
    roll, _ = build_roll(beaten, name)
    assert roll.effective == now
    path = tmp_path / "k.yaml"
    path.write_text(json.dumps(beaten.model_dump(mode="json")))
    sheet = json.loads(cli("kalyr", "sheet", str(path), "--json").stdout)
    sections = {s["key"]: s for s in sheet["sections"]}
    abilities = sections["abilities"]
    now_column = abilities["columns"].index("Now")
    assert {row[0]: row[now_column] for row in abilities["rows"]}[name] == level_name(now)
    damage = sections["damage"]
    tracks = {row[0]: dict(zip(damage["columns"], row, strict=True)) for row in damage["rows"]}
    assert tracks["physical"]["Penalty"] == -1
    odds = json.loads(
        cli("kalyr", "odds", "--character", str(path), "--use", name, "--difficulty", "Fair", "--json").stdout
    )
    assert Fraction(odds["p_success"]).limit_denominator(81) == p_meets(now, 0)


# --- detailed damage --------------------------------------------------------------------------------


def test_detailed_damage_calc_tied_results_hurt_nobody(example, cli, examples_dir):
    """Detailed Contests: a tie "is a stand-off ... nobody is hurt"; otherwise only the loser, halved rounding up.

    The Example of Damage's numbers (both Great, the bandit aggressive +2): 3 to Kylar, 5 to the bandit
    in a simple contest; in a detailed round the same tie hurts nobody."""
    kylar, bandit = example("kylar"), example("bandit")
    assert simple_contest_damage(kylar, L("Great"), bandit, L("Great"), b_approach=2) == (3, 5)
    assert detailed_contest_damage(kylar, L("Great"), bandit, L("Great"), b_approach=2) == (0, 0)
    # Kylar one better: the bandit takes 5 + 1 = 6, halved to 3; Kylar, the winner, nothing
    assert detailed_contest_damage(kylar, L("Superb"), bandit, L("Great"), b_approach=2) == (0, 3)
    # 5 halved rounds up to 3, not down to 2: the bandit one better takes nothing, Kylar 3 + 1 = 4 -> 2
    assert detailed_contest_damage(kylar, L("Good"), bandit, L("Great"), b_approach=2) == (2, 0)
    assert detailed_contest_damage(kylar, L("Great"), bandit, L("Great"), b_approach=2, winner_takes_damage=True) == (
        0,
        0,
    )
    assert detailed_contest_damage(kylar, L("Superb"), bandit, L("Great"), b_approach=2, winner_takes_damage=True) == (
        1,
        3,
    )
    r = cli(
        "kalyr", "damage-calc", str(examples_dir / "kylar.yaml"), str(examples_dir / "bandit.yaml"),
        "--a-result", "Great", "--b-result", "Great", "--b-approach", "2", "--detailed", "--json",
    )  # fmt: skip
    assert r.exit_code == 0, r.stderr
    assert {who: d["points"] for who, d in json.loads(r.stdout)["damage"].items()} == {"Kylar": 0, "Bandit heavy": 0}


# --- refusals at the CLI: exit 2, a message, no traceback ---------------------------------------------


@pytest.mark.parametrize(
    "args, words",
    [
        (["check", "--ability", "Good", "--situation", "9", "--difficulty", "Fair"], "situational"),
        (["odds", "--ability", "Good", "--equipment", "superb", "--difficulty", "Fair"], "equipment"),
        (["odds", "--ability", "Good", "--difficulty", "3"], "ambiguous"),
        (["group", "--side", "Good,,Fair", "--vs", "Fair", "--odds"], "empty"),
        (["odds", "--ability", "Good", "--race", "martian", "--difficulty", "Fair"], "race"),
        (["wound", "{kylar}", "--severity", "Bogus"], "severity"),
        (["heal", "{kylar}", "--method", "bogus", "--result", "Good"], "method"),
        (["fudge", "{kylar}", "spend", "--use", "bogus"], "use"),
        (["fight", "{kylar}", "{bandit}", "--ability-a", "Kylar"], None),
    ],
)
def test_bad_values_exit_2(cli, examples_dir, args, words):
    args = [a.format(kylar=examples_dir / "kylar.yaml", bandit=examples_dir / "bandit.yaml") for a in args]
    r = cli("kalyr", *args)
    if words is None:  # a side ability the fighter lacks is legal: rolled at Poor
        assert r.exit_code == 0, r.stderr
        return
    assert r.exit_code == 2, (r.stdout, r.stderr)
    assert words in r.stderr and "Traceback" not in r.stderr and "bug" not in r.stderr
