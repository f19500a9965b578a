"""The shapes of a bot's faults (``GET /api/v1/bots/{id}/faults``)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.schemas import MAX_INT


class FaultsQuerySchema(Schema):
    game_id = fields.Integer(
        load_default=None,
        validate=validate.Range(min=1, max=MAX_INT),
        metadata={"description": "only the faults of this game"},
    )


class FaultSchema(Schema):
    game_id = fields.Integer(required=True)
    game_status = fields.String(required=True, metadata={"description": "active or over"})
    ply = fields.Integer(required=True, metadata={"description": "the ply the faulted move answered"})
    seat = fields.Integer(required=True)
    fault = fields.String(
        required=True,
        metadata={
            "description": "timeout, connection, status, unparsable, too_large, redirect, refused or illegal "
            "(docs/bot-protocol.md, Faults)"
        },
    )
    detail = fields.String(
        allow_none=True,
        metadata={
            "description": "the fault in words, up to 120 characters (a status fault quotes the bot's reply)"
        },
    )
    latency_ms = fields.Float(allow_none=True, metadata={"description": "how long the call took"})
    debug = fields.String(allow_none=True, metadata={"description": "the bot's debug text of that move, if any"})
    at = fields.DateTime(required=True)


class FaultListSchema(Schema):
    bot_id = fields.Integer(required=True)
    faults = fields.List(
        fields.Nested(FaultSchema),
        required=True,
        metadata={
            "description": "newest first; the owner's token lists the faults of games still played too, any "
            "other caller those of finished games only"
        },
    )
