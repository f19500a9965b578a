"""The tests' databases: fresh PostgreSQL databases and Redis databases of their own, and what to do when a server
is missing. The tests never touch what they did not create, so that two checkouts on one machine (or a developer's
own data) live side by side with a test run.

- PostgreSQL: each test creates a uniquely named database and drops it afterwards, on the server of the admin URL
  ``$SORRY_ARENA_TEST_POSTGRES_URL`` (default: the machine's, ``postgresql+psycopg://postgres@127.0.0.1:5432/
  postgres``); its user needs the right to create databases. The names carry the test run's
  (``sorry_arena_test_<pid>_<start>_...``, tests/runs.py), so that the next run drops those of a killed one.
- :class:`Templates`: the service's tables, migrated once per test run into a template (a SQLite file, a
  PostgreSQL database), shared by the run's xdist workers, that each test copies (the file, in well under a millisecond; ``CREATE DATABASE ...
  TEMPLATE``, in tenths of a second), instead of running the migrations (seconds). The schema still comes from the
  migrations: a missing one fails every test.
- Redis: a private ``redis-server`` of the session's, started on first use on a free loopback port without
  persistence, and stopped at the end (tests/servers.py); each test gets a database number of its own, emptied
  before and after. With ``$SORRY_ARENA_TEST_REDIS_URL`` the tests use that Redis database instead and never flush
  it: a test starts only when it is empty, and deletes, by name, the keys that appeared in it while it ran.

A server that is missing or unreachable skips the tests that need it, except in CI (``CI=true``), where they fail,
so that CI never passes by skipping.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import logging
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from sqlalchemy import Select, create_engine, make_url, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from store import migrate
from tests import runs
from tests.servers import PrivateRedis, ServerError, tail

POSTGRES_VARIABLE = "SORRY_ARENA_TEST_POSTGRES_URL"
REDIS_VARIABLE = "SORRY_ARENA_TEST_REDIS_URL"
ADMIN_URL = os.environ.get(POSTGRES_VARIABLE) or "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
"""Where the tests create (and drop) their PostgreSQL databases."""


def unavailable(message: str) -> None:
    """Skip locally, fail in CI: a missing service must never make CI green."""
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def postgres_database(prefix: str = "sorry_arena_test", template: str | None = None) -> Iterator[str]:
    """The URL of a uniquely named PostgreSQL database, empty or a copy of ``template``, dropped afterwards (its
    connections ended). ``prefix`` says what it is for (``sorry_arena_rq``: its name carries ``rq``)."""
    admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    name = runs.database_name(prefix.removeprefix("sorry_arena_") or "db")
    copied = "" if template is None else f' TEMPLATE "{template}"'
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"{copied}'))
    except OperationalError as error:
        admin.dispose()
        shown = make_url(ADMIN_URL).render_as_string(hide_password=True)
        unavailable(f"PostgreSQL is unreachable at {shown} (${POSTGRES_VARIABLE}): {error.orig}")
    try:
        yield make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))  # the one created above
        admin.dispose()


class Templates:
    """The service's tables, migrated once per test run into a template (a SQLite file in the run's scratch folder, a
    PostgreSQL database named after the run) and copied for each test. The run's processes (its xdist workers) share
    them: the first to need one makes it under a lock in the scratch folder, the others wait for it and copy it. A
    template is made by the migrations, so a missing migration still fails the tests; no connection stays open on it
    (PostgreSQL copies a database only while nobody is connected to it). :func:`drop_templates` drops the PostgreSQL
    one when the run ends; the scratch folder, with the SQLite one, goes with the run (tests/runs.py)."""

    def __init__(self) -> None:
        self.sqlite_file: Path | None = None
        self.postgres_name: str | None = None

    @contextlib.contextmanager
    def _made_once(self, marker: Path) -> Iterator[bool]:
        """Under the run's lock of its templates: whether ``marker`` says the template is made already (the block
        makes it, and the marker is written, when it is not)."""
        with open(runs.scratch() / "templates.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                made = marker.exists()
                yield made
                if not made:
                    marker.touch()
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def sqlite(self, path: Path) -> str:
        """The URL of a new SQLite database at ``path``, with the service's tables."""
        if self.sqlite_file is None:
            template = runs.scratch() / "template.db"
            with self._made_once(runs.scratch() / "template.db.made") as made:
                if not made:
                    template.unlink(missing_ok=True)
                    migrate.upgrade(f"sqlite:///{template}")
                    for journal in ("-wal", "-shm", "-journal"):  # every connection closed: all of it in the file
                        assert not Path(f"{template}{journal}").exists(), f"the template {template} is still open"
            self.sqlite_file = template
        shutil.copyfile(self.sqlite_file, path)
        return f"sqlite:///{path}"

    def postgresql(self, prefix: str = "sorry_arena_test") -> Iterator[str]:
        """The URL of a new PostgreSQL database with the service's tables, dropped afterwards (a generator, as
        :func:`postgres_database`)."""
        if self.postgres_name is None:
            name = runs.run_database_name("template")
            with self._made_once(runs.scratch() / "template-postgresql.made") as made:
                if not made:
                    admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
                    try:
                        with admin.connect() as connection:
                            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
                            connection.execute(text(f'CREATE DATABASE "{name}"'))
                    except OperationalError as error:
                        shown = make_url(ADMIN_URL).render_as_string(hide_password=True)
                        unavailable(f"PostgreSQL is unreachable at {shown} (${POSTGRES_VARIABLE}): {error.orig}")
                    finally:
                        admin.dispose()
                    # its engine disposed: no connection left on the template
                    migrate.upgrade(make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False))
            self.postgres_name = name
        yield from postgres_database(prefix, template=self.postgres_name)


def drop_templates() -> None:
    """Drop the run's PostgreSQL template, if it made one (by the run's first process, once its workers are done)."""
    if not (runs.scratch() / "template-postgresql.made").exists():
        return
    admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(
                text(f'DROP DATABASE IF EXISTS "{runs.run_database_name("template")}" WITH (FORCE)')
            )
    finally:
        admin.dispose()


class RedisDatabases:
    """Where each test's Redis database comes from (:func:`redis_databases`)."""

    def database(self) -> Iterator[str]:
        """The URL of an empty Redis database for one test, cleaned up after it."""
        raise NotImplementedError

    def close(self) -> None:
        pass


class PrivateRedisDatabases(RedisDatabases):
    """The databases of a private ``redis-server``: each test takes the next number (1, 2, ...; after the last, the
    numbers come round again), emptied before and after it. The server and all it holds are the tests'."""

    DATABASES = 256

    def __init__(self) -> None:
        self.server = PrivateRedis(databases=self.DATABASES)
        self.numbers = itertools.cycle(range(1, self.DATABASES))

    def start(self) -> PrivateRedisDatabases:
        self.server.start()
        return self

    def database(self) -> Iterator[str]:
        if self.server.process is None or self.server.process.poll() is not None:
            unavailable(f"the tests' redis-server (port {self.server.port}) has exited:\n{tail(self.server.log)}")
        url = self.server.url_of(next(self.numbers))
        client = redis.Redis.from_url(url)
        try:
            client.flushdb()  # a database of the tests' own server: empty it for this test
            yield url
            client.flushdb()
        finally:
            client.close()

    def close(self) -> None:
        self.server.close()


class GivenRedis(RedisDatabases):
    """The Redis database at ``$SORRY_ARENA_TEST_REDIS_URL``, which may hold someone else's keys: never flushed. A
    test starts only when it holds no key (a test counts, queues and takes what it finds); afterwards the keys that
    appeared while it ran are deleted one by one. Nobody else should write to it while the tests run."""

    def __init__(self, url: str) -> None:
        self.url = url

    def database(self) -> Iterator[str]:
        client = redis.Redis.from_url(self.url, socket_connect_timeout=5)
        try:
            try:
                before = set(client.scan_iter(count=1000))
            except redis.RedisError as error:
                unavailable(f"Redis is unreachable at ${REDIS_VARIABLE} ({self.url}): {error}")
            if before:
                unavailable(
                    f"the Redis database at ${REDIS_VARIABLE} ({self.url}) holds {len(before)} keys that this test "
                    "did not create (the tests never flush it): give the tests an empty database of their own"
                )
            yield self.url
            made = list(client.scan_iter(count=1000))  # it was empty: each key appeared while the test ran
            for start in range(0, len(made), 1000):
                client.delete(*made[start : start + 1000])
        finally:
            client.close()


def redis_databases() -> Iterator[RedisDatabases]:
    """The session's source of Redis databases: ``$SORRY_ARENA_TEST_REDIS_URL``'s, else a private redis-server's,
    stopped when the session ends (skipped locally, failed in CI, when it cannot start)."""
    given = os.environ.get(REDIS_VARIABLE)
    if given:
        yield GivenRedis(given)
        return
    databases = PrivateRedisDatabases()
    try:
        databases.start()
    except (ServerError, OSError, subprocess.SubprocessError) as error:
        databases.close()
        unavailable(f"cannot start the tests' redis-server (or set ${REDIS_VARIABLE}): {error}")
    try:
        yield databases
    finally:
        # the apps' Redis listeners (daemon threads, runtime/wakeups.py) outlive their tests: with the server gone
        # they would log a reconnection every few seconds until the process exits
        logging.getLogger("runtime.wakeups").setLevel(logging.CRITICAL)
        databases.close()


def index_plan(session: Session, query: Select[Any]) -> str:
    """The plan of ``query`` (its values written in) as the session's database would run it, in the session's
    transaction; on PostgreSQL with sequential scans off, so that the plan says which index it can use (the caller
    rolls back)."""
    bind = session.get_bind()
    sql = str(query.compile(bind, compile_kwargs={"literal_binds": True}))
    if bind.dialect.name == "postgresql":
        session.execute(text("SET LOCAL enable_seqscan = off"))
        return "\n".join(session.scalars(text(f"EXPLAIN {sql}")))
    return "\n".join(row[3] for row in session.execute(text(f"EXPLAIN QUERY PLAN {sql}")))
