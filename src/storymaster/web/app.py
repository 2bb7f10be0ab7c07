"""The FastAPI application: ``create_app(settings)``.

The JSON API under ``/api`` and the HTML pages (``web/pages``) that use it;
the front page at ``/`` links the OpenAPI docs. Every error is RFC 9457 problem details; bodies over the limit
are refused with 413 before they are read.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import threading
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime

from fastapi import FastAPI

from .. import __version__
from ..store import Store, make_engine, migrate
from . import problems
from .accounts import Throttle
from .headers import SecurityHeaders
from .limits import BodyLimit
from .live import Broker, PgListener
from .routers import auth, campaigns, characters, exports, invites, live, posts, scenes, systems
from .settings import Settings
from .work import ComputePool, ForecastCache, Work

__all__ = ["create_app"]

log = logging.getLogger("storymaster.web")

#: seconds the server waits at start-up for its compute workers before it takes requests anyway
WARM_WAIT = 5.0


def _utcnow() -> datetime:
    return datetime.now(UTC)


def create_app(settings: Settings, *, clock: Callable[[], datetime] = _utcnow) -> FastAPI:
    engine = make_engine(settings.database_url)
    if settings.migrate:
        migrate(engine)
    store = Store(engine, cache_bytes=settings.cache_mb * 2**20)
    from .signing import load_signer

    signer = store.signer = load_signer(store)
    broker = Broker()
    store.listeners.append(broker.publish)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        listener = None
        if store.is_postgres:
            listener = PgListener(settings.database_url, broker)
            listener.start()
        # the compute workers (and the fork server they come from) start now; the server waits for them a
        # little (so the first preview rarely pays for them), not for long (a busy box must still start)
        warming = threading.Thread(target=app.state.work.pool.warm, name="storymaster-work-warm", daemon=True)
        warming.start()
        await asyncio.to_thread(warming.join, WARM_WAIT)
        digests = None
        if settings.smtp_host and settings.digest_every > 0:
            from .notify import digest_loop

            digests = asyncio.create_task(digest_loop(app))
        try:
            yield
        finally:
            if digests:
                digests.cancel()
            if listener:
                listener.stop_flag.set()
                await asyncio.to_thread(listener.join, 2.0)
            engine.dispose()

    app = FastAPI(
        docs_url="/docs" if settings.api_docs else None,
        redoc_url="/redoc" if settings.api_docs else None,
        title="Storymaster table",
        version=__version__,
        summary="Play-by-post tables for every Storymaster rule system: scenes, posts, verifiable rolls, turns.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.store = store
    app.state.signer = signer
    app.state.throttle = Throttle()  # failed sign-ins, per process
    app.state.streams = collections.Counter()  # live streams open per user, in this process
    app.state.broker = broker
    app.state.clock = clock
    app.state.work = Work(ComputePool.shared(settings.work_processes, settings.work_memory_mb), settings.work_seconds)
    app.state.forecasts = ForecastCache()  # the GM page's forecasts, per (scene, log head)
    problems.install(app)
    from .pages import install as install_pages

    install_pages(app)  # the HTML pages (first: their "/" is the table's front page)
    for module in (systems, auth, campaigns, invites, characters, scenes, posts, exports, live):
        app.include_router(module.router)
    from .routers import living, notifications, portraits

    app.include_router(notifications.router)
    app.include_router(living.router)
    app.include_router(portraits.router)
    app.add_middleware(
        BodyLimit, max_body=settings.max_body, max_upload=settings.max_upload, upload_paths=("/portrait",)
    )
    app.add_middleware(SecurityHeaders)
    return app
