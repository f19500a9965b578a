"""Helpers of the ``sorry-arena simulate`` tests: the installed command run as a bot author runs it (a subprocess in
a folder of the test's own, outside the repository), bot files written there, and the replay file read back and
checked with :func:`engine.records.check`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from engine.records import check, read_jsonl

ROOT = Path(__file__).resolve().parents[2]
COMMAND = str(Path(sys.executable).with_name("sorry-arena"))
PATIENCE_S = 300.0
"""The longest a run may take: only reached when something is wrong (or the machine crawls)."""


def write_bot(folder: Path, name: str, source: str) -> Path:
    """``folder/name`` holding ``source`` (dedented); returns its path."""
    path = folder / name
    path.write_text(textwrap.dedent(source))
    return path


def simulate(folder: Path, *flags: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``sorry-arena simulate FLAGS`` run in ``folder``."""
    assert not folder.resolve().is_relative_to(ROOT), "the test runs outside the repository"
    return subprocess.run(
        [COMMAND, "simulate", *flags],
        cwd=folder,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=PATIENCE_S,
        check=False,
    )


def report(folder: Path, *flags: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """The ``--json`` report of a run that must succeed."""
    completed = simulate(folder, *flags, "--json", env=env)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.count("\n") == 1, completed.stdout
    parsed: dict[str, Any] = json.loads(completed.stdout)
    return parsed


def replays(path: Path) -> list[dict[str, Any]]:
    """The records of a replay file, each asserted to replay (``engine.records.check``) and to end its line."""
    text = path.read_text()
    assert text == "" or text.endswith("\n"), "the file ends with a complete line"
    records = list(read_jsonl(text.splitlines()))
    for record in records:
        assert check(record) == [], (record["game_id"], check(record))
    return records


def usage_error(completed: subprocess.CompletedProcess[str]) -> str:
    """The message of a usage error (exit 2, the usage line, no traceback)."""
    assert completed.returncode == 2, (completed.returncode, completed.stdout, completed.stderr)
    assert "usage: sorry-arena simulate" in completed.stderr, completed.stderr
    assert "Traceback" not in completed.stderr, completed.stderr
    return completed.stderr
