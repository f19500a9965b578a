"""What a job needs from its process: database sessions, the notifier, the queue and the runner's settings.

An RQ worker builds it once from the environment (``DATABASE_URL``, ``REDIS_URL``, ``SORRY_ARENA_BOT_ALLOW``,
``SORRY_ARENA_LEASE_SECONDS``); the embedded service, which runs jobs on its own threads, installs its own with
``configure`` so that jobs share its database and wake its long polls.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from redis.exceptions import RedisError
from sqlalchemy.orm import Session, sessionmaker

from botlink.netguard import parse_allowlist
from runtime.jobqueue import LocalQueue, RQQueue
from runtime.settings import Settings
from runtime.wakeups import make_notifier
from store.database import make_engine
from tournament.runner import Notifier, RunnerSettings

log = logging.getLogger(__name__)


@dataclass
class Context:
    sessions: sessionmaker[Session]
    notifier: Notifier
    queue: RQQueue | LocalQueue
    runner: RunnerSettings


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
    return f"{socket.gethostname()}:{os.getpid()}"


def runner_settings(settings: Settings) -> RunnerSettings:
    return RunnerSettings(
        worker=worker_name(),
        allow=parse_allowlist(settings.bot_allow),
        lease_seconds=settings.lease_seconds,
    )


def from_env() -> Context:
    settings = Settings.from_env()
    if not settings.redis_url:
        raise RuntimeError("an RQ worker needs REDIS_URL")
    return Context(
        sessions=sessionmaker(make_engine(settings.database_url), expire_on_commit=False),
        notifier=Hints(make_notifier(settings.redis_url)),
        queue=RQQueue(settings.redis_url),
        runner=runner_settings(settings),
    )


def configure(settings: Settings, engine: Any, notifier: Notifier, queue: RQQueue | LocalQueue) -> None:
    """Jobs of this process use the given database engine, notifier and queue (the embedded service)."""
    global _context
    _context = Context(sessionmaker(engine, expire_on_commit=False), notifier, queue, runner_settings(settings))


def get() -> Context:
    global _context
    if _context is None:
        _context = from_env()
    return _context
