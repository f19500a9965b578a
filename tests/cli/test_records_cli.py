"""``sorry-arena export`` and ``sorry-arena replay``, run as a user runs them (subprocesses of the installed
command): a small tournament played into a database (SQLite and PostgreSQL) is exported from the database and
through the API alike, every record replays; a tampered record is named with its ply (exit 1); a file that is not
JSON lines is refused with its line (exit 2); an unknown tournament and an unreachable service are one-line errors;
and bad flags of ``export`` are usage errors (checked in-process)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import engine
from engine import records
from tests.apikit import new_player
from tests.arenakit import (
    arena_app,
    create_tournament,
    greedy_choice,
    push_bots,
    random_choice,
    register,
    wait_done,
)
from tests.botservers import closed_port
from tests.cli.usagekit import usage_error
from tests.conftest import dispose
from tests.liveserver import serving

COMMAND = str(Path(sys.executable).with_name("sorry-arena"))
ROOT = Path(__file__).resolve().parents[2]


def sorry_arena(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("SORRY_ARENA_")}
    return subprocess.run(
        [COMMAND, *args], capture_output=True, text=True, input=stdin, timeout=180, cwd=ROOT, env=env
    )


@dataclass
class Played:
    database_url: str
    api: str
    tournament_id: int
    game_ids: list[int]


@pytest.fixture
def played(database_url: str) -> Iterator[Played]:
    """A 2-game card round robin (greedy against random) played into a fresh database, the service up meanwhile."""
    app = arena_app(database_url)
    client = app.test_client()
    owner = new_player(client, "owner")
    try:
        with serving(app) as base, push_bots(greedy_choice, random_choice) as servers:
            bots = [
                register(client, owner, name, s.url) for name, s in zip(("greedy", "random"), servers, strict=True)
            ]
            created = create_tournament(
                client, owner, [bot["id"] for bot in bots], game="card", settings={"pawns": 2}
            )
            done = wait_done(client, created["id"])
            yield Played(database_url, base, done["id"], [result["game_id"] for result in done["results"]])
            app.extensions["queue"].wait(timeout=60)
    finally:
        dispose(app)


def lines_of(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines()]


def test_export_from_the_database_and_through_the_api_give_the_same_records(
    played: Played, tmp_path: Path
) -> None:
    output = tmp_path / "games.jsonl"
    direct = sorry_arena(
        "export",
        "--tournament",
        str(played.tournament_id),
        "--database-url",
        played.database_url,
        "-o",
        str(output),
    )
    assert direct.returncode == 0, direct.stderr
    assert direct.stdout == ""
    assert f"tournament {played.tournament_id}: 2 finished games" in direct.stderr
    exported = lines_of(output.read_text())
    assert sorted(record["game_id"] for record in exported) == sorted(played.game_ids)  # type: ignore[type-var]
    assert all(records.check(record) == [] for record in exported)
    assert not (tmp_path / "games.jsonl.part").exists()

    through_api = sorry_arena("export", "--tournament", str(played.tournament_id), "--api", played.api)
    assert through_api.returncode == 0, through_api.stderr
    assert through_api.stdout == output.read_text()  # the same bytes

    replayed = sorry_arena("replay", str(output))
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    shown = replayed.stdout.splitlines()
    for record in exported:
        assert f"game {record['game_id']}: ok, {len(record['actions'])} actions" in shown  # type: ignore[arg-type]
    assert shown[-1] == "2 games: 2 ok, 0 with problems"


def test_export_errors_are_one_line(played: Played, tmp_path: Path) -> None:
    unknown = sorry_arena("export", "--tournament", "999", "--api", played.api)
    assert unknown.returncode == 1 and unknown.stdout == ""
    assert unknown.stderr == "sorry-arena export: HTTP 404: no tournament 999\n"
    missing = sorry_arena("export", "--tournament", "999", "--database-url", played.database_url)
    assert missing.returncode == 1 and missing.stderr.strip().endswith(": no tournament 999")
    assert "\n" not in missing.stderr.strip()
    folder = tmp_path / "out"
    folder.mkdir()
    output = folder / "none.jsonl"
    down = sorry_arena(
        "export", "--tournament", "1", "--api", f"http://127.0.0.1:{closed_port()}", "-o", str(output)
    )
    assert down.returncode == 1
    assert down.stderr.startswith("sorry-arena export: cannot reach the service at http://127.0.0.1:")
    assert "Traceback" not in down.stderr
    assert list(folder.iterdir()) == []  # neither the file nor its partial download


def test_export_from_a_database_that_cannot_be_read_is_one_line(tmp_path: Path) -> None:
    unmigrated = sorry_arena("export", "--tournament", "1", "--database-url", f"sqlite:///{tmp_path / 'empty.db'}")
    assert unmigrated.returncode == 1
    assert (
        unmigrated.stderr.startswith("sorry-arena export: cannot read sqlite:///")
        and "no such table" in unmigrated.stderr
    )
    down = sorry_arena(
        "export", "--tournament", "1", "--database-url", f"postgresql://x@127.0.0.1:{closed_port()}/x"
    )
    assert down.returncode == 1 and down.stderr.startswith("sorry-arena export: cannot read postgresql+psycopg://")
    assert down.stderr.count("\n") == 1 and "Traceback" not in down.stderr


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--tournament", "abc"], "expected a whole number"),
        (["--tournament", "0"], "expected a tournament id from 1"),
        ([], "the following arguments are required: --tournament"),
        (["--tournament", "1", "--api", "http://x", "--database-url", "sqlite://"], "not allowed with argument"),
        (["--tournament", "1", "--api", "ftp://x"], "--api must be an http:// or https:// URL"),
        (["--tournament", "1", "--database-url", "mysql+nodriver://x"], "--database-url"),
    ],
)
def test_export_usage_errors(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    monkeypatch.delenv("SORRY_ARENA_API", raising=False)
    assert message in usage_error(capsys, "export", *flags)


def good_records() -> list[dict[str, object]]:
    """Two short simulated card games' records (in-process, as ``sorry-arena simulate`` plays them)."""
    made = []
    for game_id, seed in ((5, 1), (6, 2)):
        state = engine.new_game("card", {"players": 2, "pawns": 1}, seed)
        rng = random.Random(seed)
        actions = []
        while (asked := engine.decision(state)) is not None:
            action = rng.choice(engine.legal_actions(state, asked.seat)).id
            actions.append({"ply": len(actions), "seat": asked.seat, "action": action, "latency_ms": 1.0})
            engine.apply(state, action, asked.seat)
        result = engine.result(state)
        assert result is not None
        seats = [{"seat": 0, "name": "ann"}, {"seat": 1, "name": "bob"}]
        made.append(
            records.make_record(
                "card", {"players": 2, "pawns": 1}, seed, seats, actions, result.to_json(), game_id=game_id
            )
        )
    return made


def test_replay_names_the_ply_of_a_tampered_record(tmp_path: Path) -> None:
    good, other = good_records()
    tampered = json.loads(json.dumps(other))
    tampered["actions"][3]["action"] = "play:slide21"
    path = tmp_path / "games.jsonl"
    path.write_text(records.dumps(good) + "\n" + records.dumps(tampered) + "\n")
    completed = sorry_arena("replay", str(path))
    assert completed.returncode == 1, completed.stdout + completed.stderr
    lines = completed.stdout.splitlines()
    assert lines[0] == f"game 5: ok, {len(good['actions'])} actions"  # type: ignore[arg-type]
    assert lines[1].startswith("game 6: ply 3: action 'play:slide21' is not legal for seat")
    assert lines[2] == "2 games: 1 ok, 1 with problems"

    from_stdin = sorry_arena("replay", "-", stdin=records.dumps(good) + "\n")
    assert from_stdin.returncode == 0 and from_stdin.stdout.splitlines()[-1] == "1 game: 1 ok, 0 with problems"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{}\nthis is not JSON\n", "games.jsonl: line 2: not JSON"),
        ("[1, 2]\n", "games.jsonl: line 1: a record must be a JSON object, not a list"),
        ("", "games.jsonl: no game records in it"),
        (None, "games.jsonl: cannot read it (No such file or directory)"),
    ],
)
def test_replay_of_input_that_is_not_records_exits_2_naming_the_line(
    tmp_path: Path, content: str | None, message: str
) -> None:
    path = tmp_path / "games.jsonl"
    if content is not None:
        path.write_text(content)
    completed = sorry_arena("replay", str(path))
    assert completed.returncode == 2
    assert message in completed.stderr and "Traceback" not in completed.stderr
    assert len(completed.stderr.strip().splitlines()) == 1


def test_replay_of_bytes_that_are_not_text_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    path.write_bytes(records.dumps(good_records()[0]).encode() + b"\n\xff\xfe\n")
    completed = sorry_arena("replay", str(path))
    assert completed.returncode == 2
    assert "line 2: not UTF-8 text" in completed.stderr
