"""The account page: e-mail (confirmed by a mailed link before any digest goes to it), digest choice and time
zone, password change and signing out everywhere, API tokens (read-only ones for feeds).

Each form calls the API's own function for it, so the page and the API apply the same rules.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import ValidationError

from ...errors import StorymasterError
from ..deps import CSRF_COOKIE, SESSION_COOKIE, Id
from ..routers import auth, notifications
from ..schemas import PasswordIn, TokenIn
from .common import PageError, Visitor, error_message, form_of, render, require, run_page, see_other
from .helpers import now_of, settings_of, store_of

router = APIRouter(include_in_schema=False)


@cache
def _zones() -> tuple[str, ...]:
    from zoneinfo import available_timezones

    return tuple(sorted(z for z in available_timezones() if "/" in z and not z.startswith(("Etc/", "SystemV/"))))


def _page(request: Request, v: Visitor, status: int = 200, **extra: Any) -> Response:
    store = store_of(request)
    return render(
        request,
        "account.html",
        status=status,
        v=v,
        settings=notifications.reader_settings(store, v.caller),
        tokens=store.tokens(v.caller.id),
        mail_ready=bool(settings_of(request).smtp_host),
        zones=_zones(),
        **extra,
    )


def _refused(request: Request, v: Visitor, exc: BaseException, **extra: Any) -> Response:
    status, message, hint = error_message(exc)
    return _page(request, v, status=status, error=message, hint=hint, **extra)


@router.get("/account", response_class=HTMLResponse)
async def account_page(request: Request) -> Response:
    def go():
        return _page(request, require(request))

    return await run_page(request, go)


@router.post("/account/email", response_class=HTMLResponse)
async def account_email(request: Request) -> Response:
    def go():
        v = require(request)
        form = form_of(request, v)
        text = str(form.get("email") or "").strip()
        try:
            body = notifications.EmailIn(email=text or None)
            done = notifications.set_address(
                store_of(request), settings_of(request), v.caller, body.email, now_of(request)
            )
        except (ValidationError, StorymasterError) as exc:
            return _refused(request, v, exc, email_draft=text)
        if done["email"] is None:
            message = "Your address is removed: the table mails you nothing."
        elif done["link_sent"]:
            message = f"A confirmation link is on its way to {done['email']}: open it while signed in."
        else:
            message = f"Saved {done['email']}, but this table sends no mail, so it cannot be confirmed yet."
        return _page(request, v, message=message)

    return await run_page(request, go)


@router.get("/account/email/confirm", response_class=HTMLResponse)
async def account_email_confirm(request: Request, token: str = "") -> Response:
    def go():
        v = require(request)
        if not token or len(token) > 200:
            raise PageError(404, "this confirmation link is not valid", "ask for a new link on this page")
        try:
            done = notifications.confirm(store_of(request), v.caller, token, now_of(request))
        except StorymasterError as exc:
            return _refused(request, v, exc)
        return _page(request, v, message=f"Confirmed: your digests go to {done['email']}.")

    return await run_page(request, go)


@router.post("/account/settings", response_class=HTMLResponse)
async def account_settings(request: Request) -> Response:
    def go():
        v = require(request)
        form = form_of(request, v)
        try:
            body = notifications.ReaderSettingsIn(
                digest=str(form.get("digest") or "all"), time_zone=str(form.get("time_zone") or "")
            )
        except ValidationError as exc:
            return _refused(request, v, exc)
        notifications.change_settings(body, store_of(request), v.caller)
        return _page(request, v, message="Saved.")

    return await run_page(request, go)


@router.post("/account/password", response_class=HTMLResponse)
async def account_password(request: Request) -> Response:
    def go():
        v = require(request)
        form = form_of(request, v)
        try:
            body = PasswordIn(current=str(form.get("current") or ""), new=str(form.get("new") or ""))
            auth.change_password(request, body, store_of(request), settings_of(request), v.caller, now_of(request))
        except (ValidationError, StorymasterError) as exc:
            return _refused(request, v, exc)
        return _page(request, v, message="Your password is changed; every other session is signed out.")

    return await run_page(request, go)


@router.post("/account/sessions")
async def account_sign_out_everywhere(request: Request) -> Response:
    def go():
        v = require(request)
        form_of(request, v)
        store_of(request).delete_sessions(v.caller.id)
        resp = see_other("/")
        resp.delete_cookie(SESSION_COOKIE)
        resp.delete_cookie(CSRF_COOKIE)
        return resp

    return await run_page(request, go)


@router.post("/account/tokens", response_class=HTMLResponse)
async def account_token(request: Request) -> Response:
    def go():
        v = require(request)
        form = form_of(request, v)
        try:
            body = TokenIn(name=str(form.get("name") or ""), scope=str(form.get("scope") or "read"))
        except ValidationError as exc:
            return _refused(request, v, exc)
        made = auth.create_token(body, store_of(request), v.caller, now_of(request))
        return _page(request, v, new_token=made)

    return await run_page(request, go)


@router.post("/account/tokens/{tid}/revoke")
async def account_token_revoke(request: Request, tid: Id) -> Response:
    def go():
        v = require(request)
        form_of(request, v)
        auth.delete_token(tid, store_of(request), v.caller)
        return see_other("/account#tokens")

    return await run_page(request, go)
