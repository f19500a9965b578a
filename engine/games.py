"""The registry of games: ``state.game`` names the :class:`engine.api.Game` that implements its rules."""

from __future__ import annotations

from typing import Any

from engine.api import Game, StateError
from engine.board.game import BOARD
from engine.card.game import CARD

GAMES: dict[str, Game] = {BOARD.name: BOARD, CARD.name: CARD}


def game_of(state: Any) -> Game:
    try:
        return GAMES[state.game]
    except (AttributeError, KeyError):
        raise StateError(f"not a game state: {type(state).__name__}") from None
