"""Games: the game row (settings, seed, a snapshot of the state), its seats and the append-only action log.

A game is stored as its settings, seed and action log, plus a snapshot of the engine state (``state``) that makes
loading fast; ``ply`` is the number of actions applied, and the action log's primary key ``(game_id, ply)`` is what
makes exactly one of two concurrent submissions for a ply win. Its events are not stored: they are derived from
the action log (:mod:`store.eventlog`). Every row of these tables is written by :mod:`store.gamelog`, the one
writer of a game.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from store.models.base import Base, now

FAULT_DETAIL_CHARS = 120
"""The characters of a fault's detail kept (a bot's error reply quoted up to that)."""
DEBUG_BYTES = 1024
"""The UTF-8 bytes of a move's debug text kept."""


UNTALLIED = text("NOT tallied")
"""The games not yet folded into their players' tallies (``store/bottallies.py``): the finished ones waiting, and
the few being played."""


FAULTED = text("fault IS NOT NULL AND fault != 'forfeit'")
"""The moves a bot faulted (a ``forfeit`` move, played for a seat already out, is none): the few rows of the
partial index ``ix_actions_faulted``, which a bot's list of faults searches game by game (``store/botfaults.py``)."""


class Game(Base):
    __tablename__ = "games"
    __table_args__ = (
        Index("ix_games_untallied", "status", "id", sqlite_where=UNTALLIED, postgresql_where=UNTALLIED),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(16), index=True)
    settings: Mapped[dict[str, Any]] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(BigInteger)
    seats: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), index=True)
    """``open`` (seats to take), ``active`` or ``over``."""
    ply: Mapped[int] = mapped_column(Integer, default=0)
    state: Mapped[str] = mapped_column(Text)
    """The engine's JSON form of the current state (hidden parts included: never sent as such)."""
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_by: Mapped[int] = mapped_column(ForeignKey("players.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    tallied: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Whether the game, over, is counted in its players' tallies (:class:`BotTally`); only the tallies' fold sets
    it (``store/bottallies.py``)."""


class Seat(Base):
    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("game_id", "seat"), UniqueConstraint("game_id", "player_id"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    taken_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class ActionRecord(Base):
    """One action of a game, named by its game and the ply it answered (no other key: a surrogate id and its
    index were a sixth of a move's bytes)."""

    __tablename__ = "actions"
    __table_args__ = (
        Index("ix_actions_faulted", "game_id", "seat", "ply", sqlite_where=FAULTED, postgresql_where=FAULTED),
    )

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    ply: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    """The ply this action answered (0 for the first action)."""
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(200))
    latency_ms: Mapped[float | None] = mapped_column(Float, nullable=True)
    """How long a push bot took to answer (tournament games)."""
    fault: Mapped[str | None] = mapped_column(String(16), nullable=True)
    """Why the action is the seeded fallback, not the bot's: timeout, connection, status, unparsable, too_large,
    redirect, refused, illegal, forfeit."""
    fault_detail: Mapped[str | None] = mapped_column(String(FAULT_DETAIL_CHARS), nullable=True)
    """What went wrong, in words (a push bot's error reply quoted): its owner's while the game runs, everyone's
    once it is over."""
    debug: Mapped[str | None] = mapped_column(String(DEBUG_BYTES), nullable=True)
    """The bot's own debug text for this move (at most 1 KiB, control characters removed): its owner's while the
    game runs, everyone's once it is over."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
