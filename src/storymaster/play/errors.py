"""Errors the table raises on purpose; each carries the HTTP status the API answers with."""

from __future__ import annotations

from ..errors import StorymasterError

__all__ = ["Conflict", "Forbidden", "Invalid", "NotFound", "TableError", "Unauthorized"]


class TableError(StorymasterError):
    """Something the table does not allow; ``status`` is the HTTP status it maps to."""

    code = "table-error"
    status = 400


class Unauthorized(TableError):
    code = "unauthorized"
    status = 401


class Forbidden(TableError):
    code = "forbidden"
    status = 403


class NotFound(TableError):
    code = "not-found"
    status = 404


class Conflict(TableError):
    code = "conflict"
    status = 409


class Invalid(TableError):
    code = "invalid"
    status = 422
