"""The web pages of the arena, served by the API's Flask app: standings with rating charts, tournaments
that update while they run, and a replay viewer for both games, in English and French.

Server-rendered (Jinja templates in ``templates/``); the little JavaScript they use is in ``static/`` and loads
nothing from elsewhere. The pages are not API operations: they stay out of the OpenAPI document.
"""

from __future__ import annotations

from flask import Flask

from service.web import admin_page, bot_page, ladder_page, match_page, play_page  # noqa: F401 (their routes join the blueprint)
from service.web.errors import init_blueprint
from service.web.positions import Positions
from service.web.views import blp

init_blueprint(blp)


def init_app(app: Flask) -> None:
    app.extensions["web_positions"] = Positions()
    app.register_blueprint(blp)
