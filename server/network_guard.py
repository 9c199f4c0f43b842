"""Who may talk to the server, whatever the table code says: the Host header must name
this server (a web page that rebinds its own DNS name to this machine is refused, 400),
and a write (POST/PUT/PATCH/DELETE) or a websocket that another site's page starts is
refused (403): its Origin is present and is not the host asked."""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from .lan import host_name, normal_name

__all__ = ["NetworkGuardMiddleware", "same_origin"]

WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_DEFAULT_PORT = {"http": 80, "ws": 80, "https": 443, "wss": 443}
WS_POLICY_VIOLATION = 1008


def _port(netloc: str, scheme: str) -> int | None:
    """The port of `host[:port]`, or the scheme's default."""
    head, sep, tail = netloc.rpartition(":")
    if sep and tail.isdigit() and (not head.startswith("[") or head.endswith("]")):
        return int(tail)
    return _DEFAULT_PORT.get(scheme)


def same_origin(origin: str, host: str, scheme: str) -> bool:
    """Whether an Origin header names the host (and port) the request was sent to."""
    parts = urlsplit(origin.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or "@" in parts.netloc:
        return False
    theirs = host_name(parts.netloc)
    ours = host_name(host)
    return (
        theirs is not None
        and theirs == ours
        and _port(parts.netloc, parts.scheme) == _port(host.strip(), scheme)
    )


class NetworkGuardMiddleware:
    """Refuse a Host not in `hosts` (nor the address the connection arrived at) with 400,
    and a cross-site write or websocket with 403."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str]) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        if not self._served(host, scope):
            shown = host[:100] or "(none)"
            detail = (
                f"this server is not reached by the name {shown!r}: open it by its address, "
                "or start it with --allowed-host NAME"
            )
            await _refuse(400, detail, scope, receive, send)
            return
        if scope["type"] == "websocket" or scope["method"] in WRITES:
            origin = headers.get("origin")
            cross = (
                not same_origin(origin, host, scope.get("scheme", "http"))
                if origin is not None
                else headers.get("sec-fetch-site") == "cross-site"
            )
            if cross:
                shown = (origin or "another site")[:100]
                detail = f"a request from another site ({shown}) may not change anything here"
                await _refuse(403, detail, scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _served(self, host: str, scope: Scope) -> bool:
        name = host_name(host) if host else None
        if name is None:
            return False
        if name in self.hosts:
            return True
        server = scope.get("server")  # the local address the connection arrived at
        if server is None:
            return False
        return normal_name(str(server[0])) == name


async def _refuse(status: int, detail: str, scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": WS_POLICY_VIOLATION, "reason": ""})
        return
    response = JSONResponse({"detail": detail}, status_code=status)
    await response(scope, receive, send)
