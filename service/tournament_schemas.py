"""Request and response bodies of the tournaments and standings resources (marshmallow)."""

from __future__ import annotations

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from service.bot_schemas import GAMES, NAME
from service.schemas import MAX_INT, MAX_SEED, Text
from store.challenges import MAX_BOT_MOVE_TIMEOUT_MS
from store.models import VOID_REASONS


class TournamentCreateSchema(Schema):
    name = Text(load_default="tournament", validate=NAME)
    game = Text(required=True, validate=validate.OneOf(GAMES))
    settings = fields.Dict(
        keys=Text(),
        load_default=dict,
        metadata={"description": "the game's settings as for POST /games; players is the table size"},
    )
    bot_ids = fields.List(
        fields.Integer(validate=validate.Range(min=1, max=MAX_INT)),
        required=True,
        validate=validate.Length(min=2, max=64),
    )
    table_size = fields.Integer(load_default=2, validate=validate.Range(min=2, max=4))
    rounds = fields.Integer(load_default=1, validate=validate.Range(min=1, max=1000))
    seed = fields.Integer(load_default=None, allow_none=True, validate=validate.Range(min=0, max=MAX_SEED))
    move_timeout_ms = fields.Integer(
        load_default=1000,
        validate=validate.Range(min=10, max=MAX_BOT_MOVE_TIMEOUT_MS),
        metadata={"description": "a bot's time to answer a move; later is a fault"},
    )
    rated = fields.Boolean(load_default=True, metadata={"description": "false: left out of the Elo standings"})
    start_at = fields.AwareDateTime(
        load_default=None, allow_none=True, metadata={"description": "default: now (needs RQ: REDIS_URL)"}
    )
    repeat_every = fields.Integer(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=1, max=365 * 86400),
        metadata={"description": "seconds between runs: each run after the first is a new tournament"},
    )
    repeat_times = fields.Integer(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=2, max=10_000),
        metadata={"description": "how many runs in all, the first included"},
    )

    @validates_schema
    def _repeat_pair(self, data: dict[str, object], **_: object) -> None:
        if (data.get("repeat_every") is None) != (data.get("repeat_times") is None):
            raise ValidationError("repeat_every and repeat_times go together", "repeat_times")


class ProgressSchema(Schema):
    done = fields.Integer(required=True)
    total = fields.Integer(required=True)


class StandingSchema(Schema):
    bot_id = fields.Integer(required=True)
    name = fields.String(required=True)
    elo = fields.Float(required=True, metadata={"description": "maximum-likelihood rating (Elo scale, mean 1500)"})
    low = fields.Float(required=True, metadata={"description": "95% interval, robust to multiplayer games"})
    high = fields.Float(required=True)
    games = fields.Integer(required=True)
    wins = fields.Integer(required=True, metadata={"description": "games finished alone at the best rank"})
    shared_wins = fields.Integer(required=True, metadata={"description": "games finished first with others"})
    mean_rank = fields.Float(required=True, metadata={"description": "1 is first; tied seats share places"})
    forfeits = fields.Integer(required=True)
    group = fields.Integer(
        dump_default=1,
        metadata={
            "description": "its group of bots linked by games (1 the largest; a cancelled run's bots may not all "
            "have met): each group is fitted apart, with a mean of 1500; ratings compare within a group only"
        },
    )


class HeadToHeadSchema(Schema):
    bot_id = fields.Integer(required=True)
    opponent_id = fields.Integer(required=True)
    score = fields.Float(required=True, metadata={"description": "pairwise points (1 win, 0.5 tie) against it"})
    games = fields.Integer(required=True)


class ResultSchema(Schema):
    game_id = fields.Integer(required=True)
    bot_ids = fields.List(fields.Integer(), required=True, metadata={"description": "the bot of each seat"})
    ranks = fields.List(fields.Integer(), required=True, metadata={"description": "per seat, 1 best"})
    reason = fields.String(required=True)
    forfeited = fields.List(fields.Integer(), required=True)
    faults = fields.List(fields.Integer(), required=True)
    moves = fields.Integer(required=True)
    void = fields.Boolean(
        required=True,
        metadata={
            "description": "a seat forfeited for a reason on the service's side: the game counts in no rating"
        },
    )
    void_reason = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(VOID_REASONS),
        metadata={
            "description": "why the game is void: excluded (a bot excluded by its health checks when it began), "
            "rejected (a bot refused the service's signature on every call); null: the game is rated"
        },
    )


class TournamentSchema(Schema):
    id = fields.Integer(required=True)
    name = fields.String(required=True)
    game = fields.String(required=True)
    settings = fields.Dict(required=True)
    variant = fields.String(required=True)
    bot_ids = fields.List(fields.Integer(), required=True)
    table_size = fields.Integer(required=True)
    rounds = fields.Integer(required=True)
    seed = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "null until every game it decides is over (each game's deal derives from it)"},
    )
    seed_salt = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "the server's secret that every game seed hashes in with the seed (so a guessed seed "
            "gives no deal away); null until the tournament is done, then shown to check the game seeds"
        },
    )
    move_timeout_ms = fields.Integer(required=True)
    rated = fields.Boolean(required=True)
    official = fields.Boolean(required=True, metadata={"description": "made by the operator: it may seat any bot"})
    status = fields.String(
        required=True,
        metadata={
            "description": "scheduled, running, done or cancelled (by its owner or the operator: its games left "
            "unplayed, its results out of the rating pools, its later runs never started)"
        },
    )
    run = fields.Integer(required=True)
    parent_id = fields.Integer(allow_none=True)
    start_at = fields.DateTime(allow_none=True)
    repeat_every = fields.Integer(allow_none=True)
    repeat_times = fields.Integer(allow_none=True)
    progress = fields.Nested(ProgressSchema, required=True)
    created_at = fields.DateTime(required=True)
    finished_at = fields.DateTime(allow_none=True)


class TournamentDetailSchema(TournamentSchema):
    standings = fields.List(fields.Nested(StandingSchema), required=True)
    head_to_head = fields.List(fields.Nested(HeadToHeadSchema), required=True)
    results = fields.List(
        fields.Nested(ResultSchema),
        required=True,
        metadata={
            "description": "the first 100 results, in the order written; all: GET .../results, page by page"
        },
    )
    results_total = fields.Integer(required=True, metadata={"description": "how many results are written"})


class TournamentListSchema(Schema):
    tournaments = fields.List(fields.Nested(TournamentSchema), required=True)


class TournamentListQuerySchema(Schema):
    status = Text(validate=validate.OneOf(["scheduled", "running", "done", "cancelled"]))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_INT))


class StandingsQuerySchema(Schema):
    game = Text(required=True, validate=validate.OneOf(GAMES))
    variant = Text(
        load_default="standard",
        validate=validate.Length(min=1, max=32),
        metadata={
            "description": "board: standard, team, points (with -1972 for that edition); card: standard, longer"
        },
    )
    table_size = fields.Integer(
        load_default=2,
        validate=validate.Range(min=2, max=4),
        metadata={
            "description": "the seats of the pool's games (2 as a tournament's default): each table size is a pool "
            "of its own, as the Elo scale depends on it"
        },
    )


class PoolRowSchema(Schema):
    bot_id = fields.Integer(required=True)
    name = fields.String(required=True)
    version = fields.Integer(
        required=True,
        metadata={"description": "the bot's latest rated version (its earlier ones: GET /api/v1/bots/{id})"},
    )
    rating = fields.Float(
        required=True, metadata={"description": "maximum-likelihood rating over the pool (Elo scale, mean 1500)"}
    )
    low = fields.Float(required=True, metadata={"description": "95% interval, robust to multiplayer games"})
    high = fields.Float(required=True)
    games = fields.Integer(required=True)
    wins = fields.Integer(required=True, metadata={"description": "games finished alone at the best rank"})
    shared_wins = fields.Integer(required=True, metadata={"description": "games finished first with others"})
    mean_rank = fields.Float(required=True, metadata={"description": "1 is first; tied seats share places"})
    group = fields.Integer(
        required=True,
        metadata={
            "description": "its group of bots linked by games (1 the largest): each group is fitted apart, with a "
            "mean of 1500, and ratings compare within a group only"
        },
    )
    forfeits = fields.Integer(required=True, metadata={"description": "games in which its seat forfeited"})
    forfeit_rate = fields.Float(
        required=True, metadata={"description": "forfeits over every game it played in the pool, rated or not"}
    )
    faults_per_100_moves = fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": "the bot's faults per 100 of its moves over its finished games; null: none yet"},
    )


class StandingsSchema(Schema):
    game = fields.String(required=True)
    variant = fields.String(required=True)
    table_size = fields.Integer(required=True, metadata={"description": "the seats of every game the pool counts"})
    games = fields.Integer(required=True, metadata={"description": "rated games counted"})
    updated_at = fields.DateTime(
        required=True, allow_none=True, metadata={"description": "when the workers last fitted the table"}
    )
    groups = fields.Integer(
        required=True,
        metadata={"description": "groups of bots that never met, directly or through others (0: no table yet)"},
    )
    forfeits_rated = fields.Boolean(
        required=True,
        metadata={
            "description": "true: a game with a forfeit is rated as a loss for the seat that forfeited; false: it "
            "is left out of the fit (SORRY_ARENA_RATE_FORFEITS)"
        },
    )
    notes = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "how to read the table: how forfeited games are rated; groups not comparable"},
    )
    standings = fields.List(fields.Nested(PoolRowSchema), required=True)
