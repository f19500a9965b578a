"""``benchmarks/retention.py``, small (one card game), on SQLite and PostgreSQL: every game is archived, the
archive holds it and a record reads from it; speed and sizes are measured, never asserted."""

from __future__ import annotations

import pytest

from benchmarks import storage
from benchmarks.retention import measured


def test_a_small_run_archives_every_game(database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(storage, "KINDS", (("card", {"players": 2}),))
    row = measured(database_url, 1)
    assert row["games"] == 1 and row["moves"] > 0
    assert row["after"]["archived_games"] > 0 and row["before"]["actions"] > 0
    assert row["archive_us"] > 0 and row["record_rows_us"] > 0 and row["record_archive_us"] > 0
