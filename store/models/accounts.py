"""Accounts: players (a bearer token each) and bots (an account of their own, registered by an owner).

A bot is registered by its owner (a player) and plays through an account of its own (``player_id``), which holds
its seats in tournament games: a pull bot polls the games API with that account's token, a push bot is called at
its URL.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, DateTime, ForeignKey, Integer, String, false
from sqlalchemy.orm import Mapped, mapped_column

from store.models.base import Base, now


class Player(Base):
    __tablename__ = "players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    """SHA-256 of the bearer token (the token itself is shown once, never stored)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class Bot(Base):
    __tablename__ = "bots"

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
    open_to_others: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Its owner lets other accounts enter it into their tournaments (each game calls its endpoint and moves its
    rating); off by default: only its owner's tournaments, and the operator's official ones, may seat it."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
