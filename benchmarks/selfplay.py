"""Self-play data's speed: decisions per second written by ``sorry-arena selfplay``'s own functions, to JSON lines
and to Parquet, for each game and engine bot, against the goal of 10,000 decisions/s.

    .venv/bin/python -m benchmarks.selfplay [--games 200] [--rounds 3] [--seed 1]

Each round plays ``--games`` 4-player games per game, bot and format (:func:`envs.selfplay.selfplay` written by
:func:`envs.datafiles.write` to a scratch file) and times them by the process's CPU time, which other processes
of a loaded machine do not add to, and by the wall clock; it prints the median of the rounds: decisions/s by CPU
time and by the wall clock, and the CPU time per decision. The load average is printed before and after. Parquet
is left out, with a note, when pyarrow is not installed (the ``parquet`` extra).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from envs.datafiles import MissingExtra, pyarrow_modules, write
from envs.selfplay import selfplay

GOAL = 10_000


def formats() -> list[str]:
    try:
        pyarrow_modules()
    except MissingExtra as error:
        print(f"(no Parquet: {error})")
        return [".jsonl"]
    return [".jsonl", ".parquet"]


def measure(
    game: str, bots: list[str], suffix: str, games: int, seed: int, folder: str
) -> tuple[float, float, int]:
    """One run: (CPU seconds, wall seconds, rows)."""
    path = os.path.join(folder, f"selfplay{suffix}")
    cpu, wall = time.process_time(), time.perf_counter()
    rows = write(path, selfplay(game, {"players": 4}, games, seed, bots))
    return time.process_time() - cpu, time.perf_counter() - wall, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per game, bot and format (default 200)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, medians printed (default 3)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.games < 1 or args.rounds < 1:
        parser.error("--games and --rounds must be at least 1")
    print(f"load average before: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")
    suffixes = formats()
    with tempfile.TemporaryDirectory() as folder:
        for game in ("board", "card"):
            for bots in (["random"], ["greedy"]):
                for suffix in suffixes:
                    runs = [measure(game, bots, suffix, args.games, args.seed, folder) for _ in range(args.rounds)]
                    rows = runs[0][2]
                    cpu = statistics.median(run[0] for run in runs)
                    wall = statistics.median(run[1] for run in runs)
                    rate = rows / cpu
                    print(
                        f"{game}, 4 players, {bots[0]} bots, {suffix[1:]}: {rows} decisions a round; "
                        f"{rate:,.0f} decisions per CPU second ({cpu / rows * 1e6:.1f} us each), "
                        f"{rows / wall:,.0f} by the wall clock; goal {GOAL:,}: {'met' if rate >= GOAL else 'NOT met'}"
                    )
    print(f"load average after: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")


if __name__ == "__main__":
    main()
