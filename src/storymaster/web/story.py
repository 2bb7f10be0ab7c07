"""The story as HTML pieces: one post, one turn event, the turn box, rendered by the same templates as the
scene page, for live updates (the SSE stream sends only what changed, with its markup when asked).

The reader's CSRF token is not in these pieces (a stream is not a page): the page's script fills each
form's ``csrf`` field from its own when it inserts a piece.
"""

from __future__ import annotations

from typing import Any

from ..play.campaign import CampaignState
from ..play.views import Reader

__all__ = ["item_html", "story_names", "turn_html"]


def story_names(c: CampaignState) -> tuple[dict[int, str], dict[int, dict[str, Any]]]:
    """Members' names by user and the characters (id, name, owner) by id, as the templates want them."""
    names = {m.user: m.name for m in c.members.values()}
    chars = {
        ch.id: {"id": ch.id, "name": ch.name, "owner": ch.owner, "retired": ch.retired} for ch in c.characters.values()
    }
    return names, chars


def _ctx(
    c: CampaignState, scene: dict[str, Any], reader: Reader, portraits: dict[int, str], zone: str | None
) -> dict[str, Any]:
    names, chars = story_names(c)
    return {
        "names": names,
        "chars": chars,
        "scene": scene,
        "me": {"id": reader.user},
        "csrf": "",
        "is_gm": reader.is_gm,
        "c": {"id": c.id, "your_role": reader.role},
        "portraits": portraits,
        "tz": zone,
    }


def item_html(
    item: dict[str, Any],
    c: CampaignState,
    scene: dict[str, Any],
    reader: Reader,
    portraits: dict[int, str],
    zone: str | None = None,
) -> str:
    from .pages.common import env

    template = "_event.html" if item.get("type") == "event" else "_post.html"
    return env.get_template(template).render(p=item, **_ctx(c, scene, reader, portraits, zone))


def turn_html(
    c: CampaignState, scene: dict[str, Any], reader: Reader, portraits: dict[int, str], zone: str | None = None
) -> str:
    from .pages.common import env

    return env.get_template("_turn.html").render(**_ctx(c, scene, reader, portraits, zone))
