"""The table code: what a phone needs to use the page and the API when the server
listens beyond localhost (`shanghai serve --host 0.0.0.0`).

The code comes with a request as `?code=` (the join link and QR code: a page opened so
gets it as an HttpOnly, SameSite=Strict cookie and is sent on to the clean URL), the
`X-Table-Code` header (scripts) or that cookie. Requests from the machine itself (a
loopback client address) and the page's static files need none. Without it the API
answers 401 `{"detail": ...}`, the websocket is closed (1008) and a page shows a small
form asking for the code.

Guessing is slowed down: after `MAX_WRONG` wrong codes within `WINDOW_S` seconds from
one client address, that address is answered 429 (with `Retry-After`) whatever it sends,
until the window has passed. The cookie's name carries the server's port, since
browsers share cookies between the ports of one host: two servers on one machine (two
tables, or a restarted one on a new port) would otherwise overwrite each other's code.
"""

from __future__ import annotations

import html
import math
import re
import secrets
import time
from collections import deque
from collections.abc import Callable
from enum import Enum
from urllib.parse import urlencode

from starlette.requests import HTTPConnection
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from .lan import is_loopback_client

__all__ = [
    "ALPHABET",
    "CODE_HEADER",
    "COOKIE",
    "MAX_WRONG",
    "GuessLimiter",
    "TableCodeMiddleware",
    "codes_match",
    "cookie_name",
    "format_code",
    "new_table_code",
    "normalize_code",
]

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
"""Digits and capitals without the look-alikes 0/O, 1/I/L."""
CODE_LENGTH = 8
COOKIE = "shanghai_table_code"
"""The cookie's name without its port (`cookie_name`)."""
CODE_HEADER = "x-table-code"
COOKIE_SECONDS = 7 * 24 * 3600
WS_POLICY_VIOLATION = 1008
_CODE = re.compile(r"^[A-Z0-9]{6,64}$")
MAX_WRONG = 10
WINDOW_S = 60.0
_MAX_TRACKED = 4096
"""Client addresses remembered at most (oldest dropped): bounded memory under a flood."""


def cookie_name(port: int | None) -> str:
    """The table code's cookie for a server on `port`: `shanghai_table_code_8000`."""
    return COOKIE if port is None else f"{COOKIE}_{port}"


def _port(scope: Scope) -> int | None:
    server = scope.get("server")
    return int(server[1]) if server and server[1] is not None else None


class GuessLimiter:
    """Wrong codes per client address in a sliding window; an address with `MAX_WRONG`
    of them within `WINDOW_S` seconds is refused until the oldest leaves the window.

    At 10 guesses a minute, finding a 40-bit code takes on the order of 10^8 years;
    without it, a script on the network could try thousands a second."""

    def __init__(
        self,
        max_wrong: int = MAX_WRONG,
        window_s: float = WINDOW_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_wrong = max_wrong
        self.window_s = window_s
        self.clock = clock
        self._wrong: dict[str, deque[float]] = {}

    def _recent(self, client: str) -> deque[float]:
        times = self._wrong.get(client, deque())
        now = self.clock()
        while times and now - times[0] >= self.window_s:
            times.popleft()
        if not times:
            self._wrong.pop(client, None)
        return times

    def wait_s(self, client: str) -> float:
        """Seconds before `client` may try again (0: it may now)."""
        times = self._recent(client)
        if len(times) < self.max_wrong:
            return 0.0
        return max(self.window_s - (self.clock() - times[0]), 0.0)

    def wrong(self, client: str) -> None:
        """Count a wrong code from `client`."""
        times = self._recent(client)
        if client not in self._wrong:
            if len(self._wrong) >= _MAX_TRACKED:
                self._wrong.pop(next(iter(self._wrong)))
            self._wrong[client] = times
        times.append(self.clock())


def new_table_code() -> str:
    """A fresh random code: 8 characters of `ALPHABET` (about 40 bits)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(text: str) -> str:
    """The code as compared: capitals, without the spaces and dashes people type.
    Raises ValueError unless it is 6 to 64 letters or digits."""
    code = re.sub(r"[\s-]", "", text).upper()
    if not _CODE.match(code):
        raise ValueError("a table code is 6 to 64 letters or digits")
    return code


def format_code(code: str) -> str:
    """For reading aloud: `ABCD-2345` (typed with or without the dash)."""
    return "-".join(code[i : i + 4] for i in range(0, len(code), 4))


def codes_match(given: str | None, code: str) -> bool:
    """Whether `given` is the table code, compared in constant time."""
    if given is None:
        return False
    try:
        candidate = normalize_code(given)
    except ValueError:
        return False
    return secrets.compare_digest(candidate.encode("ascii"), code.encode("ascii"))


class Refusal(Enum):
    MISSING = (
        "this table needs its code: open the join link or scan the QR code shown where "
        "`shanghai serve` runs, or send the X-Table-Code header"
    )
    WRONG = "wrong table code"
    STALE = "the table code has changed: enter the new one"


class TableCodeMiddleware:
    """Let a request through only with the table code (`code`; None: none is needed)."""

    def __init__(self, app: ASGIApp, code: str | None, limiter: GuessLimiter | None = None) -> None:
        self.app = app
        self.code = code
        self.limiter = limiter or GuessLimiter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] not in ("http", "websocket")
            or self.code is None
            or is_loopback_client(scope)
            or (scope["type"] == "http" and scope["path"].startswith("/static/"))
        ):
            await self.app(scope, receive, send)
            return
        connection = HTTPConnection(scope)
        client = connection.client.host if connection.client else ""
        wait_s = self.limiter.wait_s(client)
        if wait_s > 0:
            await _too_many(wait_s, scope, receive, send)
            return
        asked = connection.query_params.get("code")
        cookie = cookie_name(_port(scope))
        if asked is not None:
            if not codes_match(asked, self.code):
                self.limiter.wrong(client)
                await self._refuse(Refusal.WRONG, scope, receive, send)
            elif _is_page(scope):
                await _enter(connection, self.code, cookie)(scope, receive, send)
            else:
                await self.app(scope, receive, send)
            return
        header = connection.headers.get(CODE_HEADER)
        given = header if header is not None else connection.cookies.get(cookie)
        if given is None:
            await self._refuse(Refusal.MISSING, scope, receive, send)
        elif not codes_match(given, self.code):
            self.limiter.wrong(client)
            stale = header is None
            await self._refuse(Refusal.STALE if stale else Refusal.WRONG, scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _refuse(self, why: Refusal, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": WS_POLICY_VIOLATION, "reason": ""})
            return
        response: Response
        if _is_page(scope):
            response = HTMLResponse(
                code_form(_clean_path(scope["path"]), why), status_code=401, headers=_NO_STORE
            )
        else:
            response = JSONResponse(
                {"detail": why.value},
                status_code=401,
                headers={"WWW-Authenticate": "X-Table-Code", **_NO_STORE},
            )
        if why is Refusal.STALE:
            response.delete_cookie(
                cookie_name(_port(scope)), path="/", httponly=True, samesite="strict"
            )
        await response(scope, receive, send)


async def _too_many(wait_s: float, scope: Scope, receive: Receive, send: Send) -> None:
    """429 to a client that sent too many wrong codes (the websocket: closed)."""
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": WS_POLICY_VIOLATION, "reason": ""})
        return
    seconds = max(math.ceil(wait_s), 1)
    detail = f"too many wrong table codes from this device: try again in {seconds} s"
    headers = {"Retry-After": str(seconds), **_NO_STORE}
    response: Response
    if _is_page(scope):
        response = HTMLResponse(
            f"<!doctype html><title>Shanghai</title><p>{html.escape(detail)}</p>",
            status_code=429,
            headers=headers,
        )
    else:
        response = JSONResponse({"detail": detail}, status_code=429, headers=headers)
    await response(scope, receive, send)


_NO_STORE = {"Cache-Control": "no-store"}


def _is_page(scope: Scope) -> bool:
    """A page a browser opens (answered with the code form), not the API."""
    path: str = scope["path"]
    return (
        scope["type"] == "http"
        and scope["method"] in ("GET", "HEAD")
        and not path.startswith("/api/")
        and path != "/openapi.json"
    )


def _clean_path(path: str) -> str:
    """The path as a same-site target: `//evil.example` must not leave the site."""
    return "/" + path.lstrip("/")


def _enter(connection: HTTPConnection, code: str, cookie: str) -> Response:
    """The join link: keep the code in a cookie and go on to the URL without it."""
    rest = [(k, v) for k, v in connection.query_params.multi_items() if k != "code"]
    target = _clean_path(connection.url.path) + (f"?{urlencode(rest)}" if rest else "")
    response = RedirectResponse(target, status_code=303, headers=_NO_STORE)
    response.set_cookie(
        cookie,
        code,
        max_age=COOKIE_SECONDS,
        path="/",
        httponly=True,
        samesite="strict",
        secure=connection.url.scheme == "https",
    )
    return response


def code_form(action: str, why: Refusal) -> str:
    """The small page asking for the table code (no script, the page's style sheet)."""
    message = {
        Refusal.MISSING: "",
        Refusal.WRONG: '<p class="error" id="code-error">That is not the table code.</p>',
        Refusal.STALE: '<p class="error" id="code-error">The table code has changed.</p>',
    }[why]
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="theme-color" content="#1f5130">
<title>Shanghai: table code</title>
<link rel="stylesheet" href="/static/style.css">
</head>
<body>
<header class="top"><span class="brand">♠ Shanghai</span></header>
<main>
<section class="panel">
<h1>Enter the table code</h1>
<p class="muted">It is printed where <code>shanghai serve</code> runs; scanning the QR code
on the host's screen enters it for you.</p>
{message}
<form id="table-code-form" method="get" action="{html.escape(action)}">
<label for="code">Table code</label>
<input type="text" id="code" name="code" required maxlength="80" autocomplete="off"
 autocapitalize="characters" spellcheck="false" placeholder="ABCD-2345">
<button type="submit">Join the table</button>
</form>
</section>
</main>
</body>
</html>
"""
