"""Command-line start-up: CPU seconds of ``sorry-arena --help``, of each sub-command's ``--help`` and of a mistyped
command, whole processes, against the interpreter's own start-up, in interleaved rounds.

    .venv/bin/python benchmarks/startup.py [--rounds 7] [--compare-root OTHER_CHECKOUT] [--json]

Each round runs every command once, in turn (in the reverse order every other round, so that a drift of the
machine's load falls on all of them alike), each in a fresh process of this interpreter: ``python -c pass`` (the
floor: the interpreter and its site packages, below which no command can start), then ``python -m cli.main
--help``, ``python -m cli.main COMMAND --help`` for every command, and ``python -m cli.main simulat`` (a mistyped
command: a usage error), run in the checkout with it first on ``sys.path``. A process's CPU time (user + system)
is read with ``getrusage(RUSAGE_CHILDREN)`` around it: the time it ran on a core, which the machine's other work
does not add to (its wall time would). The figures are the medians of the rounds, with their min and max.

With ``--compare-root``, each round also runs each command from another checkout of the project with the same
interpreter (another version of the command line, e.g. ``git archive <commit> | tar -x -C DIR``), next to this
checkout's: an A/B of two versions, the ratio of each pair taken in the same round and its median printed.

The machine's load average is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

from cli.main import COMMANDS

ROOT = Path(__file__).resolve().parents[1]


def commands() -> list[list[str]]:
    """The command lines measured (after ``python -m cli.main``): ``--help``, each command's, a mistyped one."""
    return [["--help"], *([name, "--help"] for name in COMMANDS), ["simulat"]]


def cpu_seconds(argv: list[str], root: Path) -> float:
    """The CPU seconds (user + system) of one process running ``argv`` in ``root``, with ``root`` on its path."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    for variable in ("DATABASE_URL", "REDIS_URL", "SORRY_ARENA_API", "SORRY_ARENA_TOKEN"):
        env.pop(variable, None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 2) or "Traceback" in done.stderr:
        raise SystemExit(f"{' '.join(argv)} in {root} failed ({done.returncode}): {done.stderr.strip()}")
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def measure(rounds: int, compare_root: Path | None) -> dict[str, dict[str, list[float]]]:
    """Every command's CPU seconds in each round: ``{"python -c pass": {"this": [...]}, "--help": {"this": [...],
    "other": [...]}, ...}``."""
    lines = commands()
    roots = {"this": ROOT} if compare_root is None else {"this": ROOT, "other": compare_root}
    runs: list[tuple[str, str, list[str], Path]] = [
        ("python -c pass", "this", [sys.executable, "-c", "pass"], ROOT)
    ]
    for line in lines:
        for side, root in roots.items():
            runs.append(("sorry-arena " + " ".join(line), side, [sys.executable, "-m", "cli.main", *line], root))
    found: dict[str, dict[str, list[float]]] = {}
    for number in range(rounds):
        for name, side, argv, root in runs if number % 2 == 0 else reversed(runs):
            found.setdefault(name, {}).setdefault(side, []).append(cpu_seconds(argv, root))
    return found


def summary(found: dict[str, dict[str, list[float]]]) -> dict[str, dict[str, float]]:
    """Each command's median, min and max CPU seconds, and with another checkout the median of the rounds' ratios
    (this checkout's over the other's)."""
    shown: dict[str, dict[str, float]] = {}
    for name, sides in found.items():
        this = sides["this"]
        row = {"median_s": statistics.median(this), "min_s": min(this), "max_s": max(this)}
        if "other" in sides:
            other = sides["other"]
            row["other_median_s"] = statistics.median(other)
            row["ratio"] = statistics.median(a / b for a, b in zip(this, other, strict=True) if b > 0)
        shown[name] = row
    return shown


def load() -> str:
    return "load average " + " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (default 7)")
    parser.add_argument(
        "--compare-root",
        type=Path,
        default=None,
        help="another checkout whose command line runs beside this one's",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.compare_root is not None and not (args.compare_root / "cli" / "main.py").is_file():
        parser.error(f"--compare-root {args.compare_root} is no checkout of this project (no cli/main.py)")
    before = load()
    rows = summary(measure(args.rounds, args.compare_root))
    after = load()
    if args.json:
        print(json.dumps({"rounds": args.rounds, "load_before": before, "load_after": after, "commands": rows}))
        return
    print(f"{before} (before), {after} (after); {args.rounds} interleaved rounds, CPU seconds per process")
    other = f"  {args.compare_root}: median, this/that" if args.compare_root is not None else ""
    print(f"{'command':<30} median (min-max){other}")
    for name, row in rows.items():
        line = f"{name:<30} {row['median_s']:.3f} ({row['min_s']:.3f}-{row['max_s']:.3f})"
        if "ratio" in row:
            line += f"  {row['other_median_s']:.3f}, {row['ratio']:.2f}x"
        print(line)


if __name__ == "__main__":
    main()
