"""``benchmarks/internals.py``, end to end with tiny sizes: each sub-command prints the CPU per unit of work of the
internal and the plain variant with the gain and the load average (here this checkout stands for the other one);
the database ones on SQLite and on a PostgreSQL database of their own, dropped afterwards; the usage errors.
Speed is measured, never asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks import internals
from tests.benchmarks.test_tournament import bench_databases
from tests.databases import ADMIN_URL, postgres_database

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "internals.py"


def run(*arguments: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *arguments, "--json"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def server() -> str:
    for _ in postgres_database():  # the server answers (else: skipped, or failed in CI), nothing more
        pass
    return ADMIN_URL


def test_botcall_prints_the_cpu_per_call_of_both_variants() -> None:
    found = run("botcall", "--internal-root", str(ROOT), "--rounds", "1", "--seconds", "0.3", "--threads", "2")
    median = found["botcall"]["median"]
    assert median["plain_us_per_call"] > 0 and median["internal_us_per_call"] > 0
    assert median["internal_gain"] == round(median["plain_us_per_call"] / median["internal_us_per_call"], 3)
    assert median["load"] >= 0


def test_worker_prints_the_cpu_per_game_job_of_both_variants() -> None:
    found = run("worker", "--rounds", "1", "--jobs", "5", "--database-url", "")
    median = found["sqlite_worker"]["median"]
    assert median["plain_us_per_job"] >= 0 and median["internal_us_per_job"] >= 0 and "load" in median


@pytest.mark.parametrize("sub_command", ["database", "groupcommit"])
def test_the_database_ones_measure_sqlite_and_postgresql(sub_command: str) -> None:
    url = server()
    before = bench_databases()
    sizes = ["--internal-root", str(ROOT), "--games", "1"] if sub_command == "database" else ["--moves", "3"]
    found = run(sub_command, "--rounds", "1", "--database-url", url.rsplit("/", 1)[0], *sizes)
    if sub_command == "database":
        assert set(found) == {"postgresql_saves", "postgresql_pulls", "sqlite_saves", "sqlite_pulls"}
        for result in found.values():
            median = result["median"]
            assert median["plain_us_per_move"] > 0 and median["internal_us_per_move"] > 0
            assert median["internal_gain"] > 0 and median["load"] >= 0
    else:
        assert set(found) == {"postgresql", "sqlite"}
        for result in found.values():
            median = result["median"]
            assert median["group_us_per_move"] > 0 and median["alone_us_per_move"] > 0
            assert median["group_moves_per_s"] > 0 and median["alone_moves_per_s"] > 0
        assert found["postgresql"]["median"]["alone_server_us_per_move"] >= 0
    assert bench_databases() <= before  # its own database is gone


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["botcall", "--internal-root", str(ROOT / "docs")], "is no checkout of this project"),
        (["groupcommit", "--database-url", "sqlite:///x.db"], "--database-url names a PostgreSQL server"),
        (["worker", "--rounds", "0"], "--rounds must be at least 1"),
    ],
)
def test_usage_errors(arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        internals.main(arguments)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err
