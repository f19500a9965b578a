"""A worker asked to stop (SIGTERM) while its main thread runs the maintenance or a job: RQ's handler raised
``StopRequested`` into that work (a statement half sent, its error caught with the stop, and the worker went on
waiting for jobs). The stop waits for the work's end, then the worker stops before it waits for another job."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest
import redis
from rq.exceptions import StopRequested

from runtime.jobqueue import QUEUE_NAME
from tournament.dispatch import context, recovery
from tournament.dispatch.worker import ArenaWorker


@pytest.fixture
def worker(redis_url: str) -> Iterator[ArenaWorker]:
    """A worker on the test's own Redis database, with RQ's signal handlers installed (restored afterwards)."""
    handlers = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    connection = redis.Redis.from_url(redis_url)
    made = ArenaWorker([QUEUE_NAME], connection=connection)
    made._install_signal_handlers()
    try:
        yield made
    finally:
        for number, handler in handlers.items():
            signal.signal(number, handler)
        connection.close()


def test_a_stop_during_the_maintenance_is_taken_after_it(
    worker: ArenaWorker, monkeypatch: pytest.MonkeyPatch
) -> None:
    recovered = []

    def recover(ctx: object) -> None:
        os.kill(os.getpid(), signal.SIGTERM)  # the handler runs here, in the main thread, mid-recovery
        recovered.append("to its end")

    monkeypatch.setattr(recovery, "recover", recover)
    monkeypatch.setattr(context, "get", object)  # the recovery above needs none (a real one needs REDIS_URL)
    with pytest.raises(StopRequested):
        worker.run_maintenance_tasks()
    assert recovered == ["to its end"]
    assert worker.stop.is_set()
    assert worker._stop_requested  # RQ's loop checks it before its next job too


def test_a_stop_during_a_job_is_taken_at_the_loops_next_check(worker: ArenaWorker) -> None:
    with worker._stop_after():
        os.kill(os.getpid(), signal.SIGTERM)
        finished = True
    assert finished
    assert worker._stop_requested and worker.stop.is_set()


def test_a_stop_while_waiting_for_a_job_is_taken_at_once(worker: ArenaWorker) -> None:
    worker.set_state("idle")
    with pytest.raises(StopRequested):
        os.kill(os.getpid(), signal.SIGTERM)
        signal.pause()  # not reached: the handler raised first
    assert worker.stop.is_set()
