"""Game records (engine/records.py): a simulated game's record round-trips and checks; every kind of corruption is
reported with its ply; tournament forfeits rank as the runner ranks them; bad JSON lines are named."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

import engine
from engine import records


def played(
    game: str,
    settings: dict[str, Any],
    seed: int,
    faults: dict[tuple[int, int], str] | None = None,
    excluded: frozenset[int] = frozenset(),
) -> dict[str, Any]:
    """A game played as the tournament runner plays it: random bots, the seeded fallback for a planned fault
    (``faults``: (seat, the seat's move number) -> fault) and for a forfeited seat (3 faults in a row, or ``excluded`` from the start), the
    game stopped once at most one seat still plays; its record."""
    state = engine.new_game(game, settings, seed)
    players = engine.normalize_settings(game, settings)["players"]
    rng = random.Random(seed)
    forfeited = set(excluded)
    in_a_row = [0] * players
    actions: list[dict[str, Any]] = []
    plan = faults or {}
    moves = [0] * players
    while (asked := engine.decision(state)) is not None and players - len(forfeited) > 1:
        ply, seat = len(actions), asked.seat
        if seat in forfeited:
            action, fault, latency = engine.fallback_action(state), "forfeit", None
        elif (seat, moves[seat]) in plan:
            action, fault, latency = engine.fallback_action(state), plan[seat, moves[seat]], 2000.0
        else:
            action, fault, latency = rng.choice(engine.legal_actions(state, seat)).id, None, 3.25
        engine.apply(state, action, seat)
        moves[seat] += 1
        actions.append({"ply": ply, "seat": seat, "action": action, "latency_ms": latency, "fault": fault})
        if fault is None:
            in_a_row[seat] = 0
        elif fault != "forfeit":
            in_a_row[seat] += 1
            if in_a_row[seat] >= records.FAULTS_TO_FORFEIT:
                forfeited.add(seat)
    result = records.final_result(engine.result(state), players, forfeited)
    seats = [{"seat": seat, "name": f"bot{seat}", "bot_id": 10 + seat} for seat in range(players)]
    return records.make_record(
        game,
        settings,
        seed,
        seats,
        actions,
        result,
        game_id=7,
        tournament_id=2,
        started_at="2024-05-01T10:00:00+00:00",
        finished_at="2024-05-01T10:01:00+00:00",
    )


@pytest.fixture(scope="module")
def board() -> dict[str, Any]:
    return played("board", {"players": 3}, 11)


@pytest.fixture(scope="module")
def card() -> dict[str, Any]:
    return played("card", {"players": 2}, 5)


def problems_of(record: dict[str, Any]) -> str:
    found = records.check(record)
    assert found, "the corruption went unnoticed"
    return "\n".join(found)


@pytest.mark.parametrize("game", ["board", "card"])
def test_a_simulated_game_round_trips_through_a_line_and_checks(
    game: str, board: dict[str, Any], card: dict[str, Any]
) -> None:
    record = board if game == "board" else card
    line = records.dumps(record)
    assert "\n" not in line and ": " not in line  # one compact line
    assert list(json.loads(line))[:8] == [
        "format",
        "version",
        "game",
        "settings",
        "seed",
        "seats",
        "actions",
        "result",
    ]
    assert list(json.loads(line)["actions"][0]) == ["ply", "seat", "action", "latency_ms", "fault"]
    (read,) = records.read_jsonl([line + "\n"])
    assert read == record
    assert records.dumps(read) == line  # a stable order: writing what was read gives the same line
    assert records.check(read) == []
    assert read["format"] == records.FORMAT and read["version"] == 1
    assert read["settings"] == engine.normalize_settings(game, read["settings"])  # stored complete


def test_an_engine_result_is_stored_as_the_service_stores_results() -> None:
    state = engine.new_game("board", {"variant": "points", "players": 2}, 3)
    actions = []
    while not engine.is_over(state):
        action = engine.fallback_action(state)
        actions.append({"ply": state.ply, "seat": engine.decision(state).seat, "action": action})  # type: ignore[union-attr]
        engine.apply(state, action)
    done = engine.result(state)
    assert done is not None and done.scores is not None
    seats = [{"seat": 0, "name": "ann", "player_id": 1}, {"seat": 1, "name": "bob", "player_id": 2}]
    record = records.make_record("board", {"variant": "points", "players": 2}, 3, seats, actions, done.to_json())
    assert record["result"] == {
        "ranks": list(done.ranks),
        "reason": "win",
        "forfeited": [],
        "scores": list(done.scores),
    }
    assert record["actions"][0]["latency_ms"] is None and record["actions"][0]["fault"] is None
    assert records.check(record) == []
    record["result"]["scores"][0] += 1
    assert "result.scores" in problems_of(record)


def test_a_void_result_keeps_its_reason() -> None:
    """A tournament game void (rated for nobody) keeps why in its record's result, which still checks."""
    record = played("card", {"players": 2}, 5)
    void = records.make_record(
        "card",
        record["settings"],
        record["seed"],
        record["seats"],
        record["actions"],
        {**record["result"], "void_reason": "excluded"},
    )
    assert void["result"]["void_reason"] == "excluded" and records.check(void) == []
    void["result"]["void_reason"] = 3
    assert "result.void_reason: must be a string, got 3" in problems_of(void)


def test_an_unfinished_game_has_no_result_and_checks() -> None:
    record = played("card", {"players": 2}, 5)
    record["actions"] = record["actions"][:20]
    record["result"] = None
    assert records.check(record) == []
    record["result"] = {"ranks": [1, 2], "reason": "win", "forfeited": []}
    assert "ply 20: the record has a result, but the game goes on" in problems_of(record)


def test_a_seat_that_faults_three_times_in_a_row_forfeits_and_ranks_last() -> None:
    record = played("board", {"players": 3}, 11, faults={(1, 2): "timeout", (1, 3): "illegal", (1, 4): "status"})
    faulted = [a["ply"] for a in record["actions"] if a["fault"] not in (None, "forfeit")]
    assert len(faulted) == 3 and {record["actions"][ply]["seat"] for ply in faulted} == {1}
    assert record["result"]["forfeited"] == [1] and record["result"]["reason"] == "forfeit"
    assert record["result"]["ranks"][1] == 3
    assert any(action["fault"] == "forfeit" for action in record["actions"])
    assert records.check(record) == []

    hidden = copy.deepcopy(record)
    hidden["result"]["forfeited"] = []
    assert "result.forfeited is [], but the engine's (with forfeits applied) is [1]" in problems_of(hidden)

    marked = copy.deepcopy(record)
    later = next(a for a in marked["actions"] if a["fault"] == "forfeit")
    later["fault"] = "timeout"
    assert f"ply {later['ply']}: seat 1 had forfeited (at ply {faulted[-1] + 1})" in problems_of(marked)

    good = copy.deepcopy(record)
    good["actions"][faulted[1]]["fault"] = None  # the bot's own move: no longer three in a row
    assert f"ply {len(good['actions'])}: result.forfeited is [1], but" in problems_of(good)


def test_a_two_player_game_stops_at_the_forfeit_and_nothing_may_follow() -> None:
    record = played("card", {"players": 2}, 5, faults={(0, n): "timeout" for n in range(3)})
    assert [a["fault"] for a in record["actions"] if a["seat"] == 0] == ["timeout"] * 3
    end = len(record["actions"])
    assert record["actions"][-1]["seat"] == 0
    assert record["result"] == {"ranks": [2, 1], "reason": "forfeit", "forfeited": [0]}
    assert records.check(record) == []
    longer = copy.deepcopy(record)
    state = engine.replay("card", record["settings"], record["seed"], [a["action"] for a in record["actions"]])
    asked = engine.decision(state)
    assert asked is not None
    following = engine.legal_actions(state, asked.seat)[0].id
    longer["actions"].append(
        {"ply": end, "seat": asked.seat, "action": following, "latency_ms": 1.0, "fault": None}
    )
    assert f"ply {end}: the game ended by forfeit at ply {end}, yet actions follow" in problems_of(longer)


def test_a_seat_excluded_from_the_start_forfeits_every_move() -> None:
    record = played("board", {"players": 3}, 4, excluded=frozenset({2}))
    assert record["result"]["forfeited"] == [2] and record["result"]["ranks"][2] == 3
    assert all(a["fault"] == "forfeit" for a in record["actions"] if a["seat"] == 2)
    assert records.check(record) == []
    empty = played("card", {"players": 2}, 4, excluded=frozenset({0}))
    assert empty["actions"] == [] and empty["result"]["ranks"] == [2, 1]
    assert records.check(empty) == []


def corrupt_seat(record: dict[str, Any]) -> str:
    record["actions"][6]["seat"] = (record["actions"][6]["seat"] + 1) % 3
    return "ply 6: seat"


def corrupt_action(record: dict[str, Any]) -> str:
    record["actions"][9]["action"] = "sorry:red:blue9"
    return "ply 9: action 'sorry:red:blue9' is not legal for seat"


def corrupt_fault(record: dict[str, Any]) -> str:
    ply = next(
        a["ply"]
        for a in record["actions"]
        if len(engine.legal_actions(at(record, a["ply"]), a["seat"])) > 1
        and a["action"] != engine.fallback_action(at(record, a["ply"]))
    )
    record["actions"][ply]["fault"] = "timeout"
    return f"ply {ply}: seat {record['actions'][ply]['seat']}'s action"


def corrupt_ranks(record: dict[str, Any]) -> str:
    record["result"]["ranks"] = list(reversed(record["result"]["ranks"]))
    return f"ply {len(record['actions'])}: result.ranks"


def corrupt_reason(record: dict[str, Any]) -> str:
    record["result"]["reason"] = "turn_cap"
    return f"ply {len(record['actions'])}: result.reason is 'turn_cap'"


def corrupt_truncate(record: dict[str, Any]) -> str:
    del record["actions"][-3:]
    return f"ply {len(record['actions'])}: the record has a result, but the game goes on"


def corrupt_extend(record: dict[str, Any]) -> str:
    last = dict(record["actions"][-1])
    last["ply"] += 1
    record["actions"].append(last)
    return f"ply {last['ply']}: the game was already over"


def corrupt_unfinished(record: dict[str, Any]) -> str:
    record["result"] = None
    return f"ply {len(record['actions'])}: the game is over after the last action, but the record has no result"


def corrupt_ply(record: dict[str, Any]) -> str:
    record["actions"][3]["ply"] = 4
    return 'ply 3: the action\'s "ply" is 4'


def corrupt_latency(record: dict[str, Any]) -> str:
    record["actions"][5]["latency_ms"] = -1
    return 'ply 5: "latency_ms" must be null or a number >= 0'


def corrupt_seed(record: dict[str, Any]) -> str:
    record["seed"] += 1
    return "ply "  # another deal: some ply's action is illegal, or the result differs


def at(record: dict[str, Any], ply: int) -> engine.State:
    return engine.replay(
        record["game"], record["settings"], record["seed"], [a["action"] for a in record["actions"][:ply]]
    )


@pytest.mark.parametrize(
    "corrupt",
    [
        corrupt_seat,
        corrupt_action,
        corrupt_fault,
        corrupt_ranks,
        corrupt_reason,
        corrupt_truncate,
        corrupt_extend,
        corrupt_unfinished,
        corrupt_ply,
        corrupt_latency,
        corrupt_seed,
    ],
)
def test_each_corruption_is_reported_with_its_ply(board: dict[str, Any], corrupt: Any) -> None:
    record = copy.deepcopy(board)
    expected = corrupt(record)
    assert expected in problems_of(record)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"format": "chess-pgn"}, "format: unknown format 'chess-pgn'"),
        ({"version": 2}, "version: unknown version 2"),
        ({"game": "chess"}, "game: unknown game 'chess'"),
        ({"settings": {"players": 9}}, "settings: players must be"),
        ({"settings": {"players": 3}}, "settings: not complete"),
        ({"seed": -1}, "seed: must be an integer"),
        ({"seats": [{"seat": 0, "name": "a"}]}, "seats: must be a list of 3 seats"),
        ({"seats": [{"seat": 0, "name": "a"}, {"seat": 2, "name": "b"}, {"seat": 1, "name": "c"}]}, "seats[1]"),
        ({"actions": "1:start:red"}, "actions: must be a list"),
        ({"result": {"ranks": [1, 2], "reason": "win", "forfeited": []}}, "result.ranks: must be a list of 3"),
        ({"result": [1, 2, 3]}, "result: must be an object or null"),
        ({"started_at": "2024-05-01T10:00:00"}, "started_at: must be an ISO 8601 time with a time zone"),
        ({"game_id": "7"}, "game_id: must be a positive integer"),
        ({"comment": "hi"}, "unknown field(s) 'comment'"),
    ],
)
def test_malformed_fields_are_named(board: dict[str, Any], change: dict[str, Any], expected: str) -> None:
    assert expected in problems_of({**copy.deepcopy(board), **change})


def test_missing_fields_and_non_objects_are_reported() -> None:
    assert records.check([1]) == ["a record must be a JSON object, not a list"]
    assert "missing field(s) seed, actions" in "\n".join(
        records.check(
            {"format": records.FORMAT, "version": 1, "game": "board", "settings": {}, "seats": [], "result": None}
        )
    )


def test_bad_lines_are_named_by_number(board: dict[str, Any]) -> None:
    good = records.dumps(board)
    lines = [good, "", good, "{not json", good]
    reader = records.read_jsonl(lines)
    assert next(reader) == board and next(reader) == board
    with pytest.raises(records.RecordError, match=r"^line 4: not JSON"):
        next(reader)
    with pytest.raises(records.RecordError, match=r"^line 2: a record must be a JSON object, not a list"):
        list(records.read_jsonl([good, "[1, 2]"]))
    assert issubclass(records.RecordError, ValueError)


def test_make_record_refuses_unknown_fields_and_bad_settings() -> None:
    with pytest.raises(TypeError, match="unknown record field"):
        records.make_record("card", {}, 1, [], [], None, comment="x")
    with pytest.raises(engine.SettingsError):
        records.make_record("card", {"players": 9}, 1, [], [], None)


def test_the_records_module_stays_out_of_the_one_game_api() -> None:
    assert not {"make_record", "check", "read_jsonl", "dumps", "FORMAT", "RecordError"} & set(engine.__all__)
