"""The learning loop, at its smallest: a linear softmax policy over the observation, trained by REINFORCE against
engine bots in the one-seat environment, with numpy alone (docs/gym.md). It learns little in a few hundred
episodes; it shows where a real learner's pieces go.

    python -m envs.examples.reinforce --game card --episodes 300
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from envs.actions import action_count
from envs.observations import SIZES
from envs.single import SorrySeatEnv


@dataclass
class Report:
    episodes: int
    wins: int
    first_half_reward: float
    second_half_reward: float
    weight_change: float


def softmax_choice(
    weights: NDArray[np.float64],
    observation: NDArray[np.float32],
    mask: NDArray[np.int8],
    rng: np.random.Generator,
) -> tuple[int, NDArray[np.float64]]:
    """An index drawn from the policy over the legal indices only, and the gradient of its log-probability."""
    legal = np.flatnonzero(mask)
    logits = weights[legal] @ observation
    probabilities = np.exp(logits - logits.max())
    probabilities /= probabilities.sum()
    pick = rng.choice(len(legal), p=probabilities)
    gradient = np.zeros_like(weights)
    gradient[legal] = -probabilities[:, None] * observation  # d log p / d w, for every legal row
    gradient[legal[pick]] += observation
    return int(legal[pick]), gradient


def train(game: str = "card", episodes: int = 300, seed: int = 0, rate: float = 0.01) -> Report:
    """Play ``episodes`` games as seat 0 against random bots, updating the policy after each from its reward."""
    env = SorrySeatEnv(game, {"players": 2}, seat=0, opponents=("random",))
    rng = np.random.default_rng(seed)
    shape = (action_count(game), SIZES[game])
    weights = np.zeros(shape)
    baseline, rewards = 0.0, []
    for episode in range(episodes):
        observation, _ = env.reset(seed=seed + episode)
        gradients = []
        done, reward = False, 0.0
        while not done:
            action, gradient = softmax_choice(weights, observation["observation"], observation["action_mask"], rng)
            gradients.append(gradient)
            observation, step_reward, terminated, truncated, _ = env.step(action)
            reward, done = float(step_reward), terminated or truncated
        advantage = reward - baseline  # REINFORCE with a running mean of the rewards as baseline
        baseline += 0.05 * (reward - baseline)
        weights += rate * advantage * np.sum(gradients, axis=0)
        rewards.append(reward)
    half = max(1, episodes // 2)
    return Report(
        episodes=episodes,
        wins=sum(reward > 0 for reward in rewards),
        first_half_reward=float(np.mean(rewards[:half])),
        second_half_reward=float(np.mean(rewards[half:] or rewards)),
        weight_change=float(np.abs(weights).sum()),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=("board", "card"), default="card")
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.episodes < 1:
        parser.error("--episodes must be at least 1")
    report = train(args.game, args.episodes, args.seed)
    print(
        f"{report.episodes} episodes, {report.wins} won; mean reward {report.first_half_reward:+.2f} in the "
        f"first half, {report.second_half_reward:+.2f} in the second"
    )


if __name__ == "__main__":
    main()
