"""Kalyr on the shared protocol: what the house rules change about a legal character (ruling K37)."""

from __future__ import annotations

from pathlib import Path

from storymaster.systems.kalyr import SYSTEM

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "kalyr"


def test_advancement_off_makes_advancement_on_the_sheet_illegal() -> None:
    c = SYSTEM.load_character(EXAMPLES / "karela.yaml")
    advanced = c.model_copy(update={"experience": 2, "levels_gained": 1, "raised_this_scene": ("Swordsmanship",)})
    assert SYSTEM.validate_character(advanced) == []  # the book's default: advancement is on
    problems = SYSTEM.validate_character(advanced, {"advancement": False})
    assert [p.where for p in problems] == ["experience", "levels_gained", "raised_this_scene"]
    assert SYSTEM.validate_character(c, {"advancement": False}) == []  # nothing advanced: still legal
    sheet = SYSTEM.sheet(advanced, {"advancement": False})
    assert not sheet.legal and len(sheet.problems) == 3
