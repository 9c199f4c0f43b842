"""`shanghai serve --https`: a self-signed certificate made once and kept, made again
when it no longer fits, and a real server answering over TLS with it; the join URL
and the cookie follow the scheme."""

from __future__ import annotations

import argparse
import datetime as dt
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from cryptography import x509

from shanghai.cli import serve_command
from shanghai.server.app import create_app
from shanghai.server.scanning import UnavailableScanner
from shanghai.server.settings import Settings
from shanghai.server.table_code import cookie_name
from shanghai.server.tls import ensure_certificate, tls_dir

CODE = "ABCD2345"


def test_a_certificate_is_made_once_and_kept(tmp_path: Path) -> None:
    first = ensure_certificate(tmp_path, ["localhost", "127.0.0.1", "192.168.1.20", "Den.LAN."])
    assert first.made
    assert set(first.names) == {"localhost", "127.0.0.1", "192.168.1.20", "den.lan"}
    assert (first.key_file.stat().st_mode & 0o777) == 0o600
    cert = x509.load_pem_x509_certificate(first.cert_file.read_bytes())
    assert cert.issuer == cert.subject  # self-signed
    assert len(first.fingerprint.split(":")) == 32

    again = ensure_certificate(tmp_path, ["127.0.0.1", "den.lan"])
    assert not again.made and again.fingerprint == first.fingerprint

    moved = ensure_certificate(tmp_path, ["localhost", "10.0.0.7"])  # another network
    assert moved.made and "10.0.0.7" in moved.names
    assert moved.fingerprint != first.fingerprint

    later = dt.datetime.now(dt.UTC) + dt.timedelta(days=820)  # about to expire
    renewed = ensure_certificate(tmp_path, ["localhost"], now=later)
    assert renewed.made

    with pytest.raises(ValueError, match="at least one"):
        ensure_certificate(tmp_path / "other", [" "])


def test_a_damaged_certificate_is_made_again(tmp_path: Path) -> None:
    made = ensure_certificate(tmp_path, ["localhost"])
    made.cert_file.write_text("not a certificate")
    assert ensure_certificate(tmp_path, ["localhost"]).made


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def https_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A real uvicorn server over TLS on 127.0.0.1 (listening as if for phones: a
    table code), with the certificate `serve --https` makes; (base URL, certificate)."""
    port = _free_port()
    settings = Settings.model_validate(
        {
            "data_dir": tmp_path,
            "database_url": f"sqlite:///{tmp_path / 'tls.db'}",
            "host": "0.0.0.0",
            "port": port,
            "table_code": CODE,
            "https": True,
        }
    )
    cert = ensure_certificate(tls_dir(tmp_path), serve_command.certificate_names(settings))
    app = create_app(settings, scanner=UnavailableScanner())
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        ssl_certfile=str(cert.cert_file),
        ssl_keyfile=str(cert.key_file),
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"https://127.0.0.1:{port}", cert.cert_file
    server.should_exit = True
    thread.join(10)


def test_the_server_answers_over_tls_with_its_certificate(
    https_server: tuple[str, Path],
) -> None:
    base, cert_file = https_server
    trusted = ssl.create_default_context(cafile=str(cert_file))
    with httpx.Client(verify=trusted) as client:
        table = client.get(f"{base}/api/table")
        assert table.status_code == 200, table.text
        join = table.json()["join_url"]
        assert join.startswith("https://") and join.endswith(f"/?code={CODE}")
        page = client.get(f"{base}/")
        assert page.status_code == 200 and "<script" in page.text
    # Without trusting it, the handshake fails: it is a real certificate check.
    with httpx.Client() as untrusting, pytest.raises(httpx.ConnectError):
        untrusting.get(f"{base}/api/table")


def test_the_join_cookie_is_secure_over_https(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    settings = Settings.model_validate(
        {
            "data_dir": tmp_path,
            "database_url": f"sqlite:///{tmp_path / 'c.db'}",
            "host": "0.0.0.0",
            "table_code": CODE,
            "https": True,
        }
    )
    app = create_app(settings, scanner=UnavailableScanner())
    with TestClient(app, base_url="https://testserver", client=("192.0.2.5", 1)) as phone:
        joined = phone.get(f"/?code={CODE}", follow_redirects=False)
    cookie = joined.headers["set-cookie"]
    assert cookie.startswith(f"{cookie_name(443)}={CODE};")
    assert "Secure" in cookie


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    serve_command.register(parser.add_subparsers())
    return parser.parse_args(["serve", *argv])


def test_serve_https_makes_the_certificate_and_says_how_to_accept_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    runs: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: runs.append(kw))
    argv = ("--host", "0.0.0.0", "--port", "8443", "--data-dir", str(tmp_path), "--https")
    assert serve_command.cmd_serve(_parse(*argv, "--table-code", CODE)) == 0
    out = capsys.readouterr().out
    assert "self-signed certificate made" in out
    assert "proceed" in out and "fingerprint" in out
    assert f"?code={CODE}" in out and "https://" in out
    assert "open https://127.0.0.1:8443/" in out
    assert Path(runs[-1]["ssl_certfile"]).is_file() and Path(runs[-1]["ssl_keyfile"]).is_file()
    assert serve_command.cmd_serve(_parse(*argv)) == 0
    assert "self-signed certificate kept" in capsys.readouterr().out
