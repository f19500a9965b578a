"""The game API: every public function and type of the engine, in this one module (docs/architecture.md; docs/rules.md
Part C). ``import engine`` re-exports exactly these names, so ``engine.apply`` is :func:`engine.api.apply`::

    state = engine.new_game("board", {"variant": "standard"}, seed=7)
    while (asked := engine.decision(state)) is not None:
        actions = engine.legal_actions(state, asked.seat)
        engine.apply(state, actions[0].id, asked.seat, events=False)
    engine.result(state).ranks

One name per operation:

- start a game: :func:`new_game`, its complete settings :func:`normalize_settings`, the events of its deal
  :func:`opening_events`; :data:`GAMES` names the games;
- ask: :func:`decision` (the seat asked and what for), :func:`legal_actions`, :func:`is_over`, :func:`result`;
- play: :func:`apply` (returns the events the action caused; ``events=False``: the same rules, building no events,
  for the callers that would throw them away), and :func:`fallback_action` for a bot that faulted;
- show and store: :func:`view` (what one seat may see), :func:`to_json` / :func:`from_json`, :func:`replay`;
- search bots: :func:`copy`, :func:`determinize`;
- types: :data:`State` (a game's state), and from :mod:`engine.types` :class:`Action`, :class:`Decision`,
  :class:`Result`, :data:`Event`, :data:`Json`, and the errors :class:`EngineError` (:class:`SettingsError`,
  :class:`IllegalActionError`, :class:`StateError`).

States are mutable objects owned by the caller; :func:`apply` changes one in place and returns the events it
caused (none built with ``events=False``). Randomness comes only from the game's seed, so ``replay(game, settings, seed, action_ids)`` rebuilds any
game. Each function goes straight to the functions of the state's game (its :class:`engine.ruleset.Ruleset`,
registered in :mod:`engine.games`), and reads what both games share (who is asked, the result) from the state.
The engine imports nothing outside the standard library.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from functools import cache
from typing import Literal, TypeAlias, cast, overload

from engine.board.state import BoardState
from engine.card.state import CardState
from engine.games import RULESETS
from engine.rng import derived_random
from engine.ruleset import Ruleset
from engine.types import (
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

__all__ = [
    "GAMES",
    "Action",
    "Decision",
    "EngineError",
    "Event",
    "IllegalActionError",
    "Json",
    "Result",
    "SettingsError",
    "State",
    "StateError",
    "apply",
    "copy",
    "decision",
    "determinize",
    "fallback_action",
    "from_json",
    "is_over",
    "legal_actions",
    "new_game",
    "normalize_settings",
    "opening_events",
    "replay",
    "result",
    "to_json",
    "view",
]

State: TypeAlias = BoardState | CardState
"""A game's complete state (hidden parts included): the state class of one of the games."""

GAMES: tuple[str, ...] = tuple(sorted(RULESETS))
"""The names of the games: ``"board"`` (docs/rules.md Part B) and ``"card"`` (Part A)."""

_OWN = cast("dict[str, Ruleset[State]]", RULESETS)
"""The registry as dispatch sees it: ``state.game`` always names the ruleset of the state's own class."""


def _ruleset(state: State) -> Ruleset[State]:
    try:
        return _OWN[state.game]
    except (AttributeError, KeyError):
        raise _not_a_state(state) from None


def _not_a_state(state: object) -> StateError:
    return StateError(f"not a game state: {type(state).__name__}")


def _named(game: str) -> Ruleset[BoardState] | Ruleset[CardState]:
    if game not in RULESETS:
        raise SettingsError(f"unknown game {game!r}; expected one of {sorted(RULESETS)}")
    return RULESETS[game]


@cache
def _decision(seat: int, kind: str) -> Decision:
    return Decision(seat, kind)


def new_game(game: str, settings: Json | None = None, seed: int = 0) -> State:
    """A new game of kind ``game`` (one of :data:`GAMES`) from its settings and seed.

    Starting a game is this one function, which returns the state alone like :func:`from_json` and :func:`replay`;
    the events of its deal are another question, :func:`opening_events`, asked of the state by the few callers that
    show them. Raises :class:`SettingsError` for an unknown game or settings that do not describe a playable game.
    """
    ruleset = _named(game)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise SettingsError(f"seed must be an integer in [0, 2**63), got {seed!r}")
    return ruleset.setup(ruleset.normalize_settings(settings), seed, None)


def opening_events(state: State) -> list[Event]:
    """The events of the game's opening, before its first decision: the deal (each hand privately, its size
    publicly), the first draws. A game is a function of its settings and seed, so they are dealt again from those
    (at any point of the game; cheap, but not free: ask once, when the game starts)."""
    events: list[Event] = []
    _ruleset(state).setup(state.settings, state.seed, events)
    return events


def normalize_settings(game: str, settings: Json | None = None) -> Json:
    """The complete settings of a game (every default filled in), validated."""
    return _named(game).normalize_settings(settings)


def decision(state: State) -> Decision | None:
    """Which seat must decide now and what kind of decision it is; ``None`` once the game is over."""
    if getattr(state, "game", "") not in _OWN:  # _ruleset's check, without a call: asked at every move
        raise _not_a_state(state)
    if state.result is not None:
        return None
    return _decision(state.asked, state.kind)


def legal_actions(state: State, seat: int) -> list[Action]:
    """The legal actions of ``seat`` now, unique by outcome, in a stable order; empty unless it is asked."""
    ruleset = _OWN.get(getattr(state, "game", ""))  # _ruleset, without a call: asked at every move
    if ruleset is None:
        raise _not_a_state(state)
    if state.result is not None or seat != state.asked:
        return []
    return list(ruleset.legal(state))


@overload
def apply(
    state: State, action_id: str, seat: int | None = None, *, events: Literal[True] = True
) -> list[Event]: ...
@overload
def apply(state: State, action_id: str, seat: int | None = None, *, events: Literal[False]) -> None: ...
@overload
def apply(state: State, action_id: str, seat: int | None = None, *, events: bool) -> list[Event] | None: ...
def apply(state: State, action_id: str, seat: int | None = None, *, events: bool = True) -> list[Event] | None:
    """Apply the action ``action_id`` for ``seat`` (default: the seat asked now) and return its events; with
    ``events=False`` the same rules reach the same state without building the events, and it returns ``None`` (for
    callers that would throw them away: bots, simulations, tournaments, replays).

    Raises :class:`IllegalActionError` naming the action and the seat, leaving the state unchanged, when the
    game is over, the seat is not asked, or the id is not one of its legal actions.
    """
    ruleset = _OWN.get(getattr(state, "game", ""))  # _ruleset, without a call: asked at every move
    if ruleset is None:
        raise _not_a_state(state)
    if state.result is not None:
        raise IllegalActionError(action_id, seat, "the game is over")
    asked = state.asked
    if seat is None:
        seat = asked
    elif seat != asked:
        raise IllegalActionError(action_id, seat, f"it is seat {asked}'s decision, not seat {seat}'s")
    for action in ruleset.legal(state):
        if action.id == action_id:
            if not events:
                ruleset.apply(state, action, None)
                return None
            caused: list[Event] = []
            ruleset.apply(state, action, caused)
            return caused
    raise IllegalActionError(action_id, seat, "not a legal action now")


def is_over(state: State) -> bool:
    """Whether the game is over: then :func:`decision` is ``None`` and :func:`result` ranks the seats."""
    _ruleset(state)
    return state.result is not None


def result(state: State) -> Result | None:
    """The ranking of the seats once the game is over, else ``None``."""
    _ruleset(state)
    return state.result


def view(state: State, seat: int | None) -> Json:
    """Exactly what ``seat`` may see (``None``: a spectator, who sees only public information)."""
    return _ruleset(state).view(state, seat)


def to_json(state: State) -> Json:
    """The complete state, hidden parts included, as JSON-able data (never send this to a player)."""
    return _ruleset(state).to_json(state)


def from_json(data: Json) -> State:
    """The state that :func:`to_json` produced. Raises :class:`StateError` for a malformed document."""
    if not isinstance(data, dict) or data.get("game") not in RULESETS:
        raise StateError("a game state must be an object whose 'game' is one of " + ", ".join(sorted(RULESETS)))
    return RULESETS[data["game"]].from_json(data)


def replay(game: str, settings: Json | None, seed: int, actions: Iterable[str]) -> State:
    """Rebuild a game from its kind, settings, seed and action ids (docs/rules.md Part C)."""
    state = new_game(game, settings, seed)
    for action_id in actions:
        apply(state, action_id, events=False)
    return state


def copy(state: State) -> State:
    """An independent copy of a state, much cheaper than a round trip through :func:`to_json` (search bots)."""
    _ruleset(state)
    return state.copy()


def determinize(view: Json, seed: int | random.Random = 0) -> State:
    """A full state that shows ``view`` to its seat exactly, with every card the seat cannot see (the draw pile's
    order, the other hands, secret tiebreaker choices) placed at random from ``seed`` (a number or a generator).

    Search bots play such states forward to weigh their options (determinization: sample the hidden information,
    then search as if it were known). ``view(determinize(v, s), v["seat"]) == v`` for every seat's view ``v``,
    except that the result is a fresh seed's game: what it deals or shuffles next is not the real game's.
    Raises :class:`StateError` for a spectator's view or a view that no game could show.
    """
    if not isinstance(view, dict) or view.get("game") not in RULESETS:
        raise StateError("a view must be an object whose 'game' is one of " + ", ".join(sorted(RULESETS)))
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    return RULESETS[view["game"]].determinize(view, rng)


def fallback_action(state: State) -> str:
    """A legal action for the seat asked now, drawn from the game's own seeded generator.

    The tournament plays it for a bot that faulted; it depends only on the seed and the ply, so a replay of the
    recorded action ids reproduces the game.
    """
    asked = decision(state)
    if asked is None:
        raise IllegalActionError("fallback", None, "the game is over")
    actions = legal_actions(state, asked.seat)
    return derived_random(state.seed, "fallback", state.ply).choice(actions).id
