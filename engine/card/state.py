"""The state of a card game: hands, piles, the total, HOME counts, and who is asked what (docs/rules.md A2-A5).

A ``CardState`` is a plain mutable record; :mod:`engine.card.rules` changes it. The seat *asked* (``asked``) is
not always the seat whose turn it is (``seat``): reaction windows ask other seats (``kind`` says what for).
"""

from __future__ import annotations

from typing import Any

from engine.types import Action, Result

KINDS = ("turn", "play2", "steal", "block", "tiebreak")
"""Decision kinds: a turn card; a number card of a Play 2; steal or pass; block or pass; tiebreaker cards."""


class CardState:
    __slots__ = (
        "_actions",
        "asked",
        "attacker",
        "choices",
        "direction",
        "discards",
        "draw_pile",
        "hands",
        "kind",
        "pile",
        "play2_left",
        "players",
        "ply",
        "progress",
        "queue",
        "result",
        "scorer",
        "seat",
        "seed",
        "settings",
        "shuffles",
        "thief",
        "tied",
        "total",
        "turn",
    )
    game = "card"

    def __init__(self, settings: dict[str, Any], seed: int) -> None:
        self.settings = settings
        self.seed = seed
        self.players: int = settings["players"]
        self.ply = 0
        self.turn = 1
        self.seat = 0
        """Whose turn it is."""
        self.direction = 1
        """+1 in seat order, -1 after an odd number of Switches."""
        self.hands: list[list[str]] = []
        self.draw_pile: list[str] = []
        """The top card is the last element."""
        self.discards: list[str] = []
        """Discarded play piles and discarded cards, face up, in order."""
        self.pile: list[str] = []
        """The live play pile."""
        self.total = 0
        self.progress: list[int] = []
        """Per seat: pawns HOME (the longer game: 0 .. 2 * pawns, see :func:`home_shown`)."""
        self.shuffles = 0
        self.kind = "turn"
        self.asked = 0
        self.play2_left = 0
        self.scorer: int | None = None
        """The seat whose card made 21 (steal and block windows)."""
        self.queue: list[int] = []
        """The seats still to be asked in a steal window, in order."""
        self.thief: int | None = None
        self.attacker: int | None = None
        """The seat that played an on-turn SORRY! (block window of its victim, ``asked``)."""
        self.tied: list[int] = []
        self.choices: dict[int, list[str]] = {}
        """Tiebreaker cards chosen so far (secret until every tied seat has chosen)."""
        self.result: Result | None = None
        self._actions: list[Action] | None = None

    def copy(self) -> CardState:
        """An independent copy: its lists and dicts are new, its immutable parts (settings, actions, result) shared."""
        other = object.__new__(CardState)
        for name in _SHARED:
            object.__setattr__(other, name, getattr(self, name))
        other.hands = [hand.copy() for hand in self.hands]
        other.draw_pile = self.draw_pile.copy()
        other.discards = self.discards.copy()
        other.pile = self.pile.copy()
        other.progress = self.progress.copy()
        other.queue = self.queue.copy()
        other.tied = self.tied.copy()
        other.choices = {seat: cards.copy() for seat, cards in self.choices.items()}
        return other

    @property
    def pawns(self) -> int:
        return int(self.settings["pawns"])

    @property
    def goal(self) -> int:
        """The progress that wins: every pawn HOME, or in the longer game HOME and back to START."""
        return self.pawns * (2 if self.settings["longer_game"] else 1)

    def home_shown(self, seat: int) -> int:
        """The HOME count on the table (A5: the longer game counts back down after every pawn is HOME)."""
        progress = self.progress[seat]
        return progress if progress <= self.pawns else self.goal - progress

    def next_seat(self, seat: int) -> int:
        return (seat + self.direction) % self.players

    def in_turn_order(self, after: int) -> list[int]:
        """Every other seat, in the current direction, starting after ``after``."""
        order = []
        seat = self.next_seat(after)
        while seat != after:
            order.append(seat)
            seat = self.next_seat(seat)
        return order


_COPIED = ("hands", "draw_pile", "discards", "pile", "progress", "queue", "tied", "choices")
_SHARED = tuple(name for name in CardState.__slots__ if name not in _COPIED)
"""Slots holding immutable values (or values never changed in place, like ``settings`` and ``_actions``)."""
