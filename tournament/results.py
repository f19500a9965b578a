"""Results: a finished scheduled game's result, written once, and the tournament marked done when all are in.

The result is a row unique per scheduled game: written once, whoever tries again (a resumed game, a second worker);
never for a game whose tournament was cancelled meanwhile. A rated result is counted in its pool's running state
in the same transaction (``tournament/poolstate.py``). A cancelled tournament is never marked done. It records
the version of each seat's bot that played: the latest one made before the game began (a version made while a game
runs plays from the next game on).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from store.challenges import HUMAN
from store.models import BotVersion, Game, Result, Tournament, TournamentGame, now
from store.models.base import as_utc
from tournament import poolstate
from tournament.leases import Cancelled


def unfinished_tournaments(session: Session, before: datetime) -> list[int]:
    """Running tournaments with every result written (the last before ``before``) yet not done: the worker that
    wrote the last result failed before it refreshed the standings or marked the tournament done."""
    return list(
        session.scalars(
            select(Tournament.id)
            .join(Result, Result.tournament_id == Tournament.id)
            .where(Tournament.status == "running")
            .group_by(Tournament.id, Tournament.games_total)
            .having(func.count(Result.id) >= Tournament.games_total, func.max(Result.finished_at) < before)
        )
    )


def finish(
    session: Session, tournament: Tournament, scheduled: TournamentGame, game: Game, outcome: dict[str, Any]
) -> bool:
    """Write the result of ``game`` (once: ``False`` if it was already written) and mark the scheduled game done;
    ``Cancelled`` if its tournament was cancelled (nothing written)."""
    marked = session.execute(
        update(TournamentGame)
        .where(TournamentGame.id == scheduled.id, TournamentGame.status != "cancelled")
        .values(status="done", lease_until=None)
    )
    if not marked.rowcount:  # type: ignore[attr-defined]
        session.rollback()
        raise Cancelled(f"scheduled game {scheduled.id}: its tournament was cancelled before its result")
    version_ids, finished_at = versions_playing(session, scheduled.bot_ids, game.created_at), now()
    try:
        counted = None
        if tournament.rated:  # its pool's running state counts it in the same transaction
            counted = poolstate.record(
                session,
                tournament.id,
                tournament.game,
                tournament.variant,
                version_ids,
                outcome["ranks"],
                outcome["faults"],
                finished_at,
            )
        session.execute(
            insert(Result).values(
                tournament_game_id=scheduled.id,
                tournament_id=tournament.id,
                game_id=game.id,
                game=tournament.game,
                variant=tournament.variant,
                rated=tournament.rated,
                bot_ids=scheduled.bot_ids,
                version_ids=version_ids,
                finished_at=finished_at,
                counted=counted,
                **outcome,
            )
        )
        session.commit()
    except IntegrityError:
        session.rollback()
        return False
    return True


def versions_playing(session: Session, bot_ids: list[int], began: datetime | None) -> list[int]:
    """The version (``bot_versions.id``) of each bot current when the game began (``began``, its creation): its
    latest made by then (its first, should a clock have run behind); a challenge's person
    (:data:`store.challenges.HUMAN`) has none: 0."""
    current: dict[int, int] = {}
    for version_id, bot_id, created_at in session.execute(
        select(BotVersion.id, BotVersion.bot_id, BotVersion.created_at)
        .where(BotVersion.bot_id.in_(bot_ids))
        .order_by(BotVersion.number)
    ):
        if bot_id not in current or began is None or as_utc(created_at) <= as_utc(began):
            current[bot_id] = version_id
    return [HUMAN if bot_id == HUMAN else current[bot_id] for bot_id in bot_ids]


def complete(session: Session, tournament: Tournament) -> None:
    """Mark the tournament done once every scheduled game has its result and its standings count them all.

    Two workers may finish its last games at once: the one whose refit counted fewer results must not mark it done
    before the other's complete standings are stored."""
    done = session.scalar(select(func.count(Result.id)).where(Result.tournament_id == tournament.id))
    if done == tournament.games_total:
        session.execute(
            update(Tournament)
            .where(
                Tournament.id == tournament.id,
                Tournament.status == "running",
                Tournament.standings_through >= tournament.games_total,
            )
            .values(status="done", finished_at=now())
        )
        session.commit()
