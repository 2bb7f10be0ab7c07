"""A structured character sheet: sections of labelled values that every front end renders its own way.

``system.sheet(character, house_rules)`` returns a :class:`Sheet`. The CLI prints it as
tables, the web as a page, exports as JSON, a printable card from the same sections; no
front end needs to know which system it came from.

Each :class:`SheetSection` has a ``kind`` that says what it holds:

- ``summary``: who the character is (concept, player, race, level);
- ``stats``: the values written on the sheet (attributes, stats, abilities);
- ``derived``: values the rules compute from them (AT/PA, defence totals, dice pools);
- ``resources``: things that are spent and refilled (hit points, karma, CP, skill points),
  each with ``value`` (now) and ``maximum``;
- ``condition``: how the character is now (wounds, damage tracks, penalties);
- ``list``: anything else as rows (gear, traits, keys), with ``columns``.

A section holds ``values`` (labelled values) or, when it has ``columns``, ``rows`` of cells.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import Problem

__all__ = ["Cell", "Sheet", "SheetSection", "SheetValue", "section", "value"]

#: a cell or value on a sheet: plain JSON scalars only
Cell = str | int | float | bool | None
SectionKind = Literal["summary", "stats", "derived", "resources", "condition", "list"]
SECTION_KINDS: tuple[str, ...] = ("summary", "stats", "derived", "resources", "condition", "list")


@dataclass(frozen=True, slots=True)
class SheetValue:
    """One labelled value: ``label`` as the book says it, ``value``, and optionally more.

    ``key`` is a machine name for JSON (defaults to the label as a slug), ``note`` a short
    aside ("3d6", "+2 from items"), ``maximum`` the full value of a resource (``value`` is
    what is left).
    """

    label: str
    value: Cell
    key: str = ""
    note: str = ""
    maximum: int | float | None = None

    def __post_init__(self) -> None:
        if not self.key:
            object.__setattr__(self, "key", _slug(self.label))
        if not isinstance(self.value, (str, int, float, bool, type(None))):
            raise TypeError(f"sheet value {self.label!r} is a {type(self.value).__name__}, not a plain value")

    @property
    def text(self) -> str:
        """The value as a person reads it ("7 of 12", "yes", "—")."""
        shown = _text(self.value)
        return f"{shown} of {_text(self.maximum)}" if self.maximum is not None else shown

    def to_json(self) -> dict[str, Any]:
        """The value as JSON (with ``text``: the value as shown, "7 of 12" for a resource)."""
        out: dict[str, Any] = {"key": self.key, "label": self.label, "value": self.value}
        if self.note:
            out["note"] = self.note
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out


@dataclass(frozen=True, slots=True)
class SheetSection:
    """A titled group of values (or, with ``columns``, a table of ``rows``)."""

    key: str
    title: str
    kind: SectionKind
    values: tuple[SheetValue, ...] = ()
    columns: tuple[str, ...] = ()
    rows: tuple[tuple[Cell, ...], ...] = ()
    note: str = ""

    def __post_init__(self) -> None:
        if self.kind not in SECTION_KINDS:
            raise ValueError(f"section kind {self.kind!r} is not one of {', '.join(SECTION_KINDS)}")
        object.__setattr__(self, "values", tuple(self.values))
        object.__setattr__(self, "columns", tuple(self.columns))
        rows = tuple(tuple(r) for r in self.rows)
        for r in rows:
            if len(r) != len(self.columns):
                raise ValueError(f"section {self.key!r}: a row has {len(r)} cells for {len(self.columns)} columns")
            for c in r:
                if not isinstance(c, (str, int, float, bool, type(None))):
                    raise TypeError(f"section {self.key!r}: a cell is a {type(c).__name__}, not a plain value")
        object.__setattr__(self, "rows", rows)

    @property
    def is_table(self) -> bool:
        """True when the section is a table (it has columns)."""
        return bool(self.columns)

    @property
    def empty(self) -> bool:
        """True when the section has nothing to show."""
        return not self.values and not self.rows

    def get(self, key: str) -> SheetValue | None:
        """The value with this key, or None."""
        return next((v for v in self.values if v.key == key), None)

    def to_json(self) -> dict[str, Any]:
        """The section as JSON."""
        out: dict[str, Any] = {"key": self.key, "title": self.title, "kind": self.kind}
        if self.columns:
            out["columns"] = list(self.columns)
            out["rows"] = [list(r) for r in self.rows]
        else:
            out["values"] = [v.to_json() for v in self.values]
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True, slots=True)
class Sheet:
    """A whole character sheet: name, sections in reading order, and the rules it breaks."""

    system: str
    name: str
    sections: tuple[SheetSection, ...]
    problems: tuple[Problem, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "sections", tuple(self.sections))
        object.__setattr__(self, "problems", tuple(self.problems))
        keys = [s.key for s in self.sections]
        if len(set(keys)) != len(keys):
            raise ValueError(f"sheet sections repeat a key: {keys}")

    @property
    def legal(self) -> bool:
        """True when the character breaks no creation rule."""
        return not self.problems

    def section(self, key: str) -> SheetSection | None:
        """The section with this key, or None."""
        return next((s for s in self.sections if s.key == key), None)

    def of_kind(self, kind: str) -> list[SheetSection]:
        """The sections of one kind ("stats", "resources" ...)."""
        return [s for s in self.sections if s.kind == kind]

    def to_json(self) -> dict[str, Any]:
        """The sheet as JSON: system, name, legal, sections and problems."""
        return {
            "system": self.system,
            "name": self.name,
            "legal": self.legal,
            "problems": [{"where": p.where, "message": p.message, "rule": p.rule} for p in self.problems],
            "sections": [s.to_json() for s in self.sections],
        }


def value(label: str, v: Cell, *, key: str = "", note: str = "", maximum: int | float | None = None) -> SheetValue:
    """Shorthand for :class:`SheetValue`."""
    return SheetValue(label, v, key=key, note=note, maximum=maximum)


def section(
    key: str,
    title: str,
    kind: SectionKind,
    values: Iterable[SheetValue] = (),
    *,
    columns: Iterable[str] = (),
    rows: Iterable[Iterable[Cell]] = (),
    note: str = "",
) -> SheetSection:
    """Shorthand for :class:`SheetSection` from any iterables."""
    return SheetSection(
        key, title, kind, tuple(values), columns=tuple(columns), rows=tuple(tuple(r) for r in rows), note=note
    )


def _slug(text: str) -> str:
    out = "".join(ch.lower() if ch.isalnum() else "_" for ch in text)
    while "__" in out:
        out = out.replace("__", "_")
    return out.strip("_") or "value"


def _text(v: Any) -> str:
    if v is None:
        return "—"
    if v is True:
        return "yes"
    if v is False:
        return "no"
    return str(v)
