"""Request and response bodies of the matches and gauntlets resources (marshmallow)."""

from __future__ import annotations

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from ratings.sprt import MAX_NORMALIZED
from runtime.settings import DEFAULT_QUOTA_MATCH_GAMES
from service.bot_schemas import GAMES
from service.schemas import MAX_INT, MAX_SEED, Text
from store.challenges import MAX_BOT_MOVE_TIMEOUT_MS

DEFAULT_MATCH_GAMES = DEFAULT_QUOTA_MATCH_GAMES
"""The default ``max_games``: the default match fits the default quota of a match's games."""
MAX_MATCH_GAMES = 20_000
"""A match stops by its test long before this in practice: the bound keeps a match's schedule small."""


class SprtFieldsSchema(Schema):
    """The test and the games, shared by a match and a gauntlet."""

    game = Text(required=True, validate=validate.OneOf(GAMES))
    settings = fields.Dict(
        keys=Text(),
        load_default=dict,
        metadata={"description": "the game's settings as for POST /games; players is the table size"},
    )
    table_size = fields.Integer(
        load_default=2,
        validate=validate.Range(min=2, max=4),
        metadata={"description": "seats per game, 2 (the default) to 4: Elo differences depend on the table size"},
    )
    fillers = fields.List(
        fields.Integer(validate=validate.Range(min=1, max=MAX_INT)),
        load_default=list,
        validate=validate.Length(max=2),
        metadata={"description": "the bots of the other seats of a 3- or 4-seat table (table_size - 2 of them)"},
    )
    elo0 = fields.Float(
        load_default=0.0,
        validate=validate.Range(min=-1000, max=1000),
        metadata={
            "description": "H0: A is at most this much stronger than B (Elo of model: normalized by default)"
        },
    )
    elo1 = fields.Float(
        load_default=30.0,
        validate=validate.Range(min=-1000, max=1000),
        metadata={
            "description": "H1: A is at least this much stronger than B (Elo of model: normalized by default); above "
            "elo0"
        },
    )
    alpha = fields.Float(
        load_default=0.05,
        validate=validate.Range(min=0.001, max=0.5),
        metadata={
            "description": "the chance of accepting H1 when H0 holds; for a gauntlet, of even one false H1 among "
            "its matches (Holm's step-down)"
        },
    )
    beta = fields.Float(
        load_default=0.05,
        validate=validate.Range(min=0.001, max=0.5),
        metadata={"description": "the chance of accepting H0 when H1 holds"},
    )
    model = Text(
        load_default="normalized",
        validate=validate.OneOf(["normalized", "logistic"]),
        metadata={"description": "the Elo of elo0 and elo1: normalized (fastchess's default) or logistic"},
    )
    max_games = fields.Integer(
        load_default=DEFAULT_MATCH_GAMES,
        validate=validate.Range(min=2, max=MAX_MATCH_GAMES),
        metadata={
            "description": "stop here without a verdict (inconclusive); rounded up to whole pairs; at most "
            "SORRY_ARENA_QUOTA_MATCH_GAMES (2000 by default)"
        },
    )
    seed = fields.Integer(load_default=None, allow_none=True, validate=validate.Range(min=0, max=MAX_SEED))
    paired = fields.Boolean(
        load_default=None,
        allow_none=True,
        metadata={
            "description": "the two games of a pair share one deal, seats swapped: only for matches of your own bots "
            "(a bot may remember a deal it held); null (the default): paired when every bot is yours, else "
            "independent deals; false: independent deals always; true with another account's bot: a 422"
        },
    )
    move_timeout_ms = fields.Integer(
        load_default=1000,
        validate=validate.Range(min=10, max=MAX_BOT_MOVE_TIMEOUT_MS),
        metadata={"description": "a bot's time to answer a move; later is a fault"},
    )

    @validates_schema
    def _test_and_table(self, data: dict[str, object], **_: object) -> None:
        elo0, elo1 = data.get("elo0", 0.0), data.get("elo1", 30.0)
        assert isinstance(elo0, float) and isinstance(elo1, float)
        if not elo0 < elo1:
            raise ValidationError(f"elo1 ({elo1:g}) must be above elo0 ({elo0:g})", "elo1")
        if data.get("model", "normalized") == "normalized" and max(abs(elo0), abs(elo1)) > MAX_NORMALIZED:
            raise ValidationError(
                f"normalized Elo hypotheses lie within +-{MAX_NORMALIZED:g}; use model logistic for larger", "elo1"
            )
        fillers = data.get("fillers", [])
        size = data.get("table_size", 2)
        assert isinstance(fillers, list) and isinstance(size, int)
        if len(fillers) != size - 2:
            raise ValidationError(
                f"a table of {size} seats needs {size - 2} filler bot(s), got {len(fillers)}", "fillers"
            )


class MatchCreateSchema(SprtFieldsSchema):
    bot_a = fields.Integer(
        required=True,
        validate=validate.Range(min=1, max=MAX_INT),
        metadata={"description": "the bot tested (e.g. the new version)"},
    )
    bot_b = fields.Integer(
        required=True,
        validate=validate.Range(min=1, max=MAX_INT),
        metadata={"description": "the bot it is tested against (e.g. the old version)"},
    )


class GauntletCreateSchema(SprtFieldsSchema):
    bot = fields.Integer(
        required=True, validate=validate.Range(min=1, max=MAX_INT), metadata={"description": "the bot tested"}
    )
    opponents = fields.List(
        fields.Integer(validate=validate.Range(min=1, max=MAX_INT)),
        required=True,
        validate=validate.Length(min=1, max=16),
        metadata={"description": "the field: one match against each (paired deals against your own bots only)"},
    )


class EloEstimateSchema(Schema):
    pairs = fields.Integer(
        required=True, metadata={"description": "the pairs counted (the games, on independent deals)"}
    )
    score = fields.Float(required=True, metadata={"description": "A's mean score per game against B"})
    elo = fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": "logistic Elo of A over B, not corrected for early stopping (docs/ratings.md)"},
    )
    low = fields.Float(
        required=True,
        allow_none=True,
        metadata={
            "description": "nominal 95% interval of the logistic Elo (null: unbounded), not corrected for early "
            "stopping: once the test has stopped it covers the truth less often (docs/ratings.md)"
        },
    )
    high = fields.Float(required=True, allow_none=True)
    nelo = fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": "normalized Elo of A over B, not corrected for early stopping"},
    )
    nelo_low = fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": "nominal 95% interval of the normalized Elo, not corrected for early stopping"},
    )
    nelo_high = fields.Float(required=True, allow_none=True)


class StoppedSchema(Schema):
    nelo = fields.Float(
        required=True,
        metadata={"description": "normalized Elo of A over B corrected for early stopping (median-unbiased)"},
    )
    nelo_low = fields.Float(
        required=True,
        metadata={"description": "its 95% interval, corrected for early stopping (stagewise ordering)"},
    )
    nelo_high = fields.Float(required=True)


class PlanPointSchema(Schema):
    elo = fields.Float(
        required=True, metadata={"description": "a true difference, in the Elo of the test's model"}
    )
    p_h1 = fields.Float(
        required=True,
        metadata={"description": "the chance of accepting H1 there within max_games (Wald's approximation)"},
    )
    p_h1_ever = fields.Float(
        required=True,
        metadata={"description": "the same without max_games: Wald's operating characteristic (alpha at elo0)"},
    )
    p_none = fields.Float(
        required=True, metadata={"description": "the chance of reaching max_games with no verdict"}
    )
    games = fields.Float(required=True, metadata={"description": "the games expected, at most max_games"})


class MatchSchema(Schema):
    id = fields.Integer(required=True)
    tournament_id = fields.Integer(required=True, metadata={"description": "the tournament that plays its games"})
    gauntlet_id = fields.Integer(allow_none=True, metadata={"description": "the gauntlet it belongs to, if any"})
    gauntlet_size = fields.Integer(
        required=True,
        metadata={
            "description": "the matches of its gauntlet (Holm's correction is over them); 1 for a match alone"
        },
    )
    bot_a = fields.Integer(required=True)
    bot_b = fields.Integer(required=True)
    name_a = fields.String(required=True)
    name_b = fields.String(required=True)
    fillers = fields.List(fields.Integer(), required=True)
    game = fields.String(required=True)
    settings = fields.Dict(required=True)
    table_size = fields.Integer(required=True)
    elo0 = fields.Float(required=True)
    elo1 = fields.Float(required=True)
    alpha = fields.Float(required=True)
    beta = fields.Float(required=True)
    model = fields.String(required=True)
    max_games = fields.Integer(required=True)
    paired = fields.Boolean(
        required=True,
        metadata={
            "description": "true: paired deals (a pair's two games share one seed, seats swapped, played one after "
            "the other; the test counts pairs, pentanomial); false: independent deals (each game its own seed; "
            "the test counts games, trinomial)"
        },
    )
    status = fields.String(
        required=True, metadata={"description": "scheduled, running, done (a verdict, or max_games) or cancelled"}
    )
    verdict = fields.String(
        required=True,
        metadata={
            "description": "continue (the test goes on), H1 (evidence that A is stronger: accepted at a true elo0 "
            "with a chance of at most about alpha), H0 (no evidence of a gain of elo1: a true elo1 is missed with a "
            "chance of about beta), inconclusive (max_games played first) or cancelled"
        },
    )
    verdict_text = fields.String(
        required=True,
        metadata={
            "description": "the verdict in words, with the hypotheses, the Elo model and the table size, e.g. "
            "'evidence that v2 is stronger than v1 (H1 accepted at elo0=0, elo1=30, normalized Elo, at 2 seats)'"
        },
    )
    plan = fields.List(
        fields.Nested(PlanPointSchema),
        required=True,
        metadata={
            "description": "what the test is expected to do, at elo0, halfway and elo1 (Wald's approximation, "
            "docs/ratings.md): the chance of H1, of no verdict, and the games"
        },
    )
    llr = fields.Float(required=True, metadata={"description": "log-likelihood ratio of H1 against H0"})
    lower = fields.Float(
        required=True,
        metadata={
            "description": "H0 is accepted at or below: ln(beta/(1-alpha)); in a gauntlet of k, ln(beta/(1-alpha/k))"
        },
    )
    upper = fields.Float(
        required=True,
        metadata={
            "description": "H1 is accepted at or above: ln((1-beta)/alpha); in a gauntlet of k, "
            "ln((1-beta)/(alpha/(k-r))) with r its other matches that accepted H1 (Holm)"
        },
    )
    pairs = fields.Integer(
        required=True, metadata={"description": "completed pairs counted (paired deals; 0 on independent deals)"}
    )
    counts = fields.List(
        fields.Integer(),
        required=True,
        metadata={
            "description": "paired deals, pentanomial: the pairs in which A scored 0, 0.5, 1, 1.5 and 2 points "
            "against B; independent deals, trinomial: the games A lost, tied and won against B"
        },
    )
    games = fields.Integer(required=True, metadata={"description": "games finished (counted in pairs or not)"})
    elo = fields.Nested(
        EloEstimateSchema,
        required=True,
        allow_none=True,
        metadata={"description": "null before the first pair (the first game, on independent deals)"},
    )
    elo_stopped = fields.Nested(
        StoppedSchema,
        required=True,
        allow_none=True,
        metadata={
            "description": "once the test has stopped (H1, H0, inconclusive) with the normalized model: the "
            "normalized Elo corrected for early stopping, with its 95% interval (Wald's approximation of the test, "
            "docs/ratings.md); null otherwise"
        },
    )
    created_at = fields.DateTime(required=True)
    finished_at = fields.DateTime(allow_none=True)


class MatchGameSchema(Schema):
    pair = fields.Integer(
        required=True,
        metadata={
            "description": "1 first; the two games of a pair swap seats, and share a deal if the match is paired"
        },
    )
    game_id = fields.Integer(required=True)
    bot_ids = fields.List(fields.Integer(), required=True, metadata={"description": "the bot of each seat"})
    ranks = fields.List(fields.Integer(), required=True, metadata={"description": "per seat, 0 best"})
    score = fields.Float(
        required=True,
        allow_none=True,
        metadata={
            "description": "A's score against B: 1, 0.5 or 0; null for a void game, which the test counts not"
        },
    )
    void_reason = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "why the game is void (docs/ratings.md), or null: the test counts it"},
    )


class MatchDetailSchema(MatchSchema):
    results = fields.List(fields.Nested(MatchGameSchema), required=True)


class MatchListSchema(Schema):
    matches = fields.List(fields.Nested(MatchSchema), required=True)


class GauntletSchema(Schema):
    id = fields.Integer(required=True, metadata={"description": "the id of its first match"})
    bot = fields.Integer(required=True)
    verdict = fields.String(
        required=True,
        metadata={
            "description": "one verdict for the field (Holm-corrected): all (evidence that the bot is stronger "
            "than every opponent), some, none, or continue while a match is played"
        },
    )
    stronger = fields.Integer(required=True, metadata={"description": "the matches that accepted H1"})
    verdict_text = fields.String(required=True, metadata={"description": "the combined verdict in words"})
    matches = fields.List(fields.Nested(MatchSchema), required=True, metadata={"description": "one per opponent"})
