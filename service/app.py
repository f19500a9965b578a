"""The Flask application factory: ``create_app(settings=None)``, every extension bound here. A database at a revision
this release does not know (a newer release migrated it) is refused at once: ``store.migrate.NewerDatabase``, whose
message says to upgrade the program (the commands print it as one line and exit 2)."""

from __future__ import annotations

import contextlib
import gc
from typing import Any

from flask import Flask
from flask_smorest import Api

from runtime.jobqueue import ADMIT_EMBEDDED, CONFIGURE, MAINTAIN_EMBEDDED, LocalQueue, RQQueue, job_function
from runtime.readiness import Readiness
from runtime.settings import MAX_BODY_BYTES, Settings
from runtime.wakeups import make_notifier
from service import clientaddress, db, errors, idempotency, observe, ratelimits, redoc, swagger_ui, web, webhooks
from service.api import (
    admin,
    bots,
    challenges,
    decisions,
    games,
    health,
    ladders,
    matches,
    players,
    ready,
    results,
    standings,
    streams,
    tournaments,
)
from service.api.inboxpath import InboxPath
from service.api.movepath import MovePath
from service.bodylimit import BodyLimit
from service.inputguard import InputGuard
from service.observe import Observe
from service.securityheaders import SecurityHeaders

GC_THRESHOLD = 10_000
"""The cyclic garbage collector's first threshold in a process that serves the app (Python's default: 700).

A move allocates thousands of objects (the state's copy, the view, the actions, the answer) and frees nearly all of
them by reference counting, but every 700 allocations start a young collection, and about every hundredth of those
a full one, which walks every live object: this process's caches of game states among them. At the default the
collector took about 45 us of CPU per pull move (a sixth of the move's own, played in one process on SQLite); at
10,000, about 20 us. A young generation of 10,000 objects is a few hundred kilobytes."""

API_TITLE = "sorry-arena"
API_VERSION = "v1"


def create_app(settings: Settings | None = None, **config: Any) -> Flask:
    settings = settings or Settings.from_env()
    collect_less_often()
    app = Flask(__name__)
    app.config.update(
        API_TITLE=API_TITLE,
        API_VERSION=API_VERSION,
        OPENAPI_VERSION="3.1.0",  # 3.1: webhooks describe the push protocol
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH=swagger_ui.PAGE,
        OPENAPI_SWAGGER_UI_URL=swagger_ui.URL,  # served by the app itself (service/swagger_ui.py): no CDN
        OPENAPI_SWAGGER_UI_CONFIG={"validatorUrl": None},  # no call to swagger.io's online validator either
        OPENAPI_REDOC_PATH=redoc.PAGE,
        OPENAPI_REDOC_URL=redoc.URL + redoc.SCRIPT,  # served by the app itself (service/redoc.py): no CDN
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        API_SPEC_OPTIONS={
            "info": {
                "description": (
                    "Play SORRY! games through HTTP: create games, take seats, poll, move. Every error has one "
                    "shape (`Error`); a 503 with `Retry-After` means the database could not complete the request "
                    "just then: send it again after that many seconds."
                )
            },
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
    db.init_app(app, settings.database_url, settings.db_pool_size, settings.db_max_overflow)
    refuse_newer(settings.database_url)
    app.extensions["queue"] = make_queue(app, settings)
    ready.init_app(app, Readiness(app.extensions["db_engine"], settings.redis_url))
    swagger_ui.init_app(app)
    redoc.init_app(app)
    web.init_app(app)  # the human-facing pages (`/`, standings, tournaments, games): not in the OpenAPI spec
    api = Api(app)
    app.extensions["api"] = api  # `sorry-arena openapi` writes api.spec
    for blueprint in (players.blp, games.blp, bots.blp, tournaments.blp, standings.blp, health.blp, ready.blp):
        api.register_blueprint(blueprint)
    api.register_blueprint(decisions.blp)
    api.register_blueprint(results.blp)
    api.register_blueprint(matches.blp)
    api.register_blueprint(challenges.blp)
    api.register_blueprint(ladders.blp)
    api.register_blueprint(streams.blp)
    api.register_blueprint(admin.blp)
    webhooks.init_api(api)
    errors.init_app(app)
    idempotency.init_app(app)  # the Idempotency-Key of the create requests
    # the size first, then deep JSON, long integers and NUL in the query (service/inputguard.py), for every route; then a pull
    # move's submission and a plain read of the decisions inbox answered before Flask's dispatch
    # (service/api/movepath.py, service/api/inboxpath.py)
    # and around them, each request's metrics and access log line, and /metrics (service/observe.py); around them
    # all, the security headers of every answer (service/securityheaders.py)
    app.before_request(observe.note_route)
    app.wsgi_app = Observe(  # type: ignore[method-assign]
        app, BodyLimit(InputGuard(MovePath(app, InboxPath(app, app.wsgi_app))), MAX_BODY_BYTES), settings
    )
    app.wsgi_app = SecurityHeaders(app.wsgi_app)  # type: ignore[method-assign]
    clientaddress.init_app(app, settings)  # outermost: every layer sees the client's address
    queue = app.extensions["queue"]
    if isinstance(queue, LocalQueue) and queue.scheduling:
        queue.start()  # the embedded maintenance: runs due, and the games a killed service left
    return app


def refuse_newer(url: str) -> None:
    """``NewerDatabase`` if the database is at a revision this release does not know; a database that does not
    answer passes (``/api/v1/ready`` says so)."""
    from sqlalchemy.exc import SQLAlchemyError

    from store import migrate

    with contextlib.suppress(SQLAlchemyError):
        migrate.refuse_newer(url)


def collect_less_often() -> None:
    """Raise the collector's first threshold to :data:`GC_THRESHOLD` (never lower it: a larger one set for the
    process stays)."""
    first, *older = gc.get_threshold()
    if first < GC_THRESHOLD:
        gc.set_threshold(GC_THRESHOLD, *older)


def make_queue(app: Flask, settings: Settings) -> RQQueue | LocalQueue:
    """RQ with Redis; else this process's threads, whose jobs use this app's database and notifier, with the
    maintenance that starts the runs due and takes up the games a killed service left."""
    if settings.redis_url:
        return RQQueue(settings.redis_url)

    def configure() -> None:
        job_function(CONFIGURE)(
            settings, app.extensions["db_engine"], app.extensions["notifier"], app.extensions["queue"]
        )

    return LocalQueue(
        configure,
        workers=settings.games_per_worker,
        maintain=None if settings.maintenance_seconds is None else MAINTAIN_EMBEDDED,
        interval=settings.maintenance_seconds or 1.0,
        admit=ADMIT_EMBEDDED,
    )
