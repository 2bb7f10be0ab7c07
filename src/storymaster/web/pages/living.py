"""The sheet page's table controls (issue 19): the GM's adjustment by hand, the between-scenes rules
(rest, healing, time, a hazard, a spent point) and experience, each sent to the table's API and logged.

Every form is made from the system's own models by :mod:`.forms` (as the builder and the composer are),
not a YAML box: a form per between-scenes rule (its request model), the GM's adjustment (the condition
model, holding the values now) and a form per experience request (the advancement models). A ``fields``
text (``field: value`` a line) is still read from any of them that sends one."""

from __future__ import annotations

import re
import types
from collections.abc import Mapping
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel

from ...errors import StorymasterError
from ...rules import RuleSystem
from ...rules.condition import condition_of
from ..deps import Id
from ..routers import living
from .common import PageError, form_of, require, run_page, see_other
from .forms import apply_op, controls, label_of, read
from .helpers import campaign_ctx, now_of, parse_doc, store_of

__all__ = ["action_forms", "adjust_controls", "advance_forms", "router"]

#: the prefix of a between-scenes rule's controls: ``act.<action>.<field>``
ACT = "act"
#: the prefix of the GM's adjustment controls: ``set.<field>`` (the condition model's fields)
SET = "set"
#: the prefix of an experience request's controls: ``adv.<request model>.<field>``
ADV = "adv"


def adjust_controls(
    system: RuleSystem, condition: Mapping[str, Any] | None, draft: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The GM's adjustment by hand: every field of the system's condition model as a control, holding the
    condition now (or ``draft``, the form as it was sent when a row was added or removed without JavaScript)."""
    rules = condition_of(system)
    if rules is None or not condition:
        return []
    return controls(rules.model, draft if draft is not None else condition.get("condition") or {}, prefix=SET)


def _skipped(rules: Any, is_gm: bool) -> tuple[str, ...]:
    """The request fields not shown: the tag, and for a player what only the GM sets (a veto)."""
    return ("action",) if is_gm else ("action", *sorted(getattr(rules, "gm_fields", ())))


def action_forms(system: RuleSystem, condition: Mapping[str, Any] | None, *, is_gm: bool) -> list[dict[str, Any]]:
    """The between-scenes rules the viewer may ask for (the GM: all; the owner: the player's), each with its
    request model's fields as controls holding the model's defaults."""
    rules = condition_of(system)
    if rules is None or not condition:
        return []
    names = condition.get("actions" if is_gm else "player_actions") or []
    out = []
    for name in names:
        model = rules.actions.get(name)
        if model is None:
            continue
        doc = (model.__doc__ or "").strip().split("\n\n", 1)[0].replace("\n", " ")
        out.append(
            {
                "name": name,
                "label": label_of(name),
                "help": doc,
                "nodes": controls(model, {}, prefix=f"{ACT}.{name}", skip=_skipped(rules, is_gm)),
                "reason_required": name in getattr(rules, "reason_required", ()),
            }
        )
    return out


def _members(ann: Any) -> list[type]:
    """The request models of an advancement annotation (a model, or an annotated union of them)."""
    origin = get_origin(ann)
    if origin is Annotated:
        return _members(get_args(ann)[0])
    if origin in (Union, types.UnionType):
        return [m for a in get_args(ann) for m in _members(a)]
    return [ann] if isinstance(ann, type) and issubclass(ann, BaseModel) else []


def _tags(model: type[BaseModel]) -> dict[str, Any]:
    """The model's own fixed tag (``kind: spend``, ``action: buy``): fields of one literal value, which a form
    does not show and the table needs to tell the requests apart."""
    out = {}
    for name, f in model.model_fields.items():
        if get_origin(f.annotation) is Literal and len(get_args(f.annotation)) == 1:
            out[name] = get_args(f.annotation)[0]
    return out


def _words(name: str) -> str:
    """``AwardExperience`` -> "Award experience"; ``SpendCP`` -> "Spend CP"."""
    parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z][a-z]+|[a-z]+|\d+", name)
    return " ".join(p if p.isupper() and len(p) > 1 else p.lower() for p in parts).capitalize()


def advance_forms(
    system: RuleSystem, condition: Mapping[str, Any] | None, *, is_gm: bool, draft: tuple[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Experience: one form per advancement request of the system the viewer may make (the GM: all; the
    owner: all but the GM's awards), each request model's fields as controls; ``draft``: (the request's name,
    the values sent) when a row was added or removed without JavaScript."""
    rules = condition_of(system)
    if rules is None or not condition or getattr(rules, "advancement", None) is None:
        return []
    gm_only = tuple(getattr(rules, "gm_advancement", ()))
    out = []
    for model in _members(getattr(rules, "advancement", None)):
        if not is_gm and issubclass(model, gm_only):
            continue
        name = model.__name__
        values = draft[1] if draft is not None and draft[0] == name else {}
        doc = (model.__doc__ or "").strip().split("\n\n", 1)[0].replace("\n", " ")
        out.append(
            {
                "name": name,
                "label": _words(name),
                "help": doc,
                "nodes": controls(model, values, prefix=f"{ADV}.{name}", skip=_skipped(rules, is_gm)),
                "open": draft is not None and draft[0] == name,
            }
        )
    return out


def _advance_request(request: Request, v: Any, cid: int, char: int, form: Any) -> Any:
    """The request of an experience form, read back through its model with its tag; or the sheet page again
    (a row added or removed without JavaScript)."""
    ctx = campaign_ctx(request, v, cid)
    is_gm = ctx["c"]["your_role"] == "gm"
    rules = condition_of(ctx["system"])
    kind = str(form.get("advance_kind") or "")
    model = next((m for m in _members(getattr(rules, "advancement", None)) if m.__name__ == kind), None)
    if rules is None or model is None:
        raise PageError(422, f"no experience request {kind!r}", "choose one of the forms on the sheet page")
    data = read(model, form, prefix=f"{ADV}.{kind}", skip=_skipped(rules, is_gm))
    op = str(form.get("op") or "")
    if op:
        from .characters import sheet_page

        return sheet_page(request, v, cid, char, advance=(kind, apply_op(data, op)))
    data = {**data, **_tags(model)}
    try:
        parsed = rules.advance_request(data)  # type: ignore[attr-defined]  # ConditionBase's, not the protocol's
    except StorymasterError as exc:
        raise PageError(422, exc.message, getattr(exc, "hint", "") or "") from None
    if type(parsed) is not model:  # the table would read it as another request: never apply that
        raise PageError(422, f"the table reads this as {type(parsed).__name__}, not {kind}")
    return data


def _action_request(request: Request, v: Any, cid: int, form: Any, action: str) -> dict[str, Any]:
    """The request of a between-scenes form: its controls read back through the request model (or, from a
    form that sends one, the ``fields`` text)."""
    if form.get("fields") is not None:
        return {**_mapping(request, str(form.get("fields") or ""), "fields"), "action": action}
    ctx = campaign_ctx(request, v, cid)
    is_gm = ctx["c"]["your_role"] == "gm"
    rules = condition_of(ctx["system"])
    model = rules.actions.get(action) if rules is not None else None
    if model is None:
        raise PageError(422, f"no between-scenes rule {action!r}", "choose one of the forms on the sheet page")
    return {**read(model, form, prefix=f"{ACT}.{action}", skip=_skipped(rules, is_gm)), "action": action}


router = APIRouter(include_in_schema=False)

WHATS = ("adjust", "action", "advance")


def _mapping(request: Request, text: str, what: str) -> dict[str, Any]:
    data = parse_doc(request, text, what)
    if not isinstance(data, dict):
        raise PageError(422, f"the {what} are a mapping of field: value", "one 'field: value' a line")
    return data


@router.post("/campaigns/{cid}/characters/{char}/table")
async def character_at_the_table(request: Request, cid: Id, char: Id) -> Response:
    """One of the sheet page's table forms: ``what`` is adjust (GM), action or advance."""

    def go():
        v = require(request)
        form = form_of(request, v)
        what = str(form.get("what") or "")
        if what not in WHATS:
            raise PageError(422, f"no table form {what!r}", "adjust, action or advance")
        store, now = store_of(request), now_of(request)
        reason = str(form.get("reason") or "")[:500]
        if what == "action":
            request_ = _action_request(request, v, cid, form, str(form.get("action") or ""))
            living.act(cid, char, living.ActIn(request=request_, reason=reason), store, v.caller, now)
            return see_other(f"/campaigns/{cid}/characters/{char}#table")
        if what == "adjust" and form.get("fields") is None:
            rules = condition_of(campaign_ctx(request, v, cid)["system"])
            if rules is None:
                raise PageError(422, "this system keeps no condition at the table")
            values = read(rules.model, form, prefix=SET)
            op = str(form.get("op") or "")
            if op:  # a row added or removed without JavaScript: the form again, nothing set
                from .characters import sheet_page

                return sheet_page(request, v, cid, char, adjust=apply_op(values, op))
            living.adjust_condition(cid, char, living.AdjustIn(values=values, reason=reason), store, v.caller, now)
            return see_other(f"/campaigns/{cid}/characters/{char}#table")
        if what == "advance" and form.get("fields") is None:
            got = _advance_request(request, v, cid, char, form)
            if isinstance(got, Response):
                return got
            living.advance(cid, char, living.AdvanceIn(request=got), store, v.caller, now)
            return see_other(f"/campaigns/{cid}/characters/{char}#table")
        fields = _mapping(request, str(form.get("fields") or ""), "fields")
        if what == "adjust":
            living.adjust_condition(cid, char, living.AdjustIn(values=fields, reason=reason), store, v.caller, now)
        else:
            living.advance(cid, char, living.AdvanceIn(request=fields), store, v.caller, now)
        return see_other(f"/campaigns/{cid}/characters/{char}#table")

    return await run_page(request, go)
