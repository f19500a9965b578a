"""``/api/v1/health``: a trivial endpoint for load balancers, compose health checks and the API benchmark."""

from __future__ import annotations

from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields

blp = Blueprint("health", __name__, url_prefix="/api/v1/health", description="Liveness")


class HealthSchema(Schema):
    ok = fields.Boolean(required=True)


@blp.route("")
class Health(MethodView):
    @blp.response(200, HealthSchema)
    def get(self) -> dict[str, bool]:
        """Answer that the service is up (touches nothing)"""
        return {"ok": True}
