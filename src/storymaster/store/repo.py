"""The store: appends drafts to logs under a lock, folds logs into state (cached per process), keeps users.

Locks are always taken in one order: this process's lock on the campaign's
state, then on the scene's, then the database's (SQLite's write lock, or
PostgreSQL's row lock on the log's head), so no two writers wait on each other.

Each log is a stream: ``c:<campaign id>`` or ``s:<scene id>``. Commands decide
*inside* the write transaction, after the log's head is locked and the state
refreshed, so two posts never draw the same dice or fork the chain.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Connection, Engine, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..play.campaign import CampaignState, apply_campaign
from ..play.chain import canonical_json
from ..play.errors import Conflict, NotFound
from ..play.log import Draft, Entry, seal
from ..play.scene import SceneState, apply_scene
from . import tables as t
from .db import read_tx, write_tx

__all__ = ["Appended", "Store"]


@dataclass(frozen=True, slots=True)
class Appended:
    """What a write put on the logs: the stream name and its new entries, per log touched."""

    campaign: int
    scene: int | None
    entries: tuple[Entry, ...]
    campaign_entries: tuple[Entry, ...] = ()
    #: what ``then`` made of the new state (a view for the response), if it was given
    view: Any = None
    #: the entry an earlier request with the same idempotency key wrote (nothing new was appended)
    replayed: int | None = None


def _row(e: Entry, stream: str, campaign: int, scene: int | None) -> dict[str, Any]:
    return {
        "stream": stream,
        "seq": e.seq,
        "campaign_id": campaign,
        "scene_id": scene,
        "kind": e.kind,
        "at": e.at,
        "actor": e.actor,
        "audience": canonical_json(e.audience),
        "body": canonical_json(e.body),
        "rolls": canonical_json(list(e.rolls)),
        "prev": e.prev,
        "hash": e.hash,
        "salt": e.salt or None,
    }


def _entry(r: Any) -> Entry:
    return Entry(
        r.seq,
        r.kind,
        r.at,
        r.actor,
        json.loads(r.audience),
        json.loads(r.body),
        tuple(json.loads(r.rolls)),
        r.prev,
        r.hash,
        r.salt or "",
    )


def _stored_length(e: Entry) -> int:
    """How long the entry's JSON is as the log stores it (body, audience, rolls)."""
    return len(canonical_json(e.body)) + len(canonical_json(e.audience)) + len(canonical_json(list(e.rolls)))


def _now_text() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="seconds")


def invite_open(row: Any, at: str) -> bool:
    """An invitation still works at ``at``: not revoked, not expired, not used up."""
    if row["revoked_at"] is not None:
        return False
    if row["expires_at"] is not None and at >= row["expires_at"]:
        return False
    return row["max_uses"] is None or row["uses"] < row["max_uses"]


def new_salt() -> str:
    """A fresh salt for a commitment: 128 random bits from the operating system, as hex."""
    return secrets.token_hex(16)


#: the folded state of a log is estimated at this many bytes per entry, plus this many per byte of
#: the entry's stored JSON (calibrated against tracemalloc by ``make bench``: bench/cache_memory.py)
ENTRY_OVERHEAD = 600
JSON_FACTOR = 6
DEFAULT_CACHE_BYTES = 256 * 2**20


def entry_size(json_bytes: int) -> int:
    """The estimated memory of one folded entry whose stored JSON (body, audience, rolls) is ``json_bytes`` long."""
    return ENTRY_OVERHEAD + JSON_FACTOR * json_bytes


class _Cache:
    """Folded state per stream, each behind its own lock; the least recently used go past a size bound.

    The size of a state is estimated from the entries folded into it (:func:`entry_size`); when the
    total passes ``max_bytes`` the least recently used states are dropped (a later read folds them
    again from the log). The state just used is kept even when it alone is over the bound. A
    stream's lock lives as long as someone holds or waits for it (a weak reference), so the locks do
    not grow with everything ever read either.
    """

    def __init__(self, max_bytes: int | None = DEFAULT_CACHE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._states: OrderedDict[str, Any] = OrderedDict()  # least recently used first
        self._sizes: dict[str, int] = {}
        self.total = 0
        self._locks: weakref.WeakValueDictionary[str, Any] = weakref.WeakValueDictionary()
        self._guard = threading.Lock()

    def lock(self, stream: str) -> Any:
        with self._guard:
            lk = self._locks.get(stream)
            if lk is None:
                lk = self._locks[stream] = threading.RLock()
            return lk

    def get(self, stream: str) -> Any:
        with self._guard:
            state = self._states.get(stream)
            if state is not None:
                self._states.move_to_end(stream)
            return state

    def put(self, stream: str, state: Any, grown: int = 0) -> None:
        """Keep ``state`` as the most recently used; ``grown``: the estimated bytes just folded into it."""
        with self._guard:
            if self._states.get(stream) is not state:
                self._forget(stream)
                self._states[stream] = state
            self._count(stream, grown)

    def grow(self, stream: str, state: Any, grown: int) -> None:
        """Entries folded into ``state`` after a write: counted if it is still the cached one."""
        with self._guard:
            if self._states.get(stream) is state:
                self._count(stream, grown)

    def _count(self, stream: str, grown: int) -> None:
        self._states.move_to_end(stream)
        self._sizes[stream] = self._sizes.get(stream, 0) + grown
        self.total += grown
        if self.max_bytes is not None:
            while self.total > self.max_bytes and len(self._states) > 1:
                self._forget(next(iter(self._states)))

    def drop(self, stream: str) -> None:
        with self._guard:
            self._forget(stream)

    def streams(self) -> list[str]:
        """The cached streams, least recently used first."""
        with self._guard:
            return list(self._states)

    def _forget(self, stream: str) -> None:
        self._states.pop(stream, None)
        self.total -= self._sizes.pop(stream, 0)


class Store:
    def __init__(self, engine: Engine, *, cache_bytes: int | None = DEFAULT_CACHE_BYTES) -> None:
        """``cache_bytes``: the bound on the folded state kept in memory (estimated; None: no bound)."""
        self.engine = engine
        self.is_postgres = engine.dialect.name == "postgresql"
        self._cache = _Cache(cache_bytes)
        self._scene_campaigns: dict[int, int] = {}  # a scene never moves to another campaign
        self.listeners: list[Callable[[Appended], None]] = []
        #: what signs log heads and exports (the web app sets its :class:`~storymaster.web.signing.Signer`)
        self.signer: Any = None

    # --- logs ---------------------------------------------------------------------------------

    def _entries(self, conn: Connection, stream: str, after: int = 0) -> list[Entry]:
        return [e for e, _ in self._sized_entries(conn, stream, after)]

    def _sized_entries(self, conn: Connection, stream: str, after: int = 0) -> list[tuple[Entry, int]]:
        """The entries after ``after``, each with its estimated size once folded (:func:`entry_size`)."""
        q = select(t.entries).where(t.entries.c.stream == stream, t.entries.c.seq > after).order_by(t.entries.c.seq)
        return [(_entry(r), entry_size(len(r.body) + len(r.audience) + len(r.rolls))) for r in conn.execute(q)]

    def _refresh(
        self, conn: Connection, stream: str, head: int, new: Callable[[], Any], apply: Callable[[Any, Entry], None]
    ) -> Any:
        state = self._cache.get(stream)
        if state is None or state.head_seq > head:
            state = new()
        grown = 0
        if state.head_seq < head:
            try:
                for e, size in self._sized_entries(conn, stream, state.head_seq):
                    apply(state, e)
                    grown += size
            except Exception:
                self._cache.drop(stream)
                raise
        self._cache.put(stream, state, grown)
        return state

    def _campaign(self, conn: Connection, cid: int, *, lock: bool = False) -> CampaignState:
        q = select(t.campaigns.c.head_seq).where(t.campaigns.c.id == cid)
        if lock and self.is_postgres:
            q = q.with_for_update()
        head = conn.execute(q).scalar()
        if head is None:
            raise NotFound(f"no campaign {cid}")
        return self._refresh(conn, f"c:{cid}", head, lambda: CampaignState(cid), apply_campaign)

    def _scene(self, conn: Connection, sid: int, *, lock: bool = False) -> tuple[SceneState, int, str]:
        q = select(t.scenes.c.head_seq, t.scenes.c.campaign_id, t.scenes.c.seed).where(t.scenes.c.id == sid)
        if lock and self.is_postgres:
            q = q.with_for_update()
        row = conn.execute(q).first()
        if row is None:
            raise NotFound(f"no scene {sid}")
        return (
            self._refresh(conn, f"s:{sid}", row.head_seq, lambda: SceneState(sid), apply_scene),
            row.campaign_id,
            row.seed,
        )

    def _append(
        self, conn: Connection, stream: str, cid: int, sid: int | None, state: Any, drafts: Sequence[Draft], at: str
    ) -> list[Entry]:
        if not drafts:
            return []
        sealed = seal(drafts, head_seq=state.head_seq, head_hash=state.head_hash, at=at, salt=new_salt)
        conn.execute(insert(t.entries), [_row(e, stream, cid, sid) for e in sealed])
        table = t.scenes if sid is not None else t.campaigns
        key = sid if sid is not None else cid
        done = conn.execute(
            update(table)
            .where(table.c.id == key, table.c.head_seq == state.head_seq)
            .values(head_seq=sealed[-1].seq, head_hash=sealed[-1].hash)
        )
        if done.rowcount != 1:  # pragma: no cover - the lock makes this impossible; the check makes it certain
            raise Conflict("the log moved on while this change was made; try again")
        if sid is None:
            self._project_members(conn, cid, sealed)
        return sealed

    def _project_members(self, conn: Connection, cid: int, sealed: Sequence[Entry]) -> None:
        for e in sealed:
            if e.kind == "member.removed" and e.actor != e.body["user"]:
                # a removed member may hold a link: every open invitation dies with their membership
                i = t.invites
                conn.execute(
                    update(i)
                    .where(i.c.campaign_id == cid, i.c.revoked_at.is_(None))
                    .values(revoked_at=e.at, revoked_why=f"a member was removed (entry {e.seq})")
                )
            if e.kind in ("member.added", "member.removed"):
                m = t.memberships
                conn.execute(delete(m).where(m.c.campaign_id == cid, m.c.user_id == e.body["user"]))
                if e.kind == "member.added":
                    conn.execute(insert(m).values(campaign_id=cid, user_id=e.body["user"], role=e.body["role"]))

    def _notify(self, conn: Connection, appended: Appended) -> None:
        if self.is_postgres:
            payload = f"{appended.campaign}:{appended.scene or 0}"
            conn.exec_driver_sql("SELECT pg_notify('storymaster', %(p)s)", {"p": payload})

    def _after(self, appended: Appended) -> Appended:
        for listener in list(self.listeners):
            with contextlib.suppress(Exception):  # a listener never breaks a write
                listener(appended)
        return appended

    @contextmanager
    def _locked(self, *streams: str) -> Iterator[None]:
        locks = [self._cache.lock(s) for s in streams]
        for lk in locks:
            lk.acquire()
        try:
            yield
        finally:
            for lk in reversed(locks):
                lk.release()

    # --- campaigns ----------------------------------------------------------------------------

    def create_campaign(self, *, name: str, system: str, drafts: Sequence[Draft], at: str) -> Appended:
        with write_tx(self.engine) as conn:
            cid = conn.execute(
                insert(t.campaigns)
                .values(name=name, system=system, created_at=at, head_seq=0, head_hash=None)
                .returning(t.campaigns.c.id)
            ).scalar_one()
            sealed = self._append(conn, f"c:{cid}", cid, None, CampaignState(cid), drafts, at)
            appended = Appended(cid, None, (), tuple(sealed))
            self._notify(conn, appended)
        return self._after(appended)

    @contextmanager
    def reading_campaign(self, cid: int) -> Iterator[CampaignState]:
        """The campaign's state, held still while the caller reads it."""
        with self._locked(f"c:{cid}"), read_tx(self.engine) as conn:
            yield self._campaign(conn, cid)

    def campaign_append(
        self,
        cid: int,
        decide: Callable[[CampaignState], Sequence[Draft]],
        at: str,
        *,
        then: Callable[..., Any] | None = None,
    ) -> Appended:
        """Decide and append under the log's lock; ``then(campaign, appended)`` sees the state just after the commit."""
        with self._locked(f"c:{cid}"):
            with write_tx(self.engine) as conn:
                state = self._campaign(conn, cid, lock=True)
                drafts = decide(state)
                sealed = self._append(conn, f"c:{cid}", cid, None, state, drafts, at)
                appended = Appended(cid, None, (), tuple(sealed))
                self._notify(conn, appended)
            self._fold_committed(f"c:{cid}", state, sealed, apply_campaign)
            if then is not None:
                appended = replace(appended, view=then(state, appended))
        return self._after(appended)

    def _fold_committed(
        self, stream: str, state: Any, sealed: Sequence[Entry], apply: Callable[[Any, Entry], None]
    ) -> None:
        """After the commit, the cached state takes the new entries at once (the lock is still held)."""
        try:
            for e in sealed:
                apply(state, e)
        except Exception:  # pragma: no cover - the next read folds from the log instead
            self._cache.drop(stream)
            raise
        grown = sum(
            entry_size(
                len(canonical_json(e.body)) + len(canonical_json(e.audience)) + len(canonical_json(list(e.rolls)))
            )
            for e in sealed
        )
        self._cache.grow(stream, state, grown)

    # --- invitations --------------------------------------------------------------------------

    def create_invite(
        self,
        *,
        cid: int,
        token_sha256: str,
        role: str,
        by: int,
        at: str,
        expires_at: str | None,
        max_uses: int | None,
    ) -> int:
        with write_tx(self.engine) as conn:
            return conn.execute(
                insert(t.invites)
                .values(
                    campaign_id=cid,
                    token_sha256=token_sha256,
                    role=role,
                    created_by=by,
                    created_at=at,
                    expires_at=expires_at,
                    max_uses=max_uses,
                    uses=0,
                )
                .returning(t.invites.c.id)
            ).scalar_one()

    def invites(self, cid: int) -> list[dict[str, Any]]:
        cols = [c for c in t.invites.c if c.name != "token_sha256"]
        with read_tx(self.engine) as conn:
            q = select(*cols).where(t.invites.c.campaign_id == cid).order_by(t.invites.c.id)
            return [dict(r._mapping) for r in conn.execute(q)]

    def revoke_invite(self, cid: int, iid: int, at: str, why: str) -> bool:
        i = t.invites
        with write_tx(self.engine) as conn:
            done = conn.execute(
                update(i)
                .where(i.c.campaign_id == cid, i.c.id == iid, i.c.revoked_at.is_(None))
                .values(revoked_at=at, revoked_why=why)
            )
            return done.rowcount == 1

    def invite(self, cid: int, token_sha256: str) -> Any:
        with read_tx(self.engine) as conn:
            q = select(t.invites).where(t.invites.c.campaign_id == cid, t.invites.c.token_sha256 == token_sha256)
            return conn.execute(q).first()

    def join_by_invite(
        self, cid: int, token_sha256: str, decide: Callable[[CampaignState, Any], Sequence[Draft]], at: str
    ) -> Appended:
        """Check the invitation and append ``decide(state, invite)`` in one transaction; a use is counted."""
        i = t.invites
        with self._locked(f"c:{cid}"):
            with write_tx(self.engine) as conn:
                state = self._campaign(conn, cid, lock=True)
                q = select(i).where(i.c.campaign_id == cid, i.c.token_sha256 == token_sha256)
                if self.is_postgres:
                    q = q.with_for_update()
                row = conn.execute(q).first()
                if row is None or not invite_open(row._mapping, at):
                    raise NotFound(
                        "this invitation link is not valid (unknown, revoked, expired or used up)",
                        hint="ask the GM for a new link",
                    )
                drafts = decide(state, row)
                sealed = self._append(conn, f"c:{cid}", cid, None, state, drafts, at)
                if sealed:
                    conn.execute(update(i).where(i.c.id == row.id).values(uses=i.c.uses + 1))
                appended = Appended(cid, None, (), tuple(sealed))
                self._notify(conn, appended)
            self._fold_committed(f"c:{cid}", state, sealed, apply_campaign)
        return self._after(appended)

    def campaigns_of(self, user: int) -> list[dict[str, Any]]:
        with read_tx(self.engine) as conn:
            q = (
                select(t.campaigns.c.id, t.campaigns.c.name, t.campaigns.c.system, t.memberships.c.role)
                .join(t.memberships, t.memberships.c.campaign_id == t.campaigns.c.id)
                .where(t.memberships.c.user_id == user)
                .order_by(t.campaigns.c.id)
            )
            return [dict(r._mapping) for r in conn.execute(q)]

    def campaign_log(self, cid: int) -> list[Entry]:
        with read_tx(self.engine) as conn:
            return self._entries(conn, f"c:{cid}")

    # --- scenes -------------------------------------------------------------------------------

    def open_scene(
        self,
        cid: int,
        seed: str,
        decide: Callable[[CampaignState, int], tuple[Sequence[Draft], Sequence[Draft]]],
        at: str,
    ) -> tuple[int, Appended]:
        with self._locked(f"c:{cid}"):
            with write_tx(self.engine) as conn:
                c = self._campaign(conn, cid, lock=True)
                sid = conn.execute(
                    insert(t.scenes)
                    .values(campaign_id=cid, seed=seed, head_seq=0, head_hash=None)
                    .returning(t.scenes.c.id)
                ).scalar_one()
                scene_drafts, campaign_drafts = decide(c, sid)
                sealed = self._append(conn, f"s:{sid}", cid, sid, SceneState(sid), scene_drafts, at)
                csealed = self._append(conn, f"c:{cid}", cid, None, c, campaign_drafts, at)
                appended = Appended(cid, sid, tuple(sealed), tuple(csealed))
                self._notify(conn, appended)
            self._fold_committed(f"c:{cid}", c, csealed, apply_campaign)
        return sid, self._after(appended)

    def scene_campaign(self, sid: int) -> int:
        if sid in self._scene_campaigns:
            return self._scene_campaigns[sid]
        with read_tx(self.engine) as conn:
            cid = conn.execute(select(t.scenes.c.campaign_id).where(t.scenes.c.id == sid)).scalar()
        if cid is None:
            raise NotFound(f"no scene {sid}")
        self._scene_campaigns[sid] = cid
        return cid

    @contextmanager
    def reading_scene(self, sid: int) -> Iterator[tuple[CampaignState, SceneState]]:
        cid = self.scene_campaign(sid)
        with self._locked(f"c:{cid}", f"s:{sid}"), read_tx(self.engine) as conn:
            s, _, _ = self._scene(conn, sid)
            yield self._campaign(conn, cid), s

    def scene_append(
        self,
        sid: int,
        decide: Callable[[CampaignState, SceneState, str], Sequence[Draft] | tuple[Sequence[Draft], Sequence[Draft]]],
        at: str,
        *,
        touches_campaign: bool = False,
        then: Callable[..., Any] | None = None,
        idempotency: tuple[int, str, str] | None = None,
    ) -> Appended:
        """Append to a scene's log; with ``touches_campaign`` ``decide`` returns (scene drafts, campaign drafts).

        ``then(campaign, scene, appended)`` runs on the state just after the commit, still under the lock.
        ``idempotency`` is (user, key, fingerprint of the request): when that user already sent that key,
        nothing is appended and ``appended.replayed`` names the entry the first request wrote; the same
        key with a different request is a conflict.
        """
        cid = self.scene_campaign(sid)
        with self._locked(f"c:{cid}", f"s:{sid}"):
            with write_tx(self.engine) as conn:
                c = self._campaign(conn, cid, lock=touches_campaign)
                s, _, seed = self._scene(conn, sid, lock=True)
                if idempotency is not None:
                    earlier = self._idempotent(conn, sid, idempotency)
                    if earlier is not None:
                        appended = Appended(cid, sid, (), (), replayed=earlier)
                        if then is not None:
                            appended = replace(appended, view=then(c, s, appended))
                        return appended
                decided = decide(c, s, seed)
                scene_drafts, campaign_drafts = decided if touches_campaign else (decided, ())
                sealed = self._append(conn, f"s:{sid}", cid, sid, s, scene_drafts, at)
                csealed = self._append(conn, f"c:{cid}", cid, None, c, campaign_drafts, at)
                if idempotency is not None and sealed:
                    user, key, fingerprint = idempotency
                    conn.execute(
                        insert(t.idempotency).values(
                            user_id=user, key=key, scene_id=sid, seq=sealed[-1].seq, fingerprint=fingerprint, at=at
                        )
                    )
                appended = Appended(cid, sid, tuple(sealed), tuple(csealed))
                self._notify(conn, appended)
            self._fold_committed(f"s:{sid}", s, sealed, apply_scene)
            self._fold_committed(f"c:{cid}", c, csealed, apply_campaign)
            if then is not None:
                appended = replace(appended, view=then(c, s, appended))
        return self._after(appended)

    def _idempotent(self, conn: Connection, sid: int, idempotency: tuple[int, str, str]) -> int | None:
        user, key, fingerprint = idempotency
        i = t.idempotency
        row = conn.execute(select(i).where(i.c.user_id == user, i.c.key == key)).first()
        if row is None:
            return None
        if row.scene_id != sid or row.fingerprint != fingerprint:
            raise Conflict(
                "this Idempotency-Key was already used for a different request",
                hint="send a fresh key with every new post, and the same key only to retry the same post",
            )
        return row.seq

    def scene_log(self, sid: int, after: int = 0) -> list[Entry]:
        """The scene's entries after ``after``, oldest first."""
        with read_tx(self.engine) as conn:
            return self._entries(conn, f"s:{sid}", after)

    def scene_head(self, sid: int) -> int:
        with read_tx(self.engine) as conn:
            head = conn.execute(select(t.scenes.c.head_seq).where(t.scenes.c.id == sid)).scalar()
        if head is None:
            raise NotFound(f"no scene {sid}")
        return head

    def scene_ids(self, cid: int) -> list[int]:
        with read_tx(self.engine) as conn:
            return list(
                conn.execute(
                    select(t.scenes.c.id).where(t.scenes.c.campaign_id == cid).order_by(t.scenes.c.id)
                ).scalars()
            )

    def entries_since(self, cids: Sequence[int], since: str) -> list[tuple[str, Entry]]:
        """Every entry of these campaigns' logs written after ``since`` (for digests), oldest first."""
        if not cids:
            return []
        with read_tx(self.engine) as conn:
            q = (
                select(t.entries)
                .where(t.entries.c.campaign_id.in_(list(cids)), t.entries.c.at > since)
                .order_by(t.entries.c.at, t.entries.c.id)
            )
            return [(r.stream, _entry(r)) for r in conn.execute(q)]

    # --- users, sessions, tokens --------------------------------------------------------------

    def create_user(self, *, name: str, email: str | None, password_hash: str, at: str, name_key: str = "") -> int:
        try:
            with write_tx(self.engine) as conn:
                return conn.execute(
                    insert(t.users)
                    .values(
                        name=name,
                        name_key=name_key or name.strip().casefold(),
                        email=email,
                        password_hash=password_hash,
                        created_at=at,
                    )
                    .returning(t.users.c.id)
                ).scalar_one()
        except IntegrityError:
            raise Conflict(f"the name {name!r} is taken", hint="choose another user name") from None

    def user_by_name(self, name: str, name_key: str | None = None) -> Any:
        """The user whose name compares equal (by ``name_key``: NFKC, trimmed, case-folded)."""
        key = name_key if name_key is not None else name.strip().casefold()
        with read_tx(self.engine) as conn:
            return conn.execute(select(t.users).where(t.users.c.name_key == key)).first()

    def user(self, uid: int) -> Any:
        with read_tx(self.engine) as conn:
            return conn.execute(select(t.users).where(t.users.c.id == uid)).first()

    def set_password_hash(self, uid: int, password_hash: str) -> None:
        with write_tx(self.engine) as conn:
            conn.execute(update(t.users).where(t.users.c.id == uid).values(password_hash=password_hash))

    def set_email(self, uid: int, email: str | None) -> None:
        with write_tx(self.engine) as conn:
            conn.execute(update(t.users).where(t.users.c.id == uid).values(email=email))

    def create_session(self, *, user: int, token_sha256: str, csrf: str, at: str, expires: str) -> None:
        with write_tx(self.engine) as conn:
            conn.execute(
                insert(t.sessions).values(
                    token_sha256=token_sha256, user_id=user, csrf=csrf, created_at=at, expires_at=expires
                )
            )

    def session(self, token_sha256: str) -> Any:
        with read_tx(self.engine) as conn:
            return conn.execute(select(t.sessions).where(t.sessions.c.token_sha256 == token_sha256)).first()

    def delete_session(self, token_sha256: str) -> None:
        with write_tx(self.engine) as conn:
            conn.execute(delete(t.sessions).where(t.sessions.c.token_sha256 == token_sha256))

    def delete_sessions(self, user: int, *, keep: str | None = None) -> int:
        """Sign a user out everywhere (but the session ``keep``, if given); returns how many ended."""
        with write_tx(self.engine) as conn:
            q = delete(t.sessions).where(t.sessions.c.user_id == user)
            if keep is not None:
                q = q.where(t.sessions.c.token_sha256 != keep)
            return conn.execute(q).rowcount

    def delete_expired_sessions(self, now: str) -> int:
        with write_tx(self.engine) as conn:
            return conn.execute(delete(t.sessions).where(t.sessions.c.expires_at <= now)).rowcount

    def create_token(self, *, user: int, name: str, token_sha256: str, at: str, scope: str = "all") -> int:
        with write_tx(self.engine) as conn:
            return conn.execute(
                insert(t.api_tokens)
                .values(user_id=user, name=name, token_sha256=token_sha256, created_at=at, scope=scope)
                .returning(t.api_tokens.c.id)
            ).scalar_one()

    def token_caller(self, token_sha256: str) -> Any:
        """The user behind an API token (id, name), in one query."""
        with read_tx(self.engine) as conn:
            q = select(t.users.c.id, t.users.c.name, t.api_tokens.c.scope).join(
                t.api_tokens, t.api_tokens.c.user_id == t.users.c.id
            )
            return conn.execute(q.where(t.api_tokens.c.token_sha256 == token_sha256)).first()

    def session_caller(self, token_sha256: str) -> Any:
        """The session behind a cookie with its user's name, in one query."""
        with read_tx(self.engine) as conn:
            q = select(t.sessions, t.users.c.name).join(t.users, t.users.c.id == t.sessions.c.user_id)
            return conn.execute(q.where(t.sessions.c.token_sha256 == token_sha256)).first()

    def token_user(self, token_sha256: str) -> int | None:
        with read_tx(self.engine) as conn:
            return conn.execute(
                select(t.api_tokens.c.user_id).where(t.api_tokens.c.token_sha256 == token_sha256)
            ).scalar()

    def tokens(self, user: int) -> list[dict[str, Any]]:
        with read_tx(self.engine) as conn:
            q = select(t.api_tokens.c.id, t.api_tokens.c.name, t.api_tokens.c.scope, t.api_tokens.c.created_at).where(
                t.api_tokens.c.user_id == user
            )
            return [dict(r._mapping) for r in conn.execute(q.order_by(t.api_tokens.c.id))]

    def delete_token(self, user: int, token_id: int) -> bool:
        with write_tx(self.engine) as conn:
            done = conn.execute(
                delete(t.api_tokens).where(t.api_tokens.c.id == token_id, t.api_tokens.c.user_id == user)
            )
            return done.rowcount == 1

    def server_key(self, make: Callable[[], bytes]) -> bytes:
        """The table's signing key (raw Ed25519 private bytes), made with ``make`` on first use."""
        with read_tx(self.engine) as conn:
            found = conn.execute(select(t.server_keys.c.private_hex).where(t.server_keys.c.id == 1)).scalar()
        if found:
            return bytes.fromhex(found)
        try:
            with write_tx(self.engine) as conn:
                conn.execute(insert(t.server_keys).values(id=1, private_hex=make().hex(), created_at=_now_text()))
        except IntegrityError:  # another worker made it first
            pass
        with read_tx(self.engine) as conn:
            return bytes.fromhex(
                str(conn.execute(select(t.server_keys.c.private_hex).where(t.server_keys.c.id == 1)).scalar())
            )

    def digest_cursor(self, user: int) -> str | None:
        with read_tx(self.engine) as conn:
            return conn.execute(select(t.digests.c.last_sent_at).where(t.digests.c.user_id == user)).scalar()

    def set_digest_cursor(self, user: int, at: str) -> None:
        with write_tx(self.engine) as conn:
            conn.execute(delete(t.digests).where(t.digests.c.user_id == user))
            conn.execute(insert(t.digests).values(user_id=user, last_sent_at=at))

    def users_with_email(self) -> list[Any]:
        """Users a digest may go to: a confirmed address, and digests not turned off."""
        u = t.users
        with read_tx(self.engine) as conn:
            q = select(u).where(u.c.email.is_not(None), u.c.email_confirmed_at.is_not(None), u.c.digest != "off")
            return list(conn.execute(q.order_by(u.c.id)))

    # --- e-mail confirmation, reader settings -------------------------------------------------

    def set_pending_email(self, uid: int, email: str | None, token_sha256: str | None, expires: str | None) -> None:
        """A new address (unconfirmed until its link comes back), or None to clear it."""
        with write_tx(self.engine) as conn:
            conn.execute(
                update(t.users)
                .where(t.users.c.id == uid)
                .values(
                    email=email, email_confirmed_at=None, email_token_sha256=token_sha256, email_token_expires=expires
                )
            )

    def confirm_email(self, uid: int, token_sha256: str, at: str) -> bool:
        """Confirm the pending address when the token is this user's and still fresh (used once)."""
        u = t.users
        with write_tx(self.engine) as conn:
            done = conn.execute(
                update(u)
                .where(
                    u.c.id == uid,
                    u.c.email_token_sha256 == token_sha256,
                    u.c.email_token_expires > at,
                    u.c.email.is_not(None),
                )
                .values(email_confirmed_at=at, email_token_sha256=None, email_token_expires=None)
            )
            return done.rowcount == 1

    def set_reader_settings(self, uid: int, **values: Any) -> None:
        """``digest`` and ``time_zone`` (checked by the caller)."""
        allowed = {k: v for k, v in values.items() if k in ("digest", "time_zone")}
        if allowed:
            with write_tx(self.engine) as conn:
                conn.execute(update(t.users).where(t.users.c.id == uid).values(**allowed))

    # --- where each reader stopped ------------------------------------------------------------

    def read_marks(self, uid: int, sids: Sequence[int]) -> dict[int, int]:
        """The newest log entry of each scene this reader was shown (0 when never)."""
        if not sids:
            return {}
        r = t.scene_reads
        with read_tx(self.engine) as conn:
            q = select(r.c.scene_id, r.c.seq).where(r.c.user_id == uid, r.c.scene_id.in_(list(sids)))
            return {row.scene_id: row.seq for row in conn.execute(q)}

    def mark_read(self, uid: int, sid: int, seq: int) -> None:
        """Move the reader's mark on to ``seq`` (never back)."""
        from sqlalchemy.dialects import postgresql, sqlite

        r = t.scene_reads
        upsert: Any = postgresql.insert if self.is_postgres else sqlite.insert
        q = upsert(r).values(user_id=uid, scene_id=sid, seq=seq)
        q = q.on_conflict_do_update(
            index_elements=[r.c.user_id, r.c.scene_id], set_={"seq": q.excluded.seq}, where=r.c.seq < q.excluded.seq
        )
        with write_tx(self.engine) as conn:
            conn.execute(q)

    # --- portraits ----------------------------------------------------------------------------

    def set_portrait(
        self, cid: int, char: int, *, media_type: str, data: bytes, digest: str, size: tuple[int, int], by: int, at: str
    ) -> None:
        p = t.portraits
        with write_tx(self.engine) as conn:
            conn.execute(delete(p).where(p.c.campaign_id == cid, p.c.character_id == char))
            conn.execute(
                insert(p).values(
                    campaign_id=cid,
                    character_id=char,
                    media_type=media_type,
                    data=data,
                    sha256=digest,
                    width=size[0],
                    height=size[1],
                    uploaded_by=by,
                    at=at,
                )
            )

    def delete_portrait(self, cid: int, char: int) -> bool:
        p = t.portraits
        with write_tx(self.engine) as conn:
            return conn.execute(delete(p).where(p.c.campaign_id == cid, p.c.character_id == char)).rowcount == 1

    def portrait(self, cid: int, char: int) -> Any:
        p = t.portraits
        with read_tx(self.engine) as conn:
            return conn.execute(select(p).where(p.c.campaign_id == cid, p.c.character_id == char)).first()

    def portrait_versions(self, cid: int) -> dict[int, str]:
        """Each portrait's digest by character (pages link ``?v=<digest>`` so browsers may cache them)."""
        p = t.portraits
        with read_tx(self.engine) as conn:
            q = select(p.c.character_id, p.c.sha256).where(p.c.campaign_id == cid)
            return {row.character_id: row.sha256[:16] for row in conn.execute(q)}
