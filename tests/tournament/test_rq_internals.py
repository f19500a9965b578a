"""What ``tournament/dispatch/worker.py`` (``ArenaWorker``) takes from RQ beyond its documented API, checked against
the RQ installed: the methods it overrides, with the signatures it calls them with, the attributes it reads, and the
Redis keys it writes itself. RQ is pinned to the versions tested (pyproject.toml); a new RQ that changes any of these
fails here, loudly, before a worker misbehaves (``benchmarks/internals.py worker`` measured why the worker keeps them:
docs/performance.md)."""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import pytest
import redis
import rq
from rq import Queue, SimpleWorker
from rq.job import Job, JobStatus

from runtime.jobqueue import QUEUE_NAME
from tournament.dispatch.worker import ArenaWorker

OVERRIDDEN = {
    "heartbeat": ["self", "timeout", "pipeline"],
    "set_state": ["self", "state", "pipeline"],
    "handle_execution_ended": ["self", "job", "queue", "heartbeat_ttl"],
    "dequeue_job_and_maintain_ttl": ["self", "timeout", "max_idle_time"],
    "check_for_suspension": ["self", "burst"],
    "execute_job": ["self", "job", "queue"],
    "run_maintenance_tasks": ["self"],
    "request_stop": ["self", "signum", "frame"],
    "bootstrap": None,
    "teardown": ["self"],
}
"""RQ's methods that the worker overrides, and their parameters (``None``: whatever they are; it passes them on)."""
CALLED = ["handle_warm_shutdown_request", "request_force_stop", "register_death", "_install_signal_handlers"]


def test_rq_is_a_version_the_worker_was_tested_with() -> None:
    assert rq.__version__.startswith("2.12."), f"RQ {rq.__version__}: check the overrides, then widen the pin"


@pytest.mark.parametrize("name", sorted(OVERRIDDEN))
def test_the_overridden_methods_keep_their_signatures(name: str) -> None:
    method = getattr(SimpleWorker, name)
    expected = OVERRIDDEN[name]
    if expected is not None:
        assert list(inspect.signature(method).parameters) == expected
    assert getattr(ArenaWorker, name) is not method, "the worker overrides it"


def test_the_methods_and_attributes_the_worker_uses_are_there(redis_url: str) -> None:
    connection = redis.Redis.from_url(redis_url)
    try:
        worker = ArenaWorker([QUEUE_NAME], connection=connection)
        for name in CALLED:
            assert callable(getattr(worker, name)), name
        assert worker._stop_requested is False
        assert isinstance(worker.should_run_maintenance_tasks, bool)
        assert hasattr(worker, "pubsub_thread") and worker.key.startswith("rq:worker:")
        assert Queue(QUEUE_NAME, connection=connection).intermediate_queue_key.startswith("rq:")
        worker.register_birth()
        worker.set_state("busy")
        assert worker._state == "busy" and connection.hget(worker.key, "state") == b"busy"
        assert connection.hexists(worker.key, "birth"), "the heartbeat's check of a registration reads it"
        worker.register_death()
    finally:
        connection.close()


def _job_ran(value: int) -> int:
    return value


@pytest.fixture
def worker(redis_url: str) -> Iterator[ArenaWorker]:
    connection = redis.Redis.from_url(redis_url)
    made = ArenaWorker([QUEUE_NAME], connection=connection)
    try:
        yield made
    finally:
        connection.close()


def test_a_job_handed_over_reads_as_finished_as_rq_would_write_it(worker: ArenaWorker) -> None:
    """``hand_over`` writes the end of a job itself: its status, times and worker in the job's hash, its expiry,
    and its id taken out of the queue's list of jobs being taken, where RQ's own dequeue put it."""
    queue = Queue(QUEUE_NAME, connection=worker.connection)
    queue.enqueue(_job_ran, 3, job_id="handed", result_ttl=77)
    job, taken = queue.dequeue_any([queue], timeout=None, connection=worker.connection) or (None, None)
    assert job is not None and taken is not None
    assert worker.connection.lrange(queue.intermediate_queue_key, 0, -1) == [b"handed"]
    worker.hand_over(job, queue)
    fetched = Job.fetch("handed", connection=worker.connection)
    assert fetched.get_status() == JobStatus.FINISHED
    assert fetched.started_at is not None and fetched.ended_at is not None
    assert fetched.worker_name == worker.name
    assert 0 < worker.connection.ttl(job.key) <= 77
    assert worker.connection.lrange(queue.intermediate_queue_key, 0, -1) == []
