"""Base classes for the typed things a system defines: checks, characters, house rules."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["Check", "HouseRules", "Model", "describe_house_rules"]


class Model(BaseModel):
    """A frozen pydantic model that refuses unknown fields: the shape of every rules value."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class Check(Model):
    """A test a system can resolve and give odds for. Systems subclass it, one class per kind."""

    def describe(self) -> str:  # pragma: no cover - systems override
        """A short line naming the check (systems say more)."""
        return type(self).__name__


class HouseRules(Model):
    """A system's optional rules: one field per option, defaulting to the book.

    Every "optional rule", "variant" or "at the GM's discretion" in a rulebook is
    a field here, whose ``description`` says what it does and cites the passage.
    """


def describe_house_rules(model: type[HouseRules]) -> list[dict[str, Any]]:
    """Each option's name, default and description, for the CLI, the docs and the web."""
    out = []
    for name, info in model.model_fields.items():
        default = info.get_default(call_default_factory=True)
        if isinstance(default, BaseModel):
            default = default.model_dump(mode="json")
        out.append({"name": name, "default": default, "description": info.description or ""})
    return out
