"""The reader's side of a scene: one page of the story, what changed since a log entry, and a scene's line
on the dashboard (posts owed by you, unread, deadline, open or closed).

Everything goes through :mod:`.views`, so a page, a live update and a dashboard count show a reader only
what :func:`~.views.post_view` shows them: a private post they are not among the readers of is neither
shown nor counted, a hidden roll stays a digest.

Costs: a page walks the scene's posts from the newest (or from the ``before`` cursor) back and stops after
``size`` readable posts, so the first screen costs the same at 100 posts and at 10,000; a delta reads only
the log entries after the cursor; an unread count walks back only to the reader's mark.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .campaign import GM, CampaignState
from .log import Entry
from .scene import TURN, SceneState
from .views import Reader, can_read, post_view

__all__ = [
    "PAGE_SIZE",
    "StoryPage",
    "changed_posts",
    "gm_owes",
    "item_view",
    "owed_by",
    "scene_line",
    "story_page",
    "unread",
]

#: posts on one page of the story (the newest page first; "earlier posts" go back)
PAGE_SIZE = 50


@dataclass(slots=True)
class StoryPage:
    """Posts (as the reader may see them) and turn events, oldest first; cursors to the pages around."""

    items: list[dict[str, Any]] = field(default_factory=list)
    #: ``before=`` for the page of earlier posts (None: this page starts at the first post)
    earlier: int | None = None
    #: ``after=`` for the page of later posts (None: this page ends at the newest post)
    later: int | None = None
    #: the newest post id shown (0 when none)
    last: int = 0

    @property
    def newest(self) -> bool:
        return self.later is None

    @property
    def posts(self) -> list[dict[str, Any]]:
        return [i for i in self.items if i["type"] == "post"]


def _newest_first(s: SceneState, reader: Reader, below: int | None) -> Iterator[int]:
    """Post ids the reader may read, newest first, below ``below``."""
    for seq in reversed(s.posts):
        if below is not None and seq >= below:
            continue
        if can_read(s.posts[seq].audience, reader):
            yield seq


def _oldest_first(s: SceneState, reader: Reader, above: int) -> Iterator[int]:
    """Post ids the reader may read, oldest first, above ``above``."""
    for seq in s.posts:
        if seq > above and can_read(s.posts[seq].audience, reader):
            yield seq


def story_page(
    s: SceneState, reader: Reader, *, before: int | None = None, after: int | None = None, size: int = PAGE_SIZE
) -> StoryPage:
    """A page of ``size`` readable posts: the newest (no cursor), the newest below ``before``, or the oldest
    above ``after``; with the turn events (skipped turns) that follow each post shown."""
    if after is not None:
        picked = list(itertools.islice(_oldest_first(s, reader, after), size + 1))
        more_later = len(picked) > size
        picked = picked[:size]
        more_earlier = bool(picked) and next(_newest_first(s, reader, picked[0]), None) is not None
    else:
        picked = list(itertools.islice(_newest_first(s, reader, before), size + 1))
        more_earlier = len(picked) > size
        picked = picked[:size][::-1]
        more_later = bool(picked) and _any_after(s, reader, picked[-1])
    page = StoryPage()
    if not picked:
        return page
    low, last = picked[0], picked[-1]
    bound = next(_oldest_first(s, reader, last), None) if more_later else None
    items: list[dict[str, Any]] = []
    for seq in picked:
        view = post_view(s.posts[seq], reader, s)
        if view is not None:
            items.append({"type": "post", **view})
    for seq in reversed(s.events):
        if seq <= low:
            break
        ev = s.events[seq]
        if (bound is None or seq < bound) and can_read(ev["audience"], reader):
            items.append(_event(ev))
    items.sort(key=lambda i: i["id"])
    page.items = items
    page.earlier = low if more_earlier else None
    page.later = last if more_later else None
    page.last = last
    return page


def _any_after(s: SceneState, reader: Reader, last: int) -> bool:
    """Whether the reader may read any post after ``last`` (walks back from the newest)."""
    for seq in reversed(s.posts):
        if seq <= last:
            return False
        if can_read(s.posts[seq].audience, reader):
            return True
    return False


def _event(ev: dict[str, Any]) -> dict[str, Any]:
    return {"type": "event", **{k: v for k, v in ev.items() if k != "audience"}}


def changed_posts(s: SceneState, entries: Iterable[Entry]) -> list[int]:
    """The posts (and turn events) the entries created or changed, in log order, each once."""
    out: list[int] = []
    seen: set[int] = set()
    for e in entries:
        if e.seq > s.head_seq:
            break
        ref: Any
        if e.kind == "post.created" or e.kind == "turn.skipped":
            ref = e.seq
        elif e.kind.startswith("post."):
            ref = e.body.get("post")
        else:
            continue
        if isinstance(ref, int) and ref not in seen:
            seen.add(ref)
            out.append(ref)
    return out


def item_view(s: SceneState, reader: Reader, ref: int) -> dict[str, Any] | None:
    """A post or a turn event as the story shows it to this reader (None: not theirs to see)."""
    if ref in s.posts:
        view = post_view(s.posts[ref], reader, s)
        return None if view is None else {"type": "post", **view}
    ev = s.events.get(ref)
    if ev is None or not can_read(ev["audience"], reader):
        return None
    return _event(ev)


def unread(s: SceneState, reader: Reader, mark: int) -> int:
    """Posts after the reader's mark that they may read and did not write themselves."""
    n = 0
    for seq in reversed(s.posts):
        if seq <= mark:
            break
        p = s.posts[seq]
        if p.author != reader.user and can_read(p.audience, reader):
            n += 1
    return n


def owed_by(s: SceneState, c: CampaignState, user: int) -> list[int]:
    """The user's characters who still owe a post this round."""
    return [ch for ch in s.owed() if ch in c.characters and c.characters[ch].owner == user]


def gm_owes(s: SceneState, c: CampaignState, user: int, now: datetime) -> bool:
    """A GM owes the turn-based scene its next narration: before round 1, once every character has posted,
    or once the deadline has passed (then they act for the tardy or move on). A table ruling: the book says
    the GM answers "once everyone has posted or the deadline has passed" (Kalyr, Posts and Threads)."""
    if c.role_of(user) != GM or s.mode != TURN or s.closed or not s.cast:
        return False
    if s.round == 0 or not s.owed():
        return True
    deadline = s.deadline()
    return deadline is not None and now >= deadline


def scene_line(s: SceneState, c: CampaignState, reader: Reader, mark: int, now: datetime) -> dict[str, Any]:
    """One scene on the dashboard, for this reader."""
    user = reader.user if reader.user is not None else -1
    mine = owed_by(s, c, user)
    owes_narration = gm_owes(s, c, user, now)
    deadline = s.deadline() if s.mode == TURN and not s.closed else None
    last = next((p for seq in reversed(s.posts) if can_read((p := s.posts[seq]).audience, reader)), None)
    return {
        "id": s.id,
        "campaign": c.id,
        "title": s.title,
        "mode": s.mode,
        "closed": s.closed,
        "round": s.round,
        "owed": [{"id": ch, "name": c.characters[ch].name} for ch in mine],
        "gm_owes": owes_narration,
        "posts_owed": len(mine) + (1 if owes_narration else 0),
        "unread": unread(s, reader, mark),
        "deadline": deadline.isoformat() if deadline else None,
        "late": bool(deadline and now >= deadline),
        "last_at": last.at if last else None,
    }
