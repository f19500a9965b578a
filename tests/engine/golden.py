"""The golden corpus: seeded games of every board variant and edition (2-4 players) and of the card game, played by a
random and a greedy bot, each traced in full and kept as a hash (``tests/engine/data/golden.json``), with a few
whole traces (``tests/engine/data/golden_traces.jsonl.gz``) to show what changed when a hash does not match.

A game's trace is one JSON line for its opening events, then per decision the seat and kind asked, every legal
action (id and description, in order), the action chosen and the events of its application, then the result and
the final state (``engine.to_json``). The greedy bot's games trace the seat's view at every decision too. A
faster engine must reproduce every trace exactly (``tests/engine/test_golden.py``). Rewrite the files only for a
deliberate rule change (check it against docs/rules.md first)::

    .venv/bin/python -m tests.engine.golden --write
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import engine
from engine.bots import greedy_bot

DATA = Path(__file__).resolve().parent / "data"
HASHES = DATA / "golden.json"
TRACES = DATA / "golden_traces.jsonl.gz"
BOTS = ("random", "greedy")
GAMES_PER_CASE = 11
"""Seeds per (settings, bot): 14 board cases x 2 bots x 11 = 308 board games."""
CARD_GAMES_PER_CASE = 4


def cases() -> list[tuple[str, dict[str, Any], int]]:
    """(game, settings, games) for every board variant, edition and player count, and a few card settings."""
    found: list[tuple[str, dict[str, Any], int]] = []
    for variant in ("standard", "team", "points"):
        for edition in ("1992", "1972"):
            for players in (4,) if variant == "team" else (2, 3, 4):
                settings = {"variant": variant, "edition": edition, "players": players}
                found.append(("board", settings, GAMES_PER_CASE))
    for players in (2, 3, 4):
        found.append(("card", {"players": players}, CARD_GAMES_PER_CASE))
    found.append(("card", {"players": 3, "longer_game": True}, CARD_GAMES_PER_CASE))
    return found


def games() -> Iterator[tuple[str, str, dict[str, Any], int, str]]:
    """(name, game, settings, seed, bot) of every game of the corpus, in a fixed order."""
    for game, settings, count in cases():
        for bot in BOTS:
            for index in range(count):
                seed = 1_000 * index + 7 * settings.get("players", 0) + 13 * len(json.dumps(settings))
                label = ",".join(f"{key}={value}" for key, value in sorted(settings.items()))
                yield f"{game}:{label}:{bot}:{seed}", game, settings, seed, bot


def trace(game: str, settings: dict[str, Any], seed: int, bot: str) -> Iterator[str]:
    """The lines of one game's trace (see the module docstring)."""
    state = engine.new_game(game, settings, seed)
    rng = random.Random(seed)
    yield json.dumps({"opening": engine.opening_events(state)}, sort_keys=True)
    while (asked := engine.decision(state)) is not None:
        actions = engine.legal_actions(state, asked.seat)
        line: dict[str, Any] = {"seat": asked.seat, "kind": asked.kind, "actions": [a.to_json() for a in actions]}
        if bot == "greedy":
            seen = engine.view(state, asked.seat)
            line["view"] = seen
            chosen = greedy_bot(seen, actions, rng)
        else:
            chosen = rng.choice(actions).id
        line["chosen"] = chosen
        line["events"] = engine.apply(state, chosen, asked.seat)
        yield json.dumps(line, sort_keys=True)
    result = engine.result(state)
    assert result is not None
    yield json.dumps({"result": result.to_json(), "state": engine.to_json(state)}, sort_keys=True)


def digest(lines: Iterator[str]) -> str:
    hasher = hashlib.sha256()
    for line in lines:
        hasher.update(line.encode())
        hasher.update(b"\n")
    return hasher.hexdigest()


def write() -> None:
    DATA.mkdir(exist_ok=True)
    hashes: dict[str, str] = {}
    with gzip.open(TRACES, "wt", compresslevel=9) as out:
        for name, game, settings, seed, bot in games():
            lines = list(trace(game, settings, seed, bot))
            hashes[name] = digest(iter(lines))
            if game == "board" and seed < 1_000:  # the first seed of each board case and bot, in full
                out.write(json.dumps({"game": name, "trace": lines}) + "\n")
    HASHES.write_text(json.dumps(hashes, indent=0, sort_keys=False) + "\n")
    print(f"{len(hashes)} games written to {HASHES.name} and {TRACES.name}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the corpus from the engine as it is now")
    if parser.parse_args().write:
        write()
