"""`shanghai serve`: flags become settings; a bad database or camera is one clear line."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from shanghai.cli import serve_command
from shanghai.cli.errors import UsageError


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    serve_command.register(parser.add_subparsers())
    return parser.parse_args(["serve", *argv])


def test_flags_become_settings(tmp_path: Path) -> None:
    args = parse("--db", "sqlite:///x.db", "--camera", "0", "--data-dir", str(tmp_path))
    settings = serve_command.build_settings(args)
    assert settings.resolved_database_url == "sqlite:///x.db"
    assert settings.camera == "0"
    assert settings.data_dir == tmp_path
    defaults = parse()
    assert (defaults.host, defaults.port) == ("127.0.0.1", 8000)


def test_bad_database_url_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot open the database"):
        serve_command.cmd_serve(parse("--db", "nosuchdb://x"))
    with pytest.raises(UsageError, match="no such file"):
        serve_command.cmd_serve(parse("--camera", str(tmp_path / "missing.mp4")))
    with pytest.raises(UsageError, match="not a port"):
        serve_command.cmd_serve(parse("--port", "70000"))
