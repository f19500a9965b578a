"""The database reads of the pages' lists: games, tournaments, a tournament's games and a game's players, each one
page at a time (``PAGE_SIZE`` rows) so that no page reads more than it shows.

The games, the one list that grows with every game played, page by keyset: a page is the games before a game id
(``before``), newest first, read along the primary key, with one row more than shown to tell whether an older
page exists; nothing counts the table (``benchmarks/games_page.py``: the first and a deep page of a million games
alike)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, load_only

from store.models import Bot, Game, Player, Result, Seat, Tournament, TournamentGame

PAGE_SIZE = 50
"""Rows per page of a list."""


def pages(count: int, size: int = PAGE_SIZE) -> int:
    return max(1, math.ceil(count / size))


def seat_names(session: Session, game_ids: list[int]) -> dict[int, dict[int, str]]:
    """Per game, the name of the player in each taken seat."""
    if not game_ids:
        return {}
    rows = session.execute(
        select(Seat.game_id, Seat.seat, Player.name)
        .join(Player, Player.id == Seat.player_id)
        .where(Seat.game_id.in_(game_ids))
    )
    names: dict[int, dict[int, str]] = {game_id: {} for game_id in game_ids}
    for game_id, seat, name in rows:
        names[game_id][seat] = name
    return names


@dataclass
class GameLine:
    game: Game
    players: list[str]


LISTED = (Game.id, Game.game, Game.status, Game.seats, Game.ply, Game.created_at)
"""The columns of a game a list shows (never its state, the largest)."""


def games_page(
    session: Session, before: int | None = None, size: int = PAGE_SIZE
) -> tuple[list[GameLine], int | None]:
    """The ``size`` games before the game id ``before`` (default: the newest), newest first, and the ``before`` of
    the next, older page (``None``: there is none)."""
    query = select(Game).options(load_only(*LISTED)).order_by(Game.id.desc()).limit(size + 1)
    if before is not None:
        query = query.where(Game.id < before)
    games = list(session.scalars(query))
    older = games[size - 1].id if len(games) > size else None
    games = games[:size]
    names = seat_names(session, [game.id for game in games])
    lines = [GameLine(game, [names[game.id].get(seat, "—") for seat in range(game.seats)]) for game in games]
    return lines, older


@dataclass
class TournamentLine:
    tournament: Tournament
    done: int


def tournaments_page(session: Session, page: int, size: int = PAGE_SIZE) -> tuple[list[TournamentLine], int]:
    """One page of tournaments, newest first, with their games done, and the number of pages."""
    count = session.scalar(select(func.count(Tournament.id))) or 0
    tournaments = list(
        session.scalars(select(Tournament).order_by(Tournament.id.desc()).offset((page - 1) * size).limit(size))
    )
    done = done_counts(session, [tournament.id for tournament in tournaments])
    return [TournamentLine(tournament, done.get(tournament.id, 0)) for tournament in tournaments], pages(
        count, size
    )


def done_counts(session: Session, tournament_ids: list[int]) -> dict[int, int]:
    if not tournament_ids:
        return {}
    rows = session.execute(
        select(Result.tournament_id, func.count(Result.id))
        .where(Result.tournament_id.in_(tournament_ids))
        .group_by(Result.tournament_id)
    )
    return {tournament_id: int(count) for tournament_id, count in rows}


def bot_names(session: Session, bot_ids: list[int]) -> dict[int, str]:
    if not bot_ids:
        return {}
    return {bot_id: name for bot_id, name in session.execute(select(Bot.id, Bot.name).where(Bot.id.in_(bot_ids)))}


@dataclass
class ScheduledLine:
    number: int
    round: int
    bot_ids: list[int]
    status: str
    """``pending``, ``running``, ``done``, ``cancelled``, or ``void`` (its result written void)."""
    game_id: int | None
    result: dict[str, Any] | None
    """ranks, reason, forfeited, faults, moves, void_reason: once the game's result is written."""


def tournament_games(session: Session, tournament: Tournament, page: int) -> tuple[list[ScheduledLine], int]:
    """One page of the tournament's games in play order, with their results, and the number of pages."""
    rows = session.execute(
        select(TournamentGame, Result)
        .outerjoin(Result, Result.tournament_game_id == TournamentGame.id)
        .where(TournamentGame.tournament_id == tournament.id)
        .order_by(TournamentGame.number)
        .offset((page - 1) * PAGE_SIZE)
        .limit(PAGE_SIZE)
    ).all()
    lines = [
        ScheduledLine(
            scheduled.number,
            scheduled.round,
            list(scheduled.bot_ids),
            scheduled.status if result is None else "done" if result.void_reason is None else "void",
            scheduled.game_id,
            None
            if result is None
            else {
                "ranks": result.ranks,
                "reason": result.reason,
                "forfeited": result.forfeited,
                "faults": result.faults,
                "moves": result.moves,
                "void_reason": result.void_reason,
            },
        )
        for scheduled, result in rows
    ]
    return lines, pages(tournament.games_total)


VOID_SHOWN = 100
"""The void games a tournament's page lists (the first in play order; the count says how many in all)."""


@dataclass
class VoidLine:
    number: int
    game_id: int
    bot_ids: list[int]
    forfeited: list[int]
    void_reason: str


def void_games(session: Session, tournament_id: int) -> tuple[list[VoidLine], int]:
    """The tournament's void games (``tournament/play/voids.py``), the first :data:`VOID_SHOWN` in play order, and
    how many there are, along the partial index of void results."""
    void = (Result.tournament_id == tournament_id, Result.void_reason.is_not(None))
    count = session.scalar(select(func.count(Result.id)).where(*void)) or 0
    if not count:
        return [], 0
    rows = session.execute(
        select(TournamentGame.number, Result.game_id, Result.bot_ids, Result.forfeited, Result.void_reason)
        .join(TournamentGame, TournamentGame.id == Result.tournament_game_id)
        .where(*void)
        .order_by(TournamentGame.number)
        .limit(VOID_SHOWN)
    ).all()
    lines = [
        VoidLine(number, game_id, list(bots), list(gone), str(reason))
        for number, game_id, bots, gone, reason in rows
    ]
    return lines, int(count)


def tournament_of_game(session: Session, game_id: int) -> int | None:
    return session.scalar(select(TournamentGame.tournament_id).where(TournamentGame.game_id == game_id))
