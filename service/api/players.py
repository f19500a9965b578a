"""``/api/v1/players``: accounts. Creating one returns its bearer token, once."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from service import auth, db, ratelimits
from service.clientaddress import client_address
from service.errors import ErrorSchema
from service.schemas import PlayerCreatedSchema, PlayerCreateSchema
from store.models import Player

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
