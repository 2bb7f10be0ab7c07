"""The character builder's checks and the sheet's rows: generic over a system's pydantic model.

``check_sheet`` parses the sheet and reads it through the rule-system protocol only
(``coerce_character``, then ``sheet``: the same creation rules the API applies), with the
sheet's resources and derived values as running totals. No system is named here.
"""

from __future__ import annotations

from typing import Any

import yaml
from pydantic import BaseModel

from ... import safe_yaml
from ...errors import RulesInputError, StorymasterError
from ...rules import Sheet
from .common import TEMPLATES


def starter_sheet(system: Any) -> str:
    """A sheet to start from: the system's example character, or a skeleton from its model."""
    path = TEMPLATES / "starters" / f"{system.name}.yaml"
    if path.exists():
        lines = [ln for ln in path.read_text().splitlines() if not ln.startswith("system:")]
        return "\n".join(lines).strip() + "\n"
    fields = {
        name: (f.default if f.default is not None and not callable(f.default) else "")
        for name, f in system.character_model.model_fields.items()
    }
    try:
        return yaml.safe_dump(fields, sort_keys=False)
    except yaml.YAMLError:
        return "name: \n"


def field_help(system: Any) -> list[dict[str, Any]]:
    """The sheet's top-level fields from the system's model: name, whether required, type, description."""
    out = []
    for name, f in system.character_model.model_fields.items():
        ann = f.annotation
        kind = getattr(ann, "__name__", None) or str(ann).replace("typing.", "")
        out.append({"name": name, "required": f.is_required(), "type": kind, "help": f.description or ""})
    return out


def _house_rules(system: Any, house_rules: Any) -> Any:
    """The campaign's house rules as the system's model (the book's, if they no longer validate)."""
    try:
        return system.coerce_house_rules(house_rules or {})
    except StorymasterError:
        return system.coerce_house_rules(None)


def running_totals(sheet: Sheet) -> list[tuple[str, str]]:
    """What the builder shows as it goes: the sheet's resources, condition and derived values, as text."""
    out = []
    for sec in sheet.sections:
        if sec.kind not in ("resources", "condition", "derived") or sec.is_table:
            continue
        for v in sec.values:
            out.append((v.label, v.text + (f" ({v.note})" if v.note else "")))
    return out


def _bad(where: str, message: str) -> dict[str, Any]:
    return {"ok": False, "problems": [{"where": where, "message": message}], "totals": [], "name": ""}


def check_sheet(system: Any, text: str | dict[str, Any], house_rules: dict[str, Any]) -> dict[str, Any]:
    """Parse and check a sheet: ``{ok, problems: [{where, message}], totals: [[label, value]], name}``."""
    try:
        data = dict(text) if isinstance(text, dict) else safe_yaml.load(text) if text.strip() else {}
    except (yaml.YAMLError, RecursionError) as exc:
        return _bad("sheet", "not valid YAML: " + (str(exc).splitlines() or ["too deeply nested"])[0])
    if not isinstance(data, dict):
        return _bad("sheet", "a sheet is a mapping of field: value")
    data.pop("system", None)
    hr = _house_rules(system, house_rules)
    try:
        model = system.coerce_character(data, source="sheet")
    except RulesInputError as exc:
        found = [{"where": p.where, "message": p.message} for p in exc.problems[:20]]
        out = _bad(exc.where, exc.message)
        out["problems"] = found or out["problems"]
        out["name"] = str(data.get("name") or "")
        return out
    try:
        sheet = system.sheet(model, hr)
    except Exception as exc:  # a system's bug must not take the builder down
        return {
            "ok": False,
            "problems": [{"where": "", "message": f"the {system.title} rules could not check this sheet: {exc}"}],
            "totals": [],
            "name": str(getattr(model, "name", "") or ""),
        }
    problems = [{"where": p.where, "message": p.message + (f" ({p.rule})" if p.rule else "")} for p in sheet.problems]
    return {
        "ok": not problems,
        "problems": problems,
        "totals": [list(t) for t in running_totals(sheet)],
        "name": sheet.name,
    }


def sheet_view(system: Any, sheet: dict[str, Any], house_rules: dict[str, Any]) -> tuple[Sheet | None, str]:
    """The character's structured sheet (or None) and, when there is none, why."""
    try:
        return system.sheet({k: v for k, v in sheet.items() if k != "system"}, _house_rules(system, house_rules)), ""
    except StorymasterError as exc:
        return None, exc.message
    except Exception as exc:  # a system's bug: the page still shows the sheet as written
        return None, f"the {system.title} rules could not read this sheet ({type(exc).__name__})"


def sheet_rows(sheet: dict[str, Any]) -> list[tuple[str, Any]]:
    """The sheet as written: its fields as (label, value) rows."""
    return [(k.replace("_", " ").capitalize(), v) for k, v in sheet.items() if k not in ("name", "system")]


__all__ = ["check_sheet", "field_help", "running_totals", "sheet_rows", "sheet_view", "starter_sheet"]


# ---------------------------------------------------------------- the builder's form, generic over the model

import types  # noqa: E402
from typing import Literal, Union, get_args, get_origin  # noqa: E402


def _kind(ann: Any) -> tuple[str, list[str] | None, bool] | None:
    """(kind, options, optional) for a field a form control can hold, else None."""
    origin, args = get_origin(ann), get_args(ann)
    if ann is str:
        return ("text", None, False)
    if ann is int:
        return ("number", None, False)
    if ann is bool:
        return ("bool", None, False)
    if origin is Literal:
        return ("choice", [str(a) for a in args], False)
    if origin in (Union, types.UnionType) and set(args) == {int, str}:
        return ("numtext", None, False)
    if origin in (Union, types.UnionType) and type(None) in args and len(args) == 2:
        inner = _kind(next(a for a in args if a is not type(None)))
        if inner and inner[0] in ("text", "number", "choice", "numtext"):
            return (inner[0], inner[1], True)
    return None


def _default(f: Any) -> Any:
    if f.is_required():
        return None
    try:
        return f.get_default(call_default_factory=True)
    except Exception:
        return None


def _label(name: str) -> str:
    return name.replace("_", " ").capitalize()


def form_fields(system: Any) -> list[dict[str, Any]]:
    """The model's fields a form can show: simple ones, and groups of simple ones (stats and such)."""
    out: list[dict[str, Any]] = []
    for name, f in system.character_model.model_fields.items():
        if name == "system":
            continue
        kind = _kind(f.annotation)
        if kind:
            out.append(
                {
                    "name": name,
                    "label": _label(name),
                    "kind": kind[0],
                    "options": kind[1],
                    "optional": kind[2],
                    "required": f.is_required(),
                    "help": f.description or "",
                    "default": _default(f),
                }
            )
            continue
        ann = f.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            subs = []
            for sname, sf in ann.model_fields.items():
                k = _kind(sf.annotation)
                if not k:
                    subs = []
                    break
                subs.append(
                    {
                        "name": f"{name}.{sname}",
                        "label": _label(sname),
                        "kind": k[0],
                        "options": k[1],
                        "optional": k[2],
                        "required": sf.is_required(),
                        "help": sf.description or "",
                        "default": _default(sf),
                    }
                )
            if subs:
                out.append(
                    {"name": name, "label": _label(name), "kind": "group", "fields": subs, "help": f.description or ""}
                )
    return out


def _simple_names(fields: list[dict[str, Any]]) -> set[str]:
    return {f["name"] for f in fields}


def split_sheet(system: Any, sheet: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """A sheet as the builder shows it: form values by dotted name, and the rest as YAML."""
    fields = form_fields(system)
    values: dict[str, Any] = {}
    rest = {k: v for k, v in sheet.items() if k not in _simple_names(fields) and k != "system"}
    for f in fields:
        if f["kind"] == "group":
            sub = sheet.get(f["name"]) or {}
            for s in f["fields"]:
                key = s["name"].split(".", 1)[1]
                values[s["name"]] = sub[key] if isinstance(sub, dict) and key in sub else s["default"]
        else:
            values[f["name"]] = sheet[f["name"]] if f["name"] in sheet else f["default"]
    text = yaml.safe_dump(rest, sort_keys=False, allow_unicode=True) if rest else ""
    return values, text


def _coerce(f: dict[str, Any], raw: Any) -> tuple[bool, Any]:
    """(present, value) for one control's submitted value."""
    if f["kind"] == "bool":
        return True, raw in ("on", "true", "1", True)
    text = "" if raw is None else str(raw).strip()
    if text == "":
        if f["kind"] == "text" and not f["optional"]:
            return True, ""
        return False, None  # leave it to the model's default (or its "required" message)
    if f["kind"] in ("number", "numtext"):
        try:
            return True, int(text)
        except ValueError:
            return True, text  # the model names the field and says it wants a number (or takes the word)
    return True, text


def merge_form(system: Any, form: Any) -> tuple[dict[str, Any], dict[str, Any], str, str]:
    """Read the builder's form: (sheet, form values, the YAML text, a YAML problem or "")."""
    fields = form_fields(system)
    text = str(form.get("sheet") or "")
    problem = ""
    try:
        rest = safe_yaml.load(text) if text.strip() else {}
    except (yaml.YAMLError, RecursionError) as exc:
        rest, problem = (
            {},
            "the lists and details are not valid YAML: " + (str(exc).splitlines() or ["too deeply nested"])[0],
        )
    if rest is None:
        rest = {}
    if not isinstance(rest, dict):
        rest, problem = {}, "the lists and details are a mapping of field: value"
    sheet = {k: v for k, v in rest.items() if k != "system"}
    values: dict[str, Any] = {}
    for f in fields:
        if f["kind"] == "group":
            sub = dict(sheet.get(f["name"]) or {}) if isinstance(sheet.get(f["name"]), dict) else {}
            for s in f["fields"]:
                raw = form.get(s["name"])
                values[s["name"]] = raw
                present, value = _coerce(s, raw)
                if present:
                    sub[s["name"].split(".", 1)[1]] = value
            if sub:
                sheet[f["name"]] = sub
        else:
            raw = form.get(f["name"])
            values[f["name"]] = raw
            present, value = _coerce(f, raw)
            if present:
                sheet[f["name"]] = value
    return sheet, values, text, problem


def check_controls(model: type[BaseModel]) -> list[dict[str, Any]]:
    """Form controls for a check's simple fields (the composer); the rest goes in its YAML box."""
    out = []
    for name, f in model.model_fields.items():
        kind = _kind(f.annotation)
        if not kind or (kind[0] == "choice" and len(kind[1] or ()) == 1):
            continue  # complex, or the check's own fixed tag
        out.append(
            {
                "name": name,
                "label": _label(name),
                "kind": kind[0],
                "options": kind[1],
                "required": f.is_required(),
                "help": f.description or "",
                "default": _default(f),
            }
        )
    return out


def read_check_controls(model: type[BaseModel], form: Any, prefix: str) -> dict[str, Any]:
    """The chosen check's control values from the form (empty ones left to the model's defaults)."""
    out: dict[str, Any] = {}
    for c in check_controls(model):
        raw = form.get(f"{prefix}{c['name']}")
        text = "" if raw is None else str(raw).strip()
        if text == "":
            continue
        if c["kind"] == "bool":
            out[c["name"]] = text in ("yes", "on", "true")
        elif c["kind"] in ("number", "numtext"):
            try:
                out[c["name"]] = int(text)
            except ValueError:
                out[c["name"]] = text
        else:
            out[c["name"]] = text
    return out
