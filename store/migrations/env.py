"""Alembic's environment: brings a database to the schema of ``store.models``.

The URL is the one ``store.migrate`` passes (``config.attributes["url"]``), else the ini's ``sqlalchemy.url``,
else ``DATABASE_URL`` (as the service reads it). SQLite runs in batch mode, so a later migration that alters a
column works there too (SQLite's ALTER TABLE cannot, so alembic copies the table).

Each migration is a transaction of its own, its step of ``alembic_version`` included (``transaction_per_migration``),
so a process killed mid-way leaves the database at a revision boundary. On SQLite that takes pysqlite's own
transaction handling out of the way, as SQLAlchemy's documentation of the driver says (pysqlite begins a transaction
only before a data change, so each DDL statement committed by itself, and a batch copy could outlive a kill): the
driver autocommits and the engine says ``BEGIN`` itself when a transaction begins.
"""

from __future__ import annotations

import os
from typing import Any

from alembic import context
from sqlalchemy import Connection, create_engine, event, pool

from store.migrate import render_item
from store.models import Base  # the package: every table joins Base.metadata
from store.urls import DEFAULT_DATABASE_URL, normalize_database_url

config = context.config
url: str = (
    config.attributes.get("url")
    or config.get_main_option("sqlalchemy.url")
    or normalize_database_url(os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL)
)


def run_offline() -> None:
    """Print the SQL instead of running it (``alembic upgrade --sql``)."""
    context.configure(
        url=url,
        target_metadata=Base.metadata,
        literal_binds=True,
        render_as_batch=url.startswith("sqlite"),
        render_item=render_item,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    engine = create_engine(url, poolclass=pool.NullPool)
    if engine.dialect.name == "sqlite":

        @event.listens_for(engine, "connect")
        def _driver_autocommits(dbapi_connection: Any, _: Any) -> None:
            dbapi_connection.isolation_level = None  # no BEGIN nor COMMIT of pysqlite's around our statements

        @event.listens_for(engine, "begin")
        def _begin(connection: Connection) -> None:
            connection.exec_driver_sql("BEGIN")

    try:
        with engine.connect() as connection:
            context.configure(
                connection=connection,
                target_metadata=Base.metadata,
                render_as_batch=connection.dialect.name == "sqlite",
                render_item=render_item,
                transaction_per_migration=True,
                transactional_ddl=True,  # SQLite's too, with pysqlite out of the way (above)
            )
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
