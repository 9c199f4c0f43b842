"""`shanghai serve`: the table companion's server and web page.

One command on a fresh machine: the page is up on http://127.0.0.1:8000 with an
embedded SQLite database in the user's data folder (created and migrated on start).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .errors import UsageError

__all__ = ["build_settings", "cmd_serve", "register"]


def register(sub: Any) -> None:
    """Add `serve` to the top-level parser."""
    p = sub.add_parser("serve", help="run the server and web page (score sheet, scanning)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument(
        "--db",
        metavar="URL",
        help="SQLAlchemy database URL, e.g. postgresql+psycopg://user@host/shanghai "
        "(default: a SQLite file in the data folder)",
    )
    p.add_argument(
        "--data-dir",
        type=Path,
        help="folder for the default database (default: $XDG_DATA_HOME/shanghai or "
        "~/.local/share/shanghai)",
    )
    p.add_argument(
        "--camera",
        metavar="SOURCE",
        help="server-side camera: an index (0) or a video file, shown live on the page",
    )
    p.add_argument("--variants-dir", type=Path, help="folder of house-rule NAME.toml files")
    p.set_defaults(func=cmd_serve)


def build_settings(args: argparse.Namespace) -> Any:
    """Settings from the environment (SHANGHAI_*) with the flags given on top."""
    from shanghai.server.settings import Settings

    overrides: dict[str, Any] = {}
    if args.db:
        overrides["database_url"] = args.db
    if args.data_dir:
        overrides["data_dir"] = args.data_dir
    if args.camera is not None:
        overrides["camera"] = args.camera
    if args.variants_dir:
        overrides["variants_dir"] = args.variants_dir
    return Settings(**overrides)


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn
    from sqlalchemy.exc import SQLAlchemyError

    from shanghai.server.app import create_app
    from shanghai.server.db import open_database

    if not 0 < args.port < 65536:
        raise UsageError(f"--port {args.port} is not a port number")
    settings = build_settings(args)
    camera = settings.camera
    if camera is not None and not camera.isdigit() and not Path(camera).exists():
        raise UsageError(f"--camera {camera}: no such file (give a camera index or a video file)")
    try:  # create and migrate the database now, so a bad --db is one clear line
        open_database(settings.resolved_database_url).dispose()
    except (SQLAlchemyError, OSError) as exc:
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UsageError(f"cannot open the database: {first_line}") from None
    app = create_app(settings)
    url = f"http://{'127.0.0.1' if args.host in ('0.0.0.0', '::') else args.host}:{args.port}/"
    print(f"shanghai: database {_safe_url(settings.resolved_database_url)}")
    print(f"shanghai: open {url} (API docs at {url}docs)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="info")
    return 0


def _safe_url(url: str) -> str:
    """The URL without its password, for printing."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "(unreadable URL)"
