"""The jobs the compute pool runs (``web/work.py``): module-level functions of picklable arguments.

A rule system travels by its entry-point name and is loaded in the worker by :func:`load_system`;
the fork server imports this module (and through it the installed systems) once, so a fresh
worker has them ready.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import yaml

from .. import safe_yaml
from ..errors import PluginError
from ..play.errors import Invalid
from ..rules import RuleSystem, get_system, registry

__all__ = [
    "fight_forecast",
    "inline_odds",
    "load_system",
    "odds_preview",
    "parse_document",
    "sheet_check",
    "system_ref",
    "warm",
]


#: systems loaded in this worker, by (entry-point name, value)
_LOADED: dict[tuple[str, str], RuleSystem] = {}


def system_ref(name: str) -> tuple[str, str]:
    """How the installed system ``name`` travels to a worker: its entry point's name and value
    (``package.module:OBJECT``), so plugin and test systems load there as they did here."""
    ep = registry.entry_point(name)
    return ep.name, ep.value


def load_system(ref: tuple[str, str] | str) -> RuleSystem:
    """The rule system an entry point names (loaded once per worker); a bare name is looked up in the registry."""
    if isinstance(ref, str):
        return get_system(ref)
    if ref not in _LOADED:
        from importlib.metadata import EntryPoint

        system = EntryPoint(name=ref[0], value=ref[1], group=registry.SYSTEMS_GROUP).load()
        if not isinstance(system, RuleSystem):
            raise PluginError(f"the entry point {ref[0]} = {ref[1]} is not a rule system")
        _LOADED[ref] = system
    return _LOADED[ref]


class TooLarge(Invalid):
    code = "too-large"


def parse_document(text: str, what: str, max_bytes: int) -> Any:
    """YAML (or JSON) a member typed on a page, as plain data: the safe loader (no aliases or anchors,
    bounded nodes and depth), and refused when what it stands for is larger than ``max_bytes`` written out."""
    if not text.strip():
        return {}
    try:
        data = safe_yaml.load(text)
    except (yaml.YAMLError, RecursionError) as exc:
        raise Invalid(
            f"the {what} is not valid YAML or JSON", hint=(str(exc).splitlines() or ["too deeply nested"])[0]
        ) from None
    try:
        size = len(json.dumps(data, default=str))
    except (TypeError, ValueError, RecursionError):
        raise Invalid(f"the {what} holds values that are not plain data") from None
    if size > max_bytes:
        raise TooLarge(
            f"the {what} stands for {size:,} bytes written out, more than the {max_bytes:,} the table accepts",
            hint="write it out shorter",
        )
    return data


def odds_preview(
    system: tuple[str, str], request: dict[str, Any], house_rules: Mapping[str, Any], fixed: Any = None
) -> dict[str, Any]:
    """The exact odds of a roll or check, with its chart (``play.rolling.preview``); ``fixed`` is the
    character's penalties, read by the server under the scene's lock: (adjusted check, penalties)."""
    from ..play.rolling import preview

    return preview(
        request,
        system=load_system(system),
        house_rules=house_rules,
        penalise=(lambda _ch, _check: fixed) if fixed else None,
    )


def inline_odds(text: str) -> list[dict[str, Any]]:
    """The exact odds of each inline roll in a draft's text (``play.rolling.inline_odds``)."""
    from ..play.rolling import inline_odds as odds_of

    return odds_of(text)  # type: ignore[no-any-return]


def sheet_check(system: tuple[str, str], sheet: dict[str, Any], house_rules: dict[str, Any]) -> dict[str, Any]:
    """The builder's report on a sheet (``pages.sheets.check_sheet``)."""
    from .pages.sheets import check_sheet

    return check_sheet(load_system(system), sheet, house_rules)


def fight_forecast(
    system: tuple[str, str],
    models: list[list[Any]],
    house_rules: dict[str, Any],
    options: dict[str, Any],
    state: dict[str, Any],
    method: str,
    samples: int | None,
) -> dict[str, Any]:
    """The system's whole-fight forecast from a stored fight: ``method`` "simulate" (``samples`` fights,
    with 95% intervals) or "exact"; ``{"problem": ...}`` when the system cannot give one."""
    from ..errors import StorymasterError

    rules = load_system(system)
    fn = getattr(rules, "forecast", None)
    if fn is None:
        return {"problem": f"the {rules.title} rules have no fight forecast"}
    try:
        fresh = rules.combat.start(
            models, house_rules=rules.house_rules_model.model_validate(house_rules), options=options
        )
        now = type(fresh).model_validate(state)
        kwargs: dict[str, Any] = {"method": method, "seed": 1}
        if samples is not None:
            kwargs["samples"] = samples
        result = fn(now, **kwargs)
    except StorymasterError as exc:
        return {"problem": exc.message, "hint": exc.hint or ""}
    except (ValueError, TypeError) as exc:
        return {"problem": (str(exc).splitlines() or [type(exc).__name__])[0]}
    if not hasattr(result, "to_json"):
        return {"problem": "the forecast gave no figures"}
    out: dict[str, Any] = result.to_json()
    return out


def warm() -> None:
    """Load every installed system (the fork server runs this once; each worker then starts with them)."""
    from ..rules import all_systems

    all_systems()
