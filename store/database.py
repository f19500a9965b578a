"""The database engine, without Flask: the API, the workers and the command line all open it here.

SQLite (the embedded default) runs in WAL mode with ``synchronous=NORMAL`` and a busy timeout (commits about 5x
faster than the default journal on this kind of machine; ``benchmarks/tournament.py`` measures a worker on it), and
writers wait for each other instead of failing. ``postgres://`` and ``postgresql://`` URLs, as hosting platforms
write them, use psycopg 3, the installed driver (``store.urls``).

A PostgreSQL connection taken from the pool is checked without a round trip (:func:`_check_idle`): an idle
connection has nothing to read, so a socket with something to read, or with its end closed, was cut by the server
(a restart, an administrator's ``pg_terminate_backend``); then the pool replaces it and every connection pooled
before it, as SQLAlchemy's ``pool_pre_ping`` would, which costs a ``SELECT 1`` round trip per checkout (a request's
database work is two or three round trips).

A connection the pool could not reset as it came back (its rollback failed because the database went away: a
restart, a stop) is logged by SQLAlchemy with a traceback; :class:`QuietOutage` makes that one line, as every other
report of an outage is, for the pool of every engine made here. :func:`failed_not_faulty` tells such a failure of
the database (asked again by the workers, a 503 from the API) from a bug of the statement, and :func:`outage` its
kind (read-only, full, busy, unavailable). A connection that found its database read-only is dropped with the
pool's older ones (:func:`stale`): a PostgreSQL session keeps the read-only default it started with.
"""

from __future__ import annotations

import logging
import select
import sqlite3
from typing import Any

from sqlalchemy import Engine, create_engine, event, exc
from sqlalchemy.orm import Session, sessionmaker

from store.urls import normalize_database_url

TRANSIENT = ("OperationalError", "InterfaceError")
"""PEP 249's names of the errors of a database that failed, not of the statement: SQLAlchemy's wrappers and each
driver's own classes carry them."""
SQLITE_FAILED = frozenset({5, 6, 8, 10, 13, 14})
"""SQLite's primary result codes of a database that failed, not of the statement: busy and locked (another writer
held it past the busy wait), read-only (a file, a folder or a mount that refuses writes), an I/O error, a full disk,
a file it cannot open. SQLite names a statement's own errors (no such table, a syntax error: code 1)
``OperationalError`` too, so its codes decide."""
SQLITE_KINDS = {5: "busy", 6: "busy", 8: "read-only", 13: "full"}
POSTGRES_KINDS = {"25006": "read-only", "53100": "full", "40001": "busy", "40P01": "busy"}
"""SQLSTATEs of PostgreSQL that say what kind of failure it is: a read-only transaction (a standby, or an
administrator's ``default_transaction_read_only``: psycopg's ``ReadOnlySqlTransaction``, an ``InternalError``),
a full disk, a transaction given up to another's (a serialization failure, a deadlock)."""
OUTAGE_KINDS = ("read-only", "full", "busy", "unavailable")
"""What :func:`outage` answers: the database refuses writes; its disk is full; it gave the transaction up to
another's (or another writer held SQLite past its busy wait); it cannot be reached, or it restarts or stops."""


def outage(error: BaseException) -> str | None:
    """The kind of the database's failure that ``error`` is (one of :data:`OUTAGE_KINDS`), gone once the database
    answers or is writable again; ``None`` for a bug of the statement or of the setup (an ``IntegrityError``, a
    ``ProgrammingError``, SQLite's "no such table"). Nothing of such a transaction was committed, except when the
    connection was cut during its commit."""
    cause = getattr(error, "orig", None) or error  # SQLAlchemy's wrapper: the driver's own error
    kind = POSTGRES_KINDS.get(getattr(cause, "sqlstate", None) or "")
    code = getattr(cause, "sqlite_errorcode", None) if isinstance(cause, sqlite3.Error) else None
    if code is not None:  # an error SQLite raised (one made in Python has no code: its class decides)
        failed = code & 0xFF in SQLITE_FAILED
        kind = SQLITE_KINDS.get(code & 0xFF, "unavailable") if failed else None
    elif kind is None and any(name.__name__ in TRANSIENT for name in type(cause).__mro__):
        kind = "unavailable"
    if kind is None and getattr(error, "connection_invalidated", False) is True:
        kind = "unavailable"  # SQLAlchemy dropped the connection after it
    return kind


def failed_not_faulty(error: BaseException) -> bool:
    """Whether ``error`` is the database's failure, gone once it answers again, not a bug of the statement or of
    the setup (:func:`outage`): a restart, a stop, a cut connection, a database that refuses writes or whose disk
    is full, SQLite's "database is locked", a transaction PostgreSQL gave up (a deadlock, a serialization
    failure), or any error after which SQLAlchemy dropped the connection."""
    return outage(error) is not None


def stale(error: BaseException) -> bool:
    """Whether the connection that raised ``error`` is not to be used again: it found its database read-only, and a
    PostgreSQL session keeps the ``default_transaction_read_only`` it started with (a standby promoted, or the
    setting turned off, is seen by new connections only)."""
    return outage(error) == "read-only"


def first_line(error: BaseException) -> str:
    """The first line of an error's message (a database error's goes on with its statement and parameters), or its
    class's name if it has none: how a failure of the database is logged, in one line."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


class QuietOutage(logging.Filter):
    """A pool's log record of a connection it could not reset because the database went away (an error that
    :func:`failed_not_faulty` calls a failure of the database) becomes a one-line warning that names the error,
    without its traceback; any other record passes as it is."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if error is not None and failed_not_faulty(error):
            record.msg, record.args = f"{record.getMessage()}: {first_line(error)} (the database went away)", ()
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info, record.exc_text = None, None
        return True


QUIET_OUTAGE = QuietOutage()

POOL_SIZE = 5
"""PostgreSQL connections an engine keeps open by default (``SORRY_ARENA_DB_POOL_SIZE``)."""
MAX_OVERFLOW = 5
"""PostgreSQL connections an engine may open beyond its pool by default (``SORRY_ARENA_DB_MAX_OVERFLOW``)."""


def make_engine(url: str, pool_size: int = POOL_SIZE, max_overflow: int = MAX_OVERFLOW) -> Engine:
    """The engine of ``url``; on PostgreSQL at most ``pool_size + max_overflow`` connections at once (a request
    past them waits for one: the budget of docs/deploy.md). SQLite opens a connection per thread."""
    engine = _engine(normalize_database_url(url), pool_size, max_overflow)
    pool_log = logging.getLogger(f"{type(engine.pool).__module__}.{type(engine.pool).__name__}")
    if QUIET_OUTAGE not in pool_log.filters:
        pool_log.addFilter(QUIET_OUTAGE)
    return engine


def _engine(url: str, pool_size: int, max_overflow: int) -> Engine:
    engine = _dialect_engine(url, pool_size, max_overflow)
    event.listen(engine, "handle_error", _drop_stale)
    return engine


def _drop_stale(context: Any) -> None:
    """A connection that found its database read-only is dropped, with every connection pooled before it (as after
    a disconnect): the next ones see whether the database is writable again (:func:`stale`)."""
    if stale(context.original_exception):
        context.is_disconnect = True


def _dialect_engine(url: str, pool_size: int, max_overflow: int) -> Engine:
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
    engine = create_engine(url, pool_size=pool_size, max_overflow=max_overflow)
    event.listen(engine, "checkout", _check_idle)
    return engine


def _check_idle(dbapi_connection: Any, record: Any, proxy: Any) -> None:
    """Refuse a pooled PostgreSQL connection that the server has cut: ``InvalidatePoolError`` makes the pool
    replace it, and every connection pooled before it, with new ones."""
    if dbapi_connection.closed:
        raise exc.InvalidatePoolError("the connection is closed")
    poll = select.poll()
    poll.register(dbapi_connection.fileno(), select.POLLIN | select.POLLERR | select.POLLHUP)
    if poll.poll(0):  # an idle connection is told nothing: this is the server's farewell, or the socket's end
        raise exc.InvalidatePoolError("the server closed the connection")


def sessions(engine: Engine) -> sessionmaker[Session]:
    """The session factory every process uses (objects stay readable after a commit)."""
    return sessionmaker(engine, expire_on_commit=False)
