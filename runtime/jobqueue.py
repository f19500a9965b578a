"""Where tournament work goes: RQ on Redis when ``REDIS_URL`` is set, else threads of this process.

Neither the service nor this module imports ``tournament``: jobs are named by their dotted path
(``tournament.jobs.play_game``), as microblog does; RQ workers (``sorry-arena worker``) import them. Without Redis
(the embedded default) the same job functions run on this process's threads, after the app's ``configure`` hook
(``tournament.jobs.configure``, found by its dotted name) points them at this app's database and notifier, and a
maintenance function (``tournament.jobs.maintain_embedded``) runs every second on a thread of its own: it starts
the runs due (start times, repeats) and gives a job to every game that needs one, so that a service killed and
started again goes on with the games it left once their leases run out. Before a thread takes a job, the queue asks
an admission function (``tournament.jobs.admit_embedded``) whether the job may start now: a game of an account that
holds its share of the threads, or of a stalling bot that holds its own, stays queued while the jobs behind it are
taken, as a worker process sends such a game back to its queue.
"""

from __future__ import annotations

import collections
import importlib
import logging
import threading
from collections.abc import Callable
from typing import Any

QUEUE_NAME = "sorry-arena"
GAME_JOB = "tournament.jobs.play_game"
START_JOB = "tournament.jobs.start_tournament"
CANCELLED_JOB = "tournament.jobs.cancelled"
FIT_JOB = "tournament.jobs.fit_pool"
LADDER_JOB = "tournament.jobs.ladder_round"
CONFIGURE = "tournament.jobs.configure"
MAINTAIN_EMBEDDED = "tournament.jobs.maintain_embedded"
ADMIT_EMBEDDED = "tournament.jobs.admit_embedded"
GAME_TIMEOUT = 4 * 3600
"""An RQ job that plays its game itself has a generous time limit; the lease, not this, detects a dead worker."""

log = logging.getLogger(__name__)


def job_function(dotted: str) -> Callable[..., Any]:
    module, _, name = dotted.rpartition(".")
    function: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return function


class RQQueue:
    """RQ's queue on Redis: any number of ``sorry-arena worker`` processes, on any machine, take its jobs."""

    scheduling = True
    """Runs due later (start times, repeats) start: every worker's clock starts them."""

    def __init__(self, redis_url: str) -> None:
        import redis
        from rq import Queue

        self.connection = redis.Redis.from_url(redis_url)
        self.queue = Queue(QUEUE_NAME, connection=self.connection)

    def enqueue(self, dotted: str, *args: Any, job_id: str | None = None, at_front: bool = False) -> bool:
        """Queue ``dotted(*args)`` (``at_front``: before every job waiting, as recovered games go)."""
        self.queue.enqueue_call(
            dotted, args=args, job_id=job_id, timeout=GAME_TIMEOUT, result_ttl=3600, at_front=at_front
        )
        return True

    def queue_start(self, tournament_id: int) -> bool:
        """Queue the start job of a tournament just committed (at the front: a start is quick); ``False``, logged,
        when Redis cannot take it: the tournament is saved, and every worker's clock starts a tournament still
        scheduled whose start time has come (``tournament.dispatch.starts.start_overdue``) once Redis answers, so
        that its creation stands and answers as made, without a 500 that a client would retry into a duplicate."""
        return self._after_commit(START_JOB, tournament_id, "its start job", "the workers' clock starts it")

    def queue_cancelled(self, tournament_id: int) -> bool:
        """Queue the job that follows a committed cancellation (the room it left fed, its pool refitted);
        ``False``, logged, when Redis cannot take it: the cancellation stands (the workers' clock feeds the queue
        every second; the pool is refitted with its next result)."""
        return self._after_commit(
            CANCELLED_JOB, tournament_id, "its cancellation's job", "its pool is refitted later"
        )

    def queue_ladder_round(self, ladder_id: int) -> bool:
        """Queue a matchmaking round of a ladder just changed (made, joined, a bot resumed), so that its games
        start at once; ``False``, logged, when Redis cannot take it: the change stands, and every worker's clock
        runs a round for each open ladder once Redis answers."""
        return self._after_commit(
            LADDER_JOB, ladder_id, "its matchmaking round", "the workers' clock makes its games", "ladder"
        )

    def _after_commit(self, dotted: str, key: int, job: str, meanwhile: str, what: str = "tournament") -> bool:
        import redis

        try:
            return self.enqueue(dotted, key, at_front=True)
        except redis.RedisError as error:
            log.warning(
                "%s %s: %s was not queued (Redis: %s); %s once Redis answers",
                what,
                key,
                job,
                " ".join(str(error).split()) or error.__class__.__name__,
                meanwhile,
            )
            return False


class LocalQueue:
    """This process's threads (the embedded default): ``workers`` jobs at once, in the order queued (``at_front``:
    first), a job id queued or running only once; with ``maintain``, the dotted maintenance function every
    ``interval`` seconds from the first job on (or from :meth:`start`); with ``admit``, the dotted function
    ``admit(dotted, args) -> bool`` asked, under the queue's lock, whether a job may start now (it must not wait
    on anything): a job it refuses keeps its place while the jobs behind it are taken, and is asked again when a
    job ends or comes."""

    def __init__(
        self,
        configure: Callable[[], None],
        workers: int = 8,
        maintain: str | None = None,
        interval: float = 1.0,
        admit: str | None = None,
    ) -> None:
        self._configure = configure
        self._configured = False
        self._workers = workers
        self._maintain = maintain
        self._interval = interval
        self._admit = admit
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._jobs: collections.deque[tuple[str | None, str, tuple[Any, ...]]] = collections.deque()
        self._active: set[str] = set()
        """Ids of the jobs queued or running."""
        self._running = 0
        self._threads: list[threading.Thread] = []
        self._closed = False

    @property
    def slots(self) -> int:
        """How many jobs run at once."""
        return self._workers

    @property
    def busy(self) -> int:
        """How many jobs run now."""
        return self._running

    @property
    def scheduling(self) -> bool:
        """Whether runs due later (start times, repeats) start: the maintenance starts them."""
        return self._maintain is not None

    def start(self) -> None:
        """Configure the jobs and start the threads (and the maintenance) now, before any job is queued."""
        with self._lock:
            self._start_locked()

    def _start_locked(self) -> None:
        if not self._configured:
            self._configure()
            self._configured = True
        if self._threads:
            return
        for number in range(self._workers):
            thread = threading.Thread(target=self._work, name=f"sorry-arena-job-{number}", daemon=True)
            thread.start()
            self._threads.append(thread)
        if self._maintain is not None:
            thread = threading.Thread(target=self._maintenance, name="sorry-arena-maintenance", daemon=True)
            thread.start()
            self._threads.append(thread)

    def enqueue(self, dotted: str, *args: Any, job_id: str | None = None, at_front: bool = False) -> bool:
        """Queue ``dotted(*args)``; ``False`` if a job of that id is queued or running already."""
        with self._lock:
            self._start_locked()
            if job_id is not None:
                if job_id in self._active:
                    return False
                self._active.add(job_id)
            job = (job_id, dotted, args)
            if at_front:
                self._jobs.appendleft(job)
            else:
                self._jobs.append(job)
            self._changed.notify_all()
        return True

    def queue_start(self, tournament_id: int) -> bool:
        """Queue the start job of a tournament just committed, at the front (this process's threads: it cannot
        fail)."""
        return self.enqueue(START_JOB, tournament_id, at_front=True)

    def queue_cancelled(self, tournament_id: int) -> bool:
        """Queue the job that follows a committed cancellation (this process's threads: it cannot fail)."""
        return self.enqueue(CANCELLED_JOB, tournament_id)

    def queue_ladder_round(self, ladder_id: int) -> bool:
        """Queue a matchmaking round of a ladder just changed (this process's threads: it cannot fail; a job of a
        release without it fails on its thread, logged, and the request stands)."""
        return self.enqueue(LADDER_JOB, ladder_id)

    def _work(self) -> None:
        while True:
            with self._lock:
                while True:
                    if self._closed:
                        return
                    job = self._take()
                    if job is not None:
                        break
                    self._changed.wait()  # until a job comes, or one ends (which may admit one refused)
                job_id, dotted, args = job
                self._running += 1
            try:
                job_function(dotted)(*args)
            except Exception:
                log.exception("a tournament job failed: %s%r", dotted, args)
            finally:
                with self._lock:
                    self._running -= 1
                    self._active.discard(job_id or "")
                    self._changed.notify_all()

    def _take(self) -> tuple[str | None, str, tuple[Any, ...]] | None:
        """The first queued job that may start now, out of the queue (the caller holds the lock)."""
        admit = job_function(self._admit) if self._admit is not None and self._configured else None
        for index, job in enumerate(self._jobs):
            if admit is None or admit(job[1], job[2]):
                del self._jobs[index]
                return job
        return None

    def _maintenance(self) -> None:
        assert self._maintain is not None
        failing = False
        while True:
            with self._lock:
                if self._closed:
                    return
            try:
                job_function(self._maintain)()
            except Exception as error:  # the database restarts: the next pass tries again
                if not failing:
                    log.warning(
                        "maintenance skipped: %s", str(error).splitlines()[0] if str(error) else repr(error)
                    )
                failing = True
            else:
                failing = False
            with self._lock:
                if self._changed.wait_for(lambda: self._closed, self._interval):
                    return

    def wait(self, timeout: float | None = None) -> bool:
        """Until no job is queued or running (tests, the demo), ``timeout`` seconds at most; whether that came."""
        with self._lock:
            return self._changed.wait_for(lambda: not self._jobs and not self._running, timeout)

    def close(self) -> None:
        """Stop the threads once their jobs end (queued jobs are dropped: their games wait in the database)."""
        with self._lock:
            self._closed = True
            self._changed.notify_all()
