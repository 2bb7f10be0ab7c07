"""Character pages: the builder (new, check, save, edit), the sheet and its printable card.

Every handler reads the posted form on the event loop and runs its work (``go``) in the
thread pool (``common.run_page``).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import ValidationError

from ... import safe_yaml
from ...errors import StorymasterError
from ...play.errors import Forbidden
from ...present import card_html
from ..deps import Id
from ..routers import characters
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
from .helpers import (
    builder_check,
    campaign_ctx,
    now_of,
    sheet_report,
    store_of,
    whole,
)
from .sheets import (
    form_fields,
    sheet_rows,
    sheet_view,
    split_sheet,
    starter_sheet,
)

router = APIRouter(include_in_schema=False)


@router.get("/campaigns/{cid}/characters/new", response_class=HTMLResponse)
async def character_new(request: Request, cid: Id) -> Response:
    def go():
        v = require(request)
        ctx = campaign_ctx(request, v, cid)
        system = ctx["system"]
        if ctx["c"]["your_role"] not in ("gm", "player"):
            raise Forbidden("observers do not make characters")
        start = safe_yaml.load(starter_sheet(system)) or {}
        values, text = split_sheet(system, start)
        report = sheet_report(request, ctx["system_name"], start, ctx["c"]["house_rules"])
        return render(
            request,
            "builder.html",
            v=v,
            values=values,
            fields=form_fields(system),
            sheet_text=text,
            report=report,
            char=None,
            **ctx,
        )

    return await run_page(request, go)


@router.post("/campaigns/{cid}/characters/check")
async def character_check(request: Request, cid: Id) -> Response:
    """The builder's running check (JSON for the script; an HTML page without it)."""

    def go():
        v = require(request)
        form = form_of(request, v)
        ctx = campaign_ctx(request, v, cid)
        system = ctx["system"]
        _sheet, values, text, _problem, report = builder_check(
            request, ctx["system_name"], form, ctx["c"]["house_rules"]
        )
        if "application/json" in request.headers.get("accept", ""):
            return JSONResponse({**report, "html": render(request, "_report.html", v=v, report=report).body.decode()})
        char = whole(form.get("char"), "character")
        return render(
            request,
            "builder.html",
            v=v,
            values=values,
            fields=form_fields(system),
            sheet_text=text,
            report=report,
            char=char,
            **ctx,
        )

    return await run_page(request, go)


@router.post("/campaigns/{cid}/characters")
async def character_create(request: Request, cid: Id) -> Response:
    def go():
        v = require(request)
        form = form_of(request, v)
        ctx = campaign_ctx(request, v, cid)
        system = ctx["system"]
        sheet, values, text, problem, report = builder_check(request, ctx["system_name"], form, ctx["c"]["house_rules"])
        char = whole(form.get("char"), "character")
        store, now = store_of(request), now_of(request)
        try:
            if problem:
                raise PageError(422, problem)
            if char:
                view = characters.update_character(cid, char, CharacterIn(sheet=sheet), store, v.caller, now)
            else:
                view = characters.create_character(cid, CharacterIn(sheet=sheet), store, v.caller, now)
        except (ValidationError, StorymasterError, PageError) as exc:
            if not report["problems"]:
                report["problems"] = [{"where": "", "message": error_message(exc)[1]}]
            status = getattr(exc, "status", 422)
            return render(
                request,
                "builder.html",
                status=status if 400 <= status < 500 else 422,
                v=v,
                values=values,
                fields=form_fields(system),
                sheet_text=text,
                report=report,
                char=char,
                **ctx,
            )
        return see_other(f"/campaigns/{cid}/characters/{view['id']}")

    return await run_page(request, go)


@router.get("/campaigns/{cid}/characters/{char}", response_class=HTMLResponse)
async def character_page(request: Request, cid: Id, char: Id) -> Response:
    def go():
        v = require(request)
        ctx = campaign_ctx(request, v, cid)
        view = characters.read_character(cid, char, store_of(request), v.caller)
        can_edit = ctx["c"]["your_role"] == "gm" or view["owner"] == v.caller.id
        sheet, why = sheet_view(ctx["system"], view["sheet"], ctx["c"]["house_rules"])
        return render(
            request,
            "sheet.html",
            v=v,
            ch=view,
            rows=sheet_rows(view["sheet"]),
            sheet=sheet,
            sheet_problem=why,
            can_edit=can_edit,
            **ctx,
        )

    return await run_page(request, go)


@router.get("/campaigns/{cid}/characters/{char}/edit", response_class=HTMLResponse)
async def character_edit(request: Request, cid: Id, char: Id) -> Response:
    def go():
        v = require(request)
        ctx = campaign_ctx(request, v, cid)
        view = characters.read_character(cid, char, store_of(request), v.caller)
        if not (ctx["c"]["your_role"] == "gm" or view["owner"] == v.caller.id):
            raise Forbidden("only the character's owner or the GM edits it")
        values, text = split_sheet(ctx["system"], view["sheet"])
        report = sheet_report(request, ctx["system_name"], view["sheet"], ctx["c"]["house_rules"])
        return render(
            request,
            "builder.html",
            v=v,
            values=values,
            fields=form_fields(ctx["system"]),
            sheet_text=text,
            report=report,
            char=char,
            **ctx,
        )

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
