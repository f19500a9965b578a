"""Cancelling a tournament (``POST /api/v1/tournaments/{id}/cancel``): what the service writes.

In one transaction the tournament (and, for a first run, its runs not over) is marked ``cancelled`` and its repeats
cut to the runs made, so the workers' clock starts no later run; its games begun end ``cancelled``
(``store.gamelog.cancel``: no move lands in them any more, no pull bot is asked to move in them), then its games not
played are marked ``cancelled`` and their leases dropped (a game's row before its scheduled game's, the order a
worker saving a game locks them in). A game whose lease was being taken meanwhile, created in the lease's
transaction, is seen only by that last step, which waits for it: it ends just after, in a transaction of its own. A
queued game's job then finds nothing to lease and ends; a game being played stops at its next step, as a worker's
heartbeat or its next save finds its lease gone (``tournament/play/heartbeat.py``, ``tournament/play/leases.py``), and gives
its slot back; a game waiting for a pull bot's move is woken (the games' channels are published on) and stops at
once. A result being written at that moment is refused (``tournament/play/results.py``), and the rating pools leave
cancelled tournaments out (``tournament/standings/tables.py``): the job ``tournament.jobs.cancelled`` refits the pool at
once. Cancelling again changes nothing.
"""

from __future__ import annotations

import logging

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from runtime import metrics
from service.errors import fail
from store import gamelog
from store.models import Game, Ladder, Tournament, TournamentGame, now

log = logging.getLogger(__name__)

LIVE = ("scheduled", "running")


def cancel(session: Session, tournament: Tournament) -> list[tuple[int, int]] | None:
    """Cancel the tournament (see the module docstring); the (game id, ply) of the games begun that it stopped, to
    wake; ``None`` if it was cancelled already, a 409 if it is over with no run to come, or is a ladder's (a ladder
    is closed, ``service/ladders.py``: its results stay rated)."""
    ladder_id = session.scalar(select(Ladder.id).where(Ladder.tournament_id == tournament.id))
    if ladder_id is not None:
        fail(
            409,
            f"tournament {tournament.id} is ladder {ladder_id}'s: close the ladder instead "
            f"(POST /api/v1/ladders/{ladder_id}/close)",
        )
    targets = [tournament.id]
    made = 1
    if tournament.parent_id is None:
        runs = session.execute(
            select(Tournament.id, Tournament.status).where(Tournament.parent_id == tournament.id)
        )
        children = list(runs)
        made += len(children)
        targets += [run_id for run_id, status in children if status in LIVE]
    to_come = tournament.parent_id is None and (tournament.repeat_times or 1) > made
    if tournament.status == "cancelled" and not to_come and len(targets) == 1:
        return None
    if tournament.status == "done" and not to_come and len(targets) == 1:
        fail(409, f"tournament {tournament.id} is done: there is nothing left to cancel")
    moment = now()
    session.execute(
        update(Tournament)
        .where(Tournament.id.in_(targets), Tournament.status.in_(LIVE))
        .values(status="cancelled", finished_at=moment)
    )
    if to_come:
        session.execute(update(Tournament).where(Tournament.id == tournament.id).values(repeat_times=made))
    # A game's row before its scheduled game's, as a worker saving a game locks them (the other order deadlocks).
    started = session.scalars(
        select(TournamentGame.game_id).where(
            TournamentGame.tournament_id.in_(targets),
            TournamentGame.status.in_(("pending", "running")),
            TournamentGame.game_id.is_not(None),
        )
    ).all()
    gamelog.cancel(session, [game_id for game_id in started if game_id is not None])
    stopped = session.execute(
        update(TournamentGame)
        .where(TournamentGame.tournament_id.in_(targets), TournamentGame.status.in_(("pending", "running")))
        .values(status="cancelled", worker=None, lease_until=None)
        .returning(TournamentGame.game_id)
    )
    begun = [game_id for game_id in stopped.scalars() if game_id is not None]
    session.commit()
    # A game whose lease was being taken as the games were read was created in the lease's transaction: only the
    # update above saw it, having waited for that transaction (PostgreSQL). It ends now, in a transaction of its
    # own (no game row locked after a scheduled game's); left active, its runner would wait for a pull bot's move,
    # unwoken, until the deadline.
    late = sorted(set(begun) - set(started))
    if late:
        gamelog.cancel(session, late)
        session.commit()
    woken = session.execute(select(Game.id, Game.ply).where(Game.id.in_(begun))).all() if begun else []
    session.rollback()
    metrics.CANCELLATIONS.inc()
    log.info(
        "tournament %s cancelled (runs %s): %d game(s) begun stopped",
        tournament.id,
        ", ".join(map(str, targets)),
        len(begun),
    )
    return [(game_id, ply) for game_id, ply in woken]
