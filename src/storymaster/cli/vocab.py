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
    for param in command.params:
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
