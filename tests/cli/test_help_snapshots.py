"""Every command's --help at 80 columns, compared with the snapshot in tests/cli/help/.

A change to a command's options or words shows up here; after a deliberate change, rerun with
STORYMASTER_UPDATE_SNAPSHOTS=1 and read the diff before committing it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from storymaster.cli.app import app
from storymaster.cli.consistency import system_commands

HERE = Path(__file__).resolve().parent / "help"
SYSTEMS = ["blyss", "philsys", "bum", "kalyr", "fuzzy"]


def _leaves(group, prefix):
    out = [prefix]
    for name, cmd in sorted(getattr(group, "commands", {}).items()):
        out += _leaves(cmd, [*prefix, name]) if hasattr(cmd, "commands") else [[*prefix, name]]
    return out


def _all_commands() -> list[list[str]]:
    out = [[], ["roll"], ["odds"], ["replay"], ["systems"], ["house-rules"], ["serve"], ["verify"]]
    for s in SYSTEMS:
        out += _leaves(system_commands(s), [s])
    return out


@pytest.mark.parametrize("words", _all_commands(), ids=lambda w: " ".join(w) or "storymaster")
def test_help_at_80_columns(words: list[str]) -> None:
    result = CliRunner().invoke(app, [*words, "--help"], env={"COLUMNS": "80"}, prog_name="storymaster")
    assert result.exit_code == 0, result.output
    text = result.stdout
    too_wide = [line for line in text.splitlines() if len(line) > 80]
    assert not too_wide, too_wide
    snapshot = HERE / ("__".join(words or ["storymaster"]) + ".txt")
    if os.environ.get("STORYMASTER_UPDATE_SNAPSHOTS") or not snapshot.exists():
        if not os.environ.get("STORYMASTER_UPDATE_SNAPSHOTS") and os.environ.get("CI"):
            pytest.fail(f"no snapshot {snapshot.name}: run with STORYMASTER_UPDATE_SNAPSHOTS=1 and commit it")
        snapshot.write_text(text, encoding="utf-8")
    assert text == snapshot.read_text(encoding="utf-8")
