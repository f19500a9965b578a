"""A worker's game slots: up to ``count`` games played at once, each on a thread of its own.

A game spends most of its time waiting for bots, so a worker that played one game at a time sat idle behind a bot
that hung (every worker in that bot's games, the tournament stalled). Here the worker takes a job from the queue
only when it has a free slot (:meth:`Slots.reserve`), and the job hands its game to that slot
(:meth:`Slots.play`) and returns at once: a hung bot holds only the slots of its own games, for as long as its
faults take to forfeit them. What is to be done once a game has ended but needs no slot (the queue topped up) runs
after its slot is free, so the next game does not wait for it. The lease of every game held is kept by the process's heartbeat; a game this process
already plays is never started twice in it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from runtime import metrics

log = logging.getLogger(__name__)


class Slots:
    def __init__(self, count: int) -> None:
        if count < 1:
            raise ValueError(f"a worker needs at least one game slot, not {count}")
        self.count = count
        metrics.SLOTS.inc(count)
        self._free = threading.Semaphore(count)
        self._lock = threading.Lock()
        self._playing: dict[int, threading.Thread] = {}
        self._reserved = 0

    def reserve(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for a free slot and hold it for the next :meth:`play`."""
        if not self._free.acquire(timeout=timeout):
            return False
        with self._lock:
            self._reserved += 1
        return True

    def cancel(self) -> None:
        """Free a slot reserved for a game that did not come (the job was no game, or there was no job)."""
        with self._lock:
            if self._reserved == 0:
                return
            self._reserved -= 1
        self._free.release()

    @property
    def reserved(self) -> int:
        return self._reserved

    def play(
        self, scheduled_id: int, play: Callable[[], object], then: Callable[[], object] | None = None
    ) -> bool:
        """Play the game on a reserved slot (one is taken now if none was reserved), and ``then`` on the same
        thread once the slot is free again; ``False``, and no slot used, if this process already plays it."""
        with self._lock:
            reserved = self._reserved > 0
            if reserved:
                self._reserved -= 1
        if not reserved:
            self._free.acquire()
        with self._lock:
            if scheduled_id in self._playing:
                self._free.release()
                return False
            thread = threading.Thread(
                target=self._run,
                args=(scheduled_id, play, then),
                name=f"sorry-arena-game-{scheduled_id}",
                daemon=True,
            )
            self._playing[scheduled_id] = thread
        thread.start()
        return True

    def _run(self, scheduled_id: int, play: Callable[[], object], then: Callable[[], object] | None) -> None:
        metrics.SLOTS_BUSY.inc()
        try:
            play()
        except Exception:  # an infrastructure error the game's own retries did not absorb: the lease recovers it
            log.exception(
                "scheduled game %s failed; another attempt takes it over once its lease ends", scheduled_id
            )
        finally:
            metrics.SLOTS_BUSY.dec()
            with self._lock:
                del self._playing[scheduled_id]
            self._free.release()
        if then is not None:
            try:
                then()
            except Exception:
                log.exception("after scheduled game %s", scheduled_id)

    def playing(self) -> list[int]:
        with self._lock:
            return sorted(self._playing)

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the games being played to end (``timeout`` seconds at most in all); whether they all did."""
        with self._lock:
            threads = list(self._playing.values())
        end = None if timeout is None else time.monotonic() + timeout
        for thread in threads:
            thread.join(None if end is None else max(0.0, end - time.monotonic()))
        return not any(thread.is_alive() for thread in threads)
