"""Every installed rule system keeps the protocol's contract (tests/rules/contract.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from rules.contract import Subject, run_contract

from storymaster.rules import all_systems

ROOT = Path(__file__).resolve().parents[2]


def _examples(name: str) -> tuple[list[dict], list[dict]]:
    characters, house_rules = [], []
    for path in sorted((ROOT / "examples" / name).glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        (house_rules if path.name.startswith("house-rules") else characters).append(data)
    return characters, house_rules


def test_the_five_systems_are_installed() -> None:
    assert {"blyss", "bum", "fuzzy", "kalyr", "philsys"} <= set(all_systems())


@pytest.mark.parametrize("name", sorted(all_systems()))
def test_system_keeps_the_contract(name: str) -> None:
    system = all_systems()[name]
    characters, house_rules = _examples(name)
    schema_path = ROOT / "docs" / "schemas" / f"{name}-character.schema.json"
    schema = json.loads(schema_path.read_text(encoding="utf-8")) if schema_path.exists() else None
    run_contract(Subject(system, characters=characters, house_rules=house_rules, schema=schema))
