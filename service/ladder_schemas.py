"""Request and response bodies of the ladders resource (marshmallow)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.bot_schemas import GAMES, NAME
from service.schemas import MAX_INT, Text
from store.challenges import MAX_BOT_MOVE_TIMEOUT_MS

STATUSES = ["open", "closed"]
GAME_STATES = ["in_play", "recent"]
MAX_BUDGET_PER_HOUR = 3600
MAX_IN_PLAY = 64


class LadderCreateSchema(Schema):
    name = Text(load_default="ladder", validate=NAME, metadata={"example": "board duels"})
    game = Text(required=True, validate=validate.OneOf(GAMES), metadata={"example": "board"})
    settings = fields.Dict(
        keys=Text(),
        load_default=dict,
        metadata={"description": "the game's settings as for POST /games; players is the table size"},
    )
    table_size = fields.Integer(load_default=2, validate=validate.Range(min=2, max=4))
    move_timeout_ms = fields.Integer(
        load_default=1000,
        validate=validate.Range(min=10, max=MAX_BOT_MOVE_TIMEOUT_MS),
        metadata={"description": "a bot's time to answer a move; later is a fault"},
    )
    budget_per_hour = fields.Integer(
        load_default=30,
        validate=validate.Range(min=1, max=MAX_BUDGET_PER_HOUR),
        metadata={"description": "the most games a bot begins in any hour", "example": 30},
    )
    max_in_play = fields.Integer(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=1, max=MAX_IN_PLAY),
        metadata={
            "description": "the most games of the ladder made and not finished at once: its share of the workers "
            "(default: SORRY_ARENA_LADDER_MAX_IN_PLAY, 8)"
        },
    )
    rated = fields.Boolean(
        load_default=True,
        metadata={"description": "false: its games count in no rating pool (the ladder's own ratings still move)"},
    )


class LadderSchema(Schema):
    id = fields.Integer(required=True)
    tournament_id = fields.Integer(
        required=True, metadata={"description": "the tournament whose schedule holds the ladder's games"}
    )
    name = fields.String(required=True, metadata={"example": "board duels"})
    owner_id = fields.Integer(required=True)
    owner = fields.String(required=True, metadata={"description": "the owner's name"})
    game = fields.String(required=True, metadata={"example": "board"})
    variant = fields.String(required=True, metadata={"example": "standard"})
    settings = fields.Dict(required=True)
    table_size = fields.Integer(required=True, metadata={"example": 2})
    move_timeout_ms = fields.Integer(required=True)
    budget_per_hour = fields.Integer(required=True, metadata={"example": 30})
    max_in_play = fields.Integer(required=True, metadata={"example": 8})
    rated = fields.Boolean(
        required=True, metadata={"description": "its games count in the rating pool of its game and table size"}
    )
    official = fields.Boolean(required=True, metadata={"description": "made by the operator: it may seat any bot"})
    status = fields.String(
        required=True,
        validate=validate.OneOf(STATUSES),
        metadata={"description": "open (games are made) or closed (no new game; those in play finish)"},
    )
    created_at = fields.DateTime(required=True)
    closed_at = fields.DateTime(required=True, allow_none=True)
    games_made = fields.Integer(required=True, metadata={"description": "the games made since it opened"})
    games_in_play = fields.Integer(
        required=True,
        metadata={"description": "its games made and not finished (waiting for a worker, or playing)"},
    )


class LadderRowSchema(Schema):
    bot_id = fields.Integer(required=True)
    name = fields.String(required=True)
    version_id = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "the bot version rated (null before its first game)"},
    )
    prior_version_id = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "the version whose rating this one started from, as its prior (a new version)"},
    )
    rating = fields.Float(
        required=True,
        metadata={
            "description": "its current version's rating in the ladder's fit (Bradley-Terry, mean 1500 over a group "
            "of bots that met), refit every few seconds; before that fit counts the version, its Weng-Lin rating",
            "example": 1532.4,
        },
    )
    low = fields.Float(required=True, metadata={"description": "the 95% interval's low end"})
    high = fields.Float(required=True, metadata={"description": "the 95% interval's high end"})
    fitted = fields.Boolean(
        required=True,
        metadata={"description": "the rating is the ladder's fit (false: Weng-Lin's, until the next fit)"},
    )
    mu = fields.Float(
        required=True, metadata={"description": "the Weng-Lin mean that chooses its games (25 for a newcomer)"}
    )
    sigma = fields.Float(required=True, metadata={"description": "the Weng-Lin deviation (25/3 for a newcomer)"})
    games = fields.Integer(required=True, metadata={"description": "its current version's rated games here"})
    provisional = fields.Boolean(
        required=True, metadata={"description": "its interval is still 50 Elo or wider either side"}
    )
    inactive = fields.Boolean(
        required=True,
        metadata={
            "description": "no game here for SORRY_ARENA_LADDER_INACTIVE_DAYS (30) days (since it joined, if none)"
        },
    )
    last_game_at = fields.DateTime(required=True, allow_none=True)
    games_today = fields.Integer(required=True, metadata={"description": "its games begun today (UTC)"})
    budget_left = fields.Integer(
        required=True, metadata={"description": "the games it may still begin within the last hour's budget"}
    )
    paused = fields.Boolean(required=True, metadata={"description": "no game is made for it"})
    pause_reason = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "why, in words: by its owner, by the operator, or automatically after games with faults",
            "example": "paused by its owner",
        },
    )
    left = fields.Boolean(required=True, metadata={"description": "it left the ladder (its rating kept)"})
    busy = fields.Boolean(required=True, metadata={"description": "a game of it is in play"})


class LadderDetailSchema(LadderSchema):
    standings = fields.List(
        fields.Nested(LadderRowSchema),
        required=True,
        metadata={
            "description": "the first 100 rows, best rating first, the bots that left after the others; all: "
            "GET .../standings, page by page"
        },
    )
    standings_total = fields.Integer(required=True, metadata={"description": "how many bots the standings list"})


class LadderListQuerySchema(Schema):
    status = Text(validate=validate.OneOf(STATUSES))


class LadderGamesQuerySchema(Schema):
    state = Text(
        load_default="in_play",
        validate=validate.OneOf(GAME_STATES),
        metadata={"description": "in_play: made and not finished, oldest first; recent: finished, latest first"},
    )


class LadderGameSchema(Schema):
    tournament_game_id = fields.Integer(required=True)
    game_id = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "the game, once a worker started it (null before)"},
    )
    status = fields.String(required=True, metadata={"description": "pending, running or done"})
    made_at = fields.DateTime(required=True)
    bot_ids = fields.List(fields.Integer(), required=True, metadata={"description": "the bot of each seat"})
    names = fields.List(fields.String(), required=True, metadata={"description": "the name of each seat's bot"})
    ranks = fields.List(
        fields.Integer(), metadata={"description": "finished games: per seat, 1 best; equal ranks tie"}
    )
    reason = fields.String(metadata={"description": "finished games: how it ended"})
    forfeited = fields.List(fields.Integer(), metadata={"description": "finished games: the seats that forfeited"})
    faults = fields.List(fields.Integer(), metadata={"description": "finished games: faults per seat"})
    void = fields.Boolean(metadata={"description": "finished games: void, so rated nowhere"})
    void_reason = fields.String(allow_none=True)
    finished_at = fields.DateTime()


class LadderLineSchema(Schema):
    bot_id = fields.Integer(required=True)
    name = fields.String(required=True)
    points = fields.List(
        fields.List(fields.Raw()),
        required=True,
        metadata={
            "description": "[number, rating, low, high, at] after its number-th rated game here (any version), "
            "at most about 200 of them (every n-th game, and the latest)",
            "example": [[1, 1540.2, 1100.5, 1979.9, "2026-11-29T20:00:00+00:00"]],
        },
    )


class LadderChartQuerySchema(Schema):
    bot_id = fields.List(
        fields.Integer(validate=validate.Range(min=1, max=MAX_INT)),
        validate=validate.Length(max=20),
        metadata={"description": "the bots whose lines to draw (repeated, up to 20); default: the 20 best rated"},
    )


class LadderChartSchema(Schema):
    ladder_id = fields.Integer(required=True)
    lines = fields.List(fields.Nested(LadderLineSchema), required=True)


class LadderJoinSchema(Schema):
    bot_id = fields.Integer(required=True, validate=validate.Range(min=1, max=MAX_INT), metadata={"example": 7})
