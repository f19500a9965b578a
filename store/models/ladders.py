"""Ladders: continuous rated arenas, where a bot plays whenever it is idle and under its hourly budget.

A ladder is a tournament that never completes (its games, leases, results, voids and fair dispatch are a
tournament's rows and machinery) with this row beside it: the budget of games per bot per hour and the most games it
has in play at once. Its games are not laid out in advance: matchmaking (``tournament/plans/ladders.py``) appends
them to the tournament's schedule as bots fall idle, one :class:`LadderGame` and a :class:`LadderSeat` per seat
beside each. Each bot in the ladder is a :class:`LadderEntry`, with its incremental rating (Weng-Lin, ``ratings.wenglin``)
updated in the transaction of each of its results, which chooses its games; :class:`LadderPoint` keeps that rating's
history and :class:`LadderPair` how often two bots met (matchmaking prefers the pairs that met least). The standings
show the ladder's fit of its results (``Ladder.standings``), refit off the game path at most every few seconds.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, DateTime, Float, ForeignKey, Index, Integer, String, false, text
from sqlalchemy.orm import Mapped, mapped_column

from store.models.base import Base, now

IDLE = text("busy = 0 AND NOT paused AND left_at IS NULL")
"""An entry matchmaking may take (when its ``free_at`` is past): in the ladder, not paused, in no game; the predicate
of the partial index ``ix_ladder_entries_fewest``, which holds them by their games, then the time they fell idle."""
UNSETTLED = text("NOT settled")
"""A ladder game made and not settled (in play, or waiting for a worker): ``ix_ladder_games_unsettled``."""


class Ladder(Base):
    __tablename__ = "ladders"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"), unique=True)
    """The tournament whose schedule holds the ladder's games (its owner, name, game, variant, settings, table size,
    move timeout, seed and ``rated`` are the ladder's)."""
    budget_per_hour: Mapped[int] = mapped_column(Integer)
    """The most games a bot of the ladder begins in any hour."""
    max_in_play: Mapped[int] = mapped_column(Integer)
    """The most games of the ladder made and not finished at once: its share of the workers."""
    status: Mapped[str] = mapped_column(String(16), index=True)
    """``open`` (matchmaking makes games) or ``closed`` (no new game; those in play finish)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    rated: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Its results rated (not void), counted with each (``tournament/standings/ladderstate.py``)."""
    standings: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """The fit of its rated results (``tournament/standings/ladderfit.py``): what the standings show."""
    fitted: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """How many rated results ``standings`` counts."""
    fit_requested_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """When its fit was last asked for (at most one per interval)."""


class LadderEntry(Base):
    """A bot in a ladder: whether it is matched now, its rating (of its current version) and its budget's state."""

    __tablename__ = "ladder_entries"
    __table_args__ = (
        Index("ix_ladder_entries_rating", "ladder_id", "mu"),
        Index(
            "ix_ladder_entries_fewest", "ladder_id", "games", "free_at", sqlite_where=IDLE, postgresql_where=IDLE
        ),
    )

    ladder_id: Mapped[int] = mapped_column(ForeignKey("ladders.id", ondelete="CASCADE"), primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), primary_key=True)
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    left_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """When it left (it keeps its row, its rating shown greyed); ``None`` while it is in."""
    paused: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """No game is made for it (the one it plays finishes)."""
    pause_reason: Mapped[str | None] = mapped_column(String(255), nullable=True)
    """Why it is paused, in words for its owner: by its owner, by the operator, or automatically after a streak of
    games with faults."""
    paused_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    version_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The bot version the rating is of (``None`` before its first game)."""
    prior_version_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The version whose rating the current one started from, as its prior (a new version of the bot)."""
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """The current version's rated games in the ladder."""
    seat_counts: Mapped[list[int]] = mapped_column(JSON)
    """How many of its games it began in each seat (matchmaking seats a bot where it sat least)."""
    busy: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Its games made and not finished (matchmaking makes one only for a bot at 0)."""
    free_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    """When it is under its hourly budget again, or fell idle (its last game settled), whichever is later:
    matchmaking takes the idle entry whose ``free_at`` is oldest first."""
    fault_streak: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Its games in a row with a fault or a forfeit of its own."""
    last_game_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """When its latest game was rated."""
    fitted_rating: Mapped[float | None] = mapped_column(Float, nullable=True)
    """Its current version's rating in the ladder's fit (``Ladder.standings``): what the standings show and sort by;
    ``None`` until a fit counts that version."""
    fitted_low: Mapped[float | None] = mapped_column(Float, nullable=True)
    fitted_high: Mapped[float | None] = mapped_column(Float, nullable=True)


class LadderGame(Base):
    """One game a ladder made: its scheduled game, when it was made, and whether its result was rated here."""

    __tablename__ = "ladder_games"
    __table_args__ = (
        Index("ix_ladder_games_made", "ladder_id", "made_at"),
        Index("ix_ladder_games_unsettled", "ladder_id", sqlite_where=UNSETTLED, postgresql_where=UNSETTLED),
    )

    tournament_game_id: Mapped[int] = mapped_column(
        ForeignKey("tournament_games.id", ondelete="CASCADE"), primary_key=True
    )
    ladder_id: Mapped[int] = mapped_column(ForeignKey("ladders.id", ondelete="CASCADE"))
    made_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    bot_ids: Mapped[list[int]] = mapped_column(JSON)
    settled: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Its end was counted: its bots freed, and (a rated result) their ratings updated; exactly once."""


class LadderSeat(Base):
    """A bot's seat in a ladder game, by when it was made: its budget (games begun in the last hour) and its games
    today are counts of these along ``ix_ladder_seats_made``."""

    __tablename__ = "ladder_seats"
    __table_args__ = (Index("ix_ladder_seats_made", "ladder_id", "bot_id", "made_at"),)

    tournament_game_id: Mapped[int] = mapped_column(
        ForeignKey("tournament_games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    ladder_id: Mapped[int] = mapped_column(ForeignKey("ladders.id", ondelete="CASCADE"))
    bot_id: Mapped[int] = mapped_column(Integer)
    made_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class LadderPair(Base):
    """How many ladder games two bots were made to play together (``low < high``)."""

    __tablename__ = "ladder_pairs"

    ladder_id: Mapped[int] = mapped_column(ForeignKey("ladders.id", ondelete="CASCADE"), primary_key=True)
    low: Mapped[int] = mapped_column(Integer, primary_key=True)
    high: Mapped[int] = mapped_column(Integer, primary_key=True)
    games: Mapped[int] = mapped_column(Integer, default=0)


class LadderPoint(Base):
    """A point of a bot's rating line in a ladder: after its ``number``-th rated game there (counted over all its
    versions), of version ``version_id``."""

    __tablename__ = "ladder_points"

    ladder_id: Mapped[int] = mapped_column(ForeignKey("ladders.id", ondelete="CASCADE"), primary_key=True)
    bot_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    version_id: Mapped[int] = mapped_column(Integer)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
