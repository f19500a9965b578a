"""Every metric of the service and the workers (Prometheus, names prefixed ``sorry_arena_``), defined once here so
that ``service/`` and ``tournament/`` both import them (they do not import each other).

The hot paths (a move of a pull bot, a worker's move and bot call) only increment or observe children made once:
:func:`child` keeps each labelled child in a dict, so a request costs a dict lookup and a lock-free add, never a
``labels()`` call. Every label takes its values from a bounded set: a route's template (never its path), a status
code, a fault kind of ``botlink.calls.FAULTS``, a limit's or quota's name, an account id among the few with games
queued (``QUEUED_ACCOUNTS`` at most). No label or value carries a token, a hand or a deck.

Under gunicorn's several workers the values live in ``PROMETHEUS_MULTIPROC_DIR`` (``sorry-arena serve`` makes it
for its run; prometheus_client reads it when it is first imported, so the command sets it before): a gauge's
``multiprocess_mode`` says how the processes' values add up. How they are served: ``runtime/metricserver.py``.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from typing import Any, TypeVar

from prometheus_client import Counter, Gauge, Histogram

QUEUED_ACCOUNTS = 20
"""The most accounts whose queued games are shown (those with the most), so the label's values stay few."""

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

# --- the API -----------------------------------------------------------------------------------------------------
REQUESTS = Counter(
    "sorry_arena_http_requests",
    "HTTP requests answered, by method, route template and status",
    ["method", "route", "status"],
)
REQUEST_SECONDS = Histogram(
    "sorry_arena_http_request_seconds",
    "Time from a request's arrival to its answer's headers, by method and route template",
    ["method", "route"],
    buckets=LATENCY_BUCKETS,
)
WAITING = Gauge(
    "sorry_arena_waiting_requests",
    "Requests waiting now: long polls (kind=long_poll) and event streams (kind=stream)",
    ["kind"],
    multiprocess_mode="livesum",
)
POOL_CHECKED_OUT = Gauge(
    "sorry_arena_db_pool_checked_out",
    "Database connections of the API's pools in use (sampled at most once a second per process)",
    multiprocess_mode="livesum",
)
POOL_SIZE = Gauge(
    "sorry_arena_db_pool_size",
    "Database connections the API's pools keep (their size)",
    multiprocess_mode="livesum",
)
WAITING_REFUSED = Counter(
    "sorry_arena_waiting_refused",
    "Long polls and streams refused with a 429 by a cap, by cap (account, address, anonymous, process)",
    ["cap"],
)
RATE_LIMITED = Counter(
    "sorry_arena_rate_limited", "Requests refused with a 429 by a rate limit, by limit", ["limit"]
)
QUOTA_REFUSALS = Counter("sorry_arena_quota_refusals", "Tournaments refused by a quota, by quota", ["quota"])
CANCELLATIONS = Counter("sorry_arena_cancellations", "Tournaments cancelled")

# --- the workers (and the embedded queue of an API process) ------------------------------------------------------
MOVES = Counter("sorry_arena_moves", "Moves played in tournament games (a fault's fallback included)")
GAMES_STARTED = Counter("sorry_arena_games_started", "Tournament games started (not resumed)")
GAMES_FINISHED = Counter("sorry_arena_games_finished", "Tournament games finished, their result written")
FORFEITS = Counter("sorry_arena_forfeits", "Seats forfeited in finished tournament games")
BOT_FAULTS = Counter("sorry_arena_bot_faults", "Faulted answers of push bots, by kind", ["kind"])
BOT_CALL_SECONDS = Histogram(
    "sorry_arena_bot_call_seconds", "Time of a push bot's answer to a move request", buckets=LATENCY_BUCKETS
)
HEALTH_CHANGES = Counter(
    "sorry_arena_bot_health_changes",
    "Push bots excluded by their health checks (change=excluded) or included again (change=included)",
    ["change"],
)
SLOTS = Gauge("sorry_arena_slots", "Game slots of the worker processes", multiprocess_mode="livesum")
SLOTS_BUSY = Gauge("sorry_arena_slots_busy", "Game slots playing a game now", multiprocess_mode="livesum")
QUEUED = Gauge(
    "sorry_arena_queued_games",
    f"Games fed to the queue and not yet leased, per account (the {QUEUED_ACCOUNTS} with the most; sampled as the"
    " queue is topped up, every clock tick)",
    ["account"],
    multiprocess_mode="livemax",
)
LEASE_TAKEOVERS = Counter(
    "sorry_arena_lease_takeovers", "Games taken over from a worker whose lease ran out (it died or stalled)"
)
RECOVERED = Counter("sorry_arena_recovered_games", "Games enqueued again by the recovery (their job was lost)")
STALL_HOLDS = Counter(
    "sorry_arena_stall_holds",
    "Game jobs sent back to the queue: their account holds its share of the slots, or a bot of theirs stalls in its",
)
READY = Gauge(
    "sorry_arena_worker_ready",
    "1 while the worker's database and Redis answer (checked every second), else 0",
    multiprocess_mode="livemin",
)

Metric = TypeVar("Metric", Counter, Gauge, Histogram)
_children: dict[tuple[int, Hashable], Any] = {}
_lock = threading.Lock()


def child(metric: Metric, *values: str) -> Metric:
    """``metric.labels(*values)``, made once per set of values and then read from a dict."""
    key = (id(metric), values)
    found = _children.get(key)
    if found is None:
        with _lock:
            found = _children.setdefault(key, metric.labels(*values))
    return found  # type: ignore[no-any-return]


def fault(kind: str) -> None:
    """Count a push bot's fault of ``kind``."""
    child(BOT_FAULTS, kind).inc()


def queued(per_account: dict[int, int]) -> None:
    """The queued games of the accounts with the most (:data:`QUEUED_ACCOUNTS`); the others' are dropped."""
    top = sorted(per_account.items(), key=lambda item: (-item[1], item[0]))[:QUEUED_ACCOUNTS]
    QUEUED.clear()
    for account, count in top:
        if count:
            QUEUED.labels(str(account)).set(count)
