"""The cap on one account's concurrent long polls (``SORRY_ARENA_MAX_WAITING_PER_ACCOUNT``, default 8).

A long poll (``GET /api/v1/decisions?wait=``, ``GET /api/v1/games/{id}/actions?wait=``) that has to wait takes one
of its account's slots for as long as it waits, and gives it back when it answers; with every slot taken, the
request is a 429 that says so, with ``Retry-After``. A request that is answered at once (something to decide
already, or ``wait=0``) takes no slot. One inbox poll (``GET /decisions?wait=``) waits for all of an account's games,
so a bot never needs more than a few.

Counted in Redis when ``REDIS_URL`` is set, so every API process shares one count per account: a sorted set per
account (``sorry-arena:waiting:{player}``) whose members are the waiting requests, each scored with the Redis time
at which it expires (its wait plus :data:`SLACK_SECONDS`). One script drops the expired members, counts the others
and adds the new one if there is room, and sets the key's expiry to the longest slot's: a process killed while its
requests wait leaks nothing, since its slots lapse on their own. Without Redis, a count in this process's memory (the
embedded default is one process). If Redis fails, requests wait uncounted, with a warning (as the rate limits do:
the cap protects the service, and an outage of Redis must not stop the games).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

import redis
from flask import current_app
from flask_smorest import abort

from runtime.settings import Settings
from service.errors import ErrorSchema

log = logging.getLogger(__name__)

VARIABLE = "SORRY_ARENA_MAX_WAITING_PER_ACCOUNT"
REDIS_KEY_PREFIX = "sorry-arena:waiting:"
SLACK_SECONDS = 15.0
"""How long a slot outlives its request's wait in Redis: a living request gives its slot back when it answers (the
slack covers a slow last look at the database); a killed one's lapses this long after its wait would have ended."""
RETRY_AFTER_SECONDS = 1

TOO_MANY_WAITING = {
    "schema": ErrorSchema,
    "description": f"the account already waits in as many long polls as it may ({VARIABLE}, default 8): retry "
    "once one of them has answered",
    "headers": {"Retry-After": {"description": "seconds to wait", "schema": {"type": "integer"}}},
}
"""The 429 of the long-polled operations, for ``blp.alt_response(429, **TOO_MANY_WAITING)``."""


class Slots(Protocol):
    def take(self, player_id: int, cap: int, seconds: float) -> str | None:
        """A slot of ``player_id`` for ``seconds`` if fewer than ``cap`` are taken (its token), else None."""
        ...

    def give_back(self, player_id: int, token: str) -> None: ...


class MemorySlots:
    """Slots counted in this process's memory."""

    def __init__(self) -> None:
        self._taken: dict[int, int] = {}
        self._lock = threading.Lock()

    def take(self, player_id: int, cap: int, seconds: float) -> str | None:
        with self._lock:
            taken = self._taken.get(player_id, 0)
            if taken >= cap:
                return None
            self._taken[player_id] = taken + 1
        return ""

    def give_back(self, player_id: int, token: str) -> None:
        with self._lock:
            left = self._taken.get(player_id, 0) - 1
            if left > 0:
                self._taken[player_id] = left
            else:
                self._taken.pop(player_id, None)

    def taken(self, player_id: int) -> int:
        with self._lock:
            return self._taken.get(player_id, 0)


class RedisSlots:
    """Slots in Redis, shared by every API process; each lapses on its own (see the module's docstring)."""

    SCRIPT = """
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
local expires = now + tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], expires, ARGV[3])
local last = tonumber(redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])
redis.call('PEXPIREAT', KEYS[1], last)
return 1
"""

    def __init__(self, url: str) -> None:
        # short timeouts: a Redis that hangs must not hold requests
        self.client: Any = redis.Redis.from_url(url, socket_connect_timeout=1.0, socket_timeout=1.0)
        self.script = self.client.register_script(self.SCRIPT)

    def take(self, player_id: int, cap: int, seconds: float) -> str | None:
        token = uuid.uuid4().hex
        lasting = max(1, round((seconds + SLACK_SECONDS) * 1000))
        taken = self.script(keys=[key(player_id)], args=[cap, lasting, token])
        return token if int(taken) else None

    def give_back(self, player_id: int, token: str) -> None:
        self.client.zrem(key(player_id), token)

    def taken(self, player_id: int) -> int:
        return int(self.client.zcard(key(player_id)))


def key(player_id: int) -> str:
    return f"{REDIS_KEY_PREFIX}{player_id}"


class WaitingCap:
    """An app's cap and its slots."""

    RETRY_SECONDS = 5.0

    def __init__(self, settings: Settings) -> None:
        self.cap = settings.max_waiting_per_account
        self.slots: MemorySlots | RedisSlots = (
            RedisSlots(settings.redis_url) if settings.redis_url else MemorySlots()
        )
        self.down_until = 0.0  # while Redis fails: when to try it again (monotonic clock)

    @contextmanager
    def slot(self, player_id: int, seconds: float) -> Iterator[None]:
        """Hold one of ``player_id``'s slots for the block (a wait of up to ``seconds``); a 429 if none is free."""
        token = self._take(player_id, seconds)
        try:
            yield
        finally:
            if token is not None:
                try:
                    self.slots.give_back(player_id, token)
                except redis.RedisError as error:  # the slot lapses on its own
                    log.warning("long-poll cap: Redis failed giving a slot back (%s)", error)

    def _take(self, player_id: int, seconds: float) -> str | None:
        if self.down_until:
            if time.monotonic() < self.down_until:
                return None
            self.down_until = 0.0
        try:
            token = self.slots.take(player_id, self.cap, seconds)
        except redis.RedisError as error:
            log.warning("long-poll cap: Redis failed (%s); long polls wait uncounted while it does", error)
            self.down_until = time.monotonic() + self.RETRY_SECONDS
            return None
        if token is None:
            abort(
                429,
                message=f"too many long polls at once: an account may wait in at most {self.cap} long polls "
                f"(?wait=) at a time ({VARIABLE}), and yours already does; retry once one of them has answered, "
                "or wait in one GET /api/v1/decisions?wait= for all your games",
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
            )
        return token


def cap() -> WaitingCap:
    """The current app's cap (made on first use)."""
    extensions = current_app.extensions
    found = extensions.get("waiting")
    if found is None:
        with _making:
            found = extensions.get("waiting")
            if found is None:
                found = extensions["waiting"] = WaitingCap(extensions["settings"])
    return found


_making = threading.Lock()


def slot(player_id: int, seconds: float) -> Any:
    """``with waiting.slot(player_id, wait):`` around a long poll's wait: a 429 when the account has no slot free."""
    return cap().slot(player_id, seconds)
