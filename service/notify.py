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
    """One condition per game that has waiters: a move wakes only the waiters of its own game."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._games: dict[int, tuple[threading.Condition, list[int]]] = {}
        """game -> (its condition, [number of waiters])."""

    def _enter(self, game_id: int) -> threading.Condition:
        with self._lock:
            condition, waiters = self._games.setdefault(game_id, (threading.Condition(), [0]))
            waiters[0] += 1
            return condition

    def _leave(self, game_id: int) -> None:
        with self._lock:
            _, waiters = self._games[game_id]
            waiters[0] -= 1
            if not waiters[0]:
                del self._games[game_id]

    def publish(self, game_id: int, ply: int) -> None:
        with self._lock:
            entry = self._games.get(game_id)
        if entry is not None:
            with entry[0]:
                entry[0].notify_all()

    def wait(self, game_id: int, ready: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        condition = self._enter(game_id)
        try:
            with condition:
                while True:
                    if ready():
                        return True
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return False
                    condition.wait(remaining)  # woken by a move of this game; ready() decides
        finally:
            self._leave(game_id)


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
