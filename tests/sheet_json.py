"""Reading a structured sheet's JSON (``storymaster SYSTEM sheet --json``) in tests."""

from __future__ import annotations

from typing import Any

__all__ = ["rows_of", "section_of", "value_of", "values_of"]


def section_of(data: dict[str, Any], key: str) -> dict[str, Any]:
    """The section ``key`` of a sheet's JSON (a KeyError naming the sections there are, if none)."""
    for sec in data["sections"]:
        if sec["key"] == key:
            return sec
    raise KeyError(f"no section {key!r}; the sheet has {[s['key'] for s in data['sections']]}")


def values_of(data: dict[str, Any], key: str) -> dict[str, Any]:
    """A values section as {value key: value}."""
    return {v["key"]: v["value"] for v in section_of(data, key)["values"]}


def value_of(data: dict[str, Any], key: str, value: str) -> Any:
    return values_of(data, key)[value]


def rows_of(data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """A table section as a list of {column: cell}."""
    sec = section_of(data, key)
    return [dict(zip(sec["columns"], row, strict=True)) for row in sec["rows"]]
