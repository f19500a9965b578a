"""Request and response bodies of the challenges resource (marshmallow): a person against bots in one game."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from runtime.settings import MAX_CHALLENGE_MOVE_TIMEOUT_MS
from service.bot_schemas import GAMES
from service.schemas import MAX_INT, Text
from service.tournament_schemas import ResultSchema
from store.challenges import MAX_BOT_MOVE_TIMEOUT_MS


class ChallengeCreateSchema(Schema):
    game = Text(required=True, validate=validate.OneOf(GAMES))
    settings = fields.Dict(
        keys=Text(),
        load_default=dict,
        metadata={"description": "the game's settings as for POST /games; players is the bots and you"},
    )
    bot_ids = fields.List(
        fields.Integer(validate=validate.Range(min=1, max=MAX_INT)),
        required=True,
        validate=validate.Length(min=1, max=3),
        metadata={
            "description": "the opponents, in seat order around yours: your own bots or bots open to others"
        },
    )
    seat = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=3),
        metadata={"description": "your seat (0 moves first), from 0 to the number of bots"},
    )
    move_timeout_ms = fields.Integer(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=1000, max=MAX_CHALLENGE_MOVE_TIMEOUT_MS),
        metadata={
            "description": "your time per move, at most the service's SORRY_ARENA_CHALLENGE_MOVE_TIMEOUT_MS (default "
            "and most: 120000 unless the operator set it); the bots' is the same up to the tournaments' limit of "
            f"{MAX_BOT_MOVE_TIMEOUT_MS} ms (a push bot's call, a pull bot's move). Later is a fault, answered by the "
            "game's fallback move; your second in a row forfeits, a bot's third"
        },
    )


class ChallengePlayerSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    bot_id = fields.Integer(allow_none=True, required=True, metadata={"description": "null at your seat"})
    mode = fields.String(required=True, metadata={"description": "human (you), push or pull"})


class ChallengeSchema(Schema):
    id = fields.Integer(required=True, metadata={"description": "the id of the challenge and of its tournament"})
    owner_id = fields.Integer(required=True, metadata={"description": "your account: it holds your seat"})
    game = fields.String(required=True)
    settings = fields.Dict(required=True)
    seat = fields.Integer(required=True, metadata={"description": "the seat of the challenge's owner"})
    players = fields.List(fields.Nested(ChallengePlayerSchema), required=True)
    move_timeout_ms = fields.Integer(required=True, metadata={"description": "your time per move"})
    bot_move_timeout_ms = fields.Integer(required=True, metadata={"description": "the bots' time per move"})
    status = fields.String(
        required=True, metadata={"description": "the tournament's: scheduled, running, done or cancelled"}
    )
    game_id = fields.Integer(
        allow_none=True,
        required=True,
        metadata={"description": "the game, once a worker has made it (within a moment of the start): play it"},
    )
    game_status = fields.String(
        allow_none=True, required=True, metadata={"description": "active, over, cancelled"}
    )
    result = fields.Nested(ResultSchema, allow_none=True, required=True)
    created_at = fields.DateTime(required=True)


class OpponentsQuerySchema(Schema):
    game = Text(required=True, validate=validate.OneOf(GAMES))


class OpponentSchema(Schema):
    id = fields.Integer(required=True)
    name = fields.String(required=True)
    mode = fields.String(required=True, metadata={"description": "push or pull"})
    yours = fields.Boolean(required=True, metadata={"description": "your own bot (else one open to others)"})


class OpponentsSchema(Schema):
    bots = fields.List(fields.Nested(OpponentSchema), required=True)
    more = fields.Boolean(required=True, metadata={"description": "more bots than listed (the newest are listed)"})
