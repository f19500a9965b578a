"""The engine state of a game after its first ``ply`` actions, for the game viewer's steps.

A game is its settings, seed and actions (docs/rules.md Part C): the state at a step is replayed from them. The last
state reached is kept per game (a few games per process), so that stepping forward applies one action and only a
step back replays from the seed. Actions are append-only, so a kept state never goes stale.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

import engine
from store import archivedmoves
from store.models import ActionRecord, Game

KEPT_GAMES = 32


class Positions:
    def __init__(self, kept: int = KEPT_GAMES) -> None:
        self._kept = kept
        self._lock = threading.Lock()
        self._states: OrderedDict[int, tuple[int, Any]] = OrderedDict()

    def at(self, session: Session, game: Game, ply: int) -> Any:
        """The state after ``ply`` actions (``0 <= ply <= game.ply``, checked by the caller); the caller's own."""
        with self._lock:
            kept = self._states.get(game.id)
        if kept is not None and kept[0] <= ply:
            start, state = kept[0], engine.copy(kept[1])
        else:
            start, state = 0, engine.new_game(game.game, game.settings, game.seed)
        if ply > start:
            actions: Sequence[Any] = session.execute(
                select(ActionRecord.seat, ActionRecord.action)
                .where(ActionRecord.game_id == game.id, ActionRecord.ply >= start, ActionRecord.ply < ply)
                .order_by(ActionRecord.ply)
            ).all()
            archived = archivedmoves.instead(session, game, actions, start, ply)
            if archived is not None:  # an archived game: its moves from its record
                actions = [(move.seat, move.action) for move in archived]
            for seat, action in actions:
                engine.apply(state, action, seat, events=False)
        with self._lock:
            self._states[game.id] = (ply, engine.copy(state))
            self._states.move_to_end(game.id)
            while len(self._states) > self._kept:
                self._states.popitem(last=False)
        return state
