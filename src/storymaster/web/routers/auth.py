"""Accounts: register, log in (session cookie + CSRF token), log out, API tokens for bots."""

from __future__ import annotations

import contextlib
import secrets
from datetime import timedelta
from typing import Any

from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from fastapi import APIRouter, Request, Response

from ...play.errors import Forbidden, NotFound, Unauthorized
from ..accounts import Throttle, name_key
from ..deps import (
    CSRF_COOKIE,
    SESSION_COOKIE,
    CallerDep,
    Id,
    NowDep,
    SettingsDep,
    StoreDep,
    hasher,
    new_token,
    now_text,
    sha256,
)
from ..schemas import LoginIn, PasswordIn, RegisterIn, TokenIn

router = APIRouter(prefix="/api", tags=["accounts"])

#: a hash to verify against when the name is unknown, so timing does not tell names apart
_DUMMY: dict[int, str] = {}


def check_origin(request: Request) -> None:
    """Sign-in and sign-up only from this site's own pages (or from no page at all: scripts, bots).

    A browser sends ``Origin`` with every cross-site POST; one that names another site is refused,
    so no other site can sign a visitor in or up behind their back (login CSRF).
    """
    origin = request.headers.get("origin")
    if origin is None:
        return
    own = {str(request.base_url).rstrip("/"), request.app.state.settings.base_url.rstrip("/")}
    if origin.rstrip("/") not in own:
        raise Forbidden(f"sign-in and sign-up come from this site's own pages, not from {origin[:100]}")


@router.post("/users", status_code=201, summary="Create an account")
def register(request: Request, body: RegisterIn, store: StoreDep, settings: SettingsDep, now: NowDep) -> dict[str, Any]:
    check_origin(request)
    return create_account(body, store, settings, now)


def create_account(body: RegisterIn, store: Any, settings: Any, now: Any) -> dict[str, Any]:
    uid = store.create_user(
        name=body.name,
        name_key=name_key(body.name),
        email=body.email,
        password_hash=hasher(settings).hash(body.password),
        at=now_text(now),
    )
    return {"id": uid, "name": body.name}


@router.post("/session", summary="Log in: sets the session cookie and returns the CSRF token")
def login(
    request: Request, body: LoginIn, response: Response, store: StoreDep, settings: SettingsDep, now: NowDep
) -> dict[str, Any]:
    check_origin(request)
    return sign_in(body, response, store, settings, now, client_of(request), request.app.state.throttle)


def client_of(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def sign_in(
    body: LoginIn, response: Response, store: Any, settings: Any, now: Any, client: str, throttle: Throttle
) -> dict[str, Any]:
    """Check the password (throttled per name and per client; unknown names cost the same time)."""
    ph = hasher(settings)
    try:
        key = name_key(body.name)
    except ValueError:
        key = ""
    throttle.check(key, client, now)
    store.delete_expired_sessions(now_text(now))
    row = store.user_by_name(body.name, key) if key else None
    if row is None:
        dummy = _DUMMY.setdefault(id(settings), ph.hash("not a password"))
        with contextlib.suppress(VerificationError):
            ph.verify(dummy, body.password)
        throttle.failed(key, client, now)
        raise Unauthorized("wrong name or password")
    try:
        ph.verify(row.password_hash, body.password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        throttle.failed(key, client, now)
        raise Unauthorized("wrong name or password") from None
    throttle.succeeded(key)
    if ph.check_needs_rehash(row.password_hash):
        store.set_password_hash(row.id, ph.hash(body.password))
    token, csrf = new_token(), secrets.token_urlsafe(24)
    expires = now + timedelta(days=settings.session_days)
    store.create_session(
        user=row.id, token_sha256=sha256(token), csrf=csrf, at=now_text(now), expires=now_text(expires)
    )
    max_age = settings.session_days * 86400
    response.set_cookie(
        SESSION_COOKIE, token, max_age=max_age, httponly=True, samesite="lax", secure=settings.cookies_secure
    )
    response.set_cookie(
        CSRF_COOKIE, csrf, max_age=max_age, httponly=False, samesite="lax", secure=settings.cookies_secure
    )
    return {"user": {"id": row.id, "name": row.name}, "csrf": csrf}


@router.delete("/session", status_code=204, summary="Log out")
def logout(request: Request, response: Response, store: StoreDep, me: CallerDep) -> Response:
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        store.delete_session(sha256(cookie))
    response = Response(status_code=204)
    response.delete_cookie(SESSION_COOKIE)
    response.delete_cookie(CSRF_COOKIE)
    return response


@router.put("/me/password", status_code=204, summary="Change your password: every other session is signed out")
def change_password(
    request: Request, body: PasswordIn, store: StoreDep, settings: SettingsDep, caller: CallerDep, now: NowDep
) -> Response:
    ph = hasher(settings)
    row = store.user(caller.id)
    try:
        ph.verify(row.password_hash, body.current)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        request.app.state.throttle.failed(name_key(caller.name), client_of(request), now)
        raise Forbidden("the current password is wrong") from None
    store.set_password_hash(caller.id, ph.hash(body.new))
    cookie = request.cookies.get(SESSION_COOKIE) if caller.via == "session" else None
    store.delete_sessions(caller.id, keep=sha256(cookie) if cookie else None)
    return Response(status_code=204)


@router.delete("/me/sessions", status_code=204, summary="Sign out everywhere (every session, this one too)")
def sign_out_everywhere(request: Request, store: StoreDep, caller: CallerDep) -> Response:
    store.delete_sessions(caller.id)
    response = Response(status_code=204)
    response.delete_cookie(SESSION_COOKIE)
    response.delete_cookie(CSRF_COOKIE)
    return response


@router.get("/me", summary="Who you are and your campaigns")
def me(store: StoreDep, caller: CallerDep) -> dict[str, Any]:
    row = store.user(caller.id)
    return {"id": caller.id, "name": caller.name, "email": row.email, "campaigns": store.campaigns_of(caller.id)}


@router.post("/tokens", status_code=201, summary="Create an API token (shown once) for a bot")
def create_token(body: TokenIn, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    token = new_token("smt_")
    tid = store.create_token(
        user=caller.id, name=body.name, token_sha256=sha256(token), at=now_text(now), scope=body.scope
    )
    return {"id": tid, "name": body.name, "scope": body.scope, "token": token}


@router.get("/tokens", summary="Your API tokens (without their secrets)")
def list_tokens(store: StoreDep, caller: CallerDep) -> list[dict[str, Any]]:
    return store.tokens(caller.id)


@router.delete("/tokens/{token_id}", status_code=204, summary="Revoke an API token")
def delete_token(token_id: Id, store: StoreDep, caller: CallerDep) -> Response:
    if not store.delete_token(caller.id, token_id):
        raise NotFound(f"you have no token {token_id}")
    return Response(status_code=204)
