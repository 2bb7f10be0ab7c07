"""The shared base every rule system builds on: what is the same in all of them, said once.

A system subclasses :class:`RuleSystemBase`, sets its class attributes (``name``,
``title``, ``version``, ``character_model``, ``house_rules_model``, ``check_kinds``,
``combat``) and supplies its parts as hooks:

- ``character_problems(character, house_rules)``: every creation rule the character breaks;
- ``character_checks(character, house_rules)``: the :class:`CheckEntry` list of what it can roll;
- ``sheet_sections(character, house_rules)``: the sheet's :class:`SheetSection` list;
- ``advance(character, request, rng, house_rules)``: experience and purchases.

The base gives the rest: one coercion of house rules (a model, a mapping or a file), one of
characters, the check catalogue's look-ups, ``make_check`` from a kind or a character's
entry plus parameters, ``resolve``/``odds`` dispatched by the catalogue, and ``sheet``.
Every wrong input raises :class:`~storymaster.errors.RulesInputError` (or a subclass:
``HouseRulesError``, ``CharacterError``, ``CheckError``, ``InputFileError``), never a raw
pydantic ``ValidationError``.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError

from ..dice import DiceRng
from ..errors import CharacterError, CheckError, HouseRulesError, Problem, RulesInputError
from .catalogue import CheckEntry, CheckKind, find_entry
from .files import load_document, validation_problems
from .models import Check, HouseRules
from .outcome import Outcome, OutcomeOdds
from .protocol import Event
from .sheet import Cell, Sheet, SheetSection, section, value

__all__ = ["RuleSystemBase", "generic_sections"]


class RuleSystemBase:
    """Defaults and shared behaviour for a :class:`~storymaster.rules.RuleSystem`."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    version: ClassVar[str] = ""
    #: the system's name as people write it in a sentence ("B.U.M.", "Kalyr"); defaults to ``name``
    display_name: ClassVar[str] = ""
    character_model: ClassVar[type[BaseModel]]
    house_rules_model: ClassVar[type[HouseRules]] = HouseRules
    #: every kind of check, in menu order
    check_kinds: ClassVar[tuple[CheckKind, ...]] = ()
    #: the kinds' models by name (made from ``check_kinds``)
    check_types: ClassVar[Mapping[str, type[Check]]] = MappingProxyType({})
    #: the fight engine (a CombatEngine)
    combat: Any = None
    #: character fields that play changes, not the player's pen: experience earned, advancement made with it,
    #: the current condition. The table keeps them (the GM's awards and adjustments, the logged fights and
    #: rests); a player's sheet may not change them, so a budget cannot be raised from the sheet.
    table_kept: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        kinds = cls.__dict__.get("check_kinds")
        if kinds is not None:
            names = [k.name for k in kinds]
            if len(set(names)) != len(names):
                raise TypeError(f"{cls.__name__}: check kinds repeat a name: {names}")
            cls.check_types = MappingProxyType({k.name: k.model for k in kinds})

    @property
    def _word(self) -> str:
        return self.display_name or self.name

    # ------------------------------------------------------------------ hooks a system supplies

    def character_problems(self, character: Any, house_rules: Any) -> list[Problem]:
        """Every creation rule ``character`` breaks under ``house_rules`` (already the system's models)."""
        return []

    def character_checks(self, character: Any, house_rules: Any) -> list[CheckEntry]:
        """The checks ``character`` can make (already the system's models)."""
        return []

    def sheet_sections(self, character: Any, house_rules: Any) -> list[SheetSection]:
        """The sheet's sections; by default read off the character model's simple fields."""
        return generic_sections(character)

    def advance(
        self, character: BaseModel, request: BaseModel, rng: DiceRng, house_rules: HouseRules | None = None
    ) -> tuple[BaseModel, Sequence[Event]]:
        """Apply an advancement request; the base has no advancement rules and raises :class:`AdvancementError`."""
        from ..errors import AdvancementError

        raise AdvancementError(f"{self.title or self.name} has no advancement rules here")

    # ------------------------------------------------------------------ coercion: one way in

    def coerce_house_rules(self, house_rules: Any = None, *, source: str = "house rules") -> Any:
        """The system's house-rules model from None (the book), the model, a mapping or a file path.

        Anything else, an unknown option or a bad value raises :class:`HouseRulesError`
        naming the option (``where``) and the file or source.
        """
        model = self.house_rules_model
        if house_rules is None:
            return model()
        if isinstance(house_rules, model):
            return house_rules
        if isinstance(house_rules, (str, os.PathLike)):
            source = str(house_rules)
            house_rules = load_document(os.fspath(house_rules))
            if house_rules is None:
                return model()
        if isinstance(house_rules, BaseModel):
            raise HouseRulesError(
                f"{self._word} takes its own house rules, not {type(house_rules).__name__}",
                where="house_rules",
                hint=f"see: storymaster {self.name} house-rules",
            )
        if not isinstance(house_rules, Mapping):
            raise HouseRulesError(
                f"{source}: house rules are a mapping of option: value, not {type(house_rules).__name__}",
                where="house_rules",
            )
        try:
            return model.model_validate(dict(house_rules))
        except ValidationError as exc:
            problems = validation_problems(exc, prefix="house_rules")
            raise HouseRulesError(
                _problem_text(source, problems),
                problems=problems,
                hint=f"see the options and their defaults: storymaster {self.name} house-rules",
            ) from None

    def load_house_rules(self, path: str | os.PathLike[str]) -> Any:
        """House rules from a YAML or JSON file (an empty file is the book's rules)."""
        return self.coerce_house_rules(os.fspath(path))

    def coerce_character(self, character: Any, *, source: str = "character") -> Any:
        """The system's character model from the model itself, a mapping or a file path (shape only).

        A ``system:`` key naming another system, a missing field or a bad value raises
        :class:`RulesInputError` listing every field; the creation rules are
        :meth:`validate_character`'s job.
        """
        model = self.character_model
        if isinstance(character, model):
            return character
        if isinstance(character, (str, os.PathLike)):
            source = str(character)
            character = load_document(os.fspath(character))
        if isinstance(character, BaseModel):
            raise RulesInputError(f"not a {self._word} character ({type(character).__name__})", where="character")
        if not isinstance(character, Mapping):
            raise RulesInputError(
                f"{source}: a character is a mapping of field: value, not {type(character).__name__}",
                where="character",
            )
        data = dict(character)
        named = data.get("system")
        if named is not None and named != self.name and "system" not in model.model_fields:
            raise RulesInputError(f"{source}: this is a {named} character, not {self.name}", where="system")
        if "system" not in model.model_fields:
            data.pop("system", None)
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            problems = validation_problems(exc)
            raise RulesInputError(
                _problem_text(source, problems),
                problems=problems,
                hint=f"see the JSON Schema: storymaster {self.name} schema",
            ) from None

    def load_character(self, path: str | os.PathLike[str]) -> Any:
        """The character in a YAML or JSON file (shape only; see :meth:`coerce_character`)."""
        return self.coerce_character(os.fspath(path))

    # ------------------------------------------------------------------ characters

    def validate_character(self, character: BaseModel, house_rules: Any = None) -> list[Problem]:
        """Every way the character breaks the creation rules under these house rules (empty when legal)."""
        hr = self.coerce_house_rules(house_rules)
        if not isinstance(character, self.character_model):
            return [Problem("", f"not a {self._word} character ({type(character).__name__})")]
        return list(self.character_problems(character, hr))

    def require_legal(self, character: BaseModel, house_rules: Any = None) -> None:
        """Raise :class:`CharacterError` listing every problem, unless the character is legal."""
        problems = self.validate_character(character, house_rules)
        if problems:
            raise CharacterError(problems, name=str(getattr(character, "name", "") or ""))

    def sheet(self, character: Any, house_rules: Any = None) -> Sheet:
        """The character's structured sheet (an illegal character still gets one, with its problems)."""
        hr = self.coerce_house_rules(house_rules)
        c = self.coerce_character(character)
        return Sheet(
            system=self.name,
            name=str(getattr(c, "name", "") or ""),
            sections=tuple(s for s in self.sheet_sections(c, hr)),
            problems=tuple(self.character_problems(c, hr)),
        )

    # ------------------------------------------------------------------ the check catalogue

    def check_kind(self, name: str) -> CheckKind:
        """The kind called ``name``; a wrong name raises :class:`CheckError` with the closest names."""
        for k in self.check_kinds:
            if k.name == name:
                return k
        names = [k.name for k in self.check_kinds]
        close = difflib.get_close_matches(str(name), names, n=1)
        hint = (f"did you mean {close[0]!r}? " if close else "") + f"check types: {', '.join(names) or 'none'}"
        raise CheckError(f"{self.name} has no check type {name!r}", hint=hint)

    def kind_of(self, check: Check) -> CheckKind:
        """The catalogue kind of a check object (its exact class first, then a base class)."""
        for k in self.check_kinds:
            if type(check) is k.model:
                return k
        for k in self.check_kinds:
            if isinstance(check, k.model):
                return k
        raise CheckError(
            f"{self.name} cannot resolve a {type(check).__name__}",
            hint=f"check types: {', '.join(k.name for k in self.check_kinds) or 'none'}",
        )

    def checks_for(self, character: Any, house_rules: Any = None) -> list[CheckEntry]:
        """Every check this character can make, with what the character fills in."""
        hr = self.coerce_house_rules(house_rules)
        c = self.coerce_character(character)
        entries = list(self.character_checks(c, hr))
        keys = [e.key for e in entries]
        if len(set(keys)) != len(keys):  # a system bug, not the user's: say so plainly
            dup = sorted({k for k in keys if keys.count(k) > 1})
            raise RuntimeError(f"{self.name}: the catalogue repeats the keys {dup}")
        return entries

    def find_check(self, character: Any, text: str, *, check: str | None = None, house_rules: Any = None) -> CheckEntry:
        """The character's entry a user names (key, subject or label; optionally of one kind)."""
        if check is not None:
            self.check_kind(check)
        return find_entry(self.checks_for(character, house_rules), text, check)

    def make_check(self, what: str | CheckKind | CheckEntry, params: Mapping[str, Any] | None = None) -> Check:
        """A check of a kind (by name or object) or from a character's entry, with ``params`` on top.

        ``params`` override the entry's defaults (mappings merge key by key: ``{"entrants": {"Bo": 2}}``
        adds an entrant, ``{"first": {"modifier": 1}}`` changes one field); a missing or bad parameter raises
        :class:`CheckError` naming the field (``where``) and what it takes.
        """
        defaults: Mapping[str, Any] = {}
        if isinstance(what, CheckEntry):
            kind = self.check_kind(what.check)
            defaults = what.defaults
        elif isinstance(what, CheckKind):
            kind = self.check_kind(what.name)
        else:
            kind = self.check_kind(what)
        if params is not None and not isinstance(params, Mapping):
            raise CheckError(f"a check's parameters are a mapping of field: value, not {type(params).__name__}")
        data = _merge(defaults, params or {})
        data.pop("type", None)
        try:
            return kind.model.model_validate(data)
        except ValidationError as exc:
            problems = validation_problems(exc)
            raise CheckError(
                _problem_text(f"the {kind.name} check", problems),
                problems=problems,
                hint=f"the {kind.name} check takes: "
                + ", ".join(p["name"] + ("" if p["required"] else "?") for p in kind.parameters()),
            ) from None

    def resolve(self, check: Check, rng: DiceRng, house_rules: Any = None) -> Outcome:
        """Roll the check and explain the result."""
        kind = self.kind_of(check)
        hr = self.coerce_house_rules(house_rules)
        try:
            return kind.resolve(check, rng, hr)
        except ValidationError as exc:
            raise CheckError(_problem_text(f"the {kind.name} check", validation_problems(exc))) from None

    def odds(self, check: Check, house_rules: Any = None) -> OutcomeOdds:
        """The exact probability of every outcome of the check."""
        kind = self.kind_of(check)
        hr = self.coerce_house_rules(house_rules)
        try:
            return kind.odds(check, hr)
        except ValidationError as exc:
            raise CheckError(_problem_text(f"the {kind.name} check", validation_problems(exc))) from None


def _merge(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    """``top`` over ``base``; mappings in both merge key by key (an entrant added, one side's modifier changed)."""
    out = dict(base)
    for k, v in top.items():
        if isinstance(v, Mapping) and isinstance(out.get(k), Mapping):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


def _problem_text(source: str, problems: Sequence[Problem]) -> str:
    if len(problems) == 1:
        return f"{source}: {problems[0]}"
    return f"{source}: {len(problems)} problems:\n" + "\n".join(f"  - {p}" for p in problems)


def _label(name: str) -> str:
    return name.replace("_", " ").capitalize()


def _cell(v: Any) -> Cell | None:
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    return None


def generic_sections(character: BaseModel) -> list[SheetSection]:
    """A sheet read off any character model: its plain fields, then each group of plain fields.

    What a sixth system gets before it writes its own ``sheet_sections``.
    """
    top: list[Any] = []
    groups: list[SheetSection] = []
    for name in type(character).model_fields:
        if name == "system":
            continue
        v = getattr(character, name)
        if name == "name":
            continue
        if _cell(v) is not None or v is None:
            if v not in (None, ""):
                top.append(value(_label(name), v, key=name))
        elif isinstance(v, BaseModel):
            vals = [
                value(_label(n), getattr(v, n), key=n) for n in type(v).model_fields if _cell(getattr(v, n)) is not None
            ]
            if vals:
                groups.append(section(name, _label(name), "stats", vals))
    out = [section("summary", "Summary", "summary", top)] if top else []
    return out + groups
