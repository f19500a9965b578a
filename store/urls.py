"""Database URLs, without SQLAlchemy: the default database and a driverless PostgreSQL URL pointed at psycopg 3.

The engine (``store.database``), the migrations, the settings and the command line's parsers all read them here;
the parsers load no SQLAlchemy (``sorry-arena --help`` and a usage error start at once), so this module imports
nothing but the standard library.
"""

from __future__ import annotations

DEFAULT_DATABASE_URL = "sqlite:///sorry-arena.db"


def normalize_database_url(url: str) -> str:
    """Point a driverless PostgreSQL URL at psycopg 3 (SQLAlchemy's own default would be psycopg2)."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url.removeprefix(prefix)
    return url
