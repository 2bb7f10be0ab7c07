"""Scenes (threads): open with a seed commitment, change mode and cast, close with the reveal; fights."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from ...dice import new_seed
from ...play import combat
from ...play import scene as cmd
from ...play.campaign import CampaignState
from ...play.errors import Forbidden
from ...play.scene import SceneState
from ...play.views import entry_view, scene_view
from ..access import member, system_of
from ..deps import CallerDep, Id, NowDep, StoreDep, now_text
from ..schemas import CombatIn, SceneIn, ScenePatch

router = APIRouter(tags=["scenes"])


@router.post(
    "/api/campaigns/{cid}/scenes", status_code=201, summary="Open a scene (GM): publishes SHA-256 of its secret seed"
)
def open_scene(cid: Id, body: SceneIn, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    seed = new_seed()

    def decide(c: CampaignState, sid: int):
        member(c, caller)
        return cmd.open_scene(
            c,
            caller.id,
            scene_id=sid,
            title=body.title,
            seed=seed,
            mode=body.mode,
            cast=body.cast,
            turn_seconds=body.turn_seconds,
            on_deadline=body.on_deadline,
        )

    sid, _ = store.open_scene(cid, seed, decide, now_text(now))
    return read_scene(sid, store, caller)


@router.get("/api/campaigns/{cid}/scenes", summary="The campaign's scenes")
def list_scenes(cid: Id, store: StoreDep, caller: CallerDep) -> list[dict[str, Any]]:
    with store.reading_campaign(cid) as c:
        member(c, caller)
        return list(c.scenes.values())


@router.get("/api/scenes/{sid}", summary="A scene: mode, cast, turn state, seed commitment (seed once closed)")
def read_scene(sid: Id, store: StoreDep, caller: CallerDep) -> dict[str, Any]:
    with store.reading_scene(sid) as (c, s):
        view = scene_view(s, c, member(c, caller))
        view["anchor"] = store.signer.anchor(f"s:{sid}", s.head_seq, s.head_hash) if store.signer else None
        return view


@router.patch("/api/scenes/{sid}", summary="Change title, mode, cast or deadline rules (GM)")
def patch_scene(sid: Id, body: ScenePatch, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    changes = body.model_dump(exclude_unset=True)

    def decide(c: CampaignState, s: SceneState, seed: str):
        member(c, caller)
        return cmd.update_scene(c, s, caller.id, changes)

    store.scene_append(sid, decide, now_text(now))
    return read_scene(sid, store, caller)


@router.post("/api/scenes/{sid}/close", summary="Close the scene (GM): reveals its seed so anyone can check every roll")
def close_scene(sid: Id, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    def decide(c: CampaignState, s: SceneState, seed: str):
        member(c, caller)
        return cmd.close_scene(c, s, caller.id, seed=seed, system=system_of(c))

    store.scene_append(sid, decide, now_text(now), touches_campaign=True)
    return read_scene(sid, store, caller)


@router.get(
    "/api/scenes/{sid}/log", summary="The scene's log as you may see it (hash chain; redacted where not yours to read)"
)
def scene_log(sid: Id, store: StoreDep, caller: CallerDep) -> dict[str, Any]:
    from ..export import hidden_posts

    with store.reading_scene(sid) as (c, s):
        reader = member(c, caller)
        entries = store.scene_log(sid)
        hidden = hidden_posts(s, reader)
        return {
            "scene": sid,
            "seed_sha256": s.seed_sha256,
            "seed": s.seed,
            "log": [entry_view(e, reader, s.seed, hidden) for e in entries if e.seq <= s.head_seq],
        }


@router.post(
    "/api/scenes/{sid}/combat",
    status_code=201,
    summary="Start a fight (GM): the system's combat engine, sides of character ids",
)
def start_combat(sid: Id, body: CombatIn, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    def decide(c: CampaignState, s: SceneState, seed: str):
        member(c, caller)
        return combat.start_combat(c, s, caller.id, system=system_of(c), sides=body.sides, options=body.options)

    store.scene_append(sid, decide, now_text(now))
    return read_scene(sid, store, caller)


@router.post(
    "/api/scenes/{sid}/combat/step",
    summary="Play the next round of the fight (GM); its dice come from the scene's stream",
)
def step_combat(sid: Id, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    def decide(c: CampaignState, s: SceneState, seed: str):
        member(c, caller)
        return combat.step_combat(c, s, caller.id, system=system_of(c), seed=seed)

    store.scene_append(sid, decide, now_text(now), touches_campaign=True)
    return read_scene(sid, store, caller)


@router.delete("/api/scenes/{sid}/combat", summary="End the fight (GM)")
def end_combat(sid: Id, store: StoreDep, caller: CallerDep, now: NowDep) -> dict[str, Any]:
    def decide(c: CampaignState, s: SceneState, seed: str):
        if member(c, caller).role != "gm":
            raise Forbidden("only the GM ends a fight")
        return combat.end_combat(c, s, caller.id)

    store.scene_append(sid, decide, now_text(now))
    return read_scene(sid, store, caller)
