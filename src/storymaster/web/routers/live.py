"""Server-sent events per scene, an Atom feed per scene, and "your turn" notices."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import datetime
from typing import Any
from xml.sax.saxutils import escape as _escape

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from ...play.errors import TableError
from ...play.reading import changed_posts, item_view, scene_line, story_page
from ...play.views import Reader, scene_view
from ...present.markup import render_post
from ..access import member
from ..deps import CallerDep, Id, StoreDep
from ..notify import anchor_line
from ..story import item_html, turn_html

#: characters XML 1.0 cannot carry (new text refuses them; a log written before may hold some)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def escape(text: str) -> str:
    """Text for the feed: XML-escaped, characters XML cannot hold replaced by U+FFFD."""
    return _escape(_NOT_XML.sub("\ufffd", str(text)))


router = APIRouter(tags=["live"])

#: posts in the Atom feed (the newest)
FEED_SIZE = 100


class TooManyStreams(TableError):
    code = "too-many-streams"
    status = 429


def _changes(
    store: Any, sid: int, caller: Any, after: int, *, html: bool = False, zone: str | None = None
) -> tuple[int, list[tuple[int, str, dict[str, Any]]]]:
    """What changed after log entry ``after`` that this caller may see: (new head, [(id, event, data)]).

    Only the posts (and turn events) the new entries created or changed, each as the reader may see it,
    then the scene; with ``html`` each carries its markup (the page inserts it as it is). The cost and the
    bytes grow with the new entries, not with the scene's length.
    """
    with store.reading_scene(sid) as (c, s):
        reader = member(c, caller)
        if s.head_seq <= after:
            return s.head_seq, []
        out: list[tuple[int, str, dict[str, Any]]] = []
        scene = scene_view(s, c, reader)
        portraits = store.portrait_versions(c.id) if html else {}
        for ref in changed_posts(s, store.scene_log(sid, after)):
            view = item_view(s, reader, ref)
            if view is None:
                continue
            if html:
                view["html"] = item_html(view, c, scene, reader, portraits, zone)
            out.append((ref, "post" if view["type"] == "post" else "event", view))
        if html:
            scene = {**scene, "turn_html": turn_html(c, scene, reader, portraits, zone)}
        out.append((s.head_seq, "scene", scene))
        return s.head_seq, out


@router.get(
    "/api/scenes/{sid}/events", summary="Live updates (text/event-stream): posts as you may see them, and the scene"
)
async def scene_events(
    sid: Id,
    request: Request,
    store: StoreDep,
    caller: CallerDep,
    after: int | None = Query(
        None, ge=0, le=2_147_483_647, description="resume after this log entry (or send Last-Event-ID)"
    ),
    max_seconds: float = Query(
        3600, gt=0, le=86400, description="close the stream after this long (clients reconnect)"
    ),
    html: bool = Query(False, description="each post, turn event and the turn box also carry their HTML"),
) -> StreamingResponse:
    streams = request.app.state.streams
    cap = request.app.state.settings.max_streams_per_user
    if streams[caller.id] >= cap:
        raise TooManyStreams(
            f"you already have {cap} live streams open on this server",
            hint="close a tab, or poll GET /api/scenes/{id}/posts?after=N instead",
        )
    last_id = request.headers.get("last-event-id")
    start = after if after is not None else int(last_id) if last_id and last_id.isdigit() else None
    head, _ = await run_in_threadpool(_changes, store, sid, caller, 2**31)  # checks membership now, not mid-stream
    zone = None
    if html:
        row = await run_in_threadpool(store.user, caller.id)
        zone = getattr(row, "time_zone", None) if row is not None else None
    cursor = head if start is None else start
    broker = request.app.state.broker
    poll = request.app.state.settings.sse_poll_seconds
    key = f"s:{sid}"

    async def stream():
        nonlocal cursor
        streams[caller.id] += 1
        token = broker.subscribe(key)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max_seconds
        try:
            yield f"retry: 2000\nevent: hello\ndata: {json.dumps({'scene': sid, 'head': cursor})}\n\n"
            while loop.time() < deadline:
                new_head, events = await run_in_threadpool(_changes, store, sid, caller, cursor, html=html, zone=zone)
                for _ref, name, data in events:
                    # a resumed stream starts again at this batch (inserting a post twice replaces it)
                    event_id = new_head if name == "scene" else cursor
                    yield f"id: {event_id}\nevent: {name}\ndata: {json.dumps(data)}\n\n"
                if html and new_head > cursor:  # an open page shows what the stream brought: read
                    await run_in_threadpool(store.mark_read, caller.id, sid, new_head)
                cursor = max(cursor, new_head)
                _, event = token
                event.clear()
                try:
                    await asyncio.wait_for(event.wait(), timeout=min(poll, max(0.01, deadline - loop.time())))
                except TimeoutError:
                    yield ": keep-alive\n\n"
                if await request.is_disconnected():
                    break
        finally:
            broker.unsubscribe(key, token)
            streams[caller.id] -= 1
            if streams[caller.id] <= 0:
                del streams[caller.id]

    return StreamingResponse(
        stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    )


@router.get(
    "/api/scenes/{sid}/feed.atom", summary="Atom feed of the posts you may read (an API token may go in ?token=)"
)
def scene_feed(sid: Id, request: Request, store: StoreDep, caller: CallerDep) -> Response:
    with store.reading_scene(sid) as (c, s):
        reader = member(c, caller)
        posts = story_page(s, reader, size=FEED_SIZE).posts
        names = {m.user: m.name for m in c.members.values()}
        base = str(request.base_url).rstrip("/")
        updated = posts[-1]["at"] if posts else s.opened_at
        parts = [
            '<?xml version="1.0" encoding="utf-8"?>',
            '<feed xmlns="http://www.w3.org/2005/Atom">',
            f"<title>{escape(s.title)}</title>",
            f"<id>{escape(base)}/api/scenes/{sid}</id>",
            f'<link rel="self" href="{escape(base)}/api/scenes/{sid}/feed.atom"/>',
            f'<link rel="alternate" type="text/html" href="{escape(base)}/scenes/{sid}"/>',
            f"<updated>{escape(updated)}</updated>",
        ]
        anchor = anchor_line(request.app.state.signer, sid, s.head_seq, s.head_hash)
        if anchor:
            parts.append(f"<subtitle>{escape(anchor)}</subtitle>")
        for p in reversed(posts):
            who = p.get("character_name") or names.get(p["author"], "")
            if "text" in p:  # the page's renderer; in-post links point at the scene's page
                character = p.get("character") if p["kind"] == "ic" else None
                html = str(render_post(p["text"], rolls=p["rolls"], post=p["id"], character=character))
                html = html.replace('href="#', f'href="{base}/scenes/{sid}#')
            else:
                html = "<p>(deleted)</p>"
            rolls = [roll_line(r, names) for r in p["rolls"]]
            if rolls:
                html += "<ul>" + "".join(f"<li>{_escape(line)}</li>" for line in rolls) + "</ul>"
            parts += [
                "<entry>",
                f"<title>{escape(p['kind'].upper())} #{p['id']}: {escape(who)}</title>",
                f"<id>{escape(base)}/api/scenes/{sid}/posts/{p['id']}</id>",
                f'<link rel="alternate" type="text/html" href="{escape(post_url(base, sid, p["id"]))}"/>',
                f"<updated>{escape(p['history'][-1]['edited_at'] if p.get('history') else p['at'])}</updated>",
                f"<published>{escape(p['at'])}</published>",
                f"<author><name>{escape(names.get(p['author'], str(p['author'])))}</name></author>",
                f'<content type="html">{escape(html)}</content>',
                "</entry>",
            ]
        parts.append("</feed>")
    return Response("\n".join(parts), media_type="application/atom+xml")


def post_url(base: str, sid: int, pid: int) -> str:
    """The scene page that shows post ``pid`` (last on its page, the posts before it above)."""
    return f"{base}/scenes/{sid}?before={pid + 1}#post-{pid}"


def roll_line(r: dict[str, Any], names: dict[int, str]) -> str:
    """A roll as one line of text, as this reader may see it (a hidden roll names only its digest)."""
    who = names.get(r.get("by", -1), "?")
    label = r.get("label") or ""
    if r.get("hidden"):
        return f"[{r['visibility']} roll by {who}] {label or 'a roll'}: hidden from you (digest {r['sha256'][:16]})"
    if r.get("type") == "check":
        outcome = r.get("outcome") or {}
        verdict = "success" if outcome.get("success") else "failure"
        what = label or r["check"].get("type", "check")
        return f"[{r['visibility']} roll by {who}] {what}: {outcome.get('result')} ({verdict})"
    if r.get("type") == "combat":
        return f"[{r['visibility']} roll by {who}] {label}"
    expr = r.get("expression", "")
    return f"[{r['visibility']} roll by {who}] {label + ' ' if label else ''}{expr}: {r.get('total')}"


def dashboard(store: Any, user: int, now: datetime, cids: list[int] | None = None) -> dict[int, list[dict[str, Any]]]:
    """Per campaign (all of the user's, or ``cids``), each scene's line for this reader: posts owed by you,
    unread posts (from the reader's mark), the deadline, open or closed. Newest scenes first, closed last."""
    camps = [c["id"] for c in store.campaigns_of(user)] if cids is None else cids
    out: dict[int, list[dict[str, Any]]] = {}
    for cid in camps:
        sids = store.scene_ids(cid)
        marks = store.read_marks(user, sids)
        lines = []
        for sid in sids:
            with store.reading_scene(sid) as (c, s):
                reader = Reader.of(c, user)
                if reader.role is None:
                    break
                lines.append(scene_line(s, c, reader, marks.get(sid, 0), now))
        lines.sort(key=lambda ln: (ln["closed"], -ln["posts_owed"], -ln["id"]))
        out[cid] = lines
    return out


@router.get("/api/me/scenes", summary="Every scene of your campaigns: posts owed by you, unread, deadline, state")
def my_scenes(store: StoreDep, caller: CallerDep, request: Request) -> list[dict[str, Any]]:
    now: datetime = request.app.state.clock()
    return [line for lines in dashboard(store, caller.id, now).values() for line in lines]


@router.get("/api/me/turns", summary="Your turn: turn-based scenes where one of your characters owes a post")
def my_turns(store: StoreDep, caller: CallerDep, request: Request) -> list[dict[str, Any]]:
    now: datetime = request.app.state.clock()
    out = []
    for camp in store.campaigns_of(caller.id):
        for sid in store.scene_ids(camp["id"]):
            with store.reading_scene(sid) as (c, s):
                mine = [ch for ch in s.owed() if c.characters[ch].owner == caller.id]
                if mine:
                    deadline = s.deadline()
                    out.append(
                        {
                            "campaign": c.id,
                            "scene": sid,
                            "title": s.title,
                            "round": s.round,
                            "characters": [{"id": ch, "name": c.characters[ch].name} for ch in mine],
                            "deadline": deadline.isoformat() if deadline else None,
                            "late": bool(deadline and now >= deadline),
                        }
                    )
    return out
