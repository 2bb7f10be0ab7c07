"""Pages that belong to no resource: verification of an export.

Every handler reads the posted form on the event loop and runs its work (``go``) in the
thread pool (``common.run_page``).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from ...errors import StorymasterError
from ...play.verify import verify_text
from .common import (
    form_of,
    render,
    run_page,
    visitor,
)

router = APIRouter(include_in_schema=False)


@router.get("/verify", response_class=HTMLResponse)
async def verify_page(request: Request) -> Response:
    def go():
        return render(request, "verify.html", result=None, error="", text="", key_id=request.app.state.signer.key_id)

    return await run_page(request, go)


@router.post("/verify", response_class=HTMLResponse)
async def verify_submit(request: Request) -> Response:
    def go():
        form = form_of(request, visitor(request))
        text = str(form.get("export") or "")
        upload = form.get("file")
        if upload is not None and hasattr(upload, "file"):
            upload.file.seek(0)
            data = upload.file.read()  # already received (the form was read on the loop): a plain file
            if data:
                text = data.decode("utf-8", errors="replace")
        if not text.strip():
            return render(
                request, "verify.html", status=422, result=None, error="Paste an export or choose its file.", text=""
            )
        try:
            result = verify_text(text, key=request.app.state.signer.public)
        except StorymasterError as exc:
            return render(
                request,
                "verify.html",
                status=422,
                result=None,
                error=exc.message,
                hint=exc.hint or "",
                text=text[:200_000],
                key_id=request.app.state.signer.key_id,
            )
        return render(request, "verify.html", result=result, error="", text="", key_id=request.app.state.signer.key_id)

    return await run_page(request, go)
