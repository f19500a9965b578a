"""The PettingZoo environment: PettingZoo's own API test for every game and ruleset, whole episodes with their
rewards, masks equal to the engine's legal actions, and observations that hold no hidden card."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test

import engine
from envs.actions import ACTION_IDS, index_of
from envs.aec import SorryEnv
from envs.seats import observe
from tests.envs.variants import VARIANTS


@pytest.mark.parametrize(("game", "settings"), VARIANTS)
def test_pettingzoos_api_test_passes(game: str, settings: dict[str, Any]) -> None:
    api_test(SorryEnv(game, settings, render_mode="ansi"), num_cycles=40)


def play_episode(env: SorryEnv, seed: int) -> tuple[int, dict[str, float]]:
    """Play a whole game choosing at random among the masked-in indices; its steps and each agent's return."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        returns[agent] += float(reward)
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        steps += 1
    return steps, returns


@pytest.mark.parametrize(("game", "settings"), VARIANTS)
def test_an_episode_ends_with_the_engines_ranking_as_rewards(game: str, settings: dict[str, Any]) -> None:
    env = SorryEnv(game, settings)
    steps, returns = play_episode(env, seed=5)
    result = engine.result(env.state)
    assert result is not None and result.reason != "turn_cap"
    assert steps == env.state.ply and not env.agents
    assert returns == {f"player_{seat}": 1.0 if rank == 1 else -1.0 for seat, rank in enumerate(result.ranks)}
    if settings.get("variant") == "team":
        assert sorted(returns.values()) == [-1.0, -1.0, 1.0, 1.0]


def test_the_turn_cap_truncates() -> None:
    env = SorryEnv("board", {"players": 2, "turn_cap": 20})
    env.reset(seed=1)
    while not env.truncations[env.agent_selection]:
        observation, *_ = env.last()
        env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert engine.result(env.state).reason == "turn_cap"  # type: ignore[union-attr]
    assert all(env.truncations.values()) and not any(env.terminations.values())


def test_a_game_over_before_its_first_decision_ends_the_episode_at_reset() -> None:
    """Seed 1's first cards move no pawn: the turn cap of 3 is reached with nobody asked."""
    env = SorryEnv("board", {"players": 2, "turn_cap": 3})
    env.reset(seed=1)
    assert engine.is_over(env.state) and env.state.ply == 0
    assert all(env.truncations.values())
    assert sorted(env.last()[1] for _agent in env.agent_iter(1)) in ([1.0], [-1.0])
    for _agent in env.agent_iter():
        env.step(None)
    assert not env.agents


def test_a_seed_plays_the_engines_game_of_that_seed() -> None:
    env = SorryEnv("card", {"players": 3})
    env.reset(seed=42)
    assert engine.to_json(env.state) == engine.to_json(engine.new_game("card", {"players": 3}, 42))


@pytest.mark.parametrize(("game", "settings"), VARIANTS)
def test_the_mask_is_the_engines_legal_actions(game: str, settings: dict[str, Any]) -> None:
    env = SorryEnv(game, settings)
    env.reset(seed=11)
    rng = random.Random(11)
    table = ACTION_IDS[game]
    for _ in range(150):
        if not env.agents or env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        seat = env.seat_of[env.agent_selection]
        legal = engine.legal_actions(env.state, seat)
        mask = env.observe(env.agent_selection)["action_mask"]
        assert set(np.flatnonzero(mask)) == {index_of(game, action) for action in legal}
        for other in env.possible_agents:  # nobody else may act
            if other != env.agent_selection:
                assert not env.observe(other)["action_mask"].any()
        for index in np.flatnonzero(mask):  # each index plays a legal action: its table id where that is legal
            played = env.action_id(int(index))
            assert played in {action.id for action in legal}
            assert table[index] == played or table[index] not in {action.id for action in legal}
        env.step(int(rng.choice(list(np.flatnonzero(mask)))))


def test_a_masked_out_action_is_refused_with_the_legal_ones() -> None:
    env = SorryEnv("board")
    env.reset(seed=3)
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="not legal for player_0 now; legal: "):
        env.step(illegal)
    with pytest.raises(ValueError, match="must act"):
        env.step(None)


def test_the_observation_never_shows_another_seats_hand() -> None:
    """Two card game states that differ only in seat 1's hand (swapped with the draw pile) look the same to seat 0,
    and different to seat 1."""
    state = engine.new_game("card", {"players": 3}, 8)
    data = engine.to_json(state)
    hand, pile = data["hands"][1], data["draw_pile"]
    swap = next((i, j) for i, card in enumerate(hand) for j, other in enumerate(pile) if other != card)
    hand[swap[0]], pile[swap[1]] = pile[swap[1]], hand[swap[0]]
    other = engine.from_json(data)
    assert engine.to_json(other) != engine.to_json(state)
    for seat in (0, 2):
        mine, theirs = observe(state, seat), observe(other, seat)
        assert np.array_equal(mine["observation"], theirs["observation"])
        assert np.array_equal(mine["action_mask"], theirs["action_mask"])
    assert not np.array_equal(observe(state, 1)["observation"], observe(other, 1)["observation"])


def test_render_shows_the_public_table() -> None:
    env = SorryEnv("card", {"players": 2}, render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert text is not None and text.startswith("card game, turn 1") and "seat" in text
    hand = engine.view(env.state, 0)["hand"]
    assert "hand" not in text and str(hand) not in text
    with pytest.raises(ValueError, match="render_mode"):
        SorryEnv("card", render_mode="rgb_array")
