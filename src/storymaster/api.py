"""The front door of the Python API: load a character file and get its rule system with it.

>>> import storymaster
>>> system, hero = storymaster.load_character("examples/blyss/warrior.yaml")   # doctest: +SKIP
>>> system.name, hero.name                                                       # doctest: +SKIP
('blyss', 'Yama Wolfclaw')

From there everything is the system's (:class:`~storymaster.rules.RuleSystem`):
``system.checks_for(hero)``, ``system.find_check(hero, "strength")``,
``system.make_check(entry, {"td": 3})``, ``system.odds(check)``,
``system.resolve(check, DiceRng(7))``, ``system.sheet(hero)``, and
:class:`~storymaster.rules.Fight` for fights and their forecasts.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel

from .errors import CharacterError, PluginError, RulesInputError
from .rules import all_systems, get_system, load_document
from .rules.protocol import RuleSystem

__all__ = ["LoadedCharacter", "load_character"]


class LoadedCharacter(NamedTuple):
    """A character and the rule system it belongs to: ``system, character = load_character(path)``."""

    #: the rule system (``system.name`` is "blyss", "philsys" ...)
    system: RuleSystem
    #: the system's character model, shape-checked and (unless asked otherwise) legal
    character: BaseModel

    def __repr__(self) -> str:
        name = getattr(self.character, "name", "") or type(self.character).__name__
        return f"LoadedCharacter(system={self.system.name!r}, character={name!r})"


def _named_system(data: Any, path: Path) -> str | None:
    if isinstance(data, dict) and isinstance(data.get("system"), str):
        return str(data["system"])
    folder = path.resolve().parent.name
    return folder if folder in all_systems() else None


def _fits(system: RuleSystem, data: Any, source: str) -> bool:
    try:
        system.coerce_character(data, source=source)
    except RulesInputError:
        return False
    return True


def load_character(
    path: str | os.PathLike[str],
    system: str | RuleSystem | None = None,
    *,
    house_rules: Any = None,
    allow_illegal: bool = False,
) -> LoadedCharacter:
    """Read a character file (YAML or JSON) and return its rule system and the validated character.

    The system is ``system`` when given (a name or a system object), else the file's
    ``system:`` key, else the folder the file is in when that is a system's name
    (``examples/kalyr/karela.yaml``), else the one installed system whose character model
    the file fits. The character is checked against the creation rules under
    ``house_rules`` (None for the book; a model, mapping or file path): an illegal one
    raises :class:`~storymaster.errors.CharacterError` listing every problem, unless
    ``allow_illegal`` (then ``system.validate_character`` lists them).

    Raises :class:`~storymaster.errors.InputFileError` for a missing or malformed file,
    :class:`~storymaster.errors.RulesInputError` for a file that is not a character of the
    system (every wrong field named), :class:`~storymaster.errors.PluginError` for an
    unknown system.
    """
    p = Path(path)
    data = load_document(p)
    if system is None:
        name = _named_system(data, p)
        if name is None:
            fits = [s for s in all_systems().values() if _fits(s, data, str(p))]
            if len(fits) != 1:
                which = ", ".join(s.name for s in fits) if fits else "none of the installed systems"
                raise RulesInputError(
                    f"{p}: cannot tell which rule system this character is for (it fits {which})",
                    where="system",
                    hint=f"add 'system: <name>' to the file, or load_character({str(p)!r}, system='<name>')",
                )
            chosen = fits[0]
        else:
            chosen = get_system(name)
    elif isinstance(system, str):
        chosen = get_system(system)
    else:
        if not isinstance(system, RuleSystem):
            raise PluginError(f"not a rule system: {type(system).__name__}", hint="pass a name such as 'blyss'")
        chosen = system
    character = chosen.coerce_character(data if data is not None else {}, source=str(p))
    if not allow_illegal:
        problems = chosen.validate_character(character, house_rules)
        if problems:
            raise CharacterError(problems, name=str(getattr(character, "name", "") or p.name))
    return LoadedCharacter(chosen, character)
