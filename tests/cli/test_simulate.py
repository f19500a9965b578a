"""``sorry-arena simulate`` between engine-level bots: results, JSON output, the replay file, and usage errors
(never a traceback) for bad flags. Bot files and URLs: test_simulate_files.py and test_simulate_urls.py; Ctrl-C:
test_simulate_interrupt.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cli.main import main
from tests.cli.simulatekit import replays


@pytest.fixture(autouse=True)
def in_a_folder_of_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each run writes its replay file under the working directory: the test's own folder."""
    monkeypatch.chdir(tmp_path)


def run_json(capsys: pytest.CaptureFixture[str], *flags: str) -> dict[str, Any]:
    assert main(["simulate", *flags, "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1, "--json prints exactly one JSON object"
    report: dict[str, Any] = json.loads(out)
    return report


def test_json_report_counts_every_game_and_seat(capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(capsys, "--players", "2", "--games", "6", "--seed", "4", "--bots", "random,greedy")
    assert report["games"] == 6
    assert report["settings"] == {"variant": "standard", "edition": "1992", "players": 2, "turn_cap": 2000}
    by_bot = report["wins_by_bot"]
    assert isinstance(by_bot, dict)
    assert by_bot["random"]["seats_played"] == by_bot["greedy"]["seats_played"] == 6
    assert by_bot["random"]["wins"] + by_bot["greedy"]["wins"] == 6 == sum(report["wins_by_seat"])
    assert report["mean_decisions"] > 0 and report["decisions_per_second"] > 0


def test_the_same_seed_gives_the_same_results(capsys: pytest.CaptureFixture[str]) -> None:
    flags = ("--variant", "points", "--games", "4", "--seed", "9")
    one, two = run_json(capsys, *flags), run_json(capsys, *flags)
    for key in ("wins_by_bot", "wins_by_seat", "mean_turns", "mean_decisions"):
        assert one[key] == two[key]


def test_team_and_turn_cap(capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(capsys, "--variant", "team", "--edition", "1972", "--games", "2", "--turn-cap", "10")
    assert report["turn_capped"] == 2 and report["mean_turns"] == 10


def test_card_games_with_their_options(capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(capsys, "--game", "card", "--longer-game", "--pawns", "2", "--games", "5", "--players", "3")
    assert report["game"] == "card" and report["games"] == 5
    assert report["settings"]["longer_game"] is True and report["settings"]["pawns"] == 2
    assert sum(report["wins_by_seat"]) >= 5  # a tiebreaker may share a win


def test_tables_are_printed_without_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "3", "--players", "3", "--bots", "greedy"]) == 0
    out = capsys.readouterr().out
    for text in ("greedy", "wins by seat", "mean game length", "games/s", "decisions/s", "engine bots only"):
        assert text in out
    assert "file and URL bots" not in out and "95% interval" in out


def test_every_game_goes_to_the_default_replay_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(capsys, "--players", "2", "--games", "5", "--bots", "greedy,search", "--game", "card")
    written = report["replays"]
    assert isinstance(written, str) and written.startswith("replays/simulate-") and written.endswith("Z.jsonl")
    records = replays(tmp_path / written)
    assert [record["game_id"] for record in records] == [1, 2, 3, 4, 5]
    wins = {"greedy": 0, "search": 0}
    for record in records:
        assert record["settings"] == report["settings"] and record["result"]["forfeited"] == []
        for seat in record["seats"]:
            wins[seat["name"]] += record["result"]["ranks"][seat["seat"]] == 1
        assert all(action["latency_ms"] is None and action["fault"] is None for action in record["actions"])
    assert wins == {name: row["wins"] for name, row in report["wins_by_bot"].items()}
    second = run_json(capsys, "--players", "2", "--games", "1", "--bots", "greedy", "--game", "card")
    assert second["replays"] != written and len(replays(tmp_path / str(second["replays"]))) == 1


def test_replays_to_a_named_file_or_none(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(capsys, "--games", "3", "--players", "2", "--replays", "mine.jsonl")
    assert report["replays"] == "mine.jsonl" and len(replays(tmp_path / "mine.jsonl")) == 3
    report = run_json(capsys, "--games", "3", "--players", "2", "--no-replays")
    assert report["replays"] is None and not (tmp_path / "replays").exists()


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        pytest.param(["--players", "5"], "invalid choice: 5", id="players"),
        pytest.param(["--games", "0"], "expected a number from 1", id="games-zero"),
        pytest.param(["--games", "many"], "expected a whole number", id="games-text"),
        pytest.param(["--seed", "-3"], "expected a seed", id="seed"),
        pytest.param(
            ["--bots", "random,alphazero"], "unknown bot(s) 'alphazero': expected an engine bot", id="bots"
        ),
        pytest.param(["--variant", "team", "--players", "2"], "exactly 4 players", id="team-players"),
        pytest.param(["--edition", "2020"], "invalid choice: '2020'", id="edition"),
        pytest.param(["--frobnicate"], "unrecognized arguments", id="unknown-flag"),
        pytest.param(["--game", "card", "--variant", "team"], "apply to the board game", id="card-variant"),
        pytest.param(["--longer-game"], "apply to the card game", id="board-longer-game"),
        pytest.param(["--game", "card", "--pawns", "0"], "expected 1 to 20 pawns", id="pawns-zero"),
        pytest.param(["--game", "cards"], "invalid choice: 'cards'", id="game"),
    ],
)
def test_bad_flags_get_a_usage_error(capsys: pytest.CaptureFixture[str], flags: list[str], message: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["simulate", *flags])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "usage: sorry-arena" in err and message in err
    assert "Traceback" not in err


def test_the_installed_command_runs(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "cli.main", "simulate", "--games", "1", "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["games"] == 1
    assert completed.stderr == "", "no progress bar when the output is not a terminal"
