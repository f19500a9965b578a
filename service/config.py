"""Settings of the service, read from the environment (documented in the README and compose.yaml).

- ``DATABASE_URL``: SQLAlchemy URL; default a SQLite file ``sorry-arena.db`` in the working directory.
  ``postgres://`` and ``postgresql://`` URLs (as hosting platforms write them) use psycopg 3, the installed driver.
- ``REDIS_URL``: when set, long-polling waiters wake through Redis, so several API processes on several machines
  serve one game; unset, they wake through this process's memory (the embedded default).
- ``SORRY_ARENA_MAX_WAIT``: the longest long poll in seconds (default 30).
- ``SORRY_ARENA_BOT_ALLOW``: networks a bot URL may resolve to although they are private, loopback or link-local
  (comma-separated CIDRs, or ``loopback``); default none: such bot URLs are refused.
- ``SORRY_ARENA_LEASE_SECONDS``: how long a worker's claim on a game lasts without renewal (default 30): a game whose
  worker died is played again this long after its last save.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

DEFAULT_DATABASE_URL = "sqlite:///sorry-arena.db"
MAX_BODY_BYTES = 64 * 1024


def normalize_database_url(url: str) -> str:
    """Point a driverless PostgreSQL URL at psycopg 3 (SQLAlchemy's own default would be psycopg2)."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url.removeprefix(prefix)
    return url


@dataclass
class Settings:
    database_url: str = DEFAULT_DATABASE_URL
    redis_url: str | None = None
    max_wait: float = 30.0
    bot_allow: str = ""
    lease_seconds: float = 30.0
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        return cls(
            database_url=normalize_database_url(env.get("DATABASE_URL") or DEFAULT_DATABASE_URL),
            redis_url=env.get("REDIS_URL") or None,
            max_wait=seconds(env, "SORRY_ARENA_MAX_WAIT", 30.0),
            bot_allow=env.get("SORRY_ARENA_BOT_ALLOW", ""),
            lease_seconds=seconds(env, "SORRY_ARENA_LEASE_SECONDS", 30.0),
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
