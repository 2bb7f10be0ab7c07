"""E-mail digests on request: your own digest now (the server also sends them on a timer when configured)."""

from __future__ import annotations

import smtplib
from typing import Any

from fastapi import APIRouter, Request
from pydantic import Field

from ...play.errors import Conflict, TableError
from ..deps import CallerDep, NowDep, SettingsDep, StoreDep
from ..notify import compose_digest, send_digest
from ..schemas import In

router = APIRouter(prefix="/api/me", tags=["notifications"])


class EmailIn(In):
    email: str | None = Field(None, max_length=254, pattern=r"^[^@\s]+@[^@\s]+$")


class MailUnavailable(TableError):
    code = "mail-unavailable"
    status = 503


@router.put("/email", summary="Set (or clear) the address your digests go to")
def set_email(body: EmailIn, store: StoreDep, caller: CallerDep) -> dict[str, Any]:
    store.set_email(caller.id, body.email)
    return {"email": body.email}


@router.get("/digest", summary="Preview your digest (not sent)")
def preview_digest(request: Request, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    return {"text": compose_digest(store, store.user(caller.id), now, request.app.state.signer)}


@router.post("/digest", summary="Send your digest now by e-mail")
def send_my_digest(
    request: Request, store: StoreDep, settings: SettingsDep, caller: CallerDep, now: NowDep
) -> dict[str, Any]:
    user = store.user(caller.id)
    if not settings.smtp_host:
        raise MailUnavailable("this server has no SMTP server configured", hint="start it with --smtp HOST:PORT")
    if not user.email:
        raise Conflict("you have no e-mail address", hint="PUT /api/me/email")
    try:
        sent = send_digest(store, settings, user, now, request.app.state.signer)
    except (OSError, smtplib.SMTPException) as exc:
        raise MailUnavailable(f"the SMTP server did not take the mail: {exc}") from None
    return {"sent": sent}
