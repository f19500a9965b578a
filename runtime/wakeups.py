"""Wake long-polling requests when a game moves (``GET /games/{id}/actions?wait=``, ``GET /decisions?wait=``).

Waiters watch channels: a game's (every accepted move publishes on it) and a player's (published when a game the
player is seated in starts, so that its decisions inbox learns of the new game). Without ``REDIS_URL`` (the
embedded default) publishing wakes this process's waiters directly; with it, a publish goes through Redis and one
listener thread per process, subscribed to every channel of the service, wakes that process's waiters, so a
waiter in any API process on any machine wakes. A waiter always re-checks the database after it started watching
and before each wait, so a move made just before it started waiting is never missed; when the listener has to
reconnect to Redis, every waiter re-checks.

When the process stops (a reload of ``sorry-arena serve``, a stop), :meth:`Notifier.drain` ends every wait at once:
a long poll answers with what there is (nothing new: its normal answer), a stream ends, and their clients ask again,
of a process that runs on, instead of holding the stop for up to a long poll's length.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

log = logging.getLogger(__name__)

PREFIX = "sorry-arena:"


def game_channel(game_id: int) -> str:
    return f"{PREFIX}game:{game_id}"


def player_channel(player_id: int) -> str:
    return f"{PREFIX}player:{player_id}"


class Hub:
    """This process's waiters by channel."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: dict[str, set[threading.Event]] = {}
        self.draining = False
        """Set when the process is stopping (:meth:`drain`): every wait ends at once."""

    def add(self, event: threading.Event, channels: Iterable[str]) -> None:
        with self._lock:
            for channel in channels:
                self._waiters.setdefault(channel, set()).add(event)

    def remove(self, event: threading.Event, channels: Iterable[str]) -> None:
        with self._lock:
            for channel in channels:
                waiting = self._waiters.get(channel)
                if waiting is not None:
                    waiting.discard(event)
                    if not waiting:
                        del self._waiters[channel]

    def wake(self, channel: str) -> None:
        with self._lock:
            waiting = list(self._waiters.get(channel, ()))
        for event in waiting:
            event.set()

    def drain(self) -> None:
        """The process is stopping: wake every waiter, and end every wait from now on at once."""
        self.draining = True
        self.wake_all()

    def wake_all(self) -> None:
        with self._lock:
            waiting = {event for events in self._waiters.values() for event in events}
        for event in waiting:
            event.set()


class Subscription:
    """Channels one request watches: ``arm()``, check the database, then ``wait()`` (returns early on a publish
    made after ``arm()``). Use it as a context manager."""

    def __init__(self, hub: Hub, channels: Iterable[str]) -> None:
        self._hub = hub
        self._event = threading.Event()
        self.channels: set[str] = set()
        self.add(channels)

    def add(self, channels: Iterable[str]) -> bool:
        """Watch these channels too; ``True`` if any is new (then check the database again before waiting)."""
        new = set(channels) - self.channels
        if new:
            self._hub.add(self._event, new)
            self.channels |= new
        return bool(new)

    def arm(self) -> None:
        self._event.clear()

    @property
    def ended(self) -> bool:
        """The process is stopping: answer with what there is now (a long poll) or end (a stream), and let the
        client ask again, of a process that runs on."""
        return self._hub.draining

    def wait(self, timeout: float) -> bool:
        return self._event.wait(max(timeout, 0.0))

    def close(self) -> None:
        self._hub.remove(self._event, self.channels)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class Notifier:
    """Publishes and waits within this process (the embedded default); :class:`RedisNotifier` across processes."""

    def __init__(self) -> None:
        self.hub = Hub()

    def publish(self, game_id: int, ply: int) -> None:
        """Game ``game_id`` is now at ``ply``."""
        self._send([(game_channel(game_id), ply)])

    def publish_players(self, player_ids: Iterable[int], game_id: int | None = None) -> None:
        """Something changed for these players (a game they sit in started); with ``game_id``, that game too."""
        messages = [(player_channel(player), 0) for player in player_ids]
        if game_id is not None:
            messages.append((game_channel(game_id), 0))
        self._send(messages)

    def _send(self, messages: list[tuple[str, int]]) -> None:
        for channel, _ in messages:
            self.hub.wake(channel)

    def watch(self, channels: Iterable[str]) -> Subscription:
        return Subscription(self.hub, channels)

    def drain(self) -> None:
        """The process is stopping (a reload, a stop): every wait of its requests ends now (``Hub.drain``)."""
        self.hub.drain()

    def wait_until(self, channels: Iterable[str], ready: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``ready()`` (checked at once, then after each publish on one of ``channels``) or timeout."""
        deadline = time.monotonic() + timeout
        with self.watch(channels) as subscription:
            while True:
                subscription.arm()
                if ready():
                    return True
                remaining = deadline - time.monotonic()
                if remaining <= 0 or subscription.ended:
                    return False
                subscription.wait(remaining)

    def wait(self, game_id: int, ready: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``ready()``, checked at once and after each move of game ``game_id``, or timeout."""
        return self.wait_until([game_channel(game_id)], ready, timeout)


MemoryNotifier = Notifier


class RedisNotifier(Notifier):
    LISTENER_START_SECONDS = 2.0
    LOST_LOG_SECONDS = 10.0
    """A Redis that is down is logged at most this often by a process's publishing (one line, not one per move)."""

    def __init__(self, url: str) -> None:
        super().__init__()
        import redis

        self._redis: Any = redis.Redis.from_url(url)
        self._lock = threading.Lock()
        self._listener_pid: int | None = None
        self._lost_logged = -self.LOST_LOG_SECONDS

    def _send(self, messages: list[tuple[str, int]]) -> None:
        """Publish ``messages``; with Redis down, nothing (logged at most every :data:`LOST_LOG_SECONDS`): what woke
        is already saved, and a waiter not woken sees it at its next check or its timeout, never a request failed
        after its write."""
        import redis

        try:
            if len(messages) == 1:
                self._redis.publish(messages[0][0], str(messages[0][1]))
                return
            pipeline = self._redis.pipeline(transaction=False)
            for channel, value in messages:
                pipeline.publish(channel, str(value))
            pipeline.execute()
        except redis.RedisError as error:
            moment = time.monotonic()
            if moment - self._lost_logged >= self.LOST_LOG_SECONDS:
                self._lost_logged = moment
                log.warning("wake-ups not sent (Redis: %s)", " ".join(str(error).split()) or type(error).__name__)

    def watch(self, channels: Iterable[str]) -> Subscription:
        self._ensure_listener()
        return super().watch(channels)

    def _ensure_listener(self) -> None:
        """Start this process's listener (once per process: a forked worker starts its own)."""
        if self._listener_pid == os.getpid():
            return
        with self._lock:
            if self._listener_pid == os.getpid():
                return
            subscribed = threading.Event()
            thread = threading.Thread(
                target=self._listen, args=(subscribed,), name="sorry-arena-notify", daemon=True
            )
            thread.start()
            self._listener_pid = os.getpid()
        # until Redis confirms the subscription a publish could pass unheard: waiters then rely on their timeout
        subscribed.wait(self.LISTENER_START_SECONDS)

    def _listen(self, subscribed: threading.Event) -> None:
        import redis

        pause = 0.1
        while True:
            pubsub = self._redis.pubsub()
            try:
                pubsub.psubscribe(PREFIX + "*")
                for message in pubsub.listen():
                    kind = message["type"]
                    if kind == "pmessage":
                        channel = message["channel"]
                        self.hub.wake(channel.decode() if isinstance(channel, bytes) else channel)
                    elif kind == "psubscribe":
                        subscribed.set()
                        pause = 0.1
                        self.hub.wake_all()  # publishes made while (re)connecting went unheard: check again
            except redis.RedisError as error:
                log.warning("Redis notifier: %s; reconnecting in %.1f s", error, pause)
            except Exception:
                log.exception("Redis notifier failed; reconnecting in %.1f s", pause)
            finally:
                pubsub.close()
            time.sleep(pause)
            pause = min(pause * 2, 5.0)


def make_notifier(redis_url: str | None) -> Notifier:
    return RedisNotifier(redis_url) if redis_url else Notifier()
