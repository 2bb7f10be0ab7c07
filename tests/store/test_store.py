"""The store on SQLite and PostgreSQL: migrations match the tables; concurrent writers never fork a log."""

from __future__ import annotations

import itertools
import threading
from datetime import UTC, datetime

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from storymaster.play import campaign as cc
from storymaster.play import scene as sc
from storymaster.play.verify import verify_log
from storymaster.play.views import Reader, entry_view
from storymaster.store import Store, make_engine, migrate, resolve_url
from storymaster.store.tables import metadata

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


def test_migrations_build_exactly_the_tables(db_url) -> None:
    engine = make_engine(db_url)
    migrate(engine)
    migrate(engine)  # twice is harmless
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
        if engine.dialect.name == "sqlite":
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    engine.dispose()


def test_database_urls(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert resolve_url() == f"sqlite:///{tmp_path}/storymaster/table.sqlite3"
    assert resolve_url(tmp_path / "x.db") == f"sqlite:///{tmp_path}/x.db"
    monkeypatch.setenv("DATABASE_URL", "postgres://u@h/db")
    assert resolve_url() == "postgresql+psycopg://u@h/db"
    assert resolve_url("sqlite:///elsewhere.db") == "sqlite:///elsewhere.db"


def test_concurrent_posts_never_fork_the_chain_or_share_dice(db_url, tally) -> None:
    engine = make_engine(db_url)
    migrate(engine)
    store = Store(engine)
    at = NOW.isoformat()
    users = [store.create_user(name=f"u{i}-{id(store)}", email=None, password_hash="x", at=at) for i in range(5)]
    gm = users[0]
    cid = store.create_campaign(
        name="C", system="tally", drafts=cc.create_campaign(gm, "gm", name="C", system=tally, house_rules={}), at=at
    ).campaign
    for u in users[1:]:
        store.campaign_append(cid, lambda c, u=u: cc.add_member(c, gm, user=u, name=str(u), role="player"), at)
    seed = "concurrency"
    sid, _ = store.open_scene(cid, seed, lambda c, sid: sc.open_scene(c, gm, scene_id=sid, title="S", seed=seed), at)
    errors = []

    def player(u: int) -> None:
        for i in range(10):
            try:
                store.scene_append(
                    sid,
                    lambda c, s, sd, i=i: sc.write_post(
                        c, s, u, kind="ooc", text=f"{u}:{i}", now=NOW, seed=sd, system=tally, rolls=[{"dice": "3d6"}]
                    ),
                    at,
                )
            except Exception as exc:  # pragma: no cover - reported below
                errors.append(exc)

    threads = [threading.Thread(target=player, args=(u,)) for u in users[1:] * 2]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors[:3]
    log = store.scene_log(sid)
    assert len(log) == 1 + 80
    with store.reading_scene(sid) as (_c, s):
        assert len(s.posts) == 80
        reader = Reader(gm, "gm")
    counters = sorted(r["counter"] for e in log for r in e.rolls)
    assert counters[0][0] == 0 and all(a[1] == b[0] for a, b in itertools.pairwise(counters))
    assert verify_log([entry_view(e, reader, None) for e in log], name="scene")["entries"] == 81
    engine.dispose()
