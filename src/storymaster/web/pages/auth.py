"""Sign-in, sign-up and sign-out pages, and the front page.

Every handler reads the posted form on the event loop and runs its work (``go``) in the
thread pool (``common.run_page``).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import ValidationError

from ...errors import StorymasterError
from ..accounts import TooManyTries
from ..deps import CSRF_COOKIE, SESSION_COOKIE, sha256
from ..routers import auth
from ..schemas import (
    LoginIn,
    RegisterIn,
)
from .common import (
    error_message,
    form_of,
    render,
    require,
    run_page,
    see_other,
    visitor,
)
from .helpers import (
    now_of,
    safe_next,
    settings_of,
    store_of,
    throttle_of,
)

router = APIRouter(include_in_schema=False)


@router.get("/", response_class=HTMLResponse)
async def home(request: Request) -> Response:
    def go():
        if visitor(request):
            return see_other("/campaigns")
        return render(request, "home.html")

    return await run_page(request, go)


@router.get("/login", response_class=HTMLResponse)
async def login_page(request: Request, next: str = "/campaigns") -> Response:
    def go():
        return render(request, "login.html", next=safe_next(next), error="")

    return await run_page(request, go)


@router.post("/login", response_class=HTMLResponse)
async def login_submit(request: Request) -> Response:
    def go():
        form = form_of(request, None)
        nxt = safe_next(str(form.get("next") or ""))
        name, password = str(form.get("name") or ""), str(form.get("password") or "")
        try:
            auth.check_origin(request)
            body = LoginIn(name=name, password=password)
            resp = see_other(nxt)
            auth.sign_in(
                body,
                resp,
                store_of(request),
                settings_of(request),
                now_of(request),
                auth.client_of(request),
                throttle_of(request),
            )
            return resp
        except TooManyTries as exc:
            return render(request, "login.html", status=429, next=nxt, error=exc.message, name=name)
        except (ValidationError, StorymasterError):
            return render(request, "login.html", status=401, next=nxt, error="Wrong name or password.", name=name)

    return await run_page(request, go)


@router.get("/signup", response_class=HTMLResponse)
async def signup_page(request: Request, next: str = "/campaigns") -> Response:
    def go():
        return render(request, "signup.html", next=safe_next(next), error="")

    return await run_page(request, go)


@router.post("/signup", response_class=HTMLResponse)
async def signup_submit(request: Request) -> Response:
    def go():
        form = form_of(request, None)
        nxt = safe_next(str(form.get("next") or ""))
        name, password, email = (
            str(form.get("name") or ""),
            str(form.get("password") or ""),
            str(form.get("email") or "") or None,
        )
        try:
            auth.check_origin(request)
            auth.create_account(
                RegisterIn(name=name, password=password, email=email),
                store_of(request),
                settings_of(request),
                now_of(request),
            )
            resp = see_other(nxt)
            auth.sign_in(
                LoginIn(name=name, password=password),
                resp,
                store_of(request),
                settings_of(request),
                now_of(request),
                auth.client_of(request),
                throttle_of(request),
            )
            return resp
        except (ValidationError, StorymasterError) as exc:
            _, message, _ = error_message(exc)
            return render(request, "signup.html", status=422, next=nxt, error=message, name=name, email=email or "")

    return await run_page(request, go)


@router.post("/logout")
async def logout(request: Request) -> Response:
    def go():
        v = require(request)
        form_of(request, v)
        cookie = request.cookies.get(SESSION_COOKIE)
        if cookie:
            store_of(request).delete_session(sha256(cookie))
        resp = see_other("/")
        resp.delete_cookie(SESSION_COOKIE)
        resp.delete_cookie(CSRF_COOKIE)
        return resp

    return await run_page(request, go)
