"""A database that refuses connections or writes for a while, as the tests of the API's and the pages' 503s and of
the workers' waits make one: PostgreSQL refusing connections (:func:`postgres_refusing`: its own database's
``ALLOW_CONNECTIONS`` off, its sessions ended, as a database being dropped or restored refuses them); refusing writes:
PostgreSQL read-only (the test's own database's ``default_transaction_read_only``, its sessions ended so that the
new ones read it, as a failover to a standby does), SQLite read-only (``PRAGMA query_only``: SQLite's
``SQLITE_READONLY``) or with a full disk (``PRAGMA max_page_count`` at the file's size: ``SQLITE_FULL``) on every
connection its engine hands out. Each is turned off again without touching the app: it must find out by itself.
:class:`CountingBot` is push bots' moves, counted per ply, that make the database sick in the middle of a game."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from sqlalchemy import Engine, create_engine, event, make_url, text

from tests.arenakit import random_choice
from tests.databases import ADMIN_URL

OUTAGE_AT_PLY = 30
"""The ply at which :class:`CountingBot` makes the database sick."""
SQLITE_MAX_PAGES = 1073741823
"""A limit far beyond any test's file (SQLite's default is larger still)."""


def alter_database(database_url: str, setting: str, end_sessions: bool, admin_url: str) -> None:
    """``ALTER DATABASE`` the test's own PostgreSQL database (``setting``) through the server's ``admin_url``; its
    open sessions ended if ``end_sessions``."""
    name = make_url(database_url).database
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text(f'ALTER DATABASE "{name}" {setting}'))
            if end_sessions:
                connection.execute(
                    text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = :name AND pid <> pg_backend_pid()"
                    ),
                    {"name": name},
                )
    finally:
        admin.dispose()


def postgres_read_only(database_url: str, on: bool, admin_url: str = ADMIN_URL) -> None:
    """Make the test's own PostgreSQL database read-only (``on``: its open sessions ended, the new ones read-only)
    or writable again (its sessions left as they are: the read-only ones must be dropped by the app), through the
    server's ``admin_url``."""
    alter_database(database_url, f"SET default_transaction_read_only = {'on' if on else 'off'}", on, admin_url)


def postgres_refusing(database_url: str, on: bool, admin_url: str = ADMIN_URL) -> None:
    """Make the test's own PostgreSQL database refuse new connections (``on``: its open sessions ended too, so that
    the app's pool must connect again) or accept them again, through the server's ``admin_url``."""
    alter_database(database_url, f"WITH ALLOW_CONNECTIONS {'false' if on else 'true'}", on, admin_url)


class SqliteTrouble:
    """Every connection ``engine`` hands out from now on is read-only or full while :attr:`kind` says so, and
    writable with room once it is ``None`` again (connections already handed out keep what they had)."""

    def __init__(self, engine: Engine) -> None:
        self.kind: str | None = None
        event.listen(engine, "checkout", self._checkout)

    def _checkout(self, dbapi_connection: Any, record: Any, proxy: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA query_only = {1 if self.kind == 'read-only' else 0}")
        cursor.execute(f"PRAGMA max_page_count = {1 if self.kind == 'full' else SQLITE_MAX_PAGES}")  # 1: its size
        cursor.close()


class Sickness:
    """The test's database made read-only (PostgreSQL) or full (SQLite) and well again: :meth:`on`, :meth:`off`."""

    def __init__(
        self, database_url: str, engine: Engine, sqlite_kind: str = "full", admin_url: str = ADMIN_URL
    ) -> None:
        self.database_url, self.admin_url = database_url, admin_url
        self.sqlite = SqliteTrouble(engine) if database_url.startswith("sqlite") else None
        self.sqlite_kind = sqlite_kind
        self.kind = sqlite_kind if self.sqlite is not None else "read-only"

    def on(self) -> None:
        if self.sqlite is not None:
            self.sqlite.kind = self.sqlite_kind
        else:
            postgres_read_only(self.database_url, True, self.admin_url)

    def off(self) -> None:
        if self.sqlite is not None:
            self.sqlite.kind = None
        else:
            postgres_read_only(self.database_url, False, self.admin_url)


class CountingBot:
    """Push bots' moves (random), each ``(game, ply)`` asked counted; the first time any game asks ply
    :data:`OUTAGE_AT_PLY`, the database turns sick before the answer goes back (the batch it joins meets it)."""

    def __init__(self, sickness: Sickness) -> None:
        self.sickness = sickness
        self.asked: Counter[tuple[int, int]] = Counter()
        self.turned = threading.Event()
        self.lock = threading.Lock()

    def choose(self, request: dict[str, Any]) -> str:
        with self.lock:
            self.asked[request["game_id"], request["ply"]] += 1
            if request["ply"] == OUTAGE_AT_PLY and not self.turned.is_set():
                self.turned.set()
                self.sickness.on()
        return random_choice(request)

    def plies(self, game_id: int) -> dict[int, int]:
        """How often each ply of the game was asked."""
        return {ply: count for (game, ply), count in sorted(self.asked.items()) if game == game_id}
