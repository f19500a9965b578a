"""What every table shares: the declarative base with named constraints, and the clock of stored times.

Every stored time is aware and in UTC, written and read alike on both databases: each ``DateTime(timezone=True)``
column of a model is a :class:`UTCDateTime` (:class:`Base` makes it so as each model is declared, so a model
spells its columns as SQLAlchemy does, and ``Mapped[datetime]`` without a type gets one too). The database type
stays ``DateTime(timezone=True)``: PostgreSQL's ``timestamp with time zone``, SQLite's ``DATETIME`` (text without
a zone), so the migrations and ``sorry-arena db check`` see no difference; a new migration spells such a column
``sa.DateTime(timezone=True)``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import DateTime, Dialect, MetaData, Table
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.types import TypeDecorator


def now() -> datetime:
    """The time stored in every ``*_at`` column: aware, UTC."""
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """``moment`` as an aware UTC datetime; a naive one is taken to be UTC already (how the store writes)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A ``DateTime(timezone=True)`` column whose values are aware UTC datetimes both ways.

    Written: converted to UTC (SQLite's DATETIME keeps no zone: a time in another zone would be stored as its
    wall-clock reading); a naive time is taken to be UTC. Read: SQLite's naive text is tagged UTC, PostgreSQL's
    time in the session's zone converted to UTC, so an answer says ``+00:00`` on both.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else as_utc(value)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else as_utc(value)


class Base(DeclarativeBase):
    # named constraints, so that later migrations can alter them on every database (SQLite included)
    metadata = MetaData(
        naming_convention={
            "ix": "ix_%(column_0_label)s",
            "uq": "uq_%(table_name)s_%(column_0_N_name)s",
            "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
            "pk": "pk_%(table_name)s",
        }
    )
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: UTCDateTime}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Declare the model (SQLAlchemy's work), then make each of its ``DateTime(timezone=True)`` columns a
        :class:`UTCDateTime`: same database type, aware UTC values."""
        super().__init_subclass__(**kwargs)
        table = cls.__dict__.get("__table__")
        if isinstance(table, Table):
            for column in table.columns:
                if isinstance(column.type, DateTime) and column.type.timezone:
                    column.type = UTCDateTime()
