"""Dependencies named once: the store, the clock, the caller (session cookie + CSRF, or API token)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated

from argon2 import PasswordHasher
from fastapi import Depends, Path, Request

from ..play.errors import Forbidden, Unauthorized
from ..store import Store
from .settings import Settings
from .work import Work

__all__ = [
    "CSRF_COOKIE",
    "CSRF_HEADER",
    "SESSION_COOKIE",
    "Caller",
    "CallerDep",
    "Id",
    "MaybeCallerDep",
    "NowDep",
    "StoreDep",
    "WorkDep",
    "new_token",
    "now_text",
    "sha256",
]

SESSION_COOKIE = "storymaster_session"
CSRF_COOKIE = "storymaster_csrf"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}

#: ids in paths: whole numbers a database integer holds
Id = Annotated[int, Path(ge=1, le=2_147_483_647)]


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def new_token(prefix: str = "") -> str:
    return prefix + secrets.token_urlsafe(32)


def now_text(now: datetime) -> str:
    return now.astimezone(UTC).isoformat(timespec="microseconds")


async def get_store(request: Request) -> Store:  # async: no thread hop for a lookup
    return request.app.state.store


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


async def get_now(request: Request) -> datetime:
    """The server's clock (tests replace ``app.state.clock``)."""
    return request.app.state.clock()


def hasher(settings: Settings) -> PasswordHasher:
    return PasswordHasher(time_cost=settings.argon2_time_cost, memory_cost=settings.argon2_memory_cost)


@dataclass(frozen=True, slots=True)
class Caller:
    id: int
    name: str
    via: str  # "session" or "token"


def _caller(request: Request) -> Caller | None:
    store: Store = request.app.state.store
    auth = request.headers.get("authorization", "")
    token = None
    if auth:
        scheme, _, token = auth.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized("the Authorization header is 'Bearer <API token>'")
    elif request.url.path.endswith(".atom"):
        token = request.query_params.get("token")
    if token:
        row = store.token_caller(sha256(token.strip()))
        if row is None:
            raise Unauthorized("that API token is not valid", hint="create one with POST /api/tokens")
        if row.scope == "read" and request.method not in SAFE_METHODS:
            raise Forbidden("this API token only reads", hint="make a token with scope 'all' to post or change things")
        return Caller(row.id, row.name, "token")
    cookie = request.cookies.get(SESSION_COOKIE)
    if not cookie:
        return None
    row = store.session_caller(sha256(cookie))
    if row is None or row.expires_at <= now_text(request.app.state.clock()):
        raise Unauthorized("your session has expired", hint="log in again: POST /api/session")
    if request.method not in SAFE_METHODS:
        sent = request.headers.get(CSRF_HEADER, "")
        if not sent or not hmac.compare_digest(sent, row.csrf):
            raise Forbidden(
                f"missing or wrong {CSRF_HEADER} header", hint="send the csrf value you got when you logged in"
            )
    return Caller(row.user_id, row.name, "session")


def maybe_caller(request: Request) -> Caller | None:
    return _caller(request)


def caller(request: Request) -> Caller:
    c = _caller(request)
    if c is None:
        raise Unauthorized("log in first", hint="POST /api/session with your name and password, or send an API token")
    return c


async def get_work(request: Request) -> Work:
    return request.app.state.work  # type: ignore[no-any-return]


StoreDep = Annotated[Store, Depends(get_store)]
WorkDep = Annotated[Work, Depends(get_work)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
NowDep = Annotated[datetime, Depends(get_now)]
CallerDep = Annotated[Caller, Depends(caller)]
MaybeCallerDep = Annotated[Caller | None, Depends(maybe_caller)]
