"""The flow of a board game: setup, draws, forfeits, the 2's extra draw, turns and the end (docs/rules.md B2, B5).

Standard and team play (the 1992 sheet "GAME PLAY"): a turn draws the top card; the player must make one of its legal
moves, and with none the turn is forfeit. A 2 draws again whether or not it could move. The engine plays
forfeits and draws itself, so the seat asked always has at least one legal action.

Points variant (B5): three pawns in START and one on its exit circle, five cards dealt to each player. A turn plays
one card of the hand and moves by it, then draws back to five; with no card that moves, the player discards one
card of their choice and draws. A 2 that moved lets the player play again; a discarded 2 gives nothing.

An empty draw pile is refilled by shuffling the discards with the game's seeded randomness (B2). The game ends
when a player (a team) has every pawn HOME, or when the turn cap is reached.

The functions that play append the events they cause to the list they are given, and build none when it is
``None`` (:func:`engine.api.apply` with ``events=False``, and :func:`engine.api.new_game`): one rule path, with
or without its events.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.board import scoring
from engine.board.cards import full_deck
from engine.board.geometry import ABSENT, HOME, PAWNS_PER_COLOUR, START, exit_square
from engine.board.moves import Move, card_moves, discard_moves, hand_moves
from engine.board.state import BoardState
from engine.rng import shuffled
from engine.types import Action, Event

HAND_SIZE = 5


def setup(settings: dict[str, Any], seed: int, events: list[Event] | None) -> BoardState:
    state = BoardState(settings, seed)
    pawns = [ABSENT] * (4 * PAWNS_PER_COLOUR)
    for colour in state.colours:
        for i in range(PAWNS_PER_COLOUR):
            pawns[colour * PAWNS_PER_COLOUR + i] = START
        if state.variant == "points":
            pawns[colour * PAWNS_PER_COLOUR] = exit_square(colour)
    state.pawns = pawns
    state.draw_pile = shuffled(full_deck(), seed, "shuffle", 0)
    state.shuffles = 1
    if state.variant == "points":
        state.hands = [[] for _ in state.colours]
        for seat in range(state.players):
            _refill(state, seat, events)
    advance(state, events)
    return state


def _draw(state: BoardState, events: list[Event] | None) -> str:
    pile = state.draw_pile
    if not pile:
        pile = state.draw_pile = shuffled(state.discards, state.seed, "shuffle", state.shuffles)
        state.shuffles += 1
        state.discards = []
        if events is not None:
            events.append({"type": "reshuffle", "to": None, "cards": len(pile)})
    return pile.pop()


def _refill(state: BoardState, seat: int, events: list[Event] | None) -> None:
    """Points variant: draw back up to five; the cards are the seat's secret, the count is public."""
    hand = state.hands[seat]
    drawn = [_draw(state, events) for _ in range(HAND_SIZE - len(hand))]
    if drawn:
        hand.extend(drawn)
        if events is not None:
            events.append({"type": "draw", "to": seat, "seat": seat, "cards": drawn})
            events.append({"type": "draw", "to": None, "seat": seat, "count": len(drawn)})


def compute_moves(state: BoardState) -> list[Move]:
    """The moves open to the seat asked now (no automatic step is taken)."""
    if state.variant == "points":
        hand = state.hands[state.seat]
        return hand_moves(state, state.seat, hand) or discard_moves(state, hand)
    if state.card is None:
        return []
    return card_moves(state, state.seat, state.card)


def advance(state: BoardState, events: list[Event] | None, turn_over: bool = False) -> None:
    """Play the automatic steps (the next turn, draws, forfeits) until a seat must decide or the game is over;
    ``turn_over``: the turn just played is over, so the next seat's comes first (or the turn cap ends the game)."""
    drawing = state.variant != "points"
    while True:
        if turn_over:
            if state.turn >= state.settings["turn_cap"]:
                _finish(state, None, events)
                return
            state.turn += 1
            state.seat = (state.seat + 1) % state.players
        if drawing:
            card = state.card
            if card is None:
                pile = state.draw_pile
                card = state.card = pile.pop() if pile else _draw(state, events)  # _draw's common case inline
                if events is not None:
                    events.append({"type": "draw", "to": None, "seat": state.seat, "card": card})
            moves = card_moves(state, state.seat, card)
        else:
            moves = compute_moves(state)
        if moves:
            state._actions = moves  # a new list each time: the state owns it
            return
        card = state.card
        assert card is not None  # points variant always has a discard move
        if events is not None:
            events.append({"type": "forfeit", "to": None, "seat": state.seat, "card": card})
        state.discards.append(card)
        state.card = None
        turn_over = card != "2"


def legal(state: BoardState) -> Sequence[Action]:
    if state.result is not None:
        return ()
    if state._actions is None:
        state._actions = compute_moves(state)
    return state._actions


def _finish(state: BoardState, winner: int | None, events: list[Event] | None) -> None:
    state.result = scoring.final_result(state, winner)
    state._actions = None
    if events is not None:
        events.append({"type": "game_over", "to": None, **state.result.to_json()})


def play(state: BoardState, action: Action, events: list[Event] | None) -> None:
    """Apply one of the legal actions of the seat asked now (already checked by the caller), appending its events
    to ``events`` (``None``: build none)."""
    assert isinstance(action, Move)
    move = action
    seat = state.seat
    if events is not None:
        events.append(move.event(seat))
    state.ply += 1
    state._actions = None
    state.pawns = move.pawns.copy()
    state.discards.append(move.card)
    if state.variant == "points":
        state.hands[seat].remove(move.card)
    else:
        state.card = None
    for part in move.parts:
        if part[3] == HOME:
            if scoring.has_won(state, seat):
                _finish(state, seat, events)
                return
            break
    if state.variant == "points":
        _refill(state, seat, events)
    advance(state, events, move.card != "2" or move.kind == "discard")
