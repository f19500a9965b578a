"""A ``sorry-arena worker`` process playing push bots' games while its PostgreSQL turns read-only (a failover to a
standby: every session cut, the new ones read-only) and writable again: its saves wait with their moves kept, so
each ply is asked of its bot exactly once; no job fails, no game is played again, and the tournament ends as the
reliability invariant wants it (every game replays, the standings recompute). How soon a move is stored after the
database takes writes again is recorded (the save's backoff: at most 0.25 s)."""

from __future__ import annotations

import time

import redis
from rq.registry import FailedJobRegistry
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from runtime.jobqueue import QUEUE_NAME
from store.models import ActionRecord, TournamentGame, now
from tests.apikit import new_player
from tests.arenakit import push_bots, register, wait_for
from tests.reliability.harness import Arena, check_tournament, record
from tests.reliability.servers import PrivatePostgres, PrivateRedis
from tests.sickdatabase import CountingBot, Sickness

OUTAGE_S = 1.5
"""How long the database stays read-only once the worker's save found it so (shorter than the workers' lease)."""


def test_a_worker_waits_for_a_read_only_database_and_asks_each_ply_once(
    arena: Arena, private_postgres: PrivatePostgres, private_redis: PrivateRedis
) -> None:
    database_url = arena.workers.database_url
    sickness = Sickness(database_url, arena.app.extensions["db_engine"], admin_url=private_postgres.admin_url)
    bot = CountingBot(sickness)
    arena.workers.start()
    arena.workers.wait_listening()
    client = arena.client
    arena.owner = new_player(client, "owner")
    with push_bots(bot.choose, bot.choose) as servers:
        ids = [register(client, arena.owner, f"counted{n}", server.url)["id"] for n, server in enumerate(servers)]
        tournament = arena.create_tournament(ids, game="board", move_timeout_ms=10000)
        try:
            wait_for("a game at the outage's ply", bot.turned.is_set, timeout=60)
            wait_for(
                "a save that waits",
                lambda: "waits for the database (read-only)" in arena.workers.log_text(None),
                timeout=60,
            )
            time.sleep(OUTAGE_S)  # the outage's length: the save waits meanwhile
        finally:
            sickness.off()
        back, back_clock = now(), time.monotonic()

        def moved_since(session: Session) -> bool:
            last = session.scalar(select(func.max(ActionRecord.created_at)))
            return last is not None and last > back

        arena.wait_until("a move stored after the database took writes again", moved_since, timeout=60)
        resumed = time.monotonic() - back_clock
        arena.wait_done(tournament, timeout=120)
    results = check_tournament(arena.app, tournament)
    assert len(results) == 2
    for result in results:
        assert bot.plies(result.game_id) == dict.fromkeys(range(result.moves), 1)  # each ply asked once
    with arena.sessions() as session:
        attempts = session.scalars(select(TournamentGame.attempts)).all()
    assert attempts == [1, 1], attempts  # no game played again
    connection = redis.Redis.from_url(private_redis.url)
    try:
        assert FailedJobRegistry(QUEUE_NAME, connection=connection).count == 0, "a job failed"
    finally:
        connection.close()
    log = arena.workers.log_text(None)
    assert "stored after waiting" in log and "Traceback" not in log, log
    record(
        "PostgreSQL read-only 1.5 s mid-game: first move stored after it took writes again (s)", round(resumed, 2)
    )
