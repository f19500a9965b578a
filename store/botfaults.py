"""A bot's faults, move by move, as its owner and everyone else may read them.

A fault is a move of the bot's seat that the game's seeded fallback played instead (``actions.fault``; a
``forfeit`` move, played for a seat that had already forfeited, is no answer of the bot and is not listed). Its
kind, latency and detail, and the bot's debug text of that move, are its owner's while the game runs and
everyone's once the game is over (the rule of the game records, ``store/gamerecords.py``): ``owner=False`` lists
the faults of finished games only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, and_, func, select, text
from sqlalchemy.orm import Session

from store.models import ActionRecord, Game, Seat

FAULTED = text("actions.fault IS NOT NULL AND actions.fault != 'forfeit'")
"""A faulted move of the bot, spelled as the predicate of the partial index ``ix_actions_faulted`` (a literal, not a
bound ``'forfeit'``, which PostgreSQL's generic plans could not match to it), so that both planners look each game
of the bot up in that index instead of reading all of the game's moves."""


@dataclass(frozen=True)
class Fault:
    """One faulted move of the bot."""

    game_id: int
    game_status: str
    ply: int
    seat: int
    fault: str | None
    """Never ``None`` here (the kind of fault); typed as its column."""
    detail: str | None
    latency_ms: float | None
    debug: str | None
    at: datetime


def _faults(player_id: int, owner: bool, game_id: int | None) -> Select[int, int]:
    """The ``(game_id, ply)`` of the bot's faulted moves that the caller may see (the bot's account:
    ``player_id``)."""
    query = (
        select(ActionRecord.game_id, ActionRecord.ply)
        .join(Seat, and_(Seat.game_id == ActionRecord.game_id, Seat.seat == ActionRecord.seat))
        .where(Seat.player_id == player_id, FAULTED)
    )
    if game_id is not None:
        query = query.where(ActionRecord.game_id == game_id)
    if not owner:
        query = query.join(Game, Game.id == ActionRecord.game_id).where(Game.status == "over")
    return query


def count(session: Session, player_id: int, owner: bool, game_id: int | None = None) -> int:
    """How many faults of the bot the caller may see."""
    return session.scalar(select(func.count()).select_from(_faults(player_id, owner, game_id).subquery())) or 0


def page(
    session: Session, player_id: int, owner: bool, offset: int, limit: int, game_id: int | None = None
) -> list[Fault]:
    """The bot's faults that the caller may see, newest first (by game, then ply), ``limit`` from ``offset``."""
    ids = _faults(player_id, owner, game_id).subquery()
    rows = session.execute(
        select(
            ActionRecord.game_id,
            Game.status,
            ActionRecord.ply,
            ActionRecord.seat,
            ActionRecord.fault,
            ActionRecord.fault_detail,
            ActionRecord.latency_ms,
            ActionRecord.debug,
            ActionRecord.created_at,
        )
        .join(ids, and_(ids.c.game_id == ActionRecord.game_id, ids.c.ply == ActionRecord.ply))
        .join(Game, Game.id == ActionRecord.game_id)
        .order_by(ActionRecord.game_id.desc(), ActionRecord.ply.desc())
        .offset(offset)
        .limit(limit)
    )
    return [Fault(*row) for row in rows]
