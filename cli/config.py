"""``sorry-arena config``: the effective settings of this environment (``runtime/settings.py``), where each came
from, secrets masked (the operator's token; a password inside ``DATABASE_URL`` or ``REDIS_URL``), then whether the
database and Redis answer and the database is at the newest migration (``runtime/readiness.py``, as
``GET /api/v1/ready`` checks). Exit 2 for a bad or unknown setting (one line naming it), 1 when the database or
Redis does not answer. Its parser: ``cli/parsers/config.py``."""

from __future__ import annotations

import argparse
import sys
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from runtime.settings import Setting, sources

MASK = "********"


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        found = sources()
    except ValueError as error:
        print(f"sorry-arena config: {error}", file=sys.stderr)
        return 2
    width = max(len(setting.name) for setting, _, _ in found)
    for setting, value, origin in found:
        print(f"{setting.name:<{width}}  {shown(setting, value)}  ({origin})")
    if args.no_check:
        return 0
    return check({setting.field: value for setting, value, _ in found})


def shown(setting: Setting, value: Any) -> str:
    """The value as the setting reads it, a secret masked: a URL keeps all but its password."""
    if value is None:
        return "off" if setting.field == "maintenance_seconds" else "unset"
    if value == "":
        return "none"
    if setting.secret:
        return masked_url(str(value)) if "://" in str(value) else MASK
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def masked_url(url: str) -> str:
    """``url`` with its password, if any, replaced by :data:`MASK`."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = f"{parts.username}:" if parts.username else ":"
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{user}{MASK}@{host}"))


def check(values: dict[str, Any]) -> int:
    """Print each check of ``runtime/readiness.py``; 1 when the database or Redis does not answer."""
    from runtime.readiness import Readiness
    from store.database import make_engine

    engine = make_engine(values["database_url"], values["db_pool_size"], values["db_max_overflow"])
    readiness = Readiness(engine, values["redis_url"])
    try:
        checks = readiness.checks()
    finally:
        readiness.close()
        engine.dispose()
    checks.setdefault("redis", "not configured (REDIS_URL unset: everything in one process)")
    for name in ("database", "redis", "migrations"):
        print(f"{name}: {checks[name]}")
    failed = [name for name in ("database", "redis") if checks[name].startswith("cannot")]
    if failed:
        print(f"sorry-arena config: {' and '.join(failed)} not answering", file=sys.stderr)
        return 1
    return 0
