"""Live updates: an in-process broker, fed by this process's writes and, on PostgreSQL, by LISTEN/NOTIFY.

Every write calls ``pg_notify('storymaster', '<campaign>:<scene>')`` inside its
transaction, so the notice goes out on commit; each worker process listens on
one connection and wakes its SSE streams. The streams also re-check the log's
head every few seconds, so a lost notice only delays an update.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from typing import Any

from ..store import Appended

__all__ = ["Broker", "PgListener"]

log = logging.getLogger("storymaster.web.live")


class Broker:
    """Wakes waiters on a scene (or campaign) when its log grows; safe to publish from any thread."""

    def __init__(self) -> None:
        self._waiters: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = {}
        self._lock = threading.Lock()

    def publish_key(self, key: str) -> None:
        with self._lock:
            waiters = list(self._waiters.get(key, ()))
        for loop, event in waiters:
            with contextlib.suppress(RuntimeError):  # the loop has closed
                loop.call_soon_threadsafe(event.set)

    def publish(self, appended: Appended) -> None:
        if appended.scene is not None:
            self.publish_key(f"s:{appended.scene}")
        self.publish_key(f"c:{appended.campaign}")

    def subscribe(self, key: str) -> tuple[asyncio.AbstractEventLoop, asyncio.Event]:
        token = (asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            self._waiters.setdefault(key, set()).add(token)
        return token

    def unsubscribe(self, key: str, token: Any) -> None:
        with self._lock:
            self._waiters.get(key, set()).discard(token)


class PgListener(threading.Thread):
    """LISTEN storymaster on PostgreSQL; each notice wakes this process's streams."""

    def __init__(self, url: str, broker: Broker) -> None:
        super().__init__(name="storymaster-listen", daemon=True)
        self.url, self.broker = url, broker
        self.stop_flag = threading.Event()
        self.ready = threading.Event()

    def run(self) -> None:  # pragma: no cover - exercised by the multi-worker tests
        import psycopg
        from sqlalchemy.engine import make_url

        u = make_url(self.url)
        conninfo = u.set(drivername="postgresql").render_as_string(hide_password=False)
        while not self.stop_flag.is_set():
            try:
                with psycopg.connect(conninfo, autocommit=True) as conn:
                    conn.execute("LISTEN storymaster")
                    self.ready.set()
                    while not self.stop_flag.is_set():
                        for note in conn.notifies(timeout=0.25):
                            cid, _, sid = note.payload.partition(":")
                            if sid and sid != "0":
                                self.broker.publish_key(f"s:{sid}")
                            self.broker.publish_key(f"c:{cid}")
            except Exception as exc:
                log.warning("LISTEN connection lost (%s); retrying", exc)
                self.stop_flag.wait(1.0)
