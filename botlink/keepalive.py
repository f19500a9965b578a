"""Connections to push bots kept open from one game to the next, in a process that plays many (a worker).

A game takes a :class:`botlink.calls.BotConnection` per push bot's seat (:meth:`Kept.take`) and hands it back once
its ``end`` request is answered (:meth:`Kept.give_back`): the next game of the same bot, with the same secret and
timeout, goes on on that connection, without a new TCP connection per game (nor, at a bot served by a thread per
connection, a new thread per game). A connection is used by one game at a time, and kept for ``max_age`` seconds
after it was made: then its address is resolved and checked again (``botlink.netguard``), as a new bot's is. One
whose URL was refused, or whose host did not resolve, is never kept. A bot that closed a kept connection meanwhile
costs no fault: the next request on it finds it dropped and is sent again at once on a new connection
(``botlink.calls``). A bot that plays no more games here (removed, its URL changed, its tournaments over) does not
keep its connections open: every ``max_age`` at most, a game's start or end closes every idle connection past its
age, whoever its bot.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable

from botlink import netguard
from botlink.calls import DEFAULT_TIMEOUT_S, BotConnection

MAX_AGE_S = 60.0
"""How long a connection is kept from its making (seconds): a bot's address is resolved again after that."""
MAX_IDLE = 64
"""The most idle connections kept for one bot (its seats in this process's games at once, at most)."""


def _bot(url: str, secret: str, timeout: float, allow: tuple[netguard.Network, ...]) -> tuple[object, ...]:
    """The key of a bot's idle connections: what a connection is made with (a connection made with other values
    serves another bot, or the same one as it was before)."""
    return (url, secret, timeout, allow)


class Kept:
    """The idle connections of this process, by bot (URL, secret, timeout and allowlist)."""

    def __init__(
        self, max_age: float = MAX_AGE_S, max_idle: int = MAX_IDLE, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.max_age = max_age
        self.max_idle = max_idle
        self.clock = clock
        """The time the connections' ages are taken at (``time.monotonic``, as their ``made_at``)."""
        self._lock = threading.Lock()
        self._idle: dict[tuple[object, ...], list[tuple[float, BotConnection]]] = {}
        self._swept = clock()

    def take(
        self,
        url: str,
        secret: str,
        allow: Iterable[netguard.Network] = (),
        timeout: float = DEFAULT_TIMEOUT_S,
        protocol: int = 2,
    ) -> BotConnection:
        """An idle connection to this bot, kept less than ``max_age`` ago, else a new one; signing in ``protocol``
        (the bot's, ``botlink/protocols.py``)."""
        allowed = tuple(allow)
        key = _bot(url, secret, float(timeout), allowed)
        moment = self.clock()
        stale: list[BotConnection] = []
        found = None
        with self._lock:
            idle = self._idle.get(key, [])
            while idle and found is None:
                made, connection = idle.pop()
                if moment - made < self.max_age:
                    found = connection
                else:
                    stale.append(connection)
            stale.extend(self._aged(moment))
        for connection in stale:
            connection.close()
        if found is None:
            return BotConnection(url, secret, allow=allowed, timeout=timeout, protocol=protocol)
        found.protocol = protocol
        return found

    def give_back(self, connection: BotConnection) -> None:
        """Keep ``connection`` for the bot's next game (unless it is refused, unresolved, too old or one too many)."""
        key = _bot(connection.url, connection.secret, connection.timeout, connection.allow)
        moment = self.clock()
        with self._lock:
            stale = self._aged(moment)
            if connection.target is None or moment - connection.made_at >= self.max_age:
                stale.append(connection)
            else:
                idle = self._idle.setdefault(key, [])
                if len(idle) < self.max_idle:
                    idle.append((connection.made_at, connection))
                else:
                    stale.append(connection)
        for closing in stale:
            closing.close()

    def _aged(self, moment: float) -> list[BotConnection]:
        """Under the lock: take out every idle connection past its age, of any bot, at most once per ``max_age``
        (to be closed outside the lock)."""
        if moment - self._swept < self.max_age:
            return []
        self._swept = moment
        aged: list[BotConnection] = []
        for key in list(self._idle):
            kept = [(made, connection) for made, connection in self._idle[key] if moment - made < self.max_age]
            aged.extend(connection for made, connection in self._idle[key] if moment - made >= self.max_age)
            if kept:
                self._idle[key] = kept
            else:
                del self._idle[key]
        return aged

    def close(self) -> None:
        """Close every idle connection (the process stops)."""
        with self._lock:
            idle = [connection for kept in self._idle.values() for _, connection in kept]
            self._idle.clear()
        for connection in idle:
            connection.close()
