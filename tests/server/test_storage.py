"""Storage: migrations build exactly the models' schema (SQLite and PostgreSQL), data
survives a restart, and a request that fails half-way stores nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, inspect
from sqlalchemy.orm import Session

from shanghai.server.app import create_app
from shanghai.server.db import alembic_config, migrate
from shanghai.server.models import Base
from shanghai.server.settings import Settings

GameMaker = Callable[..., int]


def test_migrations_match_the_models(client: TestClient, database_url: str) -> None:
    engine = create_engine(database_url)
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []
        assert context.get_current_revision() == "0005"
    engine.dispose()


def test_downgrade_and_upgrade_again(client: TestClient, database_url: str) -> None:
    client.__exit__(None, None, None)  # release the app's connections first
    engine = create_engine(database_url)
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "base")
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    migrate(engine)
    assert {"games", "players", "hands", "scans", "buys"} <= set(inspect(engine).get_table_names())
    engine.dispose()


def test_games_survive_a_restart(settings: Settings) -> None:
    with TestClient(create_app(settings)) as first:
        game = first.post(
            "/api/games", json={"variant": "shanghai", "players": ["Ann", "Bob", "Cy"]}
        ).json()["id"]
        first.post(f"/api/games/{game}/rounds/1/hands", json={"player": 0, "cards": "7h 8h"})
        first.post(f"/api/games/{game}/rounds/1/buys", json={"player": 2})
    with TestClient(create_app(settings)) as second:
        hands = second.get(f"/api/games/{game}/rounds/1").json()
        assert hands["hands"][0]["cards"] == ["7h", "8h"]
        assert hands["buys"][2]["used"] == 1


def test_a_crash_mid_request_stores_nothing(
    client: TestClient, make_game: GameMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = make_game()

    def flush_then_crash(session: Session) -> None:
        session.flush()  # the rows are written inside the transaction...
        raise RuntimeError("power cut")  # ...and the process dies before the commit

    monkeypatch.setattr(Session, "commit", flush_then_crash)
    crash_client = TestClient(client.app, raise_server_exceptions=False)
    hand = {"player": 0, "cards": "7h"}
    assert crash_client.post(f"/api/games/{game}/rounds/1/hands", json=hand).status_code == 500
    assert crash_client.post(f"/api/games/{game}/rounds/1/buys", json=hand).status_code == 500
    monkeypatch.undo()
    stored = client.get(f"/api/games/{game}/rounds/1").json()
    assert stored["hands"] == []
    assert stored["buys"][0]["used"] == 0
    assert client.post(f"/api/games/{game}/rounds/1/hands", json=hand).status_code == 201


def test_default_database_is_a_file_in_the_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("SHANGHAI_DATABASE_URL", raising=False)
    settings = Settings()
    assert (
        settings.resolved_database_url
        == f"sqlite:///{tmp_path / 'xdg' / 'shanghai' / 'shanghai.db'}"
    )
    with TestClient(create_app(settings)) as client:
        assert client.get("/api/games").json() == []
    assert (tmp_path / "xdg" / "shanghai" / "shanghai.db").is_file()


def test_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SHANGHAI_DATABASE_URL", "postgresql+psycopg://u@h/db")
    monkeypatch.setenv("SHANGHAI_MAX_IMAGE_PIXELS", "1000")
    settings = Settings()
    assert settings.resolved_database_url == "postgresql+psycopg://u@h/db"
    assert settings.max_image_pixels == 1000
