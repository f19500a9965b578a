"""Game records: one game as one JSON object (a line of a ``.jsonl`` file), and its check against the engine.

A record holds what it takes to replay a game and judge its result (docs/bots.md, "Replays and exports", describes
each field)::

    {"format": "sorry-arena/game-record", "version": 1, "game": "board", "settings": {...}, "seed": 7,
     "seats": [{"seat": 0, "name": "greedy", "bot_id": 3}, ...],
     "actions": [{"ply": 0, "seat": 0, "action": "1:start:red", "latency_ms": 12.5, "fault": null}, ...],
     "result": {"ranks": [1, 2], "reason": "win", "forfeited": []},
     "game_id": 17, "tournament_id": 2, "started_at": "...", "finished_at": "..."}

:func:`make_record` builds one, :func:`dumps` writes it as one line, :func:`read_jsonl` reads a file of them and
:func:`check` replays one with the engine (:mod:`engine.api`) and says what does not hold. A tournament's result is
the engine's ranking with forfeits applied (a seat whose bot faulted :data:`FAULTS_TO_FORFEIT` times in a row, a
challenge's person :data:`PERSON_FAULTS_TO_FORFEIT` times, or that forfeited from the start, is ranked last and its
later moves are the seeded fallback), so :func:`check` applies the same rule (:func:`final_result`). Pure: standard library and the engine only.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any, TypeGuard

from engine.api import (
    GAMES,
    IllegalActionError,
    Json,
    Result,
    SettingsError,
    apply,
    decision,
    fallback_action,
    is_over,
    new_game,
    normalize_settings,
    result,
)

__all__ = [
    "FAULTS_TO_FORFEIT",
    "FORMAT",
    "PERSON_FAULTS_TO_FORFEIT",
    "VERSION",
    "RecordError",
    "check",
    "dumps",
    "final_result",
    "make_record",
    "read_jsonl",
]

FORMAT = "sorry-arena/game-record"
"""The ``format`` field of every record."""
VERSION = 1
"""The ``version`` field of the records this module writes and checks."""
FAULTS_TO_FORFEIT = 3
"""Faults in a row that forfeit a tournament game for a bot's seat (the tournament runner's rule)."""
PERSON_FAULTS_TO_FORFEIT = 2
"""Faults in a row that forfeit a challenge's game for the person's seat (a person who missed one deadline and then
another has left: the game, and its worker's slot, do not wait out a third). In a record, the person's seat is the
seat of a tournament's game (``tournament_id`` set) without a ``bot_id``."""
FORFEIT = "forfeit"
"""The fault of a move played for a seat that had already forfeited."""

EXTRAS = ("game_id", "tournament_id", "started_at", "finished_at")
"""The optional fields of a record."""
FIELDS = ("format", "version", "game", "settings", "seed", "seats", "actions", "result", *EXTRAS)
"""Every field of a record, in the order :func:`dumps` writes them."""
SEAT_FIELDS = ("seat", "name", "bot_id", "player_id")
ACTION_FIELDS = ("ply", "seat", "action", "latency_ms", "fault", "debug")
"""An action's fields; ``debug`` (the bot's debug text of that move) is present only when the bot sent one."""
RESULT_FIELDS = ("ranks", "reason", "forfeited", "scores", "void_reason")
"""A result's fields; ``void_reason`` (why a tournament game is void, rated for nobody) is present only when it is."""


class RecordError(ValueError):
    """A line of a records file that is not a JSON object (the message names the line)."""


def make_record(
    game: str,
    settings: Json,
    seed: int,
    seats: list[dict[str, Any]],
    actions: list[dict[str, Any]],
    result: dict[str, Any] | None,
    **extra: Any,
) -> dict[str, Any]:
    """One game's record.

    ``seats``: ``[{"seat": 0, "name": "greedy", ...}]`` with optional ``bot_id`` and ``player_id``; ``actions``:
    ``[{"ply": 0, "seat": 0, "action": "<action id>", "latency_ms": float | None, "fault": str | None}]``
    (``latency_ms`` and ``fault`` default to ``None``); ``result``: ``{"ranks": [...], "reason": str,
    "forfeited": [seats]}`` as the service stores it (``forfeited`` defaults to ``[]``, an engine result's
    ``scores`` are kept, its ``winners`` dropped: the ranks say it), or ``None`` for an unfinished game; ``extra``:
    optional ``game_id``, ``tournament_id``, ``started_at``, ``finished_at`` (ISO 8601 with a time zone; a
    ``datetime`` is written so). The settings are stored complete (:func:`engine.api.normalize_settings`), so
    invalid ones raise ``SettingsError``; an unknown extra field raises ``TypeError``.
    """
    unknown = sorted(set(extra) - set(EXTRAS))
    if unknown:
        raise TypeError(f"unknown record field(s) {', '.join(unknown)}; expected some of {', '.join(EXTRAS)}")
    record: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "game": game,
        "settings": normalize_settings(game, settings),
        "seed": seed,
        "seats": [dict(seat) for seat in seats],
        "actions": [{"latency_ms": None, "fault": None, **action} for action in actions],
        "result": None if result is None else _stored_result(result),
    }
    for name in EXTRAS:
        value = extra.get(name)
        if value is not None:
            record[name] = value.isoformat() if isinstance(value, datetime) else value
    return record


def _stored_result(result: dict[str, Any]) -> dict[str, Any]:
    stored = {"ranks": list(result["ranks"]), "reason": result["reason"]}
    stored["forfeited"] = list(result.get("forfeited") or [])
    if result.get("scores") is not None:
        stored["scores"] = list(result["scores"])
    if result.get("void_reason") is not None:
        stored["void_reason"] = result["void_reason"]
    return stored


# --- writing and reading lines ------------------------------------------------------------------------------------


def dumps(record: dict[str, Any]) -> str:
    """The record as one line of compact JSON (no newline), its fields in a stable order: the record's as
    :data:`FIELDS`, a seat's and an action's as listed in docs/bots.md, any other object's sorted."""
    return json.dumps(_ordered(record, FIELDS), separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _ordered(value: Any, order: tuple[str, ...] = ()) -> Any:
    if isinstance(value, dict):
        keys = [key for key in order if key in value] + sorted(key for key in value if key not in order)
        return {key: _ordered(value[key], _CHILDREN.get(key, ())) for key in keys}
    if isinstance(value, list):
        return [_ordered(item, order) for item in value]
    return value


_CHILDREN = {"seats": SEAT_FIELDS, "actions": ACTION_FIELDS, "result": RESULT_FIELDS}
"""The field order of the objects under a record's fields (a list's items share their list's)."""


def read_jsonl(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The records of a JSON-lines text, one object per non-blank line. Raises :class:`RecordError` naming the
    line (counted from 1) that is not JSON or not an object; the records before it are yielded first."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as error:
            reason = getattr(error, "msg", str(error))
            raise RecordError(f"line {number}: not JSON ({reason})") from None
        if not isinstance(record, dict):
            raise RecordError(f"line {number}: a record must be a JSON object, not {_kind(record)}")
        yield record


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


# --- checking -----------------------------------------------------------------------------------------------------


def final_result(
    engine_result: Result | None, seats: int, forfeited: Iterable[int], scores: bool = False
) -> dict[str, Any]:
    """A tournament game's stored result: the engine's ranks (competition ranking, 1 best) among the seats still
    playing, every forfeiting seat tied last; the reason is the engine's unless a seat forfeited (``forfeit``).
    A game stopped by forfeits before the rules ended it (``engine_result`` ``None``) ranks its last player first.
    ``scores``: keep the engine's scores (a game of the points variant played through the games API)."""
    gone = sorted(set(forfeited))
    playing = [seat for seat in range(seats) if seat not in gone]
    keys = {seat: engine_result.ranks[seat] if engine_result is not None else 1 for seat in playing}
    ranks = [len(playing) + 1] * seats
    for seat in playing:
        ranks[seat] = 1 + sum(keys[other] < keys[seat] for other in playing)
    if gone:
        reason = "forfeit"
    else:
        reason = engine_result.reason if engine_result is not None else "win"
    final: dict[str, Any] = {"ranks": ranks, "reason": reason, "forfeited": gone}
    if scores and engine_result is not None and engine_result.scores is not None:
        final["scores"] = list(engine_result.scores)
    return final


def check(record: Any) -> list[str]:
    """Replay ``record`` with the engine: ``[]`` when it holds, else what is wrong, each problem a sentence that
    names the ply (the number of actions before it) or the field. Reported: an unknown format, version or game;
    malformed fields; a seat that did not have the decision; an action not legal for the seat asked; a fault whose
    action is not the engine's fallback; a move not marked ``forfeit`` by a seat that had forfeited (or the
    reverse); actions after the game ended; a finished record whose game goes on; a result that differs from the
    engine's with forfeits applied (:func:`final_result`); an unfinished record whose game is over."""
    problems = _malformed(record)
    if problems:
        return problems
    return _replayed(record)


def _malformed(record: Any) -> list[str]:
    if not isinstance(record, dict):
        return [f"a record must be a JSON object, not {_kind(record)}"]
    if record.get("format") != FORMAT:
        return [f"format: unknown format {record.get('format')!r}; expected {FORMAT!r}"]
    if record.get("version") != VERSION:
        return [f"version: unknown version {record.get('version')!r}; this program reads version {VERSION}"]
    problems = []
    unknown = sorted(set(record) - set(FIELDS))
    if unknown:
        problems.append(f"unknown field(s) {', '.join(map(repr, unknown))}")
    missing = [name for name in FIELDS[:8] if name not in record]
    if missing:
        return [*problems, f"missing field(s) {', '.join(missing)}"]
    game = record["game"]
    if game not in GAMES:
        return [*problems, f"game: unknown game {game!r}; expected one of {', '.join(GAMES)}"]
    settings = record["settings"]
    try:
        players = normalize_settings(game, settings)["players"]
    except SettingsError as error:
        return [*problems, f"settings: {error}"]
    if not isinstance(settings, dict) or normalize_settings(game, settings) != settings:
        problems.append("settings: not complete (every default must be written out)")
    if not _integer(record["seed"]) or not 0 <= record["seed"] < 2**63:
        problems.append(f"seed: must be an integer in [0, 2**63), got {record['seed']!r}")
    problems += _malformed_seats(record["seats"], players)
    problems += _malformed_actions(record["actions"], players)
    problems += _malformed_result(record["result"], players)
    for name in ("game_id", "tournament_id"):
        if name in record and not (_integer(record[name]) and record[name] > 0):
            problems.append(f"{name}: must be a positive integer, got {record[name]!r}")
    for name in ("started_at", "finished_at"):
        if name in record and not _moment(record[name]):
            problems.append(f"{name}: must be an ISO 8601 time with a time zone, got {record[name]!r}")
    return problems


def _integer(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _moment(value: Any) -> bool:
    try:
        return isinstance(value, str) and datetime.fromisoformat(value).tzinfo is not None
    except ValueError:
        return False


def _malformed_seats(seats: Any, players: int) -> list[str]:
    if not isinstance(seats, list) or len(seats) != players:
        return [f"seats: must be a list of {players} seats (the settings' players)"]
    problems = []
    for number, seat in enumerate(seats):
        if not isinstance(seat, dict) or seat.get("seat") != number or not isinstance(seat.get("name"), str):
            problems.append(f'seats[{number}]: must be an object with "seat": {number} and a "name" string')
            continue
        for name in ("bot_id", "player_id"):
            if seat.get(name) is not None and not _integer(seat[name]):
                problems.append(f"seats[{number}].{name}: must be an integer, got {seat[name]!r}")
    return problems


def _malformed_actions(actions: Any, players: int) -> list[str]:
    if not isinstance(actions, list):
        return ["actions: must be a list"]
    problems = []
    for ply, action in enumerate(actions):
        if not isinstance(action, dict):
            problems.append(f"ply {ply}: an action must be an object, not {_kind(action)}")
            continue
        if action.get("ply") != ply:
            problems.append(f'ply {ply}: the action\'s "ply" is {action.get("ply")!r}, not its position {ply}')
        seat = action.get("seat")
        if not _integer(seat) or not 0 <= seat < players:
            problems.append(f'ply {ply}: "seat" must be a seat number from 0 to {players - 1}, got {seat!r}')
        if not isinstance(action.get("action"), str) or not action["action"]:
            problems.append(f'ply {ply}: "action" must be an action id, got {action.get("action")!r}')
        latency = action.get("latency_ms")
        if latency is not None and (
            isinstance(latency, bool)
            or not isinstance(latency, int | float)
            or not math.isfinite(latency)
            or latency < 0
        ):
            problems.append(f'ply {ply}: "latency_ms" must be null or a number >= 0, got {latency!r}')
        fault = action.get("fault")
        if fault is not None and (not isinstance(fault, str) or not fault):
            problems.append(f'ply {ply}: "fault" must be null or a fault name, got {fault!r}')
        if "debug" in action and not isinstance(action["debug"], str):
            problems.append(f'ply {ply}: "debug" must be a string when present, got {_kind(action["debug"])}')
        extra = sorted(set(action) - set(ACTION_FIELDS))
        if extra:
            problems.append(f"ply {ply}: unknown action field(s) {', '.join(map(repr, extra))}")
    return problems


def _malformed_result(result: Any, players: int) -> list[str]:
    if result is None:
        return []
    if not isinstance(result, dict):
        return ["result: must be an object or null (an unfinished game)"]
    problems = []
    ranks = result.get("ranks")
    if not isinstance(ranks, list) or len(ranks) != players or not all(_integer(r) and r >= 1 for r in ranks):
        problems.append(f"result.ranks: must be a list of {players} ranks (integers from 1), got {ranks!r}")
    if not isinstance(result.get("reason"), str):
        problems.append(f"result.reason: must be a string, got {result.get('reason')!r}")
    forfeited = result.get("forfeited", [])
    if not isinstance(forfeited, list) or not all(_integer(s) and 0 <= s < players for s in forfeited):
        problems.append(f"result.forfeited: must be a list of seat numbers, got {forfeited!r}")
    scores = result.get("scores")
    if scores is not None and (not isinstance(scores, list) or not all(_integer(s) for s in scores)):
        problems.append(f"result.scores: must be a list of integers, got {scores!r}")
    void_reason = result.get("void_reason")
    if void_reason is not None and not isinstance(void_reason, str):
        problems.append(f"result.void_reason: must be a string, got {void_reason!r}")
    extra = sorted(set(result) - set(RESULT_FIELDS) - {"winners"})
    if extra:
        problems.append(f"result: unknown field(s) {', '.join(map(repr, extra))}")
    return problems


def _replayed(record: dict[str, Any]) -> list[str]:
    """The problems of a well-formed record, found by playing its actions (stops at the first illegal one)."""
    state = new_game(record["game"], record["settings"], record["seed"])
    actions: list[dict[str, Any]] = record["actions"]
    players = len(record["seats"])
    claimed = record["result"]
    claimed_forfeits = set(claimed.get("forfeited", [])) if claimed is not None else set()
    # a seat can forfeit from the start (its bot excluded by failed health checks): every move of it is a forfeit
    forfeited_at: dict[int, int] = {
        seat: 0
        for seat in claimed_forfeits
        if next((a.get("fault") for a in actions if a["seat"] == seat), FORFEIT) == FORFEIT
    }
    in_a_row = [0] * players
    to_forfeit = [faults_to_forfeit(record, seat) for seat in range(players)]
    problems: list[str] = []
    for ply, move in enumerate(actions):
        playing = players - len(forfeited_at)
        if forfeited_at and playing <= 1:
            return [
                f"ply {ply}: the game ended by forfeit at ply {max(forfeited_at.values())}, yet actions follow"
            ]
        asked = decision(state)
        if asked is None:
            return [f"ply {ply}: the game was already over, yet actions follow"]
        seat, action, fault = move["seat"], move["action"], move.get("fault")
        if seat != asked.seat:
            return [f"ply {ply}: seat {seat} played, but the decision was seat {asked.seat}'s"]
        if seat in forfeited_at and fault != FORFEIT:
            problems.append(
                f"ply {ply}: seat {seat} had forfeited (at ply {forfeited_at[seat]}), so its move must be the "
                f"fallback with fault {FORFEIT!r}, not fault {fault!r}"
            )
        elif seat not in forfeited_at and fault == FORFEIT:
            problems.append(f"ply {ply}: fault {FORFEIT!r} for seat {seat}, which had not forfeited")
        if fault is not None:
            expected = fallback_action(state)
            if action != expected:
                return [
                    *problems,
                    f"ply {ply}: seat {seat}'s action {action!r} carries fault {fault!r}, but the fallback action "
                    f"of this ply is {expected!r}",
                ]
        try:
            apply(state, action, seat, events=False)
        except IllegalActionError as error:
            return [*problems, f"ply {ply}: action {action!r} is not legal for seat {seat} ({error.reason})"]
        if fault is None:
            in_a_row[seat] = 0
        elif fault != FORFEIT:
            in_a_row[seat] += 1
            if in_a_row[seat] >= to_forfeit[seat] and seat not in forfeited_at:
                forfeited_at[seat] = ply + 1
    return problems + _judged(record, state, forfeited_at)


def faults_to_forfeit(record: dict[str, Any], seat: int) -> int:
    """The faults in a row that forfeit the game for ``seat``: :data:`PERSON_FAULTS_TO_FORFEIT` at a challenge's
    person's seat (a tournament's game, a seat without a bot), else :data:`FAULTS_TO_FORFEIT`."""
    if record.get("tournament_id") is not None and record["seats"][seat].get("bot_id") is None:
        return PERSON_FAULTS_TO_FORFEIT
    return FAULTS_TO_FORFEIT


def _judged(record: dict[str, Any], state: Any, forfeited_at: dict[int, int]) -> list[str]:
    """The problems of the record's result, given the state after its last action."""
    end = len(record["actions"])
    players = len(record["seats"])
    claimed = record["result"]
    over = is_over(state)
    stopped = bool(forfeited_at) and players - len(forfeited_at) <= 1
    if claimed is None:
        if over or stopped:
            return [f"ply {end}: the game is over after the last action, but the record has no result"]
        return []
    if not over and not stopped:
        asked = decision(state)
        seat = "" if asked is None else f" (seat {asked.seat} must decide)"
        return [f"ply {end}: the record has a result, but the game goes on after its last action{seat}"]
    expected = final_result(result(state), players, forfeited_at, scores="scores" in claimed)
    expected.setdefault("scores", None)
    stated = {**claimed, "forfeited": sorted(claimed.get("forfeited", [])), "scores": claimed.get("scores")}
    return [
        f"ply {end}: result.{name} is {stated[name]!r}, but the engine's (with forfeits applied) is "
        f"{expected[name]!r}"
        for name in ("forfeited", "ranks", "reason", "scores")
        if stated[name] != expected[name]
    ]
