"""`shanghai serve`: the table companion's server and web page.

One command on a fresh machine: the page is up on http://127.0.0.1:8000 with an
embedded SQLite database in the user's data folder (created and migrated on start).
Listening beyond localhost (`--host 0.0.0.0`), phones need the table code: it is
printed at start with the URL a phone opens and that URL's QR code. With `--https` the
server makes a self-signed certificate on first use (kept in the data folder), so a
phone's browser can give the page its camera.
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
    p.add_argument(
        "--table-code",
        metavar="CODE",
        help="the code phones need when listening beyond localhost, 6 to 64 letters or "
        "digits (default: a new random one at every start)",
    )
    p.add_argument(
        "--https",
        action="store_true",
        help="serve over HTTPS with a self-signed certificate made on first use, so a "
        "phone's browser lets the page use its camera (each phone accepts it once)",
    )
    p.add_argument(
        "--allowed-host",
        metavar="NAME",
        action="append",
        default=[],
        help="another name the server is reached by (besides localhost, its addresses and "
        "host name); repeat for more",
    )
    p.set_defaults(func=cmd_serve)


def build_settings(args: argparse.Namespace) -> Any:
    """Settings from the environment (SHANGHAI_*) with the flags given on top."""
    from pydantic import ValidationError

    from shanghai.server.settings import Settings

    overrides: dict[str, Any] = {"host": args.host, "port": args.port}
    if args.db:
        overrides["database_url"] = args.db
    if args.data_dir:
        overrides["data_dir"] = args.data_dir
    if args.camera is not None:
        overrides["camera"] = args.camera
    if args.variants_dir:
        overrides["variants_dir"] = args.variants_dir
    if args.table_code is not None:
        overrides["table_code"] = args.table_code
    if args.allowed_host:
        overrides["allowed_hosts"] = args.allowed_host
    if getattr(args, "https", False):
        overrides["https"] = True
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = "--" + "-".join(str(part) for part in first["loc"]).replace("_", "-")
        raise UsageError(f"{where}: {first['msg']}") from None


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn
    from sqlalchemy.exc import SQLAlchemyError

    from shanghai.server.app import create_app
    from shanghai.server.db import open_database
    from shanghai.server.lan import WILDCARDS, is_local_bind, join_url, url_host
    from shanghai.server.qr import qr_text
    from shanghai.server.table_code import format_code

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
    settings = _with_table_code(settings)
    cert_file, key_file = _certificate(settings) if settings.https else (None, None)
    app = create_app(settings)
    print(f"shanghai: database {_safe_url(settings.resolved_database_url)}")
    scheme = "https" if settings.https else "http"
    local = "127.0.0.1" if args.host in WILDCARDS else url_host(args.host)
    here = f"{scheme}://{local}:{args.port}/"
    if settings.table_code is not None and not is_local_bind(args.host):
        phone = join_url(settings.host, settings.port, settings.table_code, https=settings.https)
        print(
            f"shanghai: table code {format_code(settings.table_code)}: phones need it "
            "(this machine does not)"
        )
        print(f"shanghai: on a phone on the same network, open {phone} or scan:")
        print(qr_text(phone), end="")
        if args.host not in WILDCARDS:
            here = phone
    print(f"shanghai: open {here} (API docs at {here.split('?')[0]}docs)")
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level="info",
        ssl_certfile=cert_file,
        ssl_keyfile=key_file,
    )
    return 0


def certificate_names(settings: Any) -> list[str]:
    """Every name a browser may reach this server by: localhost, the bound address (or,
    for a wildcard, the machine's LAN address and host name) and `--allowed-host`s."""
    import socket

    from shanghai.server.lan import WILDCARDS, lan_address

    names = ["localhost", "127.0.0.1", "::1", *settings.allowed_hosts]
    if settings.host in WILDCARDS:
        names += [socket.gethostname(), *([lan] if (lan := lan_address()) else [])]
    else:
        names.append(settings.host)
    return names


def _certificate(settings: Any) -> tuple[str, str]:
    """Make or reuse the self-signed certificate; say how a phone accepts it."""
    from shanghai.server.tls import ensure_certificate, tls_dir

    try:
        cert = ensure_certificate(tls_dir(settings.data_dir), certificate_names(settings))
    except (OSError, ValueError) as exc:
        raise UsageError(f"--https: cannot make the certificate: {exc}") from None
    print(
        f"shanghai: HTTPS with a self-signed certificate {'made' if cert.made else 'kept'} "
        f"in {cert.cert_file.parent} for {', '.join(cert.names)}"
    )
    print(
        "shanghai: each phone's browser warns once that the certificate is not trusted: "
        "choose Advanced, then proceed (Chrome) or Show details, visit this website "
        "(Safari). It should show the SHA-256 fingerprint"
    )
    print(f"shanghai:   {cert.fingerprint}")
    return str(cert.cert_file), str(cert.key_file)


def _with_table_code(settings: Any) -> Any:
    """The settings with the table code fixed now (a new random one unless given), so
    it can be printed before the server starts; none when listening on localhost."""
    from shanghai.server.lan import is_local_bind
    from shanghai.server.table_code import new_table_code

    if is_local_bind(settings.host):
        return settings.model_copy(update={"table_code": None})
    return settings.model_copy(update={"table_code": settings.table_code or new_table_code()})


def _safe_url(url: str) -> str:
    """The URL without its password, for printing."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "(unreadable URL)"
