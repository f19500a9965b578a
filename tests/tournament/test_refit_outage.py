"""A refit job or a ladder's round that the database's failure interrupts (a restart, a stop) ends with a warning
(``deferred``, no game made), not a failed job (the workers' clock asks for it again); a bug still fails the job."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.exc import OperationalError, ProgrammingError

from tournament import jobs
from tournament.dispatch import ladderrounds
from tournament.standings import ladderfit, poolfit


class Sessions:
    def __call__(self) -> Sessions:
        return self

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


class Context:
    sessions = Sessions()


def raising(error: Exception) -> Any:
    def fit(*args: Any) -> str:
        raise error

    return fit


def test_a_refit_the_database_interrupts_is_deferred_and_a_bug_still_fails(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(jobs.context, "get", lambda: Context())
    gone = OperationalError("SELECT 1", {}, Exception("the connection was closed"), connection_invalidated=True)
    monkeypatch.setattr(poolfit, "fit", raising(gone))
    monkeypatch.setattr(ladderfit, "fit", raising(gone))
    assert jobs.fit_pool("card", "standard", 2) == "deferred"
    assert jobs.fit_ladder(7) == "deferred"
    assert "waits for the database" in caplog.text and "ladder 7's fit" in caplog.text
    monkeypatch.setattr(poolfit, "fit", raising(ProgrammingError("SELECT x", {}, Exception("no such column"))))
    with pytest.raises(ProgrammingError):
        jobs.fit_pool("card", "standard", 2)


def test_a_ladder_round_the_database_interrupts_makes_no_game_and_a_bug_still_fails(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(jobs.context, "get", lambda: Context())
    gone = OperationalError("ROLLBACK", {}, Exception("server closed the connection"), connection_invalidated=True)
    monkeypatch.setattr(ladderrounds, "run_round", raising(gone))
    assert jobs.ladder_round(3) == 0
    assert "ladder 3's matchmaking round waits for the database" in caplog.text
    monkeypatch.setattr(
        ladderrounds, "run_round", raising(ProgrammingError("SELECT x", {}, Exception("no column")))
    )
    with pytest.raises(ProgrammingError):
        jobs.ladder_round(3)
