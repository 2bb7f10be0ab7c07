"""A request-size limit, as plain ASGI middleware: 413 before the body is read past the limit."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["BodyLimit"]


class BodyLimit:
    def __init__(self, app: Any, max_body: int) -> None:
        self.app, self.max_body = app, max_body

    async def _reject(self, send: Any) -> None:
        body = json.dumps(
            {
                "type": "https://storymaster.invalid/problems/too-large",
                "title": "Content Too Large",
                "status": 413,
                "detail": f"the request body is larger than {self.max_body} bytes",
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
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    too_big = int(value) > self.max_body
                except ValueError:
                    too_big = True
                if too_big:
                    await self._reject(send)
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
                if seen > self.max_body:  # a body sent without a length: stop reading, answer 413
                    over = True
                    return {"type": "http.request", "body": b"", "more_body": False}
            return message

        replaced = False

        async def guarded_send(message: Any) -> None:
            nonlocal replaced
            if over:
                if not replaced:
                    replaced = True
                    await self._reject(send)
                return
            await send(message)

        await self.app(scope, limited_receive, guarded_send)
