"""What each worker tells the operator (``GET /api/v1/admin/workers``): its game slots, how many are busy, its
moves per second and the bots stalling in it, in a small Redis hash per worker written on its clock's tick and
expiring when the worker stops writing it; read by the service, which imports no ``tournament`` code.

Without Redis (the embedded queue) the service shows its own threads instead (:func:`embedded`), with the moves of
this process.
"""

from __future__ import annotations

import json
import time
from typing import Any

from runtime import metrics

PREFIX = "sorry-arena:worker-stats:"
TTL_SECONDS = 15
"""A worker's hash outlives its last write by this long: a worker gone for longer is no longer listed."""


def moves() -> float:
    """The moves this process's games played (a worker's, or the embedded service's): the metric
    ``sorry_arena_moves_total`` of this process."""
    return sum(
        sample.value
        for family in metrics.MOVES.collect()
        for sample in family.samples
        if sample.name.endswith("_total")
    )


class Rate:
    """Moves per second between two readings of :func:`moves`."""

    def __init__(self) -> None:
        self._last = (time.monotonic(), moves())

    def per_second(self) -> float:
        moment, total = time.monotonic(), moves()
        then, before = self._last
        self._last = (moment, total)
        return (total - before) / (moment - then) if moment > then else 0.0


def publish(connection: Any, name: str, slots: int, busy: int, rate: float, stalling: list[int]) -> None:
    """Write this worker's hash (and its expiry) in one round trip."""
    key = PREFIX + name
    pipeline = connection.pipeline(transaction=False)
    pipeline.hset(
        key,
        mapping={
            "name": name,
            "slots": slots,
            "busy": busy,
            "moves_per_second": round(rate, 2),
            "stalling": json.dumps(sorted(stalling)),
            "at": time.time(),
        },
    )
    pipeline.expire(key, TTL_SECONDS)
    pipeline.execute()


def read(connection: Any) -> list[dict[str, Any]]:
    """Every worker's last figures, by name; each with ``seen_seconds_ago``."""
    found = []
    for key in sorted(connection.scan_iter(match=PREFIX + "*", count=500)):
        fields = {k.decode(): v.decode() for k, v in connection.hgetall(key).items()}
        if not fields:
            continue
        found.append(
            {
                "name": fields.get("name", ""),
                "slots": int(fields.get("slots", 0)),
                "busy": int(fields.get("busy", 0)),
                "moves_per_second": float(fields.get("moves_per_second", 0.0)),
                "stalling": [int(bot) for bot in json.loads(fields.get("stalling", "[]"))],
                "seen_seconds_ago": max(0.0, round(time.time() - float(fields.get("at", 0.0)), 1)),
            }
        )
    return found
