"""Characters: sheets validated by the campaign's system, owned by players."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from ...play import campaign as cmd
from ...play.campaign import CampaignState, Character
from ..access import member, system_of
from ..deps import CallerDep, Id, NowDep, StoreDep, now_text
from ..schemas import CharacterIn

router = APIRouter(prefix="/api/campaigns/{cid}/characters", tags=["characters"])


def character_view(ch: Character) -> dict[str, Any]:
    return {
        "id": ch.id,
        "name": ch.name,
        "owner": ch.owner,
        "version": ch.version,
        "retired": ch.retired,
        "sheet": ch.sheet,
    }


@router.get("", summary="The campaign's characters")
def list_characters(cid: Id, store: StoreDep, caller: CallerDep) -> list[dict[str, Any]]:
    with store.reading_campaign(cid) as c:
        member(c, caller)
        return [character_view(ch) for ch in c.characters.values()]


@router.post("", status_code=201, summary="Create a character (validated by the system's creation rules)")
def create_character(cid: Id, body: CharacterIn, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    def decide(c: CampaignState):
        member(c, caller)
        return cmd.create_character(
            c, caller.id, system=system_of(c), sheet=body.sheet, owner=body.owner, name=body.name
        )

    e = store.campaign_append(cid, decide, now_text(now)).campaign_entries[-1]
    with store.reading_campaign(cid) as c:
        return character_view(c.characters[e.seq])


@router.get("/{char_id}", summary="A character")
def read_character(cid: Id, char_id: Id, store: StoreDep, caller: CallerDep) -> dict[str, Any]:
    with store.reading_campaign(cid) as c:
        member(c, caller)
        return character_view(c.character(char_id))


@router.put("/{char_id}", summary="Replace a character's sheet (owner or GM)")
def update_character(
    cid: Id, char_id: Id, body: CharacterIn, store: StoreDep, caller: CallerDep, now: NowDep
) -> dict[str, Any]:
    def decide(c: CampaignState):
        member(c, caller)
        return cmd.update_character(c, caller.id, char_id, system=system_of(c), sheet=body.sheet)

    store.campaign_append(cid, decide, now_text(now))
    with store.reading_campaign(cid) as c:
        return character_view(c.characters[char_id])
