"""How each kind of setting's text is read (``runtime/settings.py`` declares which setting is which kind).

Each reader takes the variable's name and its text (never empty: an unset or empty variable is the setting's
default) and returns the value, or raises a ``ValueError`` whose message is one line naming the variable and the
values it takes. A secret's text (the operator's token, a URL's password) is never quoted back.
"""

from __future__ import annotations

import ipaddress
import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from limits import RateLimitItem

Reader = Callable[[str, str], object]
"""A setting's reader: ``(name, text) -> value``, a one-line ``ValueError`` naming ``name`` for a bad text."""

MIN_OPERATOR_TOKEN = 32
RATE_FORMS = "a rate such as '100/second', '20 per minute' or '5/2 minutes' (several separated by ';'), or 'off'"
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
MAX_PROXY_HOPS = 10
"""The most proxies in front of the service that ``SORRY_ARENA_TRUSTED_PROXIES`` may count."""


def seconds_between(low: float, high: float) -> Callable[[str, str], float]:
    """A number of seconds from ``low`` to ``high``."""

    def read(name: str, text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"{name} must be a number of seconds, not {text!r}") from None
        if not (math.isfinite(value) and low <= value <= high):
            raise ValueError(f"{name} must be from {low:g} to {high:g} seconds, not {text!r}")
        return value

    return read


def seconds_or_off(low: float, high: float) -> Reader:
    """A number of seconds from ``low`` to ``high``, or ``off`` (``None``)."""
    read_seconds = seconds_between(low, high)

    def read(name: str, text: str) -> float | None:
        if text.strip().lower() == "off":
            return None
        try:
            return read_seconds(name, text)
        except ValueError:
            raise ValueError(f"{name} must be from {low:g} to {high:g} seconds or 'off', not {text!r}") from None

    return read


def whole_between(low: int, high: int) -> Reader:
    """A whole number from ``low`` to ``high``."""

    def read(name: str, text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"{name} must be a whole number, not {text!r}") from None
        if not low <= value <= high:
            raise ValueError(f"{name} must be from {low} to {high}, not {text!r}")
        return value

    return read


def whole_or_off(low: int, high: int) -> Reader:
    """A whole number from ``low`` to ``high``, or ``off`` (``None``)."""
    read_whole = whole_between(low, high)

    def read(name: str, text: str) -> int | None:
        if text.strip().lower() == "off":
            return None
        try:
            value = read_whole(name, text)
        except ValueError:
            raise ValueError(
                f"{name} must be a whole number from {low} to {high} or 'off', not {text!r}"
            ) from None
        assert isinstance(value, int)
        return value

    return read


def one_of(*choices: str) -> Reader:
    """One of ``choices``, matched without regard to case, as the choice is written."""

    def read(name: str, text: str) -> str:
        for known in choices:
            if text.strip().lower() == known.lower():
                return known
        raise ValueError(f"{name} must be one of {', '.join(choices)}, not {text.strip()!r}")

    return read


def on_off(name: str, text: str) -> bool:
    """``on`` (``True``) or ``off``."""
    return one_of("on", "off")(name, text) == "on"


def metrics_mode(name: str, text: str) -> str:
    """``off``, ``on`` or a port number from 1 to 65535 (as text)."""
    text = text.strip().lower()
    if text in ("off", "on"):
        return text
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise ValueError(f"{name} must be off, on or a port number from 1 to 65535, not {text!r}")
    return str(int(text))


def networks(name: str, text: str) -> str:
    """Comma-separated CIDRs (checked), as written."""
    for entry in filter(None, (part.strip() for part in text.split(","))):
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise ValueError(
                f"{name} must be comma-separated networks such as 10.0.0.0/8, not {entry!r}"
            ) from None
    return text.strip()


def operator_token(name: str, text: str) -> str:
    """The operator's token: one word of printable characters, long enough to be secret (never quoted back)."""
    text = text.strip()
    if len(text) < MIN_OPERATOR_TOKEN or not text.isprintable() or any(char.isspace() for char in text):
        raise ValueError(
            f"{name} must be one word of at least {MIN_OPERATOR_TOKEN} printable characters "
            "(e.g. the output of `openssl rand -hex 32`)"
        )
    return text


def rate(name: str, text: str) -> str:
    """A rate limit (checked: see :func:`parse_rate`), as written."""
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


def database_url(name: str, text: str) -> str:
    """A SQLAlchemy URL of SQLite or PostgreSQL (``postgres://`` as platforms write it becomes psycopg 3's);
    the text is not quoted back: it may hold a password."""
    from sqlalchemy.engine import make_url  # here: the parsers of the command line load no SQLAlchemy

    from store.urls import normalize_database_url

    url = normalize_database_url(text.strip())
    try:
        backend = make_url(url).get_backend_name()
    except Exception:
        backend = ""
    if backend not in ("sqlite", "postgresql"):
        raise ValueError(
            f"{name} must be a database URL such as sqlite:///FILE or postgresql://USER:PASSWORD@HOST/NAME"
        )
    return url


def redis_url(name: str, text: str) -> str:
    """A Redis URL (its text is not quoted back: it may hold a password)."""
    text = text.strip()
    if not text.startswith(REDIS_SCHEMES):
        raise ValueError(f"{name} must be a Redis URL starting with redis://, rediss:// or unix://")
    return text


def allowlist(name: str, text: str) -> str:
    """The bot allowlist, as written, once ``botlink.netguard.parse_allowlist`` reads it."""
    from botlink.netguard import parse_allowlist

    try:
        parse_allowlist(text)
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None
    return text.strip()


def trusted_proxies(name: str, text: str) -> str:
    """The proxies in front of the service, as written, once :func:`parse_proxies` reads it."""
    try:
        parse_proxies(text)
    except ValueError as error:
        raise ValueError(f"{name} {error}") from None
    return text.strip()


Proxies = int | tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]


def parse_proxies(text: str) -> Proxies:
    """``SORRY_ARENA_TRUSTED_PROXIES``: a number of proxy hops (``0``: none), or the networks of the proxies
    (comma-separated CIDRs or addresses); a ValueError saying which forms it takes."""
    text = text.strip()
    if not text:
        return 0
    if text.isdigit():
        hops = int(text)
        if hops > MAX_PROXY_HOPS:
            raise ValueError(f"must be a number of proxies from 0 to {MAX_PROXY_HOPS}, not {text!r}")
        return hops
    networks = []
    for entry in (part.strip() for part in text.split(",")):
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise ValueError(
                f"must be a number of proxies (e.g. 1) or comma-separated networks (e.g. 10.0.0.0/8,::1); "
                f"{entry!r} is neither"
            ) from None
    return tuple(networks)
