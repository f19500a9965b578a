"""A page per bot, ``/bots/<id>``: its owner, mode and health (its faults and forfeits in its last games:
``store/recentfaults.py``; a push bot's health checks too, with its push protocol version, and a warning when
it is deprecated: ``botlink/protocols.py``), its versions (each with its ratings), its rating over
time in each pool it plays (a section per game, variant and table size, with its rating there; a line per version), the
ladders it is or was in (its rating there with its interval, paused and why, or left), its games and wins by seat, its faults by kind and answer-time percentiles (finished games), its recent games. Linked
from every standings table and game page (the ``bot_link`` and ``seat_bots`` helpers of the templates)."""

from __future__ import annotations

from typing import Any

from flask import current_app, render_template
from flask.typing import ResponseReturnValue

from botlink import protocols
from service import db, ladderrows, versions
from service.web import bot_stats, charts, pools
from service.web.bot_messages import BOT_PAGES
from service.web.errors import PageError, whole
from service.web.messages import PAGES
from service.web.views import MAX_ID, blp, lang
from store.models import Bot
from store.recentfaults import recent_faults

PAGES.update(BOT_PAGES)


@blp.app_context_processor
def bot_helpers() -> dict[str, Any]:
    return {
        "seat_bots": lambda game_id: bot_stats.seat_bots(db.session(), game_id),
        "pool_faults": lambda game, variant, size: bot_stats.pool_faults(db.session(), game, variant, size),
    }


@blp.get("/bots/<bot_id>")
def bot_page(bot_id: str) -> ResponseReturnValue:
    number = whole(bot_id, "bot")
    session = db.session()
    bot = session.get(Bot, number) if 0 < number <= MAX_ID else None
    if bot is None:
        raise PageError(404, "error.no_bot", id=number)
    stats = bot_stats.bot_stats(session, bot)
    ratings = []
    for game, variant, size in stats.pools:  # a line per table size it played
        found = pools.pool_standings(session, game, variant, size, bot.id)
        row = next((row for row in found.history.rows if row.player == bot.id), None)  # its latest rated version
        lines = [
            charts.Line(f"{bot.name} v{number}", line)
            for (owner, number), line in sorted(found.version_series.items())
            if owner == bot.id
        ]
        ratings.append((game, variant, size, row, charts.rating_chart(lines, found.history.games, lang())))
    rated = versions.ratings(session, bot.id)
    made = [(version, rated.get(version.number, [])) for version in reversed(versions.latest(session, bot.id))]
    return render_template(
        "bot.html",
        stats=stats,
        bot=bot,
        ratings=ratings,
        versions=made,
        old_protocol=old_protocol(bot),
        recent=recent_faults(session, bot.player_id),
        ladders=ladderrows.bot_ladders(session, bot.id),
    )


def old_protocol(bot: Bot) -> dict[str, Any] | None:
    """For a push bot speaking a deprecated protocol version: the version, the first day it is refused and whether
    that day has come; else ``None``."""
    if not bot.url or bot.protocol is None or bot.protocol >= protocols.CURRENT:
        return None
    days = current_app.extensions["settings"].old_protocol_days
    return {
        "version": bot.protocol,
        "refused_from": protocols.old_until(days).isoformat(),
        "refused": not protocols.accepted(bot.protocol, days),
    }
