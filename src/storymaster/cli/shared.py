"""The commands every system shares, generated from one definition.

:func:`system_app` makes a system's sub-app with the shared commands already in it; the
system's module then adds only the verbs of its book. A sixth system that registers a
``RuleSystem`` gets these commands through :func:`generic_app` without any CLI code of its own.
"""

from __future__ import annotations

from typing import Any

import typer

from .common import show_house_rules
from .output import print_json
from .vocab import JsonOpt

__all__ = ["SHARED_COMMANDS", "generic_app", "system_app"]

#: The commands every system has, each with the same flags everywhere (docs/cli.md's table).
SHARED_COMMANDS = ("sheet", "new", "schema", "house-rules", "check", "odds", "fight", "forecast")


def system_app(system: Any, *, help: str | None = None) -> typer.Typer:
    """A system's sub-app, holding the generated shared commands (``schema``, ``house-rules``)."""
    app = typer.Typer(
        name=system.name,
        help=help or f"{system.title}: rules, checks with exact odds, fights.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )

    @app.command("schema")
    def schema_cmd(as_json: JsonOpt = True) -> None:
        """The JSON Schema of a character file (always JSON; --json is accepted for uniformity)."""
        print_json(system.character_model.model_json_schema())

    @app.command("house-rules")
    def house_rules_cmd(as_json: JsonOpt = False) -> None:
        """The optional rules and rulings, each with the book's default."""
        show_house_rules(system.house_rules_model, as_json)

    return app


def generic_app(system: Any) -> typer.Typer:
    """The shared commands for a system that brings no CLI module of its own."""
    return system_app(system)
