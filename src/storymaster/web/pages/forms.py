"""Forms from pydantic models: every field a control, every list a set of rows, never YAML.

The builder (a system's ``character_model``) and the composer (a check kind's ``model``)
both come from here, so a sixth system gets its forms without any web code: ``controls``
turns a model and its current values into a tree of controls the templates render
(``_controls.html``); ``read`` turns the submitted form back into the model's data.

A control's ``name`` is its dotted path under a prefix (``f.skills.2.rank``), the same path
a rule's :class:`~storymaster.errors.Problem` names in ``where`` (``skills.2.rank``), so a
problem is shown at the control it concerns. Lists of things are rows that can be added and
removed (a button that works without JavaScript, and a script that does it in place);
mappings are rows of name and value; fixed tuples are a row of cells.
"""

from __future__ import annotations

import re
import types
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.functional_validators import BeforeValidator, PlainValidator, WrapValidator

#: validators that let a number field take words too (Kalyr's ladder: "Fair" or 0)
_WORD_VALIDATORS = (BeforeValidator, PlainValidator, WrapValidator)

__all__ = [
    "ROW",
    "Node",
    "apply_op",
    "controls",
    "label_of",
    "locate",
    "read",
    "read_named",
    "submitted_names",
    "where_path",
]

#: the placeholder index of a row template (the script replaces it with a fresh number)
ROW = "__row__"
#: long text fields get a text area
_LONG = re.compile(r"(notes|background|description|text|story)$")
_MAX_ROWS = 200

Node = dict[str, Any]
_NONE = type(None)


def label_of(name: str) -> str:
    """``extra_flesh_wounds`` -> "Extra flesh wounds"; a book's capitals (``STR``) stay."""
    text = name.replace("_", " ").strip()
    return text if text.isupper() else text[:1].upper() + text[1:]


def _strip(ann: Any) -> tuple[Any, bool]:
    """The annotation without Annotated[...] and Optional[...]: (inner, optional)."""
    optional = False
    while True:
        origin = get_origin(ann)
        if origin is Annotated:
            ann = get_args(ann)[0]
            continue
        if origin in (Union, types.UnionType):
            args = [a for a in get_args(ann) if a is not _NONE]
            if len(args) < len(get_args(ann)):
                optional = True
            if len(args) == 1:
                ann = args[0]
                continue
        return ann, optional


def _annotated_text(ann: Any) -> bool:
    """Annotated[int, <validators>]: the model takes words too (a ladder level): a text box."""
    return get_origin(ann) is Annotated or (
        get_origin(ann) in (Union, types.UnionType) and any(get_origin(a) is Annotated for a in get_args(ann))
    )


def _shape(ann: Any) -> dict[str, Any]:
    """What kind of control an annotation needs (recursively, without values)."""
    words = _annotated_text(ann)
    inner, optional = _strip(ann)
    origin, args = get_origin(inner), get_args(inner)
    out: dict[str, Any] = {"optional": optional}
    if isinstance(inner, type) and issubclass(inner, BaseModel):
        return {**out, "kind": "group", "model": inner}
    if inner is bool:
        return {**out, "kind": "tristate" if optional else "bool"}
    if inner is int:
        return {**out, "kind": "numtext" if words else "number"}
    if inner is float:
        return {**out, "kind": "decimal"}
    if inner is str:
        return {**out, "kind": "text"}
    if origin is Literal:
        opts = [str(a) for a in args]
        return {**out, "kind": "choice", "options": opts}
    if origin in (Union, types.UnionType):
        if set(args) <= {int, str, float}:
            return {**out, "kind": "numtext"}
        return {**out, "kind": "text"}
    if origin in (list, tuple, set, frozenset, Sequence) or inner in (list, tuple):
        if origin is tuple and args and args[-1] is not Ellipsis:
            return {**out, "kind": "cells", "items": [_shape(a) for a in args]}
        item = args[0] if args else str
        return {**out, "kind": "rows", "item": _shape(item)}
    if origin in (dict, Mapping) or inner is dict:
        val = args[1] if len(args) == 2 else str
        return {**out, "kind": "mapping", "item": _shape(val)}
    return {**out, "kind": "text"}


def _field_default(f: Any) -> Any:
    if f.is_required():
        return None
    try:
        value = f.get_default(call_default_factory=True)
    except Exception:
        return None
    return _plain(value)


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in value]
    return value


def _id(name: str) -> str:
    return "f-" + re.sub(r"[^A-Za-z0-9_-]", "-", name)


def _node(shape: dict[str, Any], name: str, label: str, value: Any, *, required: bool, help: str = "") -> Node:
    """One control (and, for groups and rows, its children) with its value."""
    kind = shape["kind"]
    node: Node = {
        "kind": kind,
        "name": name,
        "id": _id(name),
        "label": label,
        "help": help,
        "required": required,
        "optional": shape["optional"],
    }
    if kind == "group":
        present = value is not None or not shape["optional"]
        node["present"] = present
        node["children"] = _model_nodes(shape["model"], name, value if isinstance(value, Mapping) else {})
    elif kind == "cells":
        vals = list(value) if isinstance(value, (list, tuple)) else []
        node["children"] = [
            _node(
                {**s, "optional": s["optional"] or shape["optional"]},
                f"{name}.{i}",
                f"{label} {i + 1}",
                vals[i] if i < len(vals) else None,
                required=not shape["optional"],
            )
            for i, s in enumerate(shape["items"])
        ]
    elif kind in ("rows", "mapping"):
        items: list[Any]
        if kind == "mapping":
            items = [{"key": k, "value": v} for k, v in value.items()] if isinstance(value, Mapping) else []
        else:
            items = list(value) if isinstance(value, (list, tuple)) else []
        node["rows"] = [_row(shape, name, str(i), item, label) for i, item in enumerate(items[:_MAX_ROWS])]
        node["template"] = _row(shape, name, ROW, None, label)
        node["item_label"] = _singular(label)
    else:
        if kind == "choice":
            node["options"] = shape["options"]
        node["value"] = value
        node["long"] = kind == "text" and bool(_LONG.search(name)) and not re.search(r"\.\d+\.", name)
    return node


def _row(shape: dict[str, Any], name: str, index: str, item: Any, label: str) -> Node:
    """One row of a list or mapping: its cells as children."""
    base = f"{name}.{index}"
    item_shape = shape["item"]
    num = "" if index == ROW else str(int(index) + 1)
    if shape["kind"] == "mapping":
        item = item or {}
        children = [
            _node({"kind": "text", "optional": False}, f"{base}.key", "Name", item.get("key"), required=True),
            _node(item_shape, f"{base}.value", "Value", item.get("value"), required=True),
        ]
    elif item_shape["kind"] == "group":
        children = _model_nodes(item_shape["model"], base, item if isinstance(item, Mapping) else {})
    else:
        children = [_node(item_shape, base, f"{_singular(label)} {num}".strip(), item, required=True)]
    return {"kind": "row", "name": base, "id": _id(base), "index": index, "children": children}


def _singular(label: str) -> str:
    low = label.lower()
    for plural, single in (("ies", "y"), ("sses", "ss"), ("s", "")):
        if low.endswith(plural) and len(low) > len(plural) + 1:
            return label[: -len(plural)] + single
    return label


def _model_nodes(
    model: type[BaseModel], prefix: str, values: Mapping[str, Any], skip: Sequence[str] = ()
) -> list[Node]:
    out = []
    for fname, f in model.model_fields.items():
        if fname in skip:
            continue
        shape = _shape(f.annotation)
        if shape["kind"] == "choice" and len(shape["options"]) == 1 and not shape["optional"]:
            continue  # the model's own fixed tag ("kind: fixed")
        if shape["kind"] == "number" and any(isinstance(m, _WORD_VALIDATORS) for m in f.metadata):
            shape = {**shape, "kind": "numtext"}  # validators that take words too (a ladder level: "Fair")
        name = f"{prefix}.{fname}" if prefix else fname
        value = values[fname] if fname in values else _field_default(f)
        out.append(
            _node(shape, name, f.title or label_of(fname), value, required=f.is_required(), help=f.description or "")
        )
    return out


def controls(
    model: type[BaseModel], values: Mapping[str, Any] | None = None, *, prefix: str = "f", skip: Sequence[str] = ()
) -> list[Node]:
    """The model's fields as controls holding ``values`` (a model's JSON, or what was submitted)."""
    return _model_nodes(model, prefix, _plain(values or {}), skip)


# ------------------------------------------------------------------------- reading a submitted form


def _get(form: Any, name: str) -> list[str]:
    if hasattr(form, "getlist"):
        return [str(x) for x in form.getlist(name)]
    v = form.get(name)
    if v is None:
        return []
    return [str(x) for x in v] if isinstance(v, list) else [str(v)]


def _indices(keys: Sequence[str], name: str) -> list[str]:
    """The row indices submitted under ``name`` (in number order; the template's placeholder left out)."""
    head = name + "."
    seen: dict[str, None] = {}
    for k in keys:
        if k.startswith(head):
            idx = k[len(head) :].split(".", 1)[0]
            if idx.isdigit():
                seen[idx] = None
    return sorted(seen, key=int)[:_MAX_ROWS]


class _Reader:
    def __init__(self, form: Any) -> None:
        self.form = form
        self.keys = list(form.keys()) if hasattr(form, "keys") else []
        #: a row's name in the data (rows numbered from 0) -> its name in the submitted form
        self.renames: dict[str, str] = {}

    def model(self, model: type[BaseModel], prefix: str, skip: Sequence[str] = ()) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for fname, f in model.model_fields.items():
            if fname in skip:
                continue
            shape = _shape(f.annotation)
            if shape["kind"] == "choice" and len(shape["options"]) == 1 and not shape["optional"]:
                continue
            name = f"{prefix}.{fname}" if prefix else fname
            present, value = self.value(shape, name, required=f.is_required())
            if present:
                out[fname] = value
        return out

    def value(self, shape: dict[str, Any], name: str, *, required: bool) -> tuple[bool, Any]:
        kind = shape["kind"]
        if kind == "group":
            if shape["optional"] and _get(self.form, f"{name}.__on") and "on" not in _get(self.form, f"{name}.__on"):
                return True, None
            sub = self.model(shape["model"], name)
            if not sub and not any(k.startswith(name + ".") for k in self.keys):
                return False, None
            return True, sub
        if kind == "cells":
            cells = [
                self.value({**s, "optional": s["optional"] or shape["optional"]}, f"{name}.{i}", required=True)
                for i, s in enumerate(shape["items"])
            ]
            if not any(p for p, _ in cells):
                return False, None
            if shape["optional"] and all(v is None for _, v in cells):
                return True, None  # none of the cells given: the optional whole is left out
            return True, [v if p else None for p, v in cells]
        if kind in ("rows", "mapping"):
            marker = _get(self.form, f"{name}.__rows")
            rows: list[Any] = []
            for idx in _indices(self.keys, name):
                base = f"{name}.{idx}"
                if "on" in _get(self.form, f"{base}.__remove"):
                    continue
                if self._blank(base):
                    continue  # an added row left empty
                if str(len(rows)) != idx:
                    self.renames[f"{name}.{len(rows)}"] = base
                if kind == "mapping":
                    _, key = self.value({"kind": "text", "optional": False}, f"{base}.key", required=True)
                    present, val = self.value(shape["item"], f"{base}.value", required=True)
                    rows.append((key, val if present else None))
                elif shape["item"]["kind"] == "group":
                    rows.append(self.model(shape["item"]["model"], base))
                else:
                    present, val = self.value(shape["item"], base, required=True)
                    rows.append(val if present else None)
            if not rows and not marker:
                return False, None
            if kind == "mapping":
                return True, {str(k or ""): v for k, v in rows}
            return True, rows
        raw = _get(self.form, name)
        if kind == "tristate":
            if not raw:
                return False, None
            return True, {"yes": True, "no": False}.get(raw[-1].strip())
        if kind == "bool":
            if not raw:
                return False, None
            return True, "on" in raw or "true" in raw or "yes" in raw
        text = raw[-1].strip() if raw else ""
        if not raw:
            return False, None
        if text == "":
            if shape["optional"]:
                return True, None
            if kind == "text" and not required:
                return True, ""
            return False, None  # the model's default, or its "required" at this field
        if kind in ("number", "numtext"):
            try:
                return True, int(text)
            except ValueError:
                return True, text  # the model says at this field that it wants a number (or takes the word)
        if kind == "decimal":
            try:
                return True, float(text)
            except ValueError:
                return True, text
        if kind == "choice" and text not in shape["options"]:
            return True, text  # the model names the choices
        return True, text

    def _blank(self, base: str) -> bool:
        head = base + "."
        vals = [
            v
            for k in self.keys
            if (k == base or k.startswith(head)) and not k.endswith(("__on", "__remove", "__rows"))
            for v in _get(self.form, k)
        ]
        return all(v.strip() == "" for v in vals)


def read(model: type[BaseModel], form: Any, *, prefix: str = "f", skip: Sequence[str] = ()) -> dict[str, Any]:
    """The model's data from a submitted form (controls left empty are left to the model's defaults)."""
    return _Reader(form).model(model, prefix, skip)


def read_named(
    model: type[BaseModel], form: Any, *, prefix: str = "f", skip: Sequence[str] = ()
) -> tuple[dict[str, Any], dict[str, str]]:
    """:func:`read`, and where each row of the data was in the form (rows removed in the page leave gaps)."""
    reader = _Reader(form)
    return reader.model(model, prefix, skip), reader.renames


def submitted_names(
    by_name: Mapping[str, list[str]], renames: Mapping[str, str], prefix: str = "f"
) -> dict[str, list[str]]:
    """Problems by control name, the names as the page submitted them (for the script to place them)."""
    out: dict[str, list[str]] = {}
    for name, messages in by_name.items():
        if not name:
            out.setdefault("", []).extend(messages)
            continue
        parts = name[len(prefix) + 1 :].split(".")
        cur = prefix
        for part in parts:
            cur = renames.get(f"{cur}.{part}", f"{cur}.{part}")
        out.setdefault(cur, []).extend(messages)
    return out


# ------------------------------------------------------------------------- rows added and removed without JS


def apply_op(data: dict[str, Any], op: str) -> dict[str, Any]:
    """``add:skills`` appends an empty row to the list at ``skills``; ``remove:skills.2`` removes that row."""
    verb, _, path = op.partition(":")
    parts = [p for p in path.split(".") if p]
    if verb not in ("add", "remove") or not parts:
        return data
    if verb == "remove":
        parts, last = parts[:-1], parts[-1]
    holder: Any = data
    for p in parts[:-1]:
        holder = holder.get(p) if isinstance(holder, dict) else (holder[int(p)] if _index_ok(holder, p) else None)
        if holder is None:
            return data
    key = parts[-1]
    if isinstance(holder, dict):
        target = holder.get(key)
        if verb == "add":
            if target is None or isinstance(target, list):
                holder[key] = [*(target or []), None][:_MAX_ROWS]
            elif isinstance(target, dict):
                target[""] = None
        elif isinstance(target, list) and last.isdigit() and int(last) < len(target):
            del target[int(last)]
        elif isinstance(target, dict):
            target.pop(list(target)[int(last)] if last.isdigit() and int(last) < len(target) else last, None)
    elif isinstance(holder, list) and _index_ok(holder, key):
        target = holder[int(key)]
        if verb == "add" and isinstance(target, list):
            target.append(None)
        elif verb == "remove" and isinstance(target, list) and last.isdigit() and int(last) < len(target):
            del target[int(last)]
    return data


def _index_ok(holder: Any, p: str) -> bool:
    return isinstance(holder, list) and p.isdigit() and int(p) < len(holder)


# ------------------------------------------------------------------------- problems at their fields


def where_path(where: str) -> str:
    """A problem's ``where`` as a control path: ``skills[2].rank`` and ``skills.2.rank`` both -> ``skills.2.rank``."""
    return re.sub(r"\[(\d+)\]", r".\1", where or "").strip(".")


def locate(
    problems: Sequence[Mapping[str, Any]], nodes: Sequence[Node], prefix: str = "f"
) -> tuple[dict[str, list[str]], list[dict[str, Any]]]:
    """Each problem at the deepest control its ``where`` reaches.

    Returns the messages by control name (those no control holds under "") and the problems
    with ``anchor`` (the control's id, "" for none) and ``field`` (its labels in plain words,
    "Skills 3: Rank"), for the summary's list of links.
    """
    names: dict[str, tuple[str, str]] = {}

    def walk(ns: Sequence[Node], trail: str) -> None:
        for n in ns:
            here = f"{trail}: {n['label']}" if trail else n["label"]
            names[n["name"]] = (n["id"], here)
            walk(n.get("children", ()), here)
            for r in n.get("rows", ()):
                rlabel = f"{here} {int(r['index']) + 1}"
                names[r["name"]] = (r["id"], rlabel)
                walk(r["children"], rlabel)

    walk(nodes, "")
    by_name: dict[str, list[str]] = {}
    listed = []
    for p in problems:
        path = where_path(str(p.get("where") or ""))
        parts = path.split(".") if path else []
        at = ""
        while parts:
            cand = f"{prefix}.{'.'.join(parts)}"
            if cand in names:
                at = cand
                break
            parts.pop()
        message = str(p.get("message") or "")
        by_name.setdefault(at, []).append(message)
        anchor, field = names.get(at, ("", ""))
        listed.append({**p, "anchor": anchor, "field": field or str(p.get("where") or "")})
    return by_name, listed
