"""Fixtures for the page tests: the app on SQLite (the pages add no storage of their own) and a ready table."""

from __future__ import annotations

import pytest
from pages.pagekit import Table, build_table

from storymaster.web import Settings, create_app

FAST_ARGON2 = {"argon2_time_cost": 1, "argon2_memory_cost": 1024}


@pytest.fixture
def app(tmp_path):
    return create_app(Settings(database_url=f"sqlite:///{tmp_path / 'table.sqlite3'}", **FAST_ARGON2))


@pytest.fixture
def table(app) -> Table:
    t = build_table(app)
    yield t
    for p in (t.gm, t.alice, t.bob, t.observer, t.outsider):
        p.client.__exit__(None, None, None)
