"""sorry-arena's game engine: the pure rules of SORRY! games behind one API (STYLE.md, "engine/").

Every caller uses these functions::

    state = engine.new_game("board", {"variant": "standard"}, seed=7)
    while not engine.is_over(state):
        seat = engine.current_player(state)
        actions = engine.legal_actions(state, seat)
        engine.apply(state, actions[0].id, seat)
    engine.result(state).ranks

States are mutable objects owned by the caller; ``apply`` changes one in place and returns the events it caused.
Randomness comes only from the game's seed, so ``replay(game, settings, seed, action_ids)`` rebuilds any game.
This package imports nothing outside the standard library.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from engine.api import (
    Action,
    Decision,
    EngineError,
    Event,
    IllegalActionError,
    Json,
    Result,
    SettingsError,
    StateError,
)
from engine.games import GAMES, game_of
from engine.rng import derived_random

__all__ = [
    "GAMES",
    "Action",
    "Decision",
    "EngineError",
    "Event",
    "IllegalActionError",
    "Result",
    "SettingsError",
    "StateError",
    "apply",
    "copy",
    "current_player",
    "decision",
    "determinize",
    "fallback_action",
    "from_json",
    "is_over",
    "legal_actions",
    "new_game",
    "new_game_with_events",
    "normalize_settings",
    "num_seats",
    "replay",
    "result",
    "to_json",
    "view",
]


def new_game(game: str, settings: Json | None = None, seed: int = 0) -> Any:
    """A new game of kind ``game`` (``"board"`` or ``"card"``) from its settings and seed.

    Raises :class:`SettingsError` for an unknown game or settings that do not describe a playable game.
    """
    return new_game_with_events(game, settings, seed)[0]


def new_game_with_events(game: str, settings: Json | None = None, seed: int = 0) -> tuple[Any, list[Event]]:
    """:func:`new_game` and the events of its opening: the deal (private hands and public counts), first draws."""
    if game not in GAMES:
        raise SettingsError(f"unknown game {game!r}; expected one of {sorted(GAMES)}")
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise SettingsError(f"seed must be an integer in [0, 2**63), got {seed!r}")
    return GAMES[game].new_game_with_events(settings, seed)


def normalize_settings(game: str, settings: Json | None = None) -> Json:
    """The complete settings of a game (every default filled in), validated."""
    if game not in GAMES:
        raise SettingsError(f"unknown game {game!r}; expected one of {sorted(GAMES)}")
    return GAMES[game].normalize_settings(settings)


def num_seats(state: Any) -> int:
    return game_of(state).num_seats(state)


def decision(state: Any) -> Decision | None:
    """Which seat must decide now and what kind of decision it is; ``None`` once the game is over."""
    return game_of(state).decision(state)


def current_player(state: Any) -> int | None:
    """The seat that must decide now (``None`` once the game is over)."""
    asked = game_of(state).decision(state)
    return None if asked is None else asked.seat


def legal_actions(state: Any, seat: int) -> list[Action]:
    """The legal actions of ``seat`` now, unique by outcome, in a stable order; empty unless it is asked."""
    return game_of(state).legal_actions(state, seat)


def apply(state: Any, action_id: str, seat: int | None = None) -> list[Event]:
    """Apply the action ``action_id`` for ``seat`` (default: the seat asked now) and return its events.

    Raises :class:`IllegalActionError` naming the action and the seat, leaving the state unchanged, when the
    game is over, the seat is not asked, or the id is not one of its legal actions.
    """
    game = game_of(state)
    asked = game.decision(state)
    if seat is None:
        seat = asked.seat if asked is not None else None
    if asked is None:
        raise IllegalActionError(action_id, seat, "the game is over")
    if seat != asked.seat:
        raise IllegalActionError(action_id, seat, f"it is seat {asked.seat}'s decision, not seat {seat}'s")
    for action in game.legal_actions(state, seat):
        if action.id == action_id:
            return game.apply(state, action)
    raise IllegalActionError(action_id, seat, "not a legal action now")


def is_over(state: Any) -> bool:
    return game_of(state).decision(state) is None


def result(state: Any) -> Result | None:
    """The ranking of the seats once the game is over, else ``None``."""
    return game_of(state).result(state)


def view(state: Any, seat: int | None) -> Json:
    """Exactly what ``seat`` may see (``None``: a spectator, who sees only public information)."""
    return game_of(state).view(state, seat)


def to_json(state: Any) -> Json:
    """The complete state, hidden parts included, as JSON-able data (never send this to a player)."""
    return game_of(state).to_json(state)


def from_json(data: Json) -> Any:
    """The state that :func:`to_json` produced. Raises :class:`StateError` for a malformed document."""
    if not isinstance(data, dict) or data.get("game") not in GAMES:
        raise StateError("a game state must be an object whose 'game' is one of " + ", ".join(sorted(GAMES)))
    return GAMES[data["game"]].from_json(data)


def replay(game: str, settings: Json | None, seed: int, actions: Iterable[str]) -> Any:
    """Rebuild a game from its kind, settings, seed and action ids (RULES.md Part C)."""
    state = new_game(game, settings, seed)
    for action_id in actions:
        apply(state, action_id)
    return state


def copy(state: Any) -> Any:
    """An independent copy of a state, much cheaper than a round trip through :func:`to_json` (search bots)."""
    game_of(state)
    return state.copy()


def determinize(view: Json, seed: int | random.Random = 0) -> Any:
    """A full state that shows ``view`` to its seat exactly, with every card the seat cannot see (the draw pile's
    order, the other hands, secret tiebreaker choices) placed at random from ``seed`` (a number or a generator).

    Search bots play such states forward to weigh their options (determinization: sample the hidden information,
    then search as if it were known). ``view(determinize(v, s), v["seat"]) == v`` for every seat's view ``v``,
    except that the result is a fresh seed's game: what it deals or shuffles next is not the real game's.
    Raises :class:`StateError` for a spectator's view or a view that no game could show.
    """
    if not isinstance(view, dict) or view.get("game") not in GAMES:
        raise StateError("a view must be an object whose 'game' is one of " + ", ".join(sorted(GAMES)))
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    return GAMES[view["game"]].determinize(view, rng)


def fallback_action(state: Any) -> str:
    """A legal action for the seat asked now, drawn from the game's own seeded generator.

    The tournament plays it for a bot that faulted; it depends only on the seed and the ply, so a replay of the
    recorded action ids reproduces the game.
    """
    seat = current_player(state)
    if seat is None:
        raise IllegalActionError("fallback", None, "the game is over")
    actions = legal_actions(state, seat)
    return derived_random(state.seed, "fallback", state.ply).choice(actions).id
