"""Security headers on every response, as plain ASGI middleware.

* ``Content-Security-Policy``: scripts, styles and everything else from the site itself only,
  no plugins, no ``<base>``, forms post back to the site, and ``frame-ancestors 'none'`` so no
  other site can frame a page (clickjacking). A response that sets its own policy keeps it.
* ``X-Content-Type-Options: nosniff``; ``X-Frame-Options: DENY`` for older browsers.
* ``Referrer-Policy: same-origin``: an invitation link's token never leaves in a Referer header.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CSP", "SecurityHeaders"]

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
]


class SecurityHeaders:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                names = {k.lower() for k, _ in headers}
                if b"content-security-policy" not in names:
                    headers.append((b"content-security-policy", CSP.encode()))
                headers += [(k, v) for k, v in _HEADERS if k not in names]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
