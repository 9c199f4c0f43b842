"""The FastAPI application: `create_app(settings)` wires storage, the scanner, the
optional server-side camera, the routers and the static page."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request, Response
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import IntegrityError

from shanghai.engine import ShanghaiError

from . import (
    routes_buys,
    routes_disputes,
    routes_games,
    routes_live,
    routes_rounds,
    routes_scans,
    routes_sheets,
    routes_variants,
)
from .db import open_database
from .live import CameraFeed
from .rules import ApiError
from .scanning import CardScanner, default_scanner
from .settings import Settings

__all__ = ["create_app"]

STATIC = Path(__file__).resolve().parent / "static"
MULTIPART_OVERHEAD = 64 * 1024


def create_app(settings: Settings | None = None, scanner: CardScanner | None = None) -> FastAPI:
    """The app. Nothing is opened until it starts (its lifespan): then the database is
    migrated to the latest schema and the camera (if any) starts reading."""
    settings = settings if settings is not None else Settings()
    scanner = scanner if scanner is not None else default_scanner()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.database = open_database(settings.resolved_database_url)
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
            app.state.database.dispose()

    app = FastAPI(
        title="Shanghai table companion",
        summary="Score sheets, dispute checks and card scanning for Shanghai (contract rummy).",
        version="0.1.0",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.scanner = scanner
    app.state.camera = None

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse({"detail": exc.detail}, status_code=exc.status)

    @app.exception_handler(ShanghaiError)
    async def rules_error(_request: Request, exc: ShanghaiError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=422)

    @app.exception_handler(IntegrityError)
    async def conflict(_request: Request, _exc: IntegrityError) -> JSONResponse:
        return JSONResponse(
            {"detail": "this was recorded at the same time by another request; reload"},
            status_code=409,
        )

    @app.middleware("http")
    async def limit_body(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        length = request.headers.get("content-length", "")
        limit = settings.max_upload_bytes + MULTIPART_OVERHEAD
        if length.isdigit() and int(length) > limit:
            return JSONResponse(
                {"detail": f"request body is larger than the {limit // (1024 * 1024)} MiB limit"},
                status_code=413,
            )
        return await call_next(request)

    for module in (
        routes_variants,
        routes_games,
        routes_rounds,
        routes_buys,
        routes_scans,
        routes_disputes,
        routes_sheets,
        routes_live,
    ):
        app.include_router(module.router)

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
