"""Finding rule systems: Python entry points in the ``storymaster.systems`` group.

A plugin that fails to load does not take the others down: it is reported by
:func:`load_failures` (and ``storymaster systems``) with the reason.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import EntryPoint, entry_points

from ..errors import PluginError
from .protocol import RuleSystem

__all__ = ["SYSTEMS_GROUP", "all_systems", "entry_point", "get_system", "load_failures"]

SYSTEMS_GROUP = "storymaster.systems"


#: what a system must have: the protocol's attributes and methods
PROTOCOL_MEMBERS: tuple[str, ...] = (
    "name",
    "title",
    "version",
    "character_model",
    "house_rules_model",
    "check_kinds",
    "check_types",
    "combat",
    "coerce_house_rules",
    "coerce_character",
    "validate_character",
    "sheet",
    "check_kind",
    "checks_for",
    "make_check",
    "resolve",
    "odds",
    "advance",
)


def missing_members(system: object) -> list[str]:
    """The protocol members ``system`` lacks (empty when it has them all)."""
    return [m for m in PROTOCOL_MEMBERS if not hasattr(system, m)]


@cache
def _load() -> tuple[dict[str, RuleSystem], dict[str, str], dict[str, EntryPoint]]:
    found: dict[str, RuleSystem] = {}
    failed: dict[str, str] = {}
    points: dict[str, EntryPoint] = {}
    for ep in sorted(entry_points(group=SYSTEMS_GROUP), key=lambda e: e.name):
        try:
            system = ep.load()
        except Exception as exc:  # a broken plugin is reported, not fatal
            failed[ep.name] = f"{type(exc).__name__}: {exc}"
            continue
        if not isinstance(system, RuleSystem):
            missing = ", ".join(missing_members(system))
            failed[ep.name] = (
                f"{ep.value} does not satisfy the RuleSystem protocol (missing: {missing});"
                " build it on storymaster.rules.RuleSystemBase"
            )
            continue
        found[ep.name] = system
        points[ep.name] = ep
    return found, failed, points


def all_systems() -> dict[str, RuleSystem]:
    """Every rule system that loaded, by name."""
    return dict(_load()[0])


def load_failures() -> dict[str, str]:
    """Registered systems that failed to load, with the reason."""
    return dict(_load()[1])


def entry_point(name: str) -> EntryPoint:
    """The entry point the system called ``name`` loaded from (how a system travels to another process)."""
    get_system(name)  # the same error when there is none
    return _load()[2][name]


def get_system(name: str) -> RuleSystem:
    """The installed rule system called ``name`` (:class:`PluginError` naming the installed ones if none)."""
    systems, failed, _points = _load()
    if name in systems:
        return systems[name]
    if name in failed:
        raise PluginError(f"rule system {name!r} failed to load: {failed[name]}")
    known = ", ".join(sorted(systems)) or "none"
    raise PluginError(f"no rule system called {name!r}", hint=f"installed systems: {known}")
