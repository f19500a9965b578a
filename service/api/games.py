"""``/api/v1/games``: games, their seats, hands, legal actions and events.

Every response shows the caller exactly what its seat's engine view shows (spectators: the public view); the
seed and the full replay become public once the game is over.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from flask import Response, current_app, request
from flask.views import MethodView
from flask_smorest import Blueprint
from sqlalchemy import func, select

import engine
from engine import i18n
from service import auth, db, gameplay
from service.errors import ErrorSchema, fail
from service.models import Game, Player, Seat
from service.schemas import (
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

blp = Blueprint("games", __name__, url_prefix="/api/v1/games", description="Games, seats, hands, actions, events")

UNAUTHORIZED = {"schema": ErrorSchema, "description": "a missing or unknown bearer token"}
NOT_FOUND = {"schema": ErrorSchema, "description": "no such game"}
CONFLICT = {"schema": ErrorSchema, "description": "not now: stale ply, not your turn, illegal action, seat taken"}


@dataclass
class Caller:
    """Who is asking about which game: the player (``None``: a spectator), the game and the player's seat."""

    player: Player | None
    game: Game
    seat: int | None


def caller(game_id: int, *, token_required: bool) -> Caller:
    player = auth.required_player() if token_required else auth.optional_player()
    session = db.session()
    game = gameplay.get_game(session, game_id)
    return Caller(player, game, gameplay.seat_of(session, game, player))


def language() -> str:
    return i18n.pick_language(request.headers.get("Accept-Language"))


def render(game: Game, player: Player | None, state: Any = None) -> dict[str, Any]:
    session = db.session()
    seats = gameplay.seats_of(session, game)
    names = dict(
        session.execute(
            select(Player.id, Player.name).where(Player.id.in_([s.player_id for s in seats.values()]))
        ).all()
    )
    mine = next(
        (number for number, seat in seats.items() if player is not None and seat.player_id == player.id), None
    )
    state = state if state is not None else gameplay.load(game)
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
        "seed": game.seed if game.status == "over" else None,
        "created_at": game.created_at,
    }


@blp.route("")
class Games(MethodView):
    @blp.arguments(GameListQuerySchema, location="query")
    @blp.response(200, GameSchema(many=True))
    @blp.paginate()
    def get(self, query: dict[str, Any], pagination_parameters: Any) -> list[dict[str, Any]]:
        """List games, newest first, filtered by game, status and player (paginated: page, page_size)"""
        player = auth.optional_player()
        statement = select(Game)
        if "game" in query:
            statement = statement.where(Game.game == query["game"])
        if "status" in query:
            statement = statement.where(Game.status == query["status"])
        if "player" in query:
            statement = statement.where(Game.id.in_(select(Seat.game_id).where(Seat.player_id == query["player"])))
        session = db.session()
        pagination_parameters.item_count = session.scalar(select(func.count()).select_from(statement.subquery()))
        if pagination_parameters.first_item > gameplay.MAX_ID:
            return []  # far past the last game (and past what the database's integers hold)
        page = statement.order_by(Game.id.desc()).offset(pagination_parameters.first_item)
        games = session.scalars(page.limit(pagination_parameters.page_size))
        return [render(game, player) for game in games]

    @blp.arguments(GameCreateSchema)
    @blp.response(201, GameSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(422, schema=ErrorSchema, description="unknown game or settings that do not make a game")
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Create a game from its kind, settings, number of seats and optional seed"""
        player = auth.required_player()
        game = gameplay.create_game(
            db.session(), player, body["game"], body["settings"], body["seats"], body["seed"]
        )
        return render(game, player)


@blp.route("/<int:game_id>")
class GameResource(MethodView):
    @blp.response(200, GameSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(404, **NOT_FOUND)
    def get(self, game_id: int) -> Any:
        """Show a game: the caller's seat view if it holds a seat, else the public view (ETag)"""
        player = auth.optional_player()
        game = gameplay.get_game(db.session(), game_id)
        return conditional(game, player, lambda: render(game, player), GameSchema())


@blp.route("/<int:game_id>/seats")
class Seats(MethodView):
    @blp.arguments(SeatTakeSchema)
    @blp.response(201, SeatTakenSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(404, **NOT_FOUND)
    @blp.alt_response(409, **CONFLICT)
    def post(self, body: dict[str, Any], game_id: int) -> dict[str, Any]:
        """Take an open seat (any, or the one asked for); the game starts when every seat is taken"""
        player = auth.required_player()
        session = db.session()
        game = gameplay.get_game(session, game_id)
        seat = gameplay.take_seat(session, game, player, body["seat"])
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
    @blp.arguments(ActionsQuerySchema, location="query")
    @blp.response(200, ActionsSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(403, schema=ErrorSchema, description="you hold no seat in this game")
    @blp.alt_response(404, **NOT_FOUND)
    def get(self, query: dict[str, Any], game_id: int) -> Any:
        """Your legal actions now (empty unless you must decide), long-polling with ?wait= (ETag)"""
        asking = caller(game_id, token_required=True)
        player, game, seat = asking.player, asking.game, asking.seat
        if seat is None:
            fail(403, f"you hold no seat in game {game_id}")
        wait = min(query["wait"], current_app.extensions["settings"].max_wait)
        if wait > 0:
            game = wait_for_decision(game_id, seat, wait)
        return conditional(game, player, lambda: actions_of(game, seat), ActionsSchema(), seat)

    @blp.arguments(ActionSubmitSchema)
    @blp.response(200, SubmittedSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(403, schema=ErrorSchema, description="you hold no seat in this game")
    @blp.alt_response(404, **NOT_FOUND)
    @blp.alt_response(409, **CONFLICT)
    def post(self, body: dict[str, Any], game_id: int) -> dict[str, Any]:
        """Submit an action for the ply it answers; returns your new view"""
        asking = caller(game_id, token_required=True)
        seat = asking.seat
        done = gameplay.submit(db.session(), asking.game, seat, body["action"], body["expected_ply"])
        status = "over" if engine.is_over(done.state) else "active"
        return {"game_id": game_id, "ply": done.ply, "status": status, "view": engine.view(done.state, seat)}


def actions_of(game: Game, seat: int) -> dict[str, Any]:
    state = gameplay.load(game)
    asked = engine.decision(state) if game.status == "active" else None
    mine = asked is not None and asked.seat == seat
    return {
        "game_id": game.id,
        "ply": game.ply,
        "status": game.status,
        "seat": seat,
        "decision": {"seat": asked.seat, "kind": asked.kind} if asked is not None else None,
        "your_decision": mine,
        "deadline": None,
        "actions": gameplay.localized_actions(state, seat, game.game, language()) if mine else [],
    }


def wait_for_decision(game_id: int, seat: int, wait: float) -> Game:
    """Wait until ``seat`` must decide or the game is over (or ``wait`` seconds pass); the game as it is then."""
    session = db.session()
    latest: list[Game] = []

    def ready() -> bool:
        session.rollback()  # see other processes' commits
        game = gameplay.get_game(session, game_id)
        latest[:] = [game]
        if game.status == "over":
            return True
        if game.status != "active":
            return False
        asked = engine.current_player(gameplay.load(game))
        return asked == seat

    current_app.extensions["notifier"].wait(game_id, ready, wait)
    return latest[-1]


def conditional(game: Game, player: Player | None, build: Any, schema: Any, seat: int | None = None) -> Any:
    """Answer 304 when the client's ETag still matches: a game changes only when its ply or status does."""
    viewer = seat if seat is not None else (player.id if player is not None else "public")
    tag = hashlib.sha256(
        f"{request.path}|{game.id}|{game.ply}|{game.status}|{viewer}|{language()}".encode()
    ).hexdigest()[:32]
    if tag in request.if_none_match:
        response = Response(status=304)
        response.set_etag(tag)
        return response
    response = current_app.response_class(
        current_app.json.dumps(schema.dump(build())), mimetype="application/json"
    )
    response.set_etag(tag)
    return response


@blp.route("/<int:game_id>/events")
class Events(MethodView):
    @blp.arguments(EventsQuerySchema, location="query")
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
            "replay": gameplay.replay(session, game) if game.status == "over" else None,
        }
