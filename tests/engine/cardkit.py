"""Helpers for card-game rule tables: build a position from readable hands, piles and HOME counts.

``position([["3", "slide10"], ["7"]], pile=["8"])`` is a 2-player game in which red (seat 0) is asked for a turn
card with a 3 and a Slide to 10 in hand, blue holds a 7, and the live play pile is an 8 (total 8, computed from
the pile as docs/rules.md A2 says). Every card not placed is a leftover of the game's deck: it goes under the given
``draw`` cards (top of the draw pile LAST) in a fixed order -- the leftover nearest the top is the lowest number
card, so that the cards drawn after the named ones are harmless 0s, then 1s, ... -- or, with
``leftover="discards"``, to the discards (with ``"none"`` every card of the deck must be placed). The result has
passed ``engine.to_json`` / ``engine.from_json``: it is exactly one deck and the seat asked has a legal action.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import engine
from engine.card.cards import NUMBER_VALUES, SLIDES, deck_cards
from engine.card.state import CardState

COLOURS = ("red", "blue", "yellow", "green")


def pile_total(pile: Sequence[str]) -> int:
    """A2: the value of the last Slide in the pile (0 if none) plus the number cards played after it."""
    total = 0
    for card in pile:
        if card in SLIDES:
            total = SLIDES[card]
        elif card in NUMBER_VALUES:
            total += NUMBER_VALUES[card]
    return total


def position(
    hands: list[list[str]],
    *,
    seat: int = 0,
    pile: Sequence[str] = (),
    total: int | None = None,
    progress: Sequence[int] | None = None,
    direction: int = 1,
    players: int | None = None,
    longer_game: bool = False,
    pawns: int = 4,
    deck: dict[str, int] | None = None,
    turn_cap: int | None = None,
    turn: int = 1,
    draw: Sequence[str] = (),
    discards: Sequence[str] = (),
    leftover: str = "draw",
    kind: str = "turn",
    asked: int | None = None,
    play2_left: int | None = None,
    scorer: int | None = None,
    queue: Sequence[int] = (),
    thief: int | None = None,
    attacker: int | None = None,
    tied: Sequence[int] = (),
    seed: int = 0,
) -> CardState:
    players = len(hands) if players is None else players
    if len(hands) != players:
        raise ValueError(f"{players} players need {players} hands, got {len(hands)}")
    settings: dict[str, Any] = {"players": players, "longer_game": longer_game, "pawns": pawns}
    if deck is not None:
        settings["deck"] = deck
    if turn_cap is not None:
        settings["turn_cap"] = turn_cap
    state: CardState = engine.new_game("card", settings, seed=seed)
    placed = [card for hand in hands for card in hand] + list(pile) + list(draw) + list(discards)
    rest = Counter(deck_cards(state.settings["deck"]))
    missing = Counter(placed) - rest
    if missing:
        raise ValueError(f"more cards placed than the deck holds: {dict(missing)}")
    rest.subtract(placed)
    leftovers = [card for card in reversed(deck_cards(state.settings["deck"])) for _ in range(rest.pop(card, 0))]
    # reversed: the top (last) of the leftovers is the lowest number card
    state.hands = [list(hand) for hand in hands]
    state.pile = list(pile)
    state.total = pile_total(pile) if total is None else total
    state.discards = list(discards)
    if leftover == "draw":
        state.draw_pile = leftovers + list(draw)
    elif leftover == "discards":
        state.draw_pile = list(draw)
        state.discards = leftovers + state.discards
    elif leftover == "none":
        if leftovers:
            raise ValueError(f"leftover='none' but {len(leftovers)} cards of the deck are not placed")
        state.draw_pile = list(draw)
    else:
        raise ValueError(f"leftover must be 'draw', 'discards' or 'none', got {leftover!r}")
    state.progress = list(progress) if progress is not None else [0] * players
    state.seat = seat
    state.turn = turn
    state.direction = direction
    state.kind = kind
    if asked is None and kind not in ("turn", "play2"):
        raise ValueError(f"a {kind!r} decision needs the seat asked")
    state.asked = seat if asked is None else asked
    state.play2_left = (2 if kind == "play2" else 0) if play2_left is None else play2_left
    state.scorer = scorer
    state.queue = list(queue)
    state.thief = thief
    state.attacker = attacker
    state.tied = list(tied)
    state.choices = {}
    state.result = None
    state._actions = None
    return copy(state)


def copy(state: CardState) -> CardState:
    copied: CardState = engine.from_json(engine.to_json(state))
    return copied


def action_ids(state: CardState, seat: int | None = None) -> set[str]:
    """The legal action ids of ``seat`` (default: the seat asked now)."""
    if seat is None:
        decision = engine.decision(state)
        seat = None if decision is None else decision.seat
    return set() if seat is None else {action.id for action in engine.legal_actions(state, seat)}


def after(state: CardState, *action_ids: str) -> CardState:
    """The state after ``action_ids`` (each by the seat asked at that moment), on a copy of ``state``."""
    return after_with_events(state, *action_ids)[0]


def after_with_events(state: CardState, *action_ids: str) -> tuple[CardState, list[dict[str, Any]]]:
    """The state after ``action_ids`` on a copy, and every event they caused, in order."""
    copied = copy(state)
    events: list[dict[str, Any]] = []
    for action_id in action_ids:
        events.extend(engine.apply(copied, action_id))
    return copied, events


def asked(state: CardState) -> tuple[int, str] | None:
    """(seat, kind) of the decision asked now, ``None`` once the game is over."""
    decision = engine.decision(state)
    return None if decision is None else (decision.seat, decision.kind)


def home(state: CardState) -> list[int]:
    """Every seat's HOME count as shown on the table (the public view)."""
    return list(engine.view(state, None)["home"])


def hand_sizes(state: CardState) -> list[int]:
    return [len(hand) for hand in state.hands]


def colour(seat: int) -> str:
    return COLOURS[seat]
