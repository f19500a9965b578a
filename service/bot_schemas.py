"""Request and response bodies of the bots resource (marshmallow)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.schemas import PRINTABLE, Text

GAMES = ["board", "card"]
NAME = [validate.Length(min=1, max=64), PRINTABLE]


class BotCreateSchema(Schema):
    name = Text(required=True, validate=NAME)
    url = Text(
        load_default=None,
        allow_none=True,
        validate=validate.Length(max=2048),
        metadata={
            "description": "the push endpoint's base URL (http or https): the service POSTs to {url}/info, /start, "
            "/move and /end. Leave it out for a pull bot, which plays through the games API with its token."
        },
    )
    games = fields.List(
        Text(validate=validate.OneOf(GAMES)), required=True, validate=validate.Length(min=1, max=2)
    )
    secret = Text(
        load_default=None,
        allow_none=True,
        validate=[validate.Length(min=32, max=128), PRINTABLE],
        metadata={"description": "the HMAC key for signed requests to the bot; default: a new random one"},
    )
    open_to_others = fields.Boolean(
        load_default=False,
        metadata={
            "description": "true: other accounts may enter the bot into their tournaments (each game calls it and "
            "moves its rating); false (the default): only its owner's tournaments and the operator's official ones"
        },
    )


class BotUpdateSchema(Schema):
    name = Text(validate=NAME)
    url = Text(allow_none=True, validate=validate.Length(max=2048))
    games = fields.List(Text(validate=validate.OneOf(GAMES)), validate=validate.Length(min=1, max=2))
    rotate_secret = fields.Boolean(metadata={"description": "true: a new secret, returned in this response only"})
    open_to_others = fields.Boolean(
        metadata={
            "description": "true: other accounts may enter the bot into their tournaments (each game calls it and "
            "moves its rating); false (the default): only its owner's tournaments and the operator's official ones"
        },
    )


class BotSchema(Schema):
    id = fields.Integer(required=True)
    name = fields.String(required=True)
    owner_id = fields.Integer(required=True)
    player_id = fields.Integer(
        required=True, metadata={"description": "the bot's own account, which holds its seats in games"}
    )
    mode = fields.String(required=True, metadata={"description": "push (called at its url) or pull"})
    url = fields.String(allow_none=True, metadata={"description": "shown to the bot's owner only"})
    games = fields.List(fields.String(), required=True)
    active = fields.Boolean(required=True)
    excluded = fields.Boolean(
        required=True,
        metadata={
            "description": "true after 3 failed health checks in a row, until 2 pass: it forfeits new games"
        },
    )
    open_to_others = fields.Boolean(
        required=True, metadata={"description": "whether other accounts may enter it into their tournaments"}
    )
    failed_checks = fields.Integer(required=True)
    passed_checks = fields.Integer(required=True)
    created_at = fields.DateTime(required=True)


class BotCreatedSchema(BotSchema):
    secret = fields.String(required=True, metadata={"description": "the HMAC key: shown this once"})
    token = fields.String(
        required=True, metadata={"description": "the bot account's bearer token (pull mode): shown this once"}
    )


class BotUpdatedSchema(BotSchema):
    secret = fields.String(metadata={"description": "the new secret, when rotate_secret was asked"})


class BotListSchema(Schema):
    bots = fields.List(fields.Nested(BotSchema), required=True)
