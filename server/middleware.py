"""What every HTTP request and response passes through: a bound on the request body
however it is sent (413), and the security headers every answer carries.

Both are plain ASGI middleware (no buffering): the body is counted as it streams in, so
a chunked upload without `Content-Length` is cut off at the limit instead of being
spooled whole before the route runs.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Callable

from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "BodyLimitMiddleware",
    "BodyTooLargeError",
    "SecurityHeadersMiddleware",
    "inline_hash",
    "security_headers",
]


class BodyTooLargeError(HTTPException):
    """Raised from `receive` as the body passes the limit; FastAPI lets an
    `HTTPException` out of its body parsing, so it is answered as a 413."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, _too_large(limit), headers={"Connection": "close"})


def _too_large(limit: int) -> str:
    return f"request body is larger than the {limit // (1024 * 1024)} MiB limit"


class BodyLimitMiddleware:
    """Refuse a request whose body is over `max_bytes()` (read per request, from the
    settings): at once when its Content-Length says so, else as soon as the bytes
    received pass the limit. The connection is closed after the answer (`Connection:
    close`): the rest of the body is never read."""

    def __init__(self, app: ASGIApp, max_bytes: Callable[[], int]) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_bytes()
        length = Headers(scope=scope).get("content-length")
        if length is not None and _declared_too_large(length, limit):
            await _refuse(limit, scope, receive, send)
            return
        received = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLargeError(limit)
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted_receive, watched_send)
        except BodyTooLargeError:
            if started:
                raise
            await _refuse(limit, scope, receive, send)


async def _refuse(limit: int, scope: Scope, receive: Receive, send: Send) -> None:
    response = JSONResponse(
        {"detail": _too_large(limit)}, status_code=413, headers={"Connection": "close"}
    )
    await response(scope, receive, send)


def _declared_too_large(length: str, limit: int) -> bool:
    """A Content-Length over `limit` (a number too long to read counts as over)."""
    text = length.strip()
    return text.isdigit() and (len(text) > 18 or int(text) > limit)


# --- security headers -------------------------------------------------------------------

_HOST = re.compile(r"^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$")


def inline_hash(text: str) -> str:
    """A CSP source for one inline `<style>` or handler: `'sha256-...'` of its text."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def _page_policy(host: str | None) -> str:
    """The table page: its own scripts, styles and images, photos shown from `data:` and
    `blob:` URLs, the API and the live websocket on the same host; no inline scripts or
    style attributes (the page sets colours through the CSSOM); nothing may frame it."""
    # 'self' covers ws:/wss: to the same host in CSP 3; older phone browsers need the
    # host named.
    sockets = f" ws://{host} wss://{host}" if host and _HOST.match(host) else ""
    return (
        "default-src 'self'; script-src 'self'; style-src 'self'; "
        "img-src 'self' data: blob:; "
        f"media-src 'self' blob:; connect-src 'self'{sockets}; object-src 'none'; "
        "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )


# The API documentation pages (Swagger UI and ReDoc, served from the package
# `fastapi-offline`, no CDN) start with an inline script; they show the static schema,
# no stored data. Nothing is loaded from another site.
_DOCS_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; "
    "style-src 'self' 'unsafe-inline'; font-src 'self'; img-src 'self' data:; "
    "worker-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'"
)


def security_headers(scope: Scope, docs_paths: frozenset[str] = frozenset()) -> dict[str, str]:
    """The headers every response carries (a response's own Content-Security-Policy,
    such as the printable sheet's, is kept)."""
    if scope.get("path") in docs_paths:
        policy = _DOCS_POLICY
    else:
        policy = _page_policy(Headers(scope=scope).get("host"))
    return {
        "Content-Security-Policy": policy,
        "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    }


class SecurityHeadersMiddleware:
    """Add `security_headers` to every HTTP response that does not set them itself."""

    def __init__(self, app: ASGIApp, docs_paths: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.docs_paths = docs_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in security_headers(scope, self.docs_paths).items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)
