"""``benchmarks/servers.py``: a benchmark's Redis is its own (a private server, or an empty database it empties
again, never one holding somebody's keys), and a benchmark ended by SIGTERM leaves none of its processes behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path

import pytest
import redis

from benchmarks import servers

ROOT = Path(__file__).resolve().parents[2]


def test_a_database_holding_keys_is_refused_and_kept(redis_url: str) -> None:
    connection = redis.Redis.from_url(redis_url)
    connection.set("somebody's", "key")
    with pytest.raises(SystemExit, match="holds keys"), servers.own_redis(redis_url):
        pass
    assert connection.get("somebody's") == b"key"


def test_an_empty_database_is_emptied_again_at_the_end(redis_url: str) -> None:
    with servers.own_redis(redis_url) as url:
        assert url == redis_url
        redis.Redis.from_url(url).set("the benchmark's", "key")
    assert redis.Redis.from_url(redis_url).dbsize() == 0


def test_without_a_url_a_private_server_runs_for_the_block_only(redis_url: str) -> None:
    with servers.own_redis(None) as url:
        assert url != redis_url
        connection = redis.Redis.from_url(url)
        assert connection.ping()
    with pytest.raises(redis.ConnectionError):
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def outliving(pids: Iterable[int], seconds: float) -> list[int]:
    """Those of ``pids`` still running ``seconds`` from now at most (none: as soon as all are gone)."""
    deadline = time.monotonic() + seconds
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in pids if alive(pid)]


def test_sigterm_ends_the_benchmark_with_its_bots_and_redis() -> None:
    """Killed while it runs, ``benchmarks/tournament.py`` stops the bots, the spinners and the private Redis it
    started (killed without this, they outlived it and held the machine's cores)."""
    script = ROOT / "benchmarks" / "tournament.py"
    process = subprocess.Popen(
        [sys.executable, str(script), "--bots", "2", "--rounds", "1", "--repeat", "20", "--seconds", "5"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        started: set[int] = set()
        while len(started) < 3 + (os.cpu_count() or 1):  # redis-server, 2 bots, a spinner per core
            assert process.poll() is None and time.monotonic() < deadline, "the benchmark never started its bots"
            started |= set(servers.child_processes(process.pid))
            time.sleep(0.1)
        process.send_signal(signal.SIGTERM)
        assert process.wait(120) == 128 + signal.SIGTERM
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    left = outliving(started, 30)
    for pid in left:  # a failing test leaves nothing running either
        os.kill(pid, signal.SIGKILL)
    assert not left, f"processes the benchmark started outlived it: {left}"


STUCK = """
import subprocess, sys, threading
sys.path.insert(0, '.')
from benchmarks import servers
servers.end_on_sigterm(grace=0.5)
child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])
threading.Thread(target=threading.Event().wait).start()  # never ends: the exit waits for it for ever
print(child.pid, flush=True)
threading.Event().wait()
"""


def test_a_benchmark_that_cannot_unwind_after_sigterm_kills_its_children_and_exits() -> None:
    process = subprocess.Popen([sys.executable, "-c", STUCK], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        child = int(process.stdout.readline())
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 128 + signal.SIGTERM
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert outliving([child], 30) == []
