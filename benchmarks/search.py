"""Search bot tools: the cost of ``engine.copy`` and ``engine.determinize``, and of a search decision, each
against a baseline measured in the same run.

    .venv/bin/python benchmarks/search.py [--positions 40] [--rounds 3] [--seed 1]

It collects ``--positions`` positions of random 4-player board and card games, then, ``--rounds`` times
interleaved, times on every position:

- ``engine.copy`` against ``copy.deepcopy`` of the state (the generic copy the service used before) and against
  ``engine.from_json(engine.to_json(state))`` (a round trip that also validates);
- ``engine.determinize`` of the asked seat's view, against that copy;
- one decision of the search bot (``engine.search.search_bot``), against one of the greedy bot on the same view.

It prints the median time of each (microseconds or milliseconds) and the ratios. The machine is shared and noisy:
compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import copy
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from engine.bots import greedy_bot, search_bot


def positions(game: str, count: int, seed: int) -> list[Any]:
    """States of random 4-player games, a few plies apart, none over."""
    rng = random.Random(seed)
    kept: list[Any] = []
    while len(kept) < count:
        state = engine.new_game(game, {"players": 4}, rng.randrange(2**40))
        while not engine.is_over(state) and len(kept) < count:
            if rng.random() < 0.1:
                kept.append(engine.copy(state))
            engine.apply(state, rng.choice(engine.legal_actions(state, seat_of(state))).id, events=False)
    return kept


def seat_of(state: Any) -> int:
    """The seat whose decision it is (the positions kept are games in play, never over)."""
    decision = engine.decision(state)
    assert decision is not None
    return decision.seat


def per_call(function: Callable[[Any], object], items: list[Any]) -> float:
    """Mean seconds of ``function`` over ``items``."""
    started = time.perf_counter()
    for item in items:
        function(item)
    return (time.perf_counter() - started) / len(items)


def decide(bot: Any, state: Any) -> str:
    seat = seat_of(state)
    return str(bot(engine.view(state, seat), engine.legal_actions(state, seat), random.Random(7)))


def measure(game: str, count: int, rounds: int, seed: int) -> dict[str, float]:
    states = positions(game, count, seed)
    views = [engine.view(state, seat_of(state)) for state in states]
    timings: dict[str, list[float]] = {}
    contenders: dict[str, tuple[Callable[[Any], object], list[Any]]] = {
        "engine.copy": (engine.copy, states),
        "copy.deepcopy": (copy.deepcopy, states),
        "from_json(to_json)": (lambda state: engine.from_json(engine.to_json(state)), states),
        "engine.determinize": (lambda view: engine.determinize(view, 3), views),
        "search decision": (lambda state: decide(search_bot, state), states),
        "greedy decision": (lambda state: decide(greedy_bot, state), states),
    }
    for _ in range(rounds):
        for name, (function, items) in contenders.items():
            timings.setdefault(name, []).append(per_call(function, items))
    return {name: statistics.median(values) for name, values in timings.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=40, help="positions per game (default 40)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.positions < 1 or args.rounds < 1:
        parser.error("--positions and --rounds must be at least 1")
    for game in ("board", "card"):
        t = measure(game, args.positions, args.rounds, args.seed)
        print(f"{game}, 4 players, {args.positions} positions, median of {args.rounds} rounds")
        print(
            f"  engine.copy {t['engine.copy'] * 1e6:.1f} us; copy.deepcopy {t['copy.deepcopy'] * 1e6:.1f} us "
            f"({t['copy.deepcopy'] / t['engine.copy']:.1f} x); from_json(to_json) "
            f"{t['from_json(to_json)'] * 1e6:.1f} us ({t['from_json(to_json)'] / t['engine.copy']:.1f} x)"
        )
        print(
            f"  engine.determinize {t['engine.determinize'] * 1e6:.1f} us "
            f"({t['engine.determinize'] / t['engine.copy']:.1f} x a copy)"
        )
        print(
            f"  search decision {t['search decision'] * 1e3:.2f} ms; greedy decision "
            f"{t['greedy decision'] * 1e3:.3f} ms ({t['search decision'] / t['greedy decision']:.0f} x)"
        )


if __name__ == "__main__":
    main()
