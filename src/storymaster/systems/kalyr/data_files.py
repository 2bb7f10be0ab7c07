"""The book's tables, loaded once from ``data/*.yaml`` (importlib.resources)."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Any

import yaml

__all__ = ["table"]


@cache
def table(name: str) -> Any:
    """The parsed ``data/<name>.yaml``."""
    text = files(__package__).joinpath("data").joinpath(f"{name}.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)
