"""Alembic environment: run with the connection the server hands over (`db.migrate`),
or from a URL (`alembic -x url=... upgrade head` while developing)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

# Alembic loads this file by path, outside the package: hence the absolute import.
from shanghai.server.models import Base

target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = context.get_x_argument(as_dictionary=True).get("url")
    if not url:
        raise SystemExit("give the database: alembic -x url=sqlite:///path/to.db ...")
    with create_engine(url).connect() as own:
        _run(own)
        own.commit()


run_migrations_online()
