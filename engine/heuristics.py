"""Position values for search bots: how good a position is for one seat, in each game (higher is better).

Board: the race (steps to HOME, with HOME and the safety zone worth a few steps more, as the greedy bot counts
them) of the seat's side against its best opponent side, plus the bumps each side threatens on its next draw: a
pawn on the track that an opponent's pawn can reach with one card is weighted by that card's share of the deck.
Card game: HOME counts (and SORRY!-family cards held, worth a fraction of a pawn) against the best opponent.
A finished game is worth its rank.
"""

from __future__ import annotations

import engine
from engine.api import State
from engine.board.cards import CARD_COUNTS
from engine.board.geometry import BACKWARD, FORWARD, HOME, PAWNS_PER_COLOUR, SAFETY, START, TRACK, steps_to_home
from engine.board.state import BoardState
from engine.card.state import CardState

WIN = 1000.0
"""A won game against a lost one; a race lead is worth a step per unit."""
_DECK = sum(CARD_COUNTS.values())


def _reach() -> tuple[dict[int, float], ...]:
    """For a pawn of colour c on track square a: {square b: chance that the next card lets it land on b}."""
    chances = {n: CARD_COUNTS[str(n)] / _DECK for n in (1, 2, 3, 5, 7, 8, 10, 11, 12)}
    seven = CARD_COUNTS["7"] / _DECK  # a 7 may be split: any count from 1 to 7
    tables = []
    for colour in range(4):
        for loc in range(TRACK):
            reach: dict[int, float] = {}
            for steps in range(1, 13):
                chance = chances.get(steps, 0.0) + (seven if steps < 7 else 0.0)
                dest = FORWARD[colour][loc][steps]
                if chance and dest is not None and 0 <= dest < TRACK:
                    reach[dest] = reach.get(dest, 0.0) + chance
            for steps, chance in ((4, CARD_COUNTS["4"] / _DECK), (1, CARD_COUNTS["10"] / _DECK)):
                dest = BACKWARD[colour][loc][steps]
                if dest is not None and 0 <= dest < TRACK:
                    reach[dest] = reach.get(dest, 0.0) + chance
            tables.append(reach)
    return tuple(tables)


_REACH = _reach()
_SORRY = CARD_COUNTS["sorry"] / _DECK


def _threats(state: BoardState, attackers: tuple[int, ...], targets: tuple[int, ...]) -> float:
    """Expected progress the ``attackers``' colours take from the ``targets``' on their next card (bumps)."""
    pawns = state.pawns
    exposed = {}
    for colour in targets:
        for loc in pawns[colour * PAWNS_PER_COLOUR : (colour + 1) * PAWNS_PER_COLOUR]:
            if 0 <= loc < TRACK:
                exposed[loc] = 65 - steps_to_home(colour, loc)
    if not exposed:
        return 0.0
    expected = 0.0
    for colour in attackers:
        mine = pawns[colour * PAWNS_PER_COLOUR : (colour + 1) * PAWNS_PER_COLOUR]
        for loc in mine:
            if 0 <= loc < TRACK:
                reach = _REACH[colour * TRACK + loc]
                expected += sum(reach[square] * value for square, value in exposed.items() if square in reach)
        if START in mine:  # a SORRY! card takes the best target
            expected += _SORRY * max(exposed.values())
    return expected


def _race(state: BoardState, colours: tuple[int, ...]) -> float:
    """Steps still to go for ``colours``, less a bonus for pawns safe in HOME or a safety zone."""
    total = 0.0
    for colour in colours:
        for loc in state.pawns[colour * PAWNS_PER_COLOUR : (colour + 1) * PAWNS_PER_COLOUR]:
            total += steps_to_home(colour, loc) - (10 if loc == HOME else 4 if loc >= SAFETY else 0)
    return total


def board_value(state: BoardState, seat: int) -> float:
    sides = [state.movable_colours(other) for other in range(state.players)]
    mine = sides[seat]
    best_other = min((side for side in sides if side != mine), key=lambda side: _race(state, side))
    others = tuple(colour for side in sides if side != mine for colour in side)
    race = _race(state, best_other) - _race(state, mine)
    return race + _threats(state, mine, others) - _threats(state, others, mine)


_KEEP = {"steal": 0.4, "block": 0.3, "sorry": 0.2}
"""Card game: what holding a SORRY!-family card is worth, in HOME pawns (it wins or saves one later)."""


def _card_seat(state: CardState, seat: int) -> float:
    return float(state.progress[seat]) + sum(_KEEP.get(card, 0.0) for card in state.hands[seat])


def card_value(state: CardState, seat: int) -> float:
    return _card_seat(state, seat) - max(
        _card_seat(state, other) for other in range(state.players) if other != seat
    )


def value(state: State, seat: int) -> float:
    """The value of ``state`` for ``seat``: a rank once the game is over, else the game's position value."""
    result = engine.result(state)
    if result is not None:
        players = len(result.ranks)
        return WIN * (players - result.ranks[seat]) / (players - 1)
    return board_value(state, seat) if isinstance(state, BoardState) else card_value(state, seat)
