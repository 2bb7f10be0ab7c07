"""Character pages: the builder (new, check, save, edit), the sheet and its printable card.

Every handler reads the posted form on the event loop and runs its work (``go``) in the
thread pool (``common.run_page``).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import ValidationError

from ...errors import StorymasterError
from ...play.errors import Forbidden
from ...present import card_html
from ..deps import Id
from ..routers import characters, living
from ..schemas import (
    CharacterIn,
)
from .common import (
    PageError,
    error_message,
    form_of,
    render,
    require,
    run_page,
    see_other,
)
from .forms import submitted_names
from .helpers import (
    campaign_ctx,
    now_of,
    sheet_report,
    store_of,
    whole,
)
from .living import action_forms, adjust_controls, advance_forms
from .sheets import (
    builder_view,
    read_builder,
    sheet_history,
    sheet_rows,
    sheet_view,
    start_data,
    with_condition,
)

router = APIRouter(include_in_schema=False)


def _is_gm(ctx: dict[str, Any]) -> bool:
    return bool(ctx["c"]["your_role"] == "gm")


def _builder(
    request: Request,
    v: Any,
    ctx: dict[str, Any],
    shown: dict[str, Any],
    report: dict[str, Any],
    char: int | None,
    *,
    status: int = 200,
) -> Response:
    view = builder_view(ctx["system"], shown, report, is_gm=_is_gm(ctx))
    return render(request, "builder.html", status=status, v=v, char=char, **view, **ctx)


def _stored(request: Request, v: Any, cid: int, char: int | None) -> dict[str, Any] | None:
    if not char:
        return None
    return dict(characters.read_character(cid, char, store_of(request), v.caller)["sheet"])


@router.get("/campaigns/{cid}/characters/new", response_class=HTMLResponse)
async def character_new(request: Request, cid: Id) -> Response:
    def go():
        v = require(request)
        ctx = campaign_ctx(request, v, cid)
        system = ctx["system"]
        if ctx["c"]["your_role"] not in ("gm", "player"):
            raise Forbidden("observers do not make characters")
        start = start_data(system)
        report = sheet_report(request, ctx["system_name"], start, ctx["c"]["house_rules"])
        return _builder(request, v, ctx, start, report, None)

    return await run_page(request, go)


@router.post("/campaigns/{cid}/characters/check")
async def character_check(request: Request, cid: Id) -> Response:
    """The builder's running check and its row buttons (JSON for the script; the builder page without it)."""

    def go():
        v = require(request)
        form = form_of(request, v)
        ctx = campaign_ctx(request, v, cid)
        system = ctx["system"]
        char = whole(form.get("char"), "character")
        checked, shown, renames, _op = read_builder(
            system, form, is_gm=_is_gm(ctx), stored=_stored(request, v, cid, char)
        )
        report = sheet_report(request, ctx["system_name"], checked, ctx["c"]["house_rules"])
        if "application/json" in request.headers.get("accept", ""):
            view = builder_view(system, checked, report, is_gm=_is_gm(ctx))
            html = render(request, "_report.html", v=v, report=view["report"]).body.decode()
            return JSONResponse(
                {
                    **view["report"],
                    "html": html,
                    "field_problems": submitted_names(view["field_problems"], renames),
                }
            )
        return _builder(request, v, ctx, shown, report, char)

    return await run_page(request, go)


@router.post("/campaigns/{cid}/characters")
async def character_create(request: Request, cid: Id) -> Response:
    def go():
        v = require(request)
        form = form_of(request, v)
        ctx = campaign_ctx(request, v, cid)
        system = ctx["system"]
        char = whole(form.get("char"), "character")
        store, now = store_of(request), now_of(request)
        sheet, shown, _renames, _op = read_builder(
            system, form, is_gm=_is_gm(ctx), stored=_stored(request, v, cid, char)
        )
        try:
            if char:
                view = characters.update_character(cid, char, CharacterIn(sheet=sheet), store, v.caller, now)
            else:
                view = characters.create_character(cid, CharacterIn(sheet=sheet), store, v.caller, now)
        except (ValidationError, StorymasterError, PageError) as exc:
            report = sheet_report(request, ctx["system_name"], sheet, ctx["c"]["house_rules"])
            if not report["problems"]:
                report["ok"] = False
                report["problems"] = [{"where": getattr(exc, "where", "") or "", "message": error_message(exc)[1]}]
            status = getattr(exc, "status", 422)
            return _builder(request, v, ctx, shown, report, char, status=status if 400 <= status < 500 else 422)
        return see_other(f"/campaigns/{cid}/characters/{view['id']}")

    return await run_page(request, go)


def sheet_page(
    request: Request,
    v: Any,
    cid: int,
    char: int,
    *,
    adjust: dict[str, Any] | None = None,
    advance: tuple[str, Any] | None = None,
) -> Response:
    """The sheet page; ``adjust`` (the GM's adjustment) or ``advance`` (an experience request's name and
    values): that form again with these values, open (a row added or removed without JavaScript)."""
    ctx = campaign_ctx(request, v, cid)
    store = store_of(request)
    view = characters.read_character(cid, char, store, v.caller)
    can_edit = _is_gm(ctx) or view["owner"] == v.caller.id
    sheet, why = sheet_view(ctx["system"], view["sheet"], ctx["c"]["house_rules"])
    history = sheet_history(store.campaign_log(cid), char, ctx["names"], is_gm=_is_gm(ctx), viewer=v.caller.id)
    try:  # the table's condition and resources now (a system without condition rules has none)
        condition = living.read_condition(cid, char, store, v.caller)
    except StorymasterError:
        condition = None
    return render(
        request,
        "sheet.html",
        v=v,
        ch=view,
        rows=sheet_rows(view["sheet"]),
        sheet=sheet,
        sheet_problem=why,
        can_edit=can_edit,
        portrait_v=store_of(request).portrait_versions(cid).get(char),
        history=history,
        condition=condition,
        action_forms=action_forms(ctx["system"], condition, is_gm=_is_gm(ctx)),
        adjust_nodes=adjust_controls(ctx["system"], condition, adjust) if _is_gm(ctx) else [],
        adjust_open=adjust is not None,
        advance_forms=advance_forms(ctx["system"], condition, is_gm=_is_gm(ctx), draft=advance),
        sections=with_condition(sheet, condition) if sheet is not None else [],
        **ctx,
    )


@router.get("/campaigns/{cid}/characters/{char}", response_class=HTMLResponse)
async def character_page(request: Request, cid: Id, char: Id) -> Response:
    def go():
        return sheet_page(request, require(request), cid, char)

    return await run_page(request, go)


@router.get("/campaigns/{cid}/characters/{char}/edit", response_class=HTMLResponse)
async def character_edit(request: Request, cid: Id, char: Id) -> Response:
    def go():
        v = require(request)
        ctx = campaign_ctx(request, v, cid)
        view = characters.read_character(cid, char, store_of(request), v.caller)
        if not (_is_gm(ctx) or view["owner"] == v.caller.id):
            raise Forbidden("only the character's owner or the GM edits it")
        report = sheet_report(request, ctx["system_name"], view["sheet"], ctx["c"]["house_rules"])
        return _builder(request, v, ctx, dict(view["sheet"]), report, char)

    return await run_page(request, go)


@router.get("/campaigns/{cid}/characters/{char}/card", response_class=HTMLResponse)
async def character_card(request: Request, cid: Id, char: Id) -> Response:
    """A printable card of the character's structured sheet (B.U.M.'s Appendix B card, and every other system's)."""

    def go():
        v = require(request)
        ctx = campaign_ctx(request, v, cid)
        view = characters.read_character(cid, char, store_of(request), v.caller)
        sheet, why = sheet_view(ctx["system"], view["sheet"], ctx["c"]["house_rules"])
        if sheet is None:
            raise PageError(422, f"this sheet cannot be made into a card: {why}")
        return HTMLResponse(card_html(sheet, title=ctx["system"].display_name or ctx["system"].title))

    return await run_page(request, go)
