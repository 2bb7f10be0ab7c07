"""Log entries: the only thing the table ever writes. The log only grows.

A :class:`Draft` is what a command decides should happen; :func:`seal` links it
to the log's head and gives it its hash. Everything else (who is in a campaign,
what a post says now, whose turn it is) is a fold over sealed entries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .chain import GENESIS, core, entry_hash

__all__ = ["ALL", "GM", "Draft", "Entry", "seal"]

#: audience of an entry every member of the campaign may read
ALL = "all"
#: audience of an entry only the campaign's GMs may read
GM = "gm"


@dataclass(frozen=True, slots=True)
class Draft:
    """An entry not yet on the log: what happened, by whom, for whom."""

    kind: str
    actor: int | None
    body: Mapping[str, Any] = field(default_factory=dict)
    audience: Any = ALL  # "all", "gm", or a sorted list of user ids
    rolls: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class Entry:
    """A sealed log entry."""

    seq: int
    kind: str
    at: str
    actor: int | None
    audience: Any
    body: Mapping[str, Any]
    rolls: tuple[Mapping[str, Any], ...]
    prev: str
    hash: str
    #: the body's salt (commitment version 2); empty on entries written before salting
    salt: str = ""

    @property
    def commit(self) -> int:
        return 2 if self.salt else 1

    def core(self) -> dict[str, Any]:
        return core(
            seq=self.seq,
            kind=self.kind,
            at=self.at,
            actor=self.actor,
            audience=self.audience,
            body=self.body,
            rolls=self.rolls,
            salt=self.salt,
        )

    def to_json(self) -> dict[str, Any]:
        out = {
            "seq": self.seq,
            "kind": self.kind,
            "at": self.at,
            "actor": self.actor,
            "audience": self.audience,
            "body": dict(self.body),
            "rolls": [dict(r) for r in self.rolls],
            "prev": self.prev,
            "hash": self.hash,
        }
        if self.salt:
            out["salt"], out["commit"] = self.salt, self.commit
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Entry:
        return cls(
            seq=int(data["seq"]),
            kind=str(data["kind"]),
            at=str(data["at"]),
            actor=data.get("actor"),
            audience=data.get("audience", ALL),
            body=dict(data.get("body") or {}),
            rolls=tuple(dict(r) for r in data.get("rolls") or ()),
            prev=str(data["prev"]),
            hash=str(data["hash"]),
            salt=str(data.get("salt") or ""),
        )


def seal(
    drafts: Sequence[Draft],
    *,
    head_seq: int,
    head_hash: str | None,
    at: str,
    salt: Callable[[], str] | None = None,
) -> list[Entry]:
    """Give drafts their place after the head (``head_seq`` 0 and ``head_hash`` None for an empty log).

    ``salt`` makes a fresh random salt (the store passes ``secrets.token_hex(16)``): each
    entry's body and each roll get their own, so their commitments cannot be brute-forced
    (commitment version 2). Without it entries are written unsalted (version 1).
    """
    prev = head_hash or GENESIS
    out = []
    seq = head_seq
    for d in drafts:
        seq += 1
        audience = sorted(d.audience) if isinstance(d.audience, (list, tuple, set, frozenset)) else d.audience
        entry_salt = salt() if salt else ""
        rolls = tuple({**r, "salt": r.get("salt") or salt()} if salt else dict(r) for r in d.rolls)
        c = core(
            seq=seq, kind=d.kind, at=at, actor=d.actor, audience=audience, body=d.body, rolls=rolls, salt=entry_salt
        )
        h = entry_hash(prev, c)
        out.append(Entry(seq, d.kind, at, d.actor, audience, dict(d.body), rolls, prev, h, entry_salt))
        prev = h
    return out
