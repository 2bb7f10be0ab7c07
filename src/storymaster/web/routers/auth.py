"""Accounts: register, log in (session cookie + CSRF token), log out, API tokens for bots."""

from __future__ import annotations

import contextlib
import secrets
from datetime import timedelta
from typing import Any

from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from fastapi import APIRouter, Request, Response

from ...play.errors import NotFound, Unauthorized
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
from ..schemas import LoginIn, RegisterIn, TokenIn

router = APIRouter(prefix="/api", tags=["accounts"])

#: a hash to verify against when the name is unknown, so timing does not tell names apart
_DUMMY: dict[int, str] = {}


@router.post("/users", status_code=201, summary="Create an account")
def register(body: RegisterIn, store: StoreDep, settings: SettingsDep, now: NowDep) -> dict[str, Any]:
    uid = store.create_user(
        name=body.name, email=body.email, password_hash=hasher(settings).hash(body.password), at=now_text(now)
    )
    return {"id": uid, "name": body.name}


@router.post("/session", summary="Log in: sets the session cookie and returns the CSRF token")
def login(body: LoginIn, response: Response, store: StoreDep, settings: SettingsDep, now: NowDep) -> dict[str, Any]:
    ph = hasher(settings)
    row = store.user_by_name(body.name)
    if row is None:
        dummy = _DUMMY.setdefault(id(settings), ph.hash("not a password"))
        with contextlib.suppress(VerificationError):
            ph.verify(dummy, body.password)
        raise Unauthorized("wrong name or password")
    try:
        ph.verify(row.password_hash, body.password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        raise Unauthorized("wrong name or password") from None
    if ph.check_needs_rehash(row.password_hash):
        store.set_password_hash(row.id, ph.hash(body.password))
    token, csrf = new_token(), secrets.token_urlsafe(24)
    expires = now + timedelta(days=settings.session_days)
    store.create_session(
        user=row.id, token_sha256=sha256(token), csrf=csrf, at=now_text(now), expires=now_text(expires)
    )
    max_age = settings.session_days * 86400
    response.set_cookie(
        SESSION_COOKIE, token, max_age=max_age, httponly=True, samesite="lax", secure=settings.secure_cookies
    )
    response.set_cookie(
        CSRF_COOKIE, csrf, max_age=max_age, httponly=False, samesite="lax", secure=settings.secure_cookies
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


@router.get("/me", summary="Who you are and your campaigns")
def me(store: StoreDep, caller: CallerDep) -> dict[str, Any]:
    row = store.user(caller.id)
    return {"id": caller.id, "name": caller.name, "email": row.email, "campaigns": store.campaigns_of(caller.id)}


@router.post("/tokens", status_code=201, summary="Create an API token (shown once) for a bot")
def create_token(body: TokenIn, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    token = new_token("smt_")
    tid = store.create_token(user=caller.id, name=body.name, token_sha256=sha256(token), at=now_text(now))
    return {"id": tid, "name": body.name, "token": token}


@router.get("/tokens", summary="Your API tokens (without their secrets)")
def list_tokens(store: StoreDep, caller: CallerDep) -> list[dict[str, Any]]:
    return store.tokens(caller.id)


@router.delete("/tokens/{token_id}", status_code=204, summary="Revoke an API token")
def delete_token(token_id: Id, store: StoreDep, caller: CallerDep) -> Response:
    if not store.delete_token(caller.id, token_id):
        raise NotFound(f"you have no token {token_id}")
    return Response(status_code=204)
