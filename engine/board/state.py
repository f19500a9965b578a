"""The state of a board game: where every pawn is, the cards, whose turn it is (docs/rules.md B1-B5).

A ``BoardState`` is a plain mutable record; the rules that change it live in :mod:`engine.board.rules`.
``pawns`` is a flat list of 16 locations (pawn ``4 * colour + i``; see :mod:`engine.board.geometry`), with
``ABSENT`` for colours nobody plays. The draw pile is a list whose last element is the top card.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.board.geometry import PARTNER, PAWNS_PER_COLOUR, SEAT_COLOURS
from engine.types import Action, Result

KINDS = ("move", "play")
"""Decision kinds: ``move`` (play the card drawn), ``play`` (points variant: play a card of the hand)."""


class BoardState:
    __slots__ = (
        "_actions",
        "card",
        "colours",
        "discards",
        "draw_pile",
        "hands",
        "kind",
        "movers",
        "pawns",
        "players",
        "ply",
        "result",
        "rivals",
        "seat",
        "seed",
        "settings",
        "shuffles",
        "turn",
        "variant",
    )
    game = "board"

    def __init__(self, settings: dict[str, Any], seed: int) -> None:
        self.settings = settings
        self.seed = seed
        self.players: int = settings["players"]
        self.variant: str = settings["variant"]
        self.kind = "play" if self.variant == "points" else "move"
        """The kind of every decision: ``move`` (play the card drawn); points variant: ``play`` a card of the hand
        (or discard one when none moves). It never depends on the hand, so that it tells the other seats nothing."""
        self.colours: tuple[int, ...] = SEAT_COLOURS[self.players]
        """The colour of each seat."""
        self.movers = tuple(
            tuple(c * PAWNS_PER_COLOUR + i for c in self.movable_colours(seat) for i in range(PAWNS_PER_COLOUR))
            for seat in range(self.players)
        )
        """The pawns each seat moves."""
        self.rivals = tuple(
            tuple(
                c * PAWNS_PER_COLOUR + i
                for c in self.colours
                if c not in self.movable_colours(seat)
                for i in range(PAWNS_PER_COLOUR)
            )
            for seat in range(self.players)
        )
        """The pawns of each seat's opponents (the colours it does not move), in colour order."""
        self.ply = 0
        """Actions applied so far."""
        self.turn = 1
        """The number of the turn being played (a 2's extra draw belongs to the same turn)."""
        self.seat = 0
        self.pawns: list[int] = []
        self.draw_pile: list[str] = []
        self.discards: list[str] = []
        self.card: str | None = None
        """The card drawn and not yet played (standard and team play)."""
        self.hands: list[list[str]] = []
        """Each seat's hand (points variant only)."""
        self.shuffles = 0
        """How many times the deck has been shuffled: the counter of the next shuffle's randomness."""
        self.result: Result | None = None
        self._actions: Sequence[Action] | None = None
        """The legal actions of the seat asked now, computed once per ply."""

    def copy(self) -> BoardState:
        """An independent copy: its lists are new, its immutable parts (settings, actions, result) shared."""
        other = object.__new__(BoardState)
        for name in _SHARED:
            object.__setattr__(other, name, getattr(self, name))
        other.pawns = self.pawns.copy()
        other.draw_pile = self.draw_pile.copy()
        other.discards = self.discards.copy()
        other.hands = [hand.copy() for hand in self.hands]
        return other

    @property
    def asked(self) -> int:
        """The seat that must decide now: always the seat whose turn it is."""
        return self.seat

    def movable_colours(self, seat: int) -> tuple[int, ...]:
        """The colours whose pawns ``seat`` moves: its own, and in team play its partner's too (B4)."""
        colour = self.colours[seat]
        if self.variant == "team":
            return (colour, PARTNER[colour])
        return (colour,)

    def team_of(self, colour: int) -> frozenset[int]:
        if self.variant == "team":
            return frozenset((colour, PARTNER[colour]))
        return frozenset((colour,))

    def colour_pawns(self, colour: int) -> list[int]:
        return self.pawns[colour * PAWNS_PER_COLOUR : (colour + 1) * PAWNS_PER_COLOUR]


_SHARED = tuple(name for name in BoardState.__slots__ if name not in ("pawns", "draw_pile", "discards", "hands"))
"""Slots holding immutable values (or values never changed in place, like ``settings`` and ``_actions``)."""
