"""``/api/v1/standings``: the fitted table of one game, variant and table size (``table_size``, 2 unless asked: a
tournament's default) over all its rated games; each table size is a pool of its own (the Elo scale depends on it).

Every rated game of the pool is fitted at once (``ratings.pool``: Bradley-Terry on the Elo scale, mean 1500, with a
95% interval robust to multiplayer games), so the table does not depend on the order results arrived. The workers
refit it from the pool's tallies and store it (``rating_pools``, ``tournament/standings/tables.py``: after each result
while the pool is small, off the game path at most every 10 s beyond); this only reads it, whatever the pool's
size.
The pool rates bot versions; the table shows each bot's latest rated version (``GET /bots/{id}`` lists them all).
"""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint
from sqlalchemy import select

from ratings.pool import rows_of
from service import db
from service.tournament_schemas import StandingsQuerySchema, StandingsSchema
from service.versions import latest_versions
from store.models import RatingPool

blp = Blueprint("standings", __name__, url_prefix="/api/v1/standings", description="Pool standings")


@blp.route("")
class Standings(MethodView):
    @blp.arguments(StandingsQuerySchema, location="query")
    @blp.response(200, StandingsSchema)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """The fitted ratings of one game, variant and table size over its rated games, with their 95% intervals"""
        pool = (
            db.session()
            .scalars(
                select(RatingPool).where(*RatingPool.key(query["game"], query["variant"], query["table_size"]))
            )
            .first()
        )
        # A table stored before the pools were fitted has no interval: it counts as none until its next refit.
        fitted = pool is not None and rows_of(pool.table) is not None
        return {
            "game": query["game"],
            "variant": query["variant"],
            "table_size": query["table_size"],
            "games": pool.games if pool is not None and fitted else 0,
            "updated_at": pool.updated_at if pool is not None and fitted else None,
            "standings": latest_versions(pool.table) if pool is not None and fitted else [],
        }
