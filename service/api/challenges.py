"""``/api/v1/challenges``: a person plays one game against bots, through the games API with their own token.

A challenge is laid out like a one-game tournament (``store/challenges.py``): an unrated tournament owned by the
person, its ``bot_ids`` the seats in order with the person's marked :data:`store.challenges.HUMAN`. It goes to the
same start job as a tournament; a worker (or the embedded queue) makes the game with the person's account in their
seat, calls the push bots, asks the pull bots through the API, and waits on the person's seat as on a pull bot's:
the person moves with ``GET``/``POST /api/v1/games/{game_id}/actions`` once ``game_id`` is set. The bots are the
person's own or bots open to others (``open_to_others``), as in tournaments; quotas apply, and an account has at most
``SORRY_ARENA_LIVE_CHALLENGES`` challenges not over (the operator too: a challenge holds a worker's slot while it
waits on its person). The person's time per move is at most ``SORRY_ARENA_CHALLENGE_MOVE_TIMEOUT_MS`` (its default),
the bots' the same up to the tournaments' limit; the person forfeits at the second missed deadline in a row. Leave a
challenge by cancelling its tournament (``POST /api/v1/tournaments/{id}/cancel``).
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import current_app
from flask.views import MethodView
from flask_smorest import Blueprint
from sqlalchemy import or_, select

import engine
from service import auth, db, idempotency, quotas
from service.api.results import result_of
from service.api.tournaments import check_bots, found, variant_of
from service.challenge_schemas import (
    ChallengeCreateSchema,
    ChallengeSchema,
    OpponentsQuerySchema,
    OpponentsSchema,
)
from service.errors import ErrorSchema, fail
from store.challenges import HUMAN, bot_move_timeout_ms, human_seat, is_challenge
from store.models import Bot, Game, Player, Result, Tournament, TournamentGame, new_seed_salt, now

blp = Blueprint(
    "challenges", __name__, url_prefix="/api/v1/challenges", description="Play a game yourself against bots"
)

OPPONENTS_LISTED = 200


def describe(session: Any, tournament: Tournament) -> dict[str, Any]:
    """The challenge of ``tournament`` as the API shows it."""
    scheduled = session.scalar(select(TournamentGame).where(TournamentGame.tournament_id == tournament.id))
    game = session.get(Game, scheduled.game_id) if scheduled is not None and scheduled.game_id else None
    result = session.scalar(select(Result).where(Result.tournament_id == tournament.id))
    bots = {bot.id: bot for bot in session.scalars(select(Bot).where(Bot.id.in_(tournament.bot_ids)))}
    person = session.get(Player, tournament.owner_id)
    players = []
    for seat, bot_id in enumerate(tournament.bot_ids):
        bot = bots.get(bot_id)
        if bot_id == HUMAN or bot is None:
            players.append({"seat": seat, "name": person.name if person else "", "bot_id": None, "mode": "human"})
        else:
            mode = "push" if bot.url is not None else "pull"
            players.append({"seat": seat, "name": bot.name, "bot_id": bot.id, "mode": mode})
    return {
        "id": tournament.id,
        "owner_id": tournament.owner_id,
        "game": tournament.game,
        "settings": tournament.settings,
        "seat": human_seat(tournament.bot_ids),
        "players": players,
        "move_timeout_ms": tournament.move_timeout_ms,
        "bot_move_timeout_ms": bot_move_timeout_ms(tournament.move_timeout_ms),
        "status": tournament.status,
        "game_id": None if game is None else game.id,
        "game_status": None if game is None else game.status,
        "result": None if result is None else result_of(result),
        "created_at": tournament.created_at,
    }


@blp.route("")
class Challenges(MethodView):
    @idempotency.keyed(blp)
    @blp.arguments(ChallengeCreateSchema)
    @blp.response(201, ChallengeSchema)
    @blp.alt_response(401, schema=ErrorSchema, description="a missing or unknown bearer token")
    @blp.alt_response(
        403,
        schema=ErrorSchema,
        description="a bot's token, or a bot of another account that is not open to others",
    )
    @blp.alt_response(
        422,
        schema=ErrorSchema,
        description="bad settings, bots or seat, or a move timeout over the service's limit",
    )
    @blp.alt_response(
        429,
        schema=ErrorSchema,
        description="over the account's live challenges (SORRY_ARENA_LIVE_CHALLENGES) or a quota of its queued games",
    )
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Challenge bots: a game with you in one seat and the bots in the others, starting now

        The bots are your own or bots whose owners opened them to others; they play as in a tournament (push bots
        called, pull bots asked through the API), and you play your seat through the games API with your token
        (GET and POST /api/v1/games/{game_id}/actions) once the challenge's game_id is set. Unrated. An account has
        one challenge not over at a time (SORRY_ARENA_LIVE_CHALLENGES); your second missed deadline in a row
        forfeits."""
        owner = auth.required_owner()
        official = auth.is_operator()
        session = db.session()
        game, bot_ids, seat = body["game"], list(body["bot_ids"]), body["seat"]
        players = len(bot_ids) + 1
        if seat >= players:
            fail(422, f"seat must be from 0 to {players - 1} (you and {len(bot_ids)} bot(s)), got {seat}")
        settings = dict(body["settings"])
        if settings.setdefault("players", players) != players:
            fail(422, f"settings.players ({settings['players']}) must be {players}: you and {len(bot_ids)} bot(s)")
        try:
            settings = dict(engine.normalize_settings(game, settings))
        except engine.SettingsError as error:
            fail(422, f"settings: {error}")
        service_settings = current_app.extensions["settings"]
        move_timeout_ms = body["move_timeout_ms"] or service_settings.challenge_move_timeout_ms
        if move_timeout_ms > service_settings.challenge_move_timeout_ms:
            fail(
                422,
                f"move_timeout_ms: at most {service_settings.challenge_move_timeout_ms} ms "
                f"(SORRY_ARENA_CHALLENGE_MOVE_TIMEOUT_MS), got {move_timeout_ms}",
            )
        check_bots(session, game, bot_ids, len(bot_ids), owner.id, official)
        quotas.check_challenges(session, service_settings, owner.id)
        if not official:
            quotas.check(session, service_settings, owner.id, 1, None)
        seats = bot_ids[:seat] + [HUMAN] + bot_ids[seat:]
        names = dict(session.execute(select(Bot.id, Bot.name).where(Bot.id.in_(bot_ids))).all())
        tournament = Tournament(
            owner_id=owner.id,
            name=f"challenge: {owner.name} vs {', '.join(names[bot] for bot in bot_ids)}"[:64],
            game=game,
            settings=settings,
            variant=variant_of(game, settings),
            bot_ids=seats,
            table_size=players,
            rounds=1,
            seed=secrets.randbits(62),
            seed_salt=new_seed_salt(),
            official=official,
            move_timeout_ms=move_timeout_ms,
            rated=False,
            run=1,
            status="scheduled",
            games_total=1,
            created_at=now(),
        )
        session.add(tournament)
        session.commit()
        current_app.extensions["queue"].queue_start(tournament.id)  # with Redis down: the workers' clock starts it
        return describe(session, tournament)


@blp.route("/<int:challenge_id>")
class OneChallenge(MethodView):
    @blp.response(200, ChallengeSchema)
    @blp.alt_response(404, schema=ErrorSchema, description="no such challenge")
    def get(self, challenge_id: int) -> dict[str, Any]:
        """A challenge: its seats, status, its game's id (once made) and status, and its result once over"""
        session = db.session()
        tournament = found(session, challenge_id)
        if not is_challenge(tournament.bot_ids):
            fail(404, f"no challenge {challenge_id}: tournament {challenge_id} is a tournament of bots")
        return describe(session, tournament)


@blp.route("/opponents")
class Opponents(MethodView):
    @blp.arguments(OpponentsQuerySchema, location="query")
    @blp.response(200, OpponentsSchema)
    @blp.alt_response(401, schema=ErrorSchema, description="a missing or unknown bearer token")
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """The bots you may challenge at a game: your own and those open to others (among the newest 200)"""
        player_id = auth.required_player_id()
        session = db.session()
        bots = session.scalars(
            select(Bot)
            .where(Bot.active.is_(True), or_(Bot.owner_id == player_id, Bot.open_to_others.is_(True)))
            .order_by(Bot.id.desc())
            .limit(OPPONENTS_LISTED + 1)
        ).all()
        fit = [bot for bot in bots[:OPPONENTS_LISTED] if query["game"] in bot.games]
        return {
            "bots": [
                {
                    "id": bot.id,
                    "name": bot.name,
                    "mode": "push" if bot.url is not None else "pull",
                    "yours": bot.owner_id == player_id,
                }
                for bot in fit
            ],
            "more": len(bots) > OPPONENTS_LISTED,
        }
