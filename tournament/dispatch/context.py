"""What a job needs from its process: database sessions, the notifier, the queue, the runner's settings, the
heartbeat of the games it plays, the note of the bots that stall and, in a worker process, the slots that play
them.

An RQ worker builds it once from the environment (``DATABASE_URL``, ``REDIS_URL``, ``SORRY_ARENA_BOT_ALLOW``,
``SORRY_ARENA_LEASE_SECONDS``) and its name; the embedded service, which runs jobs on its own threads, installs its
own with ``configure`` so that jobs share its database and wake its long polls.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from redis.exceptions import RedisError
from sqlalchemy.orm import Session, sessionmaker

from botlink.netguard import parse_allowlist
from runtime.jobqueue import LocalQueue, RQQueue
from runtime.readiness import Readiness
from runtime.settings import DEFAULT_FEED_WINDOW, Settings
from runtime.wakeups import make_notifier
from store.database import make_engine, sessions
from tournament.dispatch.slots import Slots
from tournament.play.game import Notifier, RunnerSettings
from tournament.play.heartbeat import Heartbeat
from tournament.play.stalls import Seated, Stalls, account_cap, stall_cap

log = logging.getLogger(__name__)


@dataclass
class Context:
    sessions: sessionmaker[Session]
    notifier: Notifier
    queue: RQQueue | LocalQueue
    runner: RunnerSettings
    heartbeat: Heartbeat
    slots: Slots | None = None
    """A worker process's game slots (``play_game`` hands its game to one); ``None``: a job plays its game itself
    (the embedded queue's threads are the slots)."""
    stalls: Stalls = field(default_factory=lambda: Stalls(cap=1))
    """The bots that stall, and the games of this process each bot and each account sits in (a worker sends back
    the jobs of an account's games beyond its share of the slots, and of a stalling bot's beyond its own:
    ``tournament.play.stalls``)."""
    stopping: threading.Event = field(default_factory=threading.Event)
    """Set when the process stops: games waiting for the database give up."""
    feed_window: int = DEFAULT_FEED_WINDOW
    """The most games of one account waiting in the queue at once (``tournament.dispatch.feed``)."""
    readiness: Readiness | None = None
    """The process's readiness checks (its database, its Redis, the migrations: ``runtime.readiness``), which a
    worker reports as ``sorry_arena_worker_ready``."""
    admitted: dict[int, Seated] = field(default_factory=dict)
    """The embedded queue's games admitted and counted in ``stalls``, by scheduled game, until their thread takes
    them over (``playing.admit_here``, ``playing.run_game``)."""
    keep_moves_days: int | None = None
    """Days a finished game keeps its action rows before the maintenance archives it (``store/retention.py``);
    ``None``: for ever."""
    feeding: threading.Lock = field(default_factory=threading.Lock)
    feed_wanted: threading.Event = field(default_factory=threading.Event)
    """Held while a thread of the process tops the queue up, and set when another asks meanwhile (``jobs.top_up``)."""


_context: Context | None = None


class Hints:
    """A worker's notifier: what it publishes only wakes long polls sooner (they check the database again on their
    own, and when their listener reconnects to Redis), so Redis failing to take a publish (an outage) must not stop
    the game being played, which only needs the database: it is logged, once per outage, and the game goes on."""

    def __init__(self, notifier: Notifier) -> None:
        self.notifier = notifier
        self.failing = False

    def publish(self, game_id: int, ply: int) -> None:
        self._hint(self.notifier.publish, game_id, ply)

    def publish_players(self, player_ids: Iterable[int], game_id: int | None = None) -> None:
        self._hint(self.notifier.publish_players, player_ids, game_id)

    def wait(self, game_id: int, ready: Callable[[], bool], timeout: float) -> bool:
        return self.notifier.wait(game_id, ready, timeout)

    def _hint(self, publish: Callable[..., None], *args: Any) -> None:
        try:
            publish(*args)
        except RedisError as error:
            if not self.failing:
                log.warning("Redis takes no publish (%s): long polls wake on their own until it is back", error)
            self.failing = True
        else:
            self.failing = False


def worker_name() -> str:
    """The default name of this process as a lease holder: its host and process id."""
    return f"{socket.gethostname()}:{os.getpid()}"


def runner_settings(settings: Settings, name: str | None = None) -> RunnerSettings:
    return RunnerSettings(
        worker=name or worker_name(),
        allow=parse_allowlist(settings.bot_allow),
        lease_seconds=settings.lease_seconds,
        old_protocol_days=settings.old_protocol_days,
    )


def build(
    settings: Settings,
    engine: Any,
    notifier: Notifier,
    queue: RQQueue | LocalQueue,
    name: str | None = None,
    slots: Slots | None = None,
) -> Context:
    made = sessions(engine)
    runner = runner_settings(settings, name)
    heartbeat = Heartbeat(made, runner.worker, runner.lease_seconds)
    count = slots.count if slots is not None else queue.slots if isinstance(queue, LocalQueue) else 1
    shared = slots is not None or isinstance(queue, LocalQueue)  # the embedded queue's threads are its slots
    stalls = Stalls(stall_cap(count), account_cap(count, settings.account_share_percent) if shared else None)
    return Context(
        made,
        notifier,
        queue,
        runner,
        heartbeat,
        slots,
        stalls,
        feed_window=settings.feed_window,
        readiness=Readiness(engine, settings.redis_url),
        keep_moves_days=settings.keep_moves_days,
    )


def from_env(name: str | None = None, slots: Slots | None = None) -> Context:
    """A worker process's context (``name``: its lease holder's name, default host and pid)."""
    settings = Settings.from_env()
    if not settings.redis_url:
        raise RuntimeError("an RQ worker needs REDIS_URL")
    engine = make_engine(settings.database_url, settings.db_pool_size, settings.db_max_overflow)
    return build(
        settings, engine, Hints(make_notifier(settings.redis_url)), RQQueue(settings.redis_url), name, slots
    )


def install(context: Context) -> None:
    """Jobs of this process use ``context`` from now on (a worker process, before its first job)."""
    global _context
    _context = context


def configure(settings: Settings, engine: Any, notifier: Notifier, queue: RQQueue | LocalQueue) -> None:
    """Jobs of this process use the given database engine, notifier and queue (the embedded service)."""
    install(build(settings, engine, notifier, queue))


def get() -> Context:
    global _context
    if _context is None:
        _context = from_env()
    return _context
