"""Posts: in character, out of character, private, GM notes; rolls made on submit; previews with exact odds."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Response

from ...play import scene as cmd
from ...play.campaign import CampaignState
from ...play.chain import canonical_json
from ...play.errors import Invalid, NotFound
from ...play.scene import SceneState
from ...play.views import Reader, post_view
from .. import jobs
from ..access import member, system_of
from ..deps import CallerDep, Id, NowDep, StoreDep, WorkDep, now_text, sha256
from ..schemas import InlineOddsIn, PostEditIn, PostIn, PreviewIn
from ..work import TooMuchWork

router = APIRouter(prefix="/api/scenes/{sid}", tags=["posts"])


@router.get("/posts", summary="The posts you may read, oldest first")
def list_posts(
    sid: Id,
    store: StoreDep,
    caller: CallerDep,
    after: int = Query(0, ge=0, le=2_147_483_647, description="only posts after this id"),
    limit: int = Query(200, ge=1, le=1000),
) -> list[dict[str, Any]]:
    with store.reading_scene(sid) as (c, s):
        reader = member(c, caller)
        out = []
        for seq in sorted(s.posts):
            if seq <= after:
                continue
            view = post_view(s.posts[seq], reader, s)
            if view is not None:
                out.append(view)
                if len(out) >= limit:
                    break
        return out


@router.post("/posts", status_code=201, summary="Post; any rolls are rolled now on the scene's committed stream")
def create_post(
    sid: Id,
    body: PostIn,
    store: StoreDep,
    caller: CallerDep,
    now: NowDep,
    idempotency_key: Annotated[
        str | None,
        Header(
            min_length=1,
            max_length=100,
            pattern=r"^[\x21-\x7e]+$",
            description="any unique text (a UUID): a retry with the same key returns the post the first try wrote",
        ),
    ] = None,
) -> dict[str, Any]:
    rolls = [r.model_dump(exclude_none=True) for r in body.rolls]

    def decide(c: CampaignState, s: SceneState, seed: str):
        member(c, caller)
        return cmd.write_post(
            c,
            s,
            caller.id,
            kind=body.kind,
            text=body.text,
            now=now,
            seed=seed,
            system=system_of(c),
            character=body.character,
            to=body.to,
            rolls=rolls,
            force=body.force,
        )

    def view(c: CampaignState, s: SceneState, appended):
        member(c, caller)
        seq = appended.replayed if appended.replayed is not None else appended.entries[-1].seq
        return post_view(s.posts[seq], Reader.of(c, caller.id), s)

    once = None
    if idempotency_key is not None:
        once = (caller.id, idempotency_key, sha256(canonical_json(body.model_dump(mode="json"))))
    return store.scene_append(sid, decide, now_text(now), then=view, idempotency=once).view


@router.post("/preview", summary="The exact odds of a roll or check and a chart, without rolling")
def preview_roll(sid: Id, body: PreviewIn, store: StoreDep, caller: CallerDep, work: WorkDep) -> dict[str, Any]:
    """The odds are worked out in a compute worker within the table's budget (422 ``too-much-work`` past it)."""
    from ...play.living import penaliser
    from ...play.rolling import parse_check

    request = body.model_dump(exclude_none=True)
    fixed: Any = None
    with store.reading_scene(sid) as (c, _s):
        member(c, caller)
        house_rules = dict(c.house_rules)
        system = system_of(c)
        if request.get("character") is not None and request.get("check") is not None:
            # the condition is read under the lock; the odds are worked out after it
            fixed = penaliser(c, system)(request["character"], parse_check(system, request["check"])[1])
        ref = jobs.system_ref(c.system)
    return work.call(  # type: ignore[no-any-return]
        jobs.odds_preview, ref, request, house_rules, fixed, what="odds preview"
    )


@router.post(
    "/inline-odds",
    summary="The exact odds of each inline roll in a draft's text ([[2d6+3]], /r, [roll]), without rolling",
)
def preview_inline(sid: Id, body: InlineOddsIn, store: StoreDep, caller: CallerDep, work: WorkDep) -> dict[str, Any]:
    """The odds are worked out in a compute worker within the table's budget (422 ``too-much-work`` past it)."""
    with store.reading_scene(sid) as (c, _s):
        member(c, caller)
    try:
        return {"rolls": work.call(jobs.inline_odds, body.text, what="odds preview"), "error": None, "hint": None}
    except TooMuchWork:
        raise
    except Invalid as exc:
        return {"rolls": [], "error": exc.message, "hint": exc.hint}


@router.get("/posts/{pid}", summary="A post, with its edit history where you may read it")
def read_post(sid: Id, pid: Id, store: StoreDep, caller: CallerDep) -> dict[str, Any]:
    with store.reading_scene(sid) as (c, s):
        reader = member(c, caller)
        view = post_view(s.post(pid), reader, s)
        if view is None:
            raise NotFound(f"scene {sid} has no post {pid}")
        return view


@router.patch("/posts/{pid}", summary="Edit your post (the old text stays in its history; rolls never change)")
def edit_post(sid: Id, pid: Id, body: PostEditIn, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    def decide(c: CampaignState, s: SceneState, seed: str):
        reader = member(c, caller)
        if post_view(s.post(pid), reader, s) is None:
            raise NotFound(f"scene {sid} has no post {pid}")
        return cmd.edit_post(c, s, caller.id, pid, text=body.text)

    store.scene_append(sid, decide, now_text(now))
    return read_post(sid, pid, store, caller)


@router.delete("/posts/{pid}", status_code=204, summary="Delete a post (author or GM): a tombstone the GM still reads")
def delete_post(sid: Id, pid: Id, store: StoreDep, caller: CallerDep, now: NowDep) -> Response:
    def decide(c: CampaignState, s: SceneState, seed: str):
        reader = member(c, caller)
        if post_view(s.post(pid), reader, s) is None:
            raise NotFound(f"scene {sid} has no post {pid}")
        return cmd.delete_post(c, s, caller.id, pid)

    store.scene_append(sid, decide, now_text(now))
    return Response(status_code=204)
