"""One game's rules behind the shared game API (:class:`engine.api.Game`): the glue that both games share.

A game supplies its functions (settings, setup, legal actions, play, view, JSON); its state exposes ``asked`` (the
seat that must decide now), ``kind`` (what for) and ``result`` (``None`` until the game is over).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from engine.api import Action, Decision, Event, Json, Result


@cache
def _decision(seat: int, kind: str) -> Decision:
    return Decision(seat, kind)


@dataclass(frozen=True)
class Ruleset:
    name: str
    normalize: Callable[[Json | None], Json]
    setup: Callable[[Json, int, list[Event]], Any]
    """Deal and start a game from complete settings and a seed, appending the opening events."""
    legal: Callable[[Any], list[Action]]
    """The legal actions of the seat asked now (cached by the state until it changes)."""
    play: Callable[[Any, Action], list[Event]]
    encode: Callable[[Any], Json]
    decode: Callable[[Json], Any]
    view_of: Callable[[Any, int | None], Json]
    sample: Callable[[Json, random.Random], Any]
    """A state consistent with a seat's view, its hidden cards placed at random (determinization)."""

    def normalize_settings(self, settings: Json | None) -> Json:
        return self.normalize(settings)

    def new_game(self, settings: Json | None, seed: int) -> Any:
        return self.new_game_with_events(settings, seed)[0]

    def new_game_with_events(self, settings: Json | None, seed: int) -> tuple[Any, list[Event]]:
        events: list[Event] = []
        return self.setup(self.normalize(settings), seed, events), events

    def num_seats(self, state: Any) -> int:
        return int(state.players)

    def decision(self, state: Any) -> Decision | None:
        if state.result is not None:
            return None
        return _decision(state.asked, state.kind)

    def legal_actions(self, state: Any, seat: int) -> list[Action]:
        if state.result is not None or seat != state.asked:
            return []
        return list(self.legal(state))

    def apply(self, state: Any, action: Action) -> list[Event]:
        return self.play(state, action)

    def result(self, state: Any) -> Result | None:
        result: Result | None = state.result
        return result

    def view(self, state: Any, seat: int | None) -> Json:
        return self.view_of(state, seat)

    def to_json(self, state: Any) -> Json:
        return self.encode(state)

    def from_json(self, data: Json) -> Any:
        return self.decode(data)

    def determinize(self, view: Json, rng: random.Random) -> Any:
        return self.sample(view, rng)
