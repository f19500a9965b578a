"""Redis restarted empty between a tournament's creation and its start time: RQ's scheduled start job is gone, and
with it the chain of repeats (RQ's ``Repeat`` lives on that job).

The tournament row was committed before its job was scheduled, so the database still says what is due: the workers'
maintenance starts the first run a lease after its start time and the second a lease after it is due, each once
(``tournament/runs.py``), and their games are played like any others. One worker runs RQ's scheduler, so a start
job that Redis had kept would have fired; none does here."""

from __future__ import annotations

import re
import time
from collections import Counter
from datetime import timedelta

import redis
from rq.registry import ScheduledJobRegistry
from sqlalchemy import select
from sqlalchemy.orm import Session

from runtime.jobqueue import QUEUE_NAME
from store.models import Tournament, now
from tests.reliability.harness import LEASE_SECONDS, Arena, check_tournament
from tests.reliability.servers import PrivateRedis
from tournament import runs

EVERY = 8
RECOVERED = re.compile(r"runs due a lease ago had not started \(.*?\): started them \(tournaments ([\d, ]+)\)")


def scheduled_jobs(url: str) -> list[str]:
    connection = redis.Redis.from_url(url)
    try:
        return [str(job_id) for job_id in ScheduledJobRegistry(QUEUE_NAME, connection=connection).get_job_ids()]
    finally:
        connection.close()


def test_a_lost_start_job_and_its_repeats_are_started_from_the_database(
    arena: Arena, private_redis: PrivateRedis
) -> None:
    ids = [arena.register_bot(name, "random") for name in ("a", "b")]
    arena.workers.start(scheduler=True)
    arena.workers.start()
    arena.workers.wait_listening()
    start_at = now() + timedelta(seconds=4)
    parent = arena.create_tournament(
        ids,
        game="card",
        settings={"pawns": 1},
        start_at=start_at.isoformat(),
        repeat_every=EVERY,
        repeat_times=2,
    )
    assert len(scheduled_jobs(private_redis.url)) == 1  # its start job waits for its time in RQ's scheduler
    private_redis.restart(down_seconds=1.0)
    assert now() < start_at, "the restart came too late: the start job may have fired"
    assert scheduled_jobs(private_redis.url) == []
    began = time.monotonic()

    def second_run(session: Session) -> int | None:
        found = session.scalars(select(Tournament.id).where(Tournament.parent_id == parent)).all()
        return found[0] if found else None

    arena.wait_done(parent, timeout=45)
    child = arena.wait_until("the second run", second_run, timeout=45)
    arena.wait_done(child, timeout=45)
    took = time.monotonic() - began
    with arena.sessions() as session:
        later = session.execute(
            select(Tournament.run, Tournament.created_at).where(Tournament.parent_id == parent)
        ).all()
        first = session.get(Tournament, parent)
        assert first is not None and first.start_at is not None
        due = runs.utc(first.start_at)
    assert [run for run, _ in later] == [2], "the second run was made once, and no other"
    made = runs.utc(later[0].created_at)
    assert made >= due + timedelta(seconds=EVERY), "the second run started before it was due"
    assert made >= due + timedelta(seconds=EVERY + LEASE_SECONDS), "the recovery, not RQ, started it"
    assert check_tournament(arena.app, parent) and check_tournament(arena.app, child)
    log = arena.workers.log_text(None)
    recovered = Counter(int(found) for line in RECOVERED.findall(log) for found in line.split(", "))
    assert recovered == Counter({parent: 1, child: 1}), log  # each run started once, by one worker's recovery
    assert len(arena.workers.alive()) == 2, log
    print(f"both runs done {took:.1f} s after the restart; run 2 made {(made - due).total_seconds():.1f} s in")
