"""The events API, the event stream and the viewer answer from events derived from the action log
(``store/eventlog.py``) exactly what the engine gave when each move was written, on SQLite and PostgreSQL: games
written as the API and the workers write them (pull moves one by one, worker batches), with faults, a forfeit, a
cancellation and a game still running, card games with private hands included (``tests/service/eventcases.py``).

Each seat gets its own private events and the public ones, a spectator the public ones, numbered ``0, 1, ...`` in
the order they happened with the ply rule of ``store/gamelog.py``; pages (``since``, ``limit``) cut that list; the
stream of an ended game carries the same events then ``end``; the viewer never shows a private event of a running
game.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

import engine
from engine import i18n
from tests.apikit import Player, as_json, new_player
from tests.service.eventcases import CASES, Case, events_answers, stream_answer, viewer_answers, write


def expected(case: Case, opening: list[engine.Event], moves: Any, seat: int | None) -> list[dict[str, Any]]:
    """The events API's items for ``seat`` from the events the engine gave at write time."""
    placed = [(0, event) for event in opening] + [(move.ply + 1, event) for move in moves for event in move.events]
    return [
        {
            "seq": seq,
            "ply": ply,
            "private": event.get("to") is not None,
            "event": as_json(event),
            "text": i18n.describe_event(case.game, event, "en"),
        }
        for seq, (ply, event) in enumerate(placed)
        if event.get("to") is None or event.get("to") == seat
    ]


def written(app: Flask, client: FlaskClient) -> list[tuple[Case, int, list[engine.Event], Any, list[Player]]]:
    made = []
    for case in CASES:
        players = [new_player(client, f"{case.name[:20]}-{seat}") for seat in range(case.seats)]
        with app.extensions["db_sessions"]() as session:
            game_id, opening, moves = write(session, case, [player.id for player in players])
        made.append((case, game_id, opening, moves, players))
    return made


def test_the_events_answers_are_the_engines_at_write_time(app: Flask, client: FlaskClient) -> None:
    for case, game_id, opening, moves, players in written(app, client):
        assert case.game != "card" or any(event.get("to") is not None for event in opening)  # the hands dealt
        for seat, viewer in [(None, None), *enumerate(players)]:
            answers = events_answers(client, game_id, viewer, case.seats)
            everything = expected(case, opening, moves, seat)
            assert json.loads(answers["all/en"])["events"] == everything, (case.name, seat)
            pages = [json.loads(body)["events"] for key, body in answers.items() if key.startswith("page")]
            assert [item for page in pages for item in page] == everything
            assert all(0 < len(page) <= 3 + case.seats for page in pages[:-1]) and pages[-1] == []
            for since in (0, 5, 17):
                assert (
                    json.loads(answers[f"since{since}"])["events"]
                    == [e for e in everything if e["seq"] > since][:500]
                )  # the default limit
            assert json.loads(answers["since10000"])["events"] == []
            replay = json.loads(answers["all/fr"])["replay"]
            if case.end == "over":
                assert replay["actions"] == [move.action for move in moves]
            else:
                assert replay is None
            if viewer is not None and case.end != "active":
                lines = stream_answer(client, game_id, viewer).decode().split("\n")
                sent = [json.loads(line[6:]) for line in lines if line.startswith("data: ")]
                assert sent[:-1] == [e for e in everything if e["seq"] > 0]
                assert sent[-1] == {"game_id": game_id, "status": case.end}


def test_the_viewer_shows_private_events_once_a_game_is_over_only(app: Flask, client: FlaskClient) -> None:
    for case, game_id, opening, moves, _ in written(app, client):
        private = [
            i18n.describe_event(case.game, event, "en")
            for event in opening + [event for move in moves for event in move.events]
            if event.get("to") is not None
        ]
        shown = viewer_answers(app, game_id, case.seats)
        texts = {text for ply in range(len(moves) + 1) for text in shown[f"step{ply}/en"]["texts"]}
        rows = shown["steps/en/()"]
        assert [row["ply"] for row in rows] == [move.ply + 1 for move in moves]
        assert [row["fault"] for row in rows] == [move.fault for move in moves]
        if case.end == "over":
            assert set(private) <= texts and (private or case.game == "board")
            assert [row["action"] for row in rows] == [move.action for move in moves]
        else:
            assert not set(private) & texts
            assert all(row["action"] is None for row in rows)
