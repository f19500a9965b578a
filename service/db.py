"""The database: one SQLAlchemy engine per app, a session per request (SQLAlchemy 2.0 style), and a fast lane.

SQLite (the embedded default) runs in WAL mode with ``synchronous=NORMAL`` and a busy timeout: MEASURED.md shows
5x faster commits than the default journal, and writers wait for each other instead of failing.

The fast lane serves the requests every move makes (a bot's poll and its submission): Core statements, written
with ``select()`` / ``update()`` / ``insert()`` like any other, compiled once per database dialect and run straight
on the DB-API cursor of the request's pooled connection (:func:`lane`). SQLAlchemy's per-call execution
machinery costs about 60 us a statement on a 2-core machine, six times the cursor call itself; a move needs four
or five statements. Values go through each column type's own bind processor, as SQLAlchemy would send them.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable, Mapping
from typing import Any, cast

from flask import Flask, current_app, g
from sqlalchemy import BindParameter, Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ClauseElement

from service.caches import Caches
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
    app.extensions["db_statements"] = Statements(engine)
    app.extensions["caches"] = Caches()  # what this process knows of the database's unchanging rows

    @app.teardown_appcontext
    def _close_session(_: BaseException | None) -> None:
        session = g.pop("db_session", None)
        if session is not None:
            session.close()
        lane = g.pop("db_lane", None)
        if lane is not None:
            lane.release()  # back to the pool, which rolls back whatever is left open


def session() -> Session:
    """The request's session, opened on first use and closed when the request ends.

    A request holds one pooled connection at a time: opening the session gives back the fast lane's (which has
    only read by then), so that requests never wait for a second connection while holding a first.
    """
    if "db_session" not in g:
        if "db_lane" in g:
            g.db_lane.release()
        g.db_session = current_app.extensions["db_sessions"]()
    current: Session = g.db_session
    return current


# --- the fast lane ----------------------------------------------------------------------------------------------


def param(name: str) -> BindParameter[Any]:
    """A named parameter of a fast-lane statement (``lane.execute(statement, {name: value})``)."""
    return BindParameter(name, required=True)


class Compiled:
    """One statement compiled for one dialect: its SQL, and how to turn named values into the driver's."""

    def __init__(self, statement: ClauseElement, engine: Engine) -> None:
        dialect = engine.dialect
        compiled = cast(SQLCompiler, statement.compile(dialect=dialect, for_executemany=True))
        self.sql = compiled.string
        self.positional = bool(compiled.positional)
        self.defaults: dict[str, Any] = {}
        self.processors: list[tuple[str, Any]] = []
        for bind, name in compiled.bind_names.items():
            if not bind.required:
                self.defaults[name] = bind.value  # a literal of the statement: ``Game.status == "active"``
            processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if processor is not None:
                self.processors.append((name, processor))
        self.names = tuple(compiled.positiontup or ()) if self.positional else tuple(compiled.bind_names.values())

    def parameters(self, values: Mapping[str, Any]) -> Any:
        if self.defaults or self.processors:
            merged = {**self.defaults, **values}
            for name, processor in self.processors:
                merged[name] = processor(merged[name])
            values = merged
        if self.positional:
            return tuple([values[name] for name in self.names])
        return values


class Statements:
    """The fast-lane statements of one engine, compiled on first use, and what its transactions need."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.integrity_error: type[Exception] = engine.dialect.dbapi.IntegrityError  # type: ignore[union-attr]
        self.write_lock: Any = threading.Lock() if engine.dialect.name == "sqlite" else contextlib.nullcontext()
        """SQLite has one writer at a time: this process's writers queue on a lock, which hands over at once,
        instead of in SQLite's busy handler, which sleeps (1, 2, 5, 10 ms...) between tries."""
        self._compiled: dict[int, tuple[ClauseElement, Compiled]] = {}
        self._lock = threading.Lock()

    def get(self, statement: ClauseElement) -> Compiled:
        found = self._compiled.get(id(statement))
        if found is None:
            with self._lock:
                found = (statement, Compiled(statement, self.engine))  # keeps the statement alive: ids stay unique
                self._compiled[id(statement)] = found
        return found[1]


class Lane:
    """A request's fast lane: its pooled DB-API connection (taken on first use) and the compiled statements."""

    def __init__(self, statements: Statements) -> None:
        self.statements = statements
        self.write_lock = statements.write_lock
        """Hold it from a transaction's first write to its commit (a lock on SQLite, nothing elsewhere)."""
        self.integrity_error = statements.integrity_error
        """The driver's IntegrityError (a unique constraint said no)."""
        self._connection: Any = None

    def connection(self) -> Any:
        if self._connection is None:
            self._connection = self.statements.engine.raw_connection()
        return self._connection

    def execute(self, statement: ClauseElement, values: Mapping[str, Any] = {}) -> Any:  # never mutated
        """Run a statement; the DB-API cursor (its rows, ``rowcount``)."""
        compiled = self.statements.get(statement)
        cursor = self.connection().cursor()
        cursor.execute(compiled.sql, compiled.parameters(values))
        return cursor

    def execute_many(self, statement: ClauseElement, rows: Iterable[Mapping[str, Any]]) -> None:
        compiled = self.statements.get(statement)
        parameters = [compiled.parameters(row) for row in rows]
        if parameters:
            self.connection().cursor().executemany(compiled.sql, parameters)

    def scalar(self, statement: ClauseElement, values: Mapping[str, Any] = {}) -> Any:
        """The first column of the first row (``None`` without a row)."""
        row = self.execute(statement, values).fetchone()
        return None if row is None else row[0]

    def commit(self) -> None:
        self.connection().commit()

    def rollback(self) -> None:
        """End the transaction (a read's too: PostgreSQL would hold it open)."""
        if self._connection is not None:
            self._connection.rollback()

    def release(self) -> None:
        """Give the connection back to the pool now (before a long wait); the next statement takes one again."""
        if self._connection is not None:
            connection, self._connection = self._connection, None
            connection.close()


def lane() -> Lane:
    """The request's fast lane, opened on first use and released when the request ends."""
    found: Lane | None = g.get("db_lane")
    if found is None:
        found = g.db_lane = Lane(current_app.extensions["db_statements"])
    return found
