"""Characters at the table: condition and resources, the GM's adjustments, rest and healing, advancement.

Every change is an entry on the campaign's log (``character.condition``, ``character.updated``);
rules that roll dice are made in a scene, on its committed stream, and tell the scene what happened.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import Field

from ...dice import DiceRng
from ...play import living
from ...play.campaign import CampaignState
from ...play.errors import Conflict
from ...play.rolling import scene_stream
from ...play.scene import SceneState
from ..access import member, system_of
from ..deps import CallerDep, Id, NowDep, StoreDep, now_text
from ..schemas import In

router = APIRouter(tags=["characters"])

_CH = "/api/campaigns/{cid}/characters/{char_id}"
_SCENE_CH = "/api/scenes/{sid}/characters/{char_id}"


class AdjustIn(In):
    values: dict[str, Any] = Field(description="the condition's fields to set (nested objects merge key by key)")
    reason: str = Field(min_length=1, max_length=500, description="why: it goes on the log with the change")


class ActIn(In):
    request: dict[str, Any] = Field(description='{"action": <one of the condition\'s actions>, ...its fields}')
    reason: str = Field("", max_length=500)


class EveryoneIn(In):
    request: dict[str, Any] = Field(description='{"action": <one of the condition\'s actions>, ...its fields}')
    characters: list[int] | None = Field(None, max_length=200, description="whom it applies to (default: everyone)")
    reason: str = Field("", max_length=500)


class AdvanceIn(In):
    request: dict[str, Any] = Field(description="the system's advancement request (award, purchase, level-up ...)")


def _view(store: Any, cid: int, char_id: int, caller: Any) -> dict[str, Any]:
    with store.reading_campaign(cid) as c:
        member(c, caller)
        return living.condition_view(c, system_of(c), char_id)


@router.get(_CH + "/condition", summary="A character's condition and resources, their penalties, and their history")
def read_condition(cid: Id, char_id: Id, store: StoreDep, caller: CallerDep) -> dict[str, Any]:
    return _view(store, cid, char_id, caller)


@router.post(_CH + "/condition", summary="Set any value of a character's condition (GM), with a reason")
def adjust_condition(
    cid: Id, char_id: Id, body: AdjustIn, store: StoreDep, caller: CallerDep, now: NowDep
) -> dict[str, Any]:
    def decide(c: CampaignState):
        member(c, caller)
        return living.adjust_condition(
            c, caller.id, char_id, system=system_of(c), values=body.values, reason=body.reason
        )

    store.campaign_append(cid, decide, now_text(now))
    return _view(store, cid, char_id, caller)


@router.post(
    _CH + "/actions",
    summary="Between scenes: rest, healing, time passing, a hazard, a spent point (rules without dice)",
)
def act(cid: Id, char_id: Id, body: ActIn, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    def decide(c: CampaignState):
        member(c, caller)
        _, drafts = living.character_act(
            c, caller.id, char_id, system=system_of(c), request=body.request, reason=body.reason
        )
        if not drafts:
            raise Conflict("that changes nothing")
        return drafts

    store.campaign_append(cid, decide, now_text(now))
    return _view(store, cid, char_id, caller)


@router.post(
    _SCENE_CH + "/actions",
    summary="A between-scenes rule in a scene: its dice come from the scene's stream, its story goes in the scene",
)
def act_in_scene(sid: Id, char_id: Id, body: ActIn, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    def decide(c: CampaignState, s: SceneState, seed: str):
        member(c, caller)
        if s.closed:
            raise Conflict("the scene is closed")
        rng = DiceRng(seed, scene_stream(s.id), s.next_counter)
        return living.character_act(
            c, caller.id, char_id, system=system_of(c), request=body.request, reason=body.reason, rng=rng, scene=s.id
        )

    appended = store.scene_append(sid, decide, now_text(now), touches_campaign=True)
    return _view(store, appended.campaign, char_id, caller)


@router.post(
    "/api/campaigns/{cid}/actions",
    summary="A between-scenes rule for several characters at once (GM): time passes, a scene ends",
)
def everyone_acts(cid: Id, body: EveryoneIn, store: StoreDep, caller: CallerDep, now: NowDep) -> list[dict[str, Any]]:
    def decide(c: CampaignState):
        member(c, caller)
        return living.everyone_acts(
            c, caller.id, system=system_of(c), request=body.request, characters=body.characters, reason=body.reason
        )

    appended = store.campaign_append(cid, decide, now_text(now))
    changed = sorted({e.body["character"] for e in appended.campaign_entries if "character" in e.body})
    return [_view(store, cid, ch, caller) for ch in changed]


@router.get(_CH + "/sheet", summary="The character's structured sheet with its condition and resources now")
def living_sheet(cid: Id, char_id: Id, store: StoreDep, caller: CallerDep) -> dict[str, Any]:
    with store.reading_campaign(cid) as c:
        member(c, caller)
        return living.living_sheet(c, system_of(c), char_id).to_json()


@router.post(_CH + "/advance", summary="Award experience (GM) or spend it (owner) by the system's own rules")
def advance(cid: Id, char_id: Id, body: AdvanceIn, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    def decide(c: CampaignState):
        member(c, caller)
        _, drafts = living.advance_character(c, caller.id, char_id, system=system_of(c), request=body.request)
        return drafts

    store.campaign_append(cid, decide, now_text(now))
    return _advanced(store, cid, char_id, caller)


@router.post(_SCENE_CH + "/advance", summary="Advancement that rolls dice (a level's hit points), in a scene")
def advance_in_scene(
    sid: Id, char_id: Id, body: AdvanceIn, store: StoreDep, caller: CallerDep, now: NowDep
) -> dict[str, Any]:
    def decide(c: CampaignState, s: SceneState, seed: str):
        member(c, caller)
        if s.closed:
            raise Conflict("the scene is closed")
        return living.advance_character(
            c,
            caller.id,
            char_id,
            system=system_of(c),
            request=body.request,
            seed=seed,
            scene=s.id,
            counter=s.next_counter,
        )

    appended = store.scene_append(sid, decide, now_text(now), touches_campaign=True)
    return _advanced(store, appended.campaign, char_id, caller)


def _advanced(store: Any, cid: int, char_id: int, caller: Any) -> dict[str, Any]:
    from .characters import character_view

    with store.reading_campaign(cid) as c:
        member(c, caller)
        out = character_view(c.character(char_id))
        out["condition"] = living.condition_view(c, system_of(c), char_id)
        return out
