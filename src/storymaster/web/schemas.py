"""Request bodies: what the API accepts (responses are the views in :mod:`storymaster.play.views`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "CampaignIn",
    "CharacterIn",
    "CloseIn",
    "CombatIn",
    "HouseRulesIn",
    "LoginIn",
    "MemberIn",
    "NoteIn",
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


class In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RegisterIn(In):
    name: str = Name
    password: str = Field(min_length=8, max_length=1024)
    email: str | None = Field(None, max_length=254, pattern=r"^[^@\s]+@[^@\s]+$")


class LoginIn(In):
    name: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=1024)


class TokenIn(In):
    name: str = Field("bot", min_length=1, max_length=100)


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


class PostEditIn(In):
    text: str = Text


class NoteIn(In):
    text: str = Field(min_length=1, max_length=20_000)


class CloseIn(In):
    pass


class CombatIn(In):
    sides: list[list[int]] = Field(min_length=2, max_length=8)
    options: dict[str, Any] = Field(default_factory=dict)
