"""The web table's HTML pages (server-rendered Jinja2, a little plain JavaScript)."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from .common import STATIC

__all__ = ["install"]


def install(app: FastAPI) -> None:
    """Mount the page routes and the static files on the API's app."""
    from .routes import router

    app.include_router(router)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
