"""Rate limits: account creation per client address (per minute, ``SORRY_ARENA_LIMIT_ACCOUNTS``, and per hour,
``SORRY_ARENA_LIMIT_ACCOUNTS_HOURLY``), bot registration and move submission per account.

The rates are configured in flask-limiter's notation (``SORRY_ARENA_LIMIT_*``, parsed by ``limits``, the library
flask-limiter is built on: ``runtime/settings.py``) and counted in fixed windows: a key's window opens at its first
request and lasts the rate's period; past the rate's amount within it, a request is refused. Counted in Redis when
``REDIS_URL`` is set (every API process on every machine shares one count per key; keys ``sorry-arena:limits:...``,
beside RQ's; a large limit is taken in shares, see :class:`RedisCounter`), else in this process's memory (the
embedded default: one process).

Neither flask-limiter's Flask extension nor ``limits``'s own storages, measured on this machine: the extension's
before-, after- and teardown-request hooks run on every request of the app, limited or not, and doubled the CPU
time of ``GET /api/v1/health`` inside the app (140 -> 285 us; a decorated route ~270 us more); ``limits``'s memory
storage starts a timer thread every 10 ms while requests come (a move took 1.14-1.22x the CPU in two noisy
in-process runs). Here the three views call :func:`check` once, where the move path already knows its player: a dict
update under a lock in memory (3-6 us), with Redis the same most of the time and a round trip (~120-180 us of CPU
here) once per share, nothing for a limit set ``off``.

The per-account key is the player id that ``service/auth.py`` found for the bearer token (cached per process, and
what the view needs anyway): a token never reaches the storage nor a log. A missing or unknown token is a 401 before
any counting. A refused request is a 429 in the one error shape, its message naming the limit and the wait, with
``Retry-After`` (whole seconds, rounded up) and ``X-RateLimit-Limit`` / ``-Remaining`` / ``-Reset`` (Unix time), as
flask-limiter writes them. If Redis fails, requests pass, with a warning: the limits protect the service, and their
outage must not stop the games; Redis is tried again :attr:`RateLimits.RETRY_SECONDS` later.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol

import redis
from flask import Flask, current_app
from flask_smorest import abort
from limits import RateLimitItem

from runtime import metrics
from runtime.settings import Settings
from runtime.settingvalues import parse_rate
from service.errors import ErrorSchema

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Limit:
    """One of the service's limits: its variable, what it counts and per what."""

    name: str
    variable: str
    counted: str
    per: str


ACCOUNTS = Limit("accounts", "SORRY_ARENA_LIMIT_ACCOUNTS", "account creations", "client address")
BOTS = Limit("bots", "SORRY_ARENA_LIMIT_BOTS", "bot registrations and changes of a bot's url or secret", "account")
VERSIONS = Limit("versions", "SORRY_ARENA_LIMIT_VERSIONS", "new versions of a bot at the same url", "bot")
MOVES = Limit("moves", "SORRY_ARENA_LIMIT_MOVES", "move submissions", "account")
ACCOUNTS_HOURLY_VARIABLE = "SORRY_ARENA_LIMIT_ACCOUNTS_HOURLY"
"""The account creations' second rate, over a longer window (default ``60/hour``): counted beside the first, under
the same limit (a refusal by either says so in the one shape, naming its rate)."""

REDIS_KEY_PREFIX = "sorry-arena:limits:"

TOO_MANY = {
    "schema": ErrorSchema,
    "description": "over a rate limit: the message names it and the wait (SORRY_ARENA_LIMIT_* in docs/deploy.md)",
    "headers": {
        "Retry-After": {"description": "seconds to wait", "schema": {"type": "integer"}},
        "X-RateLimit-Limit": {"description": "requests allowed per window", "schema": {"type": "integer"}},
        "X-RateLimit-Remaining": {"description": "requests left in this window: 0", "schema": {"type": "integer"}},
        "X-RateLimit-Reset": {"description": "when the window ends (Unix time)", "schema": {"type": "integer"}},
    },
}
"""The 429 of every limited operation, for ``blp.alt_response(429, **TOO_MANY)``."""


class Counter(Protocol):
    def hit(self, key: str, amount: int, seconds: float) -> tuple[bool, float]:
        """Count one request in ``key``'s window (opened now for ``seconds`` if none is open): whether it is within
        ``amount``, and the seconds left in the window."""
        ...

    def give_back(self, key: str, amount: int) -> None:
        """Uncount one request counted in ``key``'s open window (a request refused by another limit after it)."""
        ...


class MemoryCounter:
    """Windows in this process's memory; ended ones are dropped once a minute, when a window opens."""

    def __init__(self) -> None:
        self._windows: dict[str, list[float]] = {}  # key: [count, end on the monotonic clock]
        self._lock = threading.Lock()
        self._next_purge = 0.0

    def hit(self, key: str, amount: int, seconds: float) -> tuple[bool, float]:
        now = time.monotonic()
        with self._lock:
            window = self._windows.get(key)
            if window is None or window[1] <= now:
                if now >= self._next_purge:
                    self._windows = {k: w for k, w in self._windows.items() if w[1] > now}
                    self._next_purge = now + 60
                window = self._windows[key] = [0, now + seconds]
            window[0] += 1
            return window[0] <= amount, window[1] - now

    def give_back(self, key: str, amount: int) -> None:
        with self._lock:
            window = self._windows.get(key)
            if window is not None and window[1] > time.monotonic() and window[0] > 0:
                window[0] -= 1


class RedisCounter:
    """Windows in Redis, shared by every process. One script call counts ``n`` requests (incrementing the key,
    setting its expiry when new, and returning its count and time left).

    A limit of at least :attr:`SHARE_FROM` requests per window is counted in shares: a process takes 1/20 of it at
    once (``INCRBY``) and serves its next requests in that window from the share without a round trip, so a busy
    account's moves cost one Redis call per 15 (at 300/second) instead of one each. What a process took and did not
    use counts as used: with P processes an account may be refused up to (P - 1) x (share - 1) requests early (5% of
    the limit per other process). Within a process nothing is lost: requests that come at once, none of them
    finding a share held, each take one, and what each does not use is added to the process's share of the key
    (so N requests use exactly N of the budget, however many come together). Smaller limits are counted one
    request at a time, exactly."""

    SCRIPT = """
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
if count == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
    left = tonumber(ARGV[1])
end
return {count, left}
"""
    GIVE_BACK = """
if redis.call('GET', KEYS[1]) and tonumber(redis.call('GET', KEYS[1])) > 0 then redis.call('DECR', KEYS[1]) end
"""
    SHARE_FROM = 100
    SHARES = 20

    def __init__(self, url: str) -> None:
        # short timeouts: a Redis that hangs must not hold requests
        self.client: Any = redis.Redis.from_url(url, socket_connect_timeout=1.0, socket_timeout=1.0)
        self.script = self.client.register_script(self.SCRIPT)
        self.given_back = self.client.register_script(self.GIVE_BACK)
        self._shares: dict[str, list[float]] = {}  # key: [requests left in this process's share, window end]
        self._lock = threading.Lock()
        self._pooled = threading.Condition(self._lock)
        """Notified when a share's answer is pooled: a request that found the pool empty waits for its siblings."""
        self._in_flight: dict[str, int] = {}
        """Per key, this process's share requests whose answers have not been pooled yet."""
        self._next_purge = 0.0

    def hit(self, key: str, amount: int, seconds: float) -> tuple[bool, float]:
        share = amount // self.SHARES if amount >= self.SHARE_FROM else 1
        now = time.monotonic()
        if share > 1:
            with self._lock:
                held = self._shares.get(key)
                if held is not None and held[0] > 0 and held[1] > now:
                    held[0] -= 1
                    return True, held[1] - now
        if share > 1:
            with self._lock:
                self._in_flight[key] = self._in_flight.get(key, 0) + 1
        try:
            count, left_ms = self.script(
                keys=[REDIS_KEY_PREFIX + key], args=[max(1, round(seconds * 1000)), share]
            )
        except BaseException:
            if share > 1:
                with self._pooled:
                    self._in_flight[key] -= 1
                    self._pooled.notify_all()
            raise
        left = int(left_ms) / 1000
        usable = min(share, amount - (int(count) - share))  # of the share just taken, what is within the limit
        if share == 1:
            return usable > 0, left
        with self._pooled:
            self._in_flight[key] -= 1
            self._pooled.notify_all()
            if now >= self._next_purge:
                self._shares = {k: held for k, held in self._shares.items() if held[1] > now}
                self._in_flight = {k: waiting for k, waiting in self._in_flight.items() if waiting}
                self._next_purge = now + 60
            # A window is known by its end: the answers of one window agree on it within a round trip, and the
            # next one ends at least ``seconds`` later (answers come back in any order: not by their counts).
            end = now + left
            held = self._shares.get(key)
            if held is None or end - held[1] > seconds / 2:  # none held, or held of a window that has ended
                held = self._shares[key] = [0, end]
            elif held[1] - end > seconds / 2:  # a late answer of a window that has ended since: itself only
                return usable > 0, left
            # into the process's share, and this request out of it: requests that came at once each took a share,
            # and what one did not use serves the others (even one that found the limit reached, which waits for
            # the answers of its siblings still in flight before it gives up: they bring their leftovers)
            held[0] += max(0, usable)
            self._pooled.wait_for(lambda: held[0] > 0 or not self._in_flight.get(key), timeout=seconds)
            if not self._in_flight.get(key):
                self._in_flight.pop(key, None)
            if held[0] > 0:
                held[0] -= 1
                return True, left
        return False, left

    def give_back(self, key: str, amount: int) -> None:
        """One request back into the key's count (Redis), or into this process's share of it (a large limit)."""
        if amount >= self.SHARE_FROM and amount // self.SHARES > 1:
            with self._lock:
                held = self._shares.get(key)
                if held is not None and held[1] > time.monotonic():
                    held[0] += 1
            return
        self.given_back(keys=[REDIS_KEY_PREFIX + key])


def describe(item: RateLimitItem) -> str:
    """``100 per 1 second``, ``10 per 2 minutes``."""
    return f"{item.amount} per {item.multiples} {item.GRANULARITY.name}{'' if item.multiples == 1 else 's'}"


def wait_text(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"


class RateLimits:
    """An app's limits and their counter."""

    RETRY_SECONDS = 5.0

    def __init__(self, settings: Settings) -> None:
        self.items: dict[Limit, tuple[tuple[RateLimitItem, str, float], ...]] = {
            limit: tuple(
                (item, f"{item.amount}/{item.multiples}/{item.GRANULARITY.name}", float(item.get_expiry()))
                for variable, text in rates
                for item in parse_rate(variable, text)
            )
            for limit, rates in (
                (
                    ACCOUNTS,
                    (
                        (ACCOUNTS.variable, settings.limit_accounts),
                        (ACCOUNTS_HOURLY_VARIABLE, settings.limit_accounts_hourly),
                    ),
                ),
                (BOTS, ((BOTS.variable, settings.limit_bots),)),
                (MOVES, ((MOVES.variable, settings.limit_moves),)),
                (VERSIONS, ((VERSIONS.variable, settings.limit_versions),)),
            )
        }
        self.counter: Counter = RedisCounter(settings.redis_url) if settings.redis_url else MemoryCounter()
        self.down_until = 0.0  # while Redis fails: when to try it again (monotonic clock)

    def hit(self, limit: Limit, who: str) -> None:
        """Count a request of ``who`` against ``limit``: a 429 when over it."""
        self.hit_all((limit, who))

    def hit_all(self, *counted: tuple[Limit, str]) -> None:
        """Count a request against each ``(limit, who)`` in turn: a 429 when over one, after giving back what it
        counted against the limits before it (a request refused by one limit costs no other's budget)."""
        if self.down_until:
            if time.monotonic() < self.down_until:
                return
            self.down_until = 0.0
        taken: list[tuple[str, int]] = []
        for limit, who in counted:
            for item, rate, seconds in self.items[limit]:
                key = f"{limit.name}/{who}/{rate}"
                try:
                    allowed, left = self.counter.hit(key, item.amount, seconds)
                except redis.RedisError as error:
                    log.warning("rate limits: Redis failed (%s); requests pass unlimited while it does", error)
                    self.down_until = time.monotonic() + self.RETRY_SECONDS
                    return
                if not allowed:
                    self.give_back(taken)
                    self.refuse(limit, item, left)
                taken.append((key, item.amount))

    def give_back(self, taken: list[tuple[str, int]]) -> None:
        """Uncount a refused request from the windows ``taken`` (key, amount) that had counted it."""
        try:
            for key, amount in taken:
                self.counter.give_back(key, amount)
        except redis.RedisError as error:
            log.warning("rate limits: Redis failed (%s) giving back a refused request's count", error)

    def refuse(self, limit: Limit, item: RateLimitItem, left: float) -> None:
        left = max(0.0, left)
        metrics.child(metrics.RATE_LIMITED, limit.name).inc()
        abort(
            429,
            message=f"too many {limit.counted}: the limit is {describe(item)} per {limit.per}; "
            f"retry in {wait_text(left)}",
            headers={
                "Retry-After": str(max(1, math.ceil(left))),
                "X-RateLimit-Limit": str(item.amount),
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset": str(math.ceil(time.time() + left)),
            },
        )


def init_app(app: Flask, settings: Settings) -> None:
    app.extensions["ratelimits"] = RateLimits(settings)


def check(limit: Limit, who: int | str, *more: tuple[Limit, int | str]) -> None:
    """Count this request against ``limit`` for ``who`` (a player id, or a client address), and against each of
    ``more`` (limit, who) after it: a 429 when over one, the others' counts of this request given back."""
    counted = [(limit, str(who)), *((other, str(whom)) for other, whom in more)]
    current_app.extensions["ratelimits"].hit_all(*counted)
