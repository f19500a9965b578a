"""Running tallies of finished games (kept by ``store/bottallies.py``): what the bot and tournament pages read
instead of every move of those games."""

from __future__ import annotations

from sqlalchemy import BigInteger, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from store.models.base import Base


class BotTally(Base):
    """A running count of a player's (a bot's account's) finished games, kept by ``store/bottallies.py``: its
    faults by kind (``measure`` ``fault``, ``key`` the kind), its answer times by bucket (``latency``, ``key`` the
    bucket's upper bound in microseconds) and its tournament games and wins by seat (``seat_games``, ``seat_wins``,
    ``key`` the seat)."""

    __tablename__ = "bot_tallies"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)
    measure: Mapped[str] = mapped_column(String(16), primary_key=True)
    key: Mapped[str] = mapped_column(String(24), primary_key=True)
    count: Mapped[int] = mapped_column(BigInteger)


class TournamentFaultTally(Base):
    """A running count of a tournament's faults by player (a bot's account) and kind, over its games with a result,
    kept by ``store/bottallies.py`` with the bots' tallies: the tournament page's table of faults."""

    __tablename__ = "tournament_fault_tallies"

    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)
    fault: Mapped[str] = mapped_column(String(16), primary_key=True)
    count: Mapped[int] = mapped_column(BigInteger)
