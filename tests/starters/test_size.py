"""The starters stay small and plain: every file under 120 lines (comments and blank lines counted), the Go
formatted as ``gofmt`` formats it."""

from __future__ import annotations

import subprocess

from tests.starters.starterkit import STARTERS, tool

LONGEST = 119


def test_every_starter_file_is_under_120_lines() -> None:
    files = [*STARTERS.glob("js/*.js"), *STARTERS.glob("go/*.go")]
    assert {path.name for path in files} >= {"bot.js", "main.go"}
    sizes = {path.relative_to(STARTERS).as_posix(): len(path.read_text().splitlines()) for path in files}
    assert all(size <= LONGEST for size in sizes.values()), sizes


def test_the_go_starter_is_gofmt_clean() -> None:
    listed = subprocess.run(
        [tool("gofmt"), "-l", "."], cwd=STARTERS / "go", capture_output=True, text=True, timeout=60
    )
    assert listed.returncode == 0 and listed.stdout == "", listed.stdout + listed.stderr
