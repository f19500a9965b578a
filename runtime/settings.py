"""Settings of the service, read from the environment (documented in docs/deploy.md and compose.yaml).

Every setting is one entry of :data:`SETTINGS`: its variable, the :class:`Settings` field it fills, its default
(what an unset or empty variable means), its reader (``runtime/settingvalues.py``: the kind of value and its range),
what it does, and whether it is a secret (``sorry-arena config`` masks it). Adding a setting is adding one entry
(and its field, and its line in compose.yaml's x-environment and docs/deploy.md).

:meth:`Settings.from_env` reads them all and refuses, with a ``ValueError`` of one line naming the variable, a
value out of its range, and any other ``SORRY_ARENA_*`` variable that is not one of :data:`SETTINGS` nor of
:data:`OTHER_VARIABLES` (the bots', the command-line client's, compose's and the tests' own), with the closest
known name: a misspelled variable would otherwise be ignored. ``sorry-arena serve``, ``worker`` and the other
commands print that line and exit 2; ``create_app`` raises it.

Request bodies above ``MAX_BODY_BYTES`` (64 KiB) are refused with a 413, also when sent without a Content-Length
(chunked) (``service/bodylimit.py``).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from runtime import settingvalues as kinds
from store.urls import DEFAULT_DATABASE_URL

MAX_BODY_BYTES = 64 * 1024
DEFAULT_MAX_WAITING_PER_ACCOUNT = 8
DEFAULT_MAX_STREAMS_PER_ADDRESS = 8
DEFAULT_MAX_ANONYMOUS_STREAMS = 200
DEFAULT_CONNECTIONS = 1000
"""The connections a ``sorry-arena serve`` worker process serves at once by default (``--connections``, gunicorn's
``worker_connections``: ``cli.parsers.serve.DEFAULT_CONNECTIONS``, the same), and the budget of a process served
otherwise."""
DEFAULT_LIMIT_ACCOUNTS = "20/minute"
DEFAULT_LIMIT_ACCOUNTS_HOURLY = "60/hour"
DEFAULT_LIMIT_BOTS = "30/hour"
DEFAULT_LIMIT_MOVES = "300/second"
DEFAULT_LIMIT_VERSIONS = "20/hour"
DEFAULT_QUOTA_GAMES = 1000
DEFAULT_QUOTA_QUEUED = 2000
DEFAULT_QUOTA_MATCH_GAMES = 2000
"""A match's most games (its ``max_games``): the default match's, so that the service accepts its own default."""
DEFAULT_QUOTA_TOURNAMENTS = 5
DEFAULT_QUOTA_REPEATS = 100
DEFAULT_QUOTA_LADDERS = 3
DEFAULT_LADDER_PAUSE_AFTER = 3
"""A ladder's bot is paused automatically after this many games in a row with a fault or a forfeit of its own."""
DEFAULT_LADDER_MAX_IN_PLAY = 8
"""A new ladder's most games made and not finished at once, unless its creator says otherwise."""
DEFAULT_LADDER_INACTIVE_DAYS = 30
"""A ladder's bot whose last rated game there is older than this is shown as inactive."""
DEFAULT_FEED_WINDOW = 8
DEFAULT_ACCOUNT_SHARE_PERCENT = 25
DEFAULT_LIVE_CHALLENGES = 1
DEFAULT_CHALLENGE_MOVE_TIMEOUT_MS = 120_000
MAX_CHALLENGE_MOVE_TIMEOUT_MS = 600_000
"""The most a person's time per move in a challenge may be set to (``SORRY_ARENA_CHALLENGE_MOVE_TIMEOUT_MS``)."""
DEFAULT_OLD_PROTOCOL_DAYS = 90
"""As ``botlink.protocols.DEFAULT_OLD_PROTOCOL_DAYS`` (the settings floor imports no bot calls)."""
MAX_OLD_PROTOCOL_DAYS = 3650
DEFAULT_DB_POOL_SIZE = 5
"""As ``store.database.POOL_SIZE`` (not imported: the command line reads these settings before SQLAlchemy loads)."""
DEFAULT_DB_MAX_OVERFLOW = 5
"""As ``store.database.MAX_OVERFLOW``."""
MAX_GAMES = 100_000
"""The most games of one tournament whatever the quota (``tournament.plans.schedule.MAX_GAMES`` is the same)."""
PREFIX = "SORRY_ARENA_"


@dataclass
class Settings:
    database_url: str = DEFAULT_DATABASE_URL
    redis_url: str | None = None
    max_wait: float = 30.0
    max_waiting_per_account: int = DEFAULT_MAX_WAITING_PER_ACCOUNT
    max_streams_per_address: int = DEFAULT_MAX_STREAMS_PER_ADDRESS
    max_anonymous_streams: int = DEFAULT_MAX_ANONYMOUS_STREAMS
    max_waiting_per_process: int | None = None
    """``None``: half of the process's connections; ``sorry-arena serve`` sets it from its ``--connections``
    (``cli/serve.py``), any other server has :data:`DEFAULT_CONNECTIONS` (``service/waiting.py``)."""
    bot_allow: str = ""
    lease_seconds: float = 10.0
    games_per_worker: int = 8
    maintenance_seconds: float | None = None
    """The embedded queue's maintenance interval; ``None``: no maintenance (the default of settings made in code,
    as tests make them; the environment's default is 1 s)."""
    keep_moves_days: int | None = None
    """Days a finished game keeps its action rows before the maintenance archives it (``store/retention.py``);
    ``None``: for ever."""
    limit_accounts: str = DEFAULT_LIMIT_ACCOUNTS
    limit_accounts_hourly: str = DEFAULT_LIMIT_ACCOUNTS_HOURLY
    limit_bots: str = DEFAULT_LIMIT_BOTS
    limit_moves: str = DEFAULT_LIMIT_MOVES
    limit_versions: str = DEFAULT_LIMIT_VERSIONS
    quota_games: int = DEFAULT_QUOTA_GAMES
    quota_queued: int = DEFAULT_QUOTA_QUEUED
    quota_match_games: int = DEFAULT_QUOTA_MATCH_GAMES
    quota_tournaments: int = DEFAULT_QUOTA_TOURNAMENTS
    quota_repeats: int = DEFAULT_QUOTA_REPEATS
    quota_ladders: int = DEFAULT_QUOTA_LADDERS
    ladder_pause_after: int = DEFAULT_LADDER_PAUSE_AFTER
    ladder_max_in_play: int = DEFAULT_LADDER_MAX_IN_PLAY
    ladder_inactive_days: int = DEFAULT_LADDER_INACTIVE_DAYS
    operator_token: str | None = None
    feed_window: int = DEFAULT_FEED_WINDOW
    account_share_percent: int = DEFAULT_ACCOUNT_SHARE_PERCENT
    live_challenges: int = DEFAULT_LIVE_CHALLENGES
    challenge_move_timeout_ms: int = DEFAULT_CHALLENGE_MOVE_TIMEOUT_MS
    old_protocol_days: int = DEFAULT_OLD_PROTOCOL_DAYS
    db_pool_size: int = DEFAULT_DB_POOL_SIZE
    db_max_overflow: int = DEFAULT_DB_MAX_OVERFLOW
    trusted_proxies: str = ""
    """``SORRY_ARENA_TRUSTED_PROXIES`` as written (``service/clientaddress.py`` reads it); empty: none."""
    metrics: str = "off"
    """``off``, ``on`` or a port number (as text)."""
    metrics_allow: str = ""
    worker_metrics_port: int | None = None
    log_format: str = "text"
    log_level: str = "INFO"
    access_log: bool = True
    rate_forfeits: bool = True
    """Whether a game with a forfeit is rated in the pools (as a loss for the seat that forfeited) or left out of
    their fit (``ratings.pool``; read by the process that fits, :func:`rate_forfeits`)."""
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings of ``environ`` (default: this process's environment); a one-line ``ValueError`` naming the
        variable for a bad value or an unknown ``SORRY_ARENA_*`` variable."""
        env = os.environ if environ is None else environ
        refuse_unknown(env)
        return cls(**{setting.field: setting.value(env) for setting in SETTINGS})


@dataclass(frozen=True)
class Setting:
    """One setting: its variable, the field of :class:`Settings` it fills, its value when unset or empty, its
    reader (``runtime/settingvalues.py``), what it does, and whether its value is secret."""

    name: str
    field: str
    default: Any
    read: kinds.Reader
    doc: str
    secret: bool = False

    def text(self, env: Mapping[str, str]) -> str | None:
        """The variable's text, ``None`` when unset or empty (then the default holds)."""
        text = env.get(self.name)
        return text if text is not None and text.strip() else None

    def value(self, env: Mapping[str, str]) -> Any:
        text = self.text(env)
        return self.default if text is None else self.read(self.name, text)


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "DATABASE_URL",
        "database_url",
        DEFAULT_DATABASE_URL,
        kinds.database_url,
        "SQLAlchemy URL of the database (sqlite or postgresql; postgres:// URLs use psycopg 3); default a SQLite "
        "file sorry-arena.db in the working directory",
        secret=True,
    ),
    Setting(
        "REDIS_URL",
        "redis_url",
        None,
        kinds.redis_url,
        "Redis (redis://, rediss:// or unix://): the job queue, long polls woken and rate limits counted across "
        "processes; unset: all in this process (the embedded service)",
        secret=True,
    ),
    Setting(
        "SORRY_ARENA_MAX_WAIT",
        "max_wait",
        30.0,
        kinds.seconds_between(1, 300),
        "the longest long poll, 1 to 300 s",
    ),
    Setting(
        "SORRY_ARENA_MAX_WAITING_PER_ACCOUNT",
        "max_waiting_per_account",
        DEFAULT_MAX_WAITING_PER_ACCOUNT,
        kinds.whole_between(1, 10_000),
        "long polls and streams one account may hold at once (1 to 10000); one more is a 429",
    ),
    Setting(
        "SORRY_ARENA_MAX_STREAMS_PER_ADDRESS",
        "max_streams_per_address",
        DEFAULT_MAX_STREAMS_PER_ADDRESS,
        kinds.whole_between(1, 10_000),
        "game event streams without a token one client address may hold open (1 to 10000)",
    ),
    Setting(
        "SORRY_ARENA_MAX_ANONYMOUS_STREAMS",
        "max_anonymous_streams",
        DEFAULT_MAX_ANONYMOUS_STREAMS,
        kinds.whole_between(1, 100_000),
        "game event streams without a token the whole service may hold open (1 to 100000)",
    ),
    Setting(
        "SORRY_ARENA_MAX_WAITING_PER_PROCESS",
        "max_waiting_per_process",
        None,
        kinds.whole_between(1, 100_000),
        "long polls and streams of all accounts one API process may hold at once (1 to 100000); default half of "
        f"its connections (sorry-arena serve --connections, default {DEFAULT_CONNECTIONS}); one more is a 429",
    ),
    Setting(
        "SORRY_ARENA_BOT_ALLOW",
        "bot_allow",
        "",
        kinds.allowlist,
        "networks a bot URL may resolve to although private, loopback or link-local (comma-separated CIDRs or "
        "'loopback'); default none",
    ),
    Setting(
        "SORRY_ARENA_LEASE_SECONDS",
        "lease_seconds",
        10.0,
        kinds.seconds_between(2, 600),
        "how long a worker's claim on a game lasts without renewal, 2 to 600 s (renewed every quarter of it)",
    ),
    Setting(
        "SORRY_ARENA_GAMES_PER_WORKER",
        "games_per_worker",
        8,
        kinds.whole_between(1, 256),
        "games a worker process (and the embedded service) plays at once (1 to 256)",
    ),
    Setting(
        "SORRY_ARENA_MAINTENANCE_SECONDS",
        "maintenance_seconds",
        1.0,
        kinds.seconds_or_off(0.1, 3600),
        "the embedded service's maintenance interval (runs due, games a killed service left), 0.1 to 3600 s, or "
        "'off'",
    ),
    Setting(
        "SORRY_ARENA_KEEP_MOVES_DAYS",
        "keep_moves_days",
        None,
        kinds.whole_or_off(1, 36_500),
        "days a finished game keeps its moves as rows (1 to 36500, or 'off', the default: for ever); older games "
        "keep their result, ratings, tallies and record (archived_games), their action rows deleted by the "
        "maintenance a batch at a time",
    ),
    Setting(
        "SORRY_ARENA_LIMIT_ACCOUNTS",
        "limit_accounts",
        DEFAULT_LIMIT_ACCOUNTS,
        kinds.rate,
        "POST /api/v1/players per client address (a rate such as 20/minute, or off)",
    ),
    Setting(
        "SORRY_ARENA_LIMIT_ACCOUNTS_HOURLY",
        "limit_accounts_hourly",
        DEFAULT_LIMIT_ACCOUNTS_HOURLY,
        kinds.rate,
        "POST /api/v1/players per client address over a longer window, beside SORRY_ARENA_LIMIT_ACCOUNTS (a rate "
        "such as 60/hour, or off)",
    ),
    Setting(
        "SORRY_ARENA_LIMIT_BOTS",
        "limit_bots",
        DEFAULT_LIMIT_BOTS,
        kinds.rate,
        "POST /api/v1/bots per account (a rate, or off)",
    ),
    Setting(
        "SORRY_ARENA_LIMIT_MOVES",
        "limit_moves",
        DEFAULT_LIMIT_MOVES,
        kinds.rate,
        "POST /api/v1/games/{id}/actions per account (a rate, or off)",
    ),
    Setting(
        "SORRY_ARENA_LIMIT_VERSIONS",
        "limit_versions",
        DEFAULT_LIMIT_VERSIONS,
        kinds.rate,
        "new versions of a bot at the same url (PATCH new_version) per bot (a rate, or off)",
    ),
    Setting(
        "SORRY_ARENA_QUOTA_GAMES",
        "quota_games",
        DEFAULT_QUOTA_GAMES,
        kinds.whole_between(1, MAX_GAMES),
        f"games in one tournament run of an account (1 to {MAX_GAMES}); over it, a 422",
    ),
    Setting(
        "SORRY_ARENA_QUOTA_MATCH_GAMES",
        "quota_match_games",
        DEFAULT_QUOTA_MATCH_GAMES,
        kinds.whole_between(2, MAX_GAMES),
        f"games in one match or in each match of a gauntlet (its max_games, 2 to {MAX_GAMES}), in place of "
        "SORRY_ARENA_QUOTA_GAMES; over it, a 422",
    ),
    Setting(
        "SORRY_ARENA_QUOTA_QUEUED",
        "quota_queued",
        DEFAULT_QUOTA_QUEUED,
        kinds.whole_between(1, 10 * MAX_GAMES),
        f"games an account's tournaments may have left to play, runs to come included (1 to {10 * MAX_GAMES}); "
        "over it, a 429",
    ),
    Setting(
        "SORRY_ARENA_QUOTA_TOURNAMENTS",
        "quota_tournaments",
        DEFAULT_QUOTA_TOURNAMENTS,
        kinds.whole_between(1, 10_000),
        "an account's scheduled and running tournaments, a repeating one as one (1 to 10000); over it, a 429",
    ),
    Setting(
        "SORRY_ARENA_QUOTA_REPEATS",
        "quota_repeats",
        DEFAULT_QUOTA_REPEATS,
        kinds.whole_between(2, 10_000),
        "the runs of a repeating tournament (2 to 10000); over it, a 422",
    ),
    Setting(
        "SORRY_ARENA_QUOTA_LADDERS",
        "quota_ladders",
        DEFAULT_QUOTA_LADDERS,
        kinds.whole_between(1, 10_000),
        "an account's open ladders (1 to 10000); over it, a 429",
    ),
    Setting(
        "SORRY_ARENA_LADDER_PAUSE_AFTER",
        "ladder_pause_after",
        DEFAULT_LADDER_PAUSE_AFTER,
        kinds.whole_between(1, 1000),
        "a ladder's bot is paused automatically after this many games in a row with a fault or a forfeit of its own "
        "(1 to 1000); read by the workers",
    ),
    Setting(
        "SORRY_ARENA_LADDER_MAX_IN_PLAY",
        "ladder_max_in_play",
        DEFAULT_LADDER_MAX_IN_PLAY,
        kinds.whole_between(1, 64),
        "a new ladder's most games made and not finished at once when its creator gives none (1 to 64)",
    ),
    Setting(
        "SORRY_ARENA_LADDER_INACTIVE_DAYS",
        "ladder_inactive_days",
        DEFAULT_LADDER_INACTIVE_DAYS,
        kinds.whole_between(1, 36_500),
        "days after its last game in a ladder that a bot is shown as inactive there (1 to 36500)",
    ),
    Setting(
        "SORRY_ARENA_OPERATOR_TOKEN",
        "operator_token",
        None,
        kinds.operator_token,
        f"the operator's bearer token ({kinds.MIN_OPERATOR_TOKEN}+ printable characters, one word); unset: no "
        "operator",
        secret=True,
    ),
    Setting(
        "SORRY_ARENA_FEED_WINDOW",
        "feed_window",
        DEFAULT_FEED_WINDOW,
        kinds.whole_between(1, 1000),
        "games of each account waiting in the job queue at most (1 to 1000)",
    ),
    Setting(
        "SORRY_ARENA_ACCOUNT_SHARE_PERCENT",
        "account_share_percent",
        DEFAULT_ACCOUNT_SHARE_PERCENT,
        kinds.whole_between(1, 100),
        "the share of a worker's game slots one account's games (tournaments, matches, challenges) may hold at once, "
        "in percent (1 to 100; at least one slot)",
    ),
    Setting(
        "SORRY_ARENA_LIVE_CHALLENGES",
        "live_challenges",
        DEFAULT_LIVE_CHALLENGES,
        kinds.whole_between(1, 100),
        "an account's challenges not over (1 to 100); over it, a 429",
    ),
    Setting(
        "SORRY_ARENA_CHALLENGE_MOVE_TIMEOUT_MS",
        "challenge_move_timeout_ms",
        DEFAULT_CHALLENGE_MOVE_TIMEOUT_MS,
        kinds.whole_between(1000, MAX_CHALLENGE_MOVE_TIMEOUT_MS),
        f"the most time per move a person may ask for in a challenge, in ms (1000 to {MAX_CHALLENGE_MOVE_TIMEOUT_MS}); "
        "over it, a 422",
    ),
    Setting(
        "SORRY_ARENA_OLD_PROTOCOL_DAYS",
        "old_protocol_days",
        DEFAULT_OLD_PROTOCOL_DAYS,
        kinds.whole_between(0, MAX_OLD_PROTOCOL_DAYS),
        f"days (0 to {MAX_OLD_PROTOCOL_DAYS}) after 2026-11-29 that push bots speaking the deprecated protocol v1 "
        "(clients before 0.2) still register and pass their health checks; 0: refused at once",
    ),
    Setting(
        "SORRY_ARENA_DB_POOL_SIZE",
        "db_pool_size",
        DEFAULT_DB_POOL_SIZE,
        kinds.whole_between(1, 100),
        "PostgreSQL connections each process keeps open (1 to 100)",
    ),
    Setting(
        "SORRY_ARENA_DB_MAX_OVERFLOW",
        "db_max_overflow",
        DEFAULT_DB_MAX_OVERFLOW,
        kinds.whole_between(0, 100),
        "PostgreSQL connections each process may open beyond its pool at busy times (0 to 100)",
    ),
    Setting(
        "SORRY_ARENA_TRUSTED_PROXIES",
        "trusted_proxies",
        "",
        kinds.trusted_proxies,
        "the reverse proxies in front of the API, whose X-Forwarded-For names the client: a number of hops "
        f"(0 to {kinds.MAX_PROXY_HOPS}) or comma-separated networks of the proxies; default none",
    ),
    Setting(
        "SORRY_ARENA_METRICS",
        "metrics",
        "off",
        kinds.metrics_mode,
        "the Prometheus metrics (runtime/metrics.py): off (/metrics is a 404), on (served by the API at /metrics) or "
        "a port number (served on that port by sorry-arena serve's master process, for all its workers)",
    ),
    Setting(
        "SORRY_ARENA_METRICS_ALLOW",
        "metrics_allow",
        "",
        kinds.networks,
        "networks (comma-separated CIDRs) whose clients may read the metrics without a token; anyone else needs the "
        "operator's token, else a 403",
    ),
    Setting(
        "SORRY_ARENA_WORKER_METRICS_PORT",
        "worker_metrics_port",
        None,
        kinds.whole_between(1, 65535),
        "the port a sorry-arena worker serves its own metrics on (its --metrics-port flag); default none",
    ),
    Setting(
        "SORRY_ARENA_LOG_FORMAT",
        "log_format",
        "text",
        kinds.one_of("text", "json"),
        "text or json (one object a line)",
    ),
    Setting(
        "SORRY_ARENA_LOG_LEVEL",
        "log_level",
        "INFO",
        kinds.one_of("DEBUG", "INFO", "WARNING", "ERROR"),
        "DEBUG, INFO, WARNING or ERROR",
    ),
    Setting(
        "SORRY_ARENA_ACCESS_LOG",
        "access_log",
        True,
        kinds.on_off,
        "on (a line per request, runtime/logs.py) or off",
    ),
    Setting(
        "SORRY_ARENA_RATE_FORFEITS",
        "rate_forfeits",
        True,
        kinds.on_off,
        "on (a game with a forfeit is rated in the pools, as a loss for the seat that forfeited) or off (it is left "
        "out of the pools' fit, but still counted in each bot's forfeit rate)",
    ),
)
"""Every setting the service reads, in the order ``sorry-arena config`` shows them."""

OTHER_VARIABLES = frozenset(
    {
        "SORRY_ARENA_API",  # the command-line client's service URL (sorry-arena tournament, export)
        "SORRY_ARENA_TOKEN",  # the command-line client's bearer token
        "SORRY_ARENA_SECRET",  # a push bot's HMAC secret (clients/, sorry-arena simulate --bots)
        "SORRY_ARENA_OLD_SECRET",  # a push bot's previous secret, while it is rotated
        "SORRY_ARENA_PORT",  # compose: the host port of the API
        "SORRY_ARENA_BOT_SUBNET",  # compose: the bots' network
        "SORRY_ARENA_CHROMIUM",  # the tests and benchmarks of the pages: the browser
        "SORRY_ARENA_FUZZ_EXAMPLES",  # the tests: schemathesis's examples per operation
        "SORRY_ARENA_TEST_POSTGRES_URL",  # the tests' PostgreSQL
        "SORRY_ARENA_TEST_REDIS_URL",  # the tests' Redis
    }
)
"""``SORRY_ARENA_*`` variables that other parts read (the bots, the client, compose, the tests): not refused."""


def known_names() -> list[str]:
    return [setting.name for setting in SETTINGS] + sorted(OTHER_VARIABLES)


def refuse_unknown(env: Mapping[str, str]) -> None:
    """A ``ValueError`` for the first ``SORRY_ARENA_*`` variable of ``env`` that nothing reads, naming the
    closest known name (compared without the prefix, which every name shares)."""
    known = known_names()
    endings = [name.removeprefix(PREFIX) for name in known if name.startswith(PREFIX)]
    for name in sorted(env):
        if name.startswith(PREFIX) and name not in known:
            close = difflib.get_close_matches(name.removeprefix(PREFIX), endings, n=1, cutoff=0.75)
            hint = f" (did you mean {PREFIX}{close[0]}?)" if close else " (docs/deploy.md lists the settings)"
            raise ValueError(f"unknown setting {name}{hint}")


def sources(env: Mapping[str, str] | None = None) -> list[tuple[Setting, Any, str]]:
    """Each setting, its value and where it came from (``environment`` or ``default``), for ``sorry-arena
    config``; a ``ValueError`` as :meth:`Settings.from_env` raises it."""
    env = os.environ if env is None else env
    settings = Settings.from_env(env)
    return [
        (setting, getattr(settings, setting.field), "default" if setting.text(env) is None else "environment")
        for setting in SETTINGS
    ]


def rate_forfeits(environ: Mapping[str, str] | None = None) -> bool:
    """``SORRY_ARENA_RATE_FORFEITS`` of ``environ`` (default: this process's environment), as the pools' fit reads
    it wherever it runs (a worker, the embedded service); ``ValueError`` for a value that is not on or off."""
    env = os.environ if environ is None else environ
    setting = next(setting for setting in SETTINGS if setting.name == "SORRY_ARENA_RATE_FORFEITS")
    return bool(setting.value(env))


def ladder_pause_after(environ: Mapping[str, str] | None = None) -> int:
    """``SORRY_ARENA_LADDER_PAUSE_AFTER`` of ``environ`` (default: this process's environment), as the worker that
    writes a ladder's result reads it; ``ValueError`` for a value out of its range."""
    env = os.environ if environ is None else environ
    setting = next(setting for setting in SETTINGS if setting.name == "SORRY_ARENA_LADDER_PAUSE_AFTER")
    return int(setting.value(env))
