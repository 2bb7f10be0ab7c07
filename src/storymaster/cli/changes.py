"""Commands that change a character, made from one definition.

A system writes only what its book asks for: a function whose parameters are the command's own
arguments and options and which returns the advancement request. :func:`change_commands` turns it
into a command with the character file first and the shared options last (``-o/--out``,
``--in-place``, ``--house-rules``, ``--allow-illegal``, ``--json``); the character is loaded and
checked like ``sheet`` checks it, changed by ``system.advance``, and printed or written so that no
work is lost (:func:`~storymaster.cli.characters.write_character`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from .characters import load_character, write_character
from .checks import command_from, parameters_of
from .common import load_house_rules, make_rng
from .output import console, print_json
from .vocab import AllowIllegalOpt, HouseRulesOpt, InPlaceOpt, JsonOpt, OutOpt

__all__ = ["change_commands"]

FileArg = Annotated[Path, typer.Argument(help="A character file (printed changed; -o FILE or --in-place saves it).")]


def change_commands(
    app: Any,
    system: Any,
    *,
    summary: Callable[[Any, Any], str] | None = None,
    json_extra: Callable[[Any, Any], dict[str, Any]] | None = None,
    document: Callable[[Any], dict[str, Any]] | None = None,
    out_option: Any = OutOpt,
) -> Callable[[str], Callable[[Callable[..., Any]], Callable[..., Any]]]:
    """A decorator factory: ``@change("award")`` over a function returning the advancement request
    (given to ``system.advance``), or, when it takes ``character`` (and ``hr``), returning
    ``(changed character, events)`` itself (a change that is not an advancement: wounds, healing).

    ``summary(new, hr)`` is a line after the events ("44 CP left to spend"), ``json_extra(new, hr)``
    the same for ``--json``; ``document(new)`` the character as the system writes its files.
    """

    def shared(name: str, annotation: Any, default: Any) -> inspect.Parameter:
        return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)

    def change(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def register(request: Callable[..., Any]) -> Callable[..., Any]:
            takes = set(inspect.signature(request).parameters)
            direct = "character" in takes  # it changes the character itself: returns (new, events)
            own = parameters_of(request, ("character", "hr"))
            params = [
                shared("file", FileArg, inspect.Parameter.empty),
                *own,
                shared("out", out_option, None),
                shared("in_place", InPlaceOpt, False),
                shared("house_rules", HouseRulesOpt, None),
                shared("allow_illegal", AllowIllegalOpt, False),
                shared("as_json", JsonOpt, False),
            ]

            def body(kw: dict[str, Any]) -> None:
                hr = load_house_rules(kw.pop("house_rules"), system)
                file, out, in_place, as_json = kw.pop("file"), kw.pop("out"), kw.pop("in_place"), kw.pop("as_json")
                character = load_character(system, file, hr, allow_illegal=kw.pop("allow_illegal"))
                if direct:
                    injected = {"character": character, "hr": hr}
                    new, events = request(**{k: v for k, v in injected.items() if k in takes}, **kw)
                else:
                    new, events = system.advance(character, request(**kw), make_rng(None, f"{system.name}-advance"), hr)
                doc = document(new) if document is not None else None
                if as_json:
                    done = write_character(new, source=file, out=out, in_place=in_place, document=doc, as_json=True)
                    extra = json_extra(new, hr) if json_extra is not None else {}
                    print_json(
                        {
                            "events": [e.to_json() for e in events],
                            "character": new.model_dump(mode="json"),
                            **extra,
                            **done,
                        }
                    )
                    return
                for e in events:
                    console.print(e.text, markup=False)
                if summary is not None:
                    console.print(summary(new, hr), markup=False)
                write_character(new, source=file, out=out, in_place=in_place, document=doc)

            app.command(name)(command_from(name, request.__doc__ or "", params, body))
            return request

        return register

    return change
