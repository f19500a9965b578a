"""A killed test run leaves nothing running (tests/runs.py): a pytest that started a private redis-server, a bot
process, a process in a session of its own, a private PostgreSQL and a database (tests/killed_run.py) is killed;
after SIGKILL the next run's sweep ends all of it, after SIGTERM the run itself does (its fixtures unwind, with
xdist's workers too). And the sweep never touches a run still going, nor a process that is no test run's."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from tests import runs
from tests.databases import ADMIN_URL, postgres_database
from tests.killed_run import REPORT

ROOT = Path(__file__).resolve().parents[1]
PATIENCE_S = 180.0
"""The longest wait for the killed run to start everything, or to end: only reached when something is wrong."""


def start_run(report: Path, *flags: str) -> subprocess.Popen[bytes]:
    """``pytest tests/killed_run.py`` in a process of its own, until it has started everything (its report)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *flags, "tests/killed_run.py"],
        cwd=ROOT,
        env={**os.environ, REPORT: str(report)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        preexec_fn=runs.die_with_parent,
    )
    deadline = time.monotonic() + PATIENCE_S
    while not report.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            output = process.communicate()[0].decode(errors="replace")
            pytest.fail(f"the run did not start everything (exit code {process.returncode}):\n{output}")
        time.sleep(0.1)
    return process


def databases() -> set[str]:
    engine = create_engine(ADMIN_URL)
    try:
        with engine.connect() as connection:
            return set(connection.execute(text("SELECT datname FROM pg_database")).scalars())
    finally:
        engine.dispose()


def left_of(started: dict[str, Any], within: float) -> list[str]:
    """What the killed run started that is still there ``within`` seconds from now at most (none: at once)."""
    deadline = time.monotonic() + within
    while True:
        left = [f"process {pid}" for pid in started["pids"] if runs.started(pid) is not None]
        left += [f"database {name}" for name in set(started["databases"]) & databases()]
        left += [f"folder {folder}" for folder in started["folders"] if Path(folder).exists()]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


@pytest.fixture
def report(tmp_path: Path) -> Path:
    for _ in postgres_database():  # the machine's PostgreSQL answers (else: skipped, or failed in CI)
        pass
    return tmp_path / "started.json"


def test_a_run_killed_with_sigkill_is_cleaned_up_by_the_next_runs_sweep(report: Path) -> None:
    process = start_run(report)
    started = json.loads(report.read_text())
    process.kill()
    process.communicate()
    assert len(left_of(started, 0)) > 3, "SIGKILL left nothing to sweep: the test proves nothing"
    ended = runs.sweep(ADMIN_URL)  # (or a run starting meanwhile on another xdist worker, which sweeps first)
    assert left_of(started, 30) == [], ended


@pytest.mark.parametrize("flags", [[], ["-n", "1"]], ids=["alone", "xdist"])
def test_a_run_ended_with_sigterm_stops_everything_itself(report: Path, flags: list[str]) -> None:
    process = start_run(report, *flags)
    started = json.loads(report.read_text())
    process.send_signal(signal.SIGTERM)
    output = process.communicate(timeout=PATIENCE_S)[0].decode(errors="replace")
    assert process.returncode == pytest.ExitCode.INTERRUPTED, output
    assert left_of(started, 30) == [], output


def test_the_sweep_spares_a_run_still_going_and_what_is_no_runs(tmp_path: Path) -> None:
    """A process carrying the name of this run (alive), one carrying none, and one carrying a name whose first
    process is gone: only the last is ended."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    dead_name = f"{dead.pid}-{runs.started(os.getpid())}"  # a pid no longer running
    sleep = [sys.executable, "-c", "import time; time.sleep(600)"]
    ours = subprocess.Popen(sleep, preexec_fn=runs.die_with_parent)
    nobodys = subprocess.Popen(sleep, env={k: v for k, v in os.environ.items() if k != runs.VARIABLE})
    orphan = subprocess.Popen(sleep, env={**os.environ, runs.VARIABLE: dead_name})
    try:
        runs.sweep(None)
        assert orphan.wait(30) == -signal.SIGKILL
        assert ours.poll() is None and nobodys.poll() is None
    finally:
        for process in (ours, nobodys, orphan):
            process.kill()
            process.wait()
