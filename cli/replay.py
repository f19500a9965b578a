"""``sorry-arena replay FILE [FILE...]``: check game records (JSON lines) against the engine.

Each record is replayed by ``engine.records.check``; one line per game (``game 17: ok, 143 actions`` or its
problems, each naming the ply), then a summary. Exit status 0 when every record holds, 1 when any does not, 2 when a
file cannot be read (the line that is not a record is named). Its parser: ``cli/parsers/replay.py``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cli.recordfiles import label, records_of
from engine.records import RecordError, check


def name(record: dict[str, Any], line: int) -> str:
    game_id = record.get("game_id")
    return f"game {game_id}" if isinstance(game_id, int) and not isinstance(game_id, bool) else f"line {line}"


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.files.count("-") > 1:
        parser.error("standard input (-) can be read once")
    several = len(args.files) > 1
    good = bad = 0
    for path in args.files:
        prefix = f"{label(path)}: " if several else ""
        try:
            for line, record in records_of(path):
                problems = check(record)
                if problems:
                    bad += 1
                    print(f"{prefix}{name(record, line)}: {'; '.join(problems)}")
                else:
                    good += 1
                    print(f"{prefix}{name(record, line)}: ok, {len(record['actions'])} actions")
        except RecordError as error:
            print(f"sorry-arena replay: {error}", file=sys.stderr)
            return 2
    games = good + bad
    print(f"{games} game{'s' if games != 1 else ''}: {good} ok, {bad} with problems")
    return 1 if bad else 0
