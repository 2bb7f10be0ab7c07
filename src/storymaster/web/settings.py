"""Typed settings for the server, from arguments and the environment."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Settings"]


@dataclass(frozen=True, slots=True)
class Settings:
    database_url: str
    #: largest request body accepted, in bytes
    max_body: int = 256 * 1024
    #: largest portrait upload accepted, in bytes (the image is decoded, checked and resized before it is stored)
    max_upload: int = 4 * 1024 * 1024
    session_days: int = 30
    #: mark cookies Secure; None: on exactly when ``base_url`` is https (--secure-cookies, STORYMASTER_SECURE_COOKIES)
    secure_cookies: bool | None = None
    #: argon2 costs; the defaults are argon2-cffi's (RFC 9106 low-memory profile)
    argon2_time_cost: int = 3
    argon2_memory_cost: int = 65536
    smtp_host: str | None = None
    smtp_port: int = 25
    smtp_from: str = "storymaster@localhost"
    #: send e-mail digests every this many seconds (0: only when asked)
    digest_every: int = 0
    base_url: str = "http://127.0.0.1:8000"
    #: SSE streams re-check their scene this often even without a notice (seconds)
    sse_poll_seconds: float = 5.0
    #: live (SSE) streams one user may hold open on one worker process
    max_streams_per_user: int = 8
    #: run migrations on start
    migrate: bool = True
    #: serve the interactive API docs at /docs (they load their script from a CDN, so off by default;
    #: the OpenAPI document at /openapi.json is always served)
    api_docs: bool = False
    #: folded log state kept in memory per server process, in MiB (least recently used evicted past it;
    #: STORYMASTER_CACHE_MB)
    cache_mb: int = 256
    #: seconds of rules work one request may start (odds previews, forecasts, sheet checks, typed YAML), run in
    #: a worker process; past it the worker is killed and the request answers 422 too-much-work
    #: (STORYMASTER_WORK_SECONDS)
    work_seconds: float = 5.0
    #: compute worker processes per server process (STORYMASTER_WORK_PROCESSES)
    work_processes: int = 2
    #: address-space cap of a compute worker in MiB, 0 for none (STORYMASTER_WORK_MEMORY_MB)
    work_memory_mb: int = 2048

    @property
    def cookies_secure(self) -> bool:
        if self.secure_cookies is not None:
            return self.secure_cookies
        return self.base_url.lower().startswith("https://")
