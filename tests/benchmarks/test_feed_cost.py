"""``benchmarks/feed.py``, small, on SQLite and PostgreSQL: each game's end is followed by a top-up that feeds
exactly one game (the benchmark asserts it), timed. Speed is measured, never asserted."""

from __future__ import annotations

import pytest

from benchmarks.feed import WINDOW, Waiting, main


def test_a_round_times_one_top_up_per_game_ended(database_url: str) -> None:
    waiting = Waiting(database_url, WINDOW + 6)
    try:
        row = waiting.measure(5)
    finally:
        waiting.close()
    assert row["size"] == WINDOW + 6 and row["cpu_ms"] > 0 and row["wall_ms"] > 0
    assert row["load_before"] >= 0 and row["load_after"] >= 0


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--sizes", "200,x"], "--sizes takes whole numbers"),
        (["--ends", "0"], "--ends and --rounds must be at least 1"),
        (["--sizes", "20"], "every size needs at least"),
        (["--database-url", "sqlite:///x.db"], "names a PostgreSQL server"),
    ],
)
def test_usage_errors(flags: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(flags)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err
