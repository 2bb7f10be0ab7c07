"""E-mail: your address (confirmed by a mailed link before any digest goes to it), your digest settings,
and your digest on request (the server also sends them on a timer when configured)."""

from __future__ import annotations

import smtplib
from datetime import timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from fastapi import APIRouter, Request
from pydantic import Field, field_validator

from ...play.errors import Conflict, NotFound, TableError
from ..accounts import EMAIL_LINK_HOURS, email_address
from ..deps import CallerDep, NowDep, SettingsDep, StoreDep, new_token, now_text, sha256
from ..notify import compose_digest, send_confirmation, send_digest
from ..schemas import In

router = APIRouter(prefix="/api/me", tags=["notifications"])

DIGEST_CHOICES = ("all", "turns", "off")


class EmailIn(In):
    email: str | None = Field(None, max_length=254, description="your address (null clears it)")

    @field_validator("email")
    @classmethod
    def _real_address(cls, v: str | None) -> str | None:
        return email_address(v) if v else None


class ConfirmIn(In):
    token: str = Field(min_length=1, max_length=200, description="the token from the link mailed to you")


class ReaderSettingsIn(In):
    digest: Literal["all", "turns", "off"] | None = Field(
        None, description="what your digest carries: all (new posts and your turns), turns (only your turns), off"
    )
    time_zone: str | None = Field(
        None, max_length=64, description="an IANA time zone such as Europe/Paris, for deadlines ('' for UTC)"
    )

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, v: str | None) -> str | None:
        return time_zone(v) if v is not None else None


def time_zone(text: str) -> str:
    """An IANA zone name the server knows ('' stays '': UTC), or ValueError."""
    text = text.strip()
    if not text:
        return ""
    try:
        ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"no time zone {text!r}: use an IANA name such as Europe/Paris or America/New_York") from None
    return text


class MailUnavailable(TableError):
    code = "mail-unavailable"
    status = 503


def set_address(store: Any, settings: Any, caller: Any, email: str | None, now: Any) -> dict[str, Any]:
    """Store the new address unconfirmed and mail it a confirmation link (when the server can send mail)."""
    if email is None:
        store.set_pending_email(caller.id, None, None, None)
        return {"email": None, "confirmed": False, "link_sent": False}
    token = new_token()
    expires = now_text(now + timedelta(hours=EMAIL_LINK_HOURS))
    store.set_pending_email(caller.id, email, sha256(token), expires)
    sent = False
    if settings.smtp_host:
        try:
            send_confirmation(settings, caller.name, email, token)
            sent = True
        except (OSError, smtplib.SMTPException) as exc:
            raise MailUnavailable(f"the SMTP server did not take the confirmation mail: {exc}") from None
    return {"email": email, "confirmed": False, "link_sent": sent}


def confirm(store: Any, caller: Any, token: str, now: Any) -> dict[str, Any]:
    if not store.confirm_email(caller.id, sha256(token), now_text(now)):
        raise NotFound(
            "this confirmation link is not valid (unknown, already used, expired, or for another account)",
            hint="sign in as the account the address belongs to, or ask for a new link on your account page",
        )
    return {"email": store.user(caller.id).email, "confirmed": True}


@router.put("/email", summary="Set (or clear) your address: a confirmation link is mailed to it")
def set_email(body: EmailIn, store: StoreDep, settings: SettingsDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    return set_address(store, settings, caller, body.email, now)


@router.post("/email/confirm", summary="Confirm your address with the token from the mailed link")
def confirm_email(body: ConfirmIn, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    return confirm(store, caller, body.token, now)


@router.get("/settings", summary="Your e-mail address, whether it is confirmed, your digest choice and time zone")
def reader_settings(store: StoreDep, caller: CallerDep) -> dict[str, Any]:
    row = store.user(caller.id)
    return {
        "email": row.email,
        "confirmed": row.email_confirmed_at is not None,
        "digest": row.digest,
        "time_zone": row.time_zone or "",
    }


@router.patch("/settings", summary="Change your digest choice or time zone")
def change_settings(body: ReaderSettingsIn, store: StoreDep, caller: CallerDep) -> dict[str, Any]:
    store.set_reader_settings(caller.id, **body.model_dump(exclude_none=True))
    return reader_settings(store, caller)


@router.get("/digest", summary="Preview your digest (not sent)")
def preview_digest(request: Request, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    return {"text": compose_digest(store, store.user(caller.id), now, request.app.state.signer)}


@router.post("/digest", summary="Send your digest now by e-mail (to your confirmed address)")
def send_my_digest(
    request: Request, store: StoreDep, settings: SettingsDep, caller: CallerDep, now: NowDep
) -> dict[str, Any]:
    user = store.user(caller.id)
    if not settings.smtp_host:
        raise MailUnavailable("this server has no SMTP server configured", hint="start it with --smtp HOST:PORT")
    if not user.email:
        raise Conflict("you have no e-mail address", hint="PUT /api/me/email")
    if user.email_confirmed_at is None:
        raise Conflict(
            "your e-mail address is not confirmed yet",
            hint="open the link mailed to it, or set it again for a new link (PUT /api/me/email)",
        )
    try:
        sent = send_digest(store, settings, user, now, request.app.state.signer)
    except (OSError, smtplib.SMTPException) as exc:
        raise MailUnavailable(f"the SMTP server did not take the mail: {exc}") from None
    return {"sent": sent}
