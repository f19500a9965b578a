"""Move generation's shortcuts agree with its general rules, on random positions (``engine/board/moves.py``).

Random positions reach the rare cases (a slide that bumps the mover's own pawns, parts ending in a safety zone,
alike pawns trading squares) far more often than games do. Two claims are checked against references written here:
every card's moves are unique by outcome, although only some are compared as they are generated (SORRY!s never,
single-pawn moves only after a bump or a slide); and a 7 split between two pawns at most, built and deduplicated
in one pass, is exactly the general split search (``_splits`` with two parts) deduplicated afterwards.
"""

from __future__ import annotations

import random

import pytest

import engine
from engine.board.cards import CARDS
from engine.board.geometry import HOME, PAWNS_PER_COLOUR, SAFETY, START, TRACK
from engine.board.moves import Move, _add_singles, _splits, card_moves
from engine.board.state import BoardState

GAMES = [
    {"players": 2, "variant": "standard", "edition": "1992"},
    {"players": 3, "variant": "standard", "edition": "1972"},
    {"players": 4, "variant": "standard", "edition": "1992"},
    {"players": 4, "variant": "team", "edition": "1992"},
    {"players": 4, "variant": "team", "edition": "1972"},
]
POSITIONS = 150
"""Random positions per game settings."""


def random_position(settings: dict[str, object], rng: random.Random) -> BoardState:
    """A legal position: no two pawns on a track square, nor two of a colour on a safety square; a random seat."""
    state = engine.new_game("board", settings, seed=rng.randrange(2**32))
    assert isinstance(state, BoardState)
    free = list(range(TRACK))
    rng.shuffle(free)
    for colour in state.colours:
        safety = list(range(SAFETY, HOME))
        rng.shuffle(safety)
        for pawn in range(colour * PAWNS_PER_COLOUR, (colour + 1) * PAWNS_PER_COLOUR):
            draw = rng.random()
            state.pawns[pawn] = (
                START if draw < 0.25 else HOME if draw < 0.35 else safety.pop() if draw < 0.5 else free.pop()
            )
    state.seat = rng.randrange(state.players)
    state._actions = None
    return state


def canonical(pawns: list[int]) -> tuple[tuple[int, ...], ...]:
    """A position with the pawns of a colour alike."""
    return tuple(
        tuple(sorted(pawns[colour * PAWNS_PER_COLOUR : (colour + 1) * PAWNS_PER_COLOUR])) for colour in range(4)
    )


def first_of_each_position(moves: list[Move]) -> list[Move]:
    seen: set[tuple[tuple[int, ...], ...]] = set()
    kept = []
    for move in moves:
        if canonical(move.pawns) not in seen:
            seen.add(canonical(move.pawns))
            kept.append(move)
    return kept


def outcome(move: Move) -> tuple[object, ...]:
    return move.id, move.pawns, list(move.parts), list(move.bumps), list(move.slides)


def positions(settings: dict[str, object]) -> list[BoardState]:
    rng = random.Random(f"shortcuts:{sorted(settings.items())}")
    return [random_position(settings, rng) for _ in range(POSITIONS)]


@pytest.mark.parametrize("settings", GAMES, ids=lambda settings: "-".join(map(str, settings.values())))
def test_every_cards_moves_reach_different_positions(settings: dict[str, object]) -> None:
    moved = 0
    for state in positions(settings):
        for card in CARDS:
            moves = card_moves(state, state.seat, card)
            assert len({canonical(move.pawns) for move in moves}) == len(moves), (state.pawns, card)
            moved += len(moves)
    assert moved > 10 * POSITIONS  # the positions leave moves to compare


@pytest.mark.parametrize(
    "settings", [game for game in GAMES if game["variant"] != "team" or game["edition"] == "1972"]
)
def test_a_7_splits_as_the_general_search_with_two_parts(settings: dict[str, object]) -> None:
    splits = 0
    for state in positions(settings):
        pawns = state.pawns
        mine = state.movers[state.seat]
        movers = [pawn for pawn in mine if 0 <= pawns[pawn] < HOME]
        expected: list[Move] = []
        _add_singles(expected, pawns, "7", mine, 7)
        if len(movers) >= 2:
            expected = first_of_each_position(expected + _splits("7", pawns, movers, 2))
        before = pawns.copy()
        got = card_moves(state, state.seat, "7")
        assert [outcome(move) for move in got] == [outcome(move) for move in expected], state.pawns
        assert state.pawns == before
        splits += sum(move.kind == "split" for move in got)
    assert splits > POSITIONS  # splits were made, bumps and slides among them
