"""The RQ jobs, named by dotted path (``tournament.jobs.play_game``): they take ids and open their own session.

- ``start_tournament``: lays out a tournament's schedule and enqueues its games; RQ runs it at the start time
  (``enqueue_at``) and again at each repeat (``Repeat``), where it starts the next run.
- ``play_game``: plays one scheduled game to its end, or resumes it, or returns at once if it is done or another
  worker holds its lease. Bot faults are game events; infrastructure errors raise, and RQ records the failure.
- ``recover``: enqueues again the games whose worker died (their lease ran out); run by the workers' maintenance.
"""

from __future__ import annotations

import hashlib
import logging

from sqlalchemy import func, select

from service.arena_models import Tournament, TournamentGame
from service.queueing import GAME_JOB
from tournament import context, runner, store
from tournament.schedule import schedule

log = logging.getLogger(__name__)


def play_game(scheduled_id: int) -> str:
    ctx = context.get()
    with ctx.sessions() as session:
        try:
            outcome = runner.play_scheduled(session, scheduled_id, ctx.runner, ctx.notifier)
        except store.LeaseLost as lost:
            log.warning("%s", lost)
            return "lost"
    log.info("scheduled game %s: %s", scheduled_id, outcome)
    return outcome


def run_seed(seed: int, run: int) -> int:
    """The seed of a tournament's ``run``-th run (the first keeps the tournament's own)."""
    if run == 1:
        return seed
    digest = hashlib.blake2b(f"{seed}:run:{run}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 2


def lay_out(tournament: Tournament) -> list[TournamentGame]:
    return [
        TournamentGame(
            tournament_id=tournament.id,
            number=pairing.index,
            round=pairing.round,
            bot_ids=list(pairing.seats),
            seed=pairing.seed,
            status="pending",
        )
        for pairing in schedule(tournament.bot_ids, tournament.table_size, tournament.rounds, tournament.seed)
    ]


def start_tournament(tournament_id: int) -> int:
    """Start the tournament, or (when RQ repeats this job) its next run; the id of the run started, else 0."""
    ctx = context.get()
    with ctx.sessions() as session:
        tournament = session.get(Tournament, tournament_id)
        if tournament is None:
            return 0
        if tournament.status != "scheduled":
            runs = 1 + (
                session.scalar(select(func.count(Tournament.id)).where(Tournament.parent_id == tournament_id)) or 0
            )
            if runs >= (tournament.repeat_times or 1):
                return 0
            tournament = Tournament(
                owner_id=tournament.owner_id,
                name=f"{tournament.name} #{runs + 1}",
                game=tournament.game,
                settings=tournament.settings,
                variant=tournament.variant,
                bot_ids=tournament.bot_ids,
                table_size=tournament.table_size,
                rounds=tournament.rounds,
                seed=run_seed(tournament.seed, runs + 1),
                move_timeout_ms=tournament.move_timeout_ms,
                rated=tournament.rated,
                parent_id=tournament.id,
                run=runs + 1,
                status="scheduled",
                games_total=tournament.games_total,
            )
            session.add(tournament)
            session.flush()
        session.add_all(lay_out(tournament))
        tournament.status = "running"
        session.commit()
        started = tournament.id
        scheduled = list(
            session.scalars(
                select(TournamentGame.id)
                .where(TournamentGame.tournament_id == started)
                .order_by(TournamentGame.number)
            )
        )
    for scheduled_id in scheduled:
        ctx.queue.enqueue(GAME_JOB, scheduled_id, job_id=f"sorry-arena-game-{scheduled_id}")
    return started


def recover() -> list[int]:
    """Enqueue again every scheduled game whose lease ran out (its worker died mid-game)."""
    ctx = context.get()
    with ctx.sessions() as session:
        stalled = store.expired_leases(session)
        attempts = dict(
            session.execute(
                select(TournamentGame.id, TournamentGame.attempts).where(TournamentGame.id.in_(stalled))
            ).all()
        )
    for scheduled_id in stalled:
        log.warning("scheduled game %s lost its worker: enqueued again", scheduled_id)
        ctx.queue.enqueue(
            GAME_JOB, scheduled_id, job_id=f"sorry-arena-game-{scheduled_id}-{attempts[scheduled_id]}"
        )
    return stalled
