"""``benchmarks/fair_queue.py`` as it is run (a subprocess, ``--json``), on SQLite and PostgreSQL: B's small
tournament alone, behind A's big one, and behind it with the unfair window; the report's shape, every small
tournament played to its end with all its games, the big one of the fair run cancelled before its end. Speed is
measured, never asserted. At the size docs quote (4 games behind 60, 2 workers; minutes on a loaded machine: marked
slow), and a small twin on the same path (2 behind 40, 1 worker: the big one still big enough to be cut short); its
usage errors, in-process.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, func, select

from benchmarks import fair_queue
from store.models import Result, Tournament

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "fair_queue.py"


def run_benchmark(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


def check_a_run(database_url: str, redis_url: str, big: int, small: int, workers: int) -> None:
    ran = run_benchmark(
        *("--big", str(big), "--small", str(small), "--workers", str(workers), "--repeat", "1"),
        *("--unfair-timeout", "300", "--database-url", database_url, "--redis-url", redis_url, "--json"),
    )
    assert ran.returncode == 0, ran.stderr
    report = json.loads(ran.stdout)
    assert (report["big_games"], report["small_games"], report["workers"]) == (big, small, workers)
    assert report["environment"]["SORRY_ARENA_FEED_WINDOW"] == {"alone, behind": 8, "unfair": 1000}
    assert [run["kind"] for run in report["runs"]] == ["alone", "behind", "unfair"]
    for run in report["runs"]:
        assert run["seconds"] is not None and 0 <= run["first_game_after_s"] < run["seconds"], run
        assert run["load_average_1min"] >= 0
        assert (run["big_games_done"] is None) == (run["kind"] == "alone")
    assert report["timed_out"] == {"alone": False, "behind": False, "unfair": False}
    medians = report["median_seconds"]
    assert report["behind_vs_alone"] == round(medians["behind"] / medians["alone"], 3)
    assert report["goal"] == 2.0

    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            tournaments = connection.execute(select(Tournament.id, Tournament.name, Tournament.status)).all()
            results = dict(
                connection.execute(
                    select(Result.tournament_id, func.count(Result.id)).group_by(Result.tournament_id)
                ).all()
            )
    finally:
        engine.dispose()
    smalls = [(status, results.get(id_, 0)) for id_, name, status in tournaments if name.startswith("small")]
    bigs = [status for _, name, status in tournaments if name.startswith("big")]
    assert smalls == [("done", small)] * 3
    # fair: the small one ended long before the big one, cancelled then; unfair: it waited for all its games
    assert bigs[0] == "cancelled" and bigs[1] in ("cancelled", "done")


@pytest.mark.slow
def test_a_run_measures_the_small_tournament_alone_behind_and_unfairly_behind(
    database_url: str, redis_url: str
) -> None:
    check_a_run(database_url, redis_url, big=60, small=4, workers=2)


def test_a_small_run_measures_the_small_tournament_alone_behind_and_unfairly_behind(
    database_url: str, redis_url: str
) -> None:
    check_a_run(database_url, redis_url, big=40, small=2, workers=1)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--big", "61"], "--big must be an even number of games from 2 to 2000 (2 a round), got 61"),
        (["--unfair-timeout", "-1"], "--unfair-timeout must be 0"),
    ],
)
def test_bad_sizes_are_a_usage_error(flags: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        fair_queue.main(flags)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err
