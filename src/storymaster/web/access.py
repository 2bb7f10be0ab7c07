"""Shared helpers for routers: membership checks and the system of a campaign."""

from __future__ import annotations

from ..play.campaign import CampaignState
from ..play.errors import Forbidden
from ..play.views import Reader
from ..rules import RuleSystem, get_system
from .deps import Caller

__all__ = ["member", "system_of"]


def member(c: CampaignState, caller: Caller) -> Reader:
    """The caller as a reader of the campaign; 403 unless they are a member."""
    reader = Reader.of(c, caller.id)
    if reader.role is None:
        raise Forbidden(f"you are not a member of campaign {c.id}", hint="ask its GM to add you")
    return reader


def system_of(c: CampaignState) -> RuleSystem:
    return get_system(c.system)
