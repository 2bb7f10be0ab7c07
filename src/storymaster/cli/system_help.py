"""The built-in systems' help lines, so ``storymaster --help`` lists them without importing them.

Importing the five rule systems (their models, tables and CLI modules) is most of what ``--help``
used to cost. Each entry is (the ``storymaster.cli`` entry point's value, the help line the loaded
command shows); tests/cli/test_startup.py checks every entry against the loaded command, so the
table cannot drift from the systems. A system whose entry point differs (a plugin that replaces a
built-in name) is loaded and asked, as any plugin is.
"""

from __future__ import annotations

__all__ = ["SYSTEM_HELP"]

SYSTEM_HELP: dict[str, tuple[str, str]] = {
    "blyss": (
        "storymaster.cli.systems.blyss:app",
        "BLYSS 3.5 Basic Rules: characters, die-pool Tests with exact odds,...",
    ),
    "bum": (
        "storymaster.cli.systems.bum:app",
        "B.U.M. (Basic - Universal - Modular): d6 + stat + skill + items...",
    ),
    "fuzzy": (
        "storymaster.cli.systems.fuzzy:app",
        "A Loose and Fuzzy Game System: Nd6 abilities, criticals, Luck and...",
    ),
    "kalyr": (
        "storymaster.cli.systems.kalyr:app",
        "The Kalyr RPG (ch. 3, Playing the Game): 4dF Trait Ladder, contests,...",
    ),
    "philsys": (
        "storymaster.cli.systems.philsys:app",
        "Philsys: d20 checks, AT/PA melee, missiles, magic and levels.",
    ),
}
