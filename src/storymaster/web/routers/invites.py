"""Invitation links: the GM makes, lists and revokes them; anyone signed in with a link joins by it.

A link's token is 32 random bytes, shown once when it is made and stored only as its
SHA-256. Each link is for one role (player or observer) and may expire or be limited
to a number of uses. Removing a member revokes every open link (the removed member
may hold one); the GM makes new ones.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from fastapi import APIRouter, Response

from ...play import campaign as cmd
from ...play.errors import Forbidden, NotFound
from ...store.repo import invite_open
from ..access import member
from ..deps import CallerDep, Id, NowDep, StoreDep, new_token, now_text, sha256
from ..schemas import InviteIn, JoinIn

router = APIRouter(tags=["invitations"])


def _gm(store: Any, cid: int, caller: Any) -> None:
    with store.reading_campaign(cid) as c:
        if not member(c, caller).is_gm:
            raise Forbidden("only the GM manages invitations")


def invite_view(row: dict[str, Any], at: str) -> dict[str, Any]:
    out = {k: row[k] for k in ("id", "role", "created_at", "expires_at", "max_uses", "uses", "revoked_at")}
    out["revoked_why"] = row.get("revoked_why")
    out["open"] = invite_open(row, at)
    return out


@router.post("/api/campaigns/{cid}/invites", status_code=201, summary="Make an invitation link (GM): shown once")
def create_invite(cid: Id, body: InviteIn, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    _gm(store, cid, caller)
    token = new_token()
    expires = now_text(now + timedelta(hours=body.expires_in_hours)) if body.expires_in_hours else None
    iid = store.create_invite(
        cid=cid,
        token_sha256=sha256(token),
        role=body.role,
        by=caller.id,
        at=now_text(now),
        expires_at=expires,
        max_uses=body.max_uses,
    )
    return {
        "id": iid,
        "role": body.role,
        "token": token,
        "link": f"/join/{cid}/{token}",
        "expires_at": expires,
        "max_uses": body.max_uses,
        "uses": 0,
    }


@router.get("/api/campaigns/{cid}/invites", summary="The campaign's invitation links, without their tokens (GM)")
def list_invites(cid: Id, store: StoreDep, caller: CallerDep, now: NowDep) -> list[dict[str, Any]]:
    _gm(store, cid, caller)
    return [invite_view(r, now_text(now)) for r in store.invites(cid)]


@router.delete("/api/campaigns/{cid}/invites/{iid}", status_code=204, summary="Revoke an invitation link (GM)")
def revoke_invite(cid: Id, iid: Id, store: StoreDep, caller: CallerDep, now: NowDep) -> Response:
    _gm(store, cid, caller)
    if not store.revoke_invite(cid, iid, now_text(now), "revoked by the GM"):
        raise NotFound(f"campaign {cid} has no open invitation {iid}")
    return Response(status_code=204)


@router.post("/api/campaigns/{cid}/join", summary="Join a campaign with an invitation link's token")
def join(cid: Id, body: JoinIn, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    def decide(c: cmd.CampaignState, invite: Any):
        return cmd.join_by_invite(c, caller.id, name=caller.name, role=invite.role)

    store.join_by_invite(cid, sha256(body.token), decide, now_text(now))
    with store.reading_campaign(cid) as c:
        return {"campaign": cid, "role": c.role_of(caller.id)}
