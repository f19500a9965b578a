"""Fixtures of the API tests: a fresh database per test (SQLite file or PostgreSQL database), the app and its client;
and the test run's hooks.

``database_url`` runs a test on both databases; a test that needs only one narrows it with
``pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)`` (``tests.apikit.SQLITE_ONLY``).
Each test's PostgreSQL database and Redis database are its own (``tests/databases.py``: created on the machine's
PostgreSQL, or the one at ``$SORRY_ARENA_TEST_POSTGRES_URL``; a private redis-server, or the Redis at
``$SORRY_ARENA_TEST_REDIS_URL``): unreachable, a test is skipped locally and fails in CI. The schema always comes
from the migrations, run once per test run into a template that each test's database copies
(``tests.databases.Templates``), so a missing migration fails here too.

The run (tests/runs.py) marks every process it starts as its own and keeps its files in a scratch folder of its
own; SIGTERM interrupts it as Ctrl-C does (and Ctrl-C does, even where the run was started with SIGINT ignored), so that the fixtures stop what they started; and it first sweeps away
what runs killed before they could clean up left behind (their servers, bots, databases and scratch folders).
With pytest-xdist (``make test``: ``-n``) each worker process has its own session fixtures (its redis-server); the
templates are the run's, made once and shared by its workers. The modules whose tests run longest go first
(:data:`LONG_FIRST`), so that they overlap the many short ones instead of trailing at the end of the run.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from runtime.jobqueue import LocalQueue
from runtime.settings import Settings
from service.app import create_app
from tests import runs
from tests.databases import ADMIN_URL, RedisDatabases, Templates, drop_templates, redis_databases

for _variable in ("DATABASE_URL", "REDIS_URL"):  # a developer's own services: no test may reach them by default
    os.environ.pop(_variable, None)


LONG_FIRST = (
    "tests/store/test_interrupted_upgrade.py",
    "tests/benchmarks/",
    "tests/reliability/",
    "tests/test_runs.py",
    "tests/clients/test_install.py",
    "tests/cli/test_demo.py",
    "tests/service/test_derived_events.py",
    "tests/service/test_schemathesis.py",
    "tests/service/test_waiting_attacks.py",
    "tests/tournament/test_embedded_restart.py",
    "tests/service/web/test_browser_",
    "tests/service/test_graceful_reload.py",
    "tests/tournament/test_quiet_workers.py",
    "tests/service/test_hidden.py",
    "tests/tournament/test_deadlines.py",
    "tests/cli/test_view.py",
    "tests/service/test_admin_served.py",
    "tests/tournament/test_withheld_bots.py",
    "tests/service/test_streams_served.py",
    "tests/service/test_metrics_served.py",
    "tests/tournament/test_account_share.py",
    "tests/service/test_connection_budget.py",
    "tests/service/test_quotas_served.py",
    "tests/tournament/test_paired_deals.py",
    "tests/service/test_hostile_served.py",
)
"""The modules whose tests take longest (seconds to minutes each, starting servers, workers or whole runs): put at
the front of the run. `make test` hands the tests out one at a time, in this order, to whichever xdist worker is
free (``--maxschedchunk 1``), so these start early, side by side; at the end they would leave the run waiting on
one worker for minutes. (xdist's default hands each worker a contiguous chunk of a quarter of its share first: one
worker got every long test. Its ``loadscope`` and ``loadgroup`` modes are no way out: they key tests by node id,
and schemathesis's 47 operations share one, so all but one would never run.)"""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Move the tests of :data:`LONG_FIRST`'s modules to the front (a stable sort: each module's tests stay
    together and in order). Every xdist worker sorts the same way, as it must."""
    root = Path(__file__).resolve().parents[1]

    def long_first(item: pytest.Item) -> int:
        path = item.path.relative_to(root).as_posix()
        return 0 if path.startswith(LONG_FIRST) else 1

    items.sort(key=long_first)


def is_worker(config: pytest.Config) -> bool:
    """Whether this process is one of pytest-xdist's workers (not the run's first process)."""
    return hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    runs.begin(worker=is_worker(config))
    runs.catch_sigint()
    runs.stop_on_sigterm(has_workers=lambda: config.pluginmanager.has_plugin("dsession"))


def pytest_sessionstart(session: pytest.Session) -> None:
    if is_worker(session.config):
        return
    ended = runs.sweep(ADMIN_URL)
    if ended:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        lines = "\n  ".join(ended)
        message = f"ended what killed test runs left behind:\n  {lines}"
        if reporter is not None:
            reporter.write_line(message)


def pytest_unconfigure(config: pytest.Config) -> None:
    if not is_worker(config):
        drop_templates()
        runs.finish()


@pytest.fixture(autouse=True)
def logging_left_as_found() -> Iterator[None]:
    """Take away the log handlers a test's in-process command added (``sorry-arena worker``'s ``logs.configure``,
    a client's ``basicConfig``): each writes to the stderr of that test's capture, closed after it, and a later
    test's log line would then print a logging error."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        if type(handler) is logging.StreamHandler and handler not in handlers:
            root.removeHandler(handler)
    root.setLevel(level)


@pytest.fixture(scope="session")
def templates() -> Templates:
    """The run's migrated templates (made on first use by whichever of its processes needs one first; dropped when
    the run ends: :func:`pytest_unconfigure`)."""
    return Templates()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path, templates: Templates) -> Iterator[str]:
    """The URL of a fresh database with the service's tables, copied from the migrated template."""
    if request.param == "sqlite":
        yield templates.sqlite(tmp_path / "api.db")
    elif request.param == "postgresql":
        yield from templates.postgresql()
    else:
        raise ValueError(f"unknown database kind {request.param!r}")


@pytest.fixture(scope="session")
def redis_source() -> Iterator[RedisDatabases]:
    """The session's Redis (started on first use): a private redis-server, or ``$SORRY_ARENA_TEST_REDIS_URL``."""
    yield from redis_databases()


@pytest.fixture
def redis_url(redis_source: RedisDatabases) -> Iterator[str]:
    """The URL of an empty Redis database of this test's own, cleaned up afterwards (``tests/databases.py``)."""
    yield from redis_source.database()


TEST_LIMITS = {
    "limit_accounts": "100000/minute",
    "limit_accounts_hourly": "100000/hour",
    "limit_bots": "100000/hour",
    "limit_moves": "100000/second",
    "limit_versions": "100000/hour",
}
"""The test apps' rate limits: counted as in production, but far above what a test makes (a test creates up to
hundreds of accounts from one address); ``tests/service/test_rate_limits.py`` tests the real defaults."""


def make_app(database_url: str, redis_url: str | None = None, maintenance_seconds: float | None = None) -> Flask:
    """A test app; the embedded queue's maintenance is off unless asked for (``maintenance_seconds``), so that no
    thread outlives the test's database."""
    settings = Settings(
        database_url=database_url, redis_url=redis_url, maintenance_seconds=maintenance_seconds, **TEST_LIMITS
    )
    app = create_app(settings)
    app.config["TESTING"] = True
    return app


def dispose(app: Flask) -> None:
    queue = app.extensions.get("queue")
    if isinstance(queue, LocalQueue):
        queue.close()
    engine = app.extensions.get("db_engine")
    if engine is not None:
        engine.dispose()


@pytest.fixture
def app(database_url: str) -> Iterator[Flask]:
    app = make_app(database_url)
    yield app
    dispose(app)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()
