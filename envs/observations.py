"""Observations: one seat's view of a game (:func:`engine.api.view`) as a fixed-size vector of float32 (docs/gym.md).

Only the view goes in, so a seat's observation holds exactly what the seat may see: never another seat's hand,
the draw pile's order or a secret tiebreaker choice. Seats are absolute (seat 0 is the first seat whatever seat
observes); the observing seat is one-hot at the start of the vector. :data:`BOARD_LAYOUT` and :data:`CARD_LAYOUT`
name each part of the vector and its length, in order; docs/gym.md prints them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.api import Json
from engine.board.cards import CARD_COUNTS
from engine.board.cards import CARDS as BOARD_CARDS
from engine.board.geometry import LOCATION_NAMES, PAWN_NAMES
from engine.board.settings import EDITIONS, VARIANTS
from engine.card.cards import CARDS as CARD_CARDS
from engine.card.settings import MAX_PAWNS
from engine.card.state import KINDS as CARD_KINDS

Vector = NDArray[np.float32]
SEATS = 4
PLAYER_COUNTS = (2, 3, 4)
LOCATIONS = tuple(LOCATION_NAMES[loc] for loc in sorted(LOCATION_NAMES))
"""A board pawn's places, in order: ``start``, ``track:0`` .. ``track:59``, ``safety:0`` .. ``safety:4``, ``home``."""
_LOCATION = {name: index for index, name in enumerate(LOCATIONS)}
_BOARD_CARD = {card: index for index, card in enumerate(BOARD_CARDS)}
_CARD_CARD = {card: index for index, card in enumerate(CARD_CARDS)}
_BOARD_DECK = sum(CARD_COUNTS.values())

BOARD_LAYOUT: tuple[tuple[str, int], ...] = (
    ("seat (one-hot: the observing seat)", SEATS),
    ("decision seat (one-hot; zeros once the game is over)", SEATS),
    (f"variant (one-hot: {', '.join(VARIANTS)})", len(VARIANTS)),
    (f"edition (one-hot: {', '.join(EDITIONS)})", len(EDITIONS)),
    ("players (one-hot: 2, 3, 4)", len(PLAYER_COUNTS)),
    (
        f"pawns: per pawn (red0 .. green3) its place one-hot over {len(LOCATIONS)} (zeros: colour not played)",
        len(PAWN_NAMES) * len(LOCATIONS),
    ),
    (f"card drawn (one-hot over {', '.join(BOARD_CARDS)}; zeros: none)", len(BOARD_CARDS)),
    ("own hand: count per card (points variant)", len(BOARD_CARDS)),
    ("hand sizes per seat (points variant)", SEATS),
    ("discards: count per card / that card's count in the deck", len(BOARD_CARDS)),
    (f"draw pile size / {_BOARD_DECK}", 1),
    ("turn / turn cap", 1),
)
CARD_LAYOUT: tuple[tuple[str, int], ...] = (
    ("seat (one-hot: the observing seat)", SEATS),
    ("decision seat (one-hot; zeros once the game is over)", SEATS),
    ("turn seat (one-hot)", SEATS),
    (f"decision kind (one-hot: {', '.join(CARD_KINDS)})", len(CARD_KINDS)),
    ("players (one-hot: 2, 3, 4)", len(PLAYER_COUNTS)),
    (f"pawns per player / {MAX_PAWNS}, longer game (0 or 1)", 2),
    ("direction (+1 or -1)", 1),
    ("play pile total / 21", 1),
    ("play pile: count per card", len(CARD_CARDS)),
    ("own hand: count per card", len(CARD_CARDS)),
    ("discards: count per card / that card's count in the deck (0 if none)", len(CARD_CARDS)),
    ("HOME count shown per seat / pawns", SEATS),
    ("progress per seat / the goal", SEATS),
    ("hand sizes per seat", SEATS),
    ("draw pile size / the deck's size", 1),
    ("scorer, thief, attacker (one-hot each; zeros: none)", 3 * SEATS),
    ("Play 2 cards left to play", 1),
    ("tiebreaker: tied seats, seats that have chosen (masks)", 2 * SEATS),
    ("tiebreaker: own secret choice, count per card", len(CARD_CARDS)),
    ("turn / turn cap", 1),
)
BOARD_SIZE = sum(size for _, size in BOARD_LAYOUT)
CARD_SIZE = sum(size for _, size in CARD_LAYOUT)
SIZES: dict[str, int] = {"board": BOARD_SIZE, "card": CARD_SIZE}


class _Writer:
    """Fills a vector part by part, in the layout's order."""

    def __init__(self, size: int) -> None:
        self.vector: Vector = np.zeros(size, dtype=np.float32)
        self.at = 0

    def one_hot(self, size: int, index: int | None) -> None:
        if index is not None:
            self.vector[self.at + index] = 1.0
        self.at += size

    def values(self, values: Any) -> None:
        values = list(values)
        self.vector[self.at : self.at + len(values)] = values
        self.at += len(values)

    def counts(self, size: int, table: dict[str, int], cards: Any) -> None:
        for card in cards:
            self.vector[self.at + table[card]] += 1.0
        self.at += size

    def seats(self, values: Any) -> None:
        values = list(values)
        self.values(values + [0.0] * (SEATS - len(values)))

    def done(self) -> Vector:
        assert self.at == len(self.vector), "the layout and the writer disagree"
        return self.vector


def _decision_seat(view: Json) -> int | None:
    decision = view["decision"]
    return None if decision is None else int(decision["seat"])


def board_observation(view: Json) -> Vector:
    """A board game seat's view as a vector of :data:`BOARD_SIZE` (layout :data:`BOARD_LAYOUT`)."""
    settings = view["settings"]
    out = _Writer(BOARD_SIZE)
    out.one_hot(SEATS, view["seat"])
    out.one_hot(SEATS, _decision_seat(view))
    out.one_hot(len(VARIANTS), VARIANTS.index(settings["variant"]))
    out.one_hot(len(EDITIONS), EDITIONS.index(settings["edition"]))
    out.one_hot(len(PLAYER_COUNTS), PLAYER_COUNTS.index(settings["players"]))
    pawns = view["pawns"]
    for name in PAWN_NAMES:
        place = pawns.get(name)
        out.one_hot(len(LOCATIONS), None if place is None else _LOCATION[place])
    out.one_hot(len(BOARD_CARDS), None if view["card"] is None else _BOARD_CARD[view["card"]])
    out.counts(len(BOARD_CARDS), _BOARD_CARD, view.get("hand") or ())
    out.seats(view.get("hand_sizes") or ())
    out.values(view["discards"].count(card) / CARD_COUNTS[card] for card in BOARD_CARDS)
    out.values((view["draw_pile"] / _BOARD_DECK, view["turn"] / settings["turn_cap"]))
    return out.done()


def card_observation(view: Json) -> Vector:
    """A card game seat's view as a vector of :data:`CARD_SIZE` (layout :data:`CARD_LAYOUT`)."""
    settings = view["settings"]
    deck = settings["deck"]
    pawns = settings["pawns"]
    goal = pawns * (2 if settings["longer_game"] else 1)
    decision = view["decision"]
    tiebreak = view["tiebreak"] or {}
    out = _Writer(CARD_SIZE)
    out.one_hot(SEATS, view["seat"])
    out.one_hot(SEATS, _decision_seat(view))
    out.one_hot(SEATS, view["turn_seat"])
    out.one_hot(len(CARD_KINDS), None if decision is None else CARD_KINDS.index(decision["kind"]))
    out.one_hot(len(PLAYER_COUNTS), PLAYER_COUNTS.index(settings["players"]))
    out.values((pawns / MAX_PAWNS, float(settings["longer_game"]), view["direction"], view["total"] / 21))
    out.counts(len(CARD_CARDS), _CARD_CARD, view["pile"])
    out.counts(len(CARD_CARDS), _CARD_CARD, view["hand"] or ())
    discards = view["discards"]
    out.values(discards.count(card) / deck[card] if deck[card] else 0.0 for card in CARD_CARDS)
    out.seats(home / pawns for home in view["home"])
    out.seats(progress / goal for progress in view["progress"])
    out.seats(view["hand_sizes"])
    out.values((view["draw_pile"] / max(1, sum(deck.values())),))
    for role in ("scorer", "thief", "attacker"):
        out.one_hot(SEATS, view[role])
    out.values((view["play2_left"],))
    out.seats(float(seat in tiebreak.get("tied", ())) for seat in range(SEATS))
    out.seats(float(seat in tiebreak.get("chosen", ())) for seat in range(SEATS))
    out.counts(len(CARD_CARDS), _CARD_CARD, tiebreak.get("mine", ()))
    out.values((view["turn"] / settings["turn_cap"],))
    return out.done()


OBSERVERS = {"board": board_observation, "card": card_observation}
"""Each game's encoder, by game name."""
