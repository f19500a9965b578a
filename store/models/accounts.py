"""Accounts: players (a bearer token each) and bots (an account of their own, registered by an owner).

A bot is registered by its owner (a player) and plays through an account of its own (``player_id``), which holds
its seats in tournament games: a pull bot polls the games API with that account's token, a push bot is called at
its URL. The names of the active bots are unique. A bot has versions (``BotVersion``): the first at registration, a
new one for each new URL or new code its owner declares; each version is rated on its own.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, DateTime, ForeignKey, Index, Integer, String, UniqueConstraint, false, text
from sqlalchemy.orm import Mapped, mapped_column

from store.models.base import Base, now


class Player(Base):
    __tablename__ = "players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    """SHA-256 of the bearer token (the token itself is shown once, never stored)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    disabled: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Disabled by the operator (``service/adminpowers.py``): its token is refused (a 403 that says so), and a bot
    whose own account is disabled forfeits every new game from its start."""
    operator: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """The operator's account: bound to the current ``SORRY_ARENA_OPERATOR_TOKEN`` (``service/auth.py``), so that
    a rotated token's predecessor is refused."""


class Bot(Base):
    __tablename__ = "bots"
    __table_args__ = (
        Index(
            "uq_bots_active_name",
            "name",
            unique=True,
            sqlite_where=text("active"),
            postgresql_where=text("active"),
        ),
    )
    """Two active bots never share a name (a deleted bot's name is free again)."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), unique=True)
    """The bot's own account: it holds the bot's seats (and is a pull bot's token)."""
    name: Mapped[str] = mapped_column(String(64))
    url: Mapped[str | None] = mapped_column(String(2048), nullable=True)
    """The push endpoint's base URL; ``None`` for a pull bot."""
    games: Mapped[list[str]] = mapped_column(JSON)
    secret: Mapped[str] = mapped_column(String(128))
    """The HMAC key of the requests sent to the bot (kept: the service signs with it)."""
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    """``False`` once deleted: its past games stay rated, it joins no new tournament."""
    failed_checks: Mapped[int] = mapped_column(Integer, default=0)
    """Consecutive failed health checks."""
    passed_checks: Mapped[int] = mapped_column(Integer, default=0)
    """Consecutive passed health checks."""
    excluded: Mapped[bool] = mapped_column(Boolean, default=False)
    """Set after 3 failed checks in a row, cleared after 2 passed: an excluded bot forfeits new games."""
    checked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    check_failure: Mapped[str | None] = mapped_column(String(400), nullable=True)
    """Why its last health check failed, in words its owner can act on (never the bot's reply); ``None`` after a
    pass."""
    protocol: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The push protocol version its requests are signed in, as its proof or last health check found it
    (``botlink/protocols.py``); ``None``: not known yet (a pull bot, or a bot registered before the versions were
    negotiated: its next game checks its health first)."""
    paused: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Paused by the operator: it enters no new tournament and forfeits every new game from its start (as an
    excluded bot does) until unpaused."""
    open_to_others: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Its owner lets other accounts enter it into their tournaments (each game calls its endpoint and moves its
    rating); off by default: only its owner's tournaments, and the operator's official ones, may seat it."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class BotVersion(Base):
    """A version of a bot: the code behind it from ``created_at`` until the next version. Number 1 is made at
    registration; a new URL, or new code its owner declares (``PATCH /bots/{id}`` ``new_version``), makes the next.
    A game is played by the versions current when it began (``Result.version_ids``), and each version has its own
    rating in a pool."""

    __tablename__ = "bot_versions"
    __table_args__ = (UniqueConstraint("bot_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    """1, 2, ... per bot."""
    url: Mapped[str | None] = mapped_column(String(2048), nullable=True)
    """The push endpoint of this version (``None``: a pull bot)."""
    note: Mapped[str | None] = mapped_column(String(200), nullable=True)
    """What changed, in the owner's words."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
