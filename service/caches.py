"""This process's caches of facts that never change once written, so that several API processes can each keep
their own without ever serving a stale answer:

- a started game's kind, seats and move timeout (seats are taken only while a game is ``open``: games still open
  are never cached; a tournament game is created started, already linked to its tournament, whose
  ``move_timeout_ms`` never changes), and which of a tournament game's seats push bots hold (as a worker, which
  reads a bot's URL once when it takes a game up);
- a game's snapshot at a ply (games are append-only and exactly one action is accepted per ply, so the state at
  (game, ply) and the time it was saved are the same in every process: each ply
  is written once, by one UPDATE that also sets ``games.updated_at``). What is current is always read
  from the database (or checked by the ply-conditional UPDATE of a submission); a snapshot is only what the game
  looked like at that ply. Games are never deleted, so an id never names another game.

A cached engine state is shared by this process's threads: read it only (views, legal actions); to apply an action
make a private copy (:meth:`Snapshot.copy`).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar

import engine
from store.challenges import bot_move_timeout_ms

K = TypeVar("K")
V = TypeVar("V")


class LRU(Generic[K, V]):
    """A thread-safe mapping that forgets its least recently used entries beyond ``size``."""

    def __init__(self, size: int) -> None:
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self._size = size

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def discard(self, key: K) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def __len__(self) -> int:
        return len(self._entries)


@dataclass(frozen=True)
class GameInfo:
    """What never changes about a started game: its kind, number of seats, who holds each seat and the time a
    decision has."""

    id: int
    game: str
    seats: int
    players: tuple[int, ...]
    """``players[seat]``: the player holding that seat."""
    seat_of: dict[int, int] = field(compare=False)
    """player id -> seat."""
    move_timeout_ms: int | None = None
    """A tournament game's ``move_timeout_ms``; ``None``: not a tournament game (no deadline)."""
    pushed: frozenset[int] = frozenset()
    """The seats of a tournament game held by push bots, which the workers call at their URL: no one moves for
    them through the API (read once per game and process, as a worker reads a bot's URL once per game)."""
    bots: frozenset[int] = frozenset()
    """The seats of a tournament game held by bots (every seat but a challenge's person's): their time per move is
    the tournament's up to the bots' limit (``store.challenges.bot_move_timeout_ms``)."""

    @classmethod
    def of(
        cls,
        game_id: int,
        game: str,
        seats: int,
        players: dict[int, int],
        move_timeout_ms: int | None = None,
        pushed: frozenset[int] = frozenset(),
        bots: frozenset[int] = frozenset(),
    ) -> GameInfo:
        """From ``players`` (seat -> player)."""
        ordered = tuple(players[seat] for seat in sorted(players))
        seat_of = {player: seat for seat, player in players.items()}
        return cls(game_id, game, seats, ordered, seat_of, move_timeout_ms, pushed, bots)

    def deadline(self, snapshot: Snapshot, seat: int) -> str | None:
        """When the decision of ``seat`` at ``snapshot``'s ply must be answered (ISO 8601, UTC, to the millisecond,
        rounded down), or ``None``: no time limit (not a tournament game, or the save time is not known)."""
        if snapshot.saved_at is None:
            return None
        deadline = self.deadline_at(snapshot.saved_at, seat)
        return None if deadline is None else deadline.isoformat(timespec="milliseconds")

    def deadline_at(self, saved_at: datetime, seat: int) -> datetime | None:
        """When the decision of ``seat`` at a position saved at ``saved_at`` must be answered, ``None``: no time
        limit (not a tournament game)."""
        if self.move_timeout_ms is None:
            return None
        timeout_ms = bot_move_timeout_ms(self.move_timeout_ms) if seat in self.bots else self.move_timeout_ms
        return saved_at + timedelta(milliseconds=timeout_ms)


@dataclass(frozen=True)
class Snapshot:
    """A game at one ply: its engine state (shared: read only), the state's JSON text and when the position was
    saved."""

    ply: int
    state: Any
    text: str
    saved_at: datetime | None = None
    """When the position at this ply was saved (``games.updated_at`` of the UPDATE that wrote it; UTC): a
    tournament decision's deadline counts from it. ``None``: not known (read it with the state)."""

    @classmethod
    def parse(cls, ply: int, text: str, saved_at: datetime | None = None) -> Snapshot:
        return cls(ply, engine.from_json(json.loads(text)), text, saved_at)

    def copy(self) -> Any:
        """A private engine state to apply an action to (never the shared one): ``engine.copy`` copies what
        changes and shares the rest, far cheaper than a generic deep copy or ``engine.from_json`` of the state's
        JSON (benchmarks/search.py; tests/service/test_caches.py checks the copies against from_json)."""
        return engine.copy(self.state)


class Caches:
    """The caches of one app (``app.extensions["caches"]``)."""

    def __init__(self, games: int = 16_384, snapshots: int = 4_096) -> None:
        self.games: LRU[int, GameInfo] = LRU(games)
        self.snapshots: LRU[tuple[int, int], Snapshot] = LRU(snapshots)
        """(game id, ply) -> snapshot."""

    def snapshot(self, game_id: int, ply: int, text: str, saved_at: datetime | None = None) -> Snapshot:
        """The cached snapshot of ``game_id`` at ``ply``, else one parsed from ``text`` (and cached)."""
        found = self.snapshots.get((game_id, ply))
        if found is None:
            found = Snapshot.parse(ply, text, saved_at)
            self.snapshots.put((game_id, ply), found)
        return found
