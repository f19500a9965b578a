"""A search bot for both games: flat Monte Carlo over determinized hidden information.

For each sample it deals the cards the seat cannot see at random (:func:`engine.determinize`), then for every
legal action plays that action and a short greedy continuation (every seat playing the one-ply greedy bot) and
scores the position reached, from the seat's point of view; the action with the best mean score wins. All actions
are tried on the same samples (common random numbers), so their differences are not drowned in the deal's luck.

Positions are valued by :mod:`engine.heuristics`. The bot sees only what the seat's view shows: the hidden cards
of its samples are guesses, never the real ones.
"""

from __future__ import annotations

import random
import time

import engine
from engine.api import Action, Json, State
from engine.board.geometry import COLOURS, SEAT_COLOURS
from engine.board.state import BoardState
from engine.greedy import greedy_bot
from engine.heuristics import value

SAMPLES = 8
"""Determinizations per decision."""
DEPTH = 2
"""Plies of greedy continuation after the action tried: the opponents' answer (deeper adds more noise than
insight at this number of samples: tried with 4 and 8)."""


def _policy_view(state: State, seat: int) -> Json:
    """What the greedy policy reads of a view, built without the cost of a full view."""
    if isinstance(state, BoardState):
        return {"game": "board", "seat": seat, "colours": _COLOUR_NAMES[state.colours], "settings": state.settings}
    return {"game": "card", "total": state.total, "home": [state.home_shown(s) for s in range(state.players)]}


_COLOUR_NAMES: dict[tuple[int, ...], list[str]] = {
    colours: [COLOURS[colour] for colour in colours] for colours in SEAT_COLOURS.values()
}


def rollout(state: State, depth: int, rng: random.Random) -> None:
    """Play ``depth`` plies of greedy play for every seat (fewer if the game ends)."""
    for _ in range(depth):
        asked = engine.decision(state)
        if asked is None:
            return
        actions = engine.legal_actions(state, asked.seat)
        chosen = actions[0].id if len(actions) == 1 else greedy_bot(_policy_view(state, asked.seat), actions, rng)
        engine.apply(state, chosen, asked.seat, events=False)


def best_action(
    view: Json,
    action_ids: list[str],
    rng: random.Random,
    samples: int = SAMPLES,
    depth: int = DEPTH,
    budget_s: float | None = None,
) -> str:
    """The one of ``action_ids`` (the seat's legal actions now) with the best mean value over ``samples``
    determinizations of ``view``; with ``budget_s``, it stops early (after at least one sample) once that many
    seconds have passed. Raises :class:`engine.StateError` for a view no game could show."""
    if len(action_ids) == 1:
        return action_ids[0]
    seat = view["seat"]
    totals = [0.0] * len(action_ids)
    started = time.perf_counter()
    for done in range(samples):
        if budget_s is not None and done and time.perf_counter() - started > budget_s:
            break
        sampled = engine.determinize(view, rng)
        for index, action_id in enumerate(action_ids):
            state = engine.copy(sampled)
            engine.apply(state, action_id, seat, events=False)
            rollout(state, depth, rng)
            totals[index] += value(state, seat)
    best = max(totals)
    return rng.choice([action_id for action_id, total in zip(action_ids, totals, strict=True) if total == best])


def search_bot(view: Json, actions: list[Action], rng: random.Random) -> str:
    """:func:`best_action` as an engine-level bot (``sorry-arena simulate --bots search,greedy``)."""
    return best_action(view, [action.id for action in actions], rng)
