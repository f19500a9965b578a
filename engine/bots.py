"""Engine-level bots for simulations and tests, by name (:data:`BOTS`): ``random``, ``greedy`` (a one-ply heuristic,
:mod:`engine.greedy`) and ``search`` (flat Monte Carlo over determinized hidden cards, :mod:`engine.search`).

A bot sees exactly what a remote bot would: its seat's view and its legal actions (ids and descriptions), and
returns an action id. It gets its own ``random.Random``, separate from the game's, so that a bot's choices never
disturb the game's shuffles.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.api import Action, Json
from engine.greedy import greedy_bot
from engine.search import search_bot

Bot = Callable[[Json, list[Action], random.Random], str]


def random_bot(view: Json, actions: list[Action], rng: random.Random) -> str:
    return rng.choice(actions).id


BOTS: dict[str, Bot] = {"random": random_bot, "greedy": greedy_bot, "search": search_bot}
