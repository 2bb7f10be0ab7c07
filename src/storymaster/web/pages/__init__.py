"""The web table's HTML pages (server-rendered Jinja2, a little plain JavaScript)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from .common import STATIC

__all__ = ["install", "page_routes"]


def _modules() -> list[Any]:
    """The page modules, one per resource (in this order: ``.../characters/new`` before ``.../{char}``)."""
    from . import account, auth, campaigns, characters, living, misc, portraits, scenes

    return [auth, account, campaigns, characters, living, portraits, scenes, misc]


def page_routes() -> list[Any]:
    """Every page route (for tests that walk them all)."""
    return [route for module in _modules() for route in module.router.routes]


def install(app: FastAPI) -> None:
    """Mount the page routes and the static files on the API's app."""
    for module in _modules():
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
