"""How the CLI turns errors into one clear message on stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

import json
import os
import sys
from typing import Any, cast

import typer
from typer.core import TyperGroup

from ..errors import InputFileError, StorymasterError

__all__ = ["EXIT_ERROR", "EXIT_INTERNAL", "StorymasterGroup", "format_error"]

EXIT_ERROR = 2
EXIT_INTERNAL = 70


def format_error(exc: BaseException, as_json: bool = False) -> str:
    """The one message a user sees for an error (JSON with ``--json``)."""
    if isinstance(exc, StorymasterError):
        return json.dumps(exc.to_json()) if as_json else f"error: {exc}"
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        msg = f"{where}{exc.strerror or exc}"
        return json.dumps({"error": "os-error", "message": msg}) if as_json else f"error: {msg}"
    msg = (
        f"internal error ({type(exc).__name__}: {exc}). "
        "This is a bug in Storymaster; please report it with the command you ran."
    )
    if as_json:
        return json.dumps({"error": "internal", "message": msg})
    return f"error: {msg}\nTip: set STORYMASTER_DEBUG=1 to see the traceback"


def _json(ctx: Any) -> bool:
    return bool(ctx.meta.get("storymaster.json", False))


def _is_framework(exc: BaseException) -> bool:
    """Typer/Click's own control-flow and usage exceptions, which they report themselves."""
    module = type(exc).__module__
    return module.startswith(("typer", "click")) or isinstance(exc, (KeyboardInterrupt, EOFError))


def _is_validation_error(exc: BaseException) -> bool:
    """A pydantic ValidationError, without importing pydantic (a command that never loaded it raised none)."""
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and isinstance(exc, pydantic.ValidationError)


class StorymasterGroup(TyperGroup):
    """The root command group: every command under it reports errors the same way."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        ctx.meta["storymaster.json"] = "--json" in args
        return super().parse_args(ctx, args)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except typer.TyperException as exc:  # Click's usage errors (Typer carries its own Click)
            if not ctx.meta.get("storymaster.json", False):
                raise
            # with --json, a usage error is JSON too (on stderr, like every error)
            failed_in = getattr(exc, "ctx", None)
            where = failed_in.command_path if failed_in is not None else ctx.command_path
            sys.stderr.write(json.dumps({"error": "usage", "message": exc.format_message(), "command": where}) + "\n")
            sys.stderr.flush()
            raise typer.Exit(getattr(exc, "exit_code", EXIT_ERROR)) from None
        except Exception as exc:
            if _is_validation_error(exc):  # a value from the command line that a model refused: the user's input
                errors = cast(Any, exc).errors()
                what = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'value'}: {e['msg']}" for e in errors)
                sys.stderr.write(format_error(InputFileError(f"bad value: {what}"), _json(ctx)) + "\n")
                sys.stderr.flush()
                raise typer.Exit(EXIT_ERROR) from None
            if _is_framework(exc):
                raise
            if not isinstance(exc, (StorymasterError, OSError)) and os.environ.get("STORYMASTER_DEBUG"):
                raise
            sys.stderr.write(format_error(exc, ctx.meta.get("storymaster.json", False)) + "\n")
            sys.stderr.flush()
            code = EXIT_ERROR if isinstance(exc, (StorymasterError, OSError)) else EXIT_INTERNAL
            raise typer.Exit(code) from None
