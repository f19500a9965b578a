"""Alembic's environment: brings a database to the schema of ``store.models``.

The URL is the one ``store.migrate`` passes (``config.attributes["url"]``), else the ini's ``sqlalchemy.url``,
else ``DATABASE_URL`` (as the service reads it). SQLite runs in batch mode, so a later migration that alters a
column works there too (SQLite's ALTER TABLE cannot, so alembic copies the table).
"""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy import create_engine, pool

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
    try:
        with engine.connect() as connection:
            context.configure(
                connection=connection,
                target_metadata=Base.metadata,
                render_as_batch=connection.dialect.name == "sqlite",
                render_item=render_item,
            )
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
