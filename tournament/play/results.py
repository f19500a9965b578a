"""Results: a finished scheduled game's result, written once, and the tournament marked done when all are in.

The result is a row unique per scheduled game: written once, whoever tries again (a resumed game, a second worker);
never for a game whose tournament was cancelled meanwhile. It is written in the transaction of the game's last moves
and end, so a game over always has its result; a rated result is counted in its pool's running state in the same
transaction (``tournament/standings/poolstate.py``); a void game's (``tournament/play/voids.py``) is written with its
reason and counted nowhere. A ladder's result is counted in the ladder in the same transaction too
(``tournament/standings/ladderstate.py``: its bots freed and, unless void, rated). A cancelled tournament is never
marked done, nor a ladder's here. It records
the version of each seat's bot that played: the latest one made before the game began (a version made while a game
runs plays from the next game on).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, exists, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from store.challenges import HUMAN
from store.fastlane import param
from store.models import BotVersion, Game, Result, Tournament, TournamentGame, now
from store.models.ladders import Ladder
from tournament.play.leases import Cancelled
from tournament.play.scheduled import TournamentSettings
from tournament.standings import ladderstate, poolstate


def unfinished_tournaments(session: Session, before: datetime) -> list[int]:
    """Running tournaments with every result written (the last before ``before``) yet not done: the worker that
    wrote the last result failed before it refreshed the standings or marked the tournament done. A ladder's
    tournament is never one: its games are made as it goes (``tournament/plans/ladders.py`` ends a closed one)."""
    return list(
        session.scalars(
            select(Tournament.id)
            .join(Result, Result.tournament_id == Tournament.id)
            .where(Tournament.status == "running", ~exists().where(Ladder.tournament_id == Tournament.id))
            .group_by(Tournament.id, Tournament.games_total)
            .having(func.count(Result.id) >= Tournament.games_total, func.max(Result.finished_at) < before)
        )
    )


_DONE = (
    update(TournamentGame)
    .where(TournamentGame.id == param("scheduled_id"), TournamentGame.status != "cancelled")
    .values(status="done", lease_until=None)
)
_VERSIONS = (
    select(BotVersion.id, BotVersion.bot_id, BotVersion.created_at <= Game.created_at)
    .join(Game, Game.id == param("game_id"))  # the one game's row beside each version (no cartesian product)
    .where(BotVersion.bot_id.in_(bindparam("bots", expanding=True)))
    .order_by(BotVersion.number)
)
"""Each version of the game's bots, in order, and whether it was made by the game's start."""
_COLUMNS = (
    "tournament_game_id",
    "tournament_id",
    "game_id",
    "game",
    "variant",
    "rated",
    "bot_ids",
    "version_ids",
    "ranks",
    "reason",
    "forfeited",
    "faults",
    "moves",
    "finished_at",
    "counted",
    "void_reason",
)
_RESULT = insert(Result).values({column: param(column) for column in _COLUMNS})


def finish(
    session: Session,
    tournament: TournamentSettings,
    scheduled_id: int,
    bot_ids: list[int],
    game_id: int,
    outcome: dict[str, Any],
) -> bool:
    """Write the result of ``game_id`` (once: ``False``, the transaction rolled back, if it was already written) and
    mark the scheduled game done, in the session's transaction (the game's last moves and end go in the same one:
    the caller commits); ``Cancelled``, rolled back, if its tournament was cancelled (nothing written)."""
    if not session.connection().execute(_DONE, {"scheduled_id": scheduled_id}).rowcount:
        session.rollback()
        raise Cancelled(f"scheduled game {scheduled_id}: its tournament was cancelled before its result")
    version_ids, finished_at = versions_playing(session, bot_ids, game_id), now()
    try:
        counted = None
        void_reason = outcome.get("void_reason")
        rated = tournament.rated and void_reason is None  # a void game is never rated (``voids``)
        if rated:  # its pool's running state counts it in the same transaction
            counted = poolstate.record(
                session,
                tournament.id,
                tournament.game,
                tournament.variant,
                version_ids,
                outcome["ranks"],
                outcome["faults"],
                finished_at,
                outcome["forfeited"],
            )
        if tournament.ladder:  # the ladder's bots freed, their ratings and fault streaks, in this transaction
            ladderstate.record(session, scheduled_id, bot_ids, version_ids, outcome, finished_at)
        values = {
            "tournament_game_id": scheduled_id,
            "tournament_id": tournament.id,
            "game_id": game_id,
            "game": tournament.game,
            "variant": tournament.variant,
            "rated": rated,
            "void_reason": void_reason,
            "bot_ids": bot_ids,
            "version_ids": version_ids,
            "finished_at": finished_at,
            "counted": counted,
            **{key: outcome[key] for key in ("ranks", "reason", "forfeited", "faults", "moves")},
        }
        session.connection().execute(_RESULT, values)
    except IntegrityError:
        session.rollback()
        return False
    return True


def versions_playing(session: Session, bot_ids: list[int], game_id: int) -> list[int]:
    """The version (``bot_versions.id``) of each bot current when the game ``game_id`` began (its creation): its
    latest made by then (its first, should a clock have run behind); a challenge's person
    (:data:`store.challenges.HUMAN`) has none: 0."""
    bots = [bot_id for bot_id in bot_ids if bot_id != HUMAN]
    current: dict[int, int] = {}
    if bots:
        values = {"game_id": game_id, "bots": bots}
        for version_id, bot_id, made_before in session.connection().execute(_VERSIONS, values).all():
            if bot_id not in current or made_before:
                current[bot_id] = version_id
    return [HUMAN if bot_id == HUMAN else current[bot_id] for bot_id in bot_ids]


def complete(session: Session, tournament_id: int, games_total: int) -> None:
    """Mark the tournament done once every scheduled game has its result and its standings count them all.

    Two workers may finish its last games at once: the one whose refit counted fewer results must not mark it done
    before the other's complete standings are stored."""
    done = session.scalar(select(func.count(Result.id)).where(Result.tournament_id == tournament_id))
    if done == games_total:
        session.execute(
            update(Tournament)
            .where(
                Tournament.id == tournament_id,
                Tournament.status == "running",
                Tournament.standings_through >= games_total,
                ~exists().where(Ladder.tournament_id == Tournament.id),  # a ladder ends when closed, not here
            )
            .values(status="done", finished_at=now())
        )
        session.commit()
