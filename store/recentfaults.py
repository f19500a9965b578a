"""A bot's faults and forfeits in its last finished tournament games (the health line of its page and of
``GET /api/v1/bots/{id}``): read along indexes only, whatever the bot's history: its seats newest first
(``seats.player_id``), each game's scheduled game (``tournament_games.game_id``) and result
(``results.tournament_game_id``). A void game (forfeited for a reason on the service's side) is left out."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from store.models import Result, Seat, TournamentGame

RECENT = 20
"""The games the summary counts."""


@dataclass(frozen=True)
class RecentFaults:
    games: int
    """The finished games counted (at most :data:`RECENT`)."""
    faults: int
    """The bot's faults in them."""
    forfeits: int
    """The games among them that it forfeited."""

    @property
    def clean(self) -> bool:
        return self.faults == 0 and self.forfeits == 0


def recent_faults(session: Session, player_id: int, games: int = RECENT) -> RecentFaults:
    """The faults and forfeits of the bot whose account is ``player_id`` in its last ``games`` finished games."""
    rows = session.execute(
        select(Seat.seat, Result.faults, Result.forfeited)
        .join(TournamentGame, TournamentGame.game_id == Seat.game_id)
        .join(Result, Result.tournament_game_id == TournamentGame.id)
        .where(Seat.player_id == player_id, Result.void_reason.is_(None))
        .order_by(Seat.id.desc())
        .limit(games)
    ).all()
    faults = sum(int(counts[seat]) for seat, counts, _ in rows if seat < len(counts))
    forfeits = sum(1 for seat, _, forfeited in rows if seat in forfeited)
    return RecentFaults(len(rows), faults, forfeits)
