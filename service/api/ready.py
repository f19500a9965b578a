"""``/api/v1/ready``: readiness, for load balancers and orchestrators: 200 when the database answers, Redis (when
configured) answers and the database is at the newest migration; else 503 naming what failed
(``runtime/readiness.py`` does the checks, each within about 2 s of an outage). ``/api/v1/health`` stays liveness.
"""

from __future__ import annotations

from typing import Any

from flask import current_app
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields

from runtime import release
from runtime.readiness import Readiness, ready

blp = Blueprint("ready", __name__, url_prefix="/api/v1/ready", description="Readiness")


class ReadySchema(Schema):
    ready = fields.Boolean(required=True)
    version = fields.String(
        required=True, metadata={"description": "the version of sorry-arena running", "example": "0.2.0"}
    )
    checks = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        required=True,
        metadata={
            "description": "Each check (`database`, `redis` when configured, `migrations`): `ok`, or why not",
            "example": {"database": "cannot connect: connection refused", "redis": "ok", "migrations": "ok"},
        },
    )


def init_app(app: Any, readiness: Readiness) -> None:
    app.extensions["readiness"] = readiness


@blp.route("")
class Ready(MethodView):
    @blp.response(200, ReadySchema)
    @blp.alt_response(503, schema=ReadySchema, description="Not ready: `checks` names what failed")
    def get(self) -> tuple[dict[str, Any], int]:
        """Answer whether the service can serve: its database, its Redis and its migrations"""
        checks = current_app.extensions["readiness"].checks()
        answer = ready(checks)
        return {"ready": answer, "version": release.version(), "checks": checks}, 200 if answer else 503
