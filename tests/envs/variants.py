"""Every game and ruleset the engine offers, as (game, settings) test parameters: the board game's three variants,
its 1972 edition and each table size; the card game's table sizes, its longer game and fewer pawns."""

from __future__ import annotations

import pytest

VARIANTS = [
    pytest.param("board", {"variant": "standard", "players": 4}, id="board-standard-4"),
    pytest.param("board", {"variant": "standard", "players": 2}, id="board-standard-2"),
    pytest.param("board", {"variant": "standard", "edition": "1972", "players": 3}, id="board-1972-3"),
    pytest.param("board", {"variant": "team", "players": 4}, id="board-team"),
    pytest.param("board", {"variant": "team", "edition": "1972", "players": 4}, id="board-team-1972"),
    pytest.param("board", {"variant": "points", "players": 3}, id="board-points-3"),
    pytest.param("card", {"players": 4}, id="card-4"),
    pytest.param("card", {"players": 2}, id="card-2"),
    pytest.param("card", {"players": 3, "longer_game": True}, id="card-longer-3"),
    pytest.param("card", {"players": 2, "pawns": 2}, id="card-2-pawns"),
]
