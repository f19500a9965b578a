"""``sorry-arena simulate`` with a bot author's file: ``--bots ./my_bot.py,greedy`` run as the author runs it, in a
folder outside the repository; the request its ``choose`` gets; faults and forfeits by the service's rules; the
replay file; bad files and flags as usage errors, never a traceback (the flags checked in-process)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.simulatekit import ROOT, replays, report, simulate, usage_error, write_bot
from tests.cli.usagekit import usage_error as in_process_usage_error

RAISES = """
    def choose(request):
        return 1 / 0
"""
ILLEGAL = """
    def choose(request):
        return "no-such-action"
"""
SLOW = """
    import time

    def choose(request):
        time.sleep(0.2)  # always longer than the 50 ms the test allows
        return request["actions"][0]["id"]
"""


def test_the_template_plays_greedy_from_a_folder_of_its_own(tmp_path: Path) -> None:
    shutil.copy(ROOT / "clients" / "bot.py", tmp_path / "my_bot.py")
    completed = simulate(tmp_path, "--bots", "./my_bot.py,greedy", "--games", "6", "--players", "2")
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    for text in ("./my_bot.py", "greedy", "95% interval", "mean rank", "faults", "p95 ms", "games/s", "replays: "):
        assert text in out, out
    assert "Traceback" not in completed.stderr
    written = out.split("replays: ", 1)[1].split(" (", 1)[0]
    assert written.startswith("replays/simulate-") and written.endswith(".jsonl")
    records = replays(tmp_path / written)
    assert len(records) == 6
    assert [record["game_id"] for record in records] == [1, 2, 3, 4, 5, 6]
    for record in records:
        names = [seat["name"] for seat in record["seats"]]
        assert sorted(names) == ["./my_bot.py", "greedy"]
        mine = names.index("./my_bot.py")
        timed = [action for action in record["actions"] if action["seat"] == mine]
        assert timed and all(action["latency_ms"] is not None and action["fault"] is None for action in timed)


def test_a_bot_file_imports_its_neighbours_and_gets_the_services_request(tmp_path: Path) -> None:
    folder = tmp_path / "bots"
    folder.mkdir()
    write_bot(folder, "helpers.py", "def first(actions):\n    return actions[0]['id']\n")
    write_bot(
        folder,
        "logged.py",
        """
        import json
        from pathlib import Path

        from helpers import first

        LOG = Path(__file__).with_name("requests.jsonl")

        def choose(request):
            with LOG.open("a") as log:
                log.write(json.dumps(request) + "\\n")
            return first(request["actions"])
        """,
    )
    result = report(
        tmp_path,
        "--bots",
        "bots/logged.py,random",
        "--games",
        "2",
        "--players",
        "2",
        "--move-timeout-ms",
        "60000",
        "--replays",
        "games.jsonl",
    )
    assert result["wins_by_bot"]["bots/logged.py"]["faults"] == 0
    requests = [json.loads(line) for line in (folder / "requests.jsonl").read_text().splitlines()]
    assert {request["game_id"] for request in requests} == {1, 2}
    first = requests[0]
    assert set(first) == {
        "type",
        "game_id",
        "tournament_id",
        "seat",
        "ply",
        "decision",
        "view",
        "actions",
        "deadline_ms",
        "last_latency_ms",
    }
    assert first["type"] == "move" and first["tournament_id"] is None and first["deadline_ms"] == 60000
    assert first["last_latency_ms"] is None and isinstance(requests[1]["last_latency_ms"], float)
    assert first["view"]["seat"] == first["seat"] and all("id" in action for action in first["actions"])
    # the plies are the game's: each request's ply is the number of moves before it in the replay
    records = {record["game_id"]: record for record in replays(tmp_path / "games.jsonl")}
    for request in requests:
        move = records[request["game_id"]]["actions"][request["ply"]]
        assert move["seat"] == request["seat"] and move["action"] == request["actions"][0]["id"]


@pytest.mark.parametrize(
    ("source", "fault", "detail"),
    [
        pytest.param(
            RAISES, "exception", "ZeroDivisionError: division by zero (bad.py, line 3, in choose)", id="raises"
        ),
        pytest.param(ILLEGAL, "illegal", "answered 'no-such-action'", id="illegal"),
        pytest.param(SLOW, "timeout", "the move timeout is 50 ms", id="slow"),
    ],
)
def test_faults_play_the_fallback_and_three_in_a_row_forfeit(
    tmp_path: Path, source: str, fault: str, detail: str
) -> None:
    write_bot(tmp_path, "bad.py", source)
    completed = simulate(
        tmp_path,
        *("--bots", "bad.py,greedy", "--games", "2", "--players", "2", "--move-timeout-ms", "50", "--json"),
        *("--replays", "games.jsonl"),
    )
    assert completed.returncode == 0, completed.stderr
    row = json.loads(completed.stdout)["wins_by_bot"]["bad.py"]
    assert (row["faults"], row["forfeits"], row["wins"], row["mean_rank"]) == (6, 2, 0, 2.0)
    assert row["first_fault"].startswith(f"{fault} in game 1 at ply ") and detail in row["first_fault"]
    for record in replays(tmp_path / "games.jsonl"):
        seat = next(seat["seat"] for seat in record["seats"] if seat["name"] == "bad.py")
        faults = [action["fault"] for action in record["actions"] if action["seat"] == seat]
        assert faults == [fault] * 3  # a two-seat game ends at the forfeit
        assert record["result"]["forfeited"] == [seat] and record["result"]["reason"] == "forfeit"


def test_a_forfeited_seat_plays_on_by_the_fallback_in_a_bigger_game(tmp_path: Path) -> None:
    write_bot(tmp_path, "bad.py", RAISES)
    result = report(
        tmp_path, "--bots", "bad.py,greedy,random", "--games", "3", "--players", "3", "--replays", "g.jsonl"
    )
    assert result["wins_by_bot"]["bad.py"]["forfeits"] == 3
    for record in replays(tmp_path / "g.jsonl"):
        seat = next(seat["seat"] for seat in record["seats"] if seat["name"] == "bad.py")
        faults = [action["fault"] for action in record["actions"] if action["seat"] == seat]
        assert faults[:3] == ["exception"] * 3 and set(faults[3:]) <= {"forfeit"}
        assert record["result"]["ranks"][seat] == 3


def test_a_bot_that_faults_now_and_then_is_not_forfeited(tmp_path: Path) -> None:
    write_bot(
        tmp_path,
        "flaky.py",
        """
        def choose(request):
            if request["ply"] % 5 == 0:
                raise RuntimeError("every fifth ply")
            return request["actions"][0]["id"]
        """,
    )
    result = report(tmp_path, "--bots", "flaky.py,greedy", "--players", "2", "--games", "2", "--no-replays")
    row = result["wins_by_bot"]["flaky.py"]
    assert row["faults"] > 0 and row["forfeits"] == 0
    assert result["replays"] is None and not (tmp_path / "replays").exists()


def test_json_has_the_wilson_intervals(tmp_path: Path) -> None:
    shutil.copy(ROOT / "clients" / "bot.py", tmp_path / "my_bot.py")
    result = report(tmp_path, "--bots", "my_bot.py,random", "--games", "8", "--players", "2", "--no-replays")
    for name, row in result["wins_by_bot"].items():
        low, high = row["win_interval"]
        assert 0.0 <= low <= row["win_rate"] <= high <= 1.0, (name, row)
        assert row["kind"] == ("file" if name == "my_bot.py" else "engine")
    mine = result["wins_by_bot"]["my_bot.py"]["latency_ms"]
    assert mine["answers"] > 0 and 0 <= mine["mean"] <= mine["max"] and mine["p95"] <= mine["max"]
    assert result["wins_by_bot"]["random"]["latency_ms"] is None


def test_what_a_bot_prints_leaves_the_json_alone(tmp_path: Path) -> None:
    write_bot(
        tmp_path,
        "chatty.py",
        """
        print("loading")

        def choose(request):
            print("thinking")
            return request["actions"][0]["id"]
        """,
    )
    completed = simulate(tmp_path, "--bots", "chatty.py,greedy", "--games", "1", "--json", "--no-replays")
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["games"] == 1
    assert "loading" in completed.stderr and "thinking" in completed.stderr


@pytest.mark.parametrize(
    ("files", "bots", "message"),
    [
        pytest.param({}, "./missing.py,greedy", "no such bot file: ./missing.py", id="missing"),
        pytest.param(
            {"empty.py": "X = 1\n"}, "empty.py,greedy", "empty.py defines no choose(request)", id="no-choose"
        ),
        pytest.param(
            {"broken.py": "def choose(request)\n    return 1\n"},
            "broken.py",
            "cannot load broken.py: SyntaxError",
            id="syntax",
        ),
        pytest.param(
            {"needs.py": "import no_such_module_here\n"},
            "needs.py",
            "ModuleNotFoundError: No module named 'no_such_module_here' (needs.py, line 1",
            id="import",
        ),
        pytest.param({"quits.py": "raise SystemExit(3)\n"}, "quits.py", "called sys.exit()", id="exits"),
        pytest.param({}, "greedy,alphazero", "unknown bot(s) 'alphazero'", id="unknown-name"),
        pytest.param({}, "greedy,,random", "an empty entry", id="empty-entry"),
        pytest.param({}, "ftp://127.0.0.1/bot", "must start with http:// or https://", id="url-scheme"),
        pytest.param({}, "http://,greedy", "bad bot URL 'http://'", id="url-no-host"),
        pytest.param({}, "http://127.0.0.1:1/bot", "did not answer its info route: connection", id="url-nobody"),
        pytest.param({}, "http://10.1.2.3:8001/bot", "--allow lists the networks", id="url-refused"),
    ],
)
def test_bad_bots_are_usage_errors(tmp_path: Path, files: dict[str, str], bots: str, message: str) -> None:
    for name, source in files.items():
        write_bot(tmp_path, name, source)
    err = usage_error(simulate(tmp_path, "--bots", bots, "--games", "1"))
    assert message in err, err
    assert not (tmp_path / "replays").exists(), "nothing is written before the bots load"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        pytest.param(["--move-timeout-ms", "5"], "expected 10 to 60000 milliseconds", id="timeout-small"),
        pytest.param(["--move-timeout-ms", "soon"], "expected a whole number of milliseconds", id="timeout-text"),
        pytest.param(["--allow", "the moon"], "allowlist entry 'the moon'", id="allow"),
        pytest.param(["--replays", "no/such/folder/x.jsonl"], "cannot write the replay file", id="replays-folder"),
        pytest.param(["--replays", "x.jsonl", "--no-replays"], "not allowed with argument", id="replays-both"),
    ],
)
def test_bad_runner_flags_are_usage_errors(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    err = in_process_usage_error(capsys, "simulate", "--games", "1", *flags)
    assert "usage: sorry-arena simulate" in err and message in err, err
