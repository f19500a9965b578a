"""``sorry-arena selfplay``: its JSON lines and Parquet files read back (a row per decision, every field, results
filled in), the same games as ``sorry-arena simulate``, and clear usage errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import engine
from cli.main import main
from engine.simulation import game_seed, play_game, seating
from envs.selfplay import FIELDS


def selfplay(capsys: pytest.CaptureFixture[str], *flags: str) -> dict[str, object]:
    assert main(["selfplay", "--json", *flags]) == 0
    return dict(json.loads(capsys.readouterr().out))


def check_rows(rows: list[dict[str, object]], games: int, players: int) -> None:
    assert rows and all(tuple(row) == FIELDS for row in rows)
    assert sorted({row["game"] for row in rows}) == list(range(games))  # type: ignore[type-var]
    for row in rows:
        view = row["view"]
        assert isinstance(view, dict) and view["seat"] == row["seat"] and view["ply"] == row["ply"]
        assert row["action"] in row["legal"]  # type: ignore[operator]
        ranks = row["ranks"]
        assert isinstance(ranks, list) and len(ranks) == players and row["rank"] == ranks[row["seat"]]  # type: ignore[index]
        assert row["reason"] in ("win", "turn_cap", "stalled")


def test_jsonl_rows_replay_the_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "card.jsonl"
    summary = selfplay(
        capsys, "--game", "card", "--players", "3", "--games", "4", "--out", str(out), "--seed", "7"
    )
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert summary["rows"] == len(rows) and summary["games"] == 4
    check_rows(rows, games=4, players=3)
    for index in range(4):  # the actions replay to the recorded ranks; the same games as simulate's
        mine = [row for row in rows if row["game"] == index]
        state = engine.replay(
            "card", mine[0]["view"]["settings"], mine[0]["seed"], [row["action"] for row in mine]
        )
        assert list(engine.result(state).ranks) == mine[0]["ranks"]  # type: ignore[union-attr]
        bots = seating(["greedy"], 3, index)
        record = play_game("card", mine[0]["view"]["settings"], game_seed(7, index), bots)
        assert [move[1] for move in record.moves] == [row["action"] for row in mine]


def test_a_view_in_the_rows_hides_the_other_hands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "card.jsonl"
    selfplay(capsys, "--game", "card", "--games", "1", "--out", str(out))
    for line in out.read_text(encoding="utf-8").splitlines():
        view = json.loads(line)["view"]
        assert "hands" not in view and isinstance(view["hand"], list) and isinstance(view["draw_pile"], int)


def test_parquet_rows_read_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import pyarrow.parquet as pq

    out = tmp_path / "board.parquet"
    summary = selfplay(capsys, "--games", "3", "--bots", "random,greedy", "--players", "4", "--out", str(out))
    rows = pq.read_table(out).to_pylist()
    assert summary["rows"] == len(rows)
    for row in rows:
        row["view"] = json.loads(row["view"])
    check_rows(rows, games=3, players=4)
    assert {row["bot"] for row in rows} == {"random", "greedy"}


def test_parquet_without_pyarrow_says_which_extra(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow now fails, as when it is not installed
    with pytest.raises(SystemExit) as exit_info:
        main(["selfplay", "--games", "1", "--out", str(tmp_path / "x.parquet")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "pip install 'sorry-arena[parquet]'" in err and "Traceback" not in err
    assert not (tmp_path / "x.parquet").exists()


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        pytest.param(["--out", "x.csv"], "must end in .jsonl or .parquet", id="format"),
        pytest.param([], "the following arguments are required: --out", id="no-out"),
        pytest.param(
            ["--out", "x.jsonl", "--bots", "random,alphazero"], "unknown engine bot(s) 'alphazero'", id="bot"
        ),
        pytest.param(["--out", "x.jsonl", "--games", "0"], "expected a number from 1", id="games"),
        pytest.param(["--out", "x.jsonl", "--seed", "x"], "expected a whole number", id="seed"),
        pytest.param(
            ["--out", "x.jsonl", "--game", "card", "--variant", "team"], "apply to the board game", id="v"
        ),
        pytest.param(["--out", "x.jsonl", "--variant", "team", "--players", "2"], "exactly 4 players", id="team"),
        pytest.param(["--out", "no/such/dir/x.jsonl"], "cannot write no/such/dir/x.jsonl", id="directory"),
    ],
)
def test_bad_flags_get_a_usage_error(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    flags: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(["selfplay", "--games", "1", *flags])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "usage: sorry-arena selfplay" in err and message in err and "Traceback" not in err


def test_selfplay_loads_no_environment_library() -> None:
    """The data needs neither the gym extra nor, for JSON lines, pyarrow: none is loaded by the command."""
    from tests.test_layers import loaded_top_levels

    loaded = loaded_top_levels("cli.selfplay")
    assert {"envs", "engine"} <= loaded
    assert not loaded & {"pettingzoo", "gymnasium", "pyarrow", "numpy"}, sorted(loaded)
