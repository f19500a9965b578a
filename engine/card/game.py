"""The card game behind the shared game API (:class:`engine.api.Game`)."""

from __future__ import annotations

from engine.api import Action, Decision, Event, Json, Result
from engine.card import codec, rules
from engine.card.settings import normalize
from engine.card.state import KINDS, CardState

_DECISIONS = {(seat, kind): Decision(seat, kind) for seat in range(4) for kind in KINDS}


class CardGame:
    name = "card"

    def normalize_settings(self, settings: Json | None) -> Json:
        return normalize(settings)

    def new_game(self, settings: Json | None, seed: int) -> CardState:
        return self.new_game_with_events(settings, seed)[0]

    def new_game_with_events(self, settings: Json | None, seed: int) -> tuple[CardState, list[Event]]:
        events: list[Event] = []
        return rules.setup(normalize(settings), seed, events), events

    def num_seats(self, state: CardState) -> int:
        return state.players

    def decision(self, state: CardState) -> Decision | None:
        if state.result is not None:
            return None
        return _DECISIONS[(state.asked, state.kind)]

    def legal_actions(self, state: CardState, seat: int) -> list[Action]:
        if state.result is not None or seat != state.asked:
            return []
        return list(rules.legal(state))

    def apply(self, state: CardState, action: Action) -> list[Event]:
        return rules.play(state, action)

    def result(self, state: CardState) -> Result | None:
        return state.result

    def view(self, state: CardState, seat: int | None) -> Json:
        return codec.view(state, seat)

    def to_json(self, state: CardState) -> Json:
        return codec.to_json(state)

    def from_json(self, data: Json) -> CardState:
        return codec.from_json(data)


CARD = CardGame()
