"""The client as a distribution of its own (clients/pyproject.toml): built into a wheel from the repository's
``clients/`` folder, installed with pip into a fresh virtual environment that holds nothing else of the project,
it gives ``import clients`` and the ``sorry-arena-bot`` command, and the template copied to a folder outside the
repository runs with that environment's plain ``python``: it serves a signed move in push mode and stops on
Ctrl-C. Without the client installed, the template says how to install it in one line.

All offline: the wheel is built by the tests' own environment (its setuptools, ``--no-build-isolation``: no
index needed, the client has no dependencies), and the fresh environment's pip (ensurepip's) installs it with
``--no-index``; the machine's pip configuration is ignored. The build runs on a copy of ``clients/``, so that
setuptools' ``build/`` and ``*.egg-info`` never land in the working tree while other tests run. The wheel and the
environment are made once for the test run, in its scratch folder, whichever xdist worker needs them first.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import venv
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

import engine
from botlink import signing
from tests import runs

ROOT = Path(__file__).resolve().parents[2]
PATIENCE_S = 120.0
"""The longest wait for pip or a bot process: reached only when something is wrong (or the machine crawls)."""
SECRET = "s" * 32


def clean_env(**extra: str) -> dict[str, str]:
    """The environment of the fresh venv's processes: no pip configuration, index or path of the machine's."""
    env = {
        key: value for key, value in os.environ.items() if not key.startswith(("PIP_", "PYTHON", "VIRTUAL_ENV"))
    }
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", **extra)
    return env


def run(argv: Sequence[str | Path], cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [str(part) for part in argv],
        cwd=cwd,
        env=clean_env(**extra),
        capture_output=True,
        text=True,
        timeout=PATIENCE_S,
    )
    assert result.returncode == 0, f"{argv} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    return result


@contextmanager
def built_once(name: str) -> Iterator[tuple[Path, bool]]:
    """A folder of the test run's scratch folder, ``name``, held under the run's lock of it: with whether it is made
    already. The xdist workers that run these tests (one test each, as often as not) make it once for the run: the
    first makes it, the others wait for it and use it."""
    home = runs.scratch() / name
    with open(runs.scratch() / f"{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield home, (home / "made").exists()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def wheel() -> Path:
    """``pip wheel --no-deps ./clients`` on a copy of the repository's clients/ folder: the client's wheel."""
    with built_once("client-build") as (work, made):
        if not made:
            shutil.rmtree(work, ignore_errors=True)
            source = work / "clients"
            shutil.copytree(
                ROOT / "clients", source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info")
            )
            run(
                [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-index", "--no-build-isolation"]
                + ["--wheel-dir", str(work / "dist"), str(source)],
                cwd=work,
            )
            (work / "made").touch()
        (built,) = (work / "dist").glob("sorry_arena_client-*.whl")
        return built


@pytest.fixture(scope="session")
def fresh_venv(wheel: Path) -> Path:
    """A new virtual environment (with ensurepip's pip) and the client's wheel installed in it; its bin folder.
    The tests only run what it holds."""
    with built_once("client-venv") as (home, made):
        if not made:
            shutil.rmtree(home, ignore_errors=True)
            venv.EnvBuilder(with_pip=True, clear=True).create(home / "venv")
            run([home / "venv" / "bin" / "python", "-m", "pip", "install", "--no-index", wheel], cwd=home)
            (home / "made").touch()
        return home / "venv" / "bin"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the repository with a copy of the template, as a bot author makes it."""
    folder = tmp_path / "my-bots"
    folder.mkdir()
    shutil.copy(ROOT / "clients" / "bot.py", folder / "my_bot.py")
    assert ROOT not in folder.parents
    return folder


def test_the_wheel_holds_the_client_its_command_and_no_dependency(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        (metadata,) = [name for name in names if name.endswith(".dist-info/METADATA")]
        (entry_points,) = [name for name in names if name.endswith(".dist-info/entry_points.txt")]
        assert "Requires-Dist" not in archive.read(metadata).decode()
        assert "sorry-arena-bot = clients.__main__:main" in archive.read(entry_points).decode()
    modules = {name for name in names if name.endswith(".py")}
    expected = {f"clients/{name}.py" for name in ("__init__", "__main__", "bot", "push", "pull", "signature")}
    assert expected <= modules
    assert "clients/examples/greedy_bot.py" in modules and "clients/examples/random_bot.py" in modules
    assert all(name.startswith("clients/") for name in modules), "the client's wheel holds the client only"


def test_the_installed_client_stands_alone(fresh_venv: Path, outside: Path) -> None:
    probe = "import clients, importlib.util as u; print(clients.__file__); print(u.find_spec('engine') is None)"
    where, no_engine = run([fresh_venv / "python", "-c", probe], cwd=outside).stdout.split()
    assert Path(where).is_relative_to(fresh_venv.parent), where
    assert no_engine == "True", "the fresh environment must not see the project"
    help_text = run([fresh_venv / "sorry-arena-bot", "--help"], cwd=outside).stdout
    assert help_text.startswith("usage: sorry-arena-bot") and "--push" in help_text


def test_the_search_example_needs_the_project_and_says_so(fresh_venv: Path, outside: Path) -> None:
    result = subprocess.run(
        [fresh_venv / "sorry-arena-bot", "--bot", "search", "--push"],
        cwd=outside,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=PATIENCE_S,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "--bot search: the search example bot looks ahead with sorry-arena's rules engine" in result.stderr


def read_line(process: subprocess.Popen[str]) -> str:
    """The next line of the process's output (an assertion error, rather than a hang, if it never comes)."""
    stdout = process.stdout
    assert stdout is not None
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.append(stdout.readline()), daemon=True)
    reader.start()
    reader.join(PATIENCE_S)
    assert lines and lines[0], f"the bot printed nothing (exit code {process.poll()})"
    return lines[0]


@pytest.fixture
def template_bot(fresh_venv: Path, outside: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``python my_bot.py --push --port 0`` with the fresh environment's python, in the folder outside."""
    process = subprocess.Popen(
        [str(fresh_venv / "python"), "my_bot.py", "--push", "--port", "0"],
        cwd=outside,
        env=clean_env(SORRY_ARENA_SECRET=SECRET),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        banner = read_line(process)
        assert banner.startswith("my_bot (board, card) serving at http://127.0.0.1:"), banner
        yield process, banner.split(" serving at ")[1].split()[0]
    finally:
        process.kill()
        process.communicate(timeout=PATIENCE_S)


def test_the_template_copied_anywhere_serves_signed_moves_and_stops_on_ctrl_c(
    template_bot: tuple[subprocess.Popen[str], str],
) -> None:
    process, url = template_bot
    state = engine.new_game("board", {"players": 2}, 3)
    asked = engine.decision(state)
    assert asked is not None
    legal = [action.to_json() for action in engine.legal_actions(state, asked.seat)]
    body = json.dumps(
        {
            "type": "move",
            "game_id": 1,
            "tournament_id": 1,
            "seat": asked.seat,
            "ply": state.ply,
            "decision": asked.kind,
            "view": engine.view(state, asked.seat),
            "actions": legal,
            "deadline_ms": 1000,
            "last_latency_ms": None,
        }
    ).encode()
    with requests.Session() as session:
        session.trust_env = False
        headers = {"Content-Type": "application/json", **signing.headers(SECRET, "POST", "/bot/move", body)}
        answer = session.post(f"{url}/bot/move", data=body, headers=headers, timeout=PATIENCE_S)
        assert answer.status_code == 200, answer.text
        assert answer.json()["action"] in {action["id"] for action in legal}
        forged = {**headers, **signing.headers("another secret" * 3, "POST", "/bot/move", body)}
        assert session.post(f"{url}/bot/move", data=body, headers=forged, timeout=PATIENCE_S).status_code == 401
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=PATIENCE_S)
    # the forged request is refused with its reason in the bot's own log, at the default level
    assert (process.returncode, out) == (0, "stopped\n")
    assert (
        err == "refused a request to /bot/move from 127.0.0.1: wrong secret: the signature does not match "
        "(start the bot with the secret it was registered with)\n"
    )


def test_the_template_without_the_client_says_how_to_install_it(outside: Path) -> None:
    """``python -S``: no site-packages, so neither the project nor an installed client is there to import."""
    result = subprocess.run(
        [sys.executable, "-S", "my_bot.py", "--push"],
        cwd=outside,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=PATIENCE_S,
    )
    assert result.returncode == 1
    assert result.stderr == (
        "the sorry-arena client is not installed: pip install ./clients (from a clone of the repository)\n"
    )
