"""The check catalogue: every kind of check a system offers, and the checks a character can make.

A :class:`CheckKind` is one kind of check ("test", "contest", "melee"): its typed
parameters (a :class:`~storymaster.rules.Check` model, so a form or a command's options
come from its fields and JSON Schema), the book's words for it, which field is the
difficulty and which the opposition, and the two functions that resolve it and give its
exact odds. A system lists its kinds once; dispatch is by that table, not by ``isinstance``.

A :class:`CheckEntry` is one check a given character can make ("Strength test",
"Longsword attack"): the kind, what it is about, and the parameters the character fills
in. ``make_check(entry, {"td": 3})`` turns it into a check to resolve or give odds for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel

from ..dice import DiceRng
from .models import Check
from .outcome import Outcome, OutcomeOdds

__all__ = ["CheckEntry", "CheckKind", "entry_key", "find_entry"]

Resolver = Callable[[Any, DiceRng, Any], Outcome]
OddsFn = Callable[[Any, Any], OutcomeOdds]


def _frozen(mapping: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping or {}))


def _first_line(text: str | None) -> str:
    return (text or "").strip().split("\n\n")[0].replace("\n", " ").strip()


@dataclass(frozen=True, slots=True)
class CheckKind:
    """One kind of check in a system's catalogue.

    ``name`` is its key in ``system.check_types`` and on the command line; ``model`` its
    typed parameters; ``resolve(check, rng, house_rules)`` and ``odds(check, house_rules)``
    the system's functions for it (house rules already coerced to the system's model).
    ``title`` is the book's word ("Test", "Melee attack"), ``summary`` one line on what it
    is (the model's docstring by default). ``difficulty`` names the field that is the
    difficulty (``td``, ``dc``, ``target``, ``difficulty``) and ``opponent`` the field that
    holds the opposition (``vs``, ``b``, ``opponent``), where the kind has them, so front ends
    can offer one ``--difficulty`` and one ``--vs``. ``example`` holds parameters that, with
    a character entry's defaults, make a valid check (forms show them as placeholders; the
    contract tests make every catalogued check with them). ``group`` sorts kinds for a menu:
    "test", "contest", "attack", "damage", "spell", "luck" or "other".
    """

    name: str
    model: type[Check]
    resolve: Resolver
    odds: OddsFn
    title: str = ""
    summary: str = ""
    difficulty: str | None = None
    opponent: str | None = None
    example: Mapping[str, Any] = field(default_factory=dict)
    group: str = "test"

    def __post_init__(self) -> None:
        object.__setattr__(self, "example", _frozen(self.example))
        if not self.title:
            object.__setattr__(self, "title", self.name.replace("-", " ").capitalize())
        if not self.summary:
            object.__setattr__(self, "summary", _first_line(self.model.__doc__))
        for what in (self.difficulty, self.opponent):
            if what is not None and what not in self.model.model_fields:
                raise ValueError(f"check kind {self.name!r}: {what!r} is not a field of {self.model.__name__}")

    def parameters(self) -> list[dict[str, Any]]:
        """Each parameter: name, whether required, default (JSON), description, and its JSON Schema."""
        schema = self.model.model_json_schema()
        props = schema.get("properties", {})
        out = []
        for name, info in self.model.model_fields.items():
            default: Any = None
            if not info.is_required():
                default = info.get_default(call_default_factory=True)
                if isinstance(default, BaseModel):
                    default = default.model_dump(mode="json")
                elif isinstance(default, tuple):
                    default = list(default)
            out.append(
                {
                    "name": name,
                    "required": info.is_required(),
                    "default": default,
                    "description": info.description or "",
                    "schema": props.get(info.alias or name, {}),
                }
            )
        return out

    def entry(
        self, subject: str, about: str, defaults: Mapping[str, Any], *, label: str = "", key: str = ""
    ) -> CheckEntry:
        """This kind's entry for a character's ``subject`` with the parameters it fills in."""
        needs = tuple(n for n, f in self.model.model_fields.items() if f.is_required() and n not in defaults)
        return CheckEntry(
            key=key or entry_key(self.name, subject),
            check=self.name,
            label=label or f"{subject}: {self.title.lower()}",
            about=about,
            subject=subject,
            defaults=defaults,
            needs=needs,
        )

    def to_json(self) -> dict[str, Any]:
        """The kind as JSON: its words, its difficulty and opponent fields, its example and JSON Schema."""
        return {
            "name": self.name,
            "title": self.title,
            "summary": self.summary,
            "group": self.group,
            "difficulty": self.difficulty,
            "opponent": self.opponent,
            "example": dict(self.example),
            "schema": self.model.model_json_schema(),
        }


@dataclass(frozen=True, slots=True)
class CheckEntry:
    """One check a particular character can make, with what the character fills in.

    ``key`` is unique among one character's entries ("test:strength", "melee:longsword"),
    ``check`` the kind's name, ``label`` what a person reads ("Strength test"), ``about``
    what sort of thing it rolls ("attribute", "skill", "stat", "ability", "weapon", "spell")
    and ``subject`` its name on the sheet ("Strength"). ``defaults`` are the kind's
    parameters taken from the character (JSON values); ``needs`` the required parameters
    still to give (a difficulty, an opponent).
    """

    key: str
    check: str
    label: str
    about: str
    subject: str
    defaults: Mapping[str, Any] = field(default_factory=dict)
    needs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "defaults", _frozen(self.defaults))
        object.__setattr__(self, "needs", tuple(self.needs))

    def to_json(self) -> dict[str, Any]:
        """The entry as JSON (the defaults made plain)."""
        return {
            "key": self.key,
            "check": self.check,
            "label": self.label,
            "about": self.about,
            "subject": self.subject,
            "defaults": _plain(self.defaults),
            "needs": list(self.needs),
        }


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def entry_key(check: str, subject: str) -> str:
    """``check:subject`` with the subject as a lower-case slug ("test:armed-combat")."""
    slug = re.sub(r"[^a-z0-9]+", "-", subject.lower()).strip("-") or "x"
    return f"{check}:{slug}"


def find_entry(entries: list[CheckEntry] | tuple[CheckEntry, ...], text: str, check: str | None = None) -> CheckEntry:
    """The entry a user means by ``text``: its key, or its subject or label (any case), optionally of one kind.

    Raises :class:`~storymaster.errors.RulesInputError` naming the choices when none or several match.
    """
    from ..errors import RulesInputError

    pool = [e for e in entries if check is None or e.check == check]
    wanted = text.strip().lower()
    slug = entry_key("", wanted).split(":", 1)[1]
    readings: tuple[Callable[[CheckEntry], bool], ...] = (
        lambda e: e.key == wanted,
        lambda e: e.subject.lower() == wanted,
        lambda e: e.label.lower() == wanted,
        lambda e: e.key.split(":", 1)[1] == slug,
    )
    for reads in readings:
        hits = [e for e in pool if reads(e)]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise RulesInputError(
                f"{text!r} could mean {len(hits)} checks: {', '.join(e.key for e in hits)}",
                where="check",
                hint="name the check type too, or use one of these keys",
            )
    known = ", ".join(sorted({e.key for e in pool})) or "none"
    raise RulesInputError(f"the character has no check called {text!r}", where="check", hint=f"checks: {known}")
