"""Fixtures for the API tests: an app on SQLite and on PostgreSQL, a client, and a ready table."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from play.kit import Clock, db_url, pg_url, tally  # noqa: F401  (fixtures)
from web.apikit import Table, build_table

from storymaster.web import Settings, create_app

FAST_ARGON2 = {"argon2_time_cost": 1, "argon2_memory_cost": 1024}


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def app(db_url, tally, clock):  # noqa: F811 - pytest passes the fixtures imported above by name
    return create_app(Settings(database_url=db_url, **FAST_ARGON2), clock=clock)


@pytest.fixture
def client(app):
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


@pytest.fixture
def table(client) -> Table:
    return build_table(client)
