"""Ctrl-C stops ``sorry-arena simulate``: the games played so far are reported, the replay file holds exactly
them (complete lines only) and the command exits with 130, without a traceback. The signal is a real SIGINT: sent
by the bot file to its own process in the middle of a game (at a ply it chooses: no timing involved), or by the
test to an engine-only run once its replay file has lines."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from cli.simulate import Interrupts
from tests.cli.simulatekit import COMMAND, PATIENCE_S, replays, simulate, write_bot

STOPS_IN_GAME_3 = """
    import os
    import signal

    def choose(request):
        if request["game_id"] == 3 and request["ply"] >= 10:
            os.kill(os.getpid(), signal.SIGINT)  # the author presses Ctrl-C
        return request["actions"][0]["id"]
"""


@pytest.mark.parametrize("json_output", [False, True], ids=["table", "json"])
def test_ctrl_c_in_a_game_reports_the_games_before_it(tmp_path: Path, json_output: bool) -> None:
    write_bot(tmp_path, "stops.py", STOPS_IN_GAME_3)
    flags = ["--bots", "stops.py,greedy", "--games", "50", "--players", "2", "--replays", "games.jsonl"]
    completed = simulate(tmp_path, *flags, *(["--json"] if json_output else []))
    assert completed.returncode == 130, completed.stderr
    assert "Traceback" not in completed.stderr, completed.stderr
    if json_output:
        result = json.loads(completed.stdout)
        assert result["interrupted"] is True and result["games"] == 2
    else:
        assert "interrupted: 2 of 50 games played" in completed.stdout
        assert "replays: games.jsonl (2 games)" in completed.stdout
    assert [record["game_id"] for record in replays(tmp_path / "games.jsonl")] == [1, 2]


def test_ctrl_c_stops_an_engine_run_with_whole_lines(tmp_path: Path) -> None:
    replay = tmp_path / "games.jsonl"
    process = subprocess.Popen(
        [COMMAND, "simulate", "--game", "card", "--games", "10000000", "--replays", str(replay), "--json"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + PATIENCE_S
        while (not replay.exists() or replay.read_text().count("\n") < 3) and time.monotonic() < deadline:
            assert process.poll() is None, process.communicate()
            time.sleep(0.01)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=PATIENCE_S)
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert "Traceback" not in err, err
    result = json.loads(out)
    assert result["interrupted"] is True and result["games"] >= 3
    assert len(replays(replay)) == result["games"]


def test_a_ctrl_c_while_a_game_is_written_waits_for_the_line() -> None:
    written = []
    with Interrupts() as interrupts, pytest.raises(KeyboardInterrupt), interrupts.held():
        os.kill(os.getpid(), signal.SIGINT)
        written.append("the whole line")
    assert written == ["the whole line"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
