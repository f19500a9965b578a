"""Settings of the service, read from the environment (documented in docs/deploy.md and compose.yaml).

- ``DATABASE_URL``: SQLAlchemy URL; default a SQLite file ``sorry-arena.db`` in the working directory.
  ``postgres://`` and ``postgresql://`` URLs (as hosting platforms write them) use psycopg 3, the installed driver.
- ``REDIS_URL``: when set, long-polling waiters wake through Redis, so several API processes on several machines
  serve one game; unset, they wake through this process's memory (the embedded default).
- ``SORRY_ARENA_MAX_WAIT``: the longest long poll in seconds (default 30).
- ``SORRY_ARENA_MAX_WAITING_PER_ACCOUNT``: how many long polls of one account may wait at once (default 8); one
  more is a 429 saying so, with ``Retry-After`` (``service/waiting.py``). Counted in Redis across API processes when
  ``REDIS_URL`` is set, else in this process's memory.
- ``SORRY_ARENA_MAX_STREAMS_PER_ADDRESS`` (default 8) and ``SORRY_ARENA_MAX_ANONYMOUS_STREAMS`` (default 200): how
  many game event streams without a token (``GET /api/v1/games/{id}/events/stream``, what the game viewer's
  spectators follow) one client address, and the whole service, may hold open at once; one more is a 429 saying
  which, with ``Retry-After`` (``service/waiting.py``). Counted as the long polls are.
- ``SORRY_ARENA_BOT_ALLOW``: networks a bot URL may resolve to although they are private, loopback or link-local
  (comma-separated CIDRs, or ``loopback``); default none: such bot URLs are refused.
- ``SORRY_ARENA_LEASE_SECONDS``: how long a worker's claim on a game lasts without renewal (default 10): the
  worker's heartbeat renews it every quarter of that while the game is played, so a game whose worker died is taken
  up again this long after the worker's last heartbeat (and the next maintenance pass).
- ``SORRY_ARENA_GAMES_PER_WORKER``: how many games a worker process (and the embedded service) plays at once
  (default 8): a game spends its time waiting for bots, and a hung bot holds only its own games' slots.
- ``SORRY_ARENA_MAINTENANCE_SECONDS``: the embedded service's maintenance interval (default 1), which starts the
  tournament runs due and takes up the games a killed service left; ``off``: none (runs due later never start).
- Rate limits (``service/ratelimits.py``), each a rate in flask-limiter's notation (``20/minute``,
  ``100 per second``, ``5/2 minutes``; several separated by ``;``) or ``off``; a bad value is a ValueError naming
  the variable, at startup. Counted in Redis when ``REDIS_URL`` is set (every API process shares the count), else
  in this process's memory. A request over a limit is a 429 saying which limit, with ``Retry-After``.

  - ``SORRY_ARENA_LIMIT_ACCOUNTS``: ``POST /api/v1/players`` per client address (default ``20/minute``).
  - ``SORRY_ARENA_LIMIT_BOTS``: ``POST /api/v1/bots`` per account (default ``30/hour``): each registration of a
    push bot makes the service call the bot's URL.
  - ``SORRY_ARENA_LIMIT_MOVES``: ``POST /api/v1/games/{id}/actions`` per account (default ``300/second``), far above
    what a pull bot playing many games at once submits (each of ``benchmarks/api.py``'s, in 32 games: ~50/s).

- Quotas per account (``service/api/tournaments.py``; the operator has none), each a whole number; a request over
  one is refused, saying which quota (its variable) and its value:

  - ``SORRY_ARENA_QUOTA_GAMES``: games in one tournament (one run) (default 1000); over it, a 422.
  - ``SORRY_ARENA_QUOTA_QUEUED``: games an account's scheduled and running tournaments may have left to play, the
    new tournament's included (default 2000); over it, a 429 until some are played or cancelled.
  - ``SORRY_ARENA_QUOTA_TOURNAMENTS``: an account's scheduled and running tournaments (a repeating one counts while
    runs are to come) (default 5); over it, a 429.
  - ``SORRY_ARENA_QUOTA_REPEATS``: the runs of a repeating tournament (``repeat_times``) (default 100); a 422.

- ``SORRY_ARENA_OPERATOR_TOKEN``: the operator's bearer token (at least 32 characters; unset: no operator). The
  operator may make official tournaments with any bots, is held to no quota, and may cancel any tournament.
- ``SORRY_ARENA_FEED_WINDOW``: how many games of each account wait in the job queue at most (default 8): games go
  to the queue a few at a time per account, round-robin across accounts and their tournaments
  (``tournament/dispatch/feed.py``), so that one account's big tournament cannot starve another's.
- ``SORRY_ARENA_METRICS``: the Prometheus metrics (``runtime/metrics.py``): ``off`` (the default: ``/metrics`` is a
  404), ``on`` (served by the API at ``/metrics``) or a port number (served on that port by ``sorry-arena serve``'s
  master process, for all its workers; ``/metrics`` of the API is then a 404). ``SORRY_ARENA_METRICS_ALLOW``: the
  networks (comma-separated CIDRs) whose clients may read them without a token; anyone else needs the operator's
  token (``Authorization: Bearer``), else a 403. ``SORRY_ARENA_WORKER_METRICS_PORT``: the port a
  ``sorry-arena worker`` serves its own metrics on (its ``--metrics-port`` flag; default none), with the same guard.
- ``SORRY_ARENA_LOG_FORMAT``: ``text`` (the default) or ``json``, one object a line; ``SORRY_ARENA_LOG_LEVEL``:
  ``DEBUG``, ``INFO`` (the default), ``WARNING`` or ``ERROR``; ``SORRY_ARENA_ACCESS_LOG``: ``on`` (the default: a
  line per request, ``runtime/logs.py``) or ``off``.
- Request bodies above ``MAX_BODY_BYTES`` (64 KiB) are refused with a 413, also when sent without a Content-Length
  (chunked) (``service/bodylimit.py``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from store.urls import DEFAULT_DATABASE_URL, normalize_database_url

if TYPE_CHECKING:
    from limits import RateLimitItem

MAX_BODY_BYTES = 64 * 1024
DEFAULT_MAX_WAITING_PER_ACCOUNT = 8
DEFAULT_MAX_STREAMS_PER_ADDRESS = 8
DEFAULT_MAX_ANONYMOUS_STREAMS = 200
DEFAULT_LIMIT_ACCOUNTS = "20/minute"
DEFAULT_LIMIT_BOTS = "30/hour"
DEFAULT_LIMIT_MOVES = "300/second"
DEFAULT_QUOTA_GAMES = 1000
DEFAULT_QUOTA_QUEUED = 2000
DEFAULT_QUOTA_TOURNAMENTS = 5
DEFAULT_QUOTA_REPEATS = 100
DEFAULT_FEED_WINDOW = 8
MAX_GAMES = 100_000
"""The most games of one tournament whatever the quota (``tournament.plans.schedule.MAX_GAMES`` is the same)."""
MIN_OPERATOR_TOKEN = 32
RATE_FORMS = "a rate such as '100/second', '20 per minute' or '5/2 minutes' (several separated by ';'), or 'off'"


@dataclass
class Settings:
    database_url: str = DEFAULT_DATABASE_URL
    redis_url: str | None = None
    max_wait: float = 30.0
    max_waiting_per_account: int = DEFAULT_MAX_WAITING_PER_ACCOUNT
    max_streams_per_address: int = DEFAULT_MAX_STREAMS_PER_ADDRESS
    max_anonymous_streams: int = DEFAULT_MAX_ANONYMOUS_STREAMS
    bot_allow: str = ""
    lease_seconds: float = 10.0
    games_per_worker: int = 8
    maintenance_seconds: float | None = None
    """The embedded queue's maintenance interval; ``None``: no maintenance (the default of settings made in code,
    as tests make them; the environment's default is 1 s)."""
    limit_accounts: str = DEFAULT_LIMIT_ACCOUNTS
    limit_bots: str = DEFAULT_LIMIT_BOTS
    limit_moves: str = DEFAULT_LIMIT_MOVES
    quota_games: int = DEFAULT_QUOTA_GAMES
    quota_queued: int = DEFAULT_QUOTA_QUEUED
    quota_tournaments: int = DEFAULT_QUOTA_TOURNAMENTS
    quota_repeats: int = DEFAULT_QUOTA_REPEATS
    operator_token: str | None = None
    feed_window: int = DEFAULT_FEED_WINDOW
    metrics: str = "off"
    """``off``, ``on`` or a port number (as text)."""
    metrics_allow: str = ""
    worker_metrics_port: int | None = None
    log_format: str = "text"
    log_level: str = "INFO"
    access_log: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        return cls(
            database_url=normalize_database_url(env.get("DATABASE_URL") or DEFAULT_DATABASE_URL),
            redis_url=env.get("REDIS_URL") or None,
            max_wait=seconds(env, "SORRY_ARENA_MAX_WAIT", 30.0),
            max_waiting_per_account=count(
                env, "SORRY_ARENA_MAX_WAITING_PER_ACCOUNT", DEFAULT_MAX_WAITING_PER_ACCOUNT, 1, 10_000
            ),
            max_streams_per_address=count(
                env, "SORRY_ARENA_MAX_STREAMS_PER_ADDRESS", DEFAULT_MAX_STREAMS_PER_ADDRESS, 1, 10_000
            ),
            max_anonymous_streams=count(
                env, "SORRY_ARENA_MAX_ANONYMOUS_STREAMS", DEFAULT_MAX_ANONYMOUS_STREAMS, 1, 100_000
            ),
            bot_allow=env.get("SORRY_ARENA_BOT_ALLOW", ""),
            lease_seconds=seconds(env, "SORRY_ARENA_LEASE_SECONDS", 10.0),
            games_per_worker=count(env, "SORRY_ARENA_GAMES_PER_WORKER", 8, 1, 256),
            maintenance_seconds=None
            if env.get("SORRY_ARENA_MAINTENANCE_SECONDS", "").strip().lower() == "off"
            else seconds(env, "SORRY_ARENA_MAINTENANCE_SECONDS", 1.0),
            limit_accounts=rate(env, "SORRY_ARENA_LIMIT_ACCOUNTS", DEFAULT_LIMIT_ACCOUNTS),
            limit_bots=rate(env, "SORRY_ARENA_LIMIT_BOTS", DEFAULT_LIMIT_BOTS),
            limit_moves=rate(env, "SORRY_ARENA_LIMIT_MOVES", DEFAULT_LIMIT_MOVES),
            quota_games=count(env, "SORRY_ARENA_QUOTA_GAMES", DEFAULT_QUOTA_GAMES, 1, MAX_GAMES),
            quota_queued=count(env, "SORRY_ARENA_QUOTA_QUEUED", DEFAULT_QUOTA_QUEUED, 1, 10 * MAX_GAMES),
            quota_tournaments=count(env, "SORRY_ARENA_QUOTA_TOURNAMENTS", DEFAULT_QUOTA_TOURNAMENTS, 1, 10_000),
            quota_repeats=count(env, "SORRY_ARENA_QUOTA_REPEATS", DEFAULT_QUOTA_REPEATS, 2, 10_000),
            operator_token=operator_token(env, "SORRY_ARENA_OPERATOR_TOKEN"),
            feed_window=count(env, "SORRY_ARENA_FEED_WINDOW", DEFAULT_FEED_WINDOW, 1, 1000),
            metrics=metrics_mode(env, "SORRY_ARENA_METRICS"),
            metrics_allow=networks(env, "SORRY_ARENA_METRICS_ALLOW"),
            worker_metrics_port=None
            if not env.get("SORRY_ARENA_WORKER_METRICS_PORT", "").strip()
            else count(env, "SORRY_ARENA_WORKER_METRICS_PORT", 0, 1, 65535),
            log_format=choice(env, "SORRY_ARENA_LOG_FORMAT", "text", ("text", "json")),
            log_level=choice(env, "SORRY_ARENA_LOG_LEVEL", "INFO", ("DEBUG", "INFO", "WARNING", "ERROR")),
            access_log=choice(env, "SORRY_ARENA_ACCESS_LOG", "on", ("on", "off")) == "on",
        )


def seconds(env: Mapping[str, str], name: str, default: float) -> float:
    """A positive number of seconds from the environment; a ValueError that names the variable otherwise."""
    text = env.get(name)
    if text is None or not text.strip():
        return default
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{name} must be a number of seconds, not {text!r}") from None
    if not 0 < value < float("inf"):
        raise ValueError(f"{name} must be a positive number of seconds, not {text!r}")
    return value


def count(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    """A whole number from ``low`` to ``high`` from the environment; a ValueError that names the variable otherwise."""
    text = env.get(name)
    if text is None or not text.strip():
        return default
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, not {text!r}") from None
    if not low <= value <= high:
        raise ValueError(f"{name} must be from {low} to {high}, not {text!r}")
    return value


def choice(env: Mapping[str, str], name: str, default: str, choices: tuple[str, ...]) -> str:
    """One of ``choices`` (matched without regard to case), or ``default`` when unset; a ValueError naming the
    variable otherwise."""
    text = (env.get(name) or "").strip()
    if not text:
        return default
    for known in choices:
        if text.lower() == known.lower():
            return known
    raise ValueError(f"{name} must be one of {', '.join(choices)}, not {text!r}")


def metrics_mode(env: Mapping[str, str], name: str) -> str:
    """``off``, ``on`` or a port number from 1 to 65535 (as text); a ValueError naming the variable otherwise."""
    text = (env.get(name) or "").strip().lower()
    if text in ("", "off", "on"):
        return text or "off"
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise ValueError(f"{name} must be off, on or a port number from 1 to 65535, not {text!r}")
    return str(int(text))


def networks(env: Mapping[str, str], name: str) -> str:
    """Comma-separated CIDRs (checked); a ValueError naming the variable and the bad entry otherwise."""
    import ipaddress

    text = (env.get(name) or "").strip()
    for entry in filter(None, (part.strip() for part in text.split(","))):
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise ValueError(
                f"{name} must be comma-separated networks such as 10.0.0.0/8, not {entry!r}"
            ) from None
    return text


def operator_token(env: Mapping[str, str], name: str) -> str | None:
    """The operator's token, or ``None`` when unset; a ValueError naming the variable for one too short to be
    secret, or with spaces or control characters (a bearer token is one printable word)."""
    text = (env.get(name) or "").strip()
    if not text:
        return None
    if len(text) < MIN_OPERATOR_TOKEN or not text.isprintable() or any(char.isspace() for char in text):
        raise ValueError(
            f"{name} must be one word of at least {MIN_OPERATOR_TOKEN} printable characters "
            "(e.g. the output of `openssl rand -hex 32`)"
        )
    return text


def rate(env: Mapping[str, str], name: str, default: str) -> str:
    """A rate limit from the environment (checked: see :func:`parse_rate`); a ValueError that names the variable."""
    text = env.get(name)
    if text is None or not text.strip():
        return default
    parse_rate(name, text)
    return text.strip()


_ZERO_PERIOD = re.compile(r"(?:/|\bper)\s*0+\s*[a-z]", re.IGNORECASE)


def parse_rate(name: str, text: str) -> tuple[RateLimitItem, ...]:
    """The limits of a rate in flask-limiter's notation, none for ``off``; a ValueError naming ``name`` for any
    text that is not a rate, or one that allows nothing (``0/second``, ``1/0 seconds``)."""
    from limits import parse_many  # imported here: ``limits`` takes ~0.2 s to import, and only the API needs it

    if text.strip().lower() == "off":
        return ()
    try:
        items = tuple(parse_many(text))
    except ValueError:
        raise ValueError(f"{name} must be {RATE_FORMS}, not {text!r}") from None
    if not items or any(item.amount < 1 for item in items) or _ZERO_PERIOD.search(text):
        raise ValueError(f"{name} must allow at least 1 request per period of at least 1 unit, not {text!r}")
    return items
