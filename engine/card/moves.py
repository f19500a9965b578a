"""The legal actions of the seat asked in a card game, by decision kind (docs/rules.md A3-A5).

- ``turn``: any number card (``play:7``), any Slide (``play:slide15``), Take 2, Switch, Play 2 with at least two
  number cards left in the hand, the on-turn SORRY! against an opponent with a HOME pawn (``sorry:blue``); with no
  legal turn card, discard one card of the player's choice (``discard:7``).
- ``play2``: one of the number cards of the hand (``play:7``).
- ``steal`` and ``block``: ``steal`` / ``block`` when the seat holds the card, and always ``pass``.
- ``tiebreak``: any choice of the hand's number cards with at most one Slide (``tiebreak:3,8,slide10``, or
  ``tiebreak:none``); alike cards are one choice.

Cards of one name are alike, so each action names a card, never a position in the hand.
"""

from __future__ import annotations

from itertools import combinations

from engine.card.cards import ACTIONS, CARD_ORDER, NUMBER_VALUES, SLIDES
from engine.card.state import CardState
from engine.types import Action, Json

COLOURS = ("red", "blue", "yellow", "green")
"""The colour of each seat's pawn cards, in seat order."""


class CardAction(Action):
    """An action with its parts: ``kind`` (play, discard, sorry, steal, block, pass, tiebreak) and its cards."""

    __slots__ = ("cards", "kind", "target", "total_after")

    def __init__(self, kind: str, action_id: str, cards: tuple[str, ...] = (), target: int | None = None) -> None:
        self.id = action_id
        self._description = None
        self.kind = kind
        self.cards = cards
        self.target = target
        self.total_after: int | None = None

    def describe(self) -> Json:
        data: Json = {"kind": self.kind, "cards": list(self.cards)}
        if self.target is not None:
            data["target"] = self.target
            data["target_colour"] = COLOURS[self.target]
        if self.total_after is not None:
            data["total_after"] = self.total_after
        if self.kind == "tiebreak":
            data["score"] = tiebreak_score(self.cards)
        return data


def sort_cards(cards: list[str] | tuple[str, ...] | set[str]) -> list[str]:
    return sorted(cards, key=CARD_ORDER.__getitem__)


def tiebreak_score(cards: tuple[str, ...] | list[str]) -> int:
    """A5: the value of at most one Slide among the cards (else 0) plus the number cards; over 21 is bust (-1)."""
    score = sum(NUMBER_VALUES.get(card, 0) for card in cards)
    score += max((SLIDES[card] for card in cards if card in SLIDES), default=0)
    return score if score <= 21 else -1


def _play(state: CardState, card: str) -> CardAction:
    action = CardAction("play", f"play:{card}", (card,))
    if card in NUMBER_VALUES:
        action.total_after = state.total + NUMBER_VALUES[card]
    elif card in SLIDES:
        action.total_after = SLIDES[card]
    return action


def turn_actions(state: CardState, seat: int) -> list[CardAction]:
    hand = state.hands[seat]
    distinct = sort_cards(set(hand))
    numbers = sum(1 for card in hand if card in NUMBER_VALUES)
    actions = [
        _play(state, card)
        for card in distinct
        if card in NUMBER_VALUES or card in SLIDES or (card in ACTIONS and (card != "play2" or numbers >= 2))
    ]
    if "sorry" in hand:
        actions.extend(
            CardAction("sorry", f"sorry:{COLOURS[target]}", ("sorry",), target)
            for target in state.in_turn_order(seat)
            if state.home_shown(target) > 0
        )
    if not actions:
        actions = [CardAction("discard", f"discard:{card}", (card,)) for card in distinct]
    return actions


def play2_actions(state: CardState, seat: int) -> list[CardAction]:
    return [_play(state, card) for card in sort_cards({c for c in state.hands[seat] if c in NUMBER_VALUES})]


def reaction_actions(state: CardState, seat: int, card: str) -> list[CardAction]:
    """A steal or block window: the card if the seat holds it, and always ``pass`` (asking reveals nothing)."""
    actions = [CardAction(card, card, (card,))] if card in state.hands[seat] else []
    actions.append(CardAction("pass", "pass"))
    return actions


def tiebreak_actions(state: CardState, seat: int) -> list[CardAction]:
    hand = state.hands[seat]
    numbers = sort_cards([card for card in hand if card in NUMBER_VALUES])
    slides = sort_cards({card for card in hand if card in SLIDES})
    choices: dict[tuple[str, ...], None] = {}
    for size in range(len(numbers) + 1):
        for chosen in combinations(numbers, size):
            for slide in (None, *slides):
                cards = (*chosen, slide) if slide else chosen
                choices.setdefault(cards, None)
    return [CardAction("tiebreak", "tiebreak:" + (",".join(cards) or "none"), cards) for cards in choices]


def legal(state: CardState) -> list[CardAction]:
    seat = state.asked
    if not state.hands[seat] and state.kind == "turn":
        return []
    if state.kind == "turn":
        return turn_actions(state, seat)
    if state.kind == "play2":
        return play2_actions(state, seat)
    if state.kind == "steal":
        return reaction_actions(state, seat, "steal")
    if state.kind == "block":
        return reaction_actions(state, seat, "block")
    return tiebreak_actions(state, seat)
