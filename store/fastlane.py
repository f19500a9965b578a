"""The fast lane of a move's requests: Core statements compiled once per database dialect and run straight on a
DB-API cursor.

The requests every move makes (a bot's poll and its submission) go through here: Core statements, written with
``select()`` / ``update()`` / ``insert()`` like any other, compiled once per dialect and run on the DB-API cursor of
a pooled connection. SQLAlchemy's per-call execution machinery (a cache key per statement, its result's setup)
costs more than the cursor call itself; a move needs four or five statements. Values go through each column type's
own bind processor, as SQLAlchemy would send them. :class:`Compiled` reads what SQLAlchemy's compiler keeps
privately (the SQL's parameters in the driver's order, their literal values, the columns whose defaults it would
compute): that earned its place by measurement (a pull move through the API costs its process more CPU with
SQLAlchemy's public ``Connection.execute`` on PostgreSQL, by more than the tenth the project asks:
``benchmarks/internals.py database``, docs/performance.md); SQLAlchemy is pinned to the versions tested and
``tests/store/test_fastlane.py`` fails when those internals change. The workers' statements, where it measured no
gain, are plain Core on their session.

A move's write is a transaction of its own. On SQLite it goes through the process's
:class:`store.groupcommit.Writer`, which saves the moves that arrive together in one transaction; on PostgreSQL,
where that measured slower than a transaction per write (``benchmarks/internals.py groupcommit``), it runs on the
lane's own connection. There a write whose condition and one following row have a one-statement form
(:func:`one_statement`: a data-modifying CTE, ``WITH moved AS (UPDATE ... RETURNING ...) INSERT ... SELECT ... FROM
moved``, whose row is inserted only if the UPDATE changed one) runs as that statement, in autocommit: one round
trip to the server, no BEGIN and COMMIT. SQLite (3.35 and later included) has no data-modifying CTE, so there the two
statements run one after the other.

A request's lane only reads besides its write. On PostgreSQL its connection reads in autocommit: each statement is
its own transaction, as READ COMMITTED already gives each statement a snapshot of its own, so no BEGIN and ROLLBACK
round trips; the connection goes back to the pool out of autocommit.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Mapping, Sequence
from typing import Any, cast

from sqlalchemy import BindParameter, Engine
from sqlalchemy.exc import InvalidRequestError
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ClauseElement

from store.database import stale
from store.groupcommit import Write, Writer, run


def param(name: str, type_: Any = None) -> BindParameter[Any]:
    """A named parameter of a fast-lane statement (``lane.execute(statement, {name: value})``); ``type_``: its
    column's type where nothing else in the statement says it (a value selected for an INSERT)."""
    return BindParameter(name, type_=type_, required=True)


_ONE_STATEMENT: dict[tuple[int, int], ClauseElement] = {}
"""(id of a condition, id of a statement that follows it) -> the two as one statement (:func:`one_statement`)."""


def one_statement(condition: ClauseElement, then: ClauseElement, combined: ClauseElement) -> None:
    """Declare ``combined`` the one-statement form of ``condition`` followed by one row of ``then``, for databases
    with data-modifying CTEs: it takes the values of both (a name in both means the same value) and changes one
    row exactly when ``condition`` does. The statements are module constants (they live as long as the process)."""
    _ONE_STATEMENT[id(condition), id(then)] = combined


_GIVEN = object()
"""Marks a parameter whose value each call gives (the others are the statement's own literals)."""


class Compiled:
    """One statement compiled for one dialect: its SQL, and how to turn named values into the driver's."""

    def __init__(self, statement: ClauseElement, engine: Engine) -> None:
        dialect = engine.dialect
        compiled = cast(SQLCompiler, statement.compile(dialect=dialect, for_executemany=True))
        if "POSTCOMPILE" in compiled.string:  # a list as one parameter, which SQLAlchemy expands at each execution
            try:  # a list of literals (``IN ('pending', 'running')``) in a statement of literals only: item by item
                compiled = cast(
                    SQLCompiler,
                    statement.compile(
                        dialect=dialect, for_executemany=True, compile_kwargs={"render_postcompile": True}
                    ),
                )
            except InvalidRequestError:
                raise ValueError(
                    "a list of values as one parameter: give each item its own (fastlane.one_of), or spell the "
                    "list of literals out (a == x OR a == y)"
                ) from None
        missing = [column.name for column in (*compiled.insert_prefetch, *compiled.update_prefetch)]
        if missing:  # SQLAlchemy computes these at each execution, which a driver's call skips
            raise ValueError(f"give every column a value, defaults included: {', '.join(missing)}")
        self.sql = compiled.string
        self.positional = bool(compiled.positional)
        binds = {name: bind for bind, name in compiled.bind_names.items()}
        literals = compiled.params
        """Every parameter as the SQL names it (an item of a list of literals too), with its literal value."""
        self.names = tuple(compiled.positiontup or ()) if self.positional else tuple(literals)
        self._plan: list[tuple[str, Any, Any]] = []
        """Per driver parameter: its name, its value if the statement fixes it (else ``_GIVEN``), the column
        type's bind processor (``None``: the value goes as it is)."""
        for name in self.names:
            bind = binds[name] if name in binds else binds[name.rsplit("_", 1)[0]]  # (an item of a literal list)
            processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if bind.required:
                self._plan.append((name, _GIVEN, processor))
            else:  # a literal of the statement (``Game.status == "active"``): processed once, here
                value = literals[name]
                self._plan.append((name, value if processor is None else processor(value), None))

    def parameters(self, values: Mapping[str, Any]) -> Any:
        row = [
            (values[name] if processor is None else processor(values[name])) if fixed is _GIVEN else fixed
            for name, fixed, processor in self._plan
        ]
        return tuple(row) if self.positional else dict(zip(self.names, row, strict=True))

    def many(self, rows: Sequence[Mapping[str, Any]]) -> list[Any]:
        """:meth:`parameters` of each of ``rows`` (an executemany's): a value the rows share, the very same object
        (a batch's one time), is processed once."""
        shared: dict[str, tuple[Any, Any]] = {}
        made = []
        for values in rows:
            row = []
            for name, fixed, processor in self._plan:
                if fixed is not _GIVEN:
                    row.append(fixed)
                    continue
                value = values[name]
                if processor is not None:
                    seen = shared.get(name)
                    if seen is None or seen[0] is not value:
                        seen = shared[name] = (value, processor(value))
                    value = seen[1]
                row.append(value)
            made.append(tuple(row) if self.positional else dict(zip(self.names, row, strict=True)))
        return made


class Statements:
    """The fast-lane statements of one engine, compiled on first use, and its group-commit writer where it is
    used: ``group_commit``, by default on SQLite only (on PostgreSQL it measured no faster than a transaction per
    write: ``benchmarks/internals.py groupcommit``, docs/performance.md)."""

    def __init__(self, engine: Engine, group_commit: bool | None = None) -> None:
        self.engine = engine
        self.integrity_error: type[Exception] = engine.dialect.dbapi.IntegrityError  # type: ignore[union-attr]
        if group_commit is None:
            group_commit = engine.dialect.name != "postgresql"
        self.writer = Writer(engine) if group_commit else None
        """The process's group commit (``None``: each write a transaction of its own, on the lane's connection)."""
        self.data_modifying_ctes = engine.dialect.name == "postgresql"
        """Whether a write may run as its one-statement form (:func:`one_statement`)."""
        self.autocommit_reads = engine.dialect.name == "postgresql"
        """Whether a lane's connection reads in autocommit."""
        self._compiled: dict[int, tuple[ClauseElement, Compiled]] = {}
        self._lock = threading.Lock()

    def get(self, statement: ClauseElement) -> Compiled:
        found = self._compiled.get(id(statement))
        if found is None:
            with self._lock:
                found = (statement, Compiled(statement, self.engine))  # keeps the statement alive: ids stay unique
                self._compiled[id(statement)] = found
        return found[1]


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
        """Run ``condition`` (a statement and its values), and if it changed a row, each statement of ``then`` with
        each of its rows, in one transaction (through the process's writer, where it has one); whether the condition
        held. A condition and one row with a one-statement form run as that statement where the database allows
        it (without a writer: in the lane's autocommit, a transaction of its own)."""
        get = self.statements.get
        statement, values = condition
        steps: list[tuple[str, list[Any]]] | None = None
        if self.statements.data_modifying_ctes and len(then) == 1 and len(then[0][1]) == 1:
            combined = _ONE_STATEMENT.get((id(statement), id(then[0][0])))
            if combined is not None:
                compiled = get(combined)
                steps = [(compiled.sql, [compiled.parameters({**values, **then[0][1][0]})])]
        if steps is None:
            compiled = get(statement)
            steps = [(compiled.sql, [compiled.parameters(values)])]
            for statement, rows in then:
                compiled = get(statement)
                steps.append((compiled.sql, compiled.many(rows)))
        writer = self.statements.writer
        if writer is not None:
            return writer.save(Write(key, steps))
        connection = self.connection()
        connection.rollback()  # end a read (nothing to end in autocommit)
        driver = connection.driver_connection
        alone = self.statements.autocommit_reads and len(steps) == 1  # in autocommit: a transaction of its own
        if self.statements.autocommit_reads and not alone:
            driver.autocommit = False
        dropped = False
        try:
            saved = run(connection.cursor(), steps)
            if not alone:
                connection.commit()
            return saved
        except BaseException as error:
            with contextlib.suppress(Exception):  # a broken connection: its error is the one raised
                connection.rollback()
            dropped = stale(error)  # it found the database read-only: the next statement takes a new connection
            raise
        finally:
            if dropped:
                self._connection = None
                connection.invalidate()
            elif self.statements.autocommit_reads and not alone:
                driver.autocommit = True

    def connection(self) -> Any:
        if self._connection is None:
            connection: Any = self.statements.engine.raw_connection()
            if self.statements.autocommit_reads:
                connection.driver_connection.autocommit = True
            self._connection = connection
        return self._connection

    def execute(self, statement: ClauseElement, values: Mapping[str, Any] = {}) -> Any:  # never mutated
        """Run a statement; the DB-API cursor (its rows, ``rowcount``)."""
        compiled = self.statements.get(statement)
        cursor = self.connection().cursor()
        cursor.execute(compiled.sql, compiled.parameters(values))
        return cursor

    def scalar(self, statement: ClauseElement, values: Mapping[str, Any] = {}) -> Any:
        """The first column of the first row (``None`` without a row)."""
        row = self.execute(statement, values).fetchone()
        return None if row is None else row[0]

    def rollback(self) -> None:
        """End the transaction (a read's on SQLite; nothing to end in PostgreSQL's autocommit)."""
        if self._connection is not None:
            self._connection.rollback()

    def release(self) -> None:
        """Give the connection back to the pool now (before a long wait); the next statement takes one again."""
        if self._connection is not None:
            connection, self._connection = self._connection, None
            if self.statements.autocommit_reads:
                try:
                    connection.driver_connection.autocommit = False  # the pool's other users open transactions
                except Exception:  # broken (its error went to the statement that found it): not for the pool
                    connection.invalidate()
                    return
            connection.close()
