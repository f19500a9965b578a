"""Server-Sent Events beside the long polls: a game's events as they are saved, and the caller's decisions as they
come (``text/event-stream``).

``GET /api/v1/games/{id}/events/stream`` sends every event after ``?since=`` (or the ``Last-Event-ID`` an
``EventSource`` sends when it reconnects) as the caller may see it: the same rule as ``GET .../events``
(``gameplay.visible_events``): public events and the token's seat's own private ones, public ones only to anyone
else; each as the events API shows it (seq, ply, private, the event, its text in the Accept-Language), the
``id`` its seq. Once the game is over or cancelled and every event is sent, an ``end`` event closes the stream.
``GET /api/v1/decisions/stream`` sends each decision the token must make (as ``GET /decisions`` lists them) once,
when it comes. A stream wakes when its games move, as a long poll does (``runtime.wakeups``), and sends a comment
every :data:`KEEPALIVE_SECONDS` while nothing happens; it closes after :data:`STREAM_SECONDS` (an ``EventSource``
reconnects by itself). A stream with a token holds one of the account's long-poll slots (``service/waiting.py``)
for its whole life, a 429 when none is free. The decisions stream needs a token; a game's may be opened without one
(the game viewer's spectators): it then carries the public events only, exactly what ``GET .../events`` shows
without a token, and holds a slot of its client address and one of the service's streams without a token instead
(``waiting.anonymous_stream``), a 429 that says which cap when either is full. Served by gunicorn's gevent worker
(``sorry-arena serve``), a stream waits on the event loop and holds no thread, nor a database connection while it
waits. A stream whose database fails (a restart, a stop) ends, logged in one line: its client reconnects, as after
:data:`STREAM_SECONDS`. So does a stream of a process that stops or reloads (``runtime/wakeups.py``, drain): its
client reconnects to a process that runs on.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

from flask import Response, current_app, request, stream_with_context
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from runtime.wakeups import game_channel, player_channel
from service import auth, db, gameplay, waiting
from service.api.decisions import RECHECK_SECONDS, decision_of
from service.api.games import UNAUTHORIZED, language
from service.clientaddress import client_address
from service.errors import ErrorSchema, fail, log_database_failure
from service.schemas import MAX_INT
from store.database import failed_not_faulty
from store.models import Game

blp = Blueprint(
    "streams", __name__, url_prefix="/api/v1", description="Server-Sent Events: a game's events, your decisions"
)

STREAM_SECONDS = 300.0
"""A stream's longest life: then it closes, and an ``EventSource`` reconnects (with ``Last-Event-ID``)."""
KEEPALIVE_SECONDS = 15.0
"""A comment line this often while nothing happens, so that proxies keep the connection."""
BATCH = 500
"""Events read per query: a stream that starts far behind catches up in batches."""
RETRY_MS = 2000
"""How long an ``EventSource`` waits before it reconnects."""

_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


class EventStreamQuerySchema(Schema):
    since = fields.Integer(
        load_default=-1,
        validate=validate.Range(min=-1, max=MAX_INT),
        metadata={
            "description": "send the events after this seq (a Last-Event-ID header takes its place); default -1: "
            "every event, from the first (seq 0), as GET .../events"
        },
    )


class DecisionStreamQuerySchema(Schema):
    texts = fields.Boolean(
        load_default=False,
        metadata={"description": "add each action's text (Accept-Language), as GET actions does"},
    )


def stream_doc(what: str) -> dict[str, Any]:
    return {
        "responses": {
            "200": {
                "description": what,
                "content": {"text/event-stream": {"schema": {"type": "string"}}},
            }
        }
    }


def message(event: str, data: Any, event_id: str | None = None) -> str:
    """One Server-Sent Event: its ``id`` (if any), its type and its data as one JSON line."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {_encode(data)}\n\n"


KEEPALIVE = ": keep-alive\n\n"


def last_event_id(since: int) -> int:
    """The seq to send events after: the ``Last-Event-ID`` of a reconnecting ``EventSource``, else ``since``."""
    header = request.headers.get("Last-Event-ID")
    if header is None or header == "":
        return since
    if not (header.isascii() and header.isdigit() and len(header) <= 10 and int(header) <= MAX_INT):
        fail(422, f"Last-Event-ID must be an event's seq (a whole number), got {header[:40]!r}")
    return int(header)


def streamed(events: Iterator[str], slot: ExitStack) -> Response:
    """The response of a stream whose account slot is ``slot``: given back when the response closes, whether the
    stream ran, ended or its client went away."""
    response = Response(stream_with_context(ended_quietly(events)), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"  # a proxy must pass each event on at once
    response.call_on_close(slot.close)
    return response


def ended_quietly(events: Iterator[str]) -> Iterator[str]:
    """The stream's events until they end, or until the database fails: then the stream ends, logged in one line
    without a traceback, and its client reconnects (an ``EventSource`` by itself, resuming after Last-Event-ID)."""
    try:
        yield from events
    except Exception as error:
        if not failed_not_faulty(error):
            raise
        log_database_failure("a stream ended as the database failed", error)


def hold_slot(player_id: int | None) -> ExitStack:
    """One of the account's long-poll slots (``None``: a slot of the client address and one of the service's
    streams without a token), taken now (a 429 when none is free), for the stream's life."""
    seconds = STREAM_SECONDS + KEEPALIVE_SECONDS
    slot = ExitStack()
    if player_id is None:
        slot.enter_context(waiting.anonymous_stream(client_address(), seconds))
    else:
        slot.enter_context(waiting.slot(player_id, seconds, "stream"))
    return slot


@blp.route("/games/<int:game_id>/events/stream")
class GameEventStream(MethodView):
    @blp.arguments(EventStreamQuerySchema, location="query")
    @blp.doc(
        **stream_doc(
            "Server-Sent Events: each `event` (data: seq, ply, private, event, text; id: its seq) as your seat may "
            "see it (without a token: the public ones), then `end` (data: game_id, status) once the game is over or "
            "cancelled"
        )
    )
    @blp.alt_response(401, schema=ErrorSchema, description="an unknown token (none is needed)")
    @blp.alt_response(404, schema=ErrorSchema, description="no such game")
    @blp.alt_response(422, schema=ErrorSchema, description="a bad since or Last-Event-ID")
    @blp.alt_response(429, **waiting.TOO_MANY_STREAMS)
    def get(self, query: dict[str, Any], game_id: int) -> Response:
        """A game's events as they come, as your seat may see them (spectators: public ones), as Server-Sent Events

        The same events and rules as GET /games/{id}/events; the stream ends once the game is over and every event
        is sent. With a token it holds one of your account's long-poll slots while it lasts (at most 5 minutes: an
        EventSource reconnects, sending Last-Event-ID); without one it carries the public events only and holds one
        of your client address's slots for streams without a token (8 by default) and one of the service's."""
        player_id = auth.optional_player_id()
        moves = gameplay.moves()
        _, seat, _ = moves.seat_in(game_id, player_id)
        moves.lane.release()
        since = last_event_id(query["since"])
        slot = hold_slot(player_id)
        return streamed(game_events(game_id, seat, since, language(), slot), slot)


def game_events(game_id: int, seat: int | None, since: int, lang: str, slot: ExitStack) -> Iterator[str]:
    notifier = current_app.extensions["notifier"]
    deadline = time.monotonic() + STREAM_SECONDS
    with slot, notifier.watch([game_channel(game_id)]) as subscription:
        yield f"retry: {RETRY_MS}\n\n"
        while True:
            subscription.arm()
            session = db.session()
            game = session.get(Game, game_id, populate_existing=True)
            assert game is not None
            kind, status = game.game, game.status  # read before the events: an ended game has them all by then
            records = gameplay.visible_events(session, game, seat, since, BATCH)
            shown = [gameplay.localized_event(record, kind, lang) for record in records]
            session.close()  # no connection held while the client reads or the stream waits
            for event in shown:
                since = event["seq"]
                yield message("event", event, str(since))
            if len(shown) == BATCH:
                continue
            if status in gameplay.ENDED:
                yield message("end", {"game_id": game_id, "status": status})
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0 or subscription.ended:
                return
            if not subscription.wait(min(remaining, KEEPALIVE_SECONDS)):
                yield KEEPALIVE


@blp.route("/decisions/stream")
class DecisionStream(MethodView):
    @blp.arguments(DecisionStreamQuerySchema, location="query")
    @blp.doc(
        **stream_doc(
            "Server-Sent Events: each `decision` (data: as an item of GET /decisions; id: game_id:ply) once, when "
            "you must make it"
        )
    )
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(429, **waiting.TOO_MANY_WAITING)
    def get(self, query: dict[str, Any]) -> Response:
        """Your decisions in all your games as they come, as Server-Sent Events

        Each decision is sent once, as GET /decisions lists it (texts=true adds the actions' texts). It holds one
        of your account's long-poll slots while it lasts (at most 5 minutes: an EventSource reconnects)."""
        player_id = auth.required_player_id()
        slot = hold_slot(player_id)
        return streamed(decision_events(player_id, language(), query["texts"], slot), slot)


def decision_events(player_id: int, lang: str, texts: bool, slot: ExitStack) -> Iterator[str]:
    moves = gameplay.moves()
    deadline = time.monotonic() + STREAM_SECONDS
    sent: dict[int, int] = {}
    """Game id -> the ply of the decision sent there."""
    quiet_since = time.monotonic()
    with slot, moves.notifier.watch([player_channel(player_id)]) as subscription:
        yield f"retry: {RETRY_MS}\n\n"
        while True:
            subscription.arm()
            pending, games = moves.pending(player_id)
            moves.lane.release()  # no connection held while the client reads or the stream waits
            if subscription.add(game_channel(game_id) for game_id in games):
                continue  # games seen for the first time: look again, now that their moves wake this stream
            for decision in pending:
                if sent.get(decision.game_id) != decision.snapshot.ply:
                    quiet_since = time.monotonic()
                    yield message(
                        "decision",
                        decision_of(decision, lang, texts),
                        f"{decision.game_id}:{decision.snapshot.ply}",
                    )
            sent = {decision.game_id: decision.snapshot.ply for decision in pending}
            remaining = deadline - time.monotonic()
            if remaining <= 0 or subscription.ended:
                return
            subscription.wait(min(remaining, RECHECK_SECONDS))
            if time.monotonic() - quiet_since >= KEEPALIVE_SECONDS:
                quiet_since = time.monotonic()
                yield KEEPALIVE
