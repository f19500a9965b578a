"""PostgreSQL restarted (``pg_ctl restart -m fast``) or stopped for a while in the middle of a tournament: every
connection is cut and the transactions in flight are aborted.

No job fails: a game whose save fails waits, trying the save again with its moves kept (no ply is asked again), and
one that fails otherwise waits and goes on from its last save once the database answers; games whose jobs come
meanwhile wait the same way on their slots; the heartbeat, the clock and the maintenance skip their turns. How soon play resumes after the
database's return is recorded (docs/guarantees.md quotes it)."""

from __future__ import annotations

import time
from datetime import datetime

import pytest
import redis
from rq.registry import FailedJobRegistry
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from runtime.jobqueue import QUEUE_NAME
from store.models import ActionRecord, now
from tests.reliability.harness import Arena, check_tournament, record
from tests.reliability.servers import PrivatePostgres, PrivateRedis

RESUME_BOUND = 10.0
"""Seconds: a generous bound for a loaded machine; the figure recorded is the measured one (goal: 2 s)."""


@pytest.mark.parametrize("down_seconds", [0.0, 5.0], ids=["restart", "down-5s"])
def test_a_tournament_survives_a_postgres_restart(
    arena: Arena, private_postgres: PrivatePostgres, private_redis: PrivateRedis, down_seconds: float
) -> None:
    ids = [arena.register_bot(name, "random", delay=0.003) for name in ("a", "b", "c")]
    tournament = arena.create_tournament(ids, game="board")
    arena.workers.start()
    arena.workers.start()
    arena.workers.wait_listening()
    arena.mid_game(min_ply=10)
    private_postgres.restart(down_seconds)
    back: datetime = now()
    back_clock = time.monotonic()

    def moved_since(session: Session) -> bool:
        last = session.scalar(select(func.max(ActionRecord.created_at)))
        return last is not None and last > back

    arena.wait_until("a move after the database's return", moved_since, timeout=60)
    resumed = time.monotonic() - back_clock
    arena.wait_done(tournament, timeout=90)
    assert len(arena.workers.alive()) == 2, arena.workers.log_text()
    results = check_tournament(arena.app, tournament)
    assert len(results) == 6
    connection = redis.Redis.from_url(private_redis.url)
    try:
        assert FailedJobRegistry(QUEUE_NAME, connection=connection).count == 0, "a job failed"
    finally:
        connection.close()
    log = arena.workers.log_text(None)
    assert "Traceback" not in log, log
    assert resumed < RESUME_BOUND, f"play resumed {resumed:.1f} s after the database's return"
    record(
        f"PostgreSQL {'restarted' if not down_seconds else f'down {down_seconds:.0f} s'}: "
        "first move after its return (s)",
        round(resumed, 2),
    )
