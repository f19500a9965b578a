"""Bots that stall, accounts that hold their share, and how many of a worker's games each sits in.

Slots let a hung bot hold only its own games, but a tournament queues many of them: every slot that ends takes the
next job, a hung bot's game holds its slot for seconds (each move waits out its deadline until the third fault in a
row forfeits) while a sound game frees its slot in a fraction of that, so the slots fill with the hung bot's games
and the others wait behind them. Here a process notes, from every answer its games get, which bots stall (their last
call ran out its deadline: a push bot's timeout or a connection that never came, a pull bot's move that never came;
a good answer clears it), and how many of its games each bot plays. A stalling bot may be in at most ``cap`` of the
process's games at once (a quarter of its slots, at least one).

The same holds for accounts, stalling or not: the games of one account (the owner of their tournament, match or
challenge; the operator's official tournaments are the operator account's) sit in at most ``account_cap`` of the
process's games at once (``SORRY_ARENA_ACCOUNT_SHARE_PERCENT`` of its slots, at least one), so a few accounts whose
games wait out long deadlines (people who never move in their challenges, pull bots that never answer) cannot take
every slot. The share holds even when one account alone has work waiting: its other games wait for its own to end.

A job for one more game beyond a share goes back to the end of the queue (``tournament.dispatch.worker``), so the
games of the other bots and accounts keep the rest of the slots.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

STALLING_FAULTS = frozenset({"timeout", "connection"})
"""Faults that took the call's whole deadline: the game waited on the bot until then."""


def stall_cap(slots: int) -> int:
    """The most games a stalling bot may hold in a process with ``slots`` game slots."""
    return max(1, slots // 4)


def account_cap(slots: int, percent: int) -> int:
    """The most games of one account in a process with ``slots`` game slots: ``percent`` of them, at least one."""
    return max(1, slots * percent // 100)


class Seated(NamedTuple):
    """A game's bots and account as counted in a process (:meth:`Stalls.enter`)."""

    bots: frozenset[int]
    account: int | None
    """``None``: not known (the database could not say): the game is counted for its bots only."""


class Stalls:
    def __init__(self, cap: int, account_cap: int | None = None) -> None:
        self.cap = cap
        self.account_cap = account_cap
        """The most games of one account here at once; ``None``: no such share (a process without slots)."""
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._games: Counter[int] = Counter()
        """Per bot, the games of this process it sits in."""
        self._accounts: Counter[int] = Counter()
        """Per account, its games in this process."""
        self._stalling: set[int] = set()
        self._version = 0
        """Counts the games that ended: a job sent back waits for one before it is tried again."""

    def enter(self, bot_ids: Iterable[int], account: int | None = None) -> Seated:
        """Count a game's bots (a bot twice in one game counts once) and its account as playing here, from the
        thread that admits games, so that the next admission sees it; hand what this returns to :meth:`leave` when
        the game ends."""
        seated = Seated(frozenset(bot_ids), account)
        with self._lock:
            self._games.update(seated.bots)
            if account is not None:
                self._accounts[account] += 1
        return seated

    def leave(self, seated: Seated) -> None:
        with self._lock:
            self._games.subtract(seated.bots)
            if seated.account is not None:
                self._accounts[seated.account] -= 1
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

    def admits(self, bot_ids: Iterable[int], account: int | None = None) -> bool:
        """Whether a game with these bots, of ``account``, may start here now: its account does not hold its
        share of the games here already, and none of its bots stalls with ``cap`` games here already."""
        with self._lock:
            if (
                account is not None
                and self.account_cap is not None
                and self._accounts[account] >= self.account_cap
            ):
                return False
            return not any(bot in self._stalling and self._games[bot] >= self.cap for bot in set(bot_ids))

    def version(self) -> int:
        with self._lock:
            return self._version

    def wait_for_a_game_to_end(self, since: int, timeout: float) -> bool:
        """Wait until a game ended after ``since`` (a :meth:`version`), ``timeout`` seconds at most."""
        with self._changed:
            return self._changed.wait_for(lambda: self._version != since, timeout)
