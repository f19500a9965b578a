"""The registry of games: :data:`RULESETS` maps each game's name (``state.game``) to its :class:`Ruleset`.

:mod:`engine.api` dispatches on it; a new game adds its ruleset here and its state class to
:data:`engine.api.State`.
"""

from __future__ import annotations

from engine.board.game import BOARD
from engine.board.state import BoardState
from engine.card.game import CARD
from engine.card.state import CardState
from engine.ruleset import Ruleset

RULESETS: dict[str, Ruleset[BoardState] | Ruleset[CardState]] = {BOARD.name: BOARD, CARD.name: CARD}
