"""``sorry-arena view FILE``, run as a user runs it (a subprocess): the web viewer serves the file's games on
127.0.0.1, headless Chromium opens the printed page and sees that game (its players, its steps, the latency and
fault of each move), Ctrl-C (SIGINT) stops it cleanly and removes its temporary database; records that do not check
are refused with their problems; a file that is not records exits 2."""

from __future__ import annotations

import os
import queue
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import engine
from engine import records
from tests.botservers import closed_port
from tests.cli.usagekit import usage_error
from tests.service.web.browser import launched, screenshot

COMMAND = str(Path(sys.executable).with_name("sorry-arena"))
ROOT = Path(__file__).resolve().parents[2]
PATIENCE_S = 180.0
"""The longest wait for the viewer to print its address or stop: only reached when something is wrong."""


def tournament_like_record(seed: int, names: list[str], game_id: int) -> dict[str, Any]:
    """A 2-player card game between random bots, its third and fourth moves of seat 1 faults (the fallback)."""
    settings = {"players": 2, "pawns": 3}
    state = engine.new_game("card", settings, seed)
    rng = random.Random(seed)
    actions: list[dict[str, Any]] = []
    own = [0, 0]
    while (asked := engine.decision(state)) is not None:
        seat = asked.seat
        faulty = seat == 1 and own[1] in (2, 3)
        action = engine.fallback_action(state) if faulty else rng.choice(engine.legal_actions(state, seat)).id
        latency = 250.0 if faulty else 10.0 + len(actions)
        actions.append(
            {
                "ply": len(actions),
                "seat": seat,
                "action": action,
                "latency_ms": latency,
                "fault": "timeout" if faulty else None,
            }
        )
        engine.apply(state, action, seat)
        own[seat] += 1
    result = engine.result(state)
    assert result is not None
    seats = [{"seat": seat, "name": name, "bot_id": 100 + seat} for seat, name in enumerate(names)]  # bots' seats
    final = records.final_result(result, 2, [])
    return records.make_record("card", settings, seed, seats, actions, final, game_id=game_id, tournament_id=4)


class Viewer:
    """``sorry-arena view`` as a subprocess, its standard output read line by line on a thread."""

    def __init__(self, path: Path, port: int, temp: Path) -> None:
        env = {**os.environ, "TMPDIR": str(temp)}
        self.process = subprocess.Popen(
            [COMMAND, "view", str(path), "--port", str(port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=env,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def line(self) -> str:
        found = self.lines.get(timeout=PATIENCE_S)
        assert found is not None, f"the viewer ended: {self.stop()}"
        return found

    def stop(self) -> tuple[int, str]:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            code = self.process.wait(timeout=PATIENCE_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise
        assert self.process.stderr is not None
        return code, self.process.stderr.read()


def wait_for_port(port: int) -> None:
    deadline = time.monotonic() + PATIENCE_S
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            assert time.monotonic() < deadline, f"nothing listens on port {port}"
            time.sleep(0.1)


def test_the_viewer_shows_a_records_game_in_chromium_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    good = tournament_like_record(3, ["alpha-bot", "beta-bot"], game_id=17)
    other = tournament_like_record(4, ["beta-bot", "gamma-bot"], game_id=18)
    refused = tournament_like_record(5, ["alpha-bot", "gamma-bot"], game_id=19)
    refused["result"]["ranks"] = list(reversed(refused["result"]["ranks"]))
    path = tmp_path / "games.jsonl"
    path.write_text("".join(records.dumps(record) + "\n" for record in (good, refused, other)))
    temp = tmp_path / "temp"
    temp.mkdir()
    with launched() as browser:
        viewer = Viewer(path, 0, temp)  # a free port, which it says: a port chosen here could be taken meanwhile
        try:
            first = viewer.line()
            found = re.fullmatch(r"game 17: http://127\.0\.0\.1:(\d+)/games/\d+", first)
            assert found is not None, first
            port = int(found.group(1))
            listing = viewer.line()
            assert listing == f"2 games: http://127.0.0.1:{port}/games"
            wait_for_port(port)
            assert list(temp.iterdir()), "the temporary database is in TMPDIR while the viewer runs"
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(first.split(": ", 1)[1])
            page.wait_for_selector("#stage .step", timeout=10_000)
            players = page.inner_text("section.players")
            assert "alpha-bot" in players and "beta-bot" in players
            rows = page.eval_on_selector_all(
                "#steps tbody tr", "rows => rows.map(r => [Number(r.dataset.ply), r.dataset.fault || null])"
            )
            assert rows == [[0, None]] + [[a["ply"] + 1, a["fault"]] for a in good["actions"]]
            assert sum(1 for _, fault in rows if fault == "timeout") == 2
            screenshot(page, "cli-view-game")
            page.goto(listing.split(": ", 1)[1])
            listed = page.inner_text("main")
            assert "gamma-bot" in listed and "alpha-bot" in listed
        finally:
            code, errors = viewer.stop()
    assert code == 0, errors
    assert "game 19: refused: ply" in errors and "result.ranks" in errors
    assert "viewer stopped" in errors and "Traceback" not in errors
    assert list(temp.iterdir()) == []  # the temporary database is gone


@pytest.mark.parametrize(
    ("content", "code", "message"),
    [
        ("not json\n", 2, "games.jsonl: line 1: not JSON"),
        (None, 2, "cannot read it"),
        ("refused", 1, "no record could be shown"),
    ],
)
def test_the_viewer_refuses_files_it_cannot_show(
    tmp_path: Path, content: str | None, code: int, message: str
) -> None:
    path = tmp_path / "games.jsonl"
    if content == "refused":
        record = tournament_like_record(5, ["a", "b"], game_id=3)
        record["actions"][4]["seat"] = 1 - record["actions"][4]["seat"]
        content = records.dumps(record) + "\n"
    if content is not None:
        path.write_text(content)
    completed = subprocess.run(
        [COMMAND, "view", str(path), "--port", str(closed_port())],
        capture_output=True,
        text=True,
        timeout=PATIENCE_S,
        cwd=ROOT,
    )
    assert completed.returncode == code
    assert message in completed.stderr and "Traceback" not in completed.stderr
    if content is not None and code == 1:
        assert "game 3: refused: ply 4: seat" in completed.stderr


def test_the_viewer_listens_on_loopback_only_and_says_when_the_port_is_taken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text(records.dumps(tournament_like_record(3, ["a", "b"], game_id=1)) + "\n")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        completed = subprocess.run(
            [COMMAND, "view", str(path), "--port", str(port)], capture_output=True, text=True, timeout=PATIENCE_S
        )
    assert completed.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in completed.stderr
    assert "unrecognized arguments: --host" in usage_error(capsys, "view", str(path), "--host", "0.0.0.0")
