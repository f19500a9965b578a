"""What ``tournament/dispatch/worker.py`` (``ArenaWorker``) takes from RQ beyond its documented API, checked against
the RQ installed: the methods it overrides, with the signatures it calls them with, the attributes it reads, and the
Redis keys it writes itself. RQ is pinned to the versions tested (pyproject.toml); a new RQ that changes any of these
fails here, loudly, before a worker misbehaves (``benchmarks/internals.py worker`` measured why the worker keeps them:
docs/performance.md)."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from datetime import timedelta

import pytest
import redis
import rq
from rq import Queue, SimpleWorker
from rq.job import Job, JobStatus
from rq.utils import now as rq_now

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
    "clean_registries": ["self"],
}
"""RQ's methods that the worker overrides, and their parameters (``None``: whatever they are; it passes them on)."""
CALLED = [
    "handle_warm_shutdown_request",
    "request_force_stop",
    "register_death",
    "_install_signal_handlers",
    "handle_job_failure",
]


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


def test_a_job_sent_back_leaves_the_list_of_jobs_being_taken(worker: ArenaWorker) -> None:
    """``send_back`` (a held-back game's job to the end of the queue) takes its id out of RQ's intermediate queue:
    left there, RQ's cleanup failed the job a minute later although it was queued again."""
    queue = Queue(QUEUE_NAME, connection=worker.connection)
    queue.enqueue(_job_ran, 1, job_id="held")
    job, _ = queue.dequeue_any([queue], timeout=None, connection=worker.connection) or (None, None)
    assert job is not None
    worker.send_back(job, queue)
    assert worker.connection.lrange(queue.intermediate_queue_key, 0, -1) == []
    assert queue.get_job_ids() == ["held"] and job.get_status() == JobStatus.QUEUED


def test_a_job_enqueued_again_is_judged_stuck_from_its_new_enqueueing(worker: ArenaWorker) -> None:
    """RQ keys a job's first sighting in its intermediate queue by job id for a day: a game's job caught there for
    a moment, then enqueued again under the same id (the recovery, a held-back game), was failed at once as
    "stuck". ``clean_intermediate`` counts a sighting only since the job's last enqueueing; a job truly stuck
    (seen twice, more than a minute apart, since then) is still failed."""
    queue = Queue(QUEUE_NAME, connection=worker.connection)
    intermediate = queue.intermediate_queue
    queue.enqueue(_job_ran, 2, job_id="again")
    stale = (rq_now() - timedelta(minutes=5)).timestamp()  # a sighting left from an earlier passage
    worker.connection.set(intermediate.get_first_seen_key("again"), stale)
    assert queue.dequeue_any([queue], timeout=None, connection=worker.connection) is not None
    worker.clean_intermediate(queue)
    assert Job.fetch("again", connection=worker.connection).get_status() == JobStatus.QUEUED, "not failed"
    assert worker.connection.lrange(queue.intermediate_queue_key, 0, -1) == [b"again"]
    worker.connection.set(intermediate.get_first_seen_key("again"), stale)  # now stuck since this enqueueing
    job = Job.fetch("again", connection=worker.connection)
    job.enqueued_at = rq_now() - timedelta(minutes=10)
    job.save()
    worker.clean_intermediate(queue)
    assert Job.fetch("again", connection=worker.connection).get_status() == JobStatus.FAILED
    assert worker.connection.lrange(queue.intermediate_queue_key, 0, -1) == []
