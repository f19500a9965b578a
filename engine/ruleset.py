"""What one game supplies to the game API (:mod:`engine.api`): a :class:`Ruleset` of its functions.

Each game module builds one (``engine/board/game.py``, ``engine/card/game.py``) and :mod:`engine.games` registers
it by name. :mod:`engine.api` dispatches each call on ``state.game`` straight to these functions; what both games
share (who is asked, the seat check, the result) it reads from the state itself, which exposes ``asked`` (the seat
that must decide now), ``kind`` (what for) and ``result`` (``None`` until the game is over).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from engine.types import Action, Event, Json

S = TypeVar("S")
"""The game's state class (:class:`engine.board.state.BoardState`, :class:`engine.card.state.CardState`)."""


@dataclass(frozen=True, slots=True)
class Ruleset(Generic[S]):
    """A game's functions, one per operation; a field named as a function of :mod:`engine.api` does what it does."""

    name: str
    """The game's name, ``state.game`` of its states."""
    normalize_settings: Callable[[Json | None], Json]
    setup: Callable[[Json, int, list[Event] | None], S]
    """Deal and start a game from complete settings and a seed, appending the opening's events to the list, or
    building none when it is ``None`` (:func:`engine.api.new_game` normalizes the settings first and passes
    ``None``; :func:`engine.api.opening_events` keeps the events)."""
    legal: Callable[[S], Sequence[Action]]
    """The legal actions of the seat asked now, cached by the state until it changes (callers copy them)."""
    apply: Callable[[S, Action, list[Event] | None], None]
    """Play one of :attr:`legal`'s actions, appending its events to the list, or building none when it is ``None``
    (:func:`engine.api.apply` passes ``None`` when called with ``events=False``)."""
    view: Callable[[S, int | None], Json]
    to_json: Callable[[S], Json]
    from_json: Callable[[Json], S]
    determinize: Callable[[Json, random.Random], S]
    """A state consistent with a seat's view, its hidden cards placed at random."""


def ranks_from_keys(keys: list[tuple[Any, ...]]) -> tuple[int, ...]:
    """Competition ranking ("1224") of seats by their sort keys, where a larger key is better (both games' scoring)."""
    order = sorted(range(len(keys)), key=lambda seat: keys[seat], reverse=True)
    ranks = [0] * len(keys)
    for position, seat in enumerate(order):
        if position and keys[seat] == keys[order[position - 1]]:
            ranks[seat] = ranks[order[position - 1]]
        else:
            ranks[seat] = position + 1
    return tuple(ranks)
