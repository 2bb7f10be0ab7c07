"""Fixtures for the living-character tests: the table on SQLite with the real rule systems installed."""

from __future__ import annotations

from living.livekit import client  # noqa: F401  (fixture)
