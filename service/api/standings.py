"""``/api/v1/standings``: the fitted table of one game, variant and table size (``table_size``, 2 unless asked: a
tournament's default) over all its rated games; each table size is a pool of its own (the Elo scale depends on it).

Every rated game of the pool is fitted at once (``ratings.pool``: Bradley-Terry on the Elo scale, mean 1500, with a
95% interval robust to multiplayer games), so the table does not depend on the order results arrived. The workers
refit it from the pool's tallies and store it (``rating_pools``, ``tournament/standings/tables.py``: off the game path,
at once at a tournament's last result, else at most every 10 s); this only reads it, whatever the pool's size.
The pool rates bot versions; the table shows each bot's latest rated version (``GET /bots/{id}`` lists them all).
Bots that never met, directly or through others, are fitted and listed group by group (``group``, ``groups``): ratings
compare within a group only. Beside each rating, its reliability: the forfeit rate and the faults per 100 moves; and
``forfeits_rated`` says whether games with a forfeit are rated (``service/poolrows.py``).
"""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint
from sqlalchemy import select

from ratings.pool import groups, rows_of
from runtime.settings import rate_forfeits
from service import db
from service.poolrows import NOT_RATED, RATED, notes, shown_rows
from service.tournament_schemas import StandingsQuerySchema, StandingsSchema
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
        if pool is None or rows_of(pool.table) is None:
            rated = rate_forfeits()
            return {
                "game": query["game"],
                "variant": query["variant"],
                "table_size": query["table_size"],
                "games": 0,
                "updated_at": None,
                "groups": 0,
                "forfeits_rated": rated,
                "notes": [RATED if rated else NOT_RATED],
                "standings": [],
            }
        return {
            "game": query["game"],
            "variant": query["variant"],
            "table_size": query["table_size"],
            "games": pool.games,
            "updated_at": pool.updated_at,
            "groups": groups(pool.table),
            "forfeits_rated": pool.forfeits_rated,
            "notes": notes(pool),
            "standings": shown_rows(db.session(), pool.table),
        }
