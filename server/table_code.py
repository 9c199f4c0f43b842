"""The table code: what a phone needs to use the page and the API when the server
listens beyond localhost (`shanghai serve --host 0.0.0.0`).

The code comes with a request as `?code=` (the join link and QR code: a page opened so
gets it as an HttpOnly, SameSite=Strict cookie and is sent on to the clean URL), the
`X-Table-Code` header (scripts) or that cookie. Requests from the machine itself (a
loopback client address) and the page's static files need none. Without it the API
answers 401 `{"detail": ...}`, the websocket is closed (1008) and a page shows a small
form asking for the code.
"""

from __future__ import annotations

import html
import re
import secrets
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
    "TableCodeMiddleware",
    "codes_match",
    "format_code",
    "new_table_code",
    "normalize_code",
]

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
"""Digits and capitals without the look-alikes 0/O, 1/I/L."""
CODE_LENGTH = 8
COOKIE = "shanghai_table_code"
CODE_HEADER = "x-table-code"
COOKIE_SECONDS = 7 * 24 * 3600
WS_POLICY_VIOLATION = 1008
_CODE = re.compile(r"^[A-Z0-9]{6,64}$")


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

    def __init__(self, app: ASGIApp, code: str | None) -> None:
        self.app = app
        self.code = code

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
        asked = connection.query_params.get("code")
        if asked is not None:
            if not codes_match(asked, self.code):
                await self._refuse(Refusal.WRONG, scope, receive, send)
            elif _is_page(scope):
                await _enter(connection, self.code)(scope, receive, send)
            else:
                await self.app(scope, receive, send)
            return
        header = connection.headers.get(CODE_HEADER)
        given = header if header is not None else connection.cookies.get(COOKIE)
        if given is None:
            await self._refuse(Refusal.MISSING, scope, receive, send)
        elif not codes_match(given, self.code):
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
            response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
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


def _enter(connection: HTTPConnection, code: str) -> Response:
    """The join link: keep the code in a cookie and go on to the URL without it."""
    rest = [(k, v) for k, v in connection.query_params.multi_items() if k != "code"]
    target = _clean_path(connection.url.path) + (f"?{urlencode(rest)}" if rest else "")
    response = RedirectResponse(target, status_code=303, headers=_NO_STORE)
    response.set_cookie(
        COOKIE, code, max_age=COOKIE_SECONDS, path="/", httponly=True, samesite="strict"
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
