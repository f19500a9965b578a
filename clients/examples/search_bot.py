"""A search bot: for each legal action, deal the cards it cannot see at random a few times, play the action and
the opponents' greedy answers, and keep the action whose positions are worth the most on average (flat Monte
Carlo over determinized hidden information; the algorithm is ``engine/search.py``).

It needs the game's rules to look ahead, so unlike the other examples it imports this project's ``engine``
package (standard library only), which the installable client (``pip install ./clients``) leaves out: it runs
where the whole project is installed (``pip install -e .`` in a clone); elsewhere importing it raises an
``ImportError`` that says so (``--bot search`` is then a usage error).
It spends at most a fifth of the move's time limit (``deadline_ms``) and beats the greedy bot in both games
(``sorry-arena simulate --game card --bots search,greedy``; figures in docs/bots.md).
"""

from __future__ import annotations

import random
from typing import Any

try:
    from engine.search import best_action
except ModuleNotFoundError as missing:
    if missing.name not in ("engine", "engine.search"):
        raise
    raise ImportError(
        "the search example bot looks ahead with sorry-arena's rules engine, which the client alone does not "
        "include: run it where the whole project is installed (pip install -e . in a clone of the repository)"
    ) from None


def choose(request: dict[str, Any]) -> str:
    rng = random.Random(f"{request['game_id']}:{request['seat']}:{request['ply']}")
    action_ids = [action["id"] for action in request["actions"]]
    budget_s = (request.get("deadline_ms") or 1000) / 5000
    return best_action(request["view"], action_ids, rng, budget_s=budget_s)
