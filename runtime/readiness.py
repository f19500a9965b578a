"""Readiness: whether this process can serve now: its database answers a query and takes writes (not read-only),
its Redis (when it has one) answers a PING, and the database is at the newest migration (one newer than this release's, migrated by a newer
release meanwhile, says so: upgrade the program). ``GET /api/v1/ready`` answers with it
(``service/api/ready.py``); a worker process may report the same checks.

Each check answers within about 2 s of an outage: PostgreSQL is asked on a connection of its own (not the pool,
whose checkout could wait for a busy pool) opened with a 2 s ``connect_timeout`` and a 1.5 s
``statement_timeout``; Redis with 1 s socket timeouts and no retry. "At the newest migration" is remembered once
seen (a running service's database does not go back), but the database is asked again at every check.

A failed check is one line naming what failed and the driver's reason (``cannot connect: ...``); no URL, so no
password, is in it.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from sqlalchemy import Engine, create_engine, pool, text
from sqlalchemy.exc import OperationalError, SQLAlchemyError

from store.database import first_line

OK = "ok"
CONNECT_TIMEOUT_S = 2
"""PostgreSQL's ``connect_timeout`` for the check (psycopg's least)."""
STATEMENT_TIMEOUT_MS = 1500
REDIS_TIMEOUT_S = 1.0


class Readiness:
    """The checks of one process: its database (``engine``: the process's own, whose URL and kind it checks) and
    its Redis (``redis_url``; ``None``: none to check)."""

    def __init__(self, engine: Engine, redis_url: str | None) -> None:
        self.redis_url = redis_url
        self._lock = threading.Lock()
        self._at_head = False
        self._redis: Any = None
        if engine.dialect.name == "postgresql":
            self.engine = create_engine(
                engine.url,
                poolclass=pool.NullPool,
                connect_args={
                    "connect_timeout": CONNECT_TIMEOUT_S,
                    "options": f"-c statement_timeout={STATEMENT_TIMEOUT_MS}",
                },
            )
        else:  # SQLite: a file of this machine; the engine's own connections (a new one would create the file)
            self.engine = engine

    def checks(self) -> dict[str, str]:
        """``{"database": ..., "redis": ..., "migrations": ...}``, each ``"ok"`` or why not (``redis`` only when
        there is one)."""
        found = {"database": OK, "migrations": OK}
        try:
            missing = self._missing_file()
            if missing:
                raise OperationalError("", None, FileNotFoundError(f"no SQLite file {missing}"))
            with self.engine.connect() as connection:
                refusing = self._read_only(connection)
                if refusing:
                    found["database"] = refusing
                if not self._at_head:
                    found["migrations"] = self._migrations(connection)
        except SQLAlchemyError as error:
            found["database"] = f"cannot connect: {reason(error)}"
            if not self._at_head:
                found["migrations"] = "not checked: the database does not answer"
        if self.redis_url:
            found["redis"] = self._ping()
        return found

    def _read_only(self, connection: Any) -> str | None:
        """Why the database takes no writes now (``None``: it takes them), read as a new session of it sees it: a
        PostgreSQL standby or ``default_transaction_read_only``, a SQLite file or connection that is read-only. A
        database that answers but refuses writes cannot serve: every create would be a 503."""
        if self.engine.dialect.name == "postgresql":
            if connection.execute(text("SHOW transaction_read_only")).scalar() == "on":
                return "read-only: the database refuses writes (a standby, or default_transaction_read_only)"
            return None
        if connection.execute(text("PRAGMA query_only")).scalar():
            return "read-only: the database refuses writes (query_only)"
        name = self.engine.url.database
        if name and name != ":memory:" and not name.startswith("file:") and not os.access(name, os.W_OK):
            return "read-only: the database's file is not writable"
        return None

    def _missing_file(self) -> str | None:
        """A SQLite database's file, when it is not there (connecting would create it, empty)."""
        name = self.engine.url.database if self.engine.dialect.name == "sqlite" else None
        if not name or name == ":memory:" or name.startswith("file:") or os.path.exists(name):
            return None
        return name

    def _migrations(self, connection: Any) -> str:
        from alembic.runtime.migration import MigrationContext

        from store import migrate

        head = migrate.head()
        current = MigrationContext.configure(connection).get_current_revision()
        if current is not None and current not in migrate.revisions():  # a newer release migrated it meanwhile
            return str(migrate.NewerDatabase(current, head))
        if current != head:
            return f"the database is at revision {current or 'none'}, not {head}: run sorry-arena db upgrade"
        self._at_head = True
        return OK

    def _ping(self) -> str:
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        with self._lock:
            if self._redis is None:
                self._redis = redis.Redis.from_url(
                    str(self.redis_url),
                    socket_timeout=REDIS_TIMEOUT_S,
                    socket_connect_timeout=REDIS_TIMEOUT_S,
                    retry=Retry(NoBackoff(), 0),
                )
        try:
            self._redis.ping()
        except (redis.RedisError, OSError) as error:
            return f"cannot connect: {first_line(error)}"
        return OK

    def close(self) -> None:
        if self._redis is not None:
            self._redis.close()


def ready(checks: dict[str, str]) -> bool:
    return all(value == OK for value in checks.values())


def reason(error: SQLAlchemyError) -> str:
    """The driver's first line (SQLAlchemy's wrapper adds the statement and a link)."""
    return first_line(getattr(error, "orig", None) or error)
