"""The archive of finished games whose moves retention deleted (``store/archive.py``,
``SORRY_ARENA_KEEP_MOVES_DAYS``): each such game keeps its row, its seats, its result, ratings and tallies, and here
its record, from which its moves are read again."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, LargeBinary
from sqlalchemy.orm import Mapped, mapped_column

from store.models.base import Base, now


class ArchivedGame(Base):
    """Retention's verdict on one game, the games up to the highest ``game_id`` all judged (the archive's cursor):
    its record, its action rows deleted; or ``record`` ``None``, a game still played long after it began, which
    keeps its action rows for good."""

    __tablename__ = "archived_games"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    record: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    """The game record (``engine/records.py``) as one line of compact JSON (``engine.records.dumps``), exactly as
    the record endpoint answered it when it was archived, compressed with zlib (``store/archivedmoves.py``: a
    record is a fifth of its JSON so; SQLite compresses nothing itself)."""
    details: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """What the record does not carry of its moves: each faulted move's detail, by ply (as text)."""
    archived_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
