"""The Gymnasium one-seat environment: Gymnasium's checker, a whole episode against engine bots, the fallback for
a masked-out action, and bad arguments."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import engine
from envs.single import SorrySeatEnv
from tests.envs.variants import VARIANTS


@pytest.mark.parametrize(("game", "settings"), VARIANTS)
def test_gymnasiums_checker_passes(game: str, settings: dict[str, Any]) -> None:
    check_env(SorrySeatEnv(game, settings, seat=1, opponents=("greedy", "random")), skip_render_check=True)


@pytest.mark.parametrize("game", ["board", "card"])
def test_an_episode_against_engine_bots(game: str) -> None:
    env = SorrySeatEnv(game, {"players": 3}, seat=2, opponents=("greedy",), render_mode="ansi")
    observation, info = env.reset(seed=9)
    rng = np.random.default_rng(9)
    rewards: list[float] = []
    terminated = truncated = False
    while not (terminated or truncated):
        assert np.array_equal(observation["action_mask"], env.action_masks()) and env.action_masks().any()
        assert engine.decision(env.state).seat == 2  # type: ignore[union-attr]  # the learner is asked
        action = rng.choice(np.flatnonzero(observation["action_mask"]))
        observation, reward, terminated, truncated, info = env.step(action)
        rewards.append(float(reward))
        assert "illegal" not in info
    result = engine.result(env.state)
    assert result is not None and info["ranks"] == list(result.ranks)
    assert rewards[:-1] == [0.0] * (len(rewards) - 1)
    assert rewards[-1] == (1.0 if result.ranks[2] == 1 else -1.0)
    assert not env.action_masks().any()
    assert "over" in (env.render() or "")
    with pytest.raises(ValueError, match="reset"):
        env.step(0)


def test_a_masked_out_action_plays_the_games_fallback() -> None:
    env = SorrySeatEnv("board", {"players": 2}, seat=0)
    observation, _ = env.reset(seed=4)
    ply = env.state.ply
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    _, _, _, _, info = env.step(illegal)
    assert info["illegal"] is True and env.state.ply > ply


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"seat": 2}, "seat must be", id="seat"),
        pytest.param({"opponents": ("alphazero",)}, "opponents must name engine bots", id="bot"),
        pytest.param({"opponents": ()}, "opponents must name engine bots", id="no-bot"),
        pytest.param({"render_mode": "rgb_array"}, "render_mode", id="render"),
        pytest.param({"settings": {"players": 5}}, "players must be", id="settings"),
    ],
)
def test_bad_arguments_are_clear_errors(kwargs: dict[str, Any], message: str) -> None:
    kwargs.setdefault("settings", {"players": 2})
    with pytest.raises(ValueError, match=message):
        SorrySeatEnv("board", **kwargs)
