"""The push protocol in the OpenAPI document: the requests the service sends to a push bot, as OpenAPI 3.1
``webhooks`` (``info``, ``start``, ``move``, ``end``), with their signature headers. docs/bot-protocol.md has the
same with real examples."""

from __future__ import annotations

from typing import Any

from flask_smorest import Api
from marshmallow import Schema, fields

from botlink.signing import REQUEST_ID_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER


class InfoRequestSchema(Schema):
    type = fields.Constant("info", required=True)
    nonce = fields.String(required=True, metadata={"description": "fresh random hex: answer it back"})


class InfoReplySchema(Schema):
    nonce = fields.String(required=True)
    name = fields.String()
    games = fields.List(fields.String())


class StartRequestSchema(Schema):
    type = fields.Constant("start", required=True)
    game_id = fields.Integer(required=True)
    tournament_id = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    game = fields.String(required=True)
    settings = fields.Dict(required=True)
    seats = fields.Integer(required=True)
    players = fields.List(fields.String(), required=True, metadata={"description": "bot names by seat"})


class MoveRequestSchema(Schema):
    type = fields.Constant("move", required=True)
    game_id = fields.Integer(required=True)
    tournament_id = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    ply = fields.Integer(required=True)
    decision = fields.String(required=True, metadata={"description": "the decision kind (move, play, turn...)"})
    view = fields.Dict(required=True, metadata={"description": "exactly what this seat may see"})
    actions = fields.List(
        fields.Dict(), required=True, metadata={"description": "legal actions: id + description"}
    )
    deadline_ms = fields.Integer(required=True, metadata={"description": "answer within this, or it is a fault"})
    last_latency_ms = fields.Float(allow_none=True, required=True)


class MoveReplySchema(Schema):
    action = fields.String(required=True, metadata={"description": "one of the offered action ids"})


class EndRequestSchema(Schema):
    type = fields.Constant("end", required=True)
    game_id = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    result = fields.Dict(required=True, metadata={"description": "ranks (1 best) per seat, reason, forfeited"})
    forfeited = fields.Boolean(required=True)


HOOKS = {
    "info": ("Registration and health check: echo the nonce", InfoRequestSchema, InfoReplySchema),
    "start": ("A game starts (any 2xx answers it)", StartRequestSchema, None),
    "move": (
        "The bot's seat must decide: answer an action id before the deadline",
        MoveRequestSchema,
        MoveReplySchema,
    ),
    "end": ("The game is over (any 2xx answers it)", EndRequestSchema, None),
}


def operation(route: str, summary: str, request: str, reply: str | None) -> dict[str, Any]:
    headers = [
        {
            "name": TIMESTAMP_HEADER,
            "in": "header",
            "required": True,
            "schema": {"type": "integer"},
            "description": "Unix seconds when the request was signed; refuse one more than 300 s off",
        },
        {
            "name": REQUEST_ID_HEADER,
            "in": "header",
            "required": True,
            "schema": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
            "description": "New for every request; refuse one already accepted in the last 300 s (a replay)",
        },
        {
            "name": SIGNATURE_HEADER,
            "in": "header",
            "required": True,
            "schema": {"type": "string"},
            "description": (
                "v2=hex(HMAC-SHA256(bot secret, timestamp + '\\n' + request id + '\\n' + 'POST' + '\\n' + path"
                " + '\\n' + raw body)), the path as sent (e.g. /bot/move)"
            ),
        },
    ]
    content = {"application/json": {"schema": {"$ref": f"#/components/schemas/{reply}"}}} if reply else None
    answer: dict[str, Any] = {"description": "answered within the deadline (default 1 s), body at most 64 KiB"}
    if content:
        answer["content"] = content
    return {
        "post": {
            "summary": summary,
            "description": f"POSTed by the service to {{bot url}}/{route}, signed with the bot's secret.",
            "parameters": headers,
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{request}"}}},
            },
            "responses": {"200": answer},
        }
    }


def init_api(api: Api) -> None:
    """Add the push protocol's schemas and webhooks to the spec."""
    webhooks: dict[str, Any] = {}
    for route, (summary, request, reply) in HOOKS.items():
        request_name = request.__name__.removesuffix("Schema")
        api.spec.components.schema(request_name, schema=request)
        reply_name = None
        if reply is not None:
            reply_name = reply.__name__.removesuffix("Schema")
            api.spec.components.schema(reply_name, schema=reply)
        webhooks[route] = operation(route, summary, request_name, reply_name)
    api.spec.options["webhooks"] = webhooks
