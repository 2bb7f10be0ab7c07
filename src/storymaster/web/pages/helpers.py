"""Helpers shared by the page modules.

The app's store, clock and settings; form values; typed YAML; a campaign's page context.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request

from ...rules import get_system
from .. import jobs
from ..routers import campaigns, invites
from ..work import Work
from .common import (
    PageError,
    Visitor,
)

VISIBILITY_TEXT = {
    "public": "public: everyone who reads the post",
    "gm": "GM: the GM and you",
    "blind": "blind: the GM only, not even you",
    "self": "self: only you",
}


def now_of(request: Request):
    return request.app.state.clock()


def store_of(request: Request):
    return request.app.state.store


def settings_of(request: Request):
    return request.app.state.settings


def throttle_of(request: Request):
    return request.app.state.throttle


def safe_next(url: str | None) -> str:
    ok = url and url.startswith("/") and not url.startswith(("//", "/\\")) and "\n" not in url and "\r" not in url
    return url if url and ok else "/campaigns"


def whole(value: Any, what: str) -> int | None:
    if value in (None, ""):
        return None
    try:
        n = int(str(value))
    except ValueError:
        raise PageError(422, f"{what} must be a whole number") from None
    if not 1 <= n <= 2_147_483_647:
        raise PageError(422, f"{what} is out of range")
    return n


def work_of(request: Request) -> Work:
    """The app's compute pool with its budget (``web/work.py``): heavy rules work goes through it."""
    return request.app.state.work  # type: ignore[no-any-return]


def parse_doc(request: Request, text: str, what: str) -> Any:
    """YAML a member typed on a page, parsed in a compute worker within the budget by the safe loader
    (no aliases or anchors) and refused when it stands for more than the body limit written out."""
    if not text.strip():
        return {}
    return work_of(request).call(jobs.parse_document, text, what, settings_of(request).max_body, what="YAML")


def sheet_report(request: Request, system_name: str, sheet: dict[str, Any], house_rules: Any) -> dict[str, Any]:
    """The builder's report on a stored or starter sheet, checked in a compute worker."""
    return work_of(request).call(  # type: ignore[no-any-return]
        jobs.sheet_check, jobs.system_ref(system_name), dict(sheet), dict(house_rules or {}), what="sheet check"
    )


def house_rules_controls(system: Any, values: Any) -> list[dict[str, Any]]:
    """The system's house rules as controls (forms.py), holding ``values`` over the rules as written: every
    option a labelled control with the book's default and its description."""
    from pydantic import ValidationError

    from .forms import controls

    model = system.house_rules_model
    try:
        shown = model.model_validate(values or {}).model_dump(mode="json")
    except ValidationError:  # what was submitted and refused: shown as it was
        shown = {**model().model_dump(mode="json"), **dict(values or {})}
    return controls(model, shown, prefix="hr")


def campaign_ctx(request: Request, v: Visitor, cid: int) -> dict[str, Any]:
    store = store_of(request)
    view = campaigns.read(cid, store, v.caller)
    system = get_system(view["system"])
    book = system.house_rules_model().model_dump(mode="json")
    ctx: dict[str, Any] = {
        "c": view,
        "system_name": view["system"],
        "system": system,
        "names": {m["user"]: m["name"] for m in view["members"]},
        # the options the GM changed (the campaign keeps every option, the book's value where unchanged)
        "house_rules_changed": {k: val for k, val in (view["house_rules"] or {}).items() if val != book.get(k)},
    }
    if view["your_role"] == "gm":
        ctx["notes"] = campaigns.notes(cid, store, v.caller)
        ctx["invites"] = invites.list_invites(cid, store, v.caller, now_of(request))
        ctx["house_rules_nodes"] = house_rules_controls(system, view["house_rules"])
    return ctx
