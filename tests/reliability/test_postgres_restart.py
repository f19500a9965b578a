"""PostgreSQL restarted (``pg_ctl restart -m fast``) in the middle of a tournament: every connection is cut and the
transactions in flight are aborted.

A worker whose game hits the restart fails that job (an infrastructure error: RQ records it); the game keeps its
lease until it runs out, then the maintenance enqueues it again and another job resumes it from its last saved ply.
A pending game whose job failed before taking the lease is enqueued again the same way, and a tournament whose last
result was written but whose standings were not is completed by the maintenance. The pool's pre-ping replaces the
connections the restart cut, and the workers' maintenance skips its passes while the database is down."""

from __future__ import annotations

import time

import pytest

from tests.reliability.harness import Arena, check_tournament
from tests.reliability.servers import PrivatePostgres


@pytest.mark.parametrize("down_seconds", [0.0, 2.0], ids=["restart", "down-2s"])
def test_a_tournament_survives_a_postgres_restart(
    arena: Arena, private_postgres: PrivatePostgres, down_seconds: float
) -> None:
    ids = [arena.register_bot(name, "random", delay=0.003) for name in ("a", "b", "c")]
    tournament = arena.create_tournament(ids, game="board")
    arena.workers.start()
    arena.workers.start()
    arena.workers.wait_listening()
    arena.mid_game(min_ply=10)
    private_postgres.restart(down_seconds)
    started = time.monotonic()
    arena.wait_done(tournament, timeout=90)
    recovery = time.monotonic() - started
    assert len(arena.workers.alive()) == 2, arena.workers.log_text()
    results = check_tournament(arena.app, tournament)
    assert len(results) == 6
    print(f"done {recovery:.1f} s after the restart")
