"""The CLI's one vocabulary: every flag that means the same thing in every system is spelt here once.

A system's module takes its options from here (``CharacterOpt``, ``OutOpt``, ``TeamVsOpt``
...) instead of spelling its own. Old spellings stay as *hidden aliases* for a release: they still
parse, but ``--help`` shows only the new name (:data:`HIDDEN_ALIASES`, applied by :func:`tidy`).

:func:`tidy` also makes every float option refuse NaN and infinity, so no command ever computes
with them, and is run over each command tree once, as it is loaded.
"""

from __future__ import annotations

import difflib
import math
from pathlib import Path
from typing import Annotated, Any

import typer

__all__ = [
    "HIDDEN_ALIASES",
    "AllowIllegalOpt",
    "CharacterOpt",
    "HouseRulesOpt",
    "InPlaceOpt",
    "JsonOpt",
    "OutOpt",
    "PlotOpt",
    "SeedOpt",
    "TeamVsOpt",
    "suggest",
    "tidy",
]

#: Old spellings of the shared flags: they still work, ``--help`` no longer shows them.
HIDDEN_ALIASES: frozenset[str] = frozenset(
    {
        "--char",  # B.U.M. before --character
        "--output",  # Fuzzy before --out
        "--target",  # Fuzzy before --difficulty
        "--ally",  # B.U.M. team fights before --vs
        "--foe",
        "--ally-a",  # Kalyr team fights before --vs
        "--ally-b",
        "--with-a",  # Fuzzy team fights before --vs
        "--with-b",
    }
)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")]
SeedOpt = Annotated[str | None, typer.Option("--seed", help="Seed for the dice (the same seed gives the same rolls).")]
HouseRulesOpt = Annotated[
    Path | None,
    typer.Option("--house-rules", help="A YAML/JSON file of house-rule options (see the 'house-rules' command)."),
]
PlotOpt = Annotated[Path | None, typer.Option("--plot", help="Also save a chart: FILE.svg or FILE.png.")]
CharacterOpt = Annotated[Path | None, typer.Option("--character", "-c", help="A character file (YAML or JSON).")]
OutOpt = Annotated[
    Path | None,
    typer.Option("--out", "-o", help="Write the changed character to this file (default: print it)."),
]
InPlaceOpt = Annotated[
    bool,
    typer.Option("--in-place", help="Rewrite the character file itself, keeping its comments and a backup (FILE.bak)."),
]
AllowIllegalOpt = Annotated[
    bool,
    typer.Option(
        "--allow-illegal", help="Use a character that breaks the creation rules (a GM's odd NPC); say why it is."
    ),
]
TeamVsOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--vs",
        help="The other side's character files (repeat --vs); the files before are then one team.",
    ),
]


def suggest(name: str, choices: list[str]) -> str:
    """' Did you mean X?' for a mistyped name, or ''."""
    close = difflib.get_close_matches(name, choices, n=2, cutoff=0.6)
    if not close:
        return ""
    return " Did you mean " + " or ".join(repr(c) for c in close) + "?"


def _refusing_non_finite(cls: type) -> type:
    """``cls`` whose values refuse NaN and infinity (they would reach the rules as numbers)."""

    base: Any = cls

    def process_value(self: Any, ctx: Any, value: Any) -> Any:
        value = base.process_value(self, ctx, value)
        for v in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(v, float) and not math.isfinite(v):
                raise typer.BadParameter(f"{v!r} is not a finite number", ctx=ctx, param=self)
        return value

    return type(f"Finite{cls.__name__}", (cls,), {"process_value": process_value})


class _QuickRuntime:
    """Typer's coercion, skipped for a value that already is what the parameter declares.

    Typer builds a pydantic validator for each parameter the first time it sees a value, which
    imports pydantic (about half the start-up time of ``storymaster roll d20``). A ``str`` parameter
    given a ``str``, or an ``int`` given its own (range-checked) ``int`` default, comes out of that
    validator unchanged, so it is returned as it is; anything else (``--counter 5`` as text, a path,
    a choice, a list) goes through Typer's own coercion, with its own messages.
    """

    def __init__(self, base: Any) -> None:
        self.base = base  # () -> Typer's RuntimeParam, built on first need

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        if value is None and not (param.multiple or param.nargs == -1):
            return None
        annotation = param.type_descriptor.annotation
        info = param.type_descriptor.parameter_info
        if info.parser is None and param.nargs == 1 and not param.multiple:
            if annotation is str and type(value) is str:
                return value
            if (
                annotation is int
                and type(value) is int
                and not info.clamp
                and (info.min is None or value >= info.min)
                and (info.max is None or value <= info.max)
            ):
                return value
        return self.base().coerce(value, param=param, ctx=ctx)


_DERIVED: dict[tuple[str, type], type] = {}  # each derived class made once


def _quick_coercion(cls: type) -> type:
    """``cls`` that skips Typer's pydantic coercion where it would change nothing (:class:`_QuickRuntime`)."""
    if ("quick", cls) in _DERIVED:
        return _DERIVED["quick", cls]
    base: Any = cls

    def get_runtime_param(self: Any) -> Any:
        return _QuickRuntime(lambda: base.get_runtime_param(self))

    derived = type(cls.__name__, (cls,), {"get_runtime_param": get_runtime_param, "_storymaster_quick": True})
    return _DERIVED.setdefault(("quick", cls), derived)


def _quick_help(cls: type) -> type:
    """``cls`` whose ``--help`` option (made on first use) also skips Typer's coercion of its unset value."""
    if ("help", cls) in _DERIVED:
        return _DERIVED["help", cls]
    base: Any = cls

    def get_help_option(self: Any, ctx: Any) -> Any:
        option = base.get_help_option(self, ctx)
        if option is not None and hasattr(option, "get_runtime_param") and not hasattr(option, "_storymaster_quick"):
            option.__class__ = _quick_coercion(type(option))
        return option

    return _DERIVED.setdefault(("help", cls), type(cls.__name__, (cls,), {"get_help_option": get_help_option}))


def _hiding_aliases(cls: type, hidden: tuple[str, ...]) -> type:
    """``cls`` whose old spellings ``hidden`` stay usable but are not listed in ``--help``."""

    base: Any = cls

    def get_help_record(self: Any, ctx: Any) -> Any:
        opts = self.opts
        self.opts = [o for o in opts if o not in hidden]
        try:
            return base.get_help_record(self, ctx)
        finally:
            self.opts = opts

    return type(f"Aliased{cls.__name__}", (cls,), {"get_help_record": get_help_record, "hidden_aliases": hidden})


def _is_float(param: Any) -> bool:
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    return annotation is float or getattr(annotation, "__args__", None) == (float,)


def tidy(command: Any) -> Any:
    """Hide old aliases in help and refuse NaN/inf floats, over the whole command tree, once."""
    if getattr(command, "_storymaster_tidy", False):
        return command
    command._storymaster_tidy = True  # type: ignore[attr-defined]
    if hasattr(command, "get_help_option"):
        command.__class__ = _quick_help(type(command))
    for param in command.params:
        if hasattr(param, "get_runtime_param") and not hasattr(param, "_storymaster_quick"):
            param.__class__ = _quick_coercion(type(param))
        # a subclass of the parameter's own class (Python allows __class__ to change only that way)
        if _is_float(param):
            param.__class__ = _refusing_non_finite(type(param))
        hidden = tuple(o for o in getattr(param, "opts", ()) if o in HIDDEN_ALIASES)
        if hidden and len(hidden) == len(param.opts):  # an old option of its own: it works, unlisted
            param.hidden = True
        elif hidden:
            param.__class__ = _hiding_aliases(type(param), hidden)
    for sub in getattr(command, "commands", {}).values():
        tidy(sub)
    return command
