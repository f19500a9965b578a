"""``/api/v1/games``: games, their seats, hands, legal actions and events.

Every response shows the caller exactly what its seat's engine view shows (spectators: the public view); the
seed and the full replay become public once the game is over (a paired match's game: once its twin on the same
deal is over too, ``store/deals.py``).

A move's two requests (``GET .../actions``, ``POST .../actions``) take the fast lane of ``service/gameplay.py`` and
render their bodies as plain dicts shaped like their documented schemas (``service/schemas.py``), sent as JSON
without a marshmallow pass; the other endpoints use the ORM and their schemas. A submission with a plainly
well-formed body (:func:`plain_submission`) does not even reach its view: ``service/api/movepath.py`` answers it
before Flask's dispatch with the same function, :func:`submit`.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from typing import Any

from flask import Response, current_app, request
from flask.views import MethodView
from sqlalchemy import select
from werkzeug.http import parse_etags

import engine
from engine import i18n
from engine.records import dumps
from runtime.settings import MAX_BODY_BYTES
from service import auth, db, gameplay, idempotency, ratelimits, waiting
from service.caches import GameInfo, Snapshot
from service.errors import ErrorSchema, fail
from service.inputguard import is_json
from service.observe import ACCOUNT
from service.pagination import Blueprint, cursor_links
from service.schemas import (
    MAX_ACTION,
    MAX_INT,
    ActionsQuerySchema,
    ActionsSchema,
    ActionSubmitSchema,
    EventsQuerySchema,
    EventsSchema,
    GameCreateSchema,
    GameListQuerySchema,
    GameSchema,
    HandSchema,
    SeatTakenSchema,
    SeatTakeSchema,
    SubmittedSchema,
)
from store import deals, gamerecords
from store.models import Game, Player, Seat

blp = Blueprint("games", __name__, url_prefix="/api/v1/games", description="Games, seats, hands, actions, events")

UNAUTHORIZED = {"schema": ErrorSchema, "description": "a missing or unknown bearer token"}
NOT_FOUND = {"schema": ErrorSchema, "description": "no such game"}
CONFLICT = {"schema": ErrorSchema, "description": "not now: stale ply, not your turn, illegal action, seat taken"}
GAME = GameSchema()


@dataclass
class Caller:
    """Who is asking about which game: the player (``None``: a spectator), the game and the player's seat."""

    player_id: int | None
    game: Game
    seat: int | None


def caller(game_id: int, *, token_required: bool) -> Caller:
    player_id = auth.required_player_id() if token_required else auth.optional_player_id()
    _, seat, _ = gameplay.moves().seat_in(game_id, player_id)
    return Caller(player_id, gameplay.get_game(db.session(), game_id), seat)


def documented(*decorators: Any) -> Any:
    """Document a view with flask-smorest's decorators (``blp.arguments``, ``blp.response``...) but leave out their
    per-request wrappers: the view reads its body and renders its response itself, as documented. For the
    request every move makes, where the wrappers cost about as much as the trivial endpoint's whole handler."""

    def attach(view: Any) -> Any:
        documentation = view
        for decorator in reversed(decorators):
            documentation = decorator(documentation)
        view._apidoc = documentation._apidoc  # what flask-smorest reads when the route is registered
        return view

    return attach


def language() -> str:
    return i18n.pick_language(request.headers.get("Accept-Language"))


encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False).encode
"""A body as compact JSON text (a move's two requests: :func:`json_response`, ``service/api/movepath.py``)."""


VARY = "Authorization, Accept-Language"
"""What an ETagged body depends on besides its URL: who asks (their seat's view) and the language of its texts."""


def json_response(body: Any, tag: str | None = None) -> Response:
    """``body`` (already shaped like its documented schema) as a JSON response, with an ETag (and ``Vary``) if
    given."""
    response = Response(encode(body), mimetype="application/json")
    if tag is not None:
        response.set_etag(tag)
        response.headers["Vary"] = VARY
    return response


def etag(*parts: Any) -> str:
    """The ETag of a body made of ``parts``: every part must be something the body depends on, the caller's seat
    (what it may see) among them."""
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:32]


def not_modified(tag: str, environ: dict[str, Any] | None = None) -> Response | None:
    """A 304 when the client's ETag (``If-None-Match`` of ``environ``, by default the request's) still matches."""
    if tag in parse_etags((request.environ if environ is None else environ).get("HTTP_IF_NONE_MATCH")):
        response = Response(status=304)
        response.set_etag(tag)
        response.headers["Vary"] = VARY
        return response
    return None


def render(game: Game, player_id: int | None, state: Any = None, public: bool | None = None) -> dict[str, Any]:
    """The game as ``player_id`` sees it; its seed once ``public`` (by default: ``deals.public``, read here)."""
    session = db.session()
    seats = gameplay.seats_of(session, game)
    names = dict(
        session.execute(
            select(Player.id, Player.name).where(Player.id.in_([s.player_id for s in seats.values()]))
        ).all()
    )
    mine = next(
        (number for number, seat in seats.items() if player_id is not None and seat.player_id == player_id), None
    )
    state = state if state is not None else gameplay.load(game)
    void_reason = (game.result or {}).get("void_reason")  # a void tournament game's end keeps its reason
    return {
        "id": game.id,
        "game": game.game,
        "settings": game.settings,
        "seats": game.seats,
        "status": game.status,
        "ply": game.ply,
        "players": [
            {"seat": number, "player_id": seat.player_id, "name": names.get(seat.player_id, "")}
            for number, seat in sorted(seats.items())
        ],
        "your_seat": mine,
        "view": engine.view(state, mine),
        "result": game.result,
        "void": void_reason is not None,
        "void_reason": void_reason,
        "seed": game.seed if (deals.public(session, game) if public is None else public) else None,
        "created_at": game.created_at,
    }


@blp.route("")
class Games(MethodView):
    @blp.arguments(GameListQuerySchema(), location="query")
    @blp.response(
        200,
        GameSchema(many=True),
        headers={
            "Link": {
                "description": 'the next page (rel="next", while older games exist) and the first',
                "schema": {"type": "string"},
            }
        },
    )
    def get(self, query: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """List games, newest first, filtered by game, status and player, a page at a time: page_size of them, then
        the next page with before=<the last one's id> (the Link header's rel="next", present while there are more);
        no count of the games"""
        player_id = auth.optional_player_id()
        statement = select(Game)
        if "game" in query:
            statement = statement.where(Game.game == query["game"])
        if "status" in query:
            statement = statement.where(Game.status == query["status"])
        if "player" in query:
            statement = statement.where(Game.id.in_(select(Seat.game_id).where(Seat.player_id == query["player"])))
        if "before" in query:
            statement = statement.where(Game.id < query["before"])
        size = query["page_size"]
        games = list(db.session().scalars(statement.order_by(Game.id.desc()).limit(size + 1)))
        more = len(games) > size
        games = games[:size]
        links = cursor_links(games[-1].id if more else None, "before" in query)
        return [render(game, player_id) for game in games], {"Link": links} if links else {}

    @idempotency.keyed(blp)
    @blp.arguments(GameCreateSchema())
    @blp.response(201, GameSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(422, schema=ErrorSchema, description="unknown game or settings that do not make a game")
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Create a game from its kind, settings, number of seats and optional seed"""
        player_id = auth.required_player_id()
        game = gameplay.create_game(
            db.session(), player_id, body["game"], body["settings"], body["seats"], body["seed"]
        )
        return render(game, player_id)


@blp.route("/<int:game_id>")
class GameResource(MethodView):
    @blp.response(200, GameSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(404, **NOT_FOUND)
    def get(self, game_id: int) -> Any:
        """Show a game: the caller's seat view if it holds a seat, else the public view (ETag)"""
        player_id = auth.optional_player_id()
        info, seat, _ = gameplay.moves().seat_in(game_id, player_id)
        game = gameplay.get_game(db.session(), game_id)
        # the body is the view of the caller's seat (every spectator's the same) over the game's seats and ply, and
        # its seed once public (a paired match's game: when its twin on the deal is over too, at no new ply)
        viewer = "spectator" if seat is None else f"seat {seat}"
        public = deals.public(db.session(), game)
        seats = sorted(info.seat_of.items())
        tag = etag(request.path, game.id, game.ply, game.status, public, viewer, seats, language())
        return not_modified(tag) or json_response(GAME.dump(render(game, player_id, public=public)), tag)


@blp.route("/<int:game_id>/seats")
class Seats(MethodView):
    @idempotency.keyed(blp)
    @blp.arguments(SeatTakeSchema())
    @blp.response(201, SeatTakenSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(404, **NOT_FOUND)
    @blp.alt_response(409, **CONFLICT)
    def post(self, body: dict[str, Any], game_id: int) -> dict[str, Any]:
        """Take an open seat (any, or the one asked for); the game starts when every seat is taken"""
        player_id = auth.required_player_id()
        session = db.session()
        game = gameplay.get_game(session, game_id)
        seat = gameplay.take_seat(session, game, player_id, body["seat"])
        session.refresh(game)
        return {"game_id": game.id, "seat": seat, "status": game.status}


@blp.route("/<int:game_id>/hands/<int:seat>")
class Hand(MethodView):
    @blp.response(200, HandSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(403, schema=ErrorSchema, description="the hand of a seat you do not hold")
    @blp.alt_response(404, **NOT_FOUND)
    def get(self, game_id: int, seat: int) -> dict[str, Any]:
        """Show a seat's hand, to the player holding that seat only"""
        asking = caller(game_id, token_required=True)
        game = asking.game
        if not 0 <= seat < game.seats:
            fail(404, f"game {game_id} has no seat {seat}")
        if asking.seat != seat:
            fail(403, f"seat {seat}'s hand is shown to the player holding that seat only")
        view = engine.view(gameplay.load(game), seat)
        return {"game_id": game.id, "seat": seat, "cards": view.get("hand") or []}


@blp.route("/<int:game_id>/actions")
class Actions(MethodView):
    @blp.arguments(ActionsQuerySchema(), location="query")
    @blp.response(200, ActionsSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(403, schema=ErrorSchema, description="you hold no seat in this game")
    @blp.alt_response(404, **NOT_FOUND)
    @blp.alt_response(429, **waiting.TOO_MANY_WAITING)
    def get(self, query: dict[str, Any], game_id: int) -> Any:
        """Your legal actions now (empty unless you must decide), long-polling with ?wait= (ETag)"""
        player_id = auth.required_player_id()
        moves = gameplay.moves()
        info, seat, _ = moves.seat_in(game_id, player_id)
        if seat is None:
            fail(403, f"you hold no seat in game {game_id}")
        wait = min(query["wait"], current_app.extensions["settings"].max_wait)
        if wait > 0:
            snapshot, status = wait_for_decision(moves, player_id, game_id, seat, wait)
        else:
            snapshot, status = moves.current(game_id)
            moves.lane.rollback()
        lang = language()
        tag = etag(request.path, game_id, snapshot.ply, status, seat, lang)
        return not_modified(tag) or json_response(actions_of(info, snapshot, status, seat, lang), tag)

    @documented(
        blp.arguments(ActionSubmitSchema()),
        blp.response(200, SubmittedSchema),
        blp.alt_response(401, **UNAUTHORIZED),
        blp.alt_response(403, schema=ErrorSchema, description="you hold no seat in this game"),
        blp.alt_response(404, **NOT_FOUND),
        blp.alt_response(409, **CONFLICT),
        blp.alt_response(429, **ratelimits.TOO_MANY),
    )
    def post(self, game_id: int) -> Response:
        """Submit an action for the ply it answers; returns your new view (and actions if you decide again)"""
        # the common case is answered before Flask's dispatch (service/api/movepath.py); the others come here
        action, expected_ply, debug = submission()
        return json_response(submit(game_id, action, expected_ply, debug, request.environ))


def submit(
    game_id: int, action: str, expected_ply: int, debug: str | None, environ: dict[str, Any]
) -> dict[str, Any]:
    """A move submission's answer, its body read: the caller found by the ``Authorization`` header, the move
    counted against its rate limit and played for its seat. Needs the app's context only."""
    player_id = auth.player_id_of(environ.get("HTTP_AUTHORIZATION"))
    if player_id is not None:
        environ[ACCOUNT] = player_id  # for the access log (service/observe.py)
    if player_id is None:
        fail(401, auth.REQUIRED)
    ratelimits.check(ratelimits.MOVES, player_id)
    lang = i18n.pick_language(environ.get("HTTP_ACCEPT_LANGUAGE"))
    done = gameplay.moves().submit(player_id, game_id, action, expected_ply, lang, debug)
    asked = done.decision
    return {
        "game_id": game_id,
        "ply": done.ply,
        "status": done.status,
        "view": done.view,
        "decision": None if asked is None else {"seat": asked.seat, "kind": asked.kind},
        "your_decision": bool(done.actions),
        "deadline": done.deadline,
        "actions": done.actions,
    }


SUBMISSION = ActionSubmitSchema()


def plain_submission(raw: bytes) -> tuple[str, int, str | None] | None:
    """The action, ply and debug text (``None``: none) of a submission's JSON body when it is plainly well-formed
    (the documented fields, of their types and sizes, and no other); ``None`` for any other body, which the
    documented schema is to judge."""
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    if type(data) is dict and len(data) == 2 + ("debug" in data):
        action, ply, debug = data.get("action"), data.get("expected_ply"), data.get("debug")
        if (
            type(action) is str
            and 0 < len(action) <= MAX_ACTION
            and type(ply) is int
            and 0 <= ply <= MAX_INT
            and (debug is None or type(debug) is str)
        ):
            return action, ply, debug
    return None


def submission() -> tuple[str, int, str | None]:
    """The action, ply and debug text (``None``: none) of a submission's body. A plainly well-formed JSON body is
    read and checked directly; any other goes through the documented schema, which accepts it or answers the same
    422 as every other endpoint."""
    environ = request.environ
    length = environ.get("CONTENT_LENGTH") or ""
    if length.isdigit() and 0 < int(length) <= MAX_BODY_BYTES and is_json(environ.get("CONTENT_TYPE", "")):
        raw = environ["wsgi.input"].read(int(length))
        plain = plain_submission(raw)
        if plain is not None:
            return plain
        environ["wsgi.input"] = io.BytesIO(raw)  # the schema's parser reads the body again
    body = blp.ARGUMENTS_PARSER.parse(SUBMISSION, request, location="json")
    return body["action"], body["expected_ply"], body["debug"]


def actions_of(info: GameInfo, snapshot: Snapshot, status: str, seat: int, lang: str) -> dict[str, Any]:
    state = snapshot.state
    asked = engine.decision(state) if status == "active" else None
    mine = asked is not None and asked.seat == seat
    return {
        "game_id": info.id,
        "ply": snapshot.ply,
        "status": status,
        "seat": seat,
        "decision": {"seat": asked.seat, "kind": asked.kind} if asked is not None else None,
        "your_decision": mine,
        "deadline": info.deadline(snapshot, asked.seat) if asked is not None else None,
        "actions": gameplay.localized_actions(state, seat, info.game, lang) if mine else [],
    }


def wait_for_decision(
    moves: gameplay.Moves, player_id: int, game_id: int, seat: int, wait: float
) -> tuple[Snapshot, str]:
    """Wait until ``seat`` must decide or the game is over (or ``wait`` seconds pass); the game as it is then. A
    wait takes one of the account's long-poll slots (``service/waiting.py``): a 429 when none is free."""
    latest: list[tuple[Snapshot, str]] = []

    def ready() -> bool:
        found = moves.current(game_id)
        moves.lane.release()  # hold no pooled connection (nor a transaction) while waiting
        latest[:] = [found]
        snapshot, status = found
        if status in gameplay.ENDED:
            return True
        if status != "active":
            return False
        asked = engine.decision(snapshot.state)
        return asked is not None and asked.seat == seat

    if not ready():
        with waiting.slot(player_id, wait):
            moves.notifier.wait(game_id, ready, wait)
    return latest[-1]


@blp.route("/<int:game_id>/events")
class Events(MethodView):
    @blp.arguments(EventsQuerySchema(), location="query")
    @blp.response(200, EventsSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(404, **NOT_FOUND)
    def get(self, query: dict[str, Any], game_id: int) -> dict[str, Any]:
        """The event log: public events and your own private ones; the full replay once the game is over"""
        asking = caller(game_id, token_required=False)
        session, game = db.session(), asking.game
        records = gameplay.visible_events(session, game, asking.seat, query["since"], query["limit"])
        lang = language()
        return {
            "game_id": game.id,
            "events": [gameplay.localized_event(record, game.game, lang) for record in records],
            "replay": gameplay.replay(session, game) if deals.public(session, game) else None,
        }


@blp.route("/<int:game_id>/record")
class Record(MethodView):
    @blp.doc(
        responses={
            "200": {
                "description": "The game record: settings, seed, seats, every action with its latency and fault, "
                "result (the format: docs/bots.md, Replays and exports)",
                "content": {"application/json": {"schema": {"type": "object"}}},
            }
        }
    )
    @blp.alt_response(404, **NOT_FOUND)
    @blp.alt_response(
        409,
        schema=ErrorSchema,
        description="the game is still being played, or its stored record fails its replay",
    )
    def get(self, game_id: int) -> Response:
        """A finished game's record: the same object as its line of the tournament's games.jsonl

        A game still being played has none yet (its seed is secret until it is over).
        """
        gameplay.check_id(game_id)
        try:
            record = gamerecords.game_record(db.session(), game_id)
        except gamerecords.NotFinished as error:
            fail(409, f"{error}: its record (and seed) is shown once it is over")
        except gamerecords.Unsound as error:
            fail(409, f"{error}: it is not exported")
        if record is None:
            fail(404, f"no game {game_id}")
        return Response(dumps(record), mimetype="application/json")
