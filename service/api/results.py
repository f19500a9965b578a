"""``/api/v1/tournaments/{id}/results``: a tournament's results, one page at a time, in the order they were
written (``service/pagination.py``: ``page``, ``page_size`` up to 100, ``X-Pagination`` and ``Link``). A tournament
holds up to 100,000 games: this is the listing to walk them with."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from sqlalchemy import func, select

from service import db
from service.errors import ErrorSchema, fail
from service.pagination import MAX_PAGE_SIZE, Blueprint, window
from service.tournament_schemas import ResultSchema
from store.models import Result, Tournament

blp = Blueprint(
    "results", __name__, url_prefix="/api/v1/tournaments", description="A tournament's results, page by page"
)


def result_of(result: Result) -> dict[str, Any]:
    """A result as the API shows it (the tournament's detail holds the first of them the same way)."""
    return {
        "game_id": result.game_id,
        "bot_ids": result.bot_ids,
        "ranks": result.ranks,
        "reason": result.reason,
        "forfeited": result.forfeited,
        "faults": result.faults,
        "moves": result.moves,
        "void": result.void_reason is not None,
        "void_reason": result.void_reason,
    }


@blp.route("/<int:tournament_id>/results")
class Results(MethodView):
    @blp.response(200, ResultSchema(many=True))
    @blp.alt_response(404, schema=ErrorSchema, description="no such tournament")
    @blp.paginate(page_size=MAX_PAGE_SIZE, max_page_size=MAX_PAGE_SIZE)
    def get(self, tournament_id: int, pagination_parameters: Any) -> list[dict[str, Any]]:
        """A tournament's results in the order written (paginated: page, page_size; X-Pagination and Link)"""
        session = db.session()
        if not 0 < tournament_id <= 2**31 - 1 or session.get(Tournament, tournament_id) is None:
            fail(404, f"no tournament {tournament_id}")
        written = select(Result).where(Result.tournament_id == tournament_id)
        pagination_parameters.item_count = session.scalar(select(func.count()).select_from(written.subquery()))
        found = window(pagination_parameters)
        if found is None:
            return []
        offset, limit = found
        return [
            result_of(result)
            for result in session.scalars(written.order_by(Result.id).offset(offset).limit(limit))
        ]
