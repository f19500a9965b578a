"""``engine.apply(..., events=False)`` (the rules without building events) reaches exactly the states ``engine.apply``
reaches with its events: the same
seeded games of every board variant, edition and player count and of the card game (the golden corpus's cases),
played side by side by a random and a greedy bot, compared whole (``engine.to_json``) after every action."""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from engine.bots import greedy_bot
from engine.games import RULESETS
from tests.engine.golden import cases

SEEDS = 10
"""Seeds per (settings, bot): 18 settings x 2 bots x 10 = 360 games, each compared at every ply."""

CASES = [
    pytest.param(
        game, settings, id=f"{game}:" + ",".join(f"{key}={value}" for key, value in sorted(settings.items()))
    )
    for game, settings, _ in cases()
]


def choose(bot: str, state: engine.State, seat: int, rng: random.Random) -> str:
    actions = engine.legal_actions(state, seat)
    if bot == "greedy" and len(actions) > 1:
        return greedy_bot(engine.view(state, seat), actions, rng)
    return rng.choice(actions).id


@pytest.mark.parametrize(("game", "settings"), CASES)
def test_the_silent_path_reaches_the_states_apply_reaches(game: str, settings: dict[str, Any]) -> None:
    plies = 0
    for bot in ("random", "greedy"):
        for index in range(SEEDS):
            seed = 7_919 * index + 31 * len(bot)
            loud = engine.new_game(game, settings, seed)
            silent = engine.new_game(game, settings, seed)
            rng = random.Random(seed)
            while (asked := engine.decision(loud)) is not None:
                assert engine.decision(silent) == asked
                action_id = choose(bot, loud, asked.seat, rng)
                events = engine.apply(loud, action_id, asked.seat)
                assert events and events[0]["action"] in (action_id, "tiebreak")
                engine.apply(silent, action_id, asked.seat, events=False)
                assert engine.to_json(silent) == engine.to_json(loud), f"{bot} seed {seed} ply {loud.ply}"
                plies += 1
            assert engine.decision(silent) is None
            assert engine.result(silent) == engine.result(loud)
    assert plies > 2 * SEEDS * 20  # whole games, not just their openings


@pytest.mark.parametrize(("game", "settings"), CASES)
def test_a_new_game_without_its_events_is_the_game_dealt_with_them(game: str, settings: dict[str, Any]) -> None:
    ruleset = RULESETS[game]
    for seed in range(SEEDS):
        events: list[engine.Event] = []
        dealt = ruleset.setup(ruleset.normalize_settings(settings), seed, events)
        assert events == engine.opening_events(dealt)
        assert engine.to_json(engine.new_game(game, settings, seed)) == engine.to_json(dealt)


@pytest.mark.parametrize("game", engine.GAMES)
def test_the_silent_path_refuses_what_apply_refuses_and_leaves_the_state_unchanged(game: str) -> None:
    state = engine.new_game(game, {"players": 4}, seed=3)
    before = engine.to_json(state)
    asked = engine.decision(state)
    assert asked is not None
    legal = engine.legal_actions(state, asked.seat)[0].id
    for action_id, seat in (("no-such-action", asked.seat), (legal, (asked.seat + 1) % 4)):
        with pytest.raises(engine.IllegalActionError) as silent:
            engine.apply(state, action_id, seat, events=False)
        with pytest.raises(engine.IllegalActionError) as loud:
            engine.apply(state, action_id, seat)
        assert str(silent.value) == str(loud.value)
        assert engine.to_json(state) == before


def test_replay_reaches_the_state_the_game_reached() -> None:
    state = engine.new_game("board", {"variant": "points", "players": 3}, seed=5)
    rng = random.Random(5)
    played = []
    while (asked := engine.decision(state)) is not None:
        played.append(rng.choice(engine.legal_actions(state, asked.seat)).id)
        engine.apply(state, played[-1], asked.seat)
    replayed = engine.replay("board", {"variant": "points", "players": 3}, 5, played)
    assert engine.to_json(replayed) == engine.to_json(state)
