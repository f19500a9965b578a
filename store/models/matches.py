"""Matches: bot A against bot B, stopped by a sequential test (``tournament/plans/matches.py``), on paired deals or
independent ones.

A match is a tournament (its schedule, games, leases and results are the tournament's rows) with this row beside it:
the test's settings and its state after the last completed pair (or game), written by the worker that completed it.
Whether its deals are paired is told by its counts, fixed when it is made: 5 (pentanomial, over pairs) on paired
deals, 3 (trinomial, over games) on independent ones (:attr:`Match.paired`). A gauntlet's matches share
``gauntlet_id``; their bounds depend on how many of them accepted H1 (:func:`gauntlet_tally`, Holm's step-down of
``ratings/gauntlet.py``).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, DateTime, Float, ForeignKey, Integer, String, func, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from store.models.base import Base, now


class Match(Base):
    __tablename__ = "matches"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"), unique=True)
    """The tournament that plays the match's games (its ``bot_ids``: A, B, then the fillers)."""
    owner_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    bot_a: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    bot_b: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    fillers: Mapped[list[int]] = mapped_column(JSON)
    """The bots of the other seats of a 3- or 4-seat table (none for 2 seats)."""
    elo0: Mapped[float] = mapped_column(Float)
    elo1: Mapped[float] = mapped_column(Float)
    alpha: Mapped[float] = mapped_column(Float)
    beta: Mapped[float] = mapped_column(Float)
    model: Mapped[str] = mapped_column(String(16))
    """``normalized`` or ``logistic`` (``ratings/sprt.py``)."""
    max_games: Mapped[int] = mapped_column(Integer)
    pairs: Mapped[int] = mapped_column(Integer, default=0)
    """Completed pairs counted in ``counts`` and ``llr`` (0 on independent deals: ``games_counted``)."""
    counts: Mapped[list[int]] = mapped_column(JSON)
    """Pentanomial counts on paired deals: the completed pairs in which A scored 0, 0.5, 1, 1.5 and 2 points against
    B; trinomial counts on independent deals: the games A lost, tied and won against B."""
    llr: Mapped[float] = mapped_column(Float, default=0.0)
    verdict: Mapped[str] = mapped_column(String(16), default="continue")
    """``continue`` while the test goes on; ``H1`` (A is at least ``elo1`` stronger), ``H0`` (at most ``elo0``),
    ``inconclusive`` (``max_games`` played first) or ``cancelled``."""
    games_counted: Mapped[int] = mapped_column(Integer, default=0)
    """Games counted: those of the completed pairs (a pair's first game may be in while its second is not), or
    every game with a result on independent deals."""
    gauntlet_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)
    """A gauntlet's matches (one bot against each of a field) share the id of its first match; ``None`` for a
    match of its own."""
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)

    @property
    def paired(self) -> bool:
        """Whether the two games of each pair share one deal (the same seed): only when every bot seated is the
        account's that made the match (a bot could remember a deal it held, and play its twin knowing the hand of
        the bot in its seat); else every game has a deal of its own."""
        return len(self.counts) == 5


def fresh_counts(paired: bool) -> list[int]:
    """The counts of a new match: 5 pentanomial bins on paired deals, 3 trinomial ones on independent deals."""
    return [0] * (5 if paired else 3)


def gauntlet_tally(session: Session, match: Match) -> tuple[int, int]:
    """``(k, rejected)`` for the bounds of ``match`` (``ratings.gauntlet.gauntlet_bounds``): the matches of its
    gauntlet, and how many of the others accepted H1 (``(1, 0)`` for a match of its own: Wald's bounds). One
    statement, so one snapshot."""
    if match.gauntlet_id is None:
        return 1, 0
    k, rejected = session.execute(
        select(
            func.count(Match.id), func.count(Match.id).filter(Match.verdict == "H1", Match.id != match.id)
        ).where(Match.gauntlet_id == match.gauntlet_id)
    ).one()
    return int(k), min(int(rejected), int(k) - 1)
