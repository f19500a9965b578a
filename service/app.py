"""The Flask application factory: ``create_app(settings=None)``, every extension bound here."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask_smorest import Api

from runtime.jobqueue import LocalQueue, RQQueue, job_function
from runtime.settings import MAX_BODY_BYTES, Settings
from runtime.wakeups import make_notifier
from service import db, errors, ratelimits, redoc, swagger_ui, web, webhooks
from service.api import (
    bots,
    challenges,
    decisions,
    games,
    health,
    matches,
    players,
    results,
    standings,
    streams,
    tournaments,
)
from service.bodylimit import BodyLimit
from service.inputguard import InputGuard

API_TITLE = "sorry-arena"
API_VERSION = "v1"


def create_app(settings: Settings | None = None, **config: Any) -> Flask:
    settings = settings or Settings.from_env()
    app = Flask(__name__)
    app.config.update(
        API_TITLE=API_TITLE,
        API_VERSION=API_VERSION,
        OPENAPI_VERSION="3.1.0",  # 3.1: webhooks describe the push protocol
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="/docs",
        OPENAPI_SWAGGER_UI_URL=swagger_ui.URL,  # served by the app itself (service/swagger_ui.py): no CDN
        OPENAPI_SWAGGER_UI_CONFIG={"validatorUrl": None},  # no call to swagger.io's online validator either
        OPENAPI_REDOC_PATH=redoc.PAGE,
        OPENAPI_REDOC_URL=redoc.URL + redoc.SCRIPT,  # served by the app itself (service/redoc.py): no CDN
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        API_SPEC_OPTIONS={
            "info": {"description": "Play SORRY! games through HTTP: create games, take seats, poll, move."},
            "components": {
                "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            },
            "security": [{"bearer": []}],
        },
    )
    app.config.update(config)
    app.extensions["settings"] = settings
    ratelimits.init_app(app, settings)  # first: a bad SORRY_ARENA_LIMIT_* fails before anything starts
    app.extensions["notifier"] = make_notifier(settings.redis_url)
    db.init_app(app, settings.database_url)
    app.extensions["queue"] = make_queue(app, settings)
    swagger_ui.init_app(app)
    redoc.init_app(app)
    web.init_app(app)  # the human-facing pages (`/`, standings, tournaments, games): not in the OpenAPI spec
    api = Api(app)
    app.extensions["api"] = api  # `sorry-arena openapi` writes api.spec
    for blueprint in (players.blp, games.blp, bots.blp, tournaments.blp, standings.blp, health.blp):
        api.register_blueprint(blueprint)
    api.register_blueprint(decisions.blp)
    api.register_blueprint(results.blp)
    api.register_blueprint(matches.blp)
    api.register_blueprint(challenges.blp)
    api.register_blueprint(streams.blp)
    webhooks.init_api(api)
    errors.init_app(app)
    # the size first, then deep JSON and NUL in the query (service/inputguard.py), for every route
    app.wsgi_app = BodyLimit(InputGuard(app.wsgi_app), MAX_BODY_BYTES)  # type: ignore[method-assign]
    queue = app.extensions["queue"]
    if isinstance(queue, LocalQueue) and queue.scheduling:
        queue.start()  # the embedded maintenance: runs due, and the games a killed service left
    return app


def make_queue(app: Flask, settings: Settings) -> RQQueue | LocalQueue:
    """RQ with Redis; else this process's threads, whose jobs use this app's database and notifier, with the
    maintenance that starts the runs due and takes up the games a killed service left."""
    if settings.redis_url:
        return RQQueue(settings.redis_url)

    def configure() -> None:
        job_function("tournament.context.configure")(
            settings, app.extensions["db_engine"], app.extensions["notifier"], app.extensions["queue"]
        )

    return LocalQueue(
        configure,
        workers=settings.games_per_worker,
        maintain=None if settings.maintenance_seconds is None else "tournament.jobs.maintain_embedded",
        interval=settings.maintenance_seconds or 1.0,
    )
