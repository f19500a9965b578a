"""Redis restarted in the middle of a tournament, empty (no persistence): every queued job and RQ registry is gone.

The database is the record of what is left to play: the workers ride out the outage (an RQ worker that loses Redis
is started again once it answers), and their maintenance enqueues again every game of a running tournament that has
no live job (pending games whose job was lost, games whose lease ran out), so every game is still played once."""

from __future__ import annotations

import time

from tests.reliability.harness import Arena, check_tournament, count_statuses
from tests.reliability.servers import PrivateRedis


def test_a_tournament_survives_a_redis_restart_that_loses_every_job(
    arena: Arena, private_redis: PrivateRedis
) -> None:
    ids = [arena.register_bot(name, "random", delay=0.003) for name in ("a", "b", "c")]
    tournament = arena.create_tournament(ids, game="board")
    arena.workers.start("--games", "1")  # one game at a time each: the other games wait in the queue
    arena.workers.start("--games", "1")
    arena.workers.wait_listening()
    arena.mid_game(min_ply=10)
    with arena.sessions() as session:
        before = count_statuses(session, tournament)
    assert before["pending"] > 0  # jobs still queued: the restart loses them
    private_redis.restart(down_seconds=1.5)
    started = time.monotonic()
    arena.wait_done(tournament, timeout=90)
    recovery = time.monotonic() - started
    assert len(arena.workers.alive()) == 2, arena.workers.log_text()  # both rode out the outage
    results = check_tournament(arena.app, tournament)
    assert len(results) == 6
    assert "has no live job (its job was lost or failed): enqueued again" in arena.workers.log_text(None)
    print(f"statuses at the restart: {dict(before)}; done {recovery:.1f} s after it")
