"""docs/gym.md stays true: its learning loop runs (episodes played, the policy's weights moved by the rewards), and
its observation layouts and sizes are the code's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from envs.examples.reinforce import train

ROOT = Path(__file__).resolve().parents[2]


def test_the_example_trains_a_policy() -> None:
    report = train("card", episodes=40, seed=3)
    assert report.episodes == 40 and 0 <= report.wins <= 40
    assert report.weight_change > 0  # the rewards moved the weights
    assert -1.0 <= report.first_half_reward <= 1.0


def test_the_documented_command_runs() -> None:
    docs = (ROOT / "docs" / "gym.md").read_text(encoding="utf-8")
    assert "python -m envs.examples.reinforce" in docs
    completed = subprocess.run(
        [sys.executable, "-m", "envs.examples.reinforce", "--game", "board", "--episodes", "3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.startswith("3 episodes, ")


def test_the_documented_layouts_and_sizes_are_the_codes() -> None:
    from envs.actions import BOARD_IDS, CARD_IDS
    from envs.observations import BOARD_LAYOUT, BOARD_SIZE, CARD_LAYOUT, CARD_SIZE

    docs = (ROOT / "docs" / "gym.md").read_text(encoding="utf-8")
    for layout in (BOARD_LAYOUT, CARD_LAYOUT):
        at = 0
        for what, size in layout:
            span = f"{at}–{at + size - 1}" if size > 1 else f"{at}"
            assert f"| {span} | {size} | {what} |" in docs, what
            at += size
    for count in (BOARD_SIZE, CARD_SIZE, len(BOARD_IDS), len(CARD_IDS)):
        assert f"{count:,} " in docs or f"{count} " in docs
