"""Engines and transactions: SQLite (WAL, foreign keys on) by default, PostgreSQL when asked.

Writers to one log are serialised: on SQLite every write transaction begins
``IMMEDIATE`` (one writer at a time, readers never blocked under WAL); on
PostgreSQL the log's head row is locked ``FOR UPDATE``. Migrations are
Alembic's, shipped inside the package and run on start.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url

__all__ = ["default_sqlite_path", "make_engine", "migrate", "read_tx", "resolve_url", "write_tx"]

MIGRATIONS = Path(__file__).parent / "migrations"


def default_sqlite_path() -> Path:
    """``$XDG_DATA_HOME/storymaster/table.sqlite3`` (``~/.local/share/...`` when unset)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "storymaster" / "table.sqlite3"


def resolve_url(database: str | Path | None = None) -> str:
    """``--database`` (a path or a URL) first, then ``DATABASE_URL``, then the default SQLite file."""
    if database:
        text = str(database)
        if "://" in text:
            return _normalise(text)
        return f"sqlite:///{Path(text).expanduser().resolve()}"
    env = os.environ.get("DATABASE_URL")
    if env:
        return _normalise(env)
    return f"sqlite:///{default_sqlite_path()}"


def _normalise(url: str) -> str:
    """``postgres://`` and ``postgresql://`` mean psycopg 3 here."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def make_engine(url: str) -> Engine:
    u = make_url(url)
    if u.get_backend_name() == "sqlite":
        # WAL with synchronous=NORMAL: a commit survives the server process dying (the crash test),
        # not necessarily the machine losing power; FULL also fsyncs every commit (several ms each).
        sync = os.environ.get("STORYMASTER_SQLITE_SYNCHRONOUS", "NORMAL").upper()
        if sync not in ("NORMAL", "FULL", "EXTRA"):
            sync = "NORMAL"
        if u.database and u.database != ":memory:":
            Path(u.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": 30}, pool_size=20, max_overflow=20
        )

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn, _record) -> None:  # pragma: no cover - exercised by every test
            dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute(f"PRAGMA synchronous={sync}")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        @event.listens_for(engine, "begin")
        def _on_begin(conn: Connection) -> None:
            conn.exec_driver_sql(
                "BEGIN IMMEDIATE" if conn.get_execution_options().get("storymaster_write") else "BEGIN"
            )

        return engine
    # 20 connections a worker: four workers stay well inside PostgreSQL's default 100
    return create_engine(url, pool_size=10, max_overflow=10, pool_pre_ping=True)


@contextmanager
def write_tx(engine: Engine) -> Iterator[Connection]:
    with engine.connect() as conn:
        conn = conn.execution_options(storymaster_write=True)
        with conn.begin():
            yield conn


@contextmanager
def read_tx(engine: Engine) -> Iterator[Connection]:
    with engine.connect() as conn, conn.begin():
        yield conn


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest revision (Alembic ``upgrade head``)."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            conn = conn.execution_options(storymaster_write=True)
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
        conn.commit()
