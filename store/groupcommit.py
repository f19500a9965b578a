"""Group commit: the moves that one process's requests want saved at the same time go into one transaction.

The fast lane's writer on SQLite (``store.fastlane``), where it measured less CPU per move and more moves/s than a
transaction per write, with 8 threads writing; on PostgreSQL it gave fewer moves/s, so a write is a transaction of
its own there (``benchmarks/internals.py groupcommit``, docs/performance.md). It uses public APIs
only (the engine's pooled DB-API connection). A writer made on PostgreSQL all the same (the benchmark's) runs a batch
of one write that is one statement (the fast lane's one-statement advance) in autocommit, one round trip instead of
three (BEGIN, the statement, COMMIT)."""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Any

from sqlalchemy import Engine


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


def run(cursor: Any, steps: list[tuple[str, list[Any]]]) -> bool:
    """Run a write's steps on a DB-API cursor, in its connection's transaction: the condition, and if it changed a
    row, the statements that follow it; whether it did."""
    (condition, (row,)), *rest = steps
    cursor.execute(condition, row)
    if cursor.rowcount != 1:
        return False
    for sql, rows in rest:
        if len(rows) == 1:
            cursor.execute(sql, rows[0])
        elif rows:
            cursor.executemany(sql, rows)
    return True


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
        self._cursor: Any = None
        """The connection's one cursor, for every batch: a new psycopg cursor starts with empty adaptation caches,
        which costs a statement about a quarter more CPU."""
        self._pid = os.getpid()
        self._statement_alone = engine.dialect.name == "postgresql"
        """Whether a batch of one write of one statement runs in autocommit (:meth:`_alone`)."""

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
            self._connection, self._cursor, self._pid = None, None, os.getpid()
        for _ in range(self.ROUNDS):
            with self._lock:
                batch = self._queue[: self.MAX_BATCH]
                del self._queue[: self.MAX_BATCH]
                if not batch:
                    self._leading = False
                    return
            if self._connection is None:
                try:
                    self._connection, self._cursor = self._engine.raw_connection(), None
                except BaseException as error:
                    for write in batch:
                        write.finish(error)
                    continue
            if not self._write(self._connection, batch):
                connection, self._connection, self._cursor = self._connection, None, None
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

    def _cursor_of(self, connection: Any) -> Any:
        """A cursor of ``connection``: the writer's own one for its own connection."""
        if connection is not self._connection:
            return connection.cursor()
        if self._cursor is None:
            self._cursor = connection.cursor()
        return self._cursor

    def _transaction(self, connection: Any, batch: list[Write]) -> None:
        cursor = self._cursor_of(connection)
        if self._statement_alone and len(batch) == 1 and len(batch[0].steps) == 1:
            self._alone(connection, cursor, batch[0])
            return
        for write in batch:
            write.saved = run(cursor, write.steps)
        connection.commit()

    @staticmethod
    def _alone(connection: Any, cursor: Any, write: Write) -> None:
        """A batch of one write of one statement (PostgreSQL's one-statement advance): the statement is a
        transaction of its own, so it runs in autocommit, without the BEGIN and COMMIT that cost a round trip
        each."""
        driver = connection.driver_connection
        driver.autocommit = True
        try:
            ((sql, (row,)),) = write.steps
            cursor.execute(sql, row)
            write.saved = cursor.rowcount == 1
        finally:
            with contextlib.suppress(Exception):  # a broken connection is invalidated by the caller
                driver.autocommit = False
