"""Fixtures and helpers shared by the table's tests (imported by the conftests of tests/web and tests/store).

* ``tally``: installs the test rule system through a patched entry-point list,
  as a third-party plugin would be (the real systems live on other branches);
* ``db_url``: every API test runs twice, on SQLite and on a real PostgreSQL
  (a fresh database per test session, started if the server is down);
* ``Clock``: the server's clock, moved by hand.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from datetime import UTC, datetime, timedelta
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from storymaster.rules import registry

PG_ADMIN = os.environ.get("STORYMASTER_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
TALLY = EntryPoint(name="tally", value="play.tally:SYSTEM", group=registry.SYSTEMS_GROUP)


def install_tally() -> None:
    registry.entry_points = lambda group: [TALLY] if group == registry.SYSTEMS_GROUP else []  # type: ignore[assignment]
    registry._load.cache_clear()


@pytest.fixture
def tally(monkeypatch):
    monkeypatch.setattr(registry, "entry_points", lambda group: [TALLY] if group == registry.SYSTEMS_GROUP else [])
    registry._load.cache_clear()
    yield registry.get_system("tally")
    registry._load.cache_clear()


def _pg_connect():
    import psycopg

    return psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=3)


def ensure_postgres() -> None:
    """Start the local PostgreSQL cluster when it is not running (as CI does)."""
    try:
        _pg_connect().close()
        return
    except Exception:
        pass
    versions = sorted(Path("/etc/postgresql").glob("*")) if Path("/etc/postgresql").exists() else []
    if versions:
        subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", versions[-1].name, "main", "start"], check=False)
    try:
        _pg_connect().close()
    except Exception as exc:  # the PostgreSQL path is tested on a real server, always: no opt-out
        pytest.fail(f"PostgreSQL is not reachable at {PG_ADMIN}: {exc} (start it, or point STORYMASTER_TEST_PG at one)")


@pytest.fixture(scope="session")
def pg_url():
    ensure_postgres()
    name = f"storymaster_test_{uuid.uuid4().hex[:12]}"
    with _pg_connect() as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1)
    yield f"{base}/{name}"
    with _pg_connect() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'table.sqlite3'}"
    return request.getfixturevalue("pg_url")


class Clock:
    """The server's clock, moved by hand."""

    def __init__(self, start: datetime = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(microseconds=1)  # every write gets its own instant
        return self.now

    def advance(self, **kw: float) -> None:
        self.now += timedelta(**kw)


def unique(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"
