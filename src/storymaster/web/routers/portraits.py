"""Characters' portraits: members see them; the character's owner or the GM uploads (any image Pillow reads
as PNG, JPEG, GIF or WebP; stored resized, as WebP) or removes them."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from ...play.errors import Forbidden, NotFound
from ..access import member
from ..deps import CallerDep, Id, NowDep, StoreDep, now_text
from ..portraits import make_portrait

router = APIRouter(prefix="/api/campaigns/{cid}/characters/{char_id}/portrait", tags=["characters"])


def may_change(store: Any, cid: int, char_id: int, caller: Any) -> None:
    with store.reading_campaign(cid) as c:
        reader = member(c, caller)
        ch = c.character(char_id)
        if ch.owner != caller.id and not reader.is_gm:
            raise Forbidden(f"only {ch.name}'s player or the GM changes their portrait")


def upload(store: Any, cid: int, char_id: int, caller: Any, raw: bytes, now: Any) -> dict[str, Any]:
    may_change(store, cid, char_id, caller)
    p = make_portrait(raw)
    store.set_portrait(
        cid,
        char_id,
        media_type=p.media_type,
        data=p.data,
        digest=p.sha256,
        size=(p.width, p.height),
        by=caller.id,
        at=now_text(now),
    )
    return {"media_type": p.media_type, "width": p.width, "height": p.height, "sha256": p.sha256}


def remove(store: Any, cid: int, char_id: int, caller: Any) -> None:
    may_change(store, cid, char_id, caller)
    if not store.delete_portrait(cid, char_id):
        raise NotFound("this character has no portrait")


def image(store: Any, cid: int, char_id: int, caller: Any, request: Request) -> Response:
    with store.reading_campaign(cid) as c:
        member(c, caller)
        c.character(char_id)
    row = store.portrait(cid, char_id)
    if row is None:
        raise NotFound("this character has no portrait", hint="its player or the GM may upload one")
    etag = f'"{row.sha256[:32]}"'
    headers = {"ETag": etag, "Cache-Control": "private, max-age=86400"}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    return Response(bytes(row.data), media_type=row.media_type, headers=headers)


@router.get(
    "",
    summary="A character's portrait (WebP; members)",
    responses={200: {"content": {"image/webp": {}}}, 304: {"description": "unchanged"}},
)
def read_portrait(cid: Id, char_id: Id, request: Request, store: StoreDep, caller: CallerDep) -> Response:
    return image(store, cid, char_id, caller, request)


@router.put(
    "",
    summary="Upload a portrait (the image as the body: PNG, JPEG, GIF or WebP); owner or GM",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
        }
    },
)
async def put_portrait(
    cid: Id, char_id: Id, request: Request, store: StoreDep, caller: CallerDep, now: NowDep
) -> dict[str, Any]:
    from starlette.concurrency import run_in_threadpool

    raw = await request.body()
    return await run_in_threadpool(upload, store, cid, char_id, caller, raw, now)


@router.delete("", status_code=204, summary="Remove a portrait (owner or GM)")
def delete_portrait(cid: Id, char_id: Id, store: StoreDep, caller: CallerDep) -> Response:
    remove(store, cid, char_id, caller)
    return Response(status_code=204)
