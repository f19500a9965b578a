"""The database: one SQLAlchemy engine per app, a session per request (SQLAlchemy 2.0 style), and a fast lane.

SQLite (the embedded default) runs in WAL mode with ``synchronous=NORMAL`` and a busy timeout: MEASURED.md shows
5x faster commits than the default journal, and writers wait for each other instead of failing.

The fast lane serves the requests every move makes (a bot's poll and its submission): Core statements, written
with ``select()`` / ``update()`` / ``insert()`` like any other, compiled once per database dialect and run straight
on the DB-API cursor of the request's pooled connection (:func:`lane`). SQLAlchemy's per-call execution
machinery costs about 60 us a statement on a 2-core machine, six times the cursor call itself; a move needs four
or five statements. Values go through each column type's own bind processor, as SQLAlchemy would send them. A
move's writes go through the process's :class:`Writer`, which saves the moves that arrive together in one
transaction (group commit).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
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


_GIVEN = object()
"""Marks a parameter whose value each call gives (the others are the statement's own literals)."""


class Compiled:
    """One statement compiled for one dialect: its SQL, and how to turn named values into the driver's."""

    def __init__(self, statement: ClauseElement, engine: Engine) -> None:
        dialect = engine.dialect
        compiled = cast(SQLCompiler, statement.compile(dialect=dialect, for_executemany=True))
        self.sql = compiled.string
        self.positional = bool(compiled.positional)
        binds = {name: bind for bind, name in compiled.bind_names.items()}
        self.names = tuple(compiled.positiontup or ()) if self.positional else tuple(binds)
        self._plan: list[tuple[str, Any, Any]] = []
        """Per driver parameter: its name, its value if the statement fixes it (else ``_GIVEN``), the column
        type's bind processor (``None``: the value goes as it is)."""
        for name in self.names:
            bind = binds[name]
            processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if bind.required:
                self._plan.append((name, _GIVEN, processor))
            else:  # a literal of the statement (``Game.status == "active"``): processed once, here
                self._plan.append((name, bind.value if processor is None else processor(bind.value), None))

    def parameters(self, values: Mapping[str, Any]) -> Any:
        row = [
            (values[name] if processor is None else processor(values[name])) if fixed is _GIVEN else fixed
            for name, fixed, processor in self._plan
        ]
        return tuple(row) if self.positional else dict(zip(self.names, row, strict=True))


class Statements:
    """The fast-lane statements of one engine, compiled on first use, and its writer."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.integrity_error: type[Exception] = engine.dialect.dbapi.IntegrityError  # type: ignore[union-attr]
        self.writer = Writer(engine)
        self._compiled: dict[int, tuple[ClauseElement, Compiled]] = {}
        self._lock = threading.Lock()

    def get(self, statement: ClauseElement) -> Compiled:
        found = self._compiled.get(id(statement))
        if found is None:
            with self._lock:
                found = (statement, Compiled(statement, self.engine))  # keeps the statement alive: ids stay unique
                self._compiled[id(statement)] = found
        return found[1]


class Write:
    """One transaction's worth of work for the :class:`Writer`: a conditional statement (an UPDATE checked by
    ``rowcount``), then statements that run only if it changed a row. ``key`` orders the writes of a batch (the
    row the condition locks: one order in every process, so no two batches deadlock on PostgreSQL)."""

    __slots__ = ("done", "error", "finished", "key", "lead", "saved", "steps")

    def __init__(self, key: int, steps: list[tuple[str, list[Any]]]) -> None:
        self.key = key
        self.steps = steps
        """(SQL, driver parameter rows): the first step has one row, the condition."""
        self.done: Any = None
        """A held lock that the leader releases once this write is saved (or this thread is to lead): made only
        for a write that has to wait (a plain lock: an Event costs ten times as much to make)."""
        self.lead = False
        self.saved = False
        self.finished = False
        self.error: BaseException | None = None

    def finish(self, error: BaseException | None = None) -> None:
        if self.finished:
            return
        self.finished = True
        if error is not None:
            self.saved = False
            self.error = error
        if self.done is not None:
            self.done.release()


class Writer:
    """Group commit: the moves that requests of this process want saved at the same time go into one
    transaction, each still checked by its own condition.

    A transaction per request makes requests queue for the database's write lock (SQLite has one writer at a time)
    or for a commit each (PostgreSQL's is a disk flush); under load the queue grows long, and a thread holding the
    lock also waits for its turn at the GIL after each database call. Here the request that finds nobody writing
    becomes the leader: it writes its own move and whatever others queued meanwhile, batch after batch, on the
    writer's connection, then hands over to a waiting request after a few batches (so no request pays for long).
    The others wait for their batch's commit, so an answer still comes only once its move is saved.
    """

    MAX_BATCH = 64
    ROUNDS = 4
    """Batches a leader writes before it hands the queue over."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._integrity_error: type[Exception] = engine.dialect.dbapi.IntegrityError  # type: ignore[union-attr]
        self._lock = threading.Lock()
        self._queue: list[Write] = []
        self._leading = False
        self._connection: Any = None
        """The writer's own pooled connection, used by one leader at a time (no checkout per move)."""
        self._pid = os.getpid()

    def save(self, write: Write) -> bool:
        """Whether the write's condition held (then all of it is committed); its database error, if any."""
        with self._lock:
            lead = not self._leading
            if lead:
                self._leading = True
            else:
                write.done = threading.Lock()
                write.done.acquire()
            self._queue.append(write)
        if not lead:
            write.done.acquire()  # until the leader has saved it, or hands the queue over to this thread
            lead = write.lead
        if lead:
            self._lead()
        if write.error is not None:
            raise write.error
        return write.saved

    def _lead(self) -> None:
        try:
            self._write_queue()
        except BaseException as error:  # never leave the queue without a leader: fail what waits, and go on
            with self._lock:
                stranded, self._queue = self._queue, []
                self._leading = False
            for write in stranded:
                write.finish(error)
            raise

    def _write_queue(self) -> None:
        if self._pid != os.getpid():  # a forked child: the parent's connection is not its own
            self._connection, self._pid = None, os.getpid()
        for _ in range(self.ROUNDS):
            with self._lock:
                batch = self._queue[: self.MAX_BATCH]
                del self._queue[: self.MAX_BATCH]
                if not batch:
                    self._leading = False
                    return
            if self._connection is None:
                try:
                    self._connection = self._engine.raw_connection()
                except BaseException as error:
                    for write in batch:
                        write.finish(error)
                    continue
            if not self._write(self._connection, batch):
                connection, self._connection = self._connection, None
                with contextlib.suppress(Exception):
                    connection.invalidate()  # broken: the next batch takes a new one
        with self._lock:  # enough for this request: the first waiting one takes over (its write still queued)
            if not self._queue:
                self._leading = False
                return
            heir = self._queue[0]
            waiting, heir.done = heir.done, None  # the heir saves its own write: nothing to signal then
            heir.lead = True
            waiting.release()

    def _write(self, connection: Any, batch: list[Write]) -> bool:
        """Save a batch in one transaction; if a unique key refuses it, each write alone. ``False``: the database
        failed otherwise (its error goes to every write of the batch), and the connection is not to be trusted."""
        batch.sort(key=lambda write: write.key)
        try:
            self._transaction(connection, batch)
        except self._integrity_error as error:
            connection.rollback()
            if len(batch) == 1:
                batch[0].finish(error)
                return True
            for write in batch:  # find the write that broke a unique key, and save the others
                try:
                    self._transaction(connection, [write])
                except self._integrity_error as single:
                    connection.rollback()
                    write.finish(single)
                except BaseException as failure:
                    with contextlib.suppress(Exception):
                        connection.rollback()
                    for unsaved in batch:
                        unsaved.finish(failure)
                    return False
                else:
                    write.finish()
            return True
        except BaseException as error:
            with contextlib.suppress(Exception):
                connection.rollback()
            for write in batch:
                write.finish(error)
            return False
        for write in batch:
            write.finish()
        return True

    @staticmethod
    def _transaction(connection: Any, batch: list[Write]) -> None:
        cursor = connection.cursor()
        for write in batch:
            (condition, (row,)), *rest = write.steps
            cursor.execute(condition, row)
            write.saved = cursor.rowcount == 1
            if write.saved:
                for sql, rows in rest:
                    if len(rows) == 1:
                        cursor.execute(sql, rows[0])
                    elif rows:
                        cursor.executemany(sql, rows)
        connection.commit()


class Lane:
    """A request's fast lane: its pooled DB-API connection (taken on first use) and the compiled statements."""

    def __init__(self, statements: Statements) -> None:
        self.statements = statements
        self.integrity_error = statements.integrity_error
        """The driver's IntegrityError (a unique constraint said no)."""
        self._connection: Any = None

    def write(
        self,
        key: int,
        condition: tuple[ClauseElement, Mapping[str, Any]],
        *then: tuple[ClauseElement, Sequence[Mapping[str, Any]]],
    ) -> bool:
        """Through the process's writer: run ``condition`` (a statement and its values), and if it changed a row,
        each statement of ``then`` with each of its rows, in one transaction; whether the condition held."""
        get = self.statements.get
        statement, values = condition
        compiled = get(statement)
        steps = [(compiled.sql, [compiled.parameters(values)])]
        for statement, rows in then:
            compiled = get(statement)
            steps.append((compiled.sql, [compiled.parameters(row) for row in rows]))
        return self.statements.writer.save(Write(key, steps))

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
