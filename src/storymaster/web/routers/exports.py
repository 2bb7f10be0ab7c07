"""Exports: a scene or a whole campaign as JSON (verifiable), Markdown or HTML."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse

from ...play.errors import NotFound
from ..access import member
from ..deps import CallerDep, Id, NowDep, StoreDep
from ..export import export_html, export_json, export_markdown, scene_doc

router = APIRouter(tags=["exports"])
FORMATS = {"json", "md", "html"}


def _respond(fmt: str, doc: dict[str, Any], title: str, c: Any, filename: str) -> Response:
    headers = {"Content-Disposition": f'attachment; filename="{filename}.{fmt}"'}
    if fmt == "json":
        return JSONResponse(doc, headers=headers)
    if fmt == "md":
        return PlainTextResponse(
            export_markdown(title, doc["scenes"], c), media_type="text/markdown; charset=utf-8", headers=headers
        )
    return HTMLResponse(export_html(title, doc["scenes"], c), headers=headers)


@router.get("/api/scenes/{sid}/export.{fmt}", summary="Export a scene: json (verifiable log), md or html")
def export_scene(request: Request, sid: Id, fmt: str, store: StoreDep, caller: CallerDep, now: NowDep) -> Response:
    if fmt not in FORMATS:
        raise NotFound(f"no export format {fmt!r}", hint="json, md or html")
    with store.reading_scene(sid) as (c, s):
        reader = member(c, caller)
        signer = request.app.state.signer
        doc = export_json(c, reader, now, [scene_doc(s, c, reader, store.scene_log(sid), signer)], signer)
        return _respond(fmt, doc, s.title, c, f"scene-{sid}")


@router.get("/api/campaigns/{cid}/export.{fmt}", summary="Export a campaign: every scene, and the campaign's own log")
def export_campaign(request: Request, cid: Id, fmt: str, store: StoreDep, caller: CallerDep, now: NowDep) -> Response:
    if fmt not in FORMATS:
        raise NotFound(f"no export format {fmt!r}", hint="json, md or html")
    with store.reading_campaign(cid) as c:
        member(c, caller)
        title = c.name
    scenes = []
    for sid in store.scene_ids(cid):
        with store.reading_scene(sid) as (c, s):
            reader = member(c, caller)
            scenes.append(scene_doc(s, c, reader, store.scene_log(sid), request.app.state.signer))
    with store.reading_campaign(cid) as c:
        reader = member(c, caller)
        doc = export_json(c, reader, now, scenes, request.app.state.signer, store.campaign_log(cid))
        return _respond(fmt, doc, title, c, f"campaign-{cid}")
