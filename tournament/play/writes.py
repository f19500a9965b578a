"""One SQLite writer at a time in a worker process: its game threads, heartbeat and clock take turns on a lock.

SQLite takes one write transaction at a time. A thread that finds the database locked waits in SQLite's busy
handler, which sleeps in steps that grow to 100 ms and does not wake when the lock frees; with a worker's games,
heartbeat and clock all saving at once, a game then lost tens of milliseconds a save. Around a write transaction
(from its first write to its commit), :func:`writing` makes the threads of this process queue on a lock instead, and
each goes on the moment the one before it commits. Another process's writers (a second worker, the service) still
meet SQLite's own wait. On PostgreSQL, which locks rows one by one, it does nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.orm import Session

_SQLITE_WRITER = threading.RLock()
"""Reentrant: a write inside a write of the same thread (a helper that commits, called within a save) goes on."""


@contextmanager
def writing(session: Session) -> Iterator[None]:
    """Around a write transaction of ``session``, up to its commit: one at a time in this process on SQLite."""
    if session.get_bind().dialect.name != "sqlite":
        yield
        return
    with _SQLITE_WRITER:
        yield
