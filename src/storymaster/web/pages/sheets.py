"""The character builder's checks and the sheet's rows: generic over a system's pydantic model.

``check_sheet`` parses the sheet and reads it through the rule-system protocol only
(``coerce_character``, then ``sheet``: the same creation rules the API applies), with the
sheet's resources and derived values as running totals. No system is named here.
"""

from __future__ import annotations

from typing import Any

import re

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


# ---------------------------------------------------------------- the builder: rows, not YAML (forms.py)

from . import forms  # noqa: E402

_PLAIN = (
    (re.compile(r"^Field required$"), "this is required"),
    (re.compile(r"^Input should be a valid integer.*"), "write a whole number here"),
    (re.compile(r"^Input should be a valid number.*"), "write a number here"),
    (re.compile(r"^Input should be a valid dictionary.*"), "fill in this row"),
    (re.compile(r"^Input should be (.*)$"), r"choose \1"),
    (re.compile(r"^Extra inputs are not permitted$"), "this sheet has no such field"),
    (re.compile(r"^Value error, "), ""),
    (re.compile(r"^Input should be greater than or equal to (.*)$"), r"at least \1"),
    (re.compile(r"^Input should be less than or equal to (.*)$"), r"at most \1"),
)


def plain_message(message: str) -> str:
    """Pydantic's wording in plain words ("Field required" -> "this is required")."""
    for pattern, words in _PLAIN:
        if pattern.search(message):
            return pattern.sub(words, message)
    return message


def kept_fields(system: Any, is_gm: bool) -> tuple[str, ...]:
    """The sheet's fields the builder leaves to the table for this writer (all of the system's for a player)."""
    return () if is_gm else tuple(getattr(system, "table_kept", ()) or ())


def read_builder(
    system: Any, form: Any, *, is_gm: bool, stored: dict[str, Any] | None = None
) -> tuple[dict[str, Any], dict[str, Any], dict[str, str], str]:
    """The builder's form: (the sheet to check, the sheet to show, row names as submitted, the row op or "").

    A row op (``add:skills``, ``remove:skills.2``: the no-script buttons) changes the sheet shown;
    the sheet checked is the one before an added (still empty) row. A player's form holds no field
    the table keeps: the stored character's values stay (the model's defaults for a new one).
    """
    skip = kept_fields(system, is_gm)
    data, renames = forms.read_named(system.character_model, form, prefix="f", skip=skip)
    if stored:
        data.update({k: stored[k] for k in skip if k in stored})
    op = str(form.get("op") or "")
    if not op:
        return data, data, renames, ""
    import copy

    shown = forms.apply_op(copy.deepcopy(data), op)
    return (data if op.startswith("add:") else shown), shown, renames, op


def builder_view(system: Any, shown: dict[str, Any], report: dict[str, Any], *, is_gm: bool) -> dict[str, Any]:
    """What builder.html needs: the controls, each problem at its field, the fields the table keeps."""
    skip = kept_fields(system, is_gm)
    nodes = forms.controls(system.character_model, shown, prefix="f", skip=skip)
    problems = [{**p, "message": plain_message(str(p.get("message") or ""))} for p in report.get("problems", [])]
    by_name, listed = forms.locate(problems, nodes)
    return {
        "nodes": nodes,
        "field_problems": by_name,
        "report": {**report, "problems": listed},
        "kept": [forms.label_of(k).lower() for k in skip],
    }


def start_data(system: Any) -> dict[str, Any]:
    """The builder's first sheet: the system's example character (its model's JSON), or the model's defaults."""
    text = starter_sheet(system)
    try:
        data = safe_yaml.load(text) or {}
        return dict(system.coerce_character(data).model_dump(mode="json"))
    except (StorymasterError, yaml.YAMLError, TypeError, ValueError):
        return dict(data) if isinstance(data, dict) else {}


# ---------------------------------------------------------------- the composer's check: controls, not YAML


def _model_typed(ann: Any) -> bool:
    shape = forms._shape(ann)
    return shape["kind"] == "group" or (shape["kind"] == "rows" and shape["item"]["kind"] == "group")


def opponent_value(kind: Any, entry: Any) -> Any:
    """The opposition a cast member's catalogue entry gives a kind's ``opponent`` field (their own side of the
    same kind of check: their Pool, Side or ability roll), or None. Only for opposition that is a whole side of
    the check (a model); a bare number (a defence value, a bonus) is typed in, since the entry's number may be
    the wrong one (an attack value is not a parry)."""
    if not kind.opponent or entry.check != kind.name:
        return None
    target = kind.model.model_fields[kind.opponent].annotation
    if not _model_typed(target):
        return None
    for name, val in entry.defaults.items():
        f = kind.model.model_fields.get(name)
        if f is not None and name != kind.opponent and f.annotation == target:
            return forms._plain(val)
    return None


def check_forms(
    system: Any,
    form: Any = None,
    *,
    opponents: list[tuple[dict[str, Any], list[Any]]] | None = None,
    problem: dict[str, Any] | None = None,
    values: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Each check kind's controls for the composer (holding what ``form`` sent), and whom it can be made against.

    ``opponents`` are the scene's characters with their catalogue entries; ``problem`` a refused check's
    ``{kind, where, message}``, shown at its field; ``values`` a kind's parameters to show instead of the form's
    (after a row was added or removed).
    """
    out = []
    for k in system.check_kinds:
        prefix = f"chk.{k.name}"
        if values and values.get("kind") == k.name:
            shown = values["params"]
        else:
            shown = forms.read(k.model, form, prefix=prefix) if form is not None else {}
        nodes = forms.controls(k.model, shown, prefix=prefix)
        found: dict[str, list[str]] = {}
        if problem and problem.get("kind") == k.name:
            found, _ = forms.locate([problem], nodes, prefix=prefix)
        against = []
        if k.opponent and _model_typed(k.model.model_fields[k.opponent].annotation):
            for ch, entries in opponents or []:
                mine = [e for e in entries if e.check == k.name and opponent_value(k, e) is not None]
                if mine:
                    against.append((ch, mine))
        out.append(
            {
                "name": k.name,
                "title": k.title,
                "summary": k.summary,
                "nodes": nodes,
                "problems": found,
                "opponent": k.opponent,
                "opponent_label": forms.label_of(k.opponent or ""),
                "opponents": against,
            }
        )
    return out


def read_check(system: Any, form: Any, entry: Any = None, opponent: Any = None) -> tuple[str, dict[str, Any]]:
    """(kind name, parameters) from the composer: the chosen kind's controls, less what the character's entry
    fills in from the sheet, with the opposition from a cast member's entry when one was chosen."""
    name = entry.check if entry is not None else str(form.get("check_type") or "")
    kind = system.check_kind(name)
    skip = list(entry.defaults) if entry is not None else []
    if opponent is not None and kind.opponent:
        skip.append(kind.opponent)
    params = forms.read(kind.model, form, prefix=f"chk.{kind.name}", skip=skip)
    if opponent is not None and kind.opponent:
        value = opponent_value(kind, opponent)
        if value is not None:
            params[kind.opponent] = value
    return kind.name, params


# ---------------------------------------------------------------- the sheet's history (from the campaign's log)

_WHAT = {
    "character.created": "made the character",
    "character.updated": "changed the sheet",
    "character.retired": "retired the character",
}


def _leaves(value: Any, path: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(_leaves(v, f"{path}.{k}" if path else str(k)))
        return out
    if isinstance(value, list):
        if all(not isinstance(v, (dict, list)) for v in value):
            return {path: ", ".join(str(forms_cell(v)) for v in value) or "none"}
        out = {}
        for i, v in enumerate(value):
            out.update(_leaves(v, f"{path}.{i + 1}"))
        return out
    return {path: forms_cell(value)}


def forms_cell(v: Any) -> str:
    """A value as a person reads it (yes / no / — for True / False / None)."""
    if v is None:
        return "—"
    if v is True:
        return "yes"
    if v is False:
        return "no"
    return str(v)


def sheet_changes(before: dict[str, Any], after: dict[str, Any], limit: int = 6) -> list[str]:
    """What changed between two versions of a sheet, in words ("attributes strength: 3 → 4")."""
    a, b = _leaves(before), _leaves(after)
    out = []
    for key in [*a, *(k for k in b if k not in a)]:
        if a.get(key) != b.get(key):
            label = key.replace("_", " ").replace(".", " ")
            out.append(f"{label}: {a.get(key, '—')} → {b.get(key, '—')}")
    if len(out) > limit:
        out = [*out[:limit], f"and {len(out) - limit} more"]
    return out


def sheet_history(entries: list[Any], char_id: int, names: dict[int, str], *, is_gm: bool) -> list[dict[str, Any]]:
    """The character's entries in the campaign's log, newest first: when, who, what, and what changed.

    Entries for the GM only (``audience`` set) are left out for everyone else; entries another
    workstream adds about the character (``body.character``) show with their ``reason``.
    """
    out = []
    sheet: dict[str, Any] = {}
    for e in entries:
        body = e.body if isinstance(e.body, dict) else dict(e.body or {})
        mine = (e.kind == "character.created" and e.seq == char_id) or body.get("character") == char_id
        if not mine:
            continue
        if e.audience and not is_gm:
            continue
        changes: list[str] = []
        if isinstance(body.get("sheet"), dict):
            if e.kind != "character.created":
                changes = sheet_changes(sheet, body["sheet"])
            sheet = body["sheet"]
        why = str(body.get("reason") or body.get("why") or "")
        what = _WHAT.get(e.kind) or e.kind.split(".", 1)[-1].replace("_", " ").replace(".", " ")
        out.append(
            {
                "at": str(e.at),
                "who": names.get(e.actor, "the table") if e.actor else "the table",
                "what": what + (f" ({why})" if why else ""),
                "changes": changes,
            }
        )
    return out[::-1]


def apply_check_op(system: Any, form: Any, op: str) -> dict[str, Any] | None:
    """A check's row added or removed without the script (``add:<kind>.<field>``, ``remove:<kind>.<field>.<n>``):
    ``{kind, params}`` to show, or None for an op naming no kind of the system."""
    import copy

    verb, _, path = op.partition(":")
    name, _, rest = path.partition(".")
    if name not in system.check_types or not rest:
        return None
    kind = system.check_kind(name)
    params = forms.read(kind.model, form, prefix=f"chk.{kind.name}")
    return {"kind": kind.name, "params": forms.apply_op(copy.deepcopy(params), f"{verb}:{rest}")}
