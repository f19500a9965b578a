"""What every table shares: the declarative base with named constraints, and the clock of stored times."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import MetaData
from sqlalchemy.orm import DeclarativeBase


def now() -> datetime:
    """The time stored in every ``*_at`` column: aware, UTC."""
    return datetime.now(UTC)


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
