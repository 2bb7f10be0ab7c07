"""Campaign pages: the list, a campaign, members, house rules, notes, invites, joining.

Every handler reads the posted form on the event loop and runs its work (``go``) in the
thread pool (``common.run_page``).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from ...rules import all_systems
from ...store.repo import invite_open
from ..deps import Id, now_text, sha256
from ..routers import campaigns, invites
from ..schemas import (
    CampaignIn,
    HouseRulesIn,
    InviteIn,
    JoinIn,
    MemberIn,
    NoteIn,
)
from .common import (
    PageError,
    form_of,
    render,
    require,
    run_page,
    see_other,
)
from .dashboard import dashboard_ctx
from .forms import apply_op, read
from .helpers import (
    campaign_ctx,
    house_rules_controls,
    now_of,
    parse_doc,
    safe_next,
    store_of,
    whole,
)

router = APIRouter(include_in_schema=False)


@router.get("/campaigns", response_class=HTMLResponse)
async def campaign_list(request: Request) -> Response:
    def go():
        v = require(request)
        mine = campaigns.list_mine(store_of(request), v.caller)
        systems = sorted((s.name, s.title) for s in all_systems().values())
        board = dashboard_ctx(store_of(request), v.caller.id, now_of(request))
        return render(request, "campaigns.html", v=v, campaigns=mine, systems=systems, **board)

    return await run_page(request, go)


@router.post("/campaigns")
async def campaign_create(request: Request) -> Response:
    def go():
        v = require(request)
        form = form_of(request, v)
        body = CampaignIn(
            name=str(form.get("name") or ""),
            system=str(form.get("system") or ""),
            description=str(form.get("description") or ""),
        )
        view = campaigns.create(body, store_of(request), v.caller, now_of(request))
        return see_other(f"/campaigns/{view['id']}")

    return await run_page(request, go)


@router.get("/campaigns/{cid}", response_class=HTMLResponse)
async def campaign_page(request: Request, cid: Id) -> Response:
    def go():
        v = require(request)
        ctx = campaign_ctx(request, v, cid)
        board = dashboard_ctx(store_of(request), v.caller.id, now_of(request), [cid])
        return render(request, "campaign.html", v=v, **ctx, **board)

    return await run_page(request, go)


@router.post("/campaigns/{cid}/members")
async def campaign_add_member(request: Request, cid: Id) -> Response:
    def go():
        v = require(request)
        form = form_of(request, v)
        campaigns.add_member(
            cid,
            MemberIn(user=str(form.get("user") or ""), role=str(form.get("role") or "player")),
            store_of(request),
            v.caller,
            now_of(request),
        )
        return see_other(f"/campaigns/{cid}#members")

    return await run_page(request, go)


@router.post("/campaigns/{cid}/house-rules")
async def campaign_house_rules(request: Request, cid: Id) -> Response:
    """The GM's house rules: the form's controls (one per option), or a ``house_rules`` text (option: value)."""

    def go():
        v = require(request)
        form = form_of(request, v)
        if form.get("house_rules") is not None:
            rules = parse_doc(request, str(form.get("house_rules") or ""), "house rules")
            if not isinstance(rules, dict):
                raise PageError(422, "house rules are a mapping of option: value")
        else:
            ctx = campaign_ctx(request, v, cid)
            model = ctx["system"].house_rules_model
            data = read(model, form, prefix="hr")
            op = str(form.get("op") or "")
            if op:  # a row added or removed without JavaScript: the form again, nothing saved
                ctx["house_rules_nodes"] = house_rules_controls(ctx["system"], apply_op(data, op))
                board = dashboard_ctx(store_of(request), v.caller.id, now_of(request), [cid])
                return render(request, "campaign.html", v=v, house_rules_open=True, **ctx, **board)
            rules = data
        campaigns.set_house_rules(cid, HouseRulesIn(house_rules=rules), store_of(request), v.caller, now_of(request))
        return see_other(f"/campaigns/{cid}#house-rules")

    return await run_page(request, go)


@router.post("/campaigns/{cid}/notes")
async def campaign_note(request: Request, cid: Id) -> Response:
    def go():
        v = require(request)
        form = form_of(request, v)
        campaigns.write_note(
            cid, NoteIn(text=str(form.get("text") or "")), store_of(request), v.caller, now_of(request)
        )
        back = safe_next(str(form.get("back") or f"/campaigns/{cid}#notes"))
        return see_other(back)

    return await run_page(request, go)


@router.post("/campaigns/{cid}/invites", response_class=HTMLResponse)
async def campaign_invite(request: Request, cid: Id) -> Response:
    def go():
        v = require(request)
        form = form_of(request, v)
        body = InviteIn(
            role=str(form.get("role") or "player"),
            expires_in_hours=whole(form.get("expires_in_hours"), "expires after"),
            max_uses=whole(form.get("max_uses"), "uses"),
        )
        made = invites.create_invite(cid, body, store_of(request), v.caller, now_of(request))
        ctx = campaign_ctx(request, v, cid)
        board = dashboard_ctx(store_of(request), v.caller.id, now_of(request), [cid])
        return render(request, "campaign.html", v=v, new_invite=made, **ctx, **board)

    return await run_page(request, go)


@router.post("/campaigns/{cid}/invites/{iid}/revoke")
async def campaign_revoke_invite(request: Request, cid: Id, iid: Id) -> Response:
    def go():
        v = require(request)
        form_of(request, v)
        invites.revoke_invite(cid, iid, store_of(request), v.caller, now_of(request))
        return see_other(f"/campaigns/{cid}#members")

    return await run_page(request, go)


def _open_invite(request: Request, cid: int, token: str) -> Any:
    row = store_of(request).invite(cid, sha256(token)) if len(token) <= 200 else None
    if row is None or not invite_open(row._mapping, now_text(now_of(request))):
        raise PageError(
            404, "this invitation link is not valid (unknown, revoked, expired or used up)", "ask the GM for a new link"
        )
    return row


@router.get("/join/{cid}/{token}", response_class=HTMLResponse)
async def join_page(request: Request, cid: Id, token: str) -> Response:
    def go():
        v = require(request)
        store = store_of(request)
        invite = _open_invite(request, cid, token)
        with store.reading_campaign(cid) as c:
            name, role = c.name, c.role_of(v.caller.id)
        if role is not None:
            return see_other(f"/campaigns/{cid}")
        return render(request, "join.html", v=v, cid=cid, token=token, name=name, role=invite.role)

    return await run_page(request, go)


@router.post("/join/{cid}/{token}")
async def join_submit(request: Request, cid: Id, token: str) -> Response:
    def go():
        v = require(request)
        form_of(request, v)
        if len(token) > 200:
            raise PageError(404, "this invitation link is not valid")
        invites.join(cid, JoinIn(token=token), store_of(request), v.caller, now_of(request))
        return see_other(f"/campaigns/{cid}")

    return await run_page(request, go)
