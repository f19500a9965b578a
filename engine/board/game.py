"""The board game behind the shared game API (:class:`engine.api.Game`)."""

from __future__ import annotations

from typing import Any

from engine.api import Action, Decision, Event, Json, Result
from engine.board import codec, rules
from engine.board.settings import normalize
from engine.board.state import BoardState


class BoardGame:
    name = "board"

    def normalize_settings(self, settings: Json | None) -> Json:
        return normalize(settings)

    def new_game(self, settings: Json | None, seed: int) -> BoardState:
        return self.new_game_with_events(settings, seed)[0]

    def new_game_with_events(self, settings: Json | None, seed: int) -> tuple[BoardState, list[Event]]:
        events: list[Event] = []
        return rules.setup(normalize(settings), seed, events), events

    def num_seats(self, state: BoardState) -> int:
        return state.players

    def decision(self, state: BoardState) -> Decision | None:
        if state.result is not None:
            return None
        return _DECISIONS[(state.seat, codec.decision_kind(state))]

    def legal_actions(self, state: BoardState, seat: int) -> list[Action]:
        if state.result is not None or seat != state.seat:
            return []
        return list(rules.legal(state))

    def apply(self, state: BoardState, action: Action) -> list[Event]:
        return rules.play(state, action)

    def result(self, state: BoardState) -> Result | None:
        return state.result

    def view(self, state: BoardState, seat: int | None) -> Json:
        return codec.view(state, seat)

    def to_json(self, state: BoardState) -> Json:
        return codec.to_json(state)

    def from_json(self, data: Json) -> Any:
        return codec.from_json(data)


_DECISIONS = {(seat, kind): Decision(seat, kind) for seat in range(4) for kind in codec.DECISION_KINDS}
BOARD = BoardGame()
