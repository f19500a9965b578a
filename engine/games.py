"""The registry of games: ``state.game`` names the :class:`engine.api.Game` that implements its rules."""

from __future__ import annotations

from typing import Any

from engine.api import StateError
from engine.board.game import BOARD
from engine.card.game import CARD
from engine.ruleset import Ruleset

GAMES: dict[str, Ruleset] = {BOARD.name: BOARD, CARD.name: CARD}


def game_of(state: Any) -> Ruleset:
    try:
        return GAMES[state.game]
    except (AttributeError, KeyError):
        raise StateError(f"not a game state: {type(state).__name__}") from None
