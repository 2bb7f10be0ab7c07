"""The consistency table in docs/cli.md is the command tree's own, and no system drifts from the shared shape."""

from __future__ import annotations

import os
import re
from pathlib import Path

from storymaster.cli.consistency import CONCEPTS, consistency_markdown, drift
from storymaster.cli.shared import SHARED_COMMANDS

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "cli.md"
SYSTEMS = ["blyss", "philsys", "bum", "kalyr", "fuzzy"]
BLOCK = re.compile(r"(<!-- consistency:start -->\n)(.*?)(<!-- consistency:end -->)", re.S)


def test_every_system_has_every_shared_command_with_the_shared_flags() -> None:
    assert set(CONCEPTS) == set(SHARED_COMMANDS)
    assert drift(SYSTEMS) == []


def test_the_table_in_docs_is_generated_from_the_code() -> None:
    text = DOC.read_text(encoding="utf-8")
    table = consistency_markdown(SYSTEMS)
    if os.environ.get("STORYMASTER_UPDATE_DOCS"):
        DOC.write_text(BLOCK.sub(lambda m: m.group(1) + table + m.group(3), text), encoding="utf-8")
        text = DOC.read_text(encoding="utf-8")
    found = BLOCK.search(text)
    assert found is not None, "docs/cli.md lost its consistency markers"
    assert found.group(2) == table, "docs/cli.md's table is stale: rerun with STORYMASTER_UPDATE_DOCS=1"


def test_drift_is_caught() -> None:
    """A system that lost a shared flag or command shows up (the check is not vacuous)."""
    from storymaster.cli import consistency

    group = consistency.system_commands("kalyr")
    fight = group.commands["fight"]
    kept, commands = list(fight.params), dict(group.commands)
    fight.params = [p for p in kept if "--vs" not in getattr(p, "opts", ())]
    del group.commands["schema"]
    try:
        found = drift(["kalyr"])
    finally:  # put the shared command tree back as it was, in its order
        fight.params = kept
        group.commands.clear()
        group.commands.update(commands)
    assert "kalyr fight: no --vs" in found and "kalyr: no 'schema' command" in found
