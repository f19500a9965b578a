"""``/api/v1/health``: a trivial endpoint for load balancers, compose health checks and the API benchmark."""

from __future__ import annotations

from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields

from runtime import release

blp = Blueprint("health", __name__, url_prefix="/api/v1/health", description="Liveness")


class HealthSchema(Schema):
    ok = fields.Boolean(required=True)
    version = fields.String(
        required=True, metadata={"description": "the version of sorry-arena running", "example": "0.2.0"}
    )


@blp.route("")
class Health(MethodView):
    @blp.response(200, HealthSchema)
    def get(self) -> dict[str, bool | str]:
        """Answer that the service is up, and its version (touches nothing)"""
        return {"ok": True, "version": release.version()}
