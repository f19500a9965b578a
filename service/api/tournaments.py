"""``/api/v1/tournaments``: round-robin tournaments between bots, played by RQ workers.

Creating one checks the bots and settings and commits the tournament; one that starts now is handed to the job
``tournament.jobs.start_tournament`` (by its dotted name), which lays out the balanced schedule and enqueues one job
per game. A start time and repeats are kept by the workers' clock (every worker starts the runs due, each once), so
no job has to wait for them in Redis: a lost start job costs a second. Progress, results and the fitted standings
are read from what the workers wrote.

A tournament seats only the creator's own bots and the bots whose owners opened them to others
(``open_to_others``), unless the operator makes it (an official tournament); quotas per account bound what one
account may queue (``service/quotas.py``). Its owner or the operator may cancel it (``service/cancellation.py``).
"""

from __future__ import annotations

import math
import secrets
from datetime import UTC
from typing import Any

from flask import Response, current_app, stream_with_context
from flask.views import MethodView
from flask_smorest import Blueprint
from sqlalchemy import func, select

import engine
from engine.records import dumps
from service import auth, cancellation, db, idempotency, quotas
from service.api.results import result_of
from service.errors import ErrorSchema, fail
from service.tournament_schemas import (
    TournamentCreateSchema,
    TournamentDetailSchema,
    TournamentListQuerySchema,
    TournamentListSchema,
)
from store.gamerecords import tournament_records
from store.models import Bot, Ladder, Result, Tournament, new_seed_salt, now

blp = Blueprint("tournaments", __name__, url_prefix="/api/v1/tournaments", description="Round-robin tournaments")

MAX_GAMES = 100_000


def variant_of(game: str, settings: dict[str, Any]) -> str:
    """The rating pool of a game's settings: games of different rules are rated apart."""
    if game == "board":
        variant = str(settings.get("variant", "standard"))
        return variant if str(settings.get("edition", "1992")) == "1992" else f"{variant}-{settings['edition']}"
    return "longer" if settings.get("longer_game") else "standard"


def progress(session: Any, tournament: Tournament) -> dict[str, int]:
    done = session.scalar(select(func.count(Result.id)).where(Result.tournament_id == tournament.id)) or 0
    return {"done": done, "total": tournament.games_total}


def describe(session: Any, tournament: Tournament) -> dict[str, Any]:
    fields = [
        "id",
        "name",
        "game",
        "settings",
        "variant",
        "bot_ids",
        "table_size",
        "rounds",
        "seed",
        "move_timeout_ms",
        "rated",
        "official",
        "status",
        "run",
        "parent_id",
        "start_at",
        "repeat_every",
        "repeat_times",
        "created_at",
        "finished_at",
    ]
    public = seed_is_public(session, tournament)
    return {
        **{name: getattr(tournament, name) for name in fields},
        "seed": tournament.seed if public else None,
        "seed_salt": tournament.seed_salt if public else None,
        "progress": progress(session, tournament),
    }


def seed_is_public(session: Any, tournament: Tournament) -> bool:
    """Whether the seed and salt may be shown: once no game they decide can still be played. Every game's seed, so
    its deal and each card to come, derives from the tournament's seed and secret salt, and the seeds of a repeating
    tournament's later runs derive from its first run's: shown earlier, they would show every seat's hand to anyone.
    A cancelled tournament never shows them: one of its games may still be between two steps."""
    if tournament.status != "done":
        return False
    if tournament.parent_id is not None:
        return True  # a later run's seed decides its own games only
    runs = session.scalars(select(Tournament.status).where(Tournament.parent_id == tournament.id)).all()
    return len(runs) + 1 >= (tournament.repeat_times or 1) and all(status == "done" for status in runs)


def check_bots(
    session: Any, game: str, bot_ids: list[int], table_size: int, owner_id: int, official: bool
) -> None:
    """The bots exist, play the game and fill a table; each is the creator's own or open to others (any bot, in
    an official tournament); else a 422, or a 403 naming the bots whose owners did not agree."""
    if len(set(bot_ids)) != len(bot_ids):
        fail(422, "bot_ids: a bot is listed twice")
    if table_size > len(bot_ids):
        fail(422, f"table_size {table_size} needs at least {table_size} bots, got {len(bot_ids)}")
    bots = {bot.id: bot for bot in session.scalars(select(Bot).where(Bot.id.in_(bot_ids), Bot.active.is_(True)))}
    missing = [bot_id for bot_id in bot_ids if bot_id not in bots]
    if missing:
        fail(422, f"bot_ids: no bot {', '.join(map(str, missing))}")
    paused = [f"{bot.id} ({bot.name})" for bot in bots.values() if bot.paused]
    if paused:
        fail(422, f"bot_ids: bot {', '.join(paused)} is paused by the operator")
    unfit = [bot.name for bot in bots.values() if game not in bot.games]
    if unfit:
        fail(422, f"bot_ids: {', '.join(unfit)} do not play the {game} game")
    closed = [
        f"{bot.id} ({bot.name})"
        for bot in bots.values()
        if bot.owner_id != owner_id and not bot.open_to_others and not official
    ]
    if closed:
        fail(
            403,
            f"bot_ids: bot {', '.join(closed)} is another account's, and its owner has not opened it to others' "
            "tournaments (open_to_others)",
        )


@blp.route("")
class Tournaments(MethodView):
    @idempotency.keyed(blp)
    @blp.arguments(TournamentCreateSchema)
    @blp.response(201, TournamentDetailSchema)
    @blp.alt_response(401, schema=ErrorSchema, description="a missing or unknown bearer token")
    @blp.alt_response(
        403, schema=ErrorSchema, description="a bot of another account that is not open to others' tournaments"
    )
    @blp.alt_response(422, schema=ErrorSchema, description="bad settings, bots or schedule, or over a quota")
    @blp.alt_response(
        429, schema=ErrorSchema, description="over a quota of the account's queued games or tournaments"
    )
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Create a round-robin tournament between bots; it starts now or at start_at, and repeats if asked

        The bots are the caller's own, or bots whose owners opened them to others' tournaments; the operator's
        tournaments (official) may seat any bot. Quotas per account bound the games and tournaments queued."""
        owner = auth.required_owner()
        official = auth.is_operator()
        session = db.session()
        game, table_size = body["game"], body["table_size"]
        settings = dict(body["settings"])
        if settings.setdefault("players", table_size) != table_size:
            fail(422, f"settings.players ({settings['players']}) and table_size ({table_size}) disagree")
        try:
            settings = engine.normalize_settings(game, settings)
        except engine.SettingsError as error:
            fail(422, f"settings: {error}")
        check_bots(session, game, body["bot_ids"], table_size, owner.id, official)
        total = math.comb(len(body["bot_ids"]), table_size) * table_size * body["rounds"]
        if total > MAX_GAMES:
            fail(422, f"{total} games: a tournament has at most {MAX_GAMES}; use fewer bots or rounds")
        if not official:
            quotas.check(session, current_app.extensions["settings"], owner.id, total, body["repeat_times"])
        queue = current_app.extensions["queue"]
        scheduled = body["start_at"] is not None or body["repeat_every"] is not None
        if scheduled and not queue.scheduling:
            fail(
                422, "start_at and repeat_every need a clock: run workers (REDIS_URL) or the embedded maintenance"
            )
        if body["start_at"] is not None and body["start_at"] < now():
            fail(422, "start_at is in the past")
        # in UTC: SQLite keeps no offset, and the workers' recovery compares start times with the clock
        start_at = body["start_at"].astimezone(UTC) if body["start_at"] is not None else None
        tournament = Tournament(
            owner_id=owner.id,
            name=body["name"],
            game=game,
            settings=settings,
            variant=variant_of(game, settings),
            bot_ids=body["bot_ids"],
            table_size=table_size,
            rounds=body["rounds"],
            seed=body["seed"] if body["seed"] is not None else secrets.randbits(62),
            seed_salt=new_seed_salt(),
            official=official,
            move_timeout_ms=body["move_timeout_ms"],
            rated=body["rated"],
            start_at=start_at,
            repeat_every=body["repeat_every"],
            repeat_times=body["repeat_times"],
            run=1,
            status="scheduled",
            games_total=total,
            created_at=now(),
        )
        session.add(tournament)
        session.commit()
        if start_at is None:  # at once; later runs (a start time, repeats) are the workers' clock's to start
            queue.queue_start(tournament.id)  # with Redis down, the workers' clock starts it once Redis answers
        return detail(session, tournament)

    @blp.arguments(TournamentListQuerySchema, location="query")
    @blp.response(200, TournamentListSchema)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """List tournaments, newest first"""
        session = db.session()
        statement = select(Tournament).order_by(Tournament.id.desc()).limit(query["limit"]).offset(query["offset"])
        if "status" in query:
            statement = statement.where(Tournament.status == query["status"])
        return {"tournaments": [describe(session, tournament) for tournament in session.scalars(statement)]}


DETAIL_RESULTS = 100
"""The results a tournament's detail holds: its first, in the order written; all of them, page by page, at
``GET /tournaments/{id}/results`` (``service/api/results.py``), so that no answer grows with the tournament."""


def detail(session: Any, tournament: Tournament) -> dict[str, Any]:
    written = select(Result).where(Result.tournament_id == tournament.id)
    results = session.scalars(written.order_by(Result.id).limit(DETAIL_RESULTS))
    standings = tournament.standings or {"standings": [], "head_to_head": []}
    return {
        **describe(session, tournament),
        "standings": standings["standings"],
        "head_to_head": standings["head_to_head"],
        "results": [result_of(result) for result in results],
        "results_total": session.scalar(select(func.count()).select_from(written.subquery())),
    }


def found(session: Any, tournament_id: int) -> Tournament:
    """The tournament, or a 404 that names the id."""
    tournament: Tournament | None = (
        session.get(Tournament, tournament_id) if 0 < tournament_id <= 2**31 - 1 else None
    )
    if tournament is None:
        fail(404, f"no tournament {tournament_id}")
    return tournament


@blp.route("/<int:tournament_id>")
class OneTournament(MethodView):
    @blp.response(200, TournamentDetailSchema)
    @blp.alt_response(404, schema=ErrorSchema, description="no such tournament")
    def get(self, tournament_id: int) -> dict[str, Any]:
        """A tournament: status, progress, results, fitted standings with 95% intervals, head-to-head"""
        session = db.session()
        return detail(session, found(session, tournament_id))


@blp.route("/<int:tournament_id>/cancel")
class CancelTournament(MethodView):
    @blp.response(200, TournamentDetailSchema)
    @blp.alt_response(401, schema=ErrorSchema, description="a missing or unknown bearer token")
    @blp.alt_response(403, schema=ErrorSchema, description="neither the tournament's owner nor the operator")
    @blp.alt_response(404, schema=ErrorSchema, description="no such tournament")
    @blp.alt_response(
        409, schema=ErrorSchema, description="the tournament is done, with no run to come, or is a ladder's"
    )
    def post(self, tournament_id: int) -> dict[str, Any]:
        """Cancel a tournament (its owner or the operator): its games not played are dropped, those being played
        stop at their next step, its results leave the rating pools, its later runs never start

        A first run's cancellation cancels its later runs that are not over too. Cancelling again changes nothing.
        """
        player = auth.required_player()
        session = db.session()
        tournament = found(session, tournament_id)
        if tournament.owner_id != player.id and not auth.is_operator():
            fail(403, f"tournament {tournament_id} is not yours (only its owner or the operator may cancel it)")
        ladder_id = session.scalar(select(Ladder.id).where(Ladder.tournament_id == tournament.id))
        if ladder_id is not None:
            fail(
                409,
                f"tournament {tournament_id} is ladder {ladder_id}'s: close the ladder instead "
                f"(POST /api/v1/ladders/{ladder_id}/close)",
            )
        stopped = cancellation.cancel(session, tournament)
        if stopped is not None:
            for game_id, ply in stopped:  # a game waiting for a pull bot's move stops now, not at its deadline
                current_app.extensions["notifier"].publish(game_id, ply)
            current_app.extensions["queue"].queue_cancelled(tournament.id)
        session.refresh(tournament)
        return detail(session, tournament)


@blp.route("/<int:tournament_id>/games.jsonl")
class TournamentGameRecords(MethodView):
    @blp.doc(
        responses={
            "200": {
                "description": "One game record per line (JSON lines; the format: docs/bots.md, Replays and "
                "exports), streamed, as an attachment named tournament-ID-games.jsonl",
                "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
            }
        }
    )
    @blp.alt_response(404, schema=ErrorSchema, description="no such tournament")
    def get(self, tournament_id: int) -> Response:
        """Download the records of the tournament's finished games, one JSON line each

        Each record holds a game's settings, seed, seats (bot names), every action with its latency and fault, and
        its result; in play order. Games still being played are left out (their seeds are secret until then), and
        so is a paired match's game while its twin on the same deal is not over. Every record passes the check of
        sorry-arena replay: a stored game whose record would not is left out (the service logs it).
        """
        session = db.session()
        found(session, tournament_id)
        session.commit()
        lines = (dumps(record) + "\n" for record in tournament_records(session, tournament_id))
        response = Response(stream_with_context(lines), mimetype="application/x-ndjson")
        response.headers["Content-Disposition"] = f'attachment; filename="tournament-{tournament_id}-games.jsonl"'
        return response
