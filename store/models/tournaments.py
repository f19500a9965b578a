"""Tournaments: their fixed schedule of games (leased by workers), the results written once, and the rating pools.

A tournament's schedule is fixed at creation (``TournamentGame`` rows, one per game, in play order); an RQ job plays
one of them, leasing it (``lease_until``) so that a game whose worker died is picked up again. A game's result is a
``Result`` row, unique per scheduled game: written once, however many workers tried.
"""

from __future__ import annotations

import secrets
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
    SmallInteger,
    String,
    UniqueConstraint,
    false,
    text,
    true,
)
from sqlalchemy.orm import Mapped, mapped_column

from store.models.base import Base, now


def new_seed_salt() -> str:
    """A run's secret salt (128 bits from ``secrets``), which every game seed of the run hashes in."""
    return secrets.token_hex(16)


class Tournament(Base):
    __tablename__ = "tournaments"
    __table_args__ = (UniqueConstraint("parent_id", "run"),)
    """A later run exists once: of two processes creating it at once (its RQ repeat and the maintenance's recovery),
    one insert fails (``tournament/plans/runs.py``). First runs have no parent: NULLs never collide."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    name: Mapped[str] = mapped_column(String(64))
    game: Mapped[str] = mapped_column(String(16))
    settings: Mapped[dict[str, Any]] = mapped_column(JSON)
    """The game settings, normalized, with ``players`` equal to the table size."""
    variant: Mapped[str] = mapped_column(String(32))
    """The rating pool within the game (``standard``, ``team``, ``points-1972``, ``longer``...)."""
    bot_ids: Mapped[list[int]] = mapped_column(JSON)
    table_size: Mapped[int] = mapped_column(Integer)
    rounds: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(BigInteger)
    seed_salt: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """A secret the server draws (``secrets``) for each run: every game's seed is a hash of the tournament's seed
    and this salt, so a guessable tournament seed gives no game away; shown once the tournament is done. ``None``
    for the tournaments made before it (their game seeds derive from the seed alone)."""
    official: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Made by the operator (``SORRY_ARENA_OPERATOR_TOKEN``): it may seat any bot, and no quota applies."""
    move_timeout_ms: Mapped[int] = mapped_column(Integer)
    rated: Mapped[bool] = mapped_column(Boolean, default=True)
    start_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    repeat_every: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Seconds between runs; each run after the first is a new tournament (``parent_id``) with a new seed."""
    repeat_times: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """How many runs in all, the first included."""
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("tournaments.id"), nullable=True, index=True)
    run: Mapped[int] = mapped_column(Integer, default=1)
    status: Mapped[str] = mapped_column(String(16), index=True)
    """``scheduled`` (waits for its start time), ``running``, ``done`` or ``cancelled`` (by its owner or the
    operator: its games left unplayed, its results out of the rating pools, its later runs never started)."""
    games_total: Mapped[int] = mapped_column(Integer)
    standings: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """The fitted table and head-to-head of the results so far, written by the workers as games finish."""
    standings_through: Mapped[int] = mapped_column(Integer, default=0)
    """How many results ``standings`` counts."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


UNFED = text("status = 'pending' AND NOT fed")
"""The scheduled games not given a job yet: the ones the queue's top-up takes next, a few per running tournament
(``tournament/dispatch/feed.py``), along the partial index ``ix_tournament_games_unfed``."""


class TournamentGame(Base):
    __tablename__ = "tournament_games"
    __table_args__ = (
        UniqueConstraint("tournament_id", "number"),
        Index("ix_tournament_games_unfed", "tournament_id", "number", sqlite_where=UNFED, postgresql_where=UNFED),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    """Position in the play order (0 first)."""
    round: Mapped[int] = mapped_column(Integer)
    bot_ids: Mapped[list[int]] = mapped_column(JSON)
    """The bot of each seat."""
    seed: Mapped[int] = mapped_column(BigInteger)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"), nullable=True, unique=True)
    status: Mapped[str] = mapped_column(String(16), index=True)
    """``pending``, ``running`` (leased by a worker), ``done`` or ``cancelled`` (its tournament was cancelled
    before it finished: never played, or stopped where it was)."""
    fed: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Given a job: games are fed to the queue a few at a time per account (``tournament/dispatch/feed.py``); a pending game
    not fed yet waits its turn in the database and is no lost job."""
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    worker: Mapped[str | None] = mapped_column(String(128), nullable=True)
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


VOID_REASONS = ("excluded", "rejected")
"""Every ``results.void_reason`` (``tournament/play/voids.py`` says when each applies)."""
VOID = text("void_reason IS NOT NULL")
"""The void results, which a tournament's page lists, along the partial index ``ix_results_void``."""


class Result(Base):
    __tablename__ = "results"
    __table_args__ = (
        Index("ix_results_place", "game", "variant", "counted"),
        Index("ix_results_void", "tournament_id", "id", sqlite_where=VOID, postgresql_where=VOID),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    """Increasing in the order results were written: the order of rated games for Elo."""
    tournament_game_id: Mapped[int] = mapped_column(ForeignKey("tournament_games.id"), unique=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), index=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"))
    game: Mapped[str] = mapped_column(String(16))
    variant: Mapped[str] = mapped_column(String(32))
    rated: Mapped[bool] = mapped_column(Boolean)
    """Counted by its rating pool: its tournament is rated and the game is not void."""
    bot_ids: Mapped[list[int]] = mapped_column(JSON)
    version_ids: Mapped[list[int]] = mapped_column(JSON)
    """The version of each seat's bot (``bot_versions.id``) current when the game began: a pool rates versions (0
    at a challenge's person, who is no bot)."""
    ranks: Mapped[list[int]] = mapped_column(JSON)
    """0 is first; equal numbers tie; a forfeiting seat is ranked after every other."""
    reason: Mapped[str] = mapped_column(String(16))
    forfeited: Mapped[list[int]] = mapped_column(JSON)
    """The seats that forfeited (3 faults in a row, or excluded by failed health checks)."""
    faults: Mapped[list[int]] = mapped_column(JSON)
    """Faults per seat."""
    moves: Mapped[int] = mapped_column(Integer)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    counted: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Its place in its pool's running state (the pool's ``counted``-th result: its chart points carry the same
    number), written with the state (``tournament/standings/poolstate.py``); none if the state does not count it."""
    void_reason: Mapped[str | None] = mapped_column(String(32), nullable=True)
    """Why the game is void (``tournament/play/voids.py``: a seat forfeited for a reason on the service's side), or
    ``None``: a void game keeps its row and its game, but no rating, standings, match test or tally counts it."""


TABLE_SIZES = (2, 3, 4)
"""The table sizes a game seats: each has its own rating pool (the Elo scale of a game depends on the seats)."""


class RatingPool(Base):
    """One game, variant and table size's rating pool (the Elo scale depends on the table size: greedy minus random is
    212 / 297 / 320 Elo at 2 / 3 / 4 seats of the board game, so one pool would rate the same code apart by the
    seats it played at): its fitted table over every rated result (``ratings.pool``), refit off
    the game path and kept only if it covers more results than the stored; and the running state the game path
    updates with each result (``counted``, the tallies, each version's incremental Elo and chart points)."""

    __tablename__ = "rating_pools"
    __table_args__ = (UniqueConstraint("game", "variant", "table_size"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(16))
    variant: Mapped[str] = mapped_column(String(32))
    table_size: Mapped[int] = mapped_column(Integer)
    """The seats of every game the pool counts (its tournaments' ``table_size``)."""
    through: Mapped[int] = mapped_column(Integer)
    """The id of the last result the table counts."""
    games: Mapped[int] = mapped_column(Integer)
    """The results the table counts."""
    cancelled: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """How many of the pool's tournaments were cancelled when it was computed: their results are left out, so a
    table read after a cancellation replaces one read before it although it counts fewer games."""
    table: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    counted: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Results the running state counts: the chart's x axis (a result's games-counted is this after it)."""
    rebuild: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """The running state is to be recounted from the results (set by the migration that introduced it and by a
    cancellation); the game path leaves it alone meanwhile."""
    first_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """When the first result counted was written."""
    last_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """When the latest result counted was written."""
    fit_requested_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """When a refit was last asked for (at most one per interval per pool)."""
    forfeits_rated: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    """Whether the table rates the games with a forfeit (``SORRY_ARENA_RATE_FORFEITS`` of the process that fitted
    it): else they are left out of its fit, and counted only in the forfeit rates."""

    @classmethod
    def key(cls, game: str, variant: str, table_size: int) -> tuple[Any, ...]:
        """The conditions that find one pool's row."""
        return (cls.game == game, cls.variant == variant, cls.table_size == table_size)


class RatingTally(Base):
    """How many of a tournament's rated results had one configuration (the versions seated and their ranks): the
    pool's fit reads these aggregated rows, not every result. Counted in the result's transaction."""

    __tablename__ = "rating_tallies"
    __table_args__ = (UniqueConstraint("tournament_id", "config"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"))
    config: Mapped[str] = mapped_column(String(255))
    """``version:rank`` of each seat, sorted, comma-separated (``ratings.tallies.config_key``)."""
    count: Mapped[int] = mapped_column(Integer)


class RatingElo(Base):
    """A bot version's incremental Elo in a pool, updated with each of its results (the chart's latest point)."""

    __tablename__ = "rating_elo"

    pool_id: Mapped[int] = mapped_column(ForeignKey("rating_pools.id"), primary_key=True)
    version_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    """The version's results counted."""
    first: Mapped[int] = mapped_column(Integer)
    """The pool's ``counted`` before its first result."""
    last: Mapped[int] = mapped_column(Integer)
    """The pool's ``counted`` after its latest result."""
    faults: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Its faults in the results counted (``results.faults``, forfeited turns not counted): the standings' column."""


class RatingPoint(Base):
    """A point of a version's chart line: its incremental Elo after its ``number``-th result, the pool's
    ``counted``-th. ``level``: how many times 2 divides ``number``, so that a reader takes every ``2**level``-th point
    of a line by an index range."""

    __tablename__ = "rating_points"
    __table_args__ = (
        Index("ix_rating_points_line", "pool_id", "version_id", "level"),
        Index("ix_rating_points_place", "pool_id", "version_id", "counted"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pool_id: Mapped[int] = mapped_column(ForeignKey("rating_pools.id"))
    version_id: Mapped[int] = mapped_column(Integer)
    number: Mapped[int] = mapped_column(Integer)
    counted: Mapped[int] = mapped_column(Integer)
    rating: Mapped[float] = mapped_column(Float)
    level: Mapped[int] = mapped_column(SmallInteger)
