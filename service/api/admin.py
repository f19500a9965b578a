"""``/api/v1/admin``: the operator's powers (``service/adminpowers.py``) and reports (``service/adminreports.py``).

Every route needs the operator's token (``SORRY_ARENA_OPERATOR_TOKEN``): a 401 without a token (or with an unknown
one), a 403 with any other account's. Every action is written to the audit log (``GET /admin/audit``) in the
transaction of its effect.
"""

from __future__ import annotations

import os
import socket
from typing import Any

from flask import current_app
from flask.views import MethodView

from runtime import workerstats
from runtime.jobqueue import LocalQueue
from service import adminpowers, adminreports, auth, db
from service.admin_schemas import (
    AccountListSchema,
    AccountsQuerySchema,
    AuditListSchema,
    BotAdminSchema,
    DisabledSchema,
    FlaggedBotListSchema,
    QueueSchema,
    RevokedSchema,
    WorkerListSchema,
)
from service.api.tournaments import detail, found
from service.errors import ErrorSchema, fail
from service.pagination import MAX_PAGE_SIZE, Blueprint, window
from service.tournament_schemas import TournamentDetailSchema

blp = Blueprint(
    "admin",
    __name__,
    url_prefix="/api/v1/admin",
    description="The operator's powers: accounts, tokens, bots, tournaments, the queue, workers, the audit log",
)

NOT_OPERATOR = "this needs the operator's token (SORRY_ARENA_OPERATOR_TOKEN)"
UNAUTHORIZED = {"schema": ErrorSchema, "description": "a missing or unknown bearer token"}
FORBIDDEN = {"schema": ErrorSchema, "description": "not the operator's token"}


def operator_id() -> int:
    """The operator's account id; a 401 without a token, a 403 with another account's."""
    player_id = auth.required_player_id()
    if not auth.is_operator():
        fail(403, NOT_OPERATOR)
    return player_id


def guarded(function: Any) -> Any:
    """Document the 401 and 403 every admin route answers."""
    return blp.alt_response(401, **UNAUTHORIZED)(blp.alt_response(403, **FORBIDDEN)(function))


@blp.route("/accounts")
class Accounts(MethodView):
    @blp.arguments(AccountsQuerySchema, location="query")
    @blp.response(200, AccountListSchema)
    @blp.paginate(page_size=50, max_page_size=MAX_PAGE_SIZE)
    @guarded
    def get(self, query: dict[str, Any], pagination_parameters: Any) -> dict[str, Any]:
        """List the accounts (not the bots' own), oldest first, each with its usage (paginated: page, page_size)"""
        operator_id()
        session = db.session()
        statement = adminreports.accounts_query(query["name"], query["disabled"])
        pagination_parameters.item_count = adminreports.count(session, statement)
        found_page = window(pagination_parameters)
        if found_page is None:
            return {"accounts": []}
        offset, limit = found_page
        players = list(session.scalars(statement.offset(offset).limit(limit)))
        return {"accounts": adminreports.usage(session, players)}


def disabled_answer(player_id: int, done: dict[str, Any]) -> dict[str, Any]:
    session = db.session()
    player = adminpowers.account(session, player_id)
    return {"account": adminreports.usage(session, [player])[0], **done}


@blp.route("/accounts/<int:player_id>/disable")
class DisableAccount(MethodView):
    @blp.response(200, DisabledSchema)
    @guarded
    @blp.alt_response(404, schema=ErrorSchema, description="no such account")
    @blp.alt_response(409, schema=ErrorSchema, description="the operator's own account")
    def post(self, player_id: int) -> dict[str, Any]:
        """Disable an account: its tokens and its bots' are refused at once, its tournaments still to play are
        cancelled, its open ladders closed, its bots forfeit every new game"""
        actor = operator_id()
        session = db.session()
        done = adminpowers.set_disabled(session, actor, adminpowers.account(session, player_id), True)
        return disabled_answer(player_id, done)


@blp.route("/accounts/<int:player_id>/enable")
class EnableAccount(MethodView):
    @blp.response(200, DisabledSchema)
    @guarded
    @blp.alt_response(404, schema=ErrorSchema, description="no such account")
    @blp.alt_response(409, schema=ErrorSchema, description="the operator's own account")
    def post(self, player_id: int) -> dict[str, Any]:
        """Enable a disabled account (and its bots' accounts) again; its cancelled tournaments stay cancelled"""
        actor = operator_id()
        session = db.session()
        done = adminpowers.set_disabled(session, actor, adminpowers.account(session, player_id), False)
        return disabled_answer(player_id, done)


@blp.route("/accounts/<int:player_id>/revoke-token")
class RevokeToken(MethodView):
    @blp.response(200, RevokedSchema)
    @guarded
    @blp.alt_response(404, schema=ErrorSchema, description="no such account")
    @blp.alt_response(409, schema=ErrorSchema, description="the operator's own account")
    def post(self, player_id: int) -> dict[str, Any]:
        """Revoke an account's token: the old one is refused at once, the new one is returned this once"""
        actor = operator_id()
        session = db.session()
        token = adminpowers.revoke_token(session, actor, adminpowers.account(session, player_id))
        return {"account_id": player_id, "token": token}


def bot_answer(bot: Any) -> dict[str, Any]:
    return {"id": bot.id, "name": bot.name, "owner_id": bot.owner_id, "active": bot.active, "paused": bot.paused}


@blp.route("/bots")
class FlaggedBots(MethodView):
    @blp.response(200, FlaggedBotListSchema)
    @guarded
    def get(self) -> dict[str, Any]:
        """The active bots excluded by their health checks, failing them, stalling in a worker, paused, or whose
        account is disabled"""
        operator_id()
        stalling = {bot for worker in workers()["workers"] for bot in worker["stalling"]}
        bots = adminreports.flagged_bots(db.session(), stalling)
        return {"bots": [{**bot, "stalling": bot["id"] in stalling} for bot in bots]}


@blp.route("/bots/<int:bot_id>/pause")
class PauseBot(MethodView):
    @blp.response(200, BotAdminSchema)
    @guarded
    @blp.alt_response(404, schema=ErrorSchema, description="no such bot")
    def post(self, bot_id: int) -> dict[str, Any]:
        """Pause any bot: it enters no new tournament and forfeits every new game until unpaused"""
        actor = operator_id()
        session = db.session()
        bot = adminpowers.bot_of(session, bot_id)
        adminpowers.set_paused(session, actor, bot, True)
        return bot_answer(bot)


@blp.route("/bots/<int:bot_id>/unpause")
class UnpauseBot(MethodView):
    @blp.response(200, BotAdminSchema)
    @guarded
    @blp.alt_response(404, schema=ErrorSchema, description="no such bot")
    def post(self, bot_id: int) -> dict[str, Any]:
        """Unpause a bot: it plays its games again"""
        actor = operator_id()
        session = db.session()
        bot = adminpowers.bot_of(session, bot_id)
        adminpowers.set_paused(session, actor, bot, False)
        return bot_answer(bot)


@blp.route("/bots/<int:bot_id>")
class DeleteBot(MethodView):
    @blp.response(200, BotAdminSchema)
    @guarded
    @blp.alt_response(404, schema=ErrorSchema, description="no such bot")
    def delete(self, bot_id: int) -> dict[str, Any]:
        """Delete any bot, as its owner would: it joins no new tournament; its rated games stay"""
        actor = operator_id()
        session = db.session()
        bot = adminpowers.bot_of(session, bot_id)
        adminpowers.delete_bot(session, actor, bot)
        return bot_answer(bot)


@blp.route("/tournaments/<int:tournament_id>/cancel")
class CancelTournament(MethodView):
    @blp.response(200, TournamentDetailSchema)
    @guarded
    @blp.alt_response(404, schema=ErrorSchema, description="no such tournament")
    @blp.alt_response(409, schema=ErrorSchema, description="the tournament is done, with no run to come")
    def post(self, tournament_id: int) -> dict[str, Any]:
        """Cancel any tournament (as ``POST /tournaments/{id}/cancel`` does), written to the audit log"""
        actor = operator_id()
        session = db.session()
        tournament = found(session, tournament_id)
        adminpowers.cancel_tournament(session, actor, tournament)
        session.refresh(tournament)
        return detail(session, tournament)


@blp.route("/queue")
class Queue(MethodView):
    @blp.response(200, QueueSchema)
    @guarded
    def get(self) -> dict[str, Any]:
        """The games not played yet per account (fed, unfed, running) and the oldest one waiting, with its age"""
        operator_id()
        return adminreports.queue(db.session())


def workers() -> dict[str, Any]:
    """The RQ workers' figures (from Redis), or, with the embedded queue, this process's threads."""
    queue = current_app.extensions["queue"]
    if isinstance(queue, LocalQueue):
        rate: workerstats.Rate = current_app.extensions.setdefault("admin_move_rate", workerstats.Rate())
        own = {
            "name": f"{socket.gethostname()}:{os.getpid()} (embedded)",
            "slots": queue.slots,
            "busy": queue.busy,
            "moves_per_second": round(rate.per_second(), 2),
            "stalling": [],
            "seen_seconds_ago": 0.0,
        }
        return {"queue": "embedded", "workers": [own]}
    return {"queue": "redis", "workers": workerstats.read(queue.connection)}


@blp.route("/workers")
class Workers(MethodView):
    @blp.response(200, WorkerListSchema)
    @guarded
    def get(self) -> dict[str, Any]:
        """The workers: name, game slots and those busy, moves per second, bots stalling, last heartbeat"""
        operator_id()
        return workers()


@blp.route("/audit")
class Audit(MethodView):
    @blp.response(200, AuditListSchema)
    @blp.paginate(page_size=50, max_page_size=MAX_PAGE_SIZE)
    @guarded
    def get(self, pagination_parameters: Any) -> dict[str, Any]:
        """The audit log of the admin actions, newest first (paginated: page, page_size)"""
        operator_id()
        session = db.session()
        statement = adminreports.audit_query()
        pagination_parameters.item_count = adminreports.count(session, statement)
        found_page = window(pagination_parameters)
        if found_page is None:
            return {"actions": []}
        offset, limit = found_page
        rows = session.scalars(statement.offset(offset).limit(limit))
        return {"actions": [adminreports.audit_row(row) for row in rows]}
