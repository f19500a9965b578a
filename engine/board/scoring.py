"""How a board game ends and ranks its seats (docs/rules.md B2, B4, B5 and Part C).

The winner (or winning team) ranks first; the others by pawns HOME, then by steps still to go. The points variant
(B5) scores 5 per pawn HOME, and the winner 5 more per opponent pawn not HOME plus the single highest bonus that
applies (100, else 50, else 25); seats are then ranked by score, then steps to go. A game stopped by the turn cap
has no winner and is ranked the same way.
"""

from __future__ import annotations

from engine.board.geometry import HOME, PAWNS_PER_COLOUR, steps_to_home
from engine.board.state import BoardState
from engine.ruleset import ranks_from_keys
from engine.types import Result


def home_count(state: BoardState, colours: frozenset[int] | tuple[int, ...]) -> int:
    return sum(1 for colour in colours for loc in state.colour_pawns(colour) if loc == HOME)


def steps_to_go(state: BoardState, colours: frozenset[int] | tuple[int, ...]) -> int:
    return sum(steps_to_home(colour, loc) for colour in colours for loc in state.colour_pawns(colour))


def has_won(state: BoardState, seat: int) -> bool:
    """All pawns of the seat's colour (team play: of both partners' colours) are HOME."""
    team = state.team_of(state.colours[seat])
    return home_count(state, team) == PAWNS_PER_COLOUR * len(team)


def points(state: BoardState, winner: int | None) -> tuple[int, ...]:
    """B5 scoring: 5 per pawn HOME; the winner adds 5 per opponent pawn not HOME and the best bonus."""
    homes = [home_count(state, (colour,)) for colour in state.colours]
    scores = [5 * home for home in homes]
    if winner is not None:
        others = [home for seat, home in enumerate(homes) if seat != winner]
        scores[winner] += 5 * sum(PAWNS_PER_COLOUR - home for home in others)
        best_other = max(others)
        scores[winner] += 100 if best_other == 0 else 50 if best_other == 1 else 25 if best_other == 2 else 0
    return tuple(scores)


def final_result(state: BoardState, winner: int | None) -> Result:
    """The ranking once ``winner`` has won (``None``: the turn cap ended the game)."""
    scores = points(state, winner) if state.variant == "points" else None
    keys = []
    for seat, colour in enumerate(state.colours):
        team = state.team_of(colour)
        won = winner is not None and colour in state.team_of(state.colours[winner])
        progress = scores[seat] if scores is not None else home_count(state, team)
        keys.append((won, progress, -steps_to_go(state, team)))
    return Result(ranks_from_keys(keys), "win" if winner is not None else "turn_cap", scores)
