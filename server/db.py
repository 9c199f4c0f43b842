"""The database: engine, schema migrations at start-up, and one session per request.

Handlers write through the session and call `commit()` once at the end; anything that
fails before that (a 4xx check, a crash) leaves the database as it was, because the
session is rolled back when the request ends without a commit.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

from alembic import command
from alembic.config import Config
from fastapi import Depends
from fastapi.requests import HTTPConnection
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

__all__ = ["Database", "SessionDep", "get_session", "migrate", "open_database"]

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


class Database:
    """An engine and its session factory."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sessions = sessionmaker(engine, expire_on_commit=False)

    def dispose(self) -> None:
        self.engine.dispose()


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def open_database(url: str) -> Database:
    """Connect (creating a SQLite file's folder if needed) and bring the schema up to date."""
    parsed = make_url(url)
    kwargs: dict[str, Any] = {}
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        kwargs["connect_args"] = {"check_same_thread": False}
    else:
        kwargs["pool_pre_ping"] = True
    engine = create_engine(parsed, **kwargs)
    if parsed.get_backend_name() == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    migrate(engine)
    return Database(engine)


def alembic_config() -> Config:
    """Alembic's configuration, built in code (no alembic.ini needed at run time)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def migrate(engine: Engine, revision: str = "head") -> None:
    """Apply every migration up to `revision` (run at each start; a no-op when current)."""
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def get_session(connection: HTTPConnection) -> Iterator[Session]:
    """One session per request; uncommitted work is rolled back when it closes."""
    database: Database = connection.app.state.database
    with database.sessions() as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]
