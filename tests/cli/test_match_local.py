"""``sorry-arena match`` between local bots, as a bot author runs it (a subprocess in a folder outside the
repository, no service): the SPRT reaches its verdict on the service's paired schedule, the printed LLR is the
test's own of the printed counts, every game is in the replay file (checked records, pairs on one deal with the
seats swapped), a bot file plays, usage errors are sentences (checked in-process, in such a folder), and Ctrl-C
prints what was decided so far; ``--json`` on the service path too."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from ratings.sprt import Sprt
from tests.apikit import SQLITE_ONLY
from tests.cli import test_tournament
from tests.cli.simulatekit import COMMAND, PATIENCE_S, ROOT, replays, write_bot
from tests.cli.test_tournament import Service, command
from tests.cli.usagekit import usage_error

service = test_tournament.service  # the live service fixture (for --json on the service path)


def match(folder: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    """``sorry-arena match FLAGS`` run in ``folder``, with no service to reach."""
    assert not folder.resolve().is_relative_to(ROOT), "the test runs outside the repository"
    return subprocess.run(
        [COMMAND, "match", *flags],
        cwd=folder,
        env={**os.environ, "SORRY_ARENA_API": "http://127.0.0.1:9"},
        capture_output=True,
        text=True,
        timeout=PATIENCE_S,
        check=False,
    )


def test_greedy_beats_random_well_before_max_games(tmp_path: Path) -> None:
    done = match(tmp_path, "greedy", "random", "--game", "card", "--max-games", "1000", "--seed", "7")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "local match: greedy (A) against random (B), card game, 2 seats per game, seed 7" in done.stdout
    assert "the test: elo0=0, elo1=30, normalized Elo, at 2 seats, alpha 0.05, beta 0.05" in done.stdout
    assert (
        "if A is truly +30 normalized Elo: H1 75% (95% without a limit), no verdict in 1000 games 21%, about 605 games"
    ) in done.stdout
    verdict = re.search(
        r"verdict: H1: evidence that greedy is stronger than random \(H1 accepted at elo0=0, elo1=30, normalized "
        r"Elo, at 2 seats\); (\d+) games",
        done.stdout,
    )
    assert verdict is not None, done.stdout
    games = int(verdict.group(1))
    assert games < 200  # well before --max-games
    shown = re.findall(r"LLR ([+-]\d+\.\d\d) \(-2\.94, 2\.94\), (\d+) pairs \[([\d, ]+)\]", done.stdout)
    assert shown, done.stdout
    llr, pairs, counts = shown[-1]
    parsed = [int(count) for count in counts.split(",")]
    assert int(pairs) == sum(parsed) == games // 2
    assert llr == f"{Sprt(0.0, 30.0, 0.05, 0.05, 'normalized').llr(parsed):+.2f}"
    default = list((tmp_path / "replays").glob("simulate-*.jsonl"))
    assert len(default) == 1 and f"replays: replays/{default[0].name} ({games} games)" in done.stdout
    assert re.search(
        r"estimate: [+-]\d+ \[[+-]\d+, [+-]\d+\] normalized Elo, .* logistic \(nominal 95%", done.stdout
    )
    assert "not corrected for early stopping" in done.stdout


def test_json_llr_and_replays_of_the_paired_deals(tmp_path: Path) -> None:
    write_bot(tmp_path, "first.py", BOT)
    flags = ["--game", "board", "--table-size", "3", "--fillers", "first.py", "--max-games", "12", "--seed", "5"]
    flags += [
        "--elo0",
        "-10",
        "--elo1",
        "10",
        "--alpha",
        "0.01",
        "--model",
        "logistic",
        "--replays",
        "games.jsonl",
    ]
    done = match(tmp_path, "greedy", "random", *flags, "--json")
    assert "Traceback" not in done.stderr
    result = json.loads(done.stdout)
    assert done.returncode == {"H1": 0, "H0": 3, "inconclusive": 4}[result["verdict"]]
    assert result["llr"] == Sprt(-10.0, 10.0, 0.01, 0.05, "logistic").llr(result["counts"])
    assert result["pairs"] == sum(result["counts"]) == result["games"] // 2 > 0
    records = replays(tmp_path / "games.jsonl")
    assert len(records) == result["games"] and [r["game_id"] for r in records] == list(range(1, len(records) + 1))
    swap = {"greedy": "random", "random": "greedy", "first.py": "first.py"}
    for first, second in zip(records[::2], records[1::2], strict=True):
        assert first["seed"] == second["seed"]
        seats = [player["name"] for player in first["seats"]]
        assert sorted(seats) == ["first.py", "greedy", "random"]
        assert [player["name"] for player in second["seats"]] == [swap[name] for name in seats]
    assert len({record["seed"] for record in records}) == len(records) // 2  # a new deal per pair


BOT = """
    def choose(request):
        return request["actions"][0]["id"]  # the first action offered: weaker than greedy
"""


def test_a_bot_file_outside_the_repository_plays_greedy(tmp_path: Path) -> None:
    write_bot(tmp_path, "my_bot.py", BOT)
    flags = ["--game", "card", "--max-games", "6", "--seed", "1", "--replays", "games.jsonl", "--json"]
    done = match(tmp_path, "./my_bot.py", "greedy", *flags)
    assert "Traceback" not in done.stderr
    result = json.loads(done.stdout)
    assert result["name_a"] == "./my_bot.py" and result["games"] == 6 and result["verdict"] == "inconclusive"
    assert done.returncode == 4
    records = replays(tmp_path / "games.jsonl")
    assert len(records) == 6
    assert {player["name"] for record in records for player in record["seats"]} == {"./my_bot.py", "greedy"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["7", "./my_bot.py"], "cannot mix a bot id with a local bot ('./my_bot.py')"),
        (["greedy", "12"], "cannot mix a bot id with a local bot ('greedy')"),
        (["./missing.py", "greedy"], "no such bot file: ./missing.py"),
        (["greedy", "random", "--table-size", "4", "--fillers", "random"], "needs 2 filler bot(s), got 1"),
        (["greedy", "greedy"], "A and B must be different bots"),
        (["greedy", "random", "--elo0", "5", "--elo1", "5"], "--elo0 must be less than --elo1"),
        (["greedy", "random", "--no-watch"], "--no-watch: a local match is played here"),
        (["1", "2", "--replays", "x.jsonl"], "--replays applies to a local match"),
        (["nonsense", "random"], "unknown bot(s) 'nonsense'"),
    ],
)
def test_usage_errors(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    write_bot(tmp_path, "my_bot.py", BOT)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SORRY_ARENA_API", "http://127.0.0.1:9")
    err = usage_error(capsys, "match", *args, "--game", "card")
    assert "usage: sorry-arena match" in err and message in err, err


STOPS_IN_GAME_4 = """
    import os
    import signal

    def choose(request):
        if request["game_id"] == 4 and request["ply"] >= 6:
            os.kill(os.getpid(), signal.SIGINT)  # the author presses Ctrl-C in the second pair's second game
        return request["actions"][0]["id"]
"""


@pytest.mark.parametrize("json_output", [False, True], ids=["text", "json"])
def test_ctrl_c_prints_what_was_decided(tmp_path: Path, json_output: bool) -> None:
    write_bot(tmp_path, "stops.py", STOPS_IN_GAME_4)
    flags = ["--game", "card", "--max-games", "100", "--seed", "2", "--replays", "games.jsonl"]
    done = match(tmp_path, "./stops.py", "greedy", *flags, *(["--json"] if json_output else []))
    assert done.returncode == 130, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    if json_output:
        result = json.loads(done.stdout)
        assert result["interrupted"] is True and result["games"] == 3 and result["pairs"] == 1
        assert result["verdict"] == "continue"
    else:
        assert re.search(
            r"interrupted: LLR [+-]\d\.\d\d .*, 1 pairs \[[\d, ]+\], normalized Elo -inf .*; 3 games played",
            done.stdout,
        )
        assert "replays: games.jsonl (3 games)" in done.stdout
    assert [record["game_id"] for record in replays(tmp_path / "games.jsonl")] == [1, 2, 3]


@SQLITE_ONLY
def test_json_on_the_service_path_too(service: Service) -> None:
    """``--json`` means the same for bot ids: the match as the service gives it, no bar."""
    a, b = service.bot_ids
    flags = ["--game", "card", "--max-games", "2", "--api", service.url, "--token", service.owner.token, "--json"]
    done = command("match", str(a), str(b), *flags)
    assert done.returncode == 4, done.stderr
    result = json.loads(done.stdout)
    assert result["verdict"] == "inconclusive" and result["pairs"] == 1 and result["bot_a"] == a
