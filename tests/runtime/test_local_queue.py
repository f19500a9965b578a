"""The embedded queue's admission (``runtime.jobqueue.LocalQueue``'s ``admit``): a job it refuses keeps its place
while the jobs behind it run, and runs once a job's end lets it in; without ``admit``, jobs run in order."""

from __future__ import annotations

import threading
import time

from runtime.jobqueue import LocalQueue

RAN: list[str] = []
GATE = threading.Event()
ADMITTED: set[str] = set()


def job(name: str) -> None:
    RAN.append(name)
    if name == "slow":
        GATE.wait(30)


def admit(dotted: str, args: tuple[str, ...]) -> bool:
    """Refuse ``late`` until ``slow`` has run and ended (``ADMITTED`` holds it then)."""
    return args[0] != "late" or "slow" in ADMITTED


def slow_done(name: str) -> None:
    job(name)
    ADMITTED.add(name)


def test_a_refused_job_waits_in_place_while_the_next_run_and_runs_once_a_job_ends() -> None:
    RAN.clear()
    ADMITTED.clear()
    GATE.clear()
    queue = LocalQueue(lambda: None, workers=2, admit=f"{__name__}.admit")
    try:
        queue.start()
        queue.enqueue(f"{__name__}.slow_done", "slow")
        deadline = time.monotonic() + 30
        while "slow" not in RAN:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        queue.enqueue(f"{__name__}.job", "late")
        queue.enqueue(f"{__name__}.job", "next")
        while "next" not in RAN:  # the free thread passes the refused job by
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert "late" not in RAN
        GATE.set()  # the slow job ends: the queue asks again, and the refused job runs
        assert queue.wait(timeout=30)
        assert RAN == ["slow", "next", "late"]
    finally:
        GATE.set()
        queue.close()


def test_without_admit_jobs_run_in_their_order() -> None:
    RAN.clear()
    queue = LocalQueue(lambda: None, workers=1)
    try:
        for name in ("a", "b", "late"):
            queue.enqueue(f"{__name__}.job", name)
        assert queue.wait(timeout=30)
        assert RAN == ["a", "b", "late"]
    finally:
        queue.close()
