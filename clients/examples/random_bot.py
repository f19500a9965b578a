"""The simplest bot: a uniformly random legal action. Copy this file to start your own.

Run it with ``python -m clients --bot path/to/your_bot.py --push --port 8001 --secret S``.

``choose`` gets the service's move request (docs/bot-protocol.md) and returns one of the offered action ids:

- ``request["view"]``: what your seat sees (``view["game"]`` is ``"board"`` or ``"card"``);
- ``request["actions"]``: the legal actions, each with an ``"id"`` and a structured description;
- ``request["decision"]``: what is asked (board: ``move``; card: ``turn``, ``play2``, ``steal``, ``block``, ...).

The generator is seeded from the game, seat and ply, so a bot replays the same choices for the same game.
"""

from __future__ import annotations

import random
from typing import Any


def choose(request: dict[str, Any]) -> str:
    rng = random.Random(f"{request['game_id']}:{request['seat']}:{request['ply']}")
    return str(rng.choice(request["actions"])["id"])
