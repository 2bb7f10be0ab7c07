"""The builder, the sheet page and the composer's check, generic over a system: no system is named here.

``check_sheet`` reads a sheet through the rule-system protocol only (``coerce_character``,
then ``sheet``: the same creation rules the API applies), with the sheet's resources and
derived values as running totals; the builder's and the composer's controls come from the
models (``forms``); the sheet page's history from the campaign's log.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import yaml

from ... import safe_yaml
from ...errors import RulesInputError, StorymasterError
from ...rules import Sheet
from . import forms
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


__all__ = [
    "apply_check_op",
    "builder_view",
    "check_forms",
    "check_sheet",
    "opponent_value",
    "read_builder",
    "read_check",
    "running_totals",
    "sheet_history",
    "sheet_rows",
    "sheet_view",
    "start_data",
    "starter_sheet",
]


# ---------------------------------------------------------------- the builder: rows, not YAML (forms.py)


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


def _may_read(audience: Any, viewer: int, is_gm: bool) -> bool:
    if is_gm or audience in (None, "all"):
        return True
    return isinstance(audience, (list, tuple)) and viewer in audience


def sheet_history(
    entries: list[Any], char_id: int, names: dict[int, str], *, is_gm: bool, viewer: int = 0
) -> list[dict[str, Any]]:
    """The character's entries in the campaign's log, newest first: when, who, what, and what changed.

    Entries the viewer may not read (the GM's only, or for other readers) are left out; entries another
    workstream adds about the character (``body.character``) show with their ``reason``.
    """
    out = []
    sheet: dict[str, Any] = {}
    for e in entries:
        body = e.body if isinstance(e.body, dict) else dict(e.body or {})
        mine = (e.kind == "character.created" and e.seq == char_id) or body.get("character") == char_id
        if not mine:
            continue
        if not _may_read(e.audience, viewer, is_gm):
            continue
        changes: list[str] = []
        if isinstance(body.get("sheet"), dict):
            if e.kind != "character.created":
                changes = sheet_changes(sheet, body["sheet"])
            sheet = body["sheet"]
        why = body.get("reason") or body.get("why") or ""
        if isinstance(why, dict):  # the table's reasons: {"kind": "fight" | "gm" | "advance" ..., "reason": ...}
            why = why.get("reason") or {"gm": "the GM", "fight": "a fight", "advance": "advancement"}.get(
                str(why.get("kind") or ""), str(why.get("kind") or "")
            )
        why = str(why)
        text = body.get("text") if isinstance(body.get("text"), str) else ""
        events = [str(x) for x in body.get("events") or [] if isinstance(x, str)]
        what = text or _WHAT.get(e.kind) or e.kind.split(".", 1)[-1].replace("_", " ").replace(".", " ")
        if events:
            changes = [*events, *changes]
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
    verb, _, path = op.partition(":")
    name, _, rest = path.partition(".")
    if name not in system.check_types or not rest:
        return None
    kind = system.check_kind(name)
    params = forms.read(kind.model, form, prefix=f"chk.{kind.name}")
    return {"kind": kind.name, "params": forms.apply_op(copy.deepcopy(params), f"{verb}:{rest}")}


# ---------------------------------------------------------------- the condition (the table's, from play.living)


def _section_of(data: dict[str, Any]) -> Any:
    """A sheet section from its JSON (the table's condition view sends them so)."""
    from ...rules import section, value

    values = [
        value(
            str(v.get("label") or ""),
            v.get("value"),
            key=str(v.get("key") or ""),
            note=str(v.get("note") or ""),
            maximum=v.get("maximum"),
        )
        for v in data.get("values") or []
    ]
    return section(
        str(data["key"]),
        str(data.get("title") or data["key"]),
        data.get("kind") or "list",
        values,
        columns=data.get("columns") or (),
        rows=data.get("rows") or (),
        note=str(data.get("note") or ""),
    )


def with_condition(sheet: Sheet, condition: dict[str, Any] | None) -> list[Any]:
    """The sheet's sections with the table's current condition in place of the sheet's own picture of it.

    The condition's sections (resources left, wounds, damage tracks: as play left them) replace the
    sheet's sections of the same key, keeping the sheet's values the condition does not hold (the CP
    budget beside the Dodges); the sheet's own condition sections (a fresh character's) give way, so the
    page never says "unhurt" while the fight says "Scratch".
    """
    if not condition:
        return list(sheet.sections)
    try:
        now = [_section_of(d) for d in condition.get("sections") or []]
    except (KeyError, TypeError, ValueError):
        return list(sheet.sections)
    said = str(condition.get("summary") or "")
    # a section that only repeats the summary the page already heads with ("Condition: unhurt") is left out
    now = [s for s in now if s.is_table or len(s.values) != 1 or s.values[0].text != said]
    by_key = {s.key: s for s in now}
    out = []
    for sec in sheet.sections:
        live = by_key.pop(sec.key, None)
        if live is not None:
            if not live.is_table and not sec.is_table:
                held = {v.label for v in live.values}
                extra = [v for v in sec.values if v.label not in held]
                live = type(live)(live.key, live.title, live.kind, (*extra, *live.values), note=live.note or sec.note)
            out.append(live)
        elif sec.kind != "condition":
            out.append(sec)
    at = next((i for i, s in enumerate(out) if s.kind not in ("summary",)), len(out))
    return [*out[:at], *by_key.values(), *out[at:]]
