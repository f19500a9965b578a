"""The ladders' pages: ``/ladders`` (every ladder, newest first, a page at a time) and ``/ladders/<id>``: its
standings with their uncertainty (each bot's rating on the Elo scale and its 95% interval, a provisional mark, its
games today and the budget left of its hour; paused bots with the reason, bots that left or without a game for
``SORRY_ARENA_LADDER_INACTIVE_DAYS`` greyed with the date of their last game), the rating chart, its games in play
(each linking to its game's page, live through the game's event stream) and its latest finished games.

The rows are ``service/ladderrows.py``'s, the ones the API gives. A ladder's page refreshes its changing part as a
tournament's does (``static/tournament.js`` polls ``/ladders/<id>/live`` with its ETag: a 304 while nothing
changed, read from one aggregate of the ladder's entries) until the ladder is closed and its last game over.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from flask import Response, current_app, make_response, render_template, request
from flask.typing import ResponseReturnValue
from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from ratings import wenglin
from service import db, ladderrows
from service.web import charts, listings
from service.web.errors import PageError, whole
from service.web.ladder_messages import LADDER_PAGES
from service.web.messages import PAGES
from service.web.views import MAX_ID, blp, check_page, lang, page_number
from store.models import Ladder, LadderEntry, Player, Tournament

PAGES.update(LADDER_PAGES)

GAMES_SHOWN = 20
"""The games in play and the finished games a ladder's page lists (the oldest made, the latest finished)."""


def inactive_days() -> int:
    """``SORRY_ARENA_LADDER_INACTIVE_DAYS``: a bot without a game for so long is greyed."""
    return int(current_app.extensions["settings"].ladder_inactive_days)


def get_ladder(ladder_id: str) -> Ladder:
    number = whole(ladder_id, "ladder")
    ladder = db.session().get(Ladder, number) if 0 < number <= MAX_ID else None
    if ladder is None:
        raise PageError(404, "error.no_ladder", id=number)
    return ladder


@dataclass
class LadderLine:
    ladder: Ladder
    tournament: Tournament
    owner: str
    bots: int
    """Its bots in (not left)."""


def ladders_page(session: Session, page: int) -> tuple[list[LadderLine], int]:
    """One page of ladders, newest first, each with its tournament, owner's name and bots in; and the pages."""
    count = session.scalar(select(func.count(Ladder.id))) or 0
    rows = session.execute(
        select(Ladder, Tournament, Player.name)
        .join(Tournament, Tournament.id == Ladder.tournament_id)
        .join(Player, Player.id == Tournament.owner_id)
        .order_by(Ladder.id.desc())
        .offset((page - 1) * listings.PAGE_SIZE)
        .limit(listings.PAGE_SIZE)
    ).all()
    ids = [ladder.id for ladder, _, _ in rows]
    bots = dict(
        session.execute(
            select(LadderEntry.ladder_id, func.count())
            .where(LadderEntry.ladder_id.in_(ids), LadderEntry.left_at.is_(None))
            .group_by(LadderEntry.ladder_id)
        ).all()
    )
    lines = [
        LadderLine(ladder, tournament, name, int(bots.get(ladder.id, 0))) for ladder, tournament, name in rows
    ]
    return lines, listings.pages(count)


@blp.get("/ladders")
def ladders() -> ResponseReturnValue:
    page = page_number()
    lines, count = ladders_page(db.session(), page)
    check_page(page, count)
    return render_template("ladders.html", lines=lines, page=page, pages=count)


def chart(session: Session, ladder: Ladder, rows: list[dict[str, Any]]) -> Any:
    """The chart of the first :data:`charts.MAX_LINES` bots of the standings, each line from 1500 before its first
    game (every bot begins there) to its latest rating."""
    lines = {line["bot_id"]: line for line in ladderrows.chart(session, ladder.id)}
    start = wenglin.elo(wenglin.MU)
    drawn = []
    for row in rows:
        line = lines.get(row["bot_id"])
        if line is None or not line["points"]:
            continue
        drawn.append(charts.Line(row["name"], [(0, start)] + [(point[0], point[1]) for point in line["points"]]))
        if len(drawn) == charts.MAX_LINES:
            break
    games = max((line.points[-1][0] for line in drawn), default=0)
    return charts.rating_chart(drawn, games, lang(), "ladder.chart_x")


def ladder_context(ladder: Ladder) -> dict[str, Any]:
    session = db.session()
    now = datetime.now(UTC)
    rows = ladderrows.standings(session, ladder, now, inactive_days())
    in_play_count, in_play = ladderrows.games(session, ladder.id, "in_play", 0, GAMES_SHOWN)
    recent_count, recent = ladderrows.games(session, ladder.id, "recent", 0, GAMES_SHOWN)
    return {
        "ladder": ladder,
        "about": ladderrows.summary(session, ladder),
        "rows": rows,
        "chart": chart(session, ladder, rows),
        "in_play": in_play,
        "in_play_count": in_play_count,
        "recent": recent,
        "recent_count": recent_count,
        "inactive_days": inactive_days(),
        "running": ladder.status == "open" or in_play_count > 0,
    }


def live_tag(ladder: Ladder) -> str:
    """The ETag of a ladder's live part: it changes with the ladder's status, the games it made, each result rated
    (its entries' games and last game), each new fit of its standings, a bot joining, leaving, pausing, resuming or taking a game, the minute (the
    budgets' hour slides) and the language."""
    session = db.session()
    made = session.scalar(select(Tournament.games_total).where(Tournament.id == ladder.tournament_id))
    entries = session.execute(
        select(
            func.count(),
            func.sum(LadderEntry.games),
            func.sum(LadderEntry.busy),
            func.count(LadderEntry.left_at),
            func.sum(case((LadderEntry.paused, 1), else_=0)),
            func.max(LadderEntry.last_game_at),
            func.max(LadderEntry.paused_at),
            func.max(LadderEntry.left_at),
            func.sum(LadderEntry.mu),
        ).where(LadderEntry.ladder_id == ladder.id)
    ).one()
    minute = datetime.now(UTC).strftime("%Y%m%d%H%M")
    fitted = session.scalar(select(Ladder.fitted).where(Ladder.id == ladder.id))
    key = f"{ladder.id}|{ladder.status}|{made}|{fitted}|{tuple(entries)}|{minute}|{lang()}"
    return hashlib.sha256(key.encode()).hexdigest()[:32]


@blp.get("/ladders/<ladder_id>")
def ladder(ladder_id: str) -> ResponseReturnValue:
    found = get_ladder(ladder_id)
    return render_template("ladder.html", etag=live_tag(found), **ladder_context(found))


@blp.get("/ladders/<ladder_id>/live")
def ladder_live(ladder_id: str) -> ResponseReturnValue:
    """The part of a ladder's page that changes while it is open; a 304 while nothing did."""
    found = get_ladder(ladder_id)
    tag = live_tag(found)
    if tag in request.if_none_match:
        response = Response(status=304)
    else:
        response = make_response(render_template("ladder_live.html", **ladder_context(found)))
    response.set_etag(tag)
    response.headers["Cache-Control"] = "no-cache"
    return response
