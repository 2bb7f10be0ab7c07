"""Shared machinery for the HTML pages: templates, the signed-in reader, CSRF on forms, errors as pages.

The pages never decide who sees what: they call the JSON API's own route functions
(which go through ``web/access.py`` and ``play/views.py``) with the caller taken from
the session cookie, and render what those return.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from ...errors import StorymasterError
from ...present.markup import render_post, roll_anchor
from ..deps import SESSION_COOKIE, Caller, now_text, sha256

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
STATIC = Path(__file__).resolve().parent.parent / "static"

env = Environment(
    loader=FileSystemLoader(str(TEMPLATES)),
    autoescape=select_autoescape(default=True),
    trim_blocks=True,
    lstrip_blocks=True,
)
env.globals.update(render_post=render_post, roll_anchor=roll_anchor)


def _local(when: Any, zone: str | None = None) -> str:
    """A time as the reader reads it (their zone, else UTC): the page's text without scripts."""
    from ..notify import local_time

    return local_time(when, zone) if when else ""


env.filters["local"] = _local


@dataclass(frozen=True, slots=True)
class Visitor:
    caller: Caller
    csrf: str


class PageError(Exception):
    """An error to show as a page with this status."""

    def __init__(self, status: int, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.status, self.message, self.hint = status, message, hint


class SignInFirst(Exception):
    pass


def visitor(request: Request) -> Visitor | None:
    cookie = request.cookies.get(SESSION_COOKIE)
    if not cookie:
        return None
    store = request.app.state.store
    row = store.session_caller(sha256(cookie))
    if row is None or row.expires_at <= now_text(request.app.state.clock()):
        return None
    return Visitor(Caller(row.user_id, row.name, "session"), row.csrf)


def require(request: Request) -> Visitor:
    v = visitor(request)
    if v is None:
        raise SignInFirst()
    return v


async def read_form(request: Request) -> None:
    """Read the posted form on the event loop (the body arrives there), once, for ``form_of`` in the thread pool."""
    if request.method not in ("POST", "PUT", "PATCH"):
        return
    try:
        request.state.page_form = await request.form()
    except Exception as exc:  # malformed multipart and such
        request.state.page_form_error = PageError(400, "the form could not be read", str(exc))


def form_of(request: Request, v: Visitor | None) -> Any:
    """The posted form (read by ``run_page`` on the loop); 403 unless it carries the session's CSRF token
    (the same one the API wants as a header)."""
    problem = getattr(request.state, "page_form_error", None)
    if problem is not None:
        raise problem
    form = getattr(request.state, "page_form", None)
    if form is None:
        raise PageError(400, "the form could not be read", "send the form as the page does")
    if v is not None:
        sent = str(form.get("csrf") or request.headers.get("X-CSRF-Token") or "")
        if not sent or not hmac.compare_digest(sent, v.csrf):
            raise PageError(
                403, "this form has expired or did not come from this site", "reload the page and try again"
            )
    return form


def _guarded(request: Request, fn: Callable[[], Response]) -> Response:
    try:
        return fn()
    except SignInFirst:
        return to_sign_in(request)
    except (PageError, ValidationError, StorymasterError) as exc:
        return error_page(request, exc)


async def run_page(request: Request, fn: Callable[[], Response]) -> Response:
    """Run a page handler's work: the form is read here, on the loop; ``fn`` (a plain ``def``) and any
    error page run in the thread pool, so no page's database, rules or rendering work holds the event loop.
    Sign-in redirects and errors become pages (4xx, never 500)."""
    await read_form(request)
    return await run_in_threadpool(_guarded, request, fn)


def render(request: Request, template: str, status: int = 200, **ctx: Any) -> HTMLResponse:
    v = ctx.pop("v", None)
    if v is None:
        v = visitor(request)
    html = env.get_template(template).render(
        request=request, me=v.caller if v else None, csrf=v.csrf if v else "", **ctx
    )
    return HTMLResponse(html, status_code=status)


def error_message(exc: BaseException) -> tuple[int, str, str]:
    if isinstance(exc, PageError):
        return exc.status, exc.message, exc.hint
    if isinstance(exc, ValidationError):
        msgs = []
        for e in exc.errors()[:8]:
            where = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
            msgs.append(f"{where}: {e.get('msg')}" if where else str(e.get("msg")))
        return 422, "; ".join(msgs) or "invalid input", ""
    if isinstance(exc, StorymasterError):
        status = getattr(exc, "status", 422)
        message = getattr(exc, "message", str(exc))
        try:
            expression = exc.to_json().get("expression")
        except Exception:
            expression = None
        if expression:
            message = f"in the dice {expression!r}: {message}"
        return status, message, getattr(exc, "hint", "") or ""
    raise exc


def error_page(request: Request, exc: BaseException) -> HTMLResponse:
    status, message, hint = error_message(exc)
    return render(request, "error.html", status=status, status_code=status, message=message, hint=hint)


def to_sign_in(request: Request) -> RedirectResponse:
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/login?next={quote(target)}", status_code=303)


def see_other(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303)
