"""Portrait uploads from the character's page (a multipart form; the API takes the image as the body)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..deps import Id
from ..routers import portraits
from .common import PageError, form_of, require, run_page, see_other
from .helpers import now_of, store_of

router = APIRouter(include_in_schema=False)


@router.post("/campaigns/{cid}/characters/{char}/portrait")
async def portrait_upload(request: Request, cid: Id, char: Id) -> Response:
    def go():
        v = require(request)
        form = form_of(request, v)
        if form.get("action") == "remove":
            portraits.remove(store_of(request), cid, char, v.caller)
            return see_other(f"/campaigns/{cid}/characters/{char}#portrait")
        upload = form.get("portrait")
        if upload is None or not hasattr(upload, "file"):
            raise PageError(422, "choose an image to upload", "a PNG, JPEG, GIF or WebP image")
        raw = upload.file.read()
        portraits.upload(store_of(request), cid, char, v.caller, raw, now_of(request))
        return see_other(f"/campaigns/{cid}/characters/{char}#portrait")

    return await run_page(request, go)
