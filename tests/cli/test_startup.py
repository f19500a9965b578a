"""A command's start-up pays for its own dependencies only: ``sorry-arena simulate`` loads no Flask, SQLAlchemy,
Alembic, RQ or Redis, neither to build its parser nor to play games between engine bots (cli/main.py imports a
sub-command's module only when that command is chosen); ``--help`` still lists every command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cli.main import COMMANDS

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("flask", "sqlalchemy", "alembic", "rq", "redis")
"""Packages of the service and the workers that ``simulate`` must not import."""

PROBE = """
import contextlib, io, json, sys
import cli.main
heavy = {heavy!r}
loaded = lambda: sorted(name for name in heavy if name in sys.modules)
found = {{"import": loaded()}}
cli.main.build_parser(cli.main.chosen_command(["simulate", "--games", "1"]))
found["parser"] = loaded()
with contextlib.redirect_stdout(io.StringIO()):
    code = cli.main.main({argv!r})
found["run"] = loaded()
found["code"] = code
print(json.dumps(found))
"""


def probe(tmp_path: Path, argv: list[str]) -> dict[str, object]:
    """Run ``argv`` through ``cli.main.main`` in a fresh interpreter; the heavy packages loaded at each step."""
    script = PROBE.format(heavy=HEAVY, argv=argv)
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return found


def test_the_probe_sees_a_heavy_import(tmp_path: Path) -> None:
    """The probe would notice: a command that needs SQLAlchemy loads it (``db current`` on a scratch file)."""
    found = probe(tmp_path, ["db", "current", "--database-url", f"sqlite:///{tmp_path / 'probe.db'}"])
    assert "sqlalchemy" in found["run"]  # type: ignore[operator]


def test_simulate_loads_no_service_package(tmp_path: Path) -> None:
    for game in ("board", "card"):
        argv = ["simulate", "--game", game, "--games", "2", "--bots", "random,greedy", "--no-replays", "--json"]
        found = probe(tmp_path, argv)
        assert found == {"import": [], "parser": [], "run": [], "code": 0}, game


def test_simulate_with_a_replay_file_loads_no_service_package(tmp_path: Path) -> None:
    found = probe(tmp_path, ["simulate", "--games", "1", "--replays", "games.jsonl", "--json"])
    assert found["run"] == [] and found["code"] == 0
    assert (tmp_path / "games.jsonl").read_text().count("\n") == 1


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_help_lists_every_command() -> None:
    done = run("--help")
    assert done.returncode == 0
    listed = [line.split()[0] for line in done.stdout.splitlines() if line.startswith("    ") and line.split()]
    assert [name for name in listed if name in COMMANDS] == list(COMMANDS)


def test_a_command_s_help_and_a_mistyped_command() -> None:
    done = run("simulate", "--help")
    assert done.returncode == 0 and "--bots" in done.stdout
    done = run("simulat")
    assert done.returncode == 2
    assert "invalid choice" in done.stderr and "simulate" in done.stderr and "Traceback" not in done.stderr
    done = run("simulate", "--games", "zero")
    assert done.returncode == 2 and "--games" in done.stderr and "Traceback" not in done.stderr
