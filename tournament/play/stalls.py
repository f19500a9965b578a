"""Bots that stall, and how many of a worker's games wait on them.

Slots let a hung bot hold only its own games, but a tournament queues many of them: every slot that ends takes the
next job, a hung bot's game holds its slot for seconds (each move waits out its deadline until the third fault in a
row forfeits) while a sound game frees its slot in a fraction of that, so the slots fill with the hung bot's games
and the others wait behind them. Here a process notes, from every answer its games get, which bots stall (their last
call ran out its deadline: a timeout or a connection that never came; a good answer clears it), and how many of its
games each bot plays. A stalling bot may be in at most ``cap`` of the process's games at once (a quarter of its
slots, at least one); a job for one more of its games goes back to the end of the queue (``tournament.dispatch.worker``), so
the games of the other bots keep the rest of the slots. The cap is per process and only for bots stalling now: two
sound bots playing a long match use every slot.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable

STALLING_FAULTS = frozenset({"timeout", "connection"})
"""Faults that took the call's whole deadline: the game waited on the bot until then."""


def stall_cap(slots: int) -> int:
    """The most games a stalling bot may hold in a process with ``slots`` game slots."""
    return max(1, slots // 4)


class Stalls:
    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._games: Counter[int] = Counter()
        """Per bot, the games of this process it sits in."""
        self._stalling: set[int] = set()
        self._version = 0
        """Counts the games that ended: a job sent back waits for one before it is tried again."""

    def enter(self, bot_ids: Iterable[int]) -> frozenset[int]:
        """Count a game's bots as playing here (a bot twice in one game counts once), from the thread that admits
        games, so that the next admission sees it; hand what this returns to :meth:`leave` when the game ends."""
        bots = frozenset(bot_ids)
        with self._lock:
            self._games.update(bots)
        return bots

    def leave(self, bots: frozenset[int]) -> None:
        with self._lock:
            self._games.subtract(bots)
            self._version += 1
            self._changed.notify_all()

    def answered(self, bot_id: int, fault: str | None) -> None:
        """Note how a call to the bot ended (``None``: a good answer in time)."""
        stalled = fault in STALLING_FAULTS
        with self._lock:
            if stalled:
                self._stalling.add(bot_id)
            else:
                self._stalling.discard(bot_id)

    def any_stalling(self) -> bool:
        return bool(self._stalling)

    def stalling(self) -> set[int]:
        with self._lock:
            return set(self._stalling)

    def admits(self, bot_ids: Iterable[int]) -> bool:
        """Whether a game with these bots may start here now: none of them stalls with ``cap`` games here already."""
        with self._lock:
            return not any(bot in self._stalling and self._games[bot] >= self.cap for bot in set(bot_ids))

    def version(self) -> int:
        with self._lock:
            return self._version

    def wait_for_a_game_to_end(self, since: int, timeout: float) -> bool:
        """Wait until a game ended after ``since`` (a :meth:`version`), ``timeout`` seconds at most."""
        with self._changed:
            return self._changed.wait_for(lambda: self._version != since, timeout)
