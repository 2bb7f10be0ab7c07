"""What the reader's pages add to their context: the dashboard's lines (posts owed by you, unread, deadlines,
closed scenes) with the count for the tab's title, and one page of a scene's story (marking it read).

Both read through ``play.reading``, which goes through ``play.views``: a page counts and shows a reader
only what the API would show them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ...play.reading import PAGE_SIZE, story_page
from ..access import member
from ..routers.live import dashboard

__all__ = ["dashboard_ctx", "reader_zone", "story_ctx"]


def reader_zone(store: Any, user: int) -> str | None:
    """The reader's chosen time zone (None: UTC on the page, the browser's own with scripts)."""
    row = store.user(user)
    return (getattr(row, "time_zone", None) or None) if row is not None else None


def dashboard_ctx(store: Any, user: int, now: datetime, cids: list[int] | None = None) -> dict[str, Any]:
    """``lines`` per campaign id (or one campaign's list when ``cids`` has one id) and the totals."""
    per = dashboard(store, user, now, cids)
    every = [ln for lines in per.values() for ln in lines]
    owed = sum(ln["posts_owed"] for ln in every)
    unread = sum(ln["unread"] for ln in every)
    ctx: dict[str, Any] = {
        "owed_total": owed,
        "unread_total": unread,
        "attention": owed + unread,
        "tz": reader_zone(store, user),
    }
    ctx["lines"] = per[cids[0]] if cids is not None and len(cids) == 1 else per
    return ctx


def story_ctx(
    store: Any, user: Any, sid: int, *, before: int | None = None, after: int | None = None, size: int = PAGE_SIZE
) -> dict[str, Any]:
    """One page of the story for the template (``posts``: posts and turn events, oldest first; ``page``: the
    cursors), the portraits' versions, and the reader's zone. Showing the newest page marks the scene read
    up to its head."""
    with store.reading_scene(sid) as (c, s):
        reader = member(c, user)
        page = story_page(s, reader, before=before, after=after, size=size)
        head, cid = s.head_seq, c.id
    if page.newest and store.read_marks(user.id, [sid]).get(sid, 0) < head:  # a write only when it moves
        store.mark_read(user.id, sid, head)
    return {
        "posts": page.items,
        "page": page,
        "last_post": page.last,
        "portraits": store.portrait_versions(cid),
        "tz": reader_zone(store, user.id),
    }
