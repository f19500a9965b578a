"""Private PostgreSQL and Redis servers for the reliability tests, which stop and restart them.

Servers that other tests share (the machine's PostgreSQL, the suite's private Redis: tests/databases.py) are never
restarted here. Each private server listens on a free loopback port and keeps its files in a folder of its own in
the test run's scratch folder (tests/runs.py: the next run shuts down a killed run's servers).

- :class:`PrivatePostgres`: ``initdb`` (trust authentication, no fsync: nothing here must survive a power cut)
  into a fresh directory, ``pg_ctl start``; as root, PostgreSQL refuses to run, so both run as the ``postgres``
  user (``runuser``), which owns the directory. :meth:`~PrivatePostgres.restart` is ``pg_ctl restart -m fast``:
  every connection is cut, the transactions in flight are aborted.
- :class:`PrivateRedis` (tests/servers.py, shared with the rest of the suite): ``redis-server`` as a child process
  without persistence, so a restart comes back empty: every queued job, registry and scheduled job is gone.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from sqlalchemy import create_engine, text

from store import migrate
from tests import runs
from tests.servers import PrivateRedis, ServerError, free_port, tail

__all__ = ["PrivatePostgres", "PrivateRedis", "ServerError", "free_port", "postgres_bin", "tail"]


def postgres_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda path: int(path.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb is None:
        raise ServerError("no PostgreSQL server binaries (initdb) on this machine")
    return Path(initdb).resolve().parent


class PrivatePostgres:
    """A PostgreSQL cluster of the tests' own on 127.0.0.1:``port``; databases are cloned from a migrated template."""

    TEMPLATE = "sorry_arena_template"

    def __init__(self) -> None:
        self.bin = postgres_bin()
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="postgres-", dir=runs.scratch()))
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self.as_user: list[str] = []
        if os.geteuid() == 0:  # initdb and postgres refuse root: run them as the postgres user
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                raise ServerError("running as root and there is no postgres user to run PostgreSQL as") from None
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.admin_url = self.url("postgres")

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def _run(self, *command: str, timeout: float = 60) -> None:
        done = subprocess.run(
            [*self.as_user, *command], capture_output=True, text=True, timeout=timeout, check=False
        )
        if done.returncode != 0:
            raise ServerError(
                f"{' '.join(command[:2])} failed ({done.returncode}): {done.stderr.strip()}\n{tail(self.log)}"
            )

    def _pg_ctl(self, action: str, *flags: str) -> None:
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        self._run(
            str(self.bin / "pg_ctl"),
            action,
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-o",
            options,
            "-w",
            "-t",
            "30",
            *flags,
        )

    def start(self) -> PrivatePostgres:
        if not self.data.exists():
            self._run(
                str(self.bin / "initdb"),
                "-D",
                str(self.data),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
                "--locale=C",
            )
        self._pg_ctl("start")
        return self

    def stop(self, mode: str = "fast") -> None:
        self._pg_ctl("stop", "-m", mode)

    def restart(self, down_seconds: float = 0.0) -> None:
        """Restart the server (``pg_ctl restart -m fast``, or stop, ``down_seconds`` without a server, start)."""
        if down_seconds <= 0:
            self._pg_ctl("restart", "-m", "fast")
            return
        self.stop()
        time.sleep(down_seconds)
        self._pg_ctl("start")

    def migrate_template(self) -> None:
        """Create the template database with the service's tables (from the migrations)."""
        self.execute(f'CREATE DATABASE "{self.TEMPLATE}"')
        migrate.upgrade(self.url(self.TEMPLATE))

    def new_database(self) -> str:
        """The URL of a fresh database with the service's tables, cloned from the template (fast)."""
        name = runs.database_name("arena")
        self.execute(f'CREATE DATABASE "{name}" TEMPLATE "{self.TEMPLATE}"')
        return self.url(name)

    def execute(self, statement: str) -> None:
        admin = create_engine(self.admin_url, isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as connection:
                connection.execute(text(statement))
        finally:
            admin.dispose()

    def close(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self.stop("immediate")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
