"""What tests/test_runs.py runs in a pytest of its own and then kills (``pytest tests/killed_run.py``; not collected
otherwise, as its name is no test file's): one test that starts what tests start, a private redis-server, a bot
process, a process in a session of its own (as a daemon is), a private PostgreSQL (which ``pg_ctl`` daemonizes) and
a database on the machine's PostgreSQL, each stopped by its fixture; writes what it started to the file
``$ARENA_PROBE_REPORT`` names, and waits to be killed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import make_url

from tests import runs
from tests.databases import Templates
from tests.reliability.harness import Bots, stop_all
from tests.reliability.servers import PrivatePostgres
from tests.servers import PrivateRedis

REPORT = "ARENA_PROBE_REPORT"
PATIENCE_S = 600.0
"""How long the test waits to be killed: it ends by itself, should nobody come."""


@pytest.fixture
def redis_server() -> Iterator[PrivateRedis]:
    server = PrivateRedis().start()
    yield server
    server.close()


@pytest.fixture
def postgres_server() -> Iterator[PrivatePostgres]:
    server = PrivatePostgres().start()
    yield server
    server.close()


@pytest.fixture
def bots() -> Iterator[Bots]:
    started = Bots()
    yield started
    started.stop()


@pytest.fixture
def detached() -> Iterator[subprocess.Popen[bytes]]:
    """A process in a session of its own, out of reach of its parent's death (a daemon, a grandchild)."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
    yield process
    stop_all([process])


def test_start_everything_and_wait_to_be_killed(
    redis_server: PrivateRedis,
    postgres_server: PrivatePostgres,
    bots: Bots,
    detached: subprocess.Popen[bytes],
    templates: Templates,
) -> None:
    bots.start("random")
    made = templates.postgresql()
    database = next(made)
    assert redis_server.process is not None
    postmaster = int((postgres_server.data / "postmaster.pid").read_text().split("\n", 1)[0])
    report = {
        "run": runs.name(),
        "pids": [redis_server.process.pid, postmaster, detached.pid, *(bot.pid for bot in bots.processes)],
        "databases": [make_url(database).database, templates.postgres_name],
        "folders": [str(runs.scratch())],
    }
    target = Path(os.environ[REPORT])
    target.with_suffix(".tmp").write_text(json.dumps(report))
    target.with_suffix(".tmp").rename(target)
    try:
        threading.Event().wait(PATIENCE_S)
    finally:
        made.close()  # drops the database
