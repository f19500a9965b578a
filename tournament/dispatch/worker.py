"""``sorry-arena worker``: an RQ worker that plays several tournament games at once, with a heartbeat for their
leases, a clock for the runs due, the recovery of games whose worker died or whose job was lost, and a worker that
outlives a Redis outage.

A ``SimpleWorker`` (a forking worker re-imports the job module for every job; a job hands its game over at once, so
no fork is needed), with the job module imported before the first job. It takes a job from the queue only when one
of its game slots is free (``tournament.dispatch.slots``); a game job hands its game to that slot and returns, so the worker
goes on taking jobs while its games wait for their bots (and RQ's bookkeeping of a job, a dozen round trips to
Redis, is cut to one for a game's: ``ArenaWorker.hand_over``); a job for a game of an account that already holds
its share of the slots, or of a bot that stalls (its calls run out their deadline) while it sits in its share, goes
back to the end of the queue (``tournament.play.stalls``), so no few accounts hold every slot and the slots stay with
the games that move. While it waits for a free slot it keeps its registration alive and runs its maintenance on time. The maintenance, every ``maintenance_interval`` seconds, enqueues again
(at the front of the queue) the games that have no live job and starts the runs due (``recovery.recover``); a
database that fails meanwhile only skips that pass. The clock (``tournament.dispatch.clock``) starts the runs due every
second, so start times and repeats keep their planned times without RQ's scheduler (no child process to outlive
the worker). On SIGTERM or SIGINT the worker takes no more jobs, its games stop at their next step, save what they
played and give their leases back, and it exits. RQ's handler of the signal raises into whatever the main thread
runs; while that is a job or the maintenance (statements half sent to the database, a game half handed over) the stop
waits for its end instead (``ArenaWorker.request_stop``).

The overrides of RQ's own methods reach into its internals (its Redis keys, its worker's private state): they earned
their place by measurement (``benchmarks/internals.py worker``: the worker's CPU per game job against the same worker
with RQ's own lifecycle of a job, heartbeat, state and suspension check; docs/performance.md), or are needed for a
warm stop (``tests/tournament/test_worker_stop.py``) and for a Redis that restarts
(``tests/reliability/test_redis_restart.py``). RQ is pinned to the versions tested, and
``tests/tournament/test_rq_internals.py`` fails when what they touch changes.

RQ's work loop quits on most Redis errors, and a Redis that restarts empty has forgotten the worker. So when the
worker loses Redis (a connection error, or its own registration gone from Redis) it ends that RQ worker, waits until
Redis answers, and starts a new one: the jobs Redis lost are the maintenance's to enqueue again, from the database.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rq import SimpleWorker, worker_registration
from rq.defaults import DEFAULT_RESULT_TTL
from rq.exceptions import StopRequested
from rq.job import JobStatus
from rq.registry import clean_registries
from rq.utils import now as rq_now
from rq.utils import utcformat
from sqlalchemy.exc import SQLAlchemyError

from runtime import metrics, metricserver
from runtime.jobqueue import GAME_JOB, QUEUE_NAME
from runtime.settings import Settings
from store.database import first_line
from tournament.dispatch import context, playing, recovery
from tournament.dispatch.clock import Clock, Readiness
from tournament.dispatch.feed import top_up
from tournament.dispatch.slots import Slots

log = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 1.0
"""The least time between two plain heartbeats of the worker to Redis (``ArenaWorker.heartbeat``)."""
STUCK_AFTER = timedelta(minutes=1)
"""How long a job may sit in the queue's list of jobs being taken, seen there twice, before it counts as stuck (RQ's
rule: ``ArenaWorker.clean_intermediate``)."""
STUCK_KEPT = 24 * 3600
"""How long a job's first sighting there is kept (RQ's: a day)."""
HELD_WAIT_SECONDS = 1.0
"""The longest a job sent back again waits for news before it goes back (``ArenaWorker.held_back``)."""
HELD_LOOK_SECONDS = 0.1
"""How often it looks meanwhile for a new job in the queue."""
SUSPENSION_CHECK_SECONDS = 1.0
"""The least time between two checks for ``rq suspend`` (``ArenaWorker.check_for_suspension``)."""


class RedisLost(RedisError):
    """Redis forgot this worker (it restarted empty, or was flushed): a new worker has to register."""


class ArenaWorker(SimpleWorker):
    """RQ's SimpleWorker, which notes when it loses Redis (every step of RQ's work loop that talks to Redis is watched
    here: RQ's loop quits on such an error, or sees none when its wait for a job reconnects by itself)."""

    registered = False
    """Set once the worker registered with Redis: a Redis error before that is no loss, Redis was never there."""
    lost_redis = False
    """Set when this worker lost Redis: its RQ state there is gone or unknown, so it is replaced by a new one."""
    max_connection_wait_time = 5.0
    """The longest pause between attempts to reach Redis while waiting for a job (RQ's default: 60 s)."""

    slots: Slots | None = None
    """The process's game slots: a job is taken only when one is free."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._held: set[str] = set()
        """The jobs sent back since a game here last ended (``_held_since``, a ``Stalls.version``)."""
        self._held_since = -1
        self._last_beat = float("-inf")
        """When the last plain heartbeat reached Redis (``time.monotonic``)."""
        self._suspension_checked = float("-inf")
        self._deferring = 0
        """How deep the main thread is in work that a stop must not cut (``_stop_after``)."""
        self.stop = threading.Event()
        """Set when the process is asked to stop (SIGINT, SIGTERM): no new worker then (``run`` shares one)."""

    def request_stop(self, signum: Any, frame: Any) -> None:
        """RQ's warm stop: it raises ``StopRequested`` into the main thread, unless a job runs. Here a job, or the
        maintenance, never has it raised in the middle (a statement half sent leaves its connection unusable, and a
        ``StopRequested`` caught with the statement's error was lost: the worker went on): the stop is noted, as RQ
        notes one during a job, and taken once that work is done (:meth:`_stop_after`). A second signal stops at once,
        as with RQ."""
        self.stop.set()
        if not self._deferring:
            super().request_stop(signum, frame)
            return
        signal.signal(signal.SIGINT, self.request_force_stop)
        signal.signal(signal.SIGTERM, self.request_force_stop)
        self.handle_warm_shutdown_request()
        self._stop_requested = True

    @contextlib.contextmanager
    def _stop_after(self) -> Iterator[None]:
        """Work that a stop asked meanwhile waits for (:meth:`request_stop`); RQ's loop takes the stop after it, at
        its check before the next job."""
        self._deferring += 1
        try:
            yield
        finally:
            self._deferring -= 1

    @contextlib.contextmanager
    def _noting_redis_loss(self) -> Iterator[None]:
        try:
            yield
        except (RedisConnectionError, RedisTimeoutError, RedisLost):
            self.lost_redis = True
            raise

    def heartbeat(self, timeout: int | None = None, pipeline: Any = None) -> None:
        """RQ's heartbeat, which also tells whether Redis still knows the worker: after a flush, RQ's own writes
        recreate the worker's key in part, so its birth tells a registration. RQ beats twice per job, and every
        second while the slots are full: a plain beat (no ``timeout``, no ``pipeline``) less than
        ``HEARTBEAT_SECONDS`` after the last is skipped, the worker's key living ``worker_ttl + 60`` seconds, and one
        beat is one round trip (the check and RQ's writes in one pipeline)."""
        with self._noting_redis_loss():
            if pipeline is not None:
                super().heartbeat(timeout, pipeline)
                return
            moment = time.monotonic()
            if timeout is None and moment - self._last_beat < HEARTBEAT_SECONDS:
                return
            with self.connection.pipeline(transaction=False) as beat:
                beat.hexists(self.key, "birth")
                super().heartbeat(timeout, beat)
                registered = beat.execute()[0]
            if not registered:
                raise RedisLost(f"worker {self.name}: its registration is gone from Redis (restarted or flushed)")
            self._last_beat = moment

    def set_state(self, state: str, pipeline: Any = None) -> None:
        """RQ's state of the worker, written to Redis only when it changes (RQ sets ``idle`` after each job and
        again as it waits for the next: one round trip per job saved)."""
        if pipeline is None and state == getattr(self, "_state", None):
            return
        super().set_state(state, pipeline)

    def handle_execution_ended(self, job: Any, queue: Any, heartbeat_ttl: int) -> None:
        """RQ's note of a job's end, without the job's heartbeat that RQ sends with it (a round trip per job): it
        keeps the job alive through its success or failure callback, and no job here has one."""
        job.ended_at = rq_now()

    def bootstrap(self, *args: Any, **kwargs: Any) -> None:
        super().bootstrap(*args, **kwargs)
        self.registered = True
        log.info(
            "worker %s registered with Redis: listening on queue %s", self.name, ", ".join(self.queue_names())
        )

    def teardown(self) -> None:
        with self._noting_redis_loss():
            super().teardown()

    def dequeue_job_and_maintain_ttl(self, timeout: int | None, max_idle_time: int | None = None) -> Any:
        with self._noting_redis_loss():
            if self.slots is not None and not self.slots.reserved:
                while not self.slots.reserve(timeout=1.0):  # every slot plays a game: wait, and stay alive
                    if self._stop_requested or self.stop.is_set():
                        return None
                    self.heartbeat()
                    if self.should_run_maintenance_tasks:
                        self.run_maintenance_tasks()
            found = super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)
            if found is None and self.slots is not None:
                self.slots.cancel()
            return found

    def held_back(self, job: Any, queue: Any = None) -> bool:
        """Whether a game's job goes back to the queue (``playing.held_back``: its account holds its share of the
        slots, or a bot of it stalls in its own). A job that comes back again before any game here ended waits
        first (:meth:`_wait_for_news`, a second at most) for a game here to end or a job not sent back yet to come
        into ``queue``, so that a queue of nothing but such games is gone through once a second at most (the jobs
        carry their bots and account: no database read), and another account's game is taken as it comes."""
        if self.slots is None or job.func_name != GAME_JOB or not job.args:
            return False
        ctx = context.get()
        if not playing.held_back(ctx, *job.args[:3]):
            return False
        version = ctx.stalls.version()
        if version != self._held_since:
            self._held, self._held_since = set(), version
        if job.id in self._held:
            self._wait_for_news(ctx, queue, version)
            self._held, self._held_since = set(), ctx.stalls.version()
        self._held.add(job.id)
        metrics.STALL_HOLDS.inc()
        log.debug(
            "game job %s goes back to the queue: its account, or a stalling bot of it, holds its share", job.id
        )
        return True

    def _wait_for_news(self, ctx: context.Context, queue: Any, version: int) -> None:
        """Wait up to ``HELD_WAIT_SECONDS`` for a game here to end (after ``version``) or, looked at every
        ``HELD_LOOK_SECONDS``, a job in ``queue`` not sent back since then (one read of its ids from Redis)."""
        deadline = time.monotonic() + HELD_WAIT_SECONDS
        while True:
            if queue is not None and not set(queue.get_job_ids()) <= self._held:
                return
            left = deadline - time.monotonic()
            if left <= 0 or ctx.stalls.wait_for_a_game_to_end(version, timeout=min(left, HELD_LOOK_SECONDS)):
                return

    def check_for_suspension(self, burst: bool) -> None:
        """RQ's check for ``rq suspend``, at most once a second (RQ asks Redis before every job)."""
        moment = time.monotonic()
        if not burst and moment - self._suspension_checked < SUSPENSION_CHECK_SECONDS:
            return
        with self._noting_redis_loss():
            super().check_for_suspension(burst)
        self._suspension_checked = moment

    def execute_job(self, job: Any, queue: Any) -> None:
        with self._noting_redis_loss(), self._stop_after():
            try:
                if self.held_back(job, queue):
                    self.send_back(job, queue)
                    return
                if self.slots is not None and job.func_name == GAME_JOB:
                    self.hand_over(job, queue)
                    return
                super().execute_job(job, queue)
            finally:
                if self.slots is not None:
                    self.slots.cancel()  # a job that was no game (a start) leaves its slot free

    def hand_over(self, job: Any, queue: Any) -> None:
        """Run a game's job (``jobs.play_game``, which hands the game to a slot and returns at once) without RQ's
        lifecycle of a job: an execution record, the started and finished registries and a stored return value
        cost a dozen round trips to Redis and milliseconds of this process per game, for a job that lasts a moment.
        One pipeline then notes the job ended, as RQ would (its status, which the recovery reads: ``recovery.live``;
        kept as long as RQ keeps a result), and takes it out of the queue's list of jobs being taken. A game whose
        job fails is its lease's and the recovery's to play again, as after any failed job."""
        try:
            job.func(*job.args, **job.kwargs)
        except Exception:
            log.exception("game job %s failed; the recovery enqueues its game again", job.id)
        moment = utcformat(rq_now())
        with self.connection.pipeline(transaction=False) as ended:
            ended.hset(
                job.key,
                mapping={
                    "status": JobStatus.FINISHED.value,
                    "started_at": moment,
                    "ended_at": moment,
                    "worker_name": self.name,
                },
            )
            ended.expire(job.key, job.result_ttl if job.result_ttl and job.result_ttl > 0 else DEFAULT_RESULT_TTL)
            ended.lrem(queue.intermediate_queue_key, 1, job.id)
            ended.delete(queue.intermediate_queue.get_first_seen_key(job.id))
            ended.execute()

    def send_back(self, job: Any, queue: Any) -> None:
        """A held-back game's job to the end of the queue (the other games go first), in one pipeline with its id
        taken out of the queue's list of jobs being taken, as :meth:`hand_over` does: left there, RQ's cleanup of
        that list failed it a minute later ("stuck in intermediate queue") though it was queued again, and the
        recovery, reading it failed, enqueued its game a second time."""
        with self.connection.pipeline(transaction=False) as back:
            queue.enqueue_job(job, pipeline=back)
            back.lrem(queue.intermediate_queue_key, 1, job.id)
            back.delete(queue.intermediate_queue.get_first_seen_key(job.id))
            back.execute()

    def clean_registries(self) -> None:
        """RQ's cleaning of the queue's registries, with its cleanup of the list of jobs being taken replaced by
        :meth:`clean_intermediate`."""
        for queue in self.queues:
            if queue.acquire_maintenance_lock():
                self.log.info("Worker %s: cleaning registries for queue: %s", self.name, queue.name)
                clean_registries(queue, self._exc_handlers)
                worker_registration.clean_worker_registry(queue)
                self.clean_intermediate(queue)
                queue.release_maintenance_lock()
        self.last_cleaned_at = rq_now()  # type: ignore[assignment]

    def clean_intermediate(self, queue: Any) -> None:
        """Fail the jobs stuck in the queue's list of jobs being taken (a worker took one and died before it ran):
        RQ's rule (seen there twice, a minute apart, and not started), except that a job's first sighting counts
        only since it was last enqueued. RQ keys that sighting by job id for a day, and never clears it; a game's
        job is in the list for a moment only (:meth:`hand_over` takes it out, never through RQ's started registry),
        so a cleanup that caught it there left a sighting that failed the same id at once when the recovery or a
        held-back game enqueued it again: a job failed though its game was played, and the game enqueued twice."""
        intermediate = queue.intermediate_queue
        for job_id in intermediate.get_job_ids():
            if job_id in queue.started_job_registry:
                continue
            job = queue.fetch_job(job_id)
            if job is None:
                intermediate.remove(job_id)
                continue
            first_seen = intermediate.get_first_seen(job_id)
            if first_seen is None or (job.enqueued_at is not None and first_seen < job.enqueued_at):
                self.connection.set(intermediate.get_first_seen_key(job_id), rq_now().timestamp(), ex=STUCK_KEPT)
                continue
            if rq_now() - first_seen > STUCK_AFTER:
                self.handle_job_failure(job, queue, exc_string="Job was stuck in intermediate queue.")
                intermediate.remove(job_id)

    def run_maintenance_tasks(self) -> None:
        """RQ's maintenance and the recovery (``recovery.recover``); a stop asked meanwhile is taken after them, before
        the wait for a job that RQ's loop may go on to."""
        with self._noting_redis_loss(), self._stop_after():
            super().run_maintenance_tasks()
            try:
                recovery.recover(context.get())
            except SQLAlchemyError as error:  # the database restarts: the next pass tries again
                log.warning("recovery skipped: the database failed: %s", first_line(error))
        if self._stop_requested:
            raise StopRequested()


def wait_for_redis(connection: Any, stop: threading.Event, longest_pause: float = 5.0) -> bool:
    """Until Redis answers (``True``), or the process is asked to stop meanwhile (``False``)."""
    pause = 0.25
    while not stop.is_set():
        try:
            connection.ping()
            return True
        except RedisError:
            stop.wait(pause)
            pause = min(pause * 2, longest_pause)
    return False


def run(
    *,
    burst: bool,
    with_clock: bool,
    maintenance_interval: int,
    name: str | None = None,
    games: int = 8,
    metrics_port: int | None = None,
) -> bool:
    """Work until stopped (or, with ``burst``, until the queue is empty and every game taken has ended), serving
    the process's metrics on ``metrics_port`` meanwhile (``runtime/metricserver.py``)."""
    slots = Slots(games)
    ctx = context.from_env(name, slots)
    context.install(ctx)
    log.info(
        "worker %s starts: %d game slots, %s, maintenance every %d s%s",
        name or "(unnamed)",
        games,
        "with a clock" if with_clock else "without a clock",
        maintenance_interval,
        ", burst" if burst else "",
    )
    server = None
    if metrics_port is not None:
        settings = Settings.from_env()
        guard = metricserver.Guard(settings.operator_token, metricserver.parse_networks(settings.metrics_allow))
        try:
            server = metricserver.serve(metricserver.MetricsApp(guard), metrics_port)
        except OSError as error:  # taken, or not ours to bind
            raise ValueError(f"the metrics port {metrics_port}: {error.strerror or error}") from None
        log.info("metrics served on port %s", metrics_port)
    clock = Clock(ctx) if with_clock else None
    readiness = None if with_clock else Readiness(ctx)  # the clock keeps the readiness gauge, else this
    try:
        return work(ctx, slots, burst=burst, maintenance_interval=maintenance_interval, name=name)
    finally:
        ctx.stopping.set()
        if clock is not None:
            clock.stop()
        if readiness is not None:
            readiness.stop()
        ctx.heartbeat.stop_all()  # every game stops at its next step and gives its lease back
        slots.join(timeout=max(ctx.runner.lease_seconds, 5.0))
        if server is not None:
            server.shutdown()


def work(ctx: context.Context, slots: Slots, *, burst: bool, maintenance_interval: int, name: str | None) -> bool:
    queue: Any = ctx.queue
    stop = threading.Event()
    """Set by SIGINT or SIGTERM: RQ's handlers while a worker works, this process's own between workers."""
    signals = (signal.SIGINT, signal.SIGTERM)
    previous = {number: signal.getsignal(number) for number in signals}
    worked = False
    lives = 0
    try:
        while True:
            worker = ArenaWorker(
                [QUEUE_NAME],
                name=name,
                connection=queue.connection,
                maintenance_interval=maintenance_interval,
                # the idle wait is worker_ttl - 15: maintenance keeps pace
                worker_ttl=max(maintenance_interval + 15, 20),
            )
            worker.stop = stop
            worker.slots = slots
            try:
                worked = worker.work(burst=burst, logging_level=None) or worked
                if burst:
                    slots.join()  # a burst ends once the games it took have ended
                    top_up(ctx, wait=True)  # and the feeding their ends asked for is done
                    if queue.queue.count and not stop.is_set():
                        continue  # and the games they fed (``tournament.dispatch.feed``) are played too: another pass
            except StopRequested:  # asked to stop while RQ tears the worker down: as good as stopped
                stop.set()
            except RedisError:  # Redis is unreachable at the start, or still down when the worker unregisters
                if lives == 0 and not worker.registered:
                    raise  # never reached Redis: the command reports it
                worker.lost_redis = True
            finally:
                for number in signals:  # RQ's handlers raise into whatever runs: ours only take note
                    signal.signal(number, lambda *_: stop.set())
            if stop.is_set() or not worker.lost_redis:
                return worked
            if worker.pubsub_thread is not None:  # its teardown may have failed before stopping this thread
                worker.pubsub_thread.stop()
            log.warning("worker %s lost Redis: a new worker starts once Redis answers", worker.name)
            if not wait_for_redis(queue.connection, stop):
                return worked
            if name is not None:  # Redis may have kept the lost worker's registration: free its name
                with contextlib.suppress(RedisError):
                    worker.register_death()
            lives += 1
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
