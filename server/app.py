"""The FastAPI application: `create_app(settings)` wires storage, the scanner, the
optional server-side camera, the network guards (Host, Origin, table code), the routers
and the static page."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import fastapi_offline
from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

from .db import open_database
from .deck_jobs import TeachDecks
from .errors import install_error_handlers
from .evidence import EvidenceKey
from .lan import is_local_bind, served_hosts
from .live import CameraFeed
from .live_hub import LiveHub
from .middleware import BodyLimitMiddleware, SecurityHeadersMiddleware
from .network_guard import NetworkGuardMiddleware
from .routes import (
    buys,
    changes,
    decks,
    disputes,
    games,
    history,
    live,
    players,
    rounds,
    scans,
    sheets,
    table,
    variants,
)
from .scanning import CardScanner, default_scanner
from .settings import Settings
from .table_code import TableCodeMiddleware, new_table_code

__all__ = ["create_app"]

STATIC = Path(__file__).resolve().parent / "static"
DOCS_ASSETS = Path(fastapi_offline.__file__).resolve().parent / "static"
"""Swagger UI and ReDoc as the `fastapi-offline` package ships them: the API docs open
without the internet (FastAPI's own pages load them from a CDN)."""
MULTIPART_OVERHEAD = 64 * 1024
"""Bytes a request may carry beyond the largest photo (the multipart framing, fields)."""


def create_app(settings: Settings | None = None, scanner: CardScanner | None = None) -> FastAPI:
    """The app. Nothing is opened until it starts (its lifespan): then the database is
    migrated to the latest schema, the evidence key is read (or made) in the data folder
    and the camera (if any) starts reading.

    Listening beyond localhost (`settings.host`), every request but the machine's own
    needs the table code: `settings.table_code`, else a new random one
    (`app.state.table_code`)."""
    settings = settings if settings is not None else Settings()
    scanner = scanner if scanner is not None else default_scanner()
    table_code = None
    if not is_local_bind(settings.host):
        table_code = settings.table_code or new_table_code()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.database = open_database(settings.resolved_database_url)
        app.state.evidence_key = EvidenceKey.load_or_create(settings.data_dir)
        camera = None
        if settings.camera is not None:
            camera = CameraFeed(
                settings.camera, app.state.scanner, settings.live_fps, settings.live_hold_seconds
            )
            camera.start()
        app.state.camera = camera
        try:
            yield
        finally:
            if camera is not None:
                camera.stop()
            app.state.decks.jobs.stop_all()
            app.state.database.dispose()

    app = FastAPI(
        title="Shanghai table companion",
        summary="Score sheets, dispute checks and card scanning for Shanghai (contract rummy).",
        version="0.1.0",
        lifespan=lifespan,
        docs_url=None,  # served below from the installed package, not a CDN
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.scanner = scanner
    app.state.camera = None
    app.state.table_code = table_code
    app.state.decks = TeachDecks.open(settings)
    app.state.live_hub = LiveHub()

    install_error_handlers(app)
    # Added last, runs first: security headers on every answer (the 400, 403, 413 and
    # 401 included), then the Host and Origin checks, the body limit, the table code.
    app.add_middleware(TableCodeMiddleware, code=table_code)
    app.add_middleware(
        BodyLimitMiddleware, max_bytes=lambda: settings.max_upload_bytes + MULTIPART_OVERHEAD
    )
    app.add_middleware(
        NetworkGuardMiddleware, hosts=served_hosts(settings.host, settings.allowed_hosts)
    )
    docs = frozenset({"/docs", "/redoc"})
    app.add_middleware(SecurityHeadersMiddleware, docs_paths=docs)

    for module in (
        variants,
        games,
        players,
        rounds,
        buys,
        changes,
        history,
        scans,
        disputes,
        sheets,
        live,
        table,
        decks,
    ):
        app.include_router(module.router)

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/sw.js", include_in_schema=False)
    def service_worker() -> FileResponse:
        # At the root, so that it may keep the page itself ("/") for offline use.
        return FileResponse(
            STATIC / "sw.js",
            media_type="text/javascript",
            headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"},
        )

    @app.get("/docs", include_in_schema=False)
    def swagger_docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=str(app.openapi_url),
            title=f"{app.title} - API docs",
            swagger_js_url="/static/docs/swagger-ui-bundle.js",
            swagger_css_url="/static/docs/swagger-ui.css",
            swagger_favicon_url="/static/icon.svg",
        )

    @app.get("/redoc", include_in_schema=False)
    def redoc_docs() -> HTMLResponse:
        return get_redoc_html(
            openapi_url=str(app.openapi_url),
            title=f"{app.title} - ReDoc",
            redoc_js_url="/static/docs/redoc.standalone.js",
            redoc_favicon_url="/static/icon.svg",
            with_google_fonts=False,
        )

    app.mount("/static/docs", StaticFiles(directory=DOCS_ASSETS), name="docs-assets")
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
