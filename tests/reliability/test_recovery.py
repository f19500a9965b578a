"""The maintenance's recovery (``tournament.dispatch.recovery.recover``) step by step, in this process, on the private servers:
which scheduled games it enqueues again, and which it leaves to the job they already have.

A game needs a job while it is pending or its lease ran out. Its job is left alone while RQ still holds it to run
(queued, or started moments ago); a job Redis lost, one that failed before it took the lease, or one whose worker
died between taking it and taking the lease is replaced, at the front of the queue, once a lease has passed since the
game was fed (before that its job may still be on its way: no false alarm); and a game enqueued again is not enqueued
twice. A tournament whose results are all in but whose last worker failed before refreshing its
standings is completed.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from rq.job import Job, JobStatus
from rq.utils import utcformat
from sqlalchemy import select, update

from runtime.jobqueue import RQQueue
from runtime.settings import Settings
from runtime.wakeups import Notifier
from store.models import Result, Tournament, TournamentGame, now
from tests.apikit import new_player
from tests.arenakit import arena_app, create_tournament, push_bots, random_choice, register, wait_done
from tests.conftest import dispose
from tests.reliability.harness import check_tournament
from tests.reliability.servers import PrivatePostgres, PrivateRedis
from tournament import jobs
from tournament.dispatch import context, recovery
from tournament.dispatch.feed import game_job_id


@pytest.fixture
def queue(private_redis: PrivateRedis, monkeypatch: pytest.MonkeyPatch) -> RQQueue:
    private_redis.flush()
    queue = RQQueue(private_redis.url)
    monkeypatch.setattr(context, "_context", None)  # whatever this test configures goes with it
    return queue


def use(app: object, queue: RQQueue) -> None:
    """Jobs of this process (``recover``) use the app's database and the given RQ queue."""
    extensions = app.extensions  # type: ignore[attr-defined]
    context.configure(Settings(lease_seconds=3), extensions["db_engine"], Notifier(), queue)


@pytest.fixture
def started(private_postgres: PrivatePostgres, private_redis: PrivateRedis, queue: RQQueue) -> Iterator[int]:
    """A tournament of three bots started (its six games pending, their jobs queued) with no worker to play them."""
    app = arena_app(private_postgres.new_database(), private_redis.url)
    client = app.test_client()
    owner = new_player(client, "owner")
    with push_bots(random_choice, random_choice, random_choice) as servers:
        ids = [
            register(client, owner, name, server.url)["id"] for name, server in zip("abc", servers, strict=True)
        ]
        tournament = create_tournament(client, owner, ids)["id"]
    queue.connection.flushdb()  # its start job: started here instead
    use(app, queue)
    assert jobs.start_tournament(tournament) == tournament
    yield tournament
    dispose(app)


def job_status(queue: RQQueue, job_id: str) -> str | None:
    status = queue.connection.hget(Job.key_for(job_id), "status")
    return None if status is None else status.decode() if isinstance(status, bytes) else str(status)


def scheduled_ids(tournament: int) -> list[int]:
    with context.get().sessions() as session:
        return list(
            session.scalars(
                select(TournamentGame.id)
                .where(TournamentGame.tournament_id == tournament)
                .order_by(TournamentGame.id)
            )
        )


def grace_over(tournament: int) -> None:
    """As a lease after the games were fed: their jobs' grace to take their leases has run out."""
    with context.get().sessions() as session:
        session.execute(
            update(TournamentGame)
            .where(TournamentGame.tournament_id == tournament, TournamentGame.status == "pending")
            .values(lease_until=now() - timedelta(seconds=1))
        )
        session.commit()


def test_a_game_just_fed_is_left_to_its_job_for_a_lease(started: int, queue: RQQueue) -> None:
    """Between a game's feeding and its job taking the lease (the job not in Redis yet, or handed over to a slot
    that has not leased the game yet: RQ says it finished) the recovery must not call its job lost."""
    games = scheduled_ids(started)
    queue.queue.remove(game_job_id(games[0], 0))
    Job.fetch(game_job_id(games[0], 0), connection=queue.connection).delete()  # not enqueued yet
    handed = Job.fetch(game_job_id(games[1], 0), connection=queue.connection)
    queue.queue.remove(handed)
    handed.set_status(JobStatus.FINISHED)  # handed over to a slot, whose lease is still to come
    assert recovery.recover(context.get()) == []
    grace_over(started)
    assert recovery.recover(context.get()) == games[:2]  # a lease later, their jobs are lost indeed
    assert recovery.recover(context.get()) == []  # and their new jobs have a lease's grace again


def test_pending_games_keep_their_queued_jobs(started: int, queue: RQQueue) -> None:
    games = scheduled_ids(started)
    assert [job_status(queue, game_job_id(game, 0)) for game in games] == ["queued"] * 6
    assert recovery.recover(context.get()) == []
    assert queue.queue.count == 6  # nothing enqueued twice


def test_pending_games_whose_jobs_redis_lost_are_enqueued_again_once(
    started: int, queue: RQQueue, private_redis: PrivateRedis
) -> None:
    games = scheduled_ids(started)
    private_redis.flush()  # as a restart without persistence
    grace_over(started)
    assert recovery.recover(context.get()) == games
    assert [job_status(queue, game_job_id(game, 0)) for game in games] == ["queued"] * 6
    assert recovery.recover(context.get()) == []
    assert queue.queue.count == 6


def test_a_job_that_failed_before_taking_its_lease_is_replaced(started: int, queue: RQQueue) -> None:
    failed = scheduled_ids(started)[0]
    job = Job.fetch(game_job_id(failed, 0), connection=queue.connection)
    queue.queue.remove(job)
    job.set_status(JobStatus.FAILED)  # as the database refused the job's first statement
    grace_over(started)
    assert recovery.recover(context.get()) == [failed]
    assert job_status(queue, game_job_id(failed, 0)) == "queued"
    assert queue.queue.get_job_ids()[0] == game_job_id(failed, 0)  # recovered games go first
    assert recovery.recover(context.get()) == []


@pytest.mark.parametrize(("seconds_ago", "replaced"), [(10.0, True), (0.0, False)], ids=["long-ago", "just-now"])
def test_a_job_that_started_long_ago_without_taking_its_lease_is_replaced(
    started: int, queue: RQQueue, seconds_ago: float, replaced: bool
) -> None:
    """Its worker was killed between taking the job and taking the lease: RQ calls the job started for hours."""
    game = scheduled_ids(started)[0]
    job = Job.fetch(game_job_id(game, 0), connection=queue.connection)
    queue.queue.remove(job)
    job.set_status(JobStatus.STARTED)
    queue.connection.hset(job.key, "started_at", utcformat(now() - timedelta(seconds=seconds_ago)))
    grace_over(started)
    assert recovery.recover(context.get()) == ([game] if replaced else [])
    assert job_status(queue, game_job_id(game, 0)) == ("queued" if replaced else "started")


def test_a_game_whose_lease_ran_out_gets_a_job_per_lost_lease(started: int, queue: RQQueue) -> None:
    stalled = scheduled_ids(started)[0]
    sessions = context.get().sessions
    with sessions() as session:  # its worker took the lease (its first job is done with) and died
        session.execute(
            update(TournamentGame)
            .where(TournamentGame.id == stalled)
            .values(status="running", attempts=1, worker="gone:1", lease_until=now() - timedelta(seconds=1))
        )
        session.commit()
    queue.queue.remove(game_job_id(stalled, 0))
    assert recovery.recover(context.get()) == [stalled]
    assert job_status(queue, game_job_id(stalled, 1)) == "queued"
    assert recovery.recover(context.get()) == []  # its job waits: not enqueued again
    with sessions() as session:  # the next worker took it and died too
        session.execute(
            update(TournamentGame)
            .where(TournamentGame.id == stalled)
            .values(attempts=2, lease_until=now() - timedelta(seconds=1))
        )
        session.commit()
    assert recovery.recover(context.get()) == [stalled]
    assert job_status(queue, game_job_id(stalled, 2)) == "queued"


def test_a_tournament_whose_last_worker_failed_before_its_standings_is_completed(
    private_postgres: PrivatePostgres, queue: RQQueue
) -> None:
    app = arena_app(private_postgres.new_database())  # played on its own threads
    client = app.test_client()
    owner = new_player(client, "owner")
    with push_bots(random_choice, random_choice) as servers:
        ids = [register(client, owner, name, server.url)["id"] for name, server in zip("ab", servers, strict=True)]
        tournament = create_tournament(client, owner, ids, game="card", settings={"pawns": 1})["id"]
        wait_done(client, tournament, timeout=60)
    app.extensions["queue"].wait(timeout=30)
    use(app, queue)
    sessions = context.get().sessions
    with sessions() as session:  # every result written; the last one's worker died before it refit and completed
        session.execute(
            update(Tournament)
            .where(Tournament.id == tournament)
            .values(status="running", finished_at=None, standings_through=1)
        )
        session.execute(update(Result).values(finished_at=now()))
        session.commit()
    assert recovery.recover(context.get()) == []
    with sessions() as session:  # its last result is too fresh: its own worker may be refitting right now
        assert session.scalar(select(Tournament.status).where(Tournament.id == tournament)) == "running"
        session.execute(update(Result).values(finished_at=now() - timedelta(seconds=10)))
        session.commit()
    assert recovery.recover(context.get()) == []
    check_tournament(app, tournament)
    dispose(app)
