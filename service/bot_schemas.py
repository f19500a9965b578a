"""Request and response bodies of the bots resource (marshmallow)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from service.schemas import PRINTABLE, Text

GAMES = ["board", "card"]
NAME = [validate.Length(min=1, max=64), PRINTABLE]
SECRET = [validate.Length(min=32, max=128), PRINTABLE]
NOTE = [validate.Length(min=1, max=200), PRINTABLE]
SECRET_NEEDED = (
    "a push bot needs the secret it checks the service's signatures with: generate one (32 to 128 printable "
    "characters, e.g. python3 -c 'import secrets; print(secrets.token_urlsafe(32))'), start the bot with it "
    "(--secret), then register it with the same secret: the service proves the URL by calling the bot's info "
    "route signed with that secret"
)
"""Why a push bot's registration without a secret fails (a secret of the service's own would fail the proof)."""


class BotCreateSchema(Schema):
    name = Text(required=True, validate=NAME, metadata={"description": "unique among the active bots"})
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
        validate=SECRET,
        metadata={
            "description": "the HMAC key the service signs its requests to the bot with: required for a push bot "
            "(the bot must already check signatures with it, since its URL is proved with a signed request); a "
            "pull bot needs none (default: a new random one, returned once, for a url given later)"
        },
    )
    open_to_others = fields.Boolean(
        load_default=False,
        metadata={
            "description": "true: other accounts may enter the bot into their tournaments (each game calls it and "
            "moves its rating); false (the default): only its owner's tournaments and the operator's official ones"
        },
    )

    version_note = Text(
        load_default=None,
        allow_none=True,
        validate=NOTE,
        metadata={"description": "a note on version 1 (what the bot does), shown with its versions"},
    )

    @validates_schema
    def push_bots_bring_their_secret(self, data: dict[str, Any], **kwargs: Any) -> None:
        if data.get("url") is not None and data.get("secret") is None:
            raise ValidationError(SECRET_NEEDED, "secret")


class BotUpdateSchema(Schema):
    name = Text(validate=NAME, metadata={"description": "unique among the active bots"})
    url = Text(allow_none=True, validate=validate.Length(max=2048))
    games = fields.List(Text(validate=validate.OneOf(GAMES)), validate=validate.Length(min=1, max=2))
    secret = Text(
        validate=SECRET,
        metadata={
            "description": "a new secret of your choosing (a rotation): start the bot accepting both the old and "
            "the new secret first (clients: --secret NEW --old-secret OLD), since a push bot's URL is proved again "
            "with the new one; the service signs with it from then on (the games already begun end with the old "
            "one), and the bot may then drop the old one (docs/bots.md)"
        },
    )
    new_version = fields.Boolean(
        metadata={
            "description": "true: the code behind the bot changed, a new version starts (with its own rating and "
            "history) from the next game on; a new url starts one by itself"
        }
    )
    version_note = Text(
        validate=NOTE, metadata={"description": "what the new version changes (with new_version or a new url)"}
    )
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
    protocol = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "the push protocol version the bot's requests are signed in (2; 1: deprecated, a "
            "client before 0.2); null for a pull bot, or a push bot not checked since the versions came"
        },
    )
    last_check_failure = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "why the push bot's last health check failed, in words its owner can act on (a refused "
            "signature, a fault's kind; never the bot's reply); null when it passed or none was made"
        },
    )
    protocol_warning = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "for a bot speaking a deprecated protocol version: until when it plays and what to do; "
            "else null"
        },
    )
    created_at = fields.DateTime(required=True)
    version = fields.Integer(
        required=True, metadata={"description": "the current version's number (1 at registration)"}
    )


class VersionRatingSchema(Schema):
    game = fields.String(required=True)
    variant = fields.String(required=True)
    table_size = fields.Integer(
        required=True,
        metadata={"description": "the pool's table size: each is rated apart (a row per size played)"},
    )
    rating = fields.Float(required=True, metadata={"description": "this version's rating in the pool"})
    low = fields.Float(required=True, metadata={"description": "95% interval"})
    high = fields.Float(required=True)
    games = fields.Integer(required=True, metadata={"description": "the rated games this version played"})
    wins = fields.Integer(required=True)


class BotVersionSchema(Schema):
    number = fields.Integer(required=True)
    url = fields.String(allow_none=True, metadata={"description": "shown to the bot's owner only"})
    note = fields.String(allow_none=True)
    created_at = fields.DateTime(required=True, metadata={"description": "it plays the games begun from then on"})
    ratings = fields.List(
        fields.Nested(VersionRatingSchema),
        required=True,
        metadata={"description": "its row in each pool it is rated in (the pools' stored tables)"},
    )


class BotLadderSchema(Schema):
    ladder_id = fields.Integer(required=True)
    name = fields.String(required=True, metadata={"description": "the ladder's name"})
    status = fields.String(required=True, metadata={"description": "the ladder's: open or closed"})
    rating = fields.Float(
        required=True,
        metadata={
            "description": "its current version's rating in the ladder's fit (as its standings show it)",
            "example": 1532.4,
        },
    )
    low = fields.Float(required=True, metadata={"description": "95% interval"})
    high = fields.Float(required=True)
    fitted = fields.Boolean(
        required=True,
        metadata={"description": "the rating is the ladder's fit (false: Weng-Lin's, until the next)"},
    )
    games = fields.Integer(required=True, metadata={"description": "its current version's rated games there"})
    provisional = fields.Boolean(
        required=True, metadata={"description": "its interval is still 50 Elo or wider either side"}
    )
    paused = fields.Boolean(required=True)
    pause_reason = fields.String(
        required=True, allow_none=True, metadata={"description": "why it is paused, in words"}
    )
    left = fields.Boolean(required=True, metadata={"description": "it left the ladder (its rating kept)"})


class RecentFaultsSchema(Schema):
    games = fields.Integer(
        required=True,
        metadata={"description": "its last finished tournament games counted (at most 20; void ones left out)"},
    )
    faults = fields.Integer(required=True, metadata={"description": "its faults in them"})
    forfeits = fields.Integer(required=True, metadata={"description": "how many of them it forfeited"})


class BotDetailSchema(BotSchema):
    recent = fields.Nested(
        RecentFaultsSchema,
        required=True,
        metadata={"description": "its health as its games show it: faults and forfeits in its last games"},
    )
    ladders = fields.List(
        fields.Nested(BotLadderSchema),
        required=True,
        metadata={"description": "its place in each ladder it is or was in, the newest ladder first"},
    )
    versions = fields.List(
        fields.Nested(BotVersionSchema),
        required=True,
        metadata={"description": "its latest 20 versions, oldest first (all: GET /bots/{id}/versions)"},
    )
    versions_total = fields.Integer(required=True, metadata={"description": "how many versions it has"})


class BotVersionListSchema(Schema):
    bot_id = fields.Integer(required=True)
    versions = fields.List(
        fields.Nested(BotVersionSchema), required=True, metadata={"description": "oldest first"}
    )


class BotCreatedSchema(BotSchema):
    secret = fields.String(required=True, metadata={"description": "the HMAC key: shown this once"})
    token = fields.String(
        required=True, metadata={"description": "the bot account's bearer token (pull mode): shown this once"}
    )


class BotListSchema(Schema):
    bots = fields.List(fields.Nested(BotSchema), required=True)
