"""The starter bots of ``starters/`` (Node and Go, standard library only) run as processes for the tests.

Node and Go come from Debian's packages (``make toolchains``); missing, a starter's test is skipped locally and fails
in CI (``tests.databases.unavailable``). The Go starter is compiled once per test process (``go build`` into the
test's temporary folder, its build cache in the run's scratch folder, ``GOTOOLCHAIN=local``: nothing is downloaded).
A starter runs in a session of its own, killed by the kernel if the test's process dies (``runs.die_with_parent``),
marked with the run's name (swept by the next run if the run is killed), and stopped when its ``with`` block ends.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import runs
from tests.arenakit import wait_for
from tests.databases import unavailable
from tests.reliability.harness import stop_all

ROOT = Path(__file__).resolve().parents[2]
STARTERS = ROOT / "starters"
NAMES = ("js", "go")
SERVING = re.compile(r"serving at (http://\S+) ")


def tool(name: str) -> str:
    """The path of ``node`` or ``go`` on the PATH; skipped locally, failed in CI, when it is missing."""
    found = shutil.which(name)
    if found is None:
        unavailable(f"no {name} on the PATH: run `make toolchains` (Debian's nodejs and golang-go)")
    assert found is not None
    return found


def go_environment(cache: Path) -> dict[str, str]:
    """The environment of ``go``: caches in ``cache``, the Go that is installed and no other (no download)."""
    return {
        **os.environ,
        "GOCACHE": str(cache / "build"),
        "GOPATH": str(cache / "path"),
        "GOTOOLCHAIN": "local",
        "GOFLAGS": "",
        "CGO_ENABLED": "0",
    }


@pytest.fixture(scope="session")
def go_binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Go starter, compiled once per test process."""
    go = tool("go")
    binary = tmp_path_factory.mktemp("go-starter") / "go-starter"
    built = subprocess.run(
        [go, "build", "-o", str(binary), "."],
        cwd=STARTERS / "go",
        env=go_environment(runs.scratch() / "go-cache"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, f"go build failed:\n{built.stderr}"
    return binary


@pytest.fixture
def starter(name: str, request: pytest.FixtureRequest) -> list[str]:
    """How to run the starter the test's ``name`` parameter names (``js`` or ``go``), before its arguments: only the
    Go starter's tests need Go (and compile it)."""
    if name == "js":
        return [tool("node"), str(STARTERS / "js" / "bot.js")]
    return [str(request.getfixturevalue("go_binary"))]


def clean_environment(**settings: str) -> dict[str, str]:
    """The test process's environment without the service's and the client's settings, plus ``settings``."""
    kept = {key: value for key, value in os.environ.items() if not key.startswith("SORRY_ARENA_")}
    return {**kept, **settings}


@dataclass
class Started:
    process: subprocess.Popen[bytes]
    output: Path

    def text(self) -> str:
        return self.output.read_text(errors="replace")

    @property
    def url(self) -> str:
        """A push starter's base URL, as it printed it once it listened."""
        found = SERVING.search(self.text())
        assert found, self.text()
        return found.group(1)


@contextmanager
def started(starter: list[str], folder: Path, *args: str, ready: str, **settings: str) -> Iterator[Started]:
    """The ``starter`` command run with ``args`` (its output, both streams, in a file of ``folder``) once it has
    printed ``ready``; stopped afterwards."""
    output = folder / f"starter-{len(list(folder.glob('starter-*.log')))}.log"
    with open(output, "wb") as log:
        process = subprocess.Popen(
            [*starter, *args],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=clean_environment(**settings),
            start_new_session=True,
            preexec_fn=runs.die_with_parent,  # started on the test's (main) thread
        )
    running = Started(process, output)
    try:
        wait_for(
            f"{starter[-1]} to print {ready!r}",
            lambda: ready in running.text() or process.poll() is not None,
            timeout=60,
        )
        assert ready in running.text(), f"{starter[-1]} ended ({process.poll()}):\n{running.text()}"
        yield running
    finally:
        stop_all([process])


def run(starter: list[str], *args: str, **settings: str) -> subprocess.CompletedProcess[str]:
    """The ``starter`` command run to its end with ``args`` (a short command: the self-test, a refused flag)."""
    return subprocess.run(
        [*starter, *args],
        env=clean_environment(**settings),
        capture_output=True,
        text=True,
        timeout=60,
    )
