"""Test helpers: a dice generator that deals chosen faces, and example paths."""

from __future__ import annotations

from pathlib import Path

from storymaster.dice import DiceRng

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "fuzzy"
ROOT = Path(__file__).resolve().parents[3]


class ScriptedRng(DiceRng):
    """Deals the given faces in order (then fails loudly), so a test can stage any roll."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__("scripted", "test")
        self.faces = list(faces)

    def die(self, sides: int) -> int:
        if not self.faces:
            raise AssertionError("the scripted dice ran out")
        self.counter += 1
        face = self.faces.pop(0)
        assert 1 <= face <= sides
        return face
