"""Shared helpers for the Philsys tests (imported by path; pytest runs in importlib mode)."""

from __future__ import annotations

from pathlib import Path

from storymaster.rules import load_model
from storymaster.systems.philsys.character import Character

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "philsys"


def example(name: str) -> Character:
    return load_model(EXAMPLES / f"{name}.yaml", Character)
