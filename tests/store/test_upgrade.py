"""An existing database (the first schema, logs written before salting) upgrades in place and keeps verifying."""

from __future__ import annotations

import uuid

import pytest
from alembic import command
from alembic.config import Config
from play.kit import PG_ADMIN, _pg_connect, ensure_postgres
from sqlalchemy import insert

from storymaster.play import campaign as cc
from storymaster.play import scene as sc
from storymaster.play.chain import canonical_json
from storymaster.play.log import seal
from storymaster.play.verify import verify_log
from storymaster.play.views import Reader, entry_view
from storymaster.store import Store, make_engine, migrate
from storymaster.store.db import MIGRATIONS
from storymaster.store.repo import _row

SEED = "an old scene's seed"


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.sqlite3'}"
        return
    ensure_postgres()
    name = f"storymaster_upgrade_{uuid.uuid4().hex[:12]}"
    with _pg_connect() as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield PG_ADMIN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1) + f"/{name}"
    with _pg_connect() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _upgrade(engine, to: str) -> None:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            conn = conn.execution_options(storymaster_write=True)
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, to)
        conn.commit()


def test_a_first_schema_database_upgrades_and_its_old_logs_verify(fresh_url, tally) -> None:
    from storymaster.store import tables as t

    engine = make_engine(fresh_url)
    _upgrade(engine, "0001")
    created = seal(
        cc.create_campaign(1, "gm", name="Old", system=tally, house_rules={}), head_seq=0, head_hash=None, at="t0"
    )
    c = cc.fold_campaign(1, created)
    opened = seal(sc.open_scene(c, 1, scene_id=1, title="Old scene", seed=SEED)[0], head_seq=0, head_hash=None, at="t1")
    with engine.begin() as conn:  # rows as the old server wrote them (no salt column yet)
        conn.execute(insert(t.users).values(id=1, name="gm", password_hash="x", created_at="t0"))
        conn.execute(
            insert(t.campaigns).values(
                id=1, name="Old", system="tally", created_at="t0", head_seq=2, head_hash=created[-1].hash
            )
        )
        conn.execute(insert(t.scenes).values(id=1, campaign_id=1, seed=SEED, head_seq=1, head_hash=opened[-1].hash))
        rows = [_row(e, "c:1", 1, None) for e in created] + [_row(e, "s:1", 1, 1) for e in opened]
        for row in rows:  # only the first schema's columns: the salt column does not exist yet
            conn.execute(insert(t.entries).values({k: v for k, v in row.items() if k != "salt"}))
    migrate(engine)  # 0001 -> head
    store = Store(engine)
    appended = store.scene_append(
        1,
        lambda c, s, seed: sc.write_post(
            c, s, 1, kind="ooc", text="after the upgrade", now=None, seed=seed, system=tally, rolls=[{"dice": "d6"}]
        ),
        "t2",
    )
    assert appended.entries[0].salt and appended.entries[0].rolls[0]["salt"]
    store.scene_append(1, lambda c, s, seed: sc.close_scene(c, s, 1, seed=seed)[0], "t3")
    with store.reading_scene(1) as (c, s):
        views = [entry_view(e, Reader(1, "gm"), s.seed) for e in store.scene_log(1)]
    report = verify_log(views, name="scene 1", scene_id=1)
    assert report["commit"] == 1 and report["unsalted_entries"] == 1 and report["rolls_replayed"] == 1
    assert canonical_json(views[0]["body"]["title"]) == '"Old scene"'
    engine.dispose()
