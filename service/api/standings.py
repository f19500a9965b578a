"""``/api/v1/standings``: the Elo table of one game and variant over all rated games.

Every pair of seats of a game is one result by their ranks (K divided by seats - 1), taken in the order results
were written. The workers keep the table up to date as they write results (``rating_pools``); this only reads it.
"""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint
from sqlalchemy import select

from service import db
from service.tournament_schemas import StandingsQuerySchema, StandingsSchema
from store.models import RatingPool

blp = Blueprint("standings", __name__, url_prefix="/api/v1/standings", description="Elo standings")

K_FACTOR = 32.0
"""The K of a two-seat game (ratings/elo.py uses the same)."""


@blp.route("")
class Standings(MethodView):
    @blp.arguments(StandingsQuerySchema, location="query")
    @blp.response(200, StandingsSchema)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Elo per game and variant over all rated games (multiplayer games count pairwise)"""
        pool = (
            db.session()
            .scalars(
                select(RatingPool).where(RatingPool.game == query["game"], RatingPool.variant == query["variant"])
            )
            .first()
        )
        return {
            "game": query["game"],
            "variant": query["variant"],
            "games": pool.games if pool else 0,
            "k": K_FACTOR,
            "standings": pool.table if pool else [],
        }
