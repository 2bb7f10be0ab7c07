"""B.U.M. test fixtures: the example cards, and a dice generator that shows chosen faces."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from storymaster.dice import DiceRng
from storymaster.rules import load_model
from storymaster.systems.bum import BumCharacter

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "bum"


class ScriptedRng(DiceRng):
    """Shows the given faces in order, to replay the book's worked rolls through the real code."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__("scripted", "test")
        self.faces = list(faces)

    def die(self, sides: int) -> int:
        assert self.faces, "the script ran out of dice"
        face = self.faces.pop(0)
        assert 1 <= face <= sides
        self.counter += 1
        return face


@pytest.fixture
def examples() -> Path:
    return EXAMPLES


@pytest.fixture
def card() -> Callable[[str], BumCharacter]:
    def load(name: str) -> BumCharacter:
        return load_model(EXAMPLES / f"{name}.yaml", BumCharacter)

    return load


@pytest.fixture
def scripted() -> type[ScriptedRng]:
    return ScriptedRng
