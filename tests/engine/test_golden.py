"""Every game of the golden corpus plays exactly as recorded: the legal action ids in order with their descriptions,
the views, the events, the result and the final state (``tests/engine/golden.py`` says what is traced and how to
rewrite the corpus after a deliberate rule change)."""

from __future__ import annotations

import gzip
import json

import pytest

from tests.engine.golden import HASHES, TRACES, digest, games, trace

EXPECTED: dict[str, str] = json.loads(HASHES.read_text())
GAMES = list(games())


def test_the_corpus_covers_every_game() -> None:
    assert [name for name, *_ in GAMES] == list(EXPECTED)
    assert len([name for name in EXPECTED if name.startswith("board:")]) >= 300


@pytest.mark.parametrize("case", ["standard", "team", "points", "card"])
def test_games_play_as_recorded(case: str) -> None:
    changed = []
    for name, game, settings, seed, bot in GAMES:
        if (settings.get("variant") if game == "board" else "card") != case:
            continue
        if digest(trace(game, settings, seed, bot)) != EXPECTED[name]:
            changed.append(name)
    assert changed == [], f"{len(changed)} games changed; first: {first_difference(changed)}"


def first_difference(changed: list[str]) -> str:
    """The first line that differs, for a changed game whose whole trace is stored."""
    with gzip.open(TRACES, "rt") as stored:
        full = {entry["game"]: entry["trace"] for entry in map(json.loads, stored)}
    for name in changed:
        if name in full:
            _, game, settings, seed, bot = next(entry for entry in GAMES if entry[0] == name)
            for index, (now, then) in enumerate(zip(trace(game, settings, seed, bot), full[name], strict=False)):
                if now != then:
                    return f"{name}, line {index}:\n  now:  {now[:600]}\n  then: {then[:600]}"
    return changed[0]


def test_the_stored_traces_match_their_hashes() -> None:
    with gzip.open(TRACES, "rt") as stored:
        entries = [json.loads(line) for line in stored]
    assert len(entries) >= 28
    for entry in entries:
        assert digest(iter(entry["trace"])) == EXPECTED[entry["game"]], entry["game"]
