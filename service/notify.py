"""Wake long-polling requests when a game moves (``GET /games/{id}/actions?wait=``).

With ``REDIS_URL`` set, a move publishes on the game's Redis channel, so a waiter in any API process on any
machine wakes; without it (the embedded default) a condition variable in this process does. A waiter always
re-checks the database after subscribing, so a move made just before it started waiting is never missed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any


class MemoryNotifier:
    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._moves = 0

    def publish(self, game_id: int, ply: int) -> None:
        with self._changed:
            self._moves += 1
            self._changed.notify_all()

    def wait(self, game_id: int, ready: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                if ready():
                    return True
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._changed.wait(remaining)  # woken by any publish; ready() decides


class RedisNotifier:
    def __init__(self, url: str) -> None:
        import redis

        self._redis: Any = redis.Redis.from_url(url)

    @staticmethod
    def channel(game_id: int) -> str:
        return f"sorry-arena:game:{game_id}"

    def publish(self, game_id: int, ply: int) -> None:
        self._redis.publish(self.channel(game_id), str(ply))

    def wait(self, game_id: int, ready: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        try:
            pubsub.subscribe(self.channel(game_id))
            while True:
                if ready():
                    return True
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                pubsub.get_message(timeout=remaining)
        finally:
            pubsub.close()


def make_notifier(redis_url: str | None) -> MemoryNotifier | RedisNotifier:
    return RedisNotifier(redis_url) if redis_url else MemoryNotifier()
