"""Where tournament work goes: RQ on Redis when ``REDIS_URL`` is set, else a thread pool in this process.

Neither the service nor this module imports ``tournament``: jobs are named by their dotted path
(``tournament.jobs.play_game``), as microblog does; RQ workers (``sorry-arena worker``) import them. Without Redis
(the embedded default) the same job functions run on this process's threads, after the app's ``configure`` hook
(``tournament.context.configure``, found by its dotted name) points them at this app's database and notifier;
scheduled starts and repeats need RQ's scheduler, so they need Redis.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime
from typing import Any

QUEUE_NAME = "sorry-arena"
GAME_JOB = "tournament.jobs.play_game"
START_JOB = "tournament.jobs.start_tournament"
GAME_TIMEOUT = 4 * 3600
"""An RQ job plays one whole game: its time limit is generous; the lease, not this, detects a dead worker."""

log = logging.getLogger(__name__)


def job_function(dotted: str) -> Callable[..., Any]:
    module, _, name = dotted.rpartition(".")
    function: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return function


class RQQueue:
    """RQ's queue on Redis: any number of ``sorry-arena worker`` processes, on any machine, take its jobs."""

    scheduling = True

    def __init__(self, redis_url: str) -> None:
        import redis
        from rq import Queue

        self.connection = redis.Redis.from_url(redis_url)
        self.queue = Queue(QUEUE_NAME, connection=self.connection)

    def enqueue(self, dotted: str, *args: Any, job_id: str | None = None) -> None:
        self.queue.enqueue_call(dotted, args=args, job_id=job_id, timeout=GAME_TIMEOUT, result_ttl=3600)

    def schedule(
        self, dotted: str, *args: Any, at: datetime | None, repeat_every: int | None, repeat_times: int | None
    ) -> None:
        """Run ``dotted(*args)`` at ``at`` (now if ``None``), then ``repeat_times - 1`` more times, spaced."""
        from rq import Repeat

        repeat = Repeat(times=repeat_times - 1, interval=repeat_every) if repeat_every and repeat_times else None
        if at is None:
            self.queue.enqueue_call(dotted, args=args, repeat=repeat, result_ttl=3600)
        else:
            self.queue.enqueue_at(at, dotted, *args, repeat=repeat, result_ttl=3600)


class LocalQueue:
    """This process's threads (the embedded default): jobs start at once; nothing survives a restart."""

    scheduling = False

    def __init__(self, configure: Callable[[], None], workers: int = 2) -> None:
        self._configure = configure
        self._configured = False
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="sorry-arena-job")
        self.futures: list[Future[Any]] = []

    def enqueue(self, dotted: str, *args: Any, job_id: str | None = None) -> None:
        with self._lock:
            if not self._configured:
                self._configure()
                self._configured = True
        future = self._pool.submit(job_function(dotted), *args)
        future.add_done_callback(self._log_failure)
        with self._lock:  # keep the jobs still running only: a long-lived service enqueues without end
            self.futures = [*(other for other in self.futures if not other.done()), future]

    def schedule(
        self, dotted: str, *args: Any, at: datetime | None, repeat_every: int | None, repeat_times: int | None
    ) -> None:
        if at is not None or repeat_every:
            raise RuntimeError("scheduled starts and repeats need RQ: set REDIS_URL and run `sorry-arena worker`")
        self.enqueue(dotted, *args)

    def wait(self, timeout: float | None = None) -> None:
        """Until every job so far has ended (tests, the demo)."""
        with self._lock:
            futures = list(self.futures)
        for future in futures:
            future.exception(timeout)

    @staticmethod
    def _log_failure(future: Future[Any]) -> None:
        error = future.exception()
        if error is not None:
            log.error("a tournament job failed: %r", error)
