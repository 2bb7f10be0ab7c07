"""Request bodies: what the API accepts (responses are the views in :mod:`storymaster.play.views`)."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .accounts import MIN_PASSWORD, check_password, clean_name, email_address, refuse_invisible

__all__ = [
    "CampaignIn",
    "CharacterIn",
    "CloseIn",
    "CombatIn",
    "HouseRulesIn",
    "InlineOddsIn",
    "InviteIn",
    "JoinIn",
    "LoginIn",
    "MemberIn",
    "NoteIn",
    "PasswordIn",
    "PostEditIn",
    "PostIn",
    "PreviewIn",
    "RegisterIn",
    "SceneIn",
    "ScenePatch",
    "TokenIn",
]

Name = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.\- ]+$")
Text = Field(max_length=20_000)


#: control characters no stored text may hold (tab, line feed and carriage return are text)
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
#: how deep a request body may nest (a character sheet nests about five)
MAX_DEPTH = 32


def refuse_control_characters(data: Any) -> Any:
    """Walk a request body (without recursion): every text and key free of control characters, nesting bounded.

    PostgreSQL cannot store NUL in text at all and an Atom feed cannot carry C0 characters,
    so both databases refuse them alike, with where they were.
    """
    stack: list[tuple[Any, str, int]] = [(data, "body", 0)]
    while stack:
        value, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ValueError(f"{where}: nested more than {MAX_DEPTH} levels deep")
        if isinstance(value, str):
            bad = CONTROL.search(value)
            if bad:
                raise ValueError(
                    f"{where}: control character U+{ord(bad.group()):04X} at position {bad.start()} "
                    "(only tab, line feed and carriage return are allowed in text)"
                )
        elif isinstance(value, dict):
            for k, v in value.items():
                stack.append((k, f"{where} (a key)", depth + 1))
                stack.append((v, f"{where}.{k}", depth + 1))
        elif isinstance(value, (list, tuple)):
            stack.extend((v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value))
    return data


class In(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _no_control_characters(cls, data: Any) -> Any:
        return refuse_control_characters(data)


class RegisterIn(In):
    name: str = Name
    password: str = Field(min_length=MIN_PASSWORD, max_length=1024)
    email: str | None = Field(None, max_length=254)

    @field_validator("email")
    @classmethod
    def _real_address(cls, v: str | None) -> str | None:
        return email_address(v) if v else None

    @field_validator("name", mode="before")
    @classmethod
    def _clean_name(cls, v: Any) -> Any:
        return clean_name(v) if isinstance(v, str) else v

    @field_validator("password")
    @classmethod
    def _strong_enough(cls, v: str) -> str:
        return check_password(v)


class PasswordIn(In):
    current: str = Field(min_length=1, max_length=1024)
    new: str = Field(min_length=MIN_PASSWORD, max_length=1024)

    @field_validator("new")
    @classmethod
    def _strong_enough(cls, v: str) -> str:
        return check_password(v)


class LoginIn(In):
    name: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=1024)


class TokenIn(In):
    name: str = Field("bot", min_length=1, max_length=100)
    scope: Literal["all", "read"] = Field("all", description="read: GET requests only (a feed reader's token)")


class CampaignIn(In):
    name: str = Field(min_length=1, max_length=200)
    system: str = Field(min_length=1, max_length=64)
    house_rules: dict[str, Any] = Field(default_factory=dict)
    description: str = Field("", max_length=5000)


class HouseRulesIn(In):
    house_rules: dict[str, Any]


class MemberIn(In):
    user: str = Field(min_length=1, max_length=64, description="the user's name")
    role: Literal["gm", "player", "observer"]


class CharacterIn(In):
    sheet: dict[str, Any]
    owner: int | None = Field(None, ge=1, description="user id (GM only; default: you)")
    name: str = Field("", max_length=200)

    @model_validator(mode="after")
    def _visible_names(self) -> CharacterIn:
        refuse_invisible(self.name, "a character's name")
        if isinstance(self.sheet.get("name"), str):
            refuse_invisible(self.sheet["name"], "a character's name")
        return self


class SceneIn(In):
    title: str = Field(min_length=1, max_length=200)
    mode: Literal["free", "turn"] = "free"
    cast: list[int] = Field(default_factory=list, max_length=100)
    turn_seconds: int | None = None
    on_deadline: Literal["skip", "gm_acts"] | None = None  # None: the rule system's default (Kalyr: gm_acts)


class ScenePatch(In):
    title: str | None = Field(None, min_length=1, max_length=200)
    mode: Literal["free", "turn"] | None = None
    cast: list[int] | None = Field(None, max_length=100)
    turn_seconds: int | None = None
    on_deadline: Literal["skip", "gm_acts"] | None = None


class RollIn(In):
    dice: str | None = Field(None, max_length=200)
    check: dict[str, Any] | None = None
    label: str = Field("", max_length=200)
    visibility: Literal["public", "gm", "blind", "self"] = "public"
    character: int | None = Field(None, description="who rolls the check: their condition's penalties apply")


class PostIn(In):
    kind: Literal["ic", "ooc", "private", "note"] = "ic"
    text: str = Text
    character: int | None = None
    to: list[int] = Field(default_factory=list, max_length=50)
    rolls: list[RollIn] = Field(default_factory=list, max_length=20)
    force: bool = False


class PreviewIn(In):
    dice: str | None = Field(None, max_length=200)
    check: dict[str, Any] | None = None
    label: str = Field("", max_length=200)
    character: int | None = Field(None, description="the character who would roll: their condition's penalties apply")


class InlineOddsIn(In):
    text: str = Text


class PostEditIn(In):
    text: str = Text


class InviteIn(In):
    role: Literal["player", "observer"] = "player"
    expires_in_hours: int | None = Field(None, ge=1, le=24 * 366, description="the link stops working after this")
    max_uses: int | None = Field(None, ge=1, le=1000, description="the link works this many times")


class JoinIn(In):
    token: str = Field(min_length=1, max_length=200)


class NoteIn(In):
    text: str = Field(min_length=1, max_length=20_000)


class CloseIn(In):
    pass


class CombatIn(In):
    sides: list[list[int]] = Field(min_length=2, max_length=8)
    options: dict[str, Any] = Field(default_factory=dict)
