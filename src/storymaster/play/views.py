"""What each reader may see: every response goes through here.

Readers: the campaign's GM, players, observers. Rules:

* an entry's audience is everyone in the campaign (``"all"``), the GMs
  (``"gm"``, notes), or a list of user ids (private posts: sender and readers);
* a deleted post is a tombstone: the GM still reads it, others see that it was
  deleted and its rolls (rolls are never removed), not its text;
* a roll's result is shown to: everyone (``public``), the GM and the roller
  (``gm``), the GM only, not even the roller (``blind``), the roller only
  (``self``). Once the scene closes and its seed is revealed, every roll in a
  post you can read is shown: anyone could replay it from the seed by then.
* the seed is never shown before the closing entry reveals it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .campaign import GM, CampaignState
from .chain import body_digest, roll_digest
from .log import ALL, Entry
from .log import GM as GM_ONLY
from .rolling import shown_record
from .scene import Post, SceneState
from .text import fill_secrets

__all__ = ["Reader", "can_read", "entry_view", "post_view", "readable_text", "roll_view", "scene_view"]


class Reader:
    """Who is asking: a user id (None when anonymous) and their role in the campaign."""

    __slots__ = ("role", "user")

    def __init__(self, user: int | None, role: str | None) -> None:
        self.user, self.role = user, role

    @property
    def is_gm(self) -> bool:
        return self.role == GM

    @classmethod
    def of(cls, campaign: CampaignState, user: int | None) -> Reader:
        return cls(user, campaign.role_of(user))


def can_read(audience: Any, reader: Reader) -> bool:
    if reader.role is None:
        return False
    if audience == ALL:
        return True
    if audience == GM_ONLY:
        return reader.is_gm
    return reader.user in audience


def roll_result_visible(roll: Mapping[str, Any], reader: Reader, revealed: bool) -> bool:
    v = roll["visibility"]
    by: int = roll["by"]
    if revealed or v == "public":
        return True
    if v == "gm":
        return reader.is_gm or reader.user == by
    if v == "blind":
        return reader.is_gm
    return reader.user == by  # self


def roll_view(roll: Mapping[str, Any], reader: Reader, seed: str | None) -> dict[str, Any]:
    if not roll_result_visible(roll, reader, seed is not None):
        out = {
            "visibility": roll["visibility"],
            "by": roll["by"],
            "label": roll.get("label", ""),
            "hidden": True,
            "sha256": roll_digest(roll),
        }
        if "inline" in roll:  # where its marker stands in the text (which shows that anyway), not its result
            out["inline"] = roll["inline"]
        return out
    out = {k: v for k, v in roll.items() if k != "records"}
    out["records"] = [shown_record(r, seed) for r in roll["records"]]
    return out


def _secret_texts(keys: list[int], reader: Reader, s: SceneState) -> list[str | None]:
    return [
        s.secrets[k]["text"] if k in s.secrets and can_read(s.secrets[k]["audience"], reader) else None for k in keys
    ]


def readable_text(p: Post, reader: Reader, s: SceneState) -> str:
    """The post's text with the readers-only blocks this reader may read filled in (the others stay empty)."""
    return fill_secrets(p.text, _secret_texts(p.secrets, reader, s))


def _rolls(p: Post, reader: Reader, s: SceneState) -> list[dict[str, Any]]:
    """The post's rolls and those of the readers-only blocks this reader reads, in the order they were rolled."""
    rolls = list(p.rolls)
    seen = set()
    for h in [*p.history, {"secrets": p.secrets}]:
        for k in h.get("secrets", ()):
            if k in s.secrets and k not in seen and can_read(s.secrets[k]["audience"], reader):
                seen.add(k)
                rolls += s.secrets[k]["rolls"]
    if seen:
        rolls.sort(key=lambda r: r.get("counter", [0])[0])
    return [roll_view(r, reader, s.seed) for r in rolls]


def post_view(p: Post, reader: Reader, s: SceneState) -> dict[str, Any] | None:
    if not can_read(p.audience, reader):
        return None
    out: dict[str, Any] = {
        "id": p.seq,
        "at": p.at,
        "author": p.author,
        "kind": p.kind,
        "character": p.character,
        "character_name": p.character_name,
        "round": p.round,
        "rolls": _rolls(p, reader, s),
        "deleted": p.deleted_at is not None,
    }
    if p.to:
        out["to"] = list(p.to)
    if p.deleted_at is None or reader.is_gm:
        out["text"] = readable_text(p, reader, s)
        out["edited"] = bool(p.history)
        out["history"] = [
            {
                "at": h["at"],
                "text": fill_secrets(h["text"], _secret_texts(h.get("secrets", []), reader, s)),
                "edited_at": h["edited_at"],
            }
            for h in p.history
        ]
    if p.deleted_at is not None:
        out["deleted_at"] = p.deleted_at
        if reader.is_gm:
            out["deleted_by"] = p.deleted_by
    return out


def scene_view(s: SceneState, c: CampaignState, reader: Reader, now_deadline: bool = True) -> dict[str, Any]:
    deadline = s.deadline()
    out = {
        "id": s.id,
        "campaign": s.campaign,
        "title": s.title,
        "mode": s.mode,
        "stream": s.stream,
        "seed_sha256": s.seed_sha256,
        "seed": s.seed,  # None until the scene closes
        "opened_at": s.opened_at,
        "closed_at": s.closed_at,
        "cast": [
            {"id": ch, "name": c.characters[ch].name, "owner": c.characters[ch].owner}
            for ch in s.cast
            if ch in c.characters
        ],
        "head": {"seq": s.head_seq, "hash": s.head_hash},
        "posts": sum(n for audience, n in s.audiences.items() if can_read(audience, reader)),
    }
    if s.mode == "turn":
        out["turn"] = {
            "round": s.round,
            "order": s.turn_order(),
            "owed": s.owed(),
            "deadline": deadline.isoformat() if deadline else None,
            "turn_seconds": s.turn_seconds,
            "on_deadline": s.on_deadline,
            "skipped": s.skipped,
        }
    if s.combat is not None:
        out["combat"] = dict(s.combat)
    return out


def entry_view(
    e: Entry, reader: Reader, seed: str | None, hidden_posts: frozenset[int] = frozenset()
) -> dict[str, Any]:
    """A log entry for the export: whole, with its body or some rolls replaced by their digests, or only its links.

    ``hidden_posts`` are deleted posts whose text this reader no longer reads.
    """
    if not can_read(e.audience, reader):
        return {"seq": e.seq, "prev": e.prev, "hash": e.hash, "redacted": True}
    out = e.to_json()
    post = (
        e.seq if e.kind in ("post.created", "post.secret") else e.body.get("post") if e.kind == "post.edited" else None
    )
    if post is not None and post in hidden_posts:
        del out["body"]
        out.pop("salt", None)  # the salt is published only with the body it hides
        out["body_sha256"] = body_digest(e.body, e.salt)
    out["rolls"] = [
        r if roll_result_visible(r, reader, seed is not None) else roll_view(r, reader, None) for r in e.rolls
    ]
    return out
