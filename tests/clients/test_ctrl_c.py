"""Ctrl-C (SIGINT) stops a bot run from the command line cleanly at any moment: ``python clients/bot.py`` (the
template) and ``python -m clients``, in push and in pull mode, as a subprocess. While it starts up it ends at once
(killed by SIGINT: 130 in a shell) without a word; once it serves or polls it prints ``stopped`` and exits with 0;
never a traceback.

"While it starts up" is the time from the program's first line to serving: the moment SIGINT is at its default
action there is read from ``/proc/PID/status`` (Python has started: SIGPIPE ignored and SIGINT caught; then the
program's quiet start-up: SIGINT not caught), so the signal lands there however slow the machine is. Before the program's first line, Ctrl-C
is the interpreter's own business (Python itself may print a traceback from ``site``), which no bot file can change.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PATIENCE_S = 60.0
"""The longest wait for a process to get somewhere: only reached when something is wrong (or the machine crawls)."""

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc/PID/status (Linux)")


class Holding(BaseHTTPRequestHandler):
    """The service's inbox, long-polling: each ``GET /api/v1/decisions`` is noted, then held until released."""

    protocol_version = "HTTP/1.1"
    server: HoldingServer

    def do_GET(self) -> None:
        self.server.polled.set()
        self.server.release.wait(PATIENCE_S)
        body = json.dumps({"decisions": [], "more": False, "games": 0}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class HoldingServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Holding)
        self.polled = threading.Event()
        self.release = threading.Event()


@contextmanager
def holding_service() -> Iterator[HoldingServer]:
    server = HoldingServer()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.shutdown()
        thread.join(10)
        server.server_close()


PROGRAMS = {
    "template": ["clients/bot.py"],
    "python -m clients": ["-m", "clients", "--bot", "random"],
}


@pytest.fixture(params=["push", "pull"])
def mode(request: pytest.FixtureRequest) -> Iterator[tuple[list[str], dict[str, str], HoldingServer]]:
    """The mode's flags and environment (pull: against a service that holds every long poll)."""
    with holding_service() as service:
        if request.param == "push":
            yield ["--push", "--port", "0", "--secret", "s" * 32], {}, service
        else:
            url = f"http://127.0.0.1:{service.server_port}"
            yield ["--pull", "--url", url, "--wait", "30"], {"SORRY_ARENA_TOKEN": "sa_test"}, service


def start(argv: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, *argv],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def signal_state(pid: int) -> tuple[bool, bool] | None:
    """Whether the process ignores SIGPIPE (Python has started) and catches SIGINT; None once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    ignored, caught = int(fields["SigIgn"], 16), int(fields["SigCgt"], 16)
    return bool(ignored & 1 << (signal.SIGPIPE - 1)), bool(caught & 1 << (signal.SIGINT - 1))


def start_quietly_interruptible(argv: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    """The process, caught starting up: Python has started (SIGPIPE ignored, SIGINT caught: its KeyboardInterrupt)
    and the program has put SIGINT back at its default action. A process seen serving already (its banner printed)
    is stopped and another one started."""
    for _attempt in range(10):
        process = start(argv, env)
        python_started = False  # (SIGPIPE is ignored a moment before Python catches SIGINT: not yet the program)
        deadline = time.monotonic() + PATIENCE_S
        while time.monotonic() < deadline:
            state = signal_state(process.pid)
            if state is None or process.poll() is not None:
                out, err = process.communicate(timeout=PATIENCE_S)
                raise AssertionError(f"the bot exited on its own ({process.returncode}): {out!r} {err!r}")
            if state == (True, True):
                python_started = True
            elif state == (True, False) and python_started:
                return process
            if select.select([process.stdout], [], [], 0)[0]:  # serving already: too late for this one
                break
            time.sleep(0.0005)
        else:
            process.kill()
            raise AssertionError("the bot neither started up nor served")
        process.kill()
        process.communicate(timeout=PATIENCE_S)
    raise AssertionError("never caught a bot starting up")


def read_line(process: subprocess.Popen[str]) -> str:
    """The next line of the process's output (an assertion error, rather than a hang, if it never comes)."""
    stdout = process.stdout
    assert stdout is not None
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.append(stdout.readline()), daemon=True)
    reader.start()
    reader.join(PATIENCE_S)
    assert lines, "the bot printed nothing"
    return lines[0]


def interrupt(process: subprocess.Popen[str]) -> tuple[str, str]:
    process.send_signal(signal.SIGINT)
    try:
        return process.communicate(timeout=PATIENCE_S)
    finally:
        process.kill()


def assert_quiet(process: subprocess.Popen[str], out: str, err: str) -> None:
    """Ended by Ctrl-C as it should: at once (by the signal) without a word, or with ``stopped`` and status 0."""
    assert "Traceback" not in err and "Error" not in err, err
    assert err == "", err
    if process.returncode == -signal.SIGINT:
        return
    assert process.returncode == 0, (process.returncode, out, err)
    assert out.splitlines()[-1].startswith("stopped"), out


@pytest.mark.parametrize("program", PROGRAMS)
@pytest.mark.parametrize("delay", [0.0, 0.005, 0.02, 0.05])
def test_ctrl_c_while_the_bot_starts_up_ends_it_quietly(
    program: str, delay: float, mode: tuple[list[str], dict[str, str], HoldingServer]
) -> None:
    """From the moment the program runs, with ``delay`` more: somewhere in its imports, its start-up or serving."""
    flags, env, _service = mode
    process = start_quietly_interruptible(PROGRAMS[program] + flags, env)
    time.sleep(delay)
    out, err = interrupt(process)
    assert_quiet(process, out, err)


@pytest.mark.parametrize("program", PROGRAMS)
def test_ctrl_c_while_the_bot_serves_prints_stopped(program: str) -> None:
    process = start([*PROGRAMS[program], "--push", "--port", "0", "--secret", "s" * 32], {})
    banner = read_line(process)
    assert "serving at http://127.0.0.1:" in banner, banner
    out, err = interrupt(process)
    assert (process.returncode, out, err) == (0, "stopped\n", "")


@pytest.mark.parametrize("program", PROGRAMS)
def test_ctrl_c_while_the_bot_polls_prints_stopped_and_what_it_did(program: str) -> None:
    with holding_service() as service:
        url = f"http://127.0.0.1:{service.server_port}"
        process = start([*PROGRAMS[program], "--pull", "--url", url], {"SORRY_ARENA_TOKEN": "sa_test"})
        banner = read_line(process)
        assert f"playing at {url} (pull mode)" in banner, banner
        assert service.polled.wait(PATIENCE_S), "the bot never polled"
        out, err = interrupt(process)
    assert (process.returncode, out, err) == (0, "stopped: 0 games, 0 moves, 0 too late, 0 skipped\n", "")
