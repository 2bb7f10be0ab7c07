"""Campaigns: create, list, read; house rules; members and roles; GM notes."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from ...play import campaign as cmd
from ...play.campaign import CampaignState
from ...play.errors import Forbidden, Invalid
from ...play.views import Reader, can_read
from ...rules import describe_house_rules, get_system
from ..access import member, system_of
from ..deps import CallerDep, Id, NowDep, StoreDep, now_text
from ..schemas import CampaignIn, HouseRulesIn, MemberIn, NoteIn

router = APIRouter(prefix="/api/campaigns", tags=["campaigns"])


def campaign_view(c: CampaignState, reader: Reader) -> dict[str, Any]:
    return {
        "id": c.id,
        "name": c.name,
        "system": c.system,
        "description": c.description,
        "house_rules": c.house_rules,
        "your_role": reader.role,
        "members": [{"user": m.user, "name": m.name, "role": m.role} for m in c.members.values()],
        "characters": [
            {"id": ch.id, "name": ch.name, "owner": ch.owner, "retired": ch.retired} for ch in c.characters.values()
        ],
        "scenes": list(c.scenes.values()),
        "head": {"seq": c.head_seq, "hash": c.head_hash},
    }


@router.post("", status_code=201, summary="Create a campaign (you are its GM)")
def create(body: CampaignIn, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    system = get_system(body.system)
    drafts = cmd.create_campaign(
        caller.id,
        caller.name,
        name=body.name,
        system=system,
        house_rules=body.house_rules,
        description=body.description,
    )
    appended = store.create_campaign(name=body.name, system=system.name, drafts=drafts, at=now_text(now))
    with store.reading_campaign(appended.campaign) as c:
        return campaign_view(c, member(c, caller))


@router.get("", summary="Your campaigns")
def list_mine(store: StoreDep, caller: CallerDep) -> list[dict[str, Any]]:
    return store.campaigns_of(caller.id)


@router.get("/{cid}", summary="A campaign: members, characters, scenes")
def read(cid: Id, store: StoreDep, caller: CallerDep) -> dict[str, Any]:
    with store.reading_campaign(cid) as c:
        return campaign_view(c, member(c, caller))


@router.put("/{cid}/house-rules", summary="Change the house rules (GM)")
def set_house_rules(cid: Id, body: HouseRulesIn, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    def decide(c: CampaignState):
        member(c, caller)
        if c.role_of(caller.id) != "gm":
            raise Forbidden("only the GM changes the house rules")
        return [
            cmd.Draft(
                "campaign.house_rules",
                caller.id,
                {"house_rules": cmd.parse_house_rules(system_of(c), body.house_rules)},
            )
        ]

    store.campaign_append(cid, decide, now_text(now))
    with store.reading_campaign(cid) as c:
        return {"house_rules": c.house_rules, "options": describe_house_rules(system_of(c).house_rules_model)}


@router.get("/{cid}/members", summary="Members and their roles")
def members(cid: Id, store: StoreDep, caller: CallerDep) -> list[dict[str, Any]]:
    with store.reading_campaign(cid) as c:
        member(c, caller)
        return [{"user": m.user, "name": m.name, "role": m.role} for m in c.members.values()]


@router.post("/{cid}/members", status_code=201, summary="Add a member or change a role (GM)")
def add_member(cid: Id, body: MemberIn, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    def decide(c: CampaignState):
        member(c, caller)
        row = store.user_by_name(body.user.strip())
        if row is None:
            raise Invalid(f"no user called {body.user!r}")
        return cmd.add_member(c, caller.id, user=row.id, name=row.name, role=body.role)

    appended = store.campaign_append(cid, decide, now_text(now))
    b = appended.campaign_entries[-1].body
    return {"user": b["user"], "name": b["name"], "role": b["role"]}


@router.delete("/{cid}/members/{uid}", status_code=204, summary="Remove a member (GM), or leave")
def remove_member(cid: Id, uid: Id, store: StoreDep, caller: CallerDep, now: NowDep) -> Response:
    def decide(c: CampaignState):
        member(c, caller)
        return cmd.remove_member(c, caller.id, user=uid)

    store.campaign_append(cid, decide, now_text(now))
    return Response(status_code=204)


@router.get("/{cid}/notes", summary="The GM's notes (GM)")
def notes(cid: Id, store: StoreDep, caller: CallerDep) -> list[dict[str, Any]]:
    with store.reading_campaign(cid) as c:
        reader = member(c, caller)
        if not reader.is_gm:
            raise Forbidden("notes are the GM's")
        return [{"id": e.seq, "at": e.at, "text": e.body["text"]} for e in c.notes if can_read(e.audience, reader)]


@router.post("/{cid}/notes", status_code=201, summary="Write a GM note (GM)")
def write_note(cid: Id, body: NoteIn, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    def decide(c: CampaignState):
        member(c, caller)
        return cmd.write_note(c, caller.id, text=body.text)

    e = store.campaign_append(cid, decide, now_text(now)).campaign_entries[-1]
    return {"id": e.seq, "at": e.at, "text": e.body["text"]}
