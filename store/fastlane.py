"""The fast lane: Core statements compiled once per database dialect and run straight on a DB-API cursor.

The requests every move makes (a bot's poll and its submission) and the game log's writes go through here: Core
statements, written with ``select()`` / ``update()`` / ``insert()`` like any other, compiled once per dialect and
run on the DB-API cursor of a pooled connection. SQLAlchemy's per-call execution machinery costs about 60 us a
statement on a 2-core machine, six times the cursor call itself; a move needs four or five statements. Values go
through each column type's own bind processor, as SQLAlchemy would send them. A move's writes go through the
process's :class:`store.groupcommit.Writer`, which saves the moves that arrive together in one transaction.

On PostgreSQL a write whose condition and one following row have a one-statement form (:func:`one_statement`: a
data-modifying CTE, ``WITH moved AS (UPDATE ... RETURNING ...) INSERT ... SELECT ... FROM moved``, whose row is
inserted only if the UPDATE changed one) runs as that statement: one round trip to the server instead of two.
SQLite (3.35 and later included) has no data-modifying CTE, so there the two statements run one after the other.

A request's lane only reads (its writes go through the writer). On PostgreSQL its connection reads in autocommit:
each statement is its own transaction, as READ COMMITTED already gives each statement a snapshot of its own, so
no BEGIN and ROLLBACK round trips; the connection goes back to the pool out of autocommit.

A worker's statements of a game (its lease, its start and its end, its result) run the same way on the connection
of the worker's session, in the session's transaction (:func:`execute`, :func:`rows`, :func:`first`): the rows a
statement returns come back processed by their columns' types, as SQLAlchemy would give them (JSON decoded,
times as aware UTC datetimes), at a fraction of an ORM statement's cost.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any, cast

from sqlalchemy import BindParameter, ColumnElement, CursorResult, Engine
from sqlalchemy.exc import InvalidRequestError
from sqlalchemy.orm import InstrumentedAttribute, Session
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ClauseElement

from store.groupcommit import Write, Writer


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
        self._results = tuple(
            column.type.dialect_impl(dialect).result_processor(dialect, None)
            for column in compiled._result_columns  # what a SELECT or a RETURNING gives, in order
        )
        """Per column of a returned row, its type's result processor (``None``: the driver's value as it is)."""

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

    def row(self, raw: Sequence[Any]) -> tuple[Any, ...]:
        """A row the driver returned, each value as its column's type reads it."""
        return tuple(
            value if processor is None else processor(value)
            for value, processor in zip(raw, self._results, strict=True)
        )


_BY_DIALECT: dict[tuple[int, str, str, str], tuple[ClauseElement, Compiled]] = {}
_BY_DIALECT_LOCK = threading.Lock()


def compiled(statement: ClauseElement, engine: Engine) -> Compiled:
    """``statement`` (a module constant) compiled for ``engine``'s dialect and driver, once per process: for a
    session's own connection (``exec_driver_sql``), as :class:`Statements` compiles it for a lane."""
    dialect = engine.dialect
    key = (id(statement), dialect.name, dialect.driver, dialect.paramstyle)
    found = _BY_DIALECT.get(key)
    if found is None:
        with _BY_DIALECT_LOCK:
            found = (statement, Compiled(statement, engine))  # keeps the statement alive: ids stay unique
            _BY_DIALECT[key] = found
    return found[1]


def execute(session: Session, statement: ClauseElement, values: Mapping[str, Any] = {}) -> CursorResult[Any]:
    """Run ``statement`` (a module constant, :func:`param` for each value) with ``values`` on the session's
    connection, in its transaction (the caller commits): compiled once per database, its values processed by their
    columns' types, no ORM. The driver's result (``rowcount``; rows unprocessed: :func:`rows` processes them)."""
    connection = session.connection()
    found = compiled(statement, connection.engine)
    return connection.exec_driver_sql(found.sql, found.parameters(values))


def executemany(session: Session, statement: ClauseElement, rows: Sequence[Mapping[str, Any]]) -> None:
    """:func:`execute` once per row of values, as one call to the driver."""
    if rows:
        connection = session.connection()
        found = compiled(statement, connection.engine)
        connection.exec_driver_sql(found.sql, found.many(rows))


def rows(session: Session, statement: ClauseElement, values: Mapping[str, Any] = {}) -> list[tuple[Any, ...]]:
    """The rows ``statement`` returns (:func:`execute`), each value as its column's type reads it."""
    connection = session.connection()
    found = compiled(statement, connection.engine)
    return [found.row(raw) for raw in connection.exec_driver_sql(found.sql, found.parameters(values))]


def first(session: Session, statement: ClauseElement, values: Mapping[str, Any] = {}) -> tuple[Any, ...] | None:
    """The first row ``statement`` returns (:func:`rows`), or ``None``."""
    connection = session.connection()
    found = compiled(statement, connection.engine)
    raw = connection.exec_driver_sql(found.sql, found.parameters(values)).fetchone()
    return None if raw is None else found.row(raw)


def one_of(column: ColumnElement[Any] | InstrumentedAttribute[Any], name: str, size: int) -> ColumnElement[bool]:
    """``column IN (:name0, ..., :name{size-1})``: a list of up to ``size`` values as parameters of a compiled
    statement (:func:`listed` gives their values)."""
    return column.in_([param(f"{name}{place}") for place in range(size)])


def listed(name: str, values: Sequence[Any], size: int) -> dict[str, Any]:
    """The parameters of :func:`one_of` for ``values`` (1 to ``size`` of them; the first repeated in the places
    left, which changes nothing in an ``IN``)."""
    if not 0 < len(values) <= size:
        raise ValueError(f"{name}: 1 to {size} values, not {len(values)}")
    padded = [*values, *[values[0]] * (size - len(values))]
    return {f"{name}{place}": value for place, value in enumerate(padded)}


class Statements:
    """The fast-lane statements of one engine, compiled on first use, and its writer."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.integrity_error: type[Exception] = engine.dialect.dbapi.IntegrityError  # type: ignore[union-attr]
        self.writer = Writer(engine)
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
        """Through the process's writer: run ``condition`` (a statement and its values), and if it changed a row,
        each statement of ``then`` with each of its rows, in one transaction; whether the condition held. A
        condition and one row with a one-statement form run as that statement where the database allows it."""
        get = self.statements.get
        statement, values = condition
        if self.statements.data_modifying_ctes and len(then) == 1 and len(then[0][1]) == 1:
            combined = _ONE_STATEMENT.get((id(statement), id(then[0][0])))
            if combined is not None:
                compiled = get(combined)
                steps = [(compiled.sql, [compiled.parameters({**values, **then[0][1][0]})])]
                return self.statements.writer.save(Write(key, steps))
        compiled = get(statement)
        steps = [(compiled.sql, [compiled.parameters(values)])]
        for statement, rows in then:
            compiled = get(statement)
            steps.append((compiled.sql, compiled.many(rows)))
        return self.statements.writer.save(Write(key, steps))

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
