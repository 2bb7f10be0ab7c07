"""The sheet page's table controls (issue 19): the GM's adjustment by hand, the between-scenes rules
(rest, healing, time, a hazard, a spent point) and experience, each sent to the table's API and logged."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..deps import Id
from ..routers import living
from .common import PageError, form_of, require, run_page, see_other
from .helpers import now_of, parse_doc, store_of

__all__ = ["router"]

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
        fields = _mapping(request, str(form.get("fields") or ""), "fields")
        reason = str(form.get("reason") or "")[:500]
        if what == "adjust":
            living.adjust_condition(cid, char, living.AdjustIn(values=fields, reason=reason), store, v.caller, now)
        elif what == "action":
            action = str(form.get("action") or "")
            request_ = {**fields, "action": action}
            living.act(cid, char, living.ActIn(request=request_, reason=reason), store, v.caller, now)
        else:
            living.advance(cid, char, living.AdvanceIn(request=fields), store, v.caller, now)
        return see_other(f"/campaigns/{cid}/characters/{char}#table")

    return await run_page(request, go)
