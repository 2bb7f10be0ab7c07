"""E-mail digests: per user, what happened in their campaigns since the last one, and whose turn it is.

Sent with :mod:`smtplib` to the configured SMTP server; each user's cursor
moves on only after their mail is accepted.
"""

from __future__ import annotations

import asyncio
import logging
import smtplib
from datetime import datetime
from email.message import EmailMessage
from html import escape
from typing import Any

from starlette.concurrency import run_in_threadpool

from ..play.views import Reader, can_read, post_view
from ..present.markup import plain_text, render_post
from ..store import Store
from .deps import now_text
from .settings import Settings

__all__ = [
    "compose_digest",
    "compose_digest_parts",
    "digest_loop",
    "local_time",
    "send_confirmation",
    "send_digest",
    "send_digests",
]

log = logging.getLogger("storymaster.web.notify")


def anchor_line(signer: Any, sid: int, seq: int, head: str | None) -> str:
    """A scene's log head as signed by the server, for mails and feeds (compare it with your export)."""
    a = signer.anchor(f"s:{sid}", seq, head) if signer is not None else None
    if a is None:
        return ""
    return f"log head: entry {a['seq']}, SHA-256 {a['hash']}, signed by key {a['key']}: {a['signature']}"


def local_time(when: datetime | str, zone: str | None) -> str:
    """``when`` as the reader reads it: in their time zone (UTC when they chose none), with the zone named."""
    from zoneinfo import ZoneInfo

    if isinstance(when, str):
        when = datetime.fromisoformat(when)
    if zone:
        try:
            local = when.astimezone(ZoneInfo(zone))
            return local.strftime("%Y-%m-%d %H:%M ") + (local.tzname() or zone) + f" ({zone})"
        except (KeyError, ValueError):
            pass
    from datetime import UTC

    return when.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def send_confirmation(settings: Settings, name: str, email: str, token: str) -> None:
    """Mail the link that confirms ``email`` belongs to this account (digests wait for it)."""
    link = f"{settings.base_url.rstrip('/')}/account/email/confirm?token={token}"
    msg = EmailMessage()
    msg["Subject"] = "Storymaster: confirm your e-mail address"
    msg["From"] = settings.smtp_from
    msg["To"] = email
    msg.set_content(
        f"Hello {name},\n\nTo receive your table's digests at this address, open this link while signed in:\n\n"
        f"{link}\n\nIf you did not ask for this, ignore this mail: nothing is sent to this address without it.\n"
    )
    with smtplib.SMTP(settings.smtp_host or "localhost", settings.smtp_port, timeout=10) as smtp:
        smtp.send_message(msg)


def compose_digest(store: Store, user: Any, now: datetime, signer: Any = None) -> str | None:
    """The digest's text for ``user`` (None when there is nothing new); each scene with its signed log head."""
    both = compose_digest_parts(store, user, now, signer)
    return None if both is None else both[0]


def compose_digest_parts(store: Store, user: Any, now: datetime, signer: Any = None) -> tuple[str, str] | None:
    """The digest as plain text and as HTML (each post through the page's renderer), or None when nothing is new."""
    since = store.digest_cursor(user.id) or user.created_at
    choice = getattr(user, "digest", "all") or "all"
    zone = getattr(user, "time_zone", None)
    campaigns = store.campaigns_of(user.id)
    lines: list[str] = []
    turns: list[str] = []
    html: list[str] = []
    for camp in campaigns:
        cid = camp["id"]
        for sid in store.scene_ids(cid):
            with store.reading_scene(sid) as (c, s):
                reader = Reader.of(c, user.id)
                if reader.role is None:
                    continue
                names = {m.user: m.name for m in c.members.values()}
                new = [p for p in s.posts.values() if p.at > since and can_read(p.audience, reader)]
                if new and choice == "all":
                    lines.append(f"\n{c.name} / {s.title}: {len(new)} new post(s)")
                    html.append(f"<h2>{escape(c.name)} / {escape(s.title)}: {len(new)} new post(s)</h2>")
                    for p in sorted(new, key=lambda p: p.seq)[:20]:
                        view = post_view(p, reader, s)
                        if view is None:
                            continue
                        who = view.get("character_name") or names.get(p.author, "?")
                        text = (
                            plain_text(view.get("text") or "(deleted)", rolls=view["rolls"]).strip().replace("\n", " ")
                        )
                        lines.append(f"  #{p.seq} {who}: {text[:200]}")
                        body = (
                            render_post(view["text"], rolls=view["rolls"], post=p.seq)
                            if "text" in view
                            else "<p>(deleted)</p>"
                        )
                        html.append(f"<h3>#{p.seq} {escape(who)}</h3>\n{body}")
                    if signer is not None:
                        lines.append("  " + anchor_line(signer, sid, s.head_seq, s.head_hash))
                        html.append(
                            f"<p><small>{escape(anchor_line(signer, sid, s.head_seq, s.head_hash))}</small></p>"
                        )
                mine = [c.characters[ch].name for ch in s.owed() if c.characters[ch].owner == user.id]
                if mine and (s.round_started or "") > since:  # once per round
                    deadline = s.deadline()
                    when = f" (deadline {local_time(deadline, zone)})" if deadline else ""
                    turns.append(f"  Your turn in {c.name} / {s.title}: {', '.join(mine)}{when}")
    if not lines and not turns:
        return None
    head = [f"Hello {user.name},", ""]
    if turns:
        head += ["Your turn:", *turns, ""]
    text = "\n".join([*head, "What happened since your last digest:" if lines else "", *lines, ""])
    page = [f"<p>Hello {escape(user.name)},</p>"]
    if turns:
        page += ["<p>Your turn:</p><ul>", *(f"<li>{escape(t.strip())}</li>" for t in turns), "</ul>"]
    if html:
        page += ["<p>What happened since your last digest:</p>", *html]
    return text, "<!doctype html><html><body>" + "\n".join(page) + "</body></html>"


def send_digest(store: Store, settings: Settings, user: Any, now: datetime, signer: Any = None) -> bool:
    if not user.email or getattr(user, "email_confirmed_at", None) is None or getattr(user, "digest", "all") == "off":
        return False  # an address gets mail only once its link came back
    both = compose_digest_parts(store, user, now, signer)
    if both is None:
        return False
    text, html = both
    msg = EmailMessage()
    msg["Subject"] = "Storymaster: your table digest"
    msg["From"] = settings.smtp_from
    msg["To"] = user.email
    msg.set_content(text)
    msg.add_alternative(html, subtype="html")
    with smtplib.SMTP(settings.smtp_host or "localhost", settings.smtp_port, timeout=10) as smtp:
        smtp.send_message(msg)
    store.set_digest_cursor(user.id, now_text(now))
    return True


def send_digests(store: Store, settings: Settings, now: datetime, signer: Any = None) -> int:
    sent = 0
    for user in store.users_with_email():
        try:
            sent += send_digest(store, settings, user, now, signer)
        except (OSError, smtplib.SMTPException) as exc:
            log.warning("digest for %s not sent: %s", user.name, exc)
    return sent


async def digest_loop(app: Any) -> None:  # pragma: no cover - timing loop around send_digests
    settings: Settings = app.state.settings
    while True:
        await asyncio.sleep(settings.digest_every)
        await run_in_threadpool(send_digests, app.state.store, settings, app.state.clock(), app.state.signer)
