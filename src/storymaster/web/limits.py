"""A request-size limit, as plain ASGI middleware: 413 before the body is read past the limit."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["BodyLimit"]


class BodyLimit:
    """``max_body`` for every request but uploads (paths ending in one of ``upload_paths``): ``max_upload``."""

    def __init__(self, app: Any, max_body: int, max_upload: int = 0, upload_paths: tuple[str, ...] = ()) -> None:
        self.app, self.default_max = app, max_body
        self.max_upload, self.upload_paths = max(max_upload, max_body), upload_paths
        self.max_body = max_body

    async def _reject(self, send: Any, limit: int | None = None) -> None:
        body = json.dumps(
            {
                "type": "https://storymaster.invalid/problems/too-large",
                "title": "Content Too Large",
                "status": 413,
                "detail": f"the request body is larger than {limit or self.max_body} bytes",
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/problem+json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.default_max
        if self.upload_paths and str(scope.get("path", "")).endswith(self.upload_paths):
            limit = self.max_upload
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    too_big = int(value) > limit
                except ValueError:
                    too_big = True
                if too_big:
                    await self._reject(send, limit)
                    return
        seen = 0
        over = False

        async def limited_receive() -> Any:
            nonlocal seen, over
            if over:
                return {"type": "http.request", "body": b"", "more_body": False}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:  # a body sent without a length: stop reading, answer 413
                    over = True
                    return {"type": "http.request", "body": b"", "more_body": False}
            return message

        replaced = False

        async def guarded_send(message: Any) -> None:
            nonlocal replaced
            if over:
                if not replaced:
                    replaced = True
                    await self._reject(send, limit)
                return
            await send(message)

        await self.app(scope, limited_receive, guarded_send)
