"""The schedule survives the kill of any process: a tournament with a start time and a repeat, one of its two
workers killed (SIGKILL) before the start and Redis restarted empty meanwhile.

Start times and repeats live in the database and every worker's clock starts the runs due (``tournament.dispatch.clock``):
the surviving worker starts the first run at its start time and the second at its planned time (the first's start
plus the interval), each once, and nothing of the killed worker lives on (RQ's scheduler was a child process that
outlived a killed worker, holding its lock: no worker forks one now)."""

from __future__ import annotations

import os
from datetime import timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from store.models import Game, Tournament, TournamentGame, now
from tests.reliability.harness import Arena, check_tournament, record
from tests.reliability.servers import PrivateRedis
from tournament.plans import runs

EVERY = 8
LEAD = 20
"""Seconds from the tournament's creation to its first run: room for the kill and Redis's restart before it, on a
loaded machine too (5 s was not always enough with the load at 25)."""
ON_TIME = timedelta(seconds=3)
"""A run counts as on time when it starts within this of its planned time (the clock ticks every second; the
machine may be loaded)."""


def test_runs_start_at_their_planned_times_after_a_worker_is_killed_and_redis_restarts(
    arena: Arena, private_redis: PrivateRedis
) -> None:
    ids = [arena.register_bot(name, "random") for name in ("a", "b")]
    victim = arena.workers.start(clock=True)
    arena.workers.start(clock=True)
    arena.workers.wait_listening()
    start_at = now() + timedelta(seconds=LEAD)
    parent = arena.create_tournament(
        ids,
        game="card",
        settings={"pawns": 1},
        start_at=start_at.isoformat(),
        repeat_every=EVERY,
        repeat_times=2,
    )
    arena.workers.kill(victim)
    try:
        os.killpg(victim.pid, 0)
    except ProcessLookupError:
        pass  # the whole process group is gone: no child of the killed worker lives on
    else:
        raise AssertionError(f"a process of the killed worker's group {victim.pid} lives on")
    private_redis.restart(down_seconds=1.0)
    assert now() < start_at, "the kill and the restart came too late: the first run may have started"

    def second_run(session: Session) -> int | None:
        found = session.scalars(select(Tournament.id).where(Tournament.parent_id == parent)).all()
        return found[0] if found else None

    arena.wait_done(parent, timeout=60)
    child = arena.wait_until("the second run", second_run, timeout=60)
    arena.wait_done(child, timeout=60)
    with arena.sessions() as session:
        later = session.execute(
            select(Tournament.run, Tournament.created_at).where(Tournament.parent_id == parent)
        ).all()
        first_game = session.scalar(
            select(func.min(Game.created_at))
            .join(TournamentGame, TournamentGame.game_id == Game.id)
            .where(TournamentGame.tournament_id == parent)
        )
    assert [run for run, _ in later] == [2], "the second run was made once, and no other"
    first_late = runs.utc(first_game) - start_at
    second_late = runs.utc(later[0].created_at) - (start_at + timedelta(seconds=EVERY))
    assert timedelta(0) <= first_late <= ON_TIME, f"the first run's first game began {first_late} after its time"
    assert timedelta(0) <= second_late <= ON_TIME, f"the second run started {second_late} after its planned time"
    assert check_tournament(arena.app, parent) and check_tournament(arena.app, child)
    assert len(arena.workers.alive()) == 1, arena.workers.log_text()
    record("scheduled run, first game after the start time (s)", round(first_late.total_seconds(), 2))
    record("repeat, started after its planned time (s)", round(second_late.total_seconds(), 2))
