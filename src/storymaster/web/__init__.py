"""The table's JSON API (FastAPI): one router per resource, problem-details errors, SSE."""

from .app import create_app
from .settings import Settings

__all__ = ["Settings", "create_app"]
