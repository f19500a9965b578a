"""``/api/v1/players``: accounts. Creating one returns its bearer token, once; ``/players/me`` says whose a token
is: a person's account (which may own bots) or a bot's own (a pull bot plays with it)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint
from sqlalchemy import func, select

from service import auth, db, ratelimits
from service.clientaddress import client_address
from service.errors import ErrorSchema
from service.schemas import PlayerCreatedSchema, PlayerCreateSchema, WhoAmISchema
from store.models import Bot, Player

blp = Blueprint("players", __name__, url_prefix="/api/v1/players", description="Accounts of people and bots")


@blp.route("")
class Players(MethodView):
    @blp.arguments(PlayerCreateSchema)
    @blp.response(201, PlayerCreatedSchema)
    @blp.alt_response(422, schema=ErrorSchema, description="a missing or invalid name")
    @blp.alt_response(429, **ratelimits.TOO_MANY)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Create a player and return its bearer token (shown once, stored hashed)"""
        ratelimits.check(ratelimits.ACCOUNTS, client_address())
        token = auth.new_token()
        player = Player(name=body["name"], token_hash=auth.token_hash(token))
        session = db.session()
        session.add(player)
        session.commit()
        return {"id": player.id, "name": player.name, "token": token}


@blp.route("/me")
class Me(MethodView):
    @blp.response(200, WhoAmISchema)
    @blp.alt_response(401, schema=ErrorSchema, description="a missing or unknown bearer token")
    def get(self) -> dict[str, Any]:
        """Whose the token is: the account, the bot it is the own account of (or null), the active bots it owns"""
        player = auth.required_player()
        session = db.session()
        bot_id = session.scalar(select(Bot.id).where(Bot.player_id == player.id))
        owned = session.scalar(
            select(func.count()).select_from(Bot).where(Bot.owner_id == player.id, Bot.active.is_(True))
        )
        return {"id": player.id, "name": player.name, "bot_id": bot_id, "owned_bots": int(owned or 0)}
