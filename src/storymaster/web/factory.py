"""Build the app from ``STORYMASTER_*`` environment variables (for uvicorn workers: ``--factory``)."""

from __future__ import annotations

import os

from fastapi import FastAPI

from .app import create_app
from .settings import Settings

__all__ = ["from_env", "settings_from_env"]


def settings_from_env() -> Settings:
    env = os.environ
    return Settings(
        database_url=env["STORYMASTER_DATABASE_URL"],
        smtp_host=env.get("STORYMASTER_SMTP_HOST") or None,
        smtp_port=int(env.get("STORYMASTER_SMTP_PORT") or 25),
        digest_every=int(env.get("STORYMASTER_DIGEST_EVERY") or 0),
        base_url=env.get("STORYMASTER_PUBLIC_URL") or env.get("STORYMASTER_BASE_URL", "http://127.0.0.1:8000"),
        argon2_time_cost=int(env.get("STORYMASTER_ARGON2_TIME_COST", "3")),
        argon2_memory_cost=int(env.get("STORYMASTER_ARGON2_MEMORY_COST", "65536")),
        sse_poll_seconds=float(env.get("STORYMASTER_SSE_POLL", "5")),
        migrate=env.get("STORYMASTER_MIGRATE", "1") == "1",
        secure_cookies=_flag(env.get("STORYMASTER_SECURE_COOKIES")),
        api_docs=_flag(env.get("STORYMASTER_API_DOCS")) or False,
        cache_mb=int(env.get("STORYMASTER_CACHE_MB") or 256),
        work_seconds=float(env.get("STORYMASTER_WORK_SECONDS") or 5.0),
        work_processes=int(env.get("STORYMASTER_WORK_PROCESSES") or 2),
        work_memory_mb=int(env.get("STORYMASTER_WORK_MEMORY_MB") or 2048),
    )


def _flag(text: str | None) -> bool | None:
    """``1``/``true``/``yes`` or ``0``/``false``/``no``; unset or empty: None (the default applies)."""
    if not text:
        return None
    return text.strip().lower() in ("1", "true", "yes", "on")


def from_env() -> FastAPI:
    return create_app(settings_from_env())
