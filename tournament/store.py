"""The database side of playing a scheduled game: lease it, create its game, save moves in batches, finish it.

A worker leases a scheduled game with a conditional UPDATE (free, or its lease expired: the worker that held it
died), so two workers never play one game at once. Moves are saved in batches (MEASURED.md: a commit per move caps
a PostgreSQL worker near 355 moves/s) by the same ply-checked UPDATE the games API uses, so a worker that lost its
lease can never overwrite a newer position; a game resumed after a crash continues from its last saved ply. The
result is a row unique per scheduled game: written once, whoever tries again.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

import engine
from service.arena_models import Bot, Result, Tournament, TournamentGame
from service.models import ActionRecord, EventRecord, Game, Seat, now


class LeaseLost(Exception):
    """Another worker took the game over (this one stalled past its lease): stop without writing."""


def lease(session: Session, scheduled_id: int, worker: str, seconds: float) -> bool:
    """Take the scheduled game if it is free or its holder's lease ran out; ``False`` if done or held."""
    moment = now()
    taken = session.execute(
        update(TournamentGame)
        .where(
            TournamentGame.id == scheduled_id,
            or_(
                TournamentGame.status == "pending",
                (TournamentGame.status == "running") & (TournamentGame.lease_until < moment),
            ),
        )
        .values(
            status="running",
            worker=worker,
            attempts=TournamentGame.attempts + 1,
            lease_until=moment + timedelta(seconds=seconds),
        )
    )
    session.commit()
    return bool(taken.rowcount)  # type: ignore[attr-defined]


def renew(session: Session, scheduled_id: int, worker: str, seconds: float) -> None:
    """Extend this worker's lease, in the caller's transaction; ``LeaseLost`` if it is another worker's now."""
    renewed = session.execute(
        update(TournamentGame)
        .where(TournamentGame.id == scheduled_id, TournamentGame.worker == worker)
        .values(lease_until=now() + timedelta(seconds=seconds))
    )
    if not renewed.rowcount:  # type: ignore[attr-defined]
        session.rollback()
        raise LeaseLost(f"scheduled game {scheduled_id} is no longer leased by {worker}")


def unplayed(session: Session, moment: datetime | None = None) -> list[tuple[int, int]]:
    """(id, attempts) of the scheduled games that need a job: the pending ones (never leased: their job may have been
    lost with Redis, or failed before it took the lease) and those whose lease ran out (their worker died)."""
    moment = moment or now()
    rows = session.execute(
        select(TournamentGame.id, TournamentGame.attempts)
        .where(
            or_(
                TournamentGame.status == "pending",
                (TournamentGame.status == "running") & (TournamentGame.lease_until < moment),
            )
        )
        .order_by(TournamentGame.id)
    )
    return [(scheduled_id, attempts) for scheduled_id, attempts in rows]


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


def create_game(session: Session, tournament: Tournament, scheduled: TournamentGame, bots: Sequence[Bot]) -> Game:
    """The game of a scheduled game, its seats taken by the bots' accounts, committed with the link to it."""
    state, events = engine.new_game_with_events(tournament.game, tournament.settings, scheduled.seed)
    game = Game(
        game=tournament.game,
        settings=tournament.settings,
        seed=scheduled.seed,
        seats=tournament.table_size,
        status="active",
        ply=0,
        state=json.dumps(engine.to_json(state)),
        created_by=tournament.owner_id,
    )
    session.add(game)
    session.flush()
    session.add_all(Seat(game_id=game.id, seat=number, player_id=bot.player_id) for number, bot in enumerate(bots))
    session.add_all(
        EventRecord(game_id=game.id, seq=seq, ply=0, to_seat=event.get("to"), payload=event)
        for seq, event in enumerate(events)
    )
    scheduled.game_id = game.id
    session.commit()
    return game


@dataclass
class Move:
    ply: int
    """The ply the action answered."""
    seat: int
    action: str
    events: list[dict[str, Any]]
    latency_ms: float | None = None
    fault: str | None = None


@dataclass
class Saved:
    """What the database holds of the game: its ply and last event number, as of the last save."""

    ply: int
    last_seq: int
    moves: list[Move] = field(default_factory=list)


def saved_position(session: Session, game: Game) -> Saved:
    last_seq = session.scalar(select(func.max(EventRecord.seq)).where(EventRecord.game_id == game.id))
    return Saved(ply=game.ply, last_seq=last_seq if last_seq is not None else -1)


def fault_history(session: Session, game_id: int) -> list[tuple[int, str | None]]:
    """(seat, fault) of every saved action in order: a resumed game recounts consecutive faults from it."""
    rows = session.execute(
        select(ActionRecord.seat, ActionRecord.fault)
        .where(ActionRecord.game_id == game_id)
        .order_by(ActionRecord.ply)
    )
    return [(seat, fault) for seat, fault in rows]


def save(
    session: Session, game_id: int, saved: Saved, moves: list[Move], state: Any, status: str, result: Any = None
) -> None:
    """Append ``moves`` (which start at ``saved.ply``) and the new snapshot, in one transaction checked by ply."""
    if not moves:
        return
    new_ply = saved.ply + len(moves)
    updated = session.execute(
        update(Game)
        .where(Game.id == game_id, Game.ply == saved.ply)
        .values(
            ply=new_ply, state=json.dumps(engine.to_json(state)), status=status, result=result, updated_at=now()
        )
    )
    if not updated.rowcount:  # type: ignore[attr-defined]
        session.rollback()
        raise LeaseLost(f"game {game_id} moved past ply {saved.ply} without this worker")
    moment = now()
    session.execute(
        insert(ActionRecord),
        [
            {
                "game_id": game_id,
                "ply": move.ply,
                "seat": move.seat,
                "action": move.action,
                "latency_ms": move.latency_ms,
                "fault": move.fault,
                "created_at": moment,
            }
            for move in moves
        ],
    )
    rows = []
    seq = saved.last_seq
    for move in moves:
        for event in move.events:
            seq += 1
            rows.append(
                {"game_id": game_id, "seq": seq, "ply": move.ply + 1, "to_seat": event.get("to"), "payload": event}
            )
    if rows:
        session.execute(insert(EventRecord), rows)
    saved.ply = new_ply
    saved.last_seq = seq


def finish(
    session: Session, tournament: Tournament, scheduled: TournamentGame, game_id: int, outcome: dict[str, Any]
) -> bool:
    """Write the result (once: ``False`` if it was already written) and mark the scheduled game done."""
    try:
        session.execute(
            insert(Result).values(
                tournament_game_id=scheduled.id,
                tournament_id=tournament.id,
                game_id=game_id,
                game=tournament.game,
                variant=tournament.variant,
                rated=tournament.rated,
                bot_ids=scheduled.bot_ids,
                finished_at=now(),
                **outcome,
            )
        )
        session.execute(
            update(TournamentGame).where(TournamentGame.id == scheduled.id).values(status="done", lease_until=None)
        )
        session.commit()
    except IntegrityError:
        session.rollback()
        return False
    return True


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
                Tournament.status != "done",
                Tournament.standings_through >= tournament.games_total,
            )
            .values(status="done", finished_at=now())
        )
        session.commit()
