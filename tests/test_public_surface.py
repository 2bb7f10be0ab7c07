"""The public surface is what we meant, and the core stays free of CLI, web and database code."""

import subprocess
import sys

import storymaster.dice
import storymaster.odds
import storymaster.rules


def test_dice_surface() -> None:
    assert set(storymaster.dice.__all__) == {
        "DEFAULT_LIMITS",
        "RNG_VERSION",
        "BinOp",
        "Const",
        "Dice",
        "DiceRng",
        "DieRoll",
        "Expr",
        "Limits",
        "Neg",
        "RollRecord",
        "derive_face",
        "new_seed",
        "parse",
        "parse_pool",
        "replay",
        "roll",
        "roll_batch",
        "roll_pool",
        "verify",
        "worst_case_dice",
    }
    for name in storymaster.dice.__all__:
        assert hasattr(storymaster.dice, name), name


def test_top_level_surface() -> None:
    """The front door: load_character, the values a GM meets, and the names to go further."""
    import storymaster

    assert set(storymaster.__all__) == {
        "__version__",
        "load_character",
        "LoadedCharacter",
        "get_system",
        "all_systems",
        "RuleSystem",
        "DiceRng",
        "Outcome",
        "OutcomeOdds",
        "Fight",
        "Forecast",
        "side_label",
    }
    for name in storymaster.__all__:
        assert hasattr(storymaster, name), name


def test_odds_and_rules_surface() -> None:
    assert set(storymaster.odds.__all__) == {"Distribution", "distribution", "to_icepool", "truncated_mass"}
    assert {
        "RuleSystem",
        "CombatEngine",
        "CombatantStatus",
        "Event",
        "FightTracker",
        "Outcome",
        "OutcomeOdds",
        "Check",
        "HouseRules",
        "get_system",
        "Fight",
        "side_label",
    } <= set(storymaster.rules.__all__)
    for name in storymaster.rules.__all__:
        assert hasattr(storymaster.rules, name), name


def test_core_imports_no_cli_web_or_database_code() -> None:
    code = (
        "import sys, storymaster.dice, storymaster.odds, storymaster.rules\n"
        "from storymaster.rules import all_systems\n"
        "all_systems()\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'typer', 'click', 'rich', 'fastapi', 'starlette', 'sqlalchemy', 'uvicorn', 'jinja2', 'matplotlib'}"
        " or m.startswith(('storymaster.cli', 'storymaster.web', 'storymaster.store')))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
