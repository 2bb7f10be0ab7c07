"""Persistence for the table: SQLAlchemy 2 tables, Alembic migrations, and the log store."""

from .db import make_engine, migrate, resolve_url
from .repo import Appended, Store

__all__ = ["Appended", "Store", "make_engine", "migrate", "resolve_url"]
