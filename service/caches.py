"""This process's caches of facts that never change once written, so that several API processes can each keep
their own without ever serving a stale answer:

- a token's player (a token hash names one player for good; unknown tokens are not remembered, so a player made
  by another process is found at once);
- a started game's kind and seats (seats are taken only while a game is ``open``: games still open are never
  cached);
- a game's snapshot at a ply (games are append-only and exactly one action is accepted per ply, so the state at
  (game, ply) and the number of events before it are the same in every process). What is current is always read
  from the database (or checked by the ply-conditional UPDATE of a submission); a snapshot is only what the game
  looked like at that ply. Games are never deleted, so an id never names another game.

A cached engine state is shared by this process's threads: read it only (views, legal actions); to apply an action
make a private copy from the snapshot's JSON text (:meth:`Snapshot.copy`).
"""

from __future__ import annotations

import copy
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import engine

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
    """What never changes about a started game: its kind, number of seats and who holds each seat."""

    id: int
    game: str
    seats: int
    players: tuple[int, ...]
    """``players[seat]``: the player holding that seat."""
    seat_of: dict[int, int] = field(compare=False)
    """player id -> seat."""

    @classmethod
    def of(cls, game_id: int, game: str, seats: int, players: dict[int, int]) -> GameInfo:
        """From ``players`` (seat -> player)."""
        ordered = tuple(players[seat] for seat in sorted(players))
        return cls(game_id, game, seats, ordered, {player: seat for seat, player in players.items()})


@dataclass(frozen=True)
class Snapshot:
    """A game at one ply: its engine state (shared: read only), the state's JSON text and the next event number."""

    ply: int
    state: Any
    text: str
    next_seq: int | None
    """The number of the first event of the next action; ``None``: not known (read it with the state)."""

    @classmethod
    def parse(cls, ply: int, text: str, next_seq: int | None) -> Snapshot:
        return cls(ply, engine.from_json(json.loads(text)), text, next_seq)

    def copy(self) -> Any:
        """A private engine state to apply an action to (never the shared one)."""
        return private_copy(self.state)


_ATOMIC = frozenset((str, int, float, bool, type(None), bytes))
_SLOTS: dict[type, tuple[str, ...]] = {}


def _slots(kind: type) -> tuple[str, ...]:
    """Every slot of a ``__slots__`` class, its bases' included (worked out once per class)."""
    names = _SLOTS.get(kind)
    if names is None:
        names = _SLOTS[kind] = tuple(
            dict.fromkeys(
                name
                for cls in reversed(kind.__mro__)
                for name in getattr(cls, "__slots__", ())
                if name not in ("__dict__", "__weakref__")
            )
        )
    return names


def private_copy(value: Any) -> Any:
    """A copy of an engine state that shares nothing mutable with it: its lists, dicts and sets are copied, all
    the way down; immutable values, frozen dataclasses (``engine.Result``) and the engine's actions (an id and a
    description, never changed) are shared; any other object is deep-copied. Engine states are records of such
    values (``__slots__`` classes), so this takes a fifth to a third of the time of ``engine.from_json`` of the
    state's JSON, which also validates the state (tests/test_api_caches.py checks the copies against it)."""
    kind = type(value)
    if kind in _ATOMIC:
        return value
    if kind is list:
        return [item if type(item) in _ATOMIC else private_copy(item) for item in value]
    if kind is dict:
        return {key: item if type(item) in _ATOMIC else private_copy(item) for key, item in value.items()}
    if kind is tuple or kind is frozenset:
        if all(type(item) in _ATOMIC for item in value):
            return value
        items = [private_copy(item) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else kind(items)
    if kind is set:
        return {private_copy(item) for item in value}
    if isinstance(value, engine.Action):
        return value
    params = getattr(kind, "__dataclass_params__", None)
    if params is not None and params.frozen:
        return value
    if hasattr(kind, "__slots__") and not hasattr(value, "__dict__"):
        copied = object.__new__(kind)
        for name in _slots(kind):
            try:
                item = getattr(value, name)
            except AttributeError:  # a slot never set
                continue
            object.__setattr__(copied, name, item if type(item) in _ATOMIC else private_copy(item))
        return copied
    return copy.deepcopy(value)


class Caches:
    """The caches of one app (``app.extensions["caches"]``)."""

    def __init__(self, players: int = 65_536, games: int = 16_384, snapshots: int = 4_096) -> None:
        self.players: LRU[str, int] = LRU(players)
        """token hash -> player id."""
        self.games: LRU[int, GameInfo] = LRU(games)
        self.snapshots: LRU[tuple[int, int], Snapshot] = LRU(snapshots)
        """(game id, ply) -> snapshot."""

    def snapshot(self, game_id: int, ply: int, text: str, next_seq: int | None) -> Snapshot:
        """The cached snapshot of ``game_id`` at ``ply``, else one parsed from ``text`` (and cached)."""
        found = self.snapshots.get((game_id, ply))
        if found is None:
            found = Snapshot.parse(ply, text, next_seq)
            self.snapshots.put((game_id, ply), found)
        return found
