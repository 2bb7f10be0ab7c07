"""Fixtures for the living-character tests: the table on SQLite with the real rule systems installed."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from storymaster.web import Settings, create_app

FAST_ARGON2 = {"argon2_time_cost": 1, "argon2_memory_cost": 1024}


@pytest.fixture
def client(tmp_path):
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'table.sqlite3'}", **FAST_ARGON2))
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c
