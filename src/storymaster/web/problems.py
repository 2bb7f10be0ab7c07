"""Every error as RFC 9457 problem details: ``type``, ``title``, ``status``, ``detail`` (+ ``hint``, ``errors``)."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import DataError, OperationalError
from sqlalchemy.exc import TimeoutError as SQLAlchemyTimeout
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import CharacterError, StorymasterError
from ..play.errors import TableError

__all__ = ["install", "problem"]

log = logging.getLogger("storymaster.web")
MEDIA = "application/problem+json"


def problem(
    status: int, detail: str, *, code: str | None = None, headers: dict[str, str] | None = None, **extra: Any
) -> JSONResponse:
    title = HTTPStatus(status).phrase
    body = {
        "type": f"https://storymaster.invalid/problems/{code or title.lower().replace(' ', '-')}",
        "title": title,
        "status": status,
        "detail": detail,
    }
    body.update({k: v for k, v in extra.items() if v is not None})
    return JSONResponse(body, status_code=status, media_type=MEDIA, headers=headers)


def _status_of(exc: StorymasterError) -> int:
    if isinstance(exc, TableError):
        return exc.status
    return 422  # a rules, dice or input error: the request was understood but cannot be done


def wants_page(request: Request) -> bool:
    """A browser asking for a page (not the API, the feed, the key or a static file)."""
    path = request.url.path
    if path.startswith(("/api/", "/.well-known/", "/static/")) or path == "/api":
        return False
    return "application/json" not in request.headers.get("accept", "")


def not_found_page(request: Request) -> Response:
    """The HTML 404 page: what was asked for, and where to go."""
    from .pages.common import render

    return render(
        request,
        "error.html",
        status=404,
        status_code=404,
        message=f"there is no page at {request.url.path[:200]}",
        hint="check the address, or start from your campaigns",
    )


def install(app: FastAPI) -> None:
    @app.exception_handler(StorymasterError)
    async def _storymaster(request: Request, exc: StorymasterError) -> JSONResponse:
        extra: dict[str, Any] = {"hint": exc.hint}
        data = exc.to_json()
        for key in ("expression", "position"):
            if key in data:
                extra[key] = data[key]
        if isinstance(exc, CharacterError):
            extra["problems"] = data["problems"]
        where = getattr(exc, "where", None)
        if isinstance(where, str) and where:  # a rules input error names the field it is about
            extra["where"] = where
        headers = {"WWW-Authenticate": "Bearer"} if _status_of(exc) == 401 else None
        retry_after = getattr(exc, "retry_after", None)
        if retry_after:
            headers = {"Retry-After": str(retry_after)}
        return problem(_status_of(exc), exc.message, code=exc.code, headers=headers, **extra)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err.get("loc", ()))
            errors.append({"where": loc, "message": err.get("msg", "")})
        detail = "; ".join(f"{e['where']}: {e['message']}" for e in errors[:5]) or "the request is not valid"
        return problem(422, detail, code="invalid-request", errors=errors)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        detail = exc.detail if isinstance(exc.detail, str) else HTTPStatus(exc.status_code).phrase
        if exc.status_code == 404 and wants_page(request):
            return await run_in_threadpool(not_found_page, request)
        return problem(exc.status_code, detail, headers=getattr(exc, "headers", None))

    @app.exception_handler(DataError)
    async def _data(request: Request, exc: DataError) -> JSONResponse:
        # a value the database cannot hold (a number out of range, a text it cannot store)
        log.info("database refused a value on %s %s: %s", request.method, request.url.path, exc.orig)
        return problem(
            422,
            "a value in the request cannot be stored (out of range or not storable text)",
            code="invalid-request",
            hint="check numbers are in range and text has no control characters",
        )

    @app.exception_handler(RecursionError)
    async def _deep(request: Request, exc: RecursionError) -> JSONResponse:
        return problem(422, "the request is nested too deeply", code="invalid-request")

    @app.exception_handler(SQLAlchemyTimeout)
    @app.exception_handler(OperationalError)
    async def _busy(request: Request, exc: Exception) -> JSONResponse:
        log.warning("database busy on %s %s: %s", request.method, request.url.path, exc)
        return problem(503, "the table is busy; try again in a moment", code="busy", headers={"Retry-After": "1"})

    @app.exception_handler(Exception)
    async def _internal(
        request: Request, exc: Exception
    ) -> JSONResponse:  # pragma: no cover - tests assert it never runs
        log.exception("internal error on %s %s", request.method, request.url.path)
        return problem(
            500, "internal error: this is a bug in Storymaster; the server log has the details", code="internal"
        )
