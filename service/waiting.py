"""The caps on waiting requests: one account's concurrent long polls (``SORRY_ARENA_MAX_WAITING_PER_ACCOUNT``,
default 8), the game event streams opened without a token, per client address
(``SORRY_ARENA_MAX_STREAMS_PER_ADDRESS``, default 8) and in all (``SORRY_ARENA_MAX_ANONYMOUS_STREAMS``, default 200),
and every waiting request of one API process, whoever it is of (``SORRY_ARENA_MAX_WAITING_PER_PROCESS``, default
half of the process's connections: :class:`ProcessBudget`).

A long poll (``GET /api/v1/decisions?wait=``, ``GET /api/v1/games/{id}/actions?wait=``) that has to wait takes one
of its account's slots for as long as it waits, and gives it back when it answers; with every slot taken, the
request is a 429 that says so, with ``Retry-After``. A request that is answered at once (something to decide
already, or ``wait=0``) takes no slot. One inbox poll (``GET /decisions?wait=``) waits for all of an account's games,
so a bot never needs more than a few. A stream with a token (``service/api/streams.py``) takes one of its account's
slots for its whole life; one without (a spectator of the game viewer) takes one of its client address's and one of
the service's anonymous ones (:meth:`WaitingCap.anonymous_stream`), each a 429 that says which when none is free.
Every one of them also takes one of its process's slots (:class:`ProcessBudget`): a gevent worker of ``sorry-arena
serve`` serves ``--connections`` clients at once (1000 by default) and accepts no more until one leaves, so clients
of many accounts that wait in as many requests as it has connections would leave nothing for ``/api/v1/health``,
``/ready`` or a move; with half of them (the default) taken by waiting requests, the next waiting request is a 429
that says so, and the other half stays for the requests that answer at once.

The per-account and per-address caps are counted in Redis when ``REDIS_URL`` is set, so every API process shares
one count per account (or address): a sorted set per account (``sorry-arena:waiting:{player}``;
``sorry-arena:waiting:address:{address}`` and
``sorry-arena:waiting:anonymous`` for the streams without a token) whose members are the waiting requests, each
scored with the Redis time at which it expires (its wait plus :data:`SLACK_SECONDS`). One script drops the expired
members, counts the others and adds the new one if there is room, and sets the key's expiry to the longest slot's:
a process killed while its requests wait leaks nothing, since its slots lapse on their own. Without Redis, a count
in this process's memory (the embedded default is one process). If Redis fails, requests wait uncounted by those
caps, with a warning (as the rate limits do: the cap protects the service, and an outage of Redis must not stop the
games). The process's cap is always counted in its memory: what it guards is the process's own connections.
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

from runtime import metrics
from runtime.settings import DEFAULT_CONNECTIONS, Settings
from service.errors import ErrorSchema

log = logging.getLogger(__name__)

VARIABLE = "SORRY_ARENA_MAX_WAITING_PER_ACCOUNT"
PER_ADDRESS_VARIABLE = "SORRY_ARENA_MAX_STREAMS_PER_ADDRESS"
ANONYMOUS_VARIABLE = "SORRY_ARENA_MAX_ANONYMOUS_STREAMS"
PER_PROCESS_VARIABLE = "SORRY_ARENA_MAX_WAITING_PER_PROCESS"
ANONYMOUS = "anonymous"
"""The key of the service's streams without a token, beside the accounts' (whole numbers) and addresses'."""
REDIS_KEY_PREFIX = "sorry-arena:waiting:"
SLACK_SECONDS = 15.0
"""How long a slot outlives its request's wait in Redis: a living request gives its slot back when it answers (the
slack covers a slow last look at the database); a killed one's lapses this long after its wait would have ended."""
RETRY_AFTER_SECONDS = 1
STREAM_RETRY_AFTER_SECONDS = 5
"""The ``Retry-After`` of a stream without a token refused: such a stream holds its slot for minutes."""
BUSY_RETRY_AFTER_SECONDS = 5
"""The ``Retry-After`` of a waiting request refused by its process's cap: the process is busy with others'."""

TOO_MANY_WAITING = {
    "schema": ErrorSchema,
    "description": f"the account already waits in as many long polls as it may ({VARIABLE}, default 8), or the "
    f"API process in as many waiting requests of all accounts as it may ({PER_PROCESS_VARIABLE}, default half of "
    "its connections). The message says which; retry once one of them has answered (Retry-After)",
    "headers": {"Retry-After": {"description": "seconds to wait", "schema": {"type": "integer"}}},
}
"""The 429 of the long-polled operations, for ``blp.alt_response(429, **TOO_MANY_WAITING)``."""

TOO_MANY_STREAMS = {
    **TOO_MANY_WAITING,
    "description": f"with a token: the account already waits in as many long polls and streams as it may ({VARIABLE}"
    f", default 8); without one: the client address already holds as many streams without a token as it may "
    f"({PER_ADDRESS_VARIABLE}, default 8), or the service does ({ANONYMOUS_VARIABLE}, default 200); either way: "
    f"the API process already holds as many waiting requests of all accounts as it may ({PER_PROCESS_VARIABLE}, "
    "default half of its connections). The message says which; retry once one of them has closed",
}
"""The 429 of a game's event stream, which a spectator may open without a token."""


Who = int | str
"""Whose slots: an account (its player id), an address (``address:{address}``) or :data:`ANONYMOUS`."""


class Slots(Protocol):
    def take(self, who: Who, cap: int, seconds: float) -> str | None:
        """A slot of ``who`` for ``seconds`` if fewer than ``cap`` are taken (its token), else None."""
        ...

    def give_back(self, who: Who, token: str) -> None: ...


class MemorySlots:
    """Slots counted in this process's memory."""

    def __init__(self) -> None:
        self._taken: dict[Who, int] = {}
        self._lock = threading.Lock()

    def take(self, who: Who, cap: int, seconds: float) -> str | None:
        with self._lock:
            taken = self._taken.get(who, 0)
            if taken >= cap:
                return None
            self._taken[who] = taken + 1
        return ""

    def give_back(self, who: Who, token: str) -> None:
        with self._lock:
            left = self._taken.get(who, 0) - 1
            if left > 0:
                self._taken[who] = left
            else:
                self._taken.pop(who, None)

    def taken(self, who: Who) -> int:
        with self._lock:
            return self._taken.get(who, 0)


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

    def take(self, who: Who, cap: int, seconds: float) -> str | None:
        token = uuid.uuid4().hex
        lasting = max(1, round((seconds + SLACK_SECONDS) * 1000))
        taken = self.script(keys=[key(who)], args=[cap, lasting, token])
        return token if int(taken) else None

    def give_back(self, who: Who, token: str) -> None:
        self.client.zrem(key(who), token)

    def taken(self, who: Who) -> int:
        return int(self.client.zcard(key(who)))


class ProcessBudget:
    """The waiting requests of this process, whoever they are of: at most ``cap`` at once, so that the process's
    other connections stay for the requests that answer at once (health, moves, pages). Counted in memory: the
    budget is the process's own connections, which no other process shares."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.slots = MemorySlots()

    @contextmanager
    def held(self) -> Iterator[None]:
        """One of the process's slots for the block; a 429 that says so when all are taken."""
        if self.slots.take(PROCESS, self.cap, 0) is None:
            metrics.child(metrics.WAITING_REFUSED, "process").inc()
            abort(
                429,
                message=f"the service is busy: this API process already holds {self.cap} waiting requests (long "
                f"polls and streams, of all accounts) and keeps its other connections for requests that answer at "
                f"once ({PER_PROCESS_VARIABLE}); retry in {BUSY_RETRY_AFTER_SECONDS} s",
                headers={"Retry-After": str(BUSY_RETRY_AFTER_SECONDS)},
            )
        try:
            yield
        finally:
            self.slots.give_back(PROCESS, "")

    def taken(self) -> int:
        return self.slots.taken(PROCESS)


PROCESS = "process"
"""The key of :class:`ProcessBudget`'s one count."""


def per_process(settings: Settings) -> int:
    """The process's cap: ``SORRY_ARENA_MAX_WAITING_PER_PROCESS``, else half of its connections."""
    if settings.max_waiting_per_process is not None:
        return settings.max_waiting_per_process
    return max(1, DEFAULT_CONNECTIONS // 2)


def key(who: Who) -> str:
    return f"{REDIS_KEY_PREFIX}{who}"


def cap_name(who: Who) -> str:
    """The ``cap`` label of ``sorry_arena_waiting_refused_total`` for a refusal of ``who``'s slots."""
    if isinstance(who, int):
        return "account"
    return "anonymous" if who == ANONYMOUS else "address"


def address_key(address: str) -> str:
    """Whose slots the streams without a token of a client address are."""
    return f"address:{address}"


class WaitingCap:
    """An app's caps and their slots."""

    RETRY_SECONDS = 5.0

    def __init__(self, settings: Settings) -> None:
        self.cap = settings.max_waiting_per_account
        self.per_address = settings.max_streams_per_address
        self.anonymous = settings.max_anonymous_streams
        self.process = ProcessBudget(per_process(settings))
        self.slots: MemorySlots | RedisSlots = (
            RedisSlots(settings.redis_url) if settings.redis_url else MemorySlots()
        )
        self.down_until = 0.0  # while Redis fails: when to try it again (monotonic clock)

    @contextmanager
    def slot(self, player_id: int, seconds: float) -> Iterator[None]:
        """Hold one of ``player_id``'s slots and one of the process's for the block (a wait of up to ``seconds``);
        a 429 that says which cap is reached when either has none free."""
        refusal = (
            f"too many long polls at once: an account may wait in at most {self.cap} long polls (?wait=) at a "
            f"time ({VARIABLE}), and yours already does; retry once one of them has answered, or wait in one "
            "GET /api/v1/decisions?wait= for all your games"
        )
        with self._held(player_id, self.cap, seconds, refusal, RETRY_AFTER_SECONDS), self.process.held():
            yield

    @contextmanager
    def anonymous_stream(self, address: str, seconds: float) -> Iterator[None]:
        """Hold a slot of the client ``address``, one of the service's streams without a token and one of the
        process's for the block (a stream of up to ``seconds``); a 429 that says which cap is reached when one has
        none free."""
        per_address = (
            f"too many streams at once: a client address may hold at most {self.per_address} streams without a "
            f"token at a time ({PER_ADDRESS_VARIABLE}), and yours already does; retry once one of them has closed, "
            "or send your account's token (its streams count against its own long-poll slots)"
        )
        in_all = (
            f"too many streams at once: the service holds at most {self.anonymous} streams without a token at a "
            f"time ({ANONYMOUS_VARIABLE}), and all are taken; retry later, or send your account's token (its "
            "streams count against its own long-poll slots)"
        )
        with (
            self._held(address_key(address), self.per_address, seconds, per_address, STREAM_RETRY_AFTER_SECONDS),
            self._held(ANONYMOUS, self.anonymous, seconds, in_all, STREAM_RETRY_AFTER_SECONDS),
            self.process.held(),
        ):
            yield

    @contextmanager
    def _held(self, who: Who, cap: int, seconds: float, refusal: str, retry_after: int) -> Iterator[None]:
        token = self._take(who, cap, seconds, refusal, retry_after)
        try:
            yield
        finally:
            if token is not None:
                try:
                    self.slots.give_back(who, token)
                except redis.RedisError as error:  # the slot lapses on its own
                    log.warning("long-poll cap: Redis failed giving a slot back (%s)", error)

    def _take(self, who: Who, cap: int, seconds: float, refusal: str, retry_after: int) -> str | None:
        if self.down_until:
            if time.monotonic() < self.down_until:
                return None
            self.down_until = 0.0
        try:
            token = self.slots.take(who, cap, seconds)
        except redis.RedisError as error:
            log.warning("long-poll cap: Redis failed (%s); long polls wait uncounted while it does", error)
            self.down_until = time.monotonic() + self.RETRY_SECONDS
            return None
        if token is None:
            metrics.child(metrics.WAITING_REFUSED, cap_name(who)).inc()
            abort(429, message=refusal, headers={"Retry-After": str(retry_after)})
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


@contextmanager
def counted(held: Any, kind: str) -> Iterator[None]:
    """``held`` (a slot's block), counted meanwhile in the ``sorry_arena_waiting_requests`` gauge of ``kind``."""
    gauge = metrics.child(metrics.WAITING, kind)
    with held:
        gauge.inc()
        try:
            yield
        finally:
            gauge.dec()


def slot(player_id: int, seconds: float, kind: str = "long_poll") -> Any:
    """``with waiting.slot(player_id, wait):`` around a long poll's wait (or, ``kind="stream"``, a stream with a
    token): a 429 when the account has no slot free."""
    return counted(cap().slot(player_id, seconds), kind)


def anonymous_stream(address: str, seconds: float) -> Any:
    """``with waiting.anonymous_stream(address, seconds):`` around a stream without a token: a 429 when the client
    address, or the service, holds as many such streams as it may."""
    return counted(cap().anonymous_stream(address, seconds), "stream")
