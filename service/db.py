"""The database: one SQLAlchemy engine per app, a session per request (SQLAlchemy 2.0 style).

SQLite (the embedded default) runs in WAL mode with ``synchronous=NORMAL`` and a busy timeout: MEASURED.md shows
5x faster commits than the default journal, and writers wait for each other instead of failing.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, g
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from service.config import normalize_database_url


def make_engine(url: str) -> Engine:
    url = normalize_database_url(url)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(connection: Any, _: Any) -> None:
            cursor = connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)


def init_app(app: Flask, url: str) -> None:
    engine = make_engine(url)
    app.extensions["db_engine"] = engine
    app.extensions["db_sessions"] = sessionmaker(engine, expire_on_commit=False)

    @app.teardown_appcontext
    def _close_session(_: BaseException | None) -> None:
        session = g.pop("db_session", None)
        if session is not None:
            session.close()


def session() -> Session:
    """The request's session, opened on first use and closed when the request ends."""
    from flask import current_app

    if "db_session" not in g:
        g.db_session = current_app.extensions["db_sessions"]()
    current: Session = g.db_session
    return current
