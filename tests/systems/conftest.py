"""Fixtures shared by the systems' tests: ``client``, the table on SQLite with the real systems (the table tests)."""

from __future__ import annotations

from living.livekit import client  # noqa: F401  (fixture)
