"""``/api/v1/ladders``: continuous rated arenas, where a bot plays whenever it is idle and under its hourly budget.

A ladder runs until closed: bots join it and leave it at any time, and the workers make a game whenever a bot is
idle (``tournament.jobs.ladder_round``, enqueued by its dotted name after each change here that may let a game
start), against the opponents whose games teach the ratings most. Ratings are Weng-Lin's (``ratings.wenglin``),
shown on the Elo scale with their 95% interval. The writes, and who may make each, are ``service/ladders.py``'s; the
reads (standings, games, chart) ``service/ladderrows.py``'s, shared with the pages.

An account has at most ``SORRY_ARENA_QUOTA_LADDERS`` open ladders (the operator's official ladders count in no
quota). A ladder's games go through the same queue, slots and per-account share as any tournament's, and are rated
into the rating pool of their game and table size when the ladder is ``rated``.
"""

from __future__ import annotations

from typing import Any

from flask import current_app
from flask.views import MethodView
from sqlalchemy import func, select

import engine
from service import auth, db, idempotency, ladderrows, ladders
from service.api.tournaments import variant_of
from service.errors import ErrorSchema, fail
from service.ladder_schemas import (
    LadderChartQuerySchema,
    LadderChartSchema,
    LadderCreateSchema,
    LadderDetailSchema,
    LadderGameSchema,
    LadderGamesQuerySchema,
    LadderJoinSchema,
    LadderListQuerySchema,
    LadderRowSchema,
    LadderSchema,
)
from service.pagination import MAX_PAGE_SIZE, Blueprint, window
from store.models import Ladder, now

blp = Blueprint(
    "ladders", __name__, url_prefix="/api/v1/ladders", description="Ladders: continuous rated arenas between bots"
)

UNAUTHORIZED = {"schema": ErrorSchema, "description": "a missing or unknown bearer token"}
NOT_FOUND = {"schema": ErrorSchema, "description": "no such ladder, or no such bot (in it)"}


DETAIL_STANDINGS = 100
"""The standings rows a ladder's detail holds: its first, best first; all of them, page by page, at
``GET /ladders/{id}/standings``, so that no answer grows with the ladder."""
CHART_BOTS = 20
"""The most bots a chart draws: those asked for, or the best rated."""


def detail(session: Any, ladder: Ladder) -> dict[str, Any]:
    """The ladder with the first rows of its standings and how many there are."""
    days = current_app.extensions["settings"].ladder_inactive_days
    return {
        **ladderrows.summary(session, ladder),
        "standings": ladderrows.standings(session, ladder, now(), days, limit=DETAIL_STANDINGS),
        "standings_total": ladderrows.standings_count(session, ladder.id),
    }


def row(session: Any, ladder: Ladder, bot_id: int) -> dict[str, Any]:
    """The bot's row of the ladder's standings."""
    days = current_app.extensions["settings"].ladder_inactive_days
    return ladderrows.standings(session, ladder, now(), days, bot_id=bot_id)[0]


def matchmaking(ladder_id: int) -> None:
    """Ask the workers for a matchmaking round of the ladder (after a change committed)."""
    current_app.extensions["queue"].queue_ladder_round(ladder_id)


@blp.route("")
class Ladders(MethodView):
    @idempotency.keyed(blp)
    @blp.arguments(LadderCreateSchema)
    @blp.response(201, LadderDetailSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(403, schema=ErrorSchema, description="a bot's token")
    @blp.alt_response(422, schema=ErrorSchema, description="bad fields or settings")
    @blp.alt_response(
        429, schema=ErrorSchema, description="over the account's open ladders (SORRY_ARENA_QUOTA_LADDERS)"
    )
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Open a ladder: bots join it, and play whenever they are idle and under its hourly budget, until it closes

        Its games are made as bots fall idle, each against the opponents whose game teaches the ratings most, within
        budget_per_hour games per bot and max_in_play games at once. An account has at most
        SORRY_ARENA_QUOTA_LADDERS open ladders; the operator's (official) may seat any bot and count in no quota."""
        owner = auth.required_owner()
        official = auth.is_operator()
        session = db.session()
        game, table_size = body["game"], body["table_size"]
        settings = dict(body["settings"])
        if settings.setdefault("players", table_size) != table_size:
            fail(422, f"settings.players ({settings['players']}) and table_size ({table_size}) disagree")
        try:
            settings = dict(engine.normalize_settings(game, settings))
        except engine.SettingsError as error:
            fail(422, f"settings: {error}")
        service_settings = current_app.extensions["settings"]
        if not official:
            ladders.check_quota(session, service_settings, owner.id)
        fields = {
            **body,
            "settings": settings,
            "variant": variant_of(game, settings),
            "max_in_play": body["max_in_play"] or service_settings.ladder_max_in_play,
        }
        ladder = ladders.create(session, owner.id, official, fields)
        matchmaking(ladder.id)
        return detail(session, ladder)

    @blp.arguments(LadderListQuerySchema, location="query")
    @blp.response(200, LadderSchema(many=True))
    @blp.paginate(page_size=50, max_page_size=MAX_PAGE_SIZE)
    def get(self, query: dict[str, Any], pagination_parameters: Any) -> list[dict[str, Any]]:
        """List the ladders, newest first (?status=open or closed; paginated: page, page_size; X-Pagination and
        Link headers)"""
        session = db.session()
        listed = select(Ladder)
        if "status" in query:
            listed = listed.where(Ladder.status == query["status"])
        pagination_parameters.item_count = session.scalar(select(func.count()).select_from(listed.subquery()))
        found = window(pagination_parameters)
        if found is None:
            return []
        offset, limit = found
        page = session.scalars(listed.order_by(Ladder.id.desc()).offset(offset).limit(limit))
        return [ladderrows.summary(session, ladder) for ladder in page]


@blp.route("/<int:ladder_id>")
class OneLadder(MethodView):
    @blp.response(200, LadderDetailSchema)
    @blp.alt_response(404, **NOT_FOUND)
    def get(self, ladder_id: int) -> dict[str, Any]:
        """A ladder and its standings: each bot's rating with its 95% interval, games, budget left, pause"""
        session = db.session()
        return detail(session, ladders.found(session, ladder_id))


@blp.route("/<int:ladder_id>/standings")
class LadderStandings(MethodView):
    @blp.response(200, LadderRowSchema(many=True))
    @blp.alt_response(404, **NOT_FOUND)
    @blp.paginate(page_size=MAX_PAGE_SIZE, max_page_size=MAX_PAGE_SIZE)
    def get(self, ladder_id: int, pagination_parameters: Any) -> list[dict[str, Any]]:
        """A ladder's standings, best rating first, the bots that left after the others (paginated: page,
        page_size; X-Pagination and Link)"""
        session = db.session()
        ladder = ladders.found(session, ladder_id)
        pagination_parameters.item_count = ladderrows.standings_count(session, ladder.id)
        found = window(pagination_parameters)
        if found is None:
            return []
        offset, limit = found
        days = current_app.extensions["settings"].ladder_inactive_days
        return ladderrows.standings(session, ladder, now(), days, offset=offset, limit=limit)


@blp.route("/<int:ladder_id>/games")
class LadderGames(MethodView):
    @blp.arguments(LadderGamesQuerySchema, location="query")
    @blp.response(200, LadderGameSchema(many=True))
    @blp.alt_response(404, **NOT_FOUND)
    @blp.paginate(page_size=50, max_page_size=MAX_PAGE_SIZE)
    def get(self, query: dict[str, Any], ladder_id: int, pagination_parameters: Any) -> list[dict[str, Any]]:
        """A ladder's games in play (made and not finished, oldest first) or recent (finished, with their ranks,
        latest first): ?state=in_play or recent (paginated: page, page_size)"""
        session = db.session()
        ladder = ladders.found(session, ladder_id)
        found = window(pagination_parameters)
        offset, limit = found if found is not None else (0, 0)
        total, listed = ladderrows.games(session, ladder.id, query["state"], offset, limit)
        pagination_parameters.item_count = total
        return listed


@blp.route("/<int:ladder_id>/chart")
class LadderChart(MethodView):
    @blp.arguments(LadderChartQuerySchema, location="query")
    @blp.response(200, LadderChartSchema)
    @blp.alt_response(404, **NOT_FOUND)
    def get(self, query: dict[str, Any], ladder_id: int) -> dict[str, Any]:
        """Bots' Weng-Lin rating lines in a ladder, the rating that chooses the games (?bot_id=, repeated, up to 20;
        default: the 20 best rated): [number, rating, low, high, at] after its number-th rated game there, at most
        about 200 points a bot"""
        session = db.session()
        ladder = ladders.found(session, ladder_id)
        chosen = query.get("bot_id") or ladderrows.leaders(session, ladder.id, CHART_BOTS)
        lines = ladderrows.chart(session, ladder.id, chosen)
        for line in lines:
            line["points"] = [[*point[:4], point[4].isoformat()] for point in line["points"]]
        return {"ladder_id": ladder.id, "lines": lines}


@blp.route("/<int:ladder_id>/bots")
class LadderBots(MethodView):
    @blp.arguments(LadderJoinSchema)
    @blp.response(201, LadderRowSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(
        403,
        schema=ErrorSchema,
        description="not the bot's owner (the ladder's owner may add a bot open to others), or a bot's token",
    )
    @blp.alt_response(404, **NOT_FOUND)
    @blp.alt_response(409, schema=ErrorSchema, description="the bot is in already, or the ladder is closed")
    @blp.alt_response(422, schema=ErrorSchema, description="the bot does not play the ladder's game, or is paused")
    def post(self, body: dict[str, Any], ladder_id: int) -> dict[str, Any]:
        """Enter a bot into a ladder (its owner; the ladder's owner if the bot is open to others; the operator)

        A newcomer starts at 1500 with a wide interval; a bot that left comes back with the rating it had."""
        caller = auth.required_owner()
        session = db.session()
        ladder = ladders.found(session, ladder_id)
        bot = ladders.found_bot(session, body["bot_id"])
        ladders.join(session, ladder, bot, caller.id, auth.is_operator())
        matchmaking(ladder.id)
        return row(session, ladder, bot.id)


@blp.route("/<int:ladder_id>/bots/<int:bot_id>")
class LadderBot(MethodView):
    @blp.response(200, LadderRowSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(
        403, schema=ErrorSchema, description="neither the bot's owner, the ladder's, nor the operator"
    )
    @blp.alt_response(404, **NOT_FOUND)
    @blp.alt_response(409, schema=ErrorSchema, description="the bot left already, or the ladder is closed")
    def delete(self, ladder_id: int, bot_id: int) -> dict[str, Any]:
        """Take a bot out of a ladder (its owner, the ladder's owner or the operator): its game in play finishes,
        its row stays with its rating"""
        caller = auth.required_owner()
        session = db.session()
        ladder = ladders.found(session, ladder_id)
        bot = ladders.found_bot(session, bot_id)
        ladders.leave(session, ladder, bot, caller.id, auth.is_operator())
        return row(session, ladder, bot.id)


@blp.route("/<int:ladder_id>/bots/<int:bot_id>/pause")
class PauseLadderBot(MethodView):
    @blp.response(200, LadderRowSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(
        403, schema=ErrorSchema, description="neither the bot's owner, the ladder's, nor the operator"
    )
    @blp.alt_response(404, **NOT_FOUND)
    @blp.alt_response(409, schema=ErrorSchema, description="the bot left, or the ladder is closed")
    def post(self, ladder_id: int, bot_id: int) -> dict[str, Any]:
        """Pause a bot in a ladder (its owner, the ladder's owner or the operator): no game is made for it until it
        is resumed; the reason says who paused it"""
        caller = auth.required_owner()
        session = db.session()
        ladder = ladders.found(session, ladder_id)
        bot = ladders.found_bot(session, bot_id)
        ladders.pause(session, ladder, bot, caller.id, auth.is_operator())
        return row(session, ladder, bot.id)


@blp.route("/<int:ladder_id>/bots/<int:bot_id>/resume")
class ResumeLadderBot(MethodView):
    @blp.response(200, LadderRowSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(403, schema=ErrorSchema, description="neither the bot's owner nor the operator")
    @blp.alt_response(404, **NOT_FOUND)
    @blp.alt_response(409, schema=ErrorSchema, description="the bot left, or the ladder is closed")
    def post(self, ladder_id: int, bot_id: int) -> dict[str, Any]:
        """Resume a paused bot in a ladder (its owner or the operator): its pause and its streak of games with
        faults cleared, it plays again"""
        caller = auth.required_owner()
        session = db.session()
        ladder = ladders.found(session, ladder_id)
        bot = ladders.found_bot(session, bot_id)
        ladders.resume(session, ladder, bot, caller.id, auth.is_operator())
        matchmaking(ladder.id)
        return row(session, ladder, bot.id)


@blp.route("/<int:ladder_id>/close")
class CloseLadder(MethodView):
    @blp.response(200, LadderDetailSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(403, schema=ErrorSchema, description="neither the ladder's owner nor the operator")
    @blp.alt_response(404, **NOT_FOUND)
    @blp.alt_response(409, schema=ErrorSchema, description="the ladder is closed already")
    def post(self, ladder_id: int) -> dict[str, Any]:
        """Close a ladder (its owner or the operator): no game is made any more, its games not begun are cancelled,
        those being played finish; its standings stay"""
        caller = auth.required_player()
        session = db.session()
        ladder = ladders.found(session, ladder_id)
        ladders.close(session, ladder, caller.id, auth.is_operator())
        matchmaking(ladder.id)  # its cancelled games settled, its tournament done once none is in play
        session.refresh(ladder)
        return detail(session, ladder)
