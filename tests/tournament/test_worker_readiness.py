"""A worker's readiness (``sorry_arena_worker_ready``) is the service's own checks (``runtime.readiness``): ready
while its database is at the newest migration and its Redis answers; not ready, saying so, when Redis is gone or the
database is behind."""

from __future__ import annotations

import socket

from runtime.jobqueue import RQQueue
from runtime.settings import Settings
from runtime.wakeups import make_notifier
from store.database import make_engine
from tournament.dispatch import clock, context


def worker_context(database_url: str, redis_url: str) -> context.Context:
    settings = Settings(database_url=database_url, redis_url=redis_url)
    engine = make_engine(database_url)
    return context.build(settings, engine, make_notifier(redis_url), RQQueue(redis_url), name="readiness-test")


def dead_port() -> int:
    with socket.socket() as sock:  # a port nobody listens on once closed
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_worker_is_ready_with_its_database_and_redis(database_url: str, redis_url: str) -> None:
    ctx = worker_context(database_url, redis_url)
    assert ctx.readiness is not None and ctx.readiness.checks() == {
        "database": "ok",
        "migrations": "ok",
        "redis": "ok",
    }
    assert clock.answering(ctx)


def test_a_worker_whose_redis_is_gone_is_not_ready(database_url: str) -> None:
    ctx = worker_context(database_url, f"redis://127.0.0.1:{dead_port()}/0")
    assert ctx.readiness is not None
    assert ctx.readiness.checks()["redis"].startswith("cannot connect")
    assert not clock.answering(ctx)
